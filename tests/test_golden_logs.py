"""Checked-in logs of seeded matches, diffed line by line (SPEED_UPDATE_GOLDEN=1 rewrites them)."""

import os

import pytest
from referee import Referee
from runner import Simulation
from speedduo.rules import Rules

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
    path = os.path.join(HERE, name + ".jsonl")
    if os.environ.get("SPEED_UPDATE_GOLDEN") == "1":
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
    with open(path) as f:
        golden = f.read().splitlines()
    for number, (want, got) in enumerate(zip(golden, lines, strict=False), 1):
        assert got == want, f"line {number} differs"
    assert len(lines) == len(golden)
    Referee().check_log(golden)
