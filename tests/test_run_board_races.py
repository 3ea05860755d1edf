"""``run`` decides a race as the board does (issue 29): the same scripted presses, 5 µs
apart, give the same winner in ``run`` (the simulator's runner) and ``board`` (code.py on
the shims), in every game of two rows of keys: with the PIO's µs stamps (the default of
both) the earlier press wins (docs/rules.md "Who was first", R8); with the keypad's ms
stamps (``--keys keypad``) both presses are one instant, a tie, settled alike (R4)."""

import json

import pytest
from conftest import run_cli

# a game, its seed, and the key each player presses: both go for the same pile at once
RACES = {
    "speed": (2, "1", "2"),  # pile 0: player 0's QC, player 1's QS (R8)
    "spit": (1, "4", "4"),  # V8: pile 0
    "california": (4, "2", "2"),  # V9: column 2 of the same row
}
PLAY_US = 100_000  # board: player 0 presses 1 on PLAY (the menu); the match's time 0
COUNTDOWN_US = 3_000_000  # R3: the first hand starts this long after it
RACE_US = 100_000  # after the start signal (run's script times count from there)
DELTA_US = 5


def _script(tmp_path, name, offset, game, first):
    _, key0, key1 = RACES[game]
    t = [offset + RACE_US, offset + RACE_US]
    t[1 - first] += DELTA_US
    lines = [f"{t[0]} 0 {key0}", f"{t[1]} 1 {key1}"]
    if offset:
        lines.insert(0, f"{PLAY_US} 0 1")
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def _first_acts(log):
    """The race's two outcomes: (event, player, why) of the first two plays or refusals."""
    acts = []
    for line in log.read_text().splitlines():
        e = json.loads(line)
        if e["ev"] in ("play", "cover", "reject"):
            acts.append((e["ev"] != "reject", e["p"], e.get("why"), e.get("tie")))
    return acts[:2]


def _race(tmp_path, command, game, first, keys):
    seed = RACES[game][0]
    offset = PLAY_US + COUNTDOWN_US if command == "board" else 0
    script = _script(tmp_path, command + ".txt", offset, game, first)
    log = tmp_path / (command + ".jsonl")
    args = ["--seed", str(seed), "--idle-ms", "4000", "--script", script, "--log", str(log)]
    if game != "speed":
        args += ["--game", game]
    if command == "run":
        args += ["--p1", "none", "--p2", "none"]
    run_cli(command, *args, "--keys", keys)
    return _first_acts(log)


@pytest.mark.parametrize("first", [0, 1])
@pytest.mark.parametrize("game", sorted(RACES))
def test_run_and_board_give_the_earlier_press_by_5_us_the_pile(tmp_path, game, first):
    on_run = _race(tmp_path, "run", game, first, "pio")
    on_board = _race(tmp_path, "board", game, first, "pio")
    assert on_run == on_board == [(True, first, None, None), (False, 1 - first, "late", None)]


@pytest.mark.parametrize("game", sorted(RACES))
def test_with_the_keypads_stamps_run_and_board_settle_the_same_tie(tmp_path, game):
    on_run = _race(tmp_path, "run", game, 0, "keypad")
    on_board = _race(tmp_path, "board", game, 0, "keypad")
    assert on_run == on_board
    assert sorted(tie for _, _, _, tie in on_run) == ["lost", "won"]  # one instant: a tie
