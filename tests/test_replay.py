"""Replay as a checker: genuine logs replay, altered ones are refused (issue 9, items 6-7).

The genuine matches below once failed to replay (or hung); each is the match
the property test plays for those arguments (``phase_us`` is ``seed % 977``
there too), so a regression names its seed. The altered logs are the kinds a
fuzz run found "replayed identically" or crashing the replay.
"""

import json
import os
import random

import pytest
from runner import Simulation
from script import parse_script
from speedduo.game.rules import Rules

from host_sim.logfile import LogError, parse_log
from host_sim.replay import Divergence, ReplayError, check_entries, replay_lines

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GAP_LOGS = {1: "seed1_hard_vs_easy.jsonl", 2: "game_spit_seed3_hard_vs_medium.jsonl"}

CASES = [
    # R13 photo finish 2 ms after a stall flip: the flip must come before the presses
    (460, {"end_on_exhaustion": False}, ["bot:perfect", "bot:perfect"], 3),
    # R17 abandoned hand that had a stall first: the flips come before the idle end
    (525667908, {"claim": "off"}, ["none", "none"], 3),
    (323056193, {"pile_redeal": True, "penalty": True, "stall_countdown_ms": 91}, ["none"] * 2, 5),
    (24433215, {"claim": "race"}, ["none", "bot:hard"], 5),
    # V5 race: both players claim "Speed!" at the same instant (a tie, which takes a turn)
    (45, {"claim": "race"}, ["bot:perfect", "bot:perfect"], 5),
]


def _play(seed, rules, players, best_of, **kw):
    lines = []
    kw.setdefault("phase_us", seed % 977)
    kw.setdefault("keys", "keypad")  # the cases were found at the keypad's scans
    Simulation(seed, Rules(**rules), best_of, players, **kw).run(lines.append)
    return lines


def _scripted(script, rules=None, **kw):
    lines = []
    rules = Rules(**(rules or {"idle_ms": 6000}))
    kw.setdefault("keys", "keypad")  # the cases edit ms key times
    Simulation(2, rules, 3, ["none", "none"], parse_script(script), **kw).run(lines.append)
    return lines


def _check(lines):
    """None when the log replays; else the Divergence or the one-line error."""
    try:
        check_entries(parse_log("\n".join(lines) + "\n"))
    except (Divergence, LogError, ReplayError) as e:
        return e
    return None


def _entries(lines):
    return [(line, json.loads(line)) for line in lines]


@pytest.mark.parametrize("seed,rules,players,best_of", CASES)
def test_match_replays_identically(seed, rules, players, best_of):
    lines = _play(seed, rules, players, best_of)
    assert replay_lines(_entries(lines)) == lines
    assert _check(lines) is None


def test_the_double_claim_case_is_a_double_claim():
    lines = _play(*CASES[-1])
    claims = [json.loads(line) for line in lines if '"why":"claim"' in line]
    both = [
        sorted(k[1] for k in c["keys"] if k[2] == 1 and k[0] == c["keys"][-1][0]) for c in claims
    ]
    assert [0, 6, 7, 13] in both  # both players' L and R at one instant


def test_a_key_held_when_r17_ends_the_match_replays():
    lines = _scripted("200000 0 1 down\n90000000 0 1 up\n")
    end = json.loads(next(line for line in lines if '"why":"abandoned"' in line))
    assert end["t"] == 200 + 6000  # idle since the press: the key is still down
    assert _check(lines) is None


def _mashing(trial):
    """Both players mash random keys (L/R too) every 2-3 ms; the loop is slow."""
    rng = random.Random(trial)
    script = []
    for i in range(rng.choice([50, 100, 200])):
        for p in (0, 1):
            for k in rng.sample("L12345R", rng.randrange(3, 8)):
                t = 200000 + i * rng.choice([2000, 3000])
                script.append(f"{t} {p} {k} down\n{t + 1000} {p} {k} up\n")
    rules = rng.choice([{}, {"claim": "race"}, {"penalty": True}])
    rules["idle_ms"] = 6000
    lines = []
    Simulation(
        rng.randrange(1000),
        Rules(**rules),
        3,
        ["none", "none"],
        parse_script("".join(script)),
        loop_us=rng.choice([20000, 30000, 60000]),
        keys="keypad",  # its queue overflows
    ).run(lines.append)
    return lines


