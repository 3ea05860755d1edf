"""The read-only per-player view of a hand (seat.py): what each player sees and may play."""

from conftest import lay_out, new_hand
from speedduo.game.seat import Seat
from speedduo.vocab.cards import NO_CARD, card_from_name, card_name

FILL0 = ["9S", "9H", "9D"]
FILL1 = ["TS", "TH", "TD", "TC", "9C"]


def test_a_seat_shows_its_player_slots_counts_target_and_the_shared_tops():
    _, hand, _ = new_hand()
    lay_out(
        hand,
        [["4S", "QD"] + FILL0, FILL1],
        [["5H"], ["KC"]],
        draw=(["2D", "JD"], ["3C"]),
        side=(["7S"], ["8S", "8D"]),
    )
    me, other = Seat(hand, 0), Seat(hand, 1)
    assert [card_name(me.card(s)) for s in range(5)] == ["4S", "QD", "9S", "9H", "9D"]
    assert card_name(other.card(4)) == "9C"
    assert (me.draw_count(), me.side_count(), me.cards_left()) == (2, 1, 7)
    assert (other.draw_count(), other.side_count(), other.cards_left()) == (1, 2, 6)
    assert me.opponent_cards_left() == 6 and other.opponent_cards_left() == 7
    assert (me.target(), other.target()) == (0, 1)  # each aims at their own pile at a deal
    assert card_name(me.top(0)) == card_name(other.top(0)) == "5H"


def test_a_seat_lists_the_legal_plays_r5():
    _, hand, _ = new_hand()
    lay_out(hand, [["4S", "QD"] + FILL0, FILL1], [["5H"], ["KC"]])
    me = Seat(hand, 0)
    assert me.playable_mask() == 0b11  # 4 on 5, Q on K
    assert me.first_playable() == 0
    assert Seat(hand, 1).playable_mask() == 0 and Seat(hand, 1).first_playable() == -1


def test_a_seat_follows_the_hand_and_cannot_change_it():
    _, hand, _ = new_hand(penalty=True)
    lay_out(hand, [["4S", "2C"] + FILL0, FILL1], [["5H"], ["KC"]])
    me = Seat(hand, 0)
    hand.set_target(0, 1)
    assert me.target() == 1  # read when asked, not copied
    hand.play(100, 0, 1)  # 2C fits neither: invalid, locked out (R16)
    assert me.locked_until() == 100 + hand.rules.penalty_ms
    hand.play(3000, 0, 0)  # 4S onto 5H
    assert me.top(0) == card_from_name("4S") and me.card(0) == NO_CARD
    for name in ("card", "draw_count", "target", "top"):
        assert not hasattr(getattr(Seat, name), "__set__")  # methods, no setters
    assert not [n for n in vars(Seat) if n.startswith("set")]


def test_is_out_r12():
    _, hand, _ = new_hand()
    lay_out(hand, [["4S"], FILL1], [["5H"], ["KC"]])
    me = Seat(hand, 0)
    assert not me.is_out()
    hand.play(100, 0, 0)
    assert me.is_out()
