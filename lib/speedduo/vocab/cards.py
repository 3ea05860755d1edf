"""Cards as small ints and the deal layout (docs/rules.md R1, R2; V3 and V4 reserve codes).

A card is ``rank * 4 + suit`` with rank 0 = Ace .. 12 = King and suit
0 = spades, 1 = hearts, 2 = diamonds, 3 = clubs, so a 52-card deck is 0..51.
A second deck (V4) would add 52 to every code (its rank is ``(card % 52) >> 2``);
the jokers of V3 are ``JOKER1`` and ``JOKER2`` with rank ``JOKER_RANK``.
``NO_CARD`` marks an empty hand slot.
"""

from micropython import const  # on the host, Blinka provides this module

NO_CARD = const(255)
DECK_SIZE = const(52)
RANKS = const(13)
JOKER1 = const(104)
JOKER2 = const(105)
JOKER_RANK = const(13)
PILE_CAP = const(106)  # a pile can hold every card of the largest deck (V3 + V4)

# R2: what each player gets from the shuffled deck; player p's 26 cards are
# deck[p * DEAL_EACH ...]: DRAW_CARDS for the draw pile (bottom first), then
# HAND_SLOTS for the hand, the starter, then SIDE_CARDS for the side pile (bottom first).
# With jokers (V3) or two decks (V4) each player gets half of the bigger deck in the
# same order; only the side pile is longer (deck_size() // 2 - DEAL_SIDE cards).
HAND_SLOTS = const(5)
DRAW_CARDS = const(15)
SIDE_CARDS = const(5)
DEAL_EACH = const(26)
DEAL_HAND = const(15)  # = DRAW_CARDS
DEAL_STARTER = const(20)  # = DRAW_CARDS + HAND_SLOTS
DEAL_SIDE = const(21)


def deck_size(jokers: bool, double_deck: bool) -> int:
    """Cards in play: 52, 104 with a second deck (V4), + 2 jokers (V3)."""
    return DECK_SIZE * (2 if double_deck else 1) + (2 if jokers else 0)


def deck_codes(jokers: bool, double_deck: bool) -> bytes:
    """The unshuffled deck of a variant: 0..51, then 52..103 (V4), then the jokers (V3)."""
    size = DECK_SIZE * (2 if double_deck else 1)
    return bytes(range(size)) + (bytes((JOKER1, JOKER2)) if jokers else b"")


RANK_CHARS = "A23456789TJQK"
SUIT_CHARS = "SHDC"


def rank_of(card: int) -> int:
    """The rank 0..12 of a card (A..K); ``JOKER_RANK`` for a joker."""
    if card >= JOKER1:
        return JOKER_RANK
    return (card % DECK_SIZE) >> 2


def card_name(card: int) -> str:
    """The match-log name of a card: rank then suit, ``TH``; jokers ``X1``/``X2``."""
    if card == JOKER1:
        return "X1"
    if card == JOKER2:
        return "X2"
    return RANK_CHARS[(card % DECK_SIZE) >> 2] + SUIT_CHARS[card & 3]


def card_from_name(name: str) -> int:
    """The inverse of ``card_name`` for one deck; ValueError for anything else."""
    if name == "X1":
        return JOKER1
    if name == "X2":
        return JOKER2
    if len(name) != 2 or name[0] not in RANK_CHARS or name[1] not in SUIT_CHARS:
        raise ValueError("not a card: " + repr(name))
    return RANK_CHARS.index(name[0]) * 4 + SUIT_CHARS.index(name[1])
