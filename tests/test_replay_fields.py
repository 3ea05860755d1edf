"""Replay proves each field of a log as docs/match-log.md "What replay proves" says (issue 27,
point 4): it refuses what the board cannot write, and takes a CRLF copy as the same log."""

import json
import os

import pytest
from conftest import run_cli
from referee import Referee, RefereeError
from test_replay import _check, _mashing

from host_sim.replay import Divergence, replay_file

GOLDEN = os.path.join(os.path.dirname(__file__), "golden", "logs")
CLASSIC = os.path.join(GOLDEN, "seed1_hard_vs_easy.jsonl")
SPIT = os.path.join(GOLDEN, "board_spit_seed3_mash_vs_hard.jsonl")
# a classic match whose keys the keypad stamped (run's reader before issue 29.3): its key
# events and loss fields are the keypad's
KEYPAD = os.path.join(
    os.path.dirname(__file__), "golden", "older", "seed1_hard_vs_easy_run_keypad_ms.jsonl"
)


@pytest.fixture(scope="module")
def pio_log(tmp_path_factory):
    """A classic match on the simulated board, its keys stamped by the PIO (µs)."""
    log = tmp_path_factory.mktemp("pio") / "b.jsonl"
    run_cli(
        "board", "--seed", "2", "--idle-ms", "4000", "--script",
        "tests/scripts/device_smoke.txt", "--log", str(log),
    )  # fmt: skip
    lines = log.read_text().splitlines()
    assert json.loads(lines[0])["stamped_by"] == "pio"
    return lines


def _objects(lines):
    return [json.loads(line) for line in lines]


def _lines(objects):
    return [json.dumps(o, separators=(",", ":")) for o in objects]


def _replay(tmp_path, lines, name="m.jsonl", newline="\n"):
    """(exit status, one-line output) of ``replay`` on ``lines``."""
    path = tmp_path / name
    path.write_bytes("".join(line + newline for line in lines).encode())
    result = run_cli("replay", str(path), check=False)
    return result.returncode, (result.stdout + result.stderr).strip()


@pytest.mark.parametrize("path", [CLASSIC, SPIT], ids=["classic", "spit"])
def test_a_copy_with_crlf_line_ends_replays_as_the_same_log(path, tmp_path):
    with open(path, "rb") as f:
        data = f.read()
    crlf = tmp_path / "crlf.jsonl"
    crlf.write_bytes(data.replace(b"\n", b"\r\n"))
    ok, message = replay_file(str(crlf))
    assert ok, message
    count = data.count(b"\n")
    assert message.endswith(f"{count} lines replayed identically")


def test_a_crlf_copy_of_a_pio_log_replays_and_a_changed_one_still_diverges(pio_log, tmp_path):
    assert _replay(tmp_path, pio_log, newline="\r\n")[0] == 0
    changed = pio_log[:2] + [pio_log[2].replace('"t":100', '"t":101')] + pio_log[3:]
    code, said = _replay(tmp_path, changed, newline="\r\n")
    assert code == 1 and " diverges: " in said


def test_an_extra_field_on_a_version_1_keys_line_diverges():
    lines = _mashing(11)
    k = next(i for i, line in enumerate(lines) if line.startswith('{"ev":"keys"'))
    assert _check(lines) is None
    extra = lines[k][:-1] + ',"note":1}'
    e = _check(lines[:k] + [extra] + lines[k + 1 :])
    assert isinstance(e, Divergence) and e.line == k + 1
    with pytest.raises(RefereeError, match="key events only"):
        Referee().check_log(lines[:k] + [extra] + lines[k + 1 :])


def test_keys_total_on_a_line_without_key_events_diverges():
    with open(KEYPAD) as f:
        lines = f.read().splitlines()
    first = next(i for i, line in enumerate(lines) if '"keys"' in line)
    k = next(
        i
        for i in range(first, len(lines))
        if '"keys"' not in lines[i] and lines[i].startswith(('{"ev":"play"', '{"ev":"stall"'))
    )
    total = json.loads(next(line for line in lines[:k][::-1] if "keys_total" in line))
    bad = lines[k][:-1] + ',"keys_total":%d}' % total["keys_total"]
    e = _check(lines[:k] + [bad] + lines[k + 1 :])
    assert isinstance(e, Divergence) and "keys_total without key events" in str(e)


