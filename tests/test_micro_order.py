"""Who was first, to the microsecond (issue 19): with a source that stamps every edge in
µs (the PIO's, ``edges.py``) the one arbiter orders presses by µs, a tie is only the
same µs, and the match log's key record (``keys_us``) says the µs and replays.

The race (as bench/bench_fairness.py's): pile 0 shows 5H, player 0 holds 4S and
player 1 6D in slot 0, both fit pile 0 only, everything else fits nothing; both press
slot 0 (keys 1 and 8) in the same millisecond."""

import json
import os

import pytest
from conftest import ROOT, EventQueue, needs_firmware, run_cli
from position import set_piles, set_player
from speedduo.game.match import PLAYING, Match
from speedduo.game.rules import Rules
from speedduo.log.keylog import KeyRecorder
from speedduo.log.matchlog import MatchLog
from speedduo.loop.arbiter import Arbiter
from speedduo.loop.opponent import KeyEvent

PILE0_TOP = 17  # 5H
PILE1_TOP = 51  # KC
RACE_CARD = (12, 22)  # 4S (player 0), 6D (player 1): both fit 5H only
FILLER = (32, 33, 36, 37, 34, 35, 38, 39)  # nines and tens: fit neither
SLOT0_KEY = (1, 8)


class Table:
    """A classic match fed a µs key source (timestamp ms + ``sub_us``)."""

    def __init__(self, micro=True, seed=1):
        self.queue = EventQueue()
        self.log = MatchLog(micro=micro)
        self.match = Match(seed, Rules(), 3, self.log)
        recorder = KeyRecorder(self.queue, self.log, 0, self.match)  # the key record
        self.arbiter = Arbiter(recorder, self.match, 0, KeyEvent(), micro)
        self.lines = []
        self.now = self.match.countdown_ms + 1000
        self.arbiter.service(self.now)  # the countdown ends: the deal
        self.drain()
        assert self.match.phase == PLAYING

    def drain(self):
        self.log.drain(self.lines.append)  # (each line a str)

    def race(self, first, at_ms, first_sub, second_sub):
        """Player ``first`` presses slot 0 at (at_ms, first_sub), the other at second_sub
        of the same ms (the later, or the same µs); who won pile 0?"""
        hand = self.match.hand
        set_piles(hand, bytes([PILE0_TOP]), bytes([PILE1_TOP]))
        for p in range(2):
            slots = bytes([RACE_CARD[p]] + list(FILLER[p * 4 : p * 4 + 4]))
            set_player(hand, p, slots, bytes(FILLER[i % 8] for i in range(15)), bytes(FILLER[:5]))
            hand.set_target(p, 0)
        later = 1 - first
        # the queue in key-number order, as a reader would hand out edges of one pass
        items = [
            (at_ms, SLOT0_KEY[first], True, first_sub),
            (at_ms, SLOT0_KEY[later], True, second_sub),
        ]
        items.sort(key=lambda item: item[1])
        items += [(at_ms + 30, SLOT0_KEY[p], False, 0) for p in range(2)]
        self.queue.items = items
        self.arbiter.service(at_ms + 40)
        self.drain()
        top = hand.top(0)
        return RACE_CARD.index(top)


@pytest.mark.parametrize("delta_us", [1, 5, 20, 100, 500])
@pytest.mark.parametrize("first", [0, 1])
def test_the_earlier_of_two_presses_in_one_millisecond_wins_by_microseconds(delta_us, first):
    table = Table()
    at = table.now + 500
    sub = 999 - delta_us  # both in one millisecond
    assert table.race(first, at, sub, sub + delta_us) == first
    assert table.match.ties == 0


def test_presses_in_the_same_microsecond_are_a_tie_that_alternates_from_tie_first():
    table = Table()
    tie_first = table.match.tie_next  # (no tie yet: the log's tie_first)
    winners = []
    at = table.now
    for _ in range(4):
        at += 500
        winners.append(table.race(0, at, 123, 123))
    assert winners == [tie_first, 1 - tie_first, tie_first, 1 - tie_first]
    assert table.match.ties == 4


def test_with_millisecond_stamps_the_same_presses_are_a_tie():
    # the keypad's build: no sub_us, so one millisecond is one instant
    table = Table(micro=False)
    table.race(1, table.now + 500, 0, 0)
    assert table.match.ties == 1


def test_the_key_record_says_the_microseconds_and_the_match_line_says_pio_stamped_them():
    table = Table()
    at = table.now + 500
    table.race(1, at, 17, 22)
    match_line = json.loads(table.lines[0])
    assert match_line["stamped_by"] == "pio"
    keys = [entry for line in table.lines for entry in json.loads(line).get("keys_us", ())]
    assert [at * 1000 + 17, SLOT0_KEY[1], 1] in keys
    assert [at * 1000 + 22, SLOT0_KEY[0], 1] in keys
    assert not any("keys" in json.loads(line) for line in table.lines)


def test_a_millisecond_log_is_unchanged_no_stamped_by_and_keys_in_ms():
    table = Table(micro=False)
    at = table.now + 500
    table.race(1, at, 0, 0)
    assert "stamped_by" not in json.loads(table.lines[0])
    keys = [entry for line in table.lines for entry in json.loads(line).get("keys", ())]
    assert [at, SLOT0_KEY[0], 1] in keys


# ---- the board's µs log, end to end on the simulator (rp2pio stand-in), and bad input ----

SMOKE_SCRIPT = "tests/scripts/device_smoke.txt"


def _board_log(tmp_path, *extra):
    log = tmp_path / "b.jsonl"
    run_cli(
        "board",
        "--seed",
        "2",
        "--idle-ms",
        "4000",
        "--script",
        SMOKE_SCRIPT,
        "--log",
        str(log),
        *extra,
    )
    return log