@pytest.mark.parametrize("trial", [5, 11, 12])  # each once refused by the replay (issue 9)
def test_a_log_with_keypad_overflows_replays(trial):
    lines = _mashing(trial)  # the queue (64) overflows: events are lost
    assert any('"overflows"' in line for line in lines)
    assert any(",-1," in line for line in lines)  # where the events were lost
    assert _check(lines) is None


def test_a_log_with_contact_bounce_replays():
    lines = _play(7, {"penalty": True}, ["bot:hard", "bot:hard"], 3, bounce_max_us=5000)
    assert _check(lines) is None


# ---- altered logs: each must be refused, naming the line ----


def _golden_like():
    return _play(7, {"penalty": True}, ["bot:medium", "bot:medium"], 3)


def _index(lines, needle, start=0):
    return next(i for i in range(start, len(lines)) if needle in lines[i])


def _diverges_at(lines, number):
    e = _check(lines)
    assert isinstance(e, Divergence), e
    assert e.line == number, str(e)
    return str(e)


def test_a_deleted_reject_line_diverges():
    lines = _golden_like()
    k = _index(lines, '"ev":"reject"')
    cut = lines[:k] + lines[k + 1 :]
    e = _check(cut)
    assert isinstance(e, Divergence) and e.line >= k + 1


def test_a_deleted_reject_without_key_fields_diverges():
    lines = _scripted("200000 0 1\n200000 1 2\n")  # a tie: the loser's reject has no keys
    k = next(i for i, line in enumerate(lines) if '"ev":"reject"' in line and "keys" not in line)
    assert _diverges_at(lines[:k] + lines[k + 1 :], k + 1)


def test_a_duplicated_reject_line_diverges():
    lines = _golden_like()
    k = _index(lines, '"ev":"reject"')
    e = _check(lines[: k + 1] + lines[k:])
    assert isinstance(e, Divergence) and e.line in (k + 1, k + 2)


@pytest.mark.parametrize("shift", [1, -1, 1000, "zero"])
def test_a_moved_timestamp_diverges(shift):
    lines = _golden_like()
    for needle in ('"ev":"reject"', '"ev":"play"', '"ev":"stall"', '"ev":"hand_end"'):
        k = _index(lines, needle, 5)
        event = json.loads(lines[k])
        event["t"] = 0 if shift == "zero" else event["t"] + shift
        moved = list(lines)
        moved[k] = json.dumps(event, separators=(",", ":"))
        e = _check(moved)
        assert isinstance(e, Divergence), (needle, shift)
        assert e.line in (k, k + 1, k + 2), (needle, shift, str(e))


def test_two_same_instant_lines_swapped_diverge():
    lines = _golden_like()
    k = next(
        i
        for i in range(2, len(lines) - 1)
        if '"t":' in lines[i]
        and json.loads(lines[i]).get("t") == json.loads(lines[i + 1]).get("t")
        and lines[i] != lines[i + 1]
    )
    swapped = lines[:k] + [lines[k + 1], lines[k]] + lines[k + 2 :]
    assert _diverges_at(swapped, k + 1)


def test_a_log_missing_the_line_that_ended_a_hand_diverges_instead_of_hanging():
    lines = _play(*CASES[0])
    k = _index(lines, '"why":"photo_finish"')
    e = _check(lines[:k] + lines[k + 1 :])
    assert isinstance(e, Divergence) and e.line == k + 1