def test_a_loss_window_in_a_pio_stamped_match_is_refused_in_one_line(pio_log, tmp_path):
    events = _objects(pio_log)
    k = next(i for i, e in enumerate(events) if "keys_us" in e and i > 1)
    t = events[k]["keys_us"][0][0]
    events[k]["keys_us"][1:1] = [[t, -1, 0], [t, -2, 1]]  # lost, then the queue cleared
    events[k]["keys_total"] += 2
    for e in events[k + 1 :]:
        if "keys_total" in e:
            e["keys_total"] += 2
    code, said = _replay(tmp_path, _lines(events))
    assert code == 2 and len(said.splitlines()) == 1
    assert f"line {k + 1}: a loss mark [{t},-1,0] in a log whose keys the PIO stamped" in said
    with pytest.raises(RefereeError, match="loss mark"):
        Referee().check_log(_lines(events))


def test_late_us_on_a_keypad_stamped_match_is_refused_in_one_line(tmp_path):
    with open(KEYPAD) as f:
        events = _objects(f.read().splitlines())
    events[-1]["late_us"] = 3000
    code, said = _replay(tmp_path, _lines(events))
    assert code == 2 and len(said.splitlines()) == 1
    assert f"line {len(events)}: late_us in a log whose keys the keypad stamped" in said
    with pytest.raises(RefereeError, match="late_us"):
        Referee().check_log(_lines(events))


def test_late_us_is_taken_from_the_file_only_as_whole_ms(pio_log, tmp_path):
    """late_us is the PIO reader's own bound: nothing proves it but its form (the table's
    "file"), so a whole-ms value replays and any other is refused."""

    def late(text):  # where the board writes it: before keys_total
        return pio_log[:-1] + [
            pio_log[-1].replace(',"keys_total"', f',"late_us":{text},"keys_total"')
        ]

    assert _replay(tmp_path, late("2000"))[0] == 0
    Referee().check_log(late("2000"))
    code, said = _replay(tmp_path, late("1500"))
    assert code == 2 and "field late_us must be a whole number of ms in µs" in said


def test_two_matches_in_one_file_are_refused_naming_where_the_second_begins(tmp_path):
    with open(CLASSIC) as f:
        lines = f.read().splitlines()
    code, said = _replay(tmp_path, lines + lines)
    assert code == 2 and len(said.splitlines()) == 1
    assert f"line {len(lines) + 1}: a second match begins here" in said and "FILE-2" in said


# Each field the rules prove (docs/match-log.md "What replay proves"), changed to another
# value of its type in a genuine log: refused, naming its line.
RULES_FIELDS = [
    ("match", "tie_first"),
    ("match", "seed"),
    ("deal", "hands"),
    ("deal", "piles"),
    ("play", "t"),
    ("play", "card"),
    ("play", "pile"),
    ("draw", "card"),
    ("reject", "why"),
    ("stall", "due"),
    ("flip", "card"),
    ("hand_end", "winner"),
    ("hand_end", "left"),
    ("hand_end", "sweep"),
    ("match_end", "score"),
]


def _other(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value - 1 if value > 0 else value + 1
    if value is None:
        return 0
    if isinstance(value, str):  # a card, or a why
        return {"invalid": "late", "late": "invalid"}.get(value, "AS" if value != "AS" else "2S")
    if isinstance(value, list):
        return [_other(value[0]), *value[1:]]
    raise AssertionError(value)


@pytest.mark.parametrize("ev, field", RULES_FIELDS)
def test_every_field_the_rules_prove_is_refused_when_changed(ev, field):
    with open(CLASSIC) as f:
        lines = f.read().splitlines()
    events = _objects(lines)
    k = next(i for i, e in enumerate(events) if e["ev"] == ev and field in e)
    events[k][field] = _other(events[k][field])
    e = _check(lines[:k] + _lines(events[k : k + 1]) + lines[k + 1 :])
    assert isinstance(e, Divergence) and e.line <= k + 1, (ev, field, e)
