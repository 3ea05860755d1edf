"""One player against the board's opponent, in every game and at every level, with the
PIO's µs stamps (the board's default): every log the board writes replays (issue 27.1).

Before the fix the opponent's presses joined the key stream on whole milliseconds
while a child's carried µs, so an opponent's press could be applied after a child's
later one and the key record's time ran backwards: replay refused such logs.
The short run is CI's; ``SPEED_SOAK=1`` plays more seeds and longer sessions.
"""

import os
import random

import pytest
from conftest import run_cli

SOAK = os.environ.get("SPEED_SOAK") == "1"
SEEDS = range(1, 9) if SOAK else (1,)
SESSION_S = 150 if SOAK else 25
KEYS = "L12345R"


def random_session(path, seed, seconds):
    """PLAY in the menu at 5 s, then a child mashing player 0's row at random: presses
    30-400 ms apart at any µs, held 20-120 ms."""
    rng = random.Random(seed)
    lines = ["5000000 0 1"]
    t = 8_500_000
    while t < (8 + seconds) * 1_000_000:
        t += rng.randint(30_000, 400_000) + rng.randint(0, 999)
        key = KEYS[rng.randint(0, 6)]
        lines.append(f"{t} 0 {key} down")
        lines.append(f"{t + rng.randint(20_000, 120_000)} 0 {key} up")
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize(
    "level,keys",
    [("easy", "pio"), ("medium", "pio"), ("hard", "pio"), ("hard", "keypad")],
)
@pytest.mark.parametrize("game", ["speed", "spit", "california"])
def test_a_random_session_against_the_opponent_writes_a_log_that_replays(
    tmp_path, game, level, keys
):
    for seed in SEEDS:
        script, log = tmp_path / f"s{seed}.txt", tmp_path / f"m{seed}.jsonl"
        random_session(script, seed * 31 + len(game), SESSION_S)
        run_cli(
            "board", "--game", game, "--opponent", level, "--seed", str(seed),
            "--idle-ms", "3000", "--script", str(script), "--log", str(log), "--keys", keys,
        )  # fmt: skip
        assert ('"keys_us"' in log.read_text()) == (keys == "pio")  # µs or ms key record
        replay = run_cli("replay", str(log), check=False)
        assert replay.returncode == 0, replay.stdout + replay.stderr


def test_the_issues_race_replays_and_the_earlier_press_is_applied_first(tmp_path):
    """The issue's own match: the child presses 556 µs into ms 10377, the opponent (hard,
    seed 1) plans a press in the same ms; whoever was first is applied first and the
    record replays."""
    script, log = tmp_path / "m.txt", tmp_path / "m.jsonl"
    script.write_text("5000000 0 1\n11433059 0 1 down\n15377556 0 2 down\n")
    run_cli(
        "board", "--seed", "1", "--opponent", "hard", "--idle-ms", "5000",
        "--script", str(script), "--log", str(log),
    )  # fmt: skip
    replay = run_cli("replay", str(log), check=False)
    assert replay.returncode == 0, replay.stdout + replay.stderr
    import json

    keys = [k for line in log.read_text().splitlines() for k in json.loads(line).get("keys_us", [])]
    times = [k[0] for k in keys]
    assert times == sorted(times)
    assert any(k[1] >= 7 and k[0] % 1000 for k in keys)  # the opponent's presses carry µs
