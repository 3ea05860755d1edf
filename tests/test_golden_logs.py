"""Checked-in logs of seeded matches, diffed line by line (SPEED_UPDATE_GOLDEN=1 rewrites them)."""

import os

import pytest
from board_loop import MASK, mash_presses, play_board_loop
from referee import Referee
from runner import Simulation
from speedduo.game.rules import Rules

HERE = os.path.join(os.path.dirname(__file__), "golden", "logs")
CASES = {
    "seed1_hard_vs_easy": (1, {}, ["bot:hard", "bot:easy"], 3),
    "seed7_medium_vs_medium_penalty": (7, {"penalty": True}, ["bot:medium", "bot:medium"], 3),
    "seed99_perfect_vs_perfect_v2_v7": (
        99,
        {"same_rank": True, "pile_redeal": True},
        ["bot:perfect", "bot:perfect"],
        5,
    ),
    "seed4242_hard_vs_easy_claim_points": (
        4242,
        {"claim": "simple", "points": True},
        ["bot:hard", "bot:easy"],
        3,
    ),
    "seed5_hard_vs_none_idle": (5, {"idle_ms": 5000}, ["bot:hard", "none"], 3),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_seeded_match_matches_its_golden_log(name):
    seed, rules, players, best_of = CASES[name]
    lines = []
    Simulation(seed, Rules(**rules), best_of, players).run(lines.append)
    _check_golden(name, lines)
    Referee().check_log(lines)


# The other games (V8 Spit, V9 California, V10 Speed for three): the simulator's runner, and
# the board's loop (game_app.GameApp) against the board's opponent with player 0 mashing keys.
GAME_CASES = {
    "game_spit_seed3_hard_vs_medium": ("spit", 3, ["bot:hard", "bot:medium"]),
    "game_spit_seed11_perfect_vs_easy": ("spit", 11, ["bot:perfect", "bot:easy"]),
    "game_spit_seed5_perfect_vs_perfect": ("spit", 5, ["bot:perfect", "bot:perfect"]),
    "game_california_seed3_hard_vs_medium": ("california", 3, ["bot:hard", "bot:medium"]),
    "game_california_seed8_perfect_vs_perfect": ("california", 8, ["bot:perfect", "bot:perfect"]),
    "game_speed3_seed5_hard_medium_easy": ("speed", 5, ["bot:hard", "bot:medium", "bot:easy"]),
}
BOARD_CASES = {
    "board_spit_seed3_mash_vs_hard": ("spit", 3),
    "board_california_seed5_mash_vs_hard": ("california", 5),
}


def _check_golden(name, lines):
    path = os.path.join(HERE, name + ".jsonl")
    if os.environ.get("SPEED_UPDATE_GOLDEN") == "1":
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
    with open(path) as f:
        golden = f.read().splitlines()
    for number, (want, got) in enumerate(zip(golden, lines, strict=False), 1):
        assert got == want, f"line {number} differs"
    assert len(lines) == len(golden)


@pytest.mark.parametrize("name", sorted(GAME_CASES))
def test_seeded_game_run_matches_its_golden_log(name):
    from runner import GameSimulation
    from speedduo.game.gamerules import GameRules

    game, seed, players = GAME_CASES[name]
    lines = []
    GameSimulation(game, seed, GameRules(game), 3, players).run(lines.append)
    _check_golden(name, lines)


def _board_match(game, seed):
    """The board's loop starting 5 s before the ticks wrap: player 0 mashes its keys, the
    board's HARD opponent plays player 1."""
    _, lines, _ = play_board_loop(game, MASK - 5000, mash_presses(), 3, seed, 600000)
    return lines


@pytest.mark.parametrize("name", sorted(BOARD_CASES))
def test_a_board_loop_match_matches_its_golden_log(name):
    _check_golden(name, _board_match(*BOARD_CASES[name]))


OLDER = os.path.join(os.path.dirname(__file__), "golden", "older")


@pytest.mark.parametrize("name", sorted(os.listdir(OLDER)))
def test_logs_written_before_a_change_of_the_writer_still_replay(name):
    """Logs the board wrote before its writer changed (``*_opponent_by_pass``: the board's
    opponent looked at the table at the loop's passes, before issue 27) stay readable:
    replay re-plays them from their key record and finds every line."""
    from host_sim.replay import replay_file

    ok, message = replay_file(os.path.join(OLDER, name))
    assert ok, message