def test_the_board_stamps_in_us_and_its_log_replays(tmp_path):
    log = _board_log(tmp_path)
    lines = log.read_text().splitlines()
    assert json.loads(lines[0])["stamped_by"] == "pio"
    presses = [k for line in lines for k in json.loads(line).get("keys_us", ()) if k[2] == 1]
    # the script's presses, at their µs since the PLAY press (5 s): 8.1 s and 8.105 s
    assert [k[0] for k in presses[:2]] == [3_100_000, 3_105_000]
    assert "replayed identically" in run_cli("replay", str(log)).stdout


def test_a_spit_match_on_the_board_writes_a_us_log_that_replays(tmp_path):
    log = _board_log(tmp_path, "--game", "spit")
    first = json.loads(log.read_text().splitlines()[0])
    assert (first["v"], first["stamped_by"]) == (2, "pio")
    assert "replayed identically" in run_cli("replay", str(log)).stdout


@pytest.mark.parametrize(
    "edit, says",
    [
        (
            lambda text: text.replace(',"stamped_by":"pio"', ""),
            "keys_us in a log whose key times are ms",
        ),
        (
            lambda text: text.replace('"stamped_by":"pio"', '"stamped_by":"lasers"'),
            "stamped_by must be",
        ),
        (
            lambda text: text.replace('"keys_us"', '"keys"', 1),
            "keys in a log whose key times are µs",
        ),
    ],
)
def test_a_log_that_mixes_its_key_stamps_is_refused_in_one_line(tmp_path, edit, says):
    log = _board_log(tmp_path)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(edit(log.read_text()))
    result = run_cli("replay", str(bad), check=False)
    assert result.returncode == 2
    assert says in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_speed_keys_keypad_chooses_the_keypads_ms_stamps(tmp_path):
    log = _board_log(tmp_path, "--keys", "keypad")
    lines = log.read_text().splitlines()
    assert "stamped_by" not in json.loads(lines[0])
    assert any("keys" in json.loads(line) for line in lines)
    assert "replayed identically" in run_cli("replay", str(log)).stdout


@needs_firmware
@pytest.mark.timeout(900)
def test_on_the_firmware_the_earlier_press_wins_every_race_down_to_5_us():
    """bench/bench_fairness.py --device, one race of each Δ and order (and two ties):
    CircuitPython 10.2.1, the PIO's stamps, the real arbiter and rules (docs/device.md)."""
    import importlib.util
    import random

    spec = importlib.util.spec_from_file_location(
        "bench_fairness", os.path.join(ROOT, "bench", "bench_fairness.py")
    )
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    results, tie_first = bench.run_device(1, random.Random(5), "mpy")
    for delta, earlier, won, ties in results:
        if delta:
            assert (won, ties) == (earlier, 0), (delta, earlier, won)
    tied = [won for delta, _, won, _ in results if delta == 0]
    assert tied == [tie_first, 1 - tie_first]


def test_a_burst_that_fills_the_fifo_is_late_not_lost_and_match_end_says_how_late(tmp_path):
    # ten presses 2 µs apart: the FIFO holds four changes; the rest wait for the loop's read
    script = tmp_path / "burst.txt"
    burst = ["%d %d %s" % (8_100_000 + 2 * i, i % 2, "12345"[i // 2]) for i in range(10)]
    ups = ["%d %d %s up" % (8_200_000 + 2 * i, i % 2, "12345"[i // 2]) for i in range(10)]
    script.write_text("\n".join(["5000000 0 1"] + burst + ups) + "\n")
    log = tmp_path / "b.jsonl"
    run_cli("board", "--seed", "2", "--idle-ms", "4000", "--script", str(script), "--log", str(log))
    events = [json.loads(line) for line in log.read_text().splitlines()]
    keys = [k for e in events for k in e.get("keys_us", ())]
    assert sum(1 for k in keys if k[2] == 1 and k[0] >= 3_100_000) == 10  # none lost
    late = events[-1]["late_us"]
    assert 1000 <= late <= 20_000  # whole ms, at most a loop pass or two
    assert max(k[0] for k in keys if k[2] == 1) - 3_100_018 <= late
    assert "replayed identically" in run_cli("replay", str(log)).stdout


@pytest.mark.parametrize(
    "t, sub, text",
    [
        (3, 7, b"[3007,1,1]"),
        (3200, 17, b"[3200017,1,1]"),
        (0, 5, b"[5,1,1]"),
        (-1, 300, b"[-700,1,1]"),
    ],
)
def test_a_us_key_entry_is_its_ms_digits_then_three_us_digits(t, sub, text):
    from speedduo.log.logtext import key_into

    keys = bytearray()
    key_into(keys, t, 1, 1, sub)
    assert bytes(keys) == text
    keys = bytearray()
    key_into(keys, t, 1, 1)  # a ms log's entry: t alone
    assert bytes(keys) == b"[%d,1,1]" % t


def test_speed_keys_is_read_at_power_on_and_a_bad_value_is_shown_not_fatal():
    from speedduo.loop.keys import wants_pio
    from speedduo.loop.settings import Settings

    assert wants_pio({}.get) and wants_pio({"SPEED_KEYS": "pio"}.get)
    assert not wants_pio({"SPEED_KEYS": "keypad"}.get)

    def unreadable(name):
        raise ValueError("a line getenv cannot read")

    assert wants_pio(unreadable)  # the PIO; settings.py says what is wrong
    for value in ("pio", "keypad"):
        assert not Settings({"SPEED_KEYS": value}.get, names=["SPEED_KEYS"]).problems
    bad = Settings({"SPEED_KEYS": "lasers"}.get, names=["SPEED_KEYS"])
    assert bad.problems == [("SPEED_KEYS", "pio or keypad")] and not bad.unknown
