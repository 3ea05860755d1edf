"""Stalls (docs/rules.md R9-R11, V6, V7): what happens when a stall countdown ends.

Nobody could play, the countdown ran out: both side piles (V10.3: every side pile)
flip (R9); with a side pile empty, the centre piles are redealt (R10, or V7) unless nothing was
played since the last redeal or there is nothing to redeal (R11), or the hand
simply ends (V6). Functions of a ``core.Hand``, apart from core.py to keep each
module small enough to compile from source on the board.
"""

from micropython import const  # on the host, Blinka provides this module

from speedduo.vocab.codes import END_DEAD_STALL, NULL_PLAYER

REDEAL_EACH = const(5)  # R10: at most 5 per side pile


def stall_ends(hand, due: int) -> None:
    """R9-R11: a stall countdown ended at ``due``: flip, redeal, or end the hand."""
    players = hand.players
    full = True  # R9 (V10.3): every side pile has a card to flip
    for p in range(players):
        if not hand.side_n[p]:
            full = False
    if full:
        for p in range(players):
            _flip(hand, due, p)  # R9: every side pile at the same instant
    elif hand.rules.end_on_exhaustion:  # V6
        _end_dead_stall(hand, due)
        return
    elif hand.redeals and hand.plays_since_redeal == 0:  # R11: cards only go round
        _end_dead_stall(hand, due)
        return
    elif not _redeal(hand, due):  # R11: nothing to redeal
        _end_dead_stall(hand, due)
        return
    hand._check_stall(due)


def _flip(hand, t: int, p: int) -> None:
    """Player p's side pile turns its top card onto centre pile p."""
    n = hand.side_n[p] - 1
    cap = hand.pile_cap  # (core.Hand: a pile's stride in its buffer)
    card = hand.side[p * cap + n]
    hand.side_n[p] = n
    k = p * cap + hand.centre_n[p]
    hand.covered_at[k - 1] = t
    hand.centre[k] = card
    hand.centre_n[p] += 1
    hand._update_room()
    hand.log.put_flip(t, p, card)


def _redeal(hand, t: int) -> bool:
    """R10 (or V7): new side piles from the centre; False when there is nothing."""
    if hand.rules.pile_redeal:
        gathered = _pile_redeal(hand)
    else:
        gathered = _gather_redeal(hand)
    if not gathered:
        return False
    hand.redeals += 1
    hand.plays_since_redeal = 0
    hand.log.put_redeal(t, hand.side, hand.side_n, hand.pile_cap)
    for p in range(hand.players):
        if hand.side_n[p]:  # a side pile that received nothing does not flip
            _flip(hand, t, p)
    return True


def _gather_redeal(hand) -> int:
    """R10: centre cards under the tops + side piles + reserve, shuffled, dealt in turn
    (player 0 first; V10.3: round the table)."""
    deck = hand._deck
    players = hand.players
    n = 0
    for pile in range(players):
        base = pile * hand.pile_cap
        top_index = hand.centre_n[pile] - 1
        for k in range(top_index):
            deck[n] = hand.centre[base + k]
            n += 1
        hand.centre[base] = hand.centre[base + top_index]
        hand.centre_n[pile] = 1
        for k in range(hand.side_n[pile]):
            deck[n] = hand.side[base + k]
            n += 1
        hand.side_n[pile] = 0
    for k in range(hand.reserve_n):
        deck[n] = hand.reserve[k]
        n += 1
    hand.reserve_n = 0
    if n == 0:
        return 0
    hand._rng.shuffle(deck, 0, n)
    most = players * REDEAL_EACH
    dealt = n if n < most else most
    for k in range(dealt):  # in turn: player 0 first
        p = k % players
        hand.side[p * hand.pile_cap + hand.side_n[p]] = deck[k]
        hand.side_n[p] += 1
    for k in range(dealt, n):  # beyond five each: the reserve
        hand.reserve[hand.reserve_n] = deck[k]
        hand.reserve_n += 1
    return n


def _pile_redeal(hand) -> int:
    """V7: each centre pile minus its top, shuffled, goes under that player's side pile."""
    moved = 0
    for pile in range(hand.players):
        base = pile * hand.pile_cap
        top_index = hand.centre_n[pile] - 1
        if top_index == 0:
            continue
        top = hand.centre[base + top_index]
        under = hand.side_n[pile]
        # the old side cards stay on top: shift them up, put the pile beneath
        for k in range(under - 1, -1, -1):
            hand.side[base + top_index + k] = hand.side[base + k]
        for k in range(top_index):
            hand.side[base + k] = hand.centre[base + k]
        hand._rng.shuffle(hand.side, base, top_index)
        hand.side_n[pile] = under + top_index
        hand.centre[base] = top
        hand.centre_n[pile] = 1
        moved += top_index
    return moved

    # ---- R11-R13: the end of a hand ----


def _end_dead_stall(hand, t: int) -> None:
    """R11: fewest cards in hand + draw wins; a shared fewest: replayed (winner null)."""
    fewest = -1
    winner = NULL_PLAYER
    for p in range(hand.players):
        left = hand.cards_left(p)
        if fewest < 0 or left < fewest:
            fewest = left
            winner = p
        elif left == fewest:
            winner = NULL_PLAYER
    hand._end(t, winner, END_DEAD_STALL)
