"""Text for the match log's lines, written into a bytearray without building a str.

Numbers, card names and players as JSON values (docs/match-log.md), for every game's
log and the log port; classic Speed's deal template is in ``dealtext``. Used by
``matchlog.MatchLog``'s formatter; a module of its own so that neither is too large to
compile from source on the board.
"""

from speedduo.cards import DECK_SIZE, JOKER1

_ZEROS = (b"", b"0", b"00", b"000", b"0000", b"00000")


# The deal line's eight lists in line order: (first deck index, count, step); see cards.DEAL_*.
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
