"""Text for the match log's lines, written into a bytearray without building a str.

Numbers, card names and players as JSON values, and the deal line's template
(docs/match-log.md). Used by ``matchlog.MatchLog``'s formatter; a module of its
own so that neither is too large to compile from source on the board.
"""

from array import array

from speedduo.cards import (
    DEAL_EACH,
    DEAL_HAND,
    DEAL_SIDE,
    DEAL_STARTER,
    DECK_SIZE,
    DRAW_CARDS,
    HAND_SLOTS,
    JOKER1,
    SIDE_CARDS,
)

_ZEROS = (b"", b"0", b"00", b"000", b"0000", b"00000")


# The deal line's eight lists in line order: (first deck index, count, step); see cards.DEAL_*.
_DEAL_LISTS = (
    (DEAL_HAND, HAND_SLOTS, 1),  # hands, in slot order
    (DEAL_EACH + DEAL_HAND, HAND_SLOTS, 1),
    (DRAW_CARDS - 1, DRAW_CARDS, -1),  # draw piles, top first
    (DEAL_EACH + DRAW_CARDS - 1, DRAW_CARDS, -1),
    (DEAL_SIDE + SIDE_CARDS - 1, SIDE_CARDS, -1),  # side piles, top first
    (DEAL_EACH + DEAL_SIDE + SIDE_CARDS - 1, SIDE_CARDS, -1),
    (DEAL_STARTER, 1, 1),  # the starters
    (DEAL_EACH + DEAL_STARTER, 1, 1),
)
_DEAL_ENDS = (
    b"],[",
    b']],"draw":[[',
    b"],[",
    b']],"side":[[',
    b"],[",
    b']],"piles":[[',
    b"],[",
    b"]]}",
)


def _deal_layout():
    """The deal line after ``"hands":[[`` with every card "AS", and, for each card of the
    shuffled deck, where its rank letter goes in it. Built once, in place (no garbage)."""
    size = 0
    for n in range(8):
        size += _DEAL_LISTS[n][1] * 5 - 1 + len(_DEAL_ENDS[n])  # '"AS",' per card, no last ','
    template = bytearray(size)
    at = array("H", bytes(2 * DECK_SIZE))
    k = 0
    for n in range(8):
        d, count, step = _DEAL_LISTS[n]
        for j in range(count):
            if j:
                template[k] = 44  # ,
                k += 1
            template[k : k + 4] = b'"AS"'
            at[d] = k + 1
            d += step
            k += 4
        end = _DEAL_ENDS[n]
        template[k : k + len(end)] = end
        k += len(end)
    return template, at


DEAL_TEMPLATE, DEAL_AT = _deal_layout()
RANK_BYTES = b"A23456789TJQK"
SUIT_BYTES = b"SHDC"


def field_into(line, key, n):
    """Append ``key`` (the bytes before a number, e.g. ``b',"p":'``) and the number."""
    line.extend(key)
    int_into(line, n)


def int_into(line, n: int) -> None:
    """Append the decimal digits of n (a small int; no str is built)."""
    if n < 0:
        line.append(45)  # -
        n = -n
    if n < 10:
        line.append(48 + n)
        return
    # room for every digit, then the digits from the last one back
    if n < 100000:
        line.extend(_ZEROS[5 if n > 9999 else 4 if n > 999 else 3 if n > 99 else 2])
    else:
        m = n
        while m:
            line.append(48)
            m //= 10
    k = len(line) - 1
    while n:
        line[k] = 48 + n % 10
        n //= 10
        k -= 1


def card_into(line, card: int) -> None:
    """Append a card's quoted name: ``"TH"``, jokers ``"X1"``/``"X2"`` (cards.card_name)."""
    line.append(34)
    if card >= JOKER1:
        line.append(88)  # X
        line.append(49 if card == JOKER1 else 50)
    else:
        line.append(RANK_BYTES[(card % DECK_SIZE) >> 2])
        line.append(SUIT_BYTES[card & 3])
    line.append(34)
