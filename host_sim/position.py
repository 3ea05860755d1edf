"""Put a chosen position into a ``core.Hand``: the one place outside the core that
writes its piles (tests, benchmarks; never the game).

Cards are codes (``cards.py``); every stack is given bottom first. Runs under
CPython and the MicroPython VM, and allocates nothing when the stacks are
``bytes`` (the heap-lock benchmark sets positions inside locked loops).
"""


def set_player(hand, p, slots, draw, side, draw_n=-1):
    """Player p's hand slots (five codes, NO_CARD for an empty slot), draw and side
    piles; ``draw_n`` >= 0 keeps only that many of ``draw``. Clears any lock-out (R16)."""
    held = 0
    for s in range(5):
        card = slots[s]
        hand.hand[p * 5 + s] = card
        if card != 255:
            held += 1
    hand.hand_n[p] = held
    _stack(hand, hand.draw, p, draw)
    hand.draw_n[p] = len(draw) if draw_n < 0 else draw_n
    _stack(hand, hand.side, p, side)
    hand.side_n[p] = len(side)
    hand.locked_until[p] = 0
    hand._update_mask(p)


def set_piles(hand, pile0, pile1):
    """Both centre piles (bottom first), uncovered since t=0 (R8); no stall pending,
    the hand in play."""
    _stack(hand, hand.centre, 0, pile0)
    hand.centre_n[0] = len(pile0)
    _stack(hand, hand.centre, 1, pile1)
    hand.centre_n[1] = len(pile1)
    for k in range(2 * hand.pile_cap):
        hand.covered_at[k] = 0
    hand.stall_due = -1
    hand.over = False
    hand._update_mask(0)
    hand._update_mask(1)


def set_reserve(hand, cards):
    """The R10 reserve (bottom first)."""
    for k in range(len(cards)):
        hand.reserve[k] = cards[k]
    hand.reserve_n = len(cards)


def _stack(hand, buf, p, cards):
    """Pile ``p`` of ``buf`` (a pile ``hand.pile_cap`` bytes)."""
    if len(cards) > hand.pile_cap:
        raise ValueError("a pile holds at most the deck's %d cards" % hand.pile_cap)
    for k in range(len(cards)):
        buf[p * hand.pile_cap + k] = cards[k]