@pytest.mark.parametrize(
    "line_no,field,value,message",
    [
        (0, "seed", "1", "line 1 (match): field seed"),
        (0, "rules", [], "line 1 (match): field rules must be an object"),
        (0, "best_of", 4, "line 1 (match): field best_of"),
        (1, "hand_no", "1", "line 2 (deal): field hand_no"),
        (1, "hands", [["AS"], ["2S"]], "line 2 (deal): field hands"),
        ("play", "t", "1288", "(play): field t must be a whole number"),
        ("play", "slot", 7, "(play): field slot"),
        ("play", "card", "ZZ", "(play): field card"),
        ("play", "keys", [[1, 2]], "(play): field keys"),
        ("play", "keys", "x", "(play): field keys"),
        ("hand_end", "winner", 2, "(hand_end): field winner"),
        ("hand_end", "left", [1], "(hand_end): field left"),
        ("match_end", "score", None, "(match_end): field score"),
        ("match_end", "keys_total", -1, "(match_end): field keys_total"),
    ],
)
def test_a_wrong_type_is_one_line_naming_the_line_and_field(line_no, field, value, message):
    lines = _golden_like()
    k = line_no if isinstance(line_no, int) else _index(lines, f'"ev":"{line_no}"')
    event = json.loads(lines[k])
    event[field] = value
    lines[k] = json.dumps(event, separators=(",", ":"))
    e = _check(lines)
    assert isinstance(e, LogError), e
    assert message in str(e) and f"line {k + 1} " in str(e) and "\n" not in str(e)


def test_key_fields_on_the_match_line_are_checked_not_a_traceback():
    lines = _golden_like()
    for keys, kind in (("x", LogError), ([[3000, 1, 1]], Divergence)):
        event = json.loads(lines[0])
        event["keys"] = keys
        event["keys_total"] = 1
        altered = [json.dumps(event, separators=(",", ":"))] + lines[1:]
        assert isinstance(_check(altered), kind)


def test_a_wrong_hand_number_is_a_named_divergence():
    lines = _golden_like()
    k = _index(lines, '"ev":"deal"', 2)
    lines[k] = lines[k].replace('"hand_no":2', '"hand_no":3')
    assert "hand 3 dealt after hand 1" in _diverges_at(lines, k + 1)


def test_an_unknown_rule_or_bad_rule_value_is_refused_with_exit_2_not_a_traceback():
    for rules in ({"claim": 3}, {"no_wrap": "yes"}, {"warp": True}, {"idle_ms": [1]}):
        lines = _golden_like()
        event = json.loads(lines[0])
        event["rules"].update(rules)
        lines[0] = json.dumps(event, separators=(",", ":"))
        e = _check(lines)
        assert isinstance(e, ReplayError) and str(e).startswith("line 1: rule"), e


def test_a_log_without_its_key_record_cannot_be_checked():
    lines = []
    for line in _golden_like():
        event = json.loads(line)
        event.pop("keys", None)
        event.pop("keys_total", None)
        lines.append(json.dumps(event, separators=(",", ":")))
    e = _check(lines)
    assert isinstance(e, ReplayError) and "key events" in str(e)


# ---- where key events ride (docs/match-log.md "Key events") ----

_TWO_PRESSES = "200000 0 1 down\n201000 0 1 up\n305000 1 2 down\n306000 1 2 up\n"


def _move_keys(lines, source, target):
    """The key events of line ``source`` (0-based) moved onto line ``target``, after its own."""
    objs = [json.loads(line) for line in lines]
    moved = objs[source].pop("keys")
    total = objs[source].pop("keys_total")
    if objs[source]["ev"] == "match_end":
        objs[source]["keys_total"] = total
    objs[target].pop("keys_total", None)
    objs[target]["keys"] = objs[target].get("keys", []) + moved
    objs[target]["keys_total"] = total
    return [json.dumps(o, separators=(",", ":")) for o in objs]


def _keyed(lines):
    return [i for i, line in enumerate(lines) if '"keys":' in line]


def test_a_key_event_moved_onto_a_line_105_ms_before_it_happened_diverges():
    lines = _scripted(_TWO_PRESSES)
    first, second = _keyed(lines)[:2]
    assert json.loads(lines[second])["keys"][0][0] - json.loads(lines[first])["keys"][0][0] == 105
    error = _check(_move_keys(lines, second, first))
    assert isinstance(error, Divergence) and error.line == first + 1
    assert "more than one loop pass (100 ms) before it happened (at 3305 ms)" in str(error)


