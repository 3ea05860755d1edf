"""The simulator's child levels, age6 and age10 (issue 30; lib/speedduo/loop/opponent.py,
docs/opponent.md): reaction times, names after the menu's, the board never offers them."""

import json

import pytest
from bots import level_number
from conftest import run_cli
from speedduo.display.menu import OPPONENT_NAMES
from speedduo.game.rng import Rng
from speedduo.loop.game_opponent import GameBot
from speedduo.loop.opponent import LEVEL_NAMES, Brain
from speedduo.loop.settings import Settings

CHILD_LEVELS = (("age6", 1100, 2200), ("age10", 770, 1530))


@pytest.mark.parametrize(("name", "low", "high"), CHILD_LEVELS)
def test_child_level_reacts_within_its_range_from_its_own_seeded_stream(name, low, high):
    brain = Brain(1, level_number(name), Rng(9))
    times = [brain.reaction_us() for _ in range(400)]
    assert low * 1000 <= min(times) and max(times) < (high + 1) * 1000
    assert max(times) - min(times) > (high - low) * 800  # spread over the range
    mean_ms = sum(times) / len(times) / 1000
    assert abs(mean_ms - (low + high) / 2) < (high - low) / 10
    again = Brain(1, level_number(name), Rng(9))
    assert [again.reaction_us() for _ in range(400)] == times


@pytest.mark.parametrize(("name", "low", "high"), CHILD_LEVELS)
def test_other_games_bot_at_a_child_level_reacts_within_its_range(name, low, high):
    bot = GameBot(0, name, Rng(3))
    times = [bot.reaction_ms() for _ in range(200)]
    assert low <= min(times) and max(times) <= high


def test_child_levels_come_after_perfect_so_the_menus_levels_keep_their_numbers():
    assert LEVEL_NAMES == ("off", "easy", "medium", "hard", "perfect", "age6", "age10")
    assert len(OPPONENT_NAMES) == 4  # the menu: 2 PLAYERS, EASY, MEDIUM, HARD


def test_settings_refuse_a_child_level_as_the_boards_opponent():
    for name in ("age6", "age10", "perfect"):
        chosen = Settings({"SPEED_OPPONENT": name}.get, ["SPEED_OPPONENT"])
        assert chosen.problems == [("SPEED_OPPONENT", "off, easy, medium or hard")]
        assert chosen.opponent == 0


def test_a_match_between_the_child_levels_runs_and_replays(tmp_path):
    log = tmp_path / "m.jsonl"
    out = run_cli("run", "--p1", "bot:age6", "--p2", "bot:age10", "--seed", "1", "--log", str(log))
    assert "bot:age6" in out.stdout and "bot:age10" in out.stdout
    end = json.loads(log.read_text().splitlines()[-1])
    assert end["winner"] in (0, 1)
    run_cli("replay", str(log))


def test_an_unknown_level_is_refused_naming_the_child_levels():
    result = run_cli("run", "--p1", "bot:age8", check=False)
    assert result.returncode == 2
    assert "age6|age10" in result.stderr
