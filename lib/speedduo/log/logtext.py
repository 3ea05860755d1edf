"""Text for the match log's lines, written into a bytearray without building a str.

Numbers, card names and players as JSON values (docs/match-log.md), for every game's
log and the log port. Used by ``matchlog.MatchLog``'s formatter and ``gamelog.GameLog``;
a module of its own so that neither is too large to compile from source on the board.

Both logs (``matchlog.MatchLog``, version 1; ``gamelog.GameLog``, version 2) answer the
board's loop (``app.App``), the screens and the sound the same way, whichever the game:
- ``observe(observer)`` tells each new event as ``observer(kind, p, why, t, now)``
  (its codes.EV_* kind, player, why, the hand's and the match's time);
- ``match_end(winner, wins, points, why)`` writes the match's end (phases.Phases);
- ``may_wait()``: may the finished lines wait a pass after a redraw;
- ``drain_into(sink)`` hands each finished line (a reusable ``bytearray``, no newline)
  to ``sink``; ``drain(write)`` is the host's form (each line a ``str``);
- ``match``: the match (its ``hand_start`` times the events); ``keys_total``: key
  events in the record so far.
Written here once: the key record's text (docs/match-log.md "Key events": an entry,
``key_into``; the entries waiting for the next line's ``keys`` field and the count,
``keys_into``) and a player's (``player_into``). (Functions, not a base class: a class
and its methods cost the board's heap more than the lines they save.)
"""

from micropython import const  # on the host, Blinka provides this module

from speedduo.vocab.cards import DECK_SIZE, JOKER1
from speedduo.vocab.codes import NULL_PLAYER

# pending key text + the longest line (match header, ~450) + the key fields < a line's room
KEYS_CAPACITY = const(400)
KEY_TEXT_MAX = const(26)  # the longest key entry: [t,-1,hand], with t a 10-digit ms count
KEY_US_TEXT_MAX = const(29)  # ... with t in µs (``keys_us``): 3 digits more
KEYS_FIELD = b',"keys":['  # the key record's field: t in ms (the keypad's stamps)
KEYS_US_FIELD = b',"keys_us":['  # ... t in µs (the PIO's edge stamps, issue 19)


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
        line.extend(b"00000")  # room for five digits; what n does not need is cut off
        if n < 10000:
            line[len(line) - (3 if n < 100 else 2 if n < 1000 else 1) :] = b""
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


def player_into(line, p: int) -> None:
    """A player as JSON: the number, or null for no player (codes.NULL_PLAYER)."""
    if p == NULL_PLAYER:
        line.extend(b"null")
    else:
        int_into(line, p)


def key_into(keys, t: int, key: int, n: int, sub: int = -1) -> None:
    """One key entry ``[t,key,n]`` joins the waiting ones in ``keys``; the caller made
    room (``len(keys) + KEY_TEXT_MAX > KEYS_CAPACITY``: they go on a line first) and
    counts it in its ``keys_total``. ``sub`` (0-999, a µs log's): ``t`` is written in
    µs, ``t`` ms and ``sub`` µs (the digits side by side: no large int is made)."""
    if len(keys):
        keys.append(44)  # ,
    keys.append(91)  # [
    if sub < 0:
        int_into(keys, t)
    elif t <= 0:  # (before the match's time 0: a few ms at most)
        int_into(keys, t * 1000 + sub)
    else:
        int_into(keys, t)
        keys.append(48 + sub // 100)
        keys.append(48 + sub // 10 % 10)
        keys.append(48 + sub % 10)
    keys.append(44)
    if 0 <= key < 10:  # one digit written here: a call less on every key event
        keys.append(48 + key)
    else:
        int_into(keys, key)
    keys.append(44)
    if 0 <= n < 10:
        keys.append(48 + n)
    else:
        int_into(keys, n)
    keys.append(93)  # ]


def late_into(line, reader) -> None:
    """``match_end``'s ``late_us``: the most any key stamp of the match may be late (the
    µs ``reader``'s, when its FIFO was ever full), when a reader says it is not 0."""
    if reader is not None and reader.late_us:
        field_into(line, b',"late_us":', reader.late_us)


def keys_into(line, keys, total: int, field=KEYS_FIELD) -> None:
    """The waiting key entries (emptied) and the running count onto ``line``:
    ``,"keys":[...],"keys_total":N`` (``field``: ``KEYS_US_FIELD`` in a µs log)."""
    if len(keys):
        line.extend(field)
        line.extend(keys)
        line.append(93)  # ]
        keys[:] = b""
    line.extend(b',"keys_total":')
    int_into(line, total)
