"""One player against the board: lib/speedduo/loop/opponent.py (issue 10, item 2).

The opponent's presses enter the key stream in front of the keypad queue, so
the arbiter orders them with the human's (R4, R8), the log's key record holds
them and ``replay`` checks the whole match.
"""

import json
import os
import subprocess
import sys

import pytest
from bots import level_number
from conftest import ROOT, EventQueue, lay_out, new_hand, run_cli
from speedduo.display.menu import OPPONENT, Menu
from speedduo.game.rng import Rng
from speedduo.game.rules import Rules
from speedduo.loop.opponent import (
    CLAIM,
    LEVEL_NAMES,
    NOTHING,
    SETTLE_MS,
    Brain,
    KeyEvent,
    Opponent,
)
from speedduo.loop.settings import Settings

MASH = os.path.join(ROOT, "tests", "scripts", "opponent_mash.txt")
START = 1000  # ticks_ms of the match's time 0 in the unit tests


class _Event:
    def __init__(self):
        self.key_number = 0
        self.pressed = False
        self.timestamp = 0


def _opponent(match, queue, level=3, claim_mode=0):
    opponent = Opponent(level, 5, claim_mode)
    return opponent.join(queue, match, START, _Event())  # the tests' queue fills plain events


def _drain(source):
    out = []
    event = KeyEvent()
    while source.get_into(event):
        out.append((event.timestamp - START, event.key_number, event.pressed))
    return out


def _plan(opponent, at, slot):
    """A planned press of ``slot`` at match time ``at``, held 80 ms."""
    key = 7 + 1 + slot
    opponent._put(0, at, 0, 1 + slot, 1)
    opponent._put(1, at + 80, 0, 1 + slot, 0)
    opponent._n = 2
    opponent._i = 0
    return key


def test_levels_react_within_their_ranges_from_their_own_seeded_stream():
    for name, low, high in (("easy", 700, 1500), ("medium", 450, 900), ("hard", 250, 500)):
        brain = Brain(1, level_number(name), Rng(9))
        times = [brain.reaction_us() for _ in range(400)]
        assert low * 1000 <= min(times) and max(times) < (high + 1) * 1000
        assert max(times) - min(times) > (high - low) * 800  # spread over the range
        again = Brain(1, level_number(name), Rng(9))
        assert [again.reaction_us() for _ in range(400)] == times  # seeded: the same draws
        holds = [brain.hold_ms() for _ in range(200)]
        assert 60 <= min(holds) and max(holds) <= 120
    assert Brain(1, level_number("perfect"), Rng(9)).reaction_us() == 0
    with pytest.raises(ValueError):
        level_number("expert")
    assert LEVEL_NAMES[:4] == ("off", "easy", "medium", "hard")


def test_the_brain_picks_a_playable_card_and_claims_under_v5():
    match, hand, _ = new_hand(claim="simple")
    lay_out(hand, (["9C", "4D", "TS"], ["3C", "QD", "8H", "6S"]), (["4H"], ["9D"]))
    brain = Brain(1, 3, Rng(1), claim_mode=1)
    picks = {brain.choose(hand) for _ in range(60)}
    assert picks == {0, 2}  # 3C on 4H, 8H on 9D; QD and 6S fit nothing (R5)
    lay_out(hand, (["9C"], ["QD"]), (["4H"], ["9D"]))
    assert brain.choose(hand) == NOTHING
    lay_out(hand, (["9C"], []), (["4H"], ["9D"]))
    assert brain.choose(hand) == CLAIM  # out: press "Speed!" (V5)
    race = Brain(1, 3, Rng(1), claim_mode=2)
    lay_out(hand, ([], ["QD"]), (["4H"], ["9D"]))
    assert race.choose(hand) == CLAIM  # race form: anyone out


def test_events_merge_in_time_order_and_key_order_within_a_millisecond():
    match, hand, _ = new_hand()
    queue = EventQueue([(START + 100, 1, True), (START + 150, 1, False)])
    opponent = _opponent(match, queue)
    key = _plan(opponent, 150, 0)  # its press shares ms 150 with the human's release
    opponent._now = 150
    assert _drain(opponent) == [(100, 1, True), (150, 1, False)]  # ms 150 is not complete yet
    opponent._now = 151
    assert _drain(opponent) == [(150, key, True)]  # after the human's key 1: one scan's order
    queue.items += [(START + 230, 3, True), (START + 400, 2, True)]
    opponent._now = 500
    assert _drain(opponent) == [(230, 3, True), (230, key, False), (400, 2, True)]
    assert opponent._n == 0  # the plan is spent


