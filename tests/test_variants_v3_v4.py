"""V3 jokers and V4 double deck (docs/rules.md): the deal, the joker's rules, the log,
replay and the referee."""

import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT, drained, lay_out, new_hand
from referee import Referee
from speedduo.game.core import JOKER_LAST, PLAYED
from speedduo.game.seat import Seat
from speedduo.vocab.cards import JOKER1, JOKER2, card_from_name

FILL1 = ["TS", "TH", "TD", "TC", "9C"]


def _events(lines):
    return [json.loads(line) for line in lines]


def _deal(lines):
    return next(e for e in _events(lines) if e["ev"] == "deal")


@pytest.mark.parametrize(
    "options,side,size",
    [
        ({}, 5, 52),
        ({"jokers": True}, 6, 54),
        ({"double_deck": True}, 31, 104),
        ({"jokers": True, "double_deck": True}, 32, 106),
    ],
)
def test_r2_v3_v4_each_player_gets_half_the_deck(options, side, size):
    """15 draw, 5 hand, a starter, the rest in the side pile (V4: 31 + the starter = the
    seed's 32 side cards)."""
    _, hand, lines = new_hand(seed=4, **options)
    deal = _deal(lines)
    assert [len(x) for x in deal["hands"]] == [5, 5]
    assert [len(x) for x in deal["draw"]] == [15, 15]
    assert [len(x) for x in deal["side"]] == [side, side]
    cards = [c for key in ("hands", "draw", "side", "piles") for lists in deal[key] for c in lists]
    assert len(cards) == size
    assert cards.count("X1") == cards.count("X2") == (1 if options.get("jokers") else 0)
    copies = 2 if options.get("double_deck") else 1
    assert all(cards.count(c) == copies for c in cards if c[0] != "X")
    assert Seat(hand, 0).side_count() == side


def test_v3_a_joker_goes_on_anything_and_anything_on_a_joker():
    _, hand, _ = new_hand(jokers=True)
    lay_out(hand, [["X1", "9S", "9H", "9D", "9C"], FILL1], [["5H"], ["KC"]], draw=(["2D"], []))
    assert hand.play(100, 0, 0) == PLAYED  # X1 onto 5H (the target pile, it fits both)
    assert hand.top(0) == JOKER1
    assert hand.play(200, 0, 1) == PLAYED  # a 9 onto the joker
    lines = _events(drained(hand))
    assert [e["card"] for e in lines if e["ev"] == "play"] == ["X1", "9S"]


def test_v3_a_joker_may_not_be_the_last_card_and_is_refused_without_penalty():
    _, hand, _ = new_hand(jokers=True, penalty=True)
    lay_out(hand, [["X2"], ["4S", "4H"]], [["5H"], ["KC"]])
    assert Seat(hand, 0).playable_mask() == 0 and hand.first_playable(0) == -1
    assert hand.play(100, 0, 0) == JOKER_LAST
    lines = _events(drained(hand))
    assert lines[-1]["ev"] == "reject" and lines[-1]["why"] == "joker_last"
    assert Seat(hand, 0).locked_until() == 0  # a rule, not a mistake: no R16 lock-out
    assert hand.slot_card(0, 0) == JOKER2  # the joker stays


def test_v3_a_last_joker_does_not_keep_a_stall_away():
    """R9: a player whose only card is a joker cannot play, so nobody can: a stall."""
    _, hand, _ = new_hand(jokers=True)
    lay_out(hand, [["X1", "4S"], ["9S"]], [["5H"], ["KC"]], side=(["2C"], ["3C"]))
    assert hand.play(100, 0, 1) == PLAYED  # 4S: now only X1 is left
    assert any(e["ev"] == "stall" for e in _events(drained(hand)))


def test_v4_a_second_decks_card_plays_by_its_rank():
    _, hand, _ = new_hand(double_deck=True)
    lay_out(hand, [["9S", "9H", "9D", "9C", "9S"], FILL1], [["5H"], ["KC"]])
    hand.hand[0] = card_from_name("4S") + 52  # the other deck's four of spades
    hand._update_mask(0)
    assert hand.play(100, 0, 0) == PLAYED
    plays = [e for e in _events(drained(hand)) if e["ev"] == "play"]
    assert plays[-1]["card"] == "4S"  # the log names it like the first deck's


@pytest.mark.parametrize(
    "options", [["--jokers"], ["--double-deck"], ["--jokers", "--double-deck"]]
)
def test_v3_v4_matches_replay_and_pass_the_referee(tmp_path, options):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.path.join(ROOT, "lib")]))
    log = tmp_path / "m.jsonl"
    run = [sys.executable, "-m", "host_sim", "run", "--seed", "6", "--p1", "bot:hard"]
    run += ["--p2", "bot:medium", *options, "--log", str(log)]
    assert subprocess.run(run, cwd=ROOT, env=env, capture_output=True).returncode == 0
    lines = log.read_text().splitlines()
    Referee().check_log(lines)
    replay = [sys.executable, "-m", "host_sim", "replay", str(log)]
    result = subprocess.run(replay, cwd=ROOT, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_referee_catches_a_joker_played_last():
    _, _, lines = new_hand(jokers=True)
    ref = Referee()
    for e in _events(lines)[:2]:  # the match and the deal
        ref.check(e)
    ref.hands[0] = ["X1", None, None, None, None]  # player 0 holds only a joker
    ref.draw[0] = []
    with pytest.raises(AssertionError, match="last card"):
        ref.check({"ev": "play", "t": 10, "p": 0, "slot": 0, "card": "X1", "pile": 0})