def test_a_key_event_moved_onto_the_deal_before_it_diverges():
    lines = _scripted(_TWO_PRESSES)
    first = _keyed(lines)[0]
    deal = next(i for i, line in enumerate(lines) if line.startswith('{"ev":"deal"'))
    error = _check(_move_keys(lines, first, deal))
    assert isinstance(error, Divergence) and "more than one loop pass" in str(error)


def test_a_key_event_moved_onto_a_line_written_after_its_own_diverges():
    lines = _scripted(_TWO_PRESSES)
    last = _keyed(lines)[-1]  # the second press's line; the hand's end comes seconds later
    end = next(i for i, line in enumerate(lines) if line.startswith('{"ev":"hand_end"'))
    error = _check(_move_keys(lines, last, end))
    assert isinstance(error, Divergence) and error.line == end + 1
    assert f"the first line written after it (at 3305 ms) is line {last + 1}" in str(error)


def test_key_events_read_by_a_slow_loop_ride_early_and_still_replay():
    """A loop pass of 60 ms reads a press late and puts it on the pass's first line."""
    lines = _scripted(_TWO_PRESSES, loop_us=60000)
    assert _check(lines) is None


# ---- messages that stay one line, and short ----


@pytest.mark.parametrize(
    "bad, words",
    [
        ('{"ev":"stall","t":' + "7" * 5000 + "}", "line 3 is not valid JSON (Exceeds the limit"),
        ('{"ev":"stall","t":' + "[" * 5000 + "]" * 5000 + "}", "line 3 is not valid JSON"),
    ],
)
@pytest.mark.parametrize("version", [1, 2])
def test_a_huge_number_or_deep_nesting_is_one_line_naming_the_line(bad, words, version):
    from host_sim.replay_games import parse_games_log

    lines = _scripted(_TWO_PRESSES)
    if version == 2:
        lines = [
            '{"ev":"match","v":2,"game":"spit","players":2,"seed":1,"rules":{},"best_of":1,'
            '"tie_first":0}',
            '{"ev":"stall","t":1,"due":2}',
        ]
    text = "\n".join(lines[:2] + [bad] + lines[2:]) + "\n"
    with pytest.raises(LogError) as error:
        (parse_log if version == 1 else parse_games_log)(text, "m.jsonl")
    assert words in str(error.value) and "\n" not in str(error.value)


def test_a_divergence_clips_both_lines():
    lines = _scripted(_TWO_PRESSES)
    k = _keyed(lines)[0]
    obj = json.loads(lines[k])
    obj["note"] = "x" * 2_500_000  # an extra field: allowed, and not what the rules write
    lines[k] = json.dumps(obj, separators=(",", ":"))
    error = _check(lines)
    assert isinstance(error, Divergence) and error.line == k + 1
    assert len(str(error)) < 1000 and "characters)" in str(error)


@pytest.mark.parametrize("version", [1, 2])
def test_a_gap_marker_is_refused_in_a_log_of_either_version(version, tmp_path):
    from host_sim.replay import replay_file

    with open(os.path.join(ROOT, "tests", "golden", "logs", GAP_LOGS[version])) as f:
        lines = f.read().splitlines()
    lines.insert(2, '{"ev":"lost","lines":3}')
    path = tmp_path / "m.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(LogError) as error:
        replay_file(str(path))
    assert f"{path}: line 3: 3 lines are missing here" in str(error.value)


@pytest.mark.parametrize("version", [1, 2])
def test_a_key_released_twice_diverges_with_the_same_words_in_either_version(version):
    from host_sim.replay import read_entries

    with open(os.path.join(ROOT, "tests", "golden", "logs", GAP_LOGS[version]), "rb") as f:
        entries = read_entries("m.jsonl", f.read())
    number, obj = next((n, o) for n, (_, o) in enumerate(entries, 1) if len(o.get("keys", ())) > 1)
    t, key, pressed = obj["keys"][0]
    obj["keys"][1] = [t, key, pressed]  # the same edge twice
    with pytest.raises(Divergence) as error:
        check_entries(entries)
    what = "pressed" if pressed else "released"
    assert str(error.value).startswith(f"line {number} diverges: key {key} {what} twice in a row")