def test_a_real_event_later_than_the_opponents_next_waits_for_it():
    match, hand, _ = new_hand()
    queue = EventQueue([(START + 152, 2, True)])  # a scan stamped after the pass's ticks_ms read
    opponent = _opponent(match, queue)
    key = _plan(opponent, 150, 0)
    opponent._now = 150
    assert _drain(opponent) == []  # handing on 152 now would put 150 after it
    opponent._now = 151
    assert _drain(opponent) == [(150, key, True), (152, 2, True)]


def test_its_own_rows_physical_buttons_are_ignored():
    match, hand, _ = new_hand()
    queue = EventQueue([(START + 10, 8, True), (START + 20, 1, True), (START + 70, 8, False)])
    opponent = _opponent(match, queue)
    opponent._now = 100
    assert _drain(opponent) == [(20, 1, True)]
    assert opponent.ignored == 1


def test_len_overflowed_and_clear_follow_the_real_queue_and_keep_the_plan():
    match, hand, _ = new_hand()
    queue = EventQueue([(START + 10, 1, True), (START + 30, 1, False)])
    opponent = _opponent(match, queue)
    _plan(opponent, 20, 2)
    opponent._now = 25
    assert len(opponent) == 3  # two real events and the opponent's press due at 20
    queue.overflowed = True
    assert opponent.overflowed
    event = KeyEvent()
    assert opponent.get_into(event) and event.key_number == 1  # read ahead: one held
    opponent.clear()
    assert queue.cleared == 1 and not opponent.overflowed
    assert _drain(opponent) == [(20, 10, True)]  # the plan is not the keypad's: it stays
    assert len(opponent) == 0


def test_a_press_not_yet_down_is_dropped_when_its_hand_ends_but_a_held_key_is_released():
    match, hand, _ = new_hand()
    lay_out(hand, (["9C"], ["3C", "8H"]), (["4H"], ["9D"]))
    opponent = _opponent(match, EventQueue())
    start = match.hand_start
    opponent.look(START + start + 10)
    opponent.changed(start, 0)
    opponent.look_at(start + 10, 0)  # plans a press (hard: 250-500 ms after the change)
    assert opponent._n == 2
    at = opponent._t[0]
    assert 250 <= at - start <= 500
    hand.over = True  # the hand ends before the press
    opponent.changed(at - 5, 0)
    assert opponent._n == 0
    hand.over = False
    opponent.changed(at - 4, 0)
    opponent.look_at(at - 3, 0)
    at = opponent._t[0]
    opponent.look(START + at + 1)
    assert len(_drain(opponent)) == 1  # down
    hand.over = True
    opponent.changed(at + 1, 0)
    opponent.look(START + at + 500)
    assert [e[2] for e in _drain(opponent)] == [False]  # the key still goes up
    assert opponent._resume >= at + 60 + SETTLE_MS


def test_its_presses_carry_microseconds_and_merge_with_a_childs_in_microsecond_order():
    """Issue 27.1: with the PIO's µs stamps the board's own player is ordered to the µs
    (R4, R8): a child's press 556 µs into a ms goes after the opponent's 100 µs into it,
    before one 900 µs into it, and the key record's time never runs backwards."""
    match, hand, _ = new_hand()
    queue = EventQueue([(START + 150, 2, True, 556), (START + 150, 3, True, 900)])
    opponent = _opponent(match, queue)
    opponent.micro = True
    opponent._real = KeyEvent()
    key = 8
    opponent._put(0, 150, 100, 1, 1)
    opponent._put(1, 230, 100, 1, 0)
    opponent._n = 2
    opponent._now = 151
    event = KeyEvent()
    seen = []
    while opponent.get_into(event):
        seen.append((event.timestamp - START, event.sub_us, event.key_number))
    assert seen == [(150, 100, key), (150, 556, 2), (150, 900, 3)]


def test_its_reaction_counts_from_the_change_it_saw_not_from_the_loop_pass():
    """Issue 27.1: the moment it plans does not depend on when a loop pass comes, so the
    board and the simulator give it the same presses (µs: the change's own µs)."""
    plans = []
    for pass_at in (3, 37):  # a pass right after the change, or a slow one 35 ms later
        match, hand, _ = new_hand()
        lay_out(hand, (["9C"], ["3C", "8H"]), (["4H"], ["9D"]))
        opponent = _opponent(match, EventQueue())
        opponent.micro = True
        start = match.hand_start
        opponent.look(START + start + pass_at)
        opponent.changed(start + 2, 417)  # a play 2.417 ms into the hand changed the table
        opponent.look_at(start + pass_at, 0)
        plans.append((opponent._t[0] - start, opponent._sub[0], opponent._t[1] - start))
    assert plans[0] == plans[1]
    assert plans[0][1] != 0  # a µs reaction, not a whole-ms one


