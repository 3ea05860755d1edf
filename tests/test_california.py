"""V9 California Speed (docs/rules.md V9.1-V9.7): rules core, runner, log, replay, referee."""

import json

import pytest
from conftest import deal_game
from conftest import game_lines as lines_of
from games_fuzz import SOAK, bot_match, check_altered
from referee import CaliforniaReferee, RefereeError
from runner import Simulation
from speedduo.game.california import California
from speedduo.game.gamerules import GameRules
from speedduo.game.rng import Rng
from speedduo.vocab.cards import card_from_name
from speedduo.vocab.codes import EMPTY_SLOT, INVALID, LATE, PLAYED

LEVELS = ("bot:perfect", "bot:hard", "bot:medium", "bot:easy")


def dealt(seed=1, **rules):
    return deal_game(California(GameRules("california", **rules)), seed)


def set_grid(core, rows, stocks=(("2C", "3C"), ("2D", "3D"))):
    """rows[p][c]: the names of the pile at (p, c), bottom first; stocks: top last."""
    for p in range(2):
        for c in range(5):
            core.grid[p * 5 + c] = [card_from_name(n) for n in rows[p][c]]
        core.stock[p] = [card_from_name(n) for n in stocks[p]]
    core.live = 0
    core.stall_due = -1
    core._update_live()
    lines_of(core)


def test_v9_1_each_player_turns_five_cards_onto_their_row_from_26():
    deal = lines_of(dealt(4))[0]
    for p in range(2):
        assert [len(place) for place in deal["grid"][p]] == [1] * 5
        assert len(deal["stock"][p]) == 21


def test_v9_3_equal_ranks_are_covered_until_none_shows_and_a_double_stays_live():
    core = dealt()
    rows = ((["4S"], ["9H"], ["KD"], ["2S"], ["7C"]), (["4H"], ["JC"], ["QD"], ["5S"], ["8D"]))
    set_grid(core, rows, (["2C", "4C"], ["2D", "3D"]))
    assert core.press(10, 0, 1, -1, 0) == PLAYED  # R: the other row's 4 first (V9.6)
    assert lines_of(core)[0] == {
        "ev": "cover", "t": 10, "p": 0, "row": 1, "col": 0, "card": "4C"
    }  # fmt: skip
    # a double: the 4 on the 4 keeps that pile live, and so is the other 4 still showing
    assert core.coverable(5) and core.coverable(0)
    assert core.press(20, 1, 1, -1, 0) == PLAYED
    assert lines_of(core)[0]["row"] == 0  # player 1 aims at row 0 first


def test_v9_6_l_aims_at_your_own_row():
    core = dealt()
    rows = ((["4S"], ["9H"], ["KD"], ["2S"], ["7C"]), (["4H"], ["JC"], ["QD"], ["5S"], ["8D"]))
    set_grid(core, rows)
    assert core.setting(0, 0)
    assert core.press(10, 0, 1, -1, 0) == PLAYED
    assert lines_of(core)[0]["row"] == 0


def test_v9_3_a_rank_shown_once_cannot_be_covered():
    core = dealt()
    rows = ((["4S"], ["9H"], ["KD"], ["2S"], ["7C"]), (["4H"], ["JC"], ["QD"], ["5S"], ["8D"]))
    set_grid(core, rows)
    assert core.press(10, 0, 2, -1, 0) == INVALID
    assert lines_of(core)[0] == {
        "ev": "reject", "t": 10, "p": 0, "row": 1, "col": 1, "why": "invalid"
    }  # fmt: skip


def test_r8_a_press_on_a_column_covered_just_before_is_late():
    core = dealt()
    rows = ((["4S"], ["9H"], ["KD"], ["2S"], ["7C"]), (["4H"], ["JC"], ["QD"], ["5S"], ["8D"]))
    set_grid(core, rows, (["3C", "6C"], ["2D", "3D"]))
    core.press(100, 1, 1, -1, 0)  # player 1 covers row 0's 4 (3D); row 1's 4 stays live
    core.press(150, 0, 1, -1, 0)  # player 0 covers row 1's 4 with the 6: no 4 shows now
    lines_of(core)
    assert core.press(300, 1, 1, -1, 0) == LATE
    assert core.press(700, 1, 1, -1, 0) == INVALID


