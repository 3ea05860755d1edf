"""Replay edge cases found by fuzzing: each match below once failed to replay, or hung.

Each is the match the property test plays for those arguments (``phase_us`` is
``seed % 977`` there too), so a regression names its seed.
"""

import json

import pytest
from runner import Simulation
from speedduo.rules import Rules

from host_sim.replay import replay_lines

CASES = [
    # R13 photo finish 2 ms after a stall flip: the flip must come before the presses
    (460, {"end_on_exhaustion": False}, ["bot:perfect", "bot:perfect"], 3),
    # R17 abandoned hand that had a stall first: the flips come before the idle end
    (525667908, {"claim": "off"}, ["none", "none"], 3),
    (323056193, {"pile_redeal": True, "penalty": True, "stall_countdown_ms": 91}, ["none"] * 2, 5),
    (24433215, {"claim": "race"}, ["none", "bot:hard"], 5),
]


def _play(seed, rules, players, best_of):
    lines = []
    Simulation(seed, Rules(**rules), best_of, players, phase_us=seed % 977).run(lines.append)
    return lines


def _entries(lines):
    return [(line, json.loads(line)) for line in lines]


@pytest.mark.parametrize("seed,rules,players,best_of", CASES)
def test_match_replays_identically(seed, rules, players, best_of):
    lines = _play(seed, rules, players, best_of)
    assert replay_lines(_entries(lines)) == lines


def test_a_log_missing_the_inputs_that_ended_a_hand_diverges_instead_of_hanging():
    """Without the photo-finish line hand 2 waits for presses the log never gives.

    The replay once 'kept the device awake' for ever while looking for hand 3;
    now the waiting hand meets R17 and the first differing line is reported.
    """
    lines = _play(*CASES[0])
    k = next(i for i, line in enumerate(lines) if '"why":"photo_finish"' in line)
    cut = lines[:k] + lines[k + 1 :]
    replayed = replay_lines(_entries(cut))
    first_difference = next(
        i for i, (a, b) in enumerate(zip(cut, replayed, strict=False)) if a != b
    )
    assert first_difference == k
    assert '"why":"abandoned"' in replayed[k]