def test_a_press_is_never_stamped_before_the_pass_that_planned_it():
    match, hand, _ = new_hand()
    lay_out(hand, (["9C"], ["3C", "8H"]), (["4H"], ["9D"]))
    opponent = Opponent(4, 5)  # perfect: 0 ms
    opponent.join(EventQueue(), match, START, _Event())
    opponent.micro = True
    start = match.hand_start
    opponent.look(START + start + 50)  # the board was busy for 50 ms
    opponent.changed(start + 2, 417)
    opponent.look_at(start + 50, 0)
    assert (opponent._t[0], opponent._sub[0]) == (start + 51, 0)


def test_settings_and_menu_choose_the_opponent():
    chosen = Settings({"SPEED_OPPONENT": "medium"}.get, ["SPEED_OPPONENT"])
    assert chosen.opponent == 2 and chosen.problems == [] and chosen.unknown == []
    bad = Settings({"SPEED_OPPONENT": "expert"}.get, ["SPEED_OPPONENT"])
    assert bad.problems == [("SPEED_OPPONENT", "off, easy, medium or hard")]
    assert bad.opponent == 0 and Settings({}.get).opponent == 0
    menu = Menu(Rules(), 3, chosen.opponent)
    assert menu.lines()[OPPONENT] == "VS BOARD MEDIUM"
    for _ in range(OPPONENT):
        menu.press(6)  # R: down to OPPONENT
    seen = []
    for _ in range(4):
        menu.press(1)
        seen.append(menu.lines()[OPPONENT])
    assert seen == ["VS BOARD HARD", "2 PLAYERS", "VS BOARD EASY", "VS BOARD MEDIUM"]
    assert all(len(line) <= 21 for line in menu.lines())


# ---- the whole board program: code.py on the shims ----


def _log(path):
    return [json.loads(line) for line in open(path)]


def test_one_player_against_the_board_plays_to_the_end_and_replays(tmp_path):
    log = tmp_path / "m.jsonl"
    result = run_cli(
        "board", "--opponent", "hard", "--seed", "2", "--script", MASH, "--log", str(log)
    )
    assert "1 match(es)" in result.stdout
    events = _log(log)
    end = events[-1]
    assert end["ev"] == "match_end" and end["winner"] in (0, 1)  # won, not stopped idle
    hands = [e for e in events if e["ev"] == "hand_end"]
    assert all(h["why"] == "out" for h in hands)
    plays = [e for e in events if e["ev"] == "play"]
    assert {e["p"] for e in plays} == {0, 1}  # the human played cards, and so did the board
    late = [e for e in events if e["ev"] == "reject" and e["p"] == 1 and e["why"] == "late"]
    assert late  # it commits to its presses: some lose the race (R8)
    keys = [k for e in events for k in e.get("keys_us", [])]  # (the PIO stamps the board's)
    assert any(k[1] >= 7 for k in keys)  # the opponent's presses are in the key record
    replay = run_cli("replay", str(log))
    assert "replayed identically" in replay.stdout


def test_the_opponent_claims_under_v5(tmp_path):
    log = tmp_path / "claim.jsonl"
    run_cli(
        "board",
        "--opponent",
        "hard",
        "--seed",
        "3",
        "--claim",
        "simple",
        "--idle-ms",
        "8000",
        "--script",
        MASH,
        "--log",
        str(log),
    )
    events = _log(log)
    claims = [e for e in events if e["ev"] == "hand_end" and e["why"] == "claim"]
    assert any(e["winner"] == 1 for e in claims)
    assert "replayed identically" in run_cli("replay", str(log)).stdout


def test_a_bad_opponent_level_is_one_line_and_exit_2():
    result = run_cli("board", "--opponent", "expert", check=False)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "--opponent" in result.stderr


def test_the_board_program_against_the_opponent_is_identical_in_cpython_and_micropython(
    tmp_path,
):
    short = tmp_path / "short.txt"
    lines = [line for line in open(MASH) if not line.startswith("#")][:46]  # 9 s of presses
    short.write_text("".join(lines))
    env = dict(os.environ, SPEED_SEED="2", SPEED_IDLE_MS="4000", SPEED_OPPONENT="hard")
    outputs = []
    micropython = os.path.join(os.path.dirname(sys.executable), "micropython")
    for interpreter in (
        [sys.executable],
        [micropython, "-X", "heapsize=512K"],
    ):  # (64-bit VM objects: more than the board)
        command = [*interpreter, os.path.join(ROOT, "host_sim", "board_run.py"), ROOT]
        result = subprocess.run(
            [*command, "200", "1", str(short)],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
        assert result.returncode == 0, result.stderr
        outputs.append(result.stdout.splitlines())
    assert outputs[0] == outputs[1]
    log = [line.split("\t")[0] for line in outputs[0]]  # the data port's seq stripped
    plays = [json.loads(line) for line in log if line.startswith('{"ev":"play"')]
    assert {e["p"] for e in plays} == {0, 1}
