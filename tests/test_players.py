"""V10 Speed for three or four players (docs/rules.md V10.1-V10.5), in the simulator."""

import json

import pytest
from conftest import cards, deal_game
from conftest import game_lines as lines_of
from games_fuzz import SOAK, bot_match, check_altered
from referee import RefereeError, V10Referee
from runner import Simulation, make_log
from speedduo.game.core import Hand
from speedduo.game.gamematch import GameSession
from speedduo.game.gamerules import GameRules
from speedduo.vocab.cards import NO_CARD
from speedduo.vocab.codes import INVALID, LATE, PLAYED

LEVELS = ("bot:perfect", "bot:hard", "bot:medium", "bot:easy")


def dealt(n, seed=1, **rules):
    return deal_game(Hand(GameRules("speed", **rules), None, n), seed)


def _put(pile, count, p, names):
    """Pile p of a buffer (``pile``, ``count``: the core's) set to ``names``, bottom first."""
    at = p * len(pile) // len(count)
    for k, card in enumerate(cards(*names)):
        pile[at + k] = card
    count[p] = len(names)


def set_table(core, hands, piles, draw=None, side=None, reserve=()):
    """Names bottom first; hands padded with empty slots."""
    n = core.players
    for p in range(n):
        slots = cards(*hands[p]) + [NO_CARD] * (5 - len(hands[p]))
        core.hand[p * 5 : p * 5 + 5] = bytes(slots)
        core.hand_n[p] = len(hands[p])
        _put(core.centre, core.centre_n, p, piles[p])
        _put(core.draw, core.draw_n, p, draw[p] if draw else ())
        _put(core.side, core.side_n, p, side[p] if side else ())
        core._update_mask(p)
    for k in range(len(core.covered_at)):
        core.covered_at[k] = 0
    core.reserve[0 : len(reserve)] = bytes(cards(*reserve))
    core.reserve_n = len(reserve)
    core.stall_due = -1
    lines_of(core)


@pytest.mark.parametrize("n, draw, reserve", [(3, 6, 1), (4, 2, 0)])
def test_v10_1_one_deck_deals_five_side_five_hand_a_starter_and_the_rest_to_draw(n, draw, reserve):
    deal = lines_of(dealt(n))[0]
    assert [len(h) for h in deal["hands"]] == [5] * n
    assert [len(d) for d in deal["draw"]] == [draw] * n
    assert [len(s) for s in deal["side"]] == [5] * n
    assert [len(pile) for pile in deal["piles"]] == [1] * n
    assert len(deal["reserve"]) == reserve
    names = [c for key in ("hands", "draw", "side", "piles") for lst in deal[key] for c in lst]
    assert len(set(names + deal["reserve"])) == 52


def test_v10_5_a_card_goes_to_the_target_pile_and_l_r_move_the_target_round_the_table():
    core = dealt(3)
    set_table(core, [["5C"], ["KD"], ["KH"]], [["4S"], ["9D"], ["6H"]])
    assert core.setting(0, 6) and core.target[0] == 1  # R: one pile up
    assert core.press(10, 0, 1, -1, 0) == PLAYED
    assert lines_of(core)[0]["pile"] == 2  # not on 1: the first pile it fits after it
    assert core.setting(1, 0) and core.target[1] == 0
    assert core.setting(1, 0) and core.target[1] == 2  # round the table


def test_r8_late_and_invalid_with_more_piles():
    core = dealt(4)
    set_table(core, [["5C", "9C"], ["KD"], ["KH"], ["2S"]], [["4S", "JD"], ["9D"], ["9H"], ["QS"]])
    core.covered_at[0] = 100
    assert core.press(300, 0, 1, -1, 0) == LATE
    assert lines_of(core)[0]["pile"] == 0
    assert core.press(300, 0, 2, -1, 0) == INVALID


def test_r9_a_stall_flips_every_side_pile_at_once():
    core = dealt(3)
    set_table(
        core, [["5C"], ["5D"], ["5H"]], [["9S"], ["9D"], ["9H"]], side=[["AC"], ["AD"], ["AH"]]
    )
    core._check_stall(0)
    core.advance(1000)
    flips = [e for e in lines_of(core) if e["ev"] == "flip"]
    assert [(e["p"], e["card"], e["pile"]) for e in flips] == [
        (0, "AC", 0),
        (1, "AD", 1),
        (2, "AH", 2),
    ]


def test_r10_with_a_side_pile_empty_the_centre_is_redealt_in_turn_onto_every_side_pile():
    core = dealt(3)
    set_table(
        core,
        [["5C"], ["5D"], ["5H"]],
        [["2S", "3S", "4S", "9S"], ["2D", "9D"], ["9H"]],
        side=[[], ["AD"], ["AH"]],
        reserve=["JC"],
    )
    core.plays_since_redeal = 1
    core._check_stall(0)
    core.advance(1000)
    redeal = next(e for e in lines_of(core) if e["ev"] == "redeal")
    assert [len(s) for s in redeal["side"]] == [3, 2, 2]  # 7 gathered: in turn, player 0 first
    assert core.reserve_n == 0 and core.redeals == 1


def test_r11_dead_stall_the_fewest_cards_win_and_a_shared_fewest_replays():
    core = dealt(3)
    set_table(core, [["5C"], ["5D", "6D"], ["5H"]], [["9S"], ["9D"], ["9H"]])
    core._check_stall(0)
    core.advance(1000)
    end = lines_of(core)[-1]
    assert end["why"] == "dead_stall" and end["winner"] is None  # 1, 2, 1: shared
    core = dealt(3)
    set_table(core, [["5C"], ["5D", "6D"], ["5H", "6H"]], [["9S"], ["9D"], ["9H"]])
    core._check_stall(0)
    core.advance(1000)
    assert lines_of(core)[-1]["winner"] == 0