def test_v9_5_no_group_left_ends_the_round_after_the_countdown_and_rows_go_under_the_stock():
    core = dealt()
    rows = ((["4S"], ["9H"], ["KD"], ["2S"], ["7C"]), (["4H", "3S"], ["JC"], ["QD"], [], []))
    set_grid(core, rows, (["2C", "6C"], ["2D", "3D"]))
    core._check_stall(40)
    assert lines_of(core) == [{"ev": "stall", "t": 40, "due": 1040}]
    core.advance(1040)
    end = lines_of(core)[0]
    assert end == {
        "ev": "hand_end", "t": 1040, "winner": None, "why": "blocked", "left": [7, 6],
        "sweep": False,
    }  # fmt: skip
    core.deal(Rng(1), 2)
    deal = lines_of(core)[0]
    # the old stock (top first) on top, then place 1's pile top first, then place 2 ...
    assert [place[0] for place in deal["grid"][0]] == ["6C", "2C", "4S", "9H", "KD"]
    assert deal["stock"][0] == ["2S", "7C"]
    assert [place for place in deal["grid"][1]] == [["3D"], ["2D"], ["3S"], ["4H"], ["JC"]]
    assert deal["stock"][1] == ["QD"]


def test_v9_4_covering_with_the_last_stock_card_wins_the_match():
    core = dealt()
    rows = ((["4S"], ["9H"], ["KD"], ["2S"], ["7C"]), (["4H"], ["JC"], ["QD"], ["5S"], ["8D"]))
    set_grid(core, rows, (["AC"], ["2D", "3D"]))
    assert core.press(10, 0, 1, -1, 0) == PLAYED
    end = lines_of(core)[-1]
    assert end["why"] == "out" and end["winner"] == 0
    assert core.match_winner([1, 0], 1, 1) == 0
    assert core.press(20, 1, 1, -1, 0) != PLAYED


def test_a_player_with_no_stock_cannot_cover():
    core = dealt()
    rows = ((["4S"], ["9H"], ["KD"], ["2S"], ["7C"]), (["4H"], ["JC"], ["QD"], ["5S"], ["8D"]))
    set_grid(core, rows, ([], ["2D"]))
    assert core.press(10, 0, 1, -1, 0) == EMPTY_SLOT
    assert core.bot_keys(0) == [] and core.bot_keys(1) == [1]


@pytest.mark.parametrize("seed", range(1, 301 if SOAK else 13))
def test_bot_matches_of_california_speed_pass_the_referee(seed):
    lines = []
    players = [LEVELS[seed % 4], LEVELS[(seed // 4) % 4]]
    rules = GameRules("california", max_rounds=1 + seed % 3)
    match = Simulation(seed, rules, 3, players, game="california").run(lines.append)
    CaliforniaReferee().check_log(lines)
    assert json.loads(lines[-1])["score"] == match.wins


def test_the_referee_catches_a_cover_of_a_dead_rank():
    lines = []
    Simulation(3, GameRules("california"), 3, ["bot:hard"] * 2, game="california").run(lines.append)
    at = next(i for i, line in enumerate(lines) if '"ev":"cover"' in line)
    e = json.loads(lines[at])
    e["col"] = (e["col"] + 1) % 5
    lines[at] = json.dumps(e)
    with pytest.raises(RefereeError):
        CaliforniaReferee().check_log(lines)


def test_cli_california_match_replays_byte_for_byte(cli, tmp_path):
    log = tmp_path / "c.jsonl"
    cli("run", "--game", "california", "--seed", "2", "--p1", "bot:hard", "--p2", "bot:medium",
        "--log", str(log))  # fmt: skip
    lines = log.read_text().splitlines()
    assert json.loads(lines[0])["game"] == "california"
    assert "replayed identically" in cli("replay", str(log)).stdout
    CaliforniaReferee().check_log(lines)


def test_the_same_match_in_the_micropython_vm_writes_the_same_log(cli, tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    cli("run", "--game", "california", "--seed", "7", "--log", str(a))
    cli("run", "--game", "california", "--seed", "7", "--log", str(b), "--vm", "micropython")
    assert a.read_bytes() == b.read_bytes()


@pytest.mark.parametrize("seed", range(1, 21 if SOAK else 4))
def test_every_altered_california_log_is_refused_by_replay(tmp_path, seed):
    lines = bot_match("california", seed, 2)
    assert check_altered(tmp_path, lines, seed) > 0