def _session(n, seed=3):
    core = Hand(GameRules("speed"), None, n)
    session = GameSession(core, seed, core.rules, 3, make_log(core))
    session.step(3000, [])
    session.log.drain(lambda line: None)
    return session, core


def test_r13_last_cards_of_two_players_at_one_instant_replay_the_hand():
    session, core = _session(3)
    set_table(core, [["5C"], ["5D"], ["KH", "2H"]], [["4S"], ["4D"], ["9H"]])
    session.step(3100, [(1, 1), (8, 1)])  # slot 1 of players 0 and 1
    out = []
    session.log.drain(out.append)
    assert json.loads(out[0])["why"] == "photo_finish"


def test_ties_take_turns_round_the_table_with_three_players():
    session, core = _session(3)
    first = session.match.tie_next
    winners = []
    for k in range(3):
        set_table(core, [["5C", "3C"], ["5D", "3D"], ["5H", "3H"]], [["4S"], ["8D"], ["8H"]])
        session.step(3100 + 200 * k, [(1, 1), (8, 1), (15, 1)])  # all on pile 0 at once
        out = []
        session.log.drain(out.append)
        plays = [json.loads(line) for line in out if '"ev":"play"' in line]
        assert plays[0]["tie"] == "won" and len(plays) == 1
        winners.append(plays[0]["p"])
        session.step(3150 + 200 * k, [(1, 0), (8, 0), (15, 0)])
    assert winners == [first, (first + 1) % 3, (first + 2) % 3]


@pytest.mark.parametrize("n", [3, 4])
@pytest.mark.parametrize("seed", range(1, 151 if SOAK else 7))
def test_bot_matches_with_more_players_pass_the_referee(n, seed):
    lines = []
    players = [LEVELS[(seed + k) % 4] for k in range(n)]
    rules = GameRules("speed", same_rank=seed % 2 == 0, points=seed % 3 == 0)
    match = Simulation(seed, rules, 3, players).run(lines.append)
    V10Referee().check_log(lines)
    assert match.winner in range(n)


def test_the_referee_catches_a_flip_onto_another_players_pile():
    lines = []
    Simulation(5, GameRules("speed"), 3, ["bot:hard"] * 3).run(lines.append)
    at = next(i for i, line in enumerate(lines) if '"ev":"flip"' in line)
    e = json.loads(lines[at])
    e["pile"] = (e["pile"] + 1) % 3
    lines[at] = json.dumps(e)
    with pytest.raises(RefereeError):
        V10Referee().check_log(lines)


def test_cli_four_player_match_replays_byte_for_byte(cli, tmp_path):
    log = tmp_path / "n.jsonl"
    cli("run", "--players", "4", "--seed", "2", "--p1", "bot:hard", "--p2", "bot:medium",
        "--log", str(log))  # fmt: skip
    lines = log.read_text().splitlines()
    header = json.loads(lines[0])
    assert header["v"] == 2 and header["players"] == 4 and header["game"] == "speed"
    assert "replayed identically" in cli("replay", str(log)).stdout
    V10Referee().check_log(lines)


def test_players_options_of_classic_speed_only_are_refused(cli):
    result = cli("run", "--players", "3", "--penalty", check=False)
    assert result.returncode == 2 and "--penalty does not apply" in result.stderr


def test_the_same_match_in_the_micropython_vm_writes_the_same_log(cli, tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    cli("run", "--players", "4", "--same-rank", "--seed", "7", "--log", str(a))
    cli("run", "--players", "4", "--same-rank", "--seed", "7", "--log", str(b), "--vm",
        "micropython")  # fmt: skip
    assert a.read_bytes() == b.read_bytes()


@pytest.mark.parametrize("seed", range(1, 21 if SOAK else 4))
def test_every_altered_four_player_log_is_refused_by_replay(tmp_path, seed):
    lines = bot_match("speed", seed, 4)
    assert check_altered(tmp_path, lines, seed) > 0


@pytest.mark.parametrize("short, swept", [(4, False), (5, True)])
def test_v10_4_a_sweep_needs_every_other_player_to_hold_sweep_cards(short, swept):
    """R15 with more players (classic Speed's core.Hand, issue 29): the winner sweeps only
    when every other player still holds sweep_cards (10) or more."""
    core = dealt(3)
    five = ["9C", "9D", "9H", "9S", "TC"]
    set_table(
        core,
        [["5C"], five, five],
        [["4S"], ["KD"], ["KH"]],
        draw=[[], ["JC"] * 5, ["JD"] * short],
    )
    assert core.press(10, 0, 1, -1, 0) == PLAYED
    end = lines_of(core)[-1]
    assert end["ev"] == "hand_end" and end["winner"] == 0 and end["left"] == [0, 10, 5 + short]
    assert end["sweep"] is swept


def test_v10_is_classic_speeds_core_with_one_centre_pile_per_player():
    core = dealt(4)
    assert type(core) is Hand and core.players == 4
    assert len(core.centre) == 4 * 52 and len(core.hand) == 4 * 5  # V10.2: a pile each
    with pytest.raises(ValueError, match="3 or 4 players"):
        Hand(GameRules("speed"), None, 5)
