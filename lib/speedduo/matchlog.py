"""The match log (docs/match-log.md, format version 1): record now, format later.

The game records every event as one fixed-width 16-byte record in a
preallocated ring (``put``: a few byte stores, no allocation), so the play path
never builds a string. ``drain_into(sink)`` turns the waiting records into JSON
Lines, each written into one reusable ``bytearray`` (``line``, capacity
``LINE_CAPACITY``, no trailing newline) and handed to ``sink(line)``, which
must use it before it returns: on the board that is the USB data port
(``logport.py``), and formatting allocates nothing there either, for every
event but the ``match`` header. ``drain(write)`` is the host's form: each
line as a ``str``.

Record layout: 0 kind, 1 player (or winner; 2 = null), 2 slot, 3 card,
4 pile, 5 why, 6-7 extra, 8-11 ``t`` (ms, little-endian), 12-15 ``u`` (a
second time or number). Events with card lists (``deal``, ``redeal``) are
followed by ``CARDS`` records: 1 count, 2 "more follows", 3.. up to 13 cards.
"""

from micropython import const  # on the host, Blinka provides this module

try:
    from typing import Any  # noqa: F401  (type comments only; the board has no typing)
except ImportError:
    pass

from speedduo.cards import DECK_SIZE, JOKER1

EV_MATCH = const(1)
EV_DEAL = const(2)
EV_PLAY = const(3)
EV_DRAW = const(4)
EV_REJECT = const(5)
EV_PENALTY = const(6)
EV_STALL = const(7)
EV_REDEAL = const(8)
EV_FLIP = const(9)
EV_HAND_END = const(10)
EV_MATCH_END = const(11)
EV_CARDS = const(12)

# reject reasons (field "why" of reject)
WHY_LATE = const(1)
WHY_INVALID = const(2)
WHY_LOCKED = const(3)
WHY_JOKER_LAST = const(4)
REJECT_WHY = (b"", b"late", b"invalid", b"locked", b"joker_last")

# hand_end reasons
END_OUT = const(1)
END_DEAD_STALL = const(2)
END_PHOTO_FINISH = const(3)
END_CLAIM = const(4)
END_ABANDONED = const(5)
END_WHY = (b"", b"out", b"dead_stall", b"photo_finish", b"claim", b"abandoned")

# ties settled by the arbiter (extra field "tie" on play/reject)
TIE_NONE = const(0)
TIE_WON = const(1)
TIE_LOST = const(2)

NULL_PLAYER = const(2)
LINE_CAPACITY = const(1024)  # > the longest line: a deal of 2 decks and jokers
_RECORD = const(16)
_CARDS_PER_RECORD = const(13)
LOG_VERSION = const(1)


class MatchLog:
    """A ring of fixed-width event records plus the JSON Lines formatter."""

    def __init__(self, capacity: int = 256) -> None:
        self._ring = bytearray(capacity * _RECORD)
        self._capacity = capacity
        self._head = 0  # next record to format
        self._count = 0  # records waiting
        self._seen = 0  # of those, how many ``observe`` has shown
        self.header = None  # type: Any  # (seed, rules, best_of, tie_first), set by the match
        self.line = bytearray(LINE_CAPACITY)  # the line being formatted (see drain_into)
        self._lists = 0  # card lists of a deal/redeal line written so far

    def put(self, kind, p, slot, card, pile, why, extra, t, u):
        """Record one event. Allocation-free; the caller drains often enough."""
        if self._count >= self._capacity:
            raise RuntimeError("match log ring is full: drain it every loop pass")
        i = self._head + self._count
        if i >= self._capacity:
            i -= self._capacity
        i *= _RECORD
        ring = self._ring
        ring[i] = kind
        ring[i + 1] = p
        ring[i + 2] = slot
        ring[i + 3] = card
        ring[i + 4] = pile
        ring[i + 5] = why
        ring[i + 6] = extra
        ring[i + 7] = 0
        ring[i + 8] = t & 0xFF
        ring[i + 9] = (t >> 8) & 0xFF
        ring[i + 10] = (t >> 16) & 0xFF
        ring[i + 11] = (t >> 24) & 0xFF
        ring[i + 12] = u & 0xFF
        ring[i + 13] = (u >> 8) & 0xFF
        ring[i + 14] = (u >> 16) & 0xFF
        ring[i + 15] = (u >> 24) & 0xFF
        self._count += 1

    def put_cards(self, buf, start: int, count: int, top_first: bool) -> None:
        """Record a card list (follows a deal/redeal record); piles top first."""
        done = 0
        while True:
            n = count - done
            if n > _CARDS_PER_RECORD:
                n = _CARDS_PER_RECORD
            self.put(EV_CARDS, n, 1 if done + n < count else 0, 0, 0, 0, 0, 0, 0)
            i = self._head + self._count - 1
            if i >= self._capacity:
                i -= self._capacity
            i = i * _RECORD + 3
            for k in range(n):
                j = done + k
                self._ring[i + k] = buf[start + count - 1 - j] if top_first else buf[start + j]
            done += n
            if done >= count:
                return

    # ---- formatting, outside the hot path ----

    def drain(self, write) -> int:
        """Host form of ``drain_into``: each line as a str."""
        return self.drain_into(lambda line: write(line.decode()))

    def observe(self, observer) -> None:
        """Show each record not yet observed to ``observer(kind, p, slot, card, pile, why, t)``
        (card lists are skipped), before ``drain_into`` formats them. Allocation-free."""
        ring = self._ring
        k = self._seen
        while k < self._count:
            i = self._head + k
            if i >= self._capacity:
                i -= self._capacity
            i *= _RECORD
            kind = ring[i]
            if kind != EV_CARDS:
                t = ring[i + 8] | (ring[i + 9] << 8) | (ring[i + 10] << 16) | (ring[i + 11] << 24)
                observer(kind, ring[i + 1], ring[i + 2], ring[i + 3], ring[i + 4], ring[i + 5], t)
            k += 1
        self._seen = k

    def drain_into(self, sink) -> int:
        """Format every complete waiting event into ``line``; ``sink(line)`` each. Returns lines."""
        lines = 0
        ring = self._ring
        while self._count:
            i = self._head * _RECORD
            self._head += 1
            if self._head == self._capacity:
                self._head = 0
            self._count -= 1
            if self._format(ring, i):
                sink(self.line)
                lines += 1
        self._seen = 0
        return lines

    def _format(self, r, i) -> bool:
        """Write record ``r[i:i+16]`` into ``line``; False while a card list is unfinished."""
        kind = r[i]
        line = self.line
        if kind == EV_CARDS:
            return self._cards(r, i)
        line[:] = b""  # a new line; the capacity stays
        t = r[i + 8] | (r[i + 9] << 8) | (r[i + 10] << 16) | (r[i + 11] << 24)
        u = r[i + 12] | (r[i + 13] << 8) | (r[i + 14] << 16) | (r[i + 15] << 24)
        if kind == EV_PLAY or kind == EV_REJECT:
            line.extend(b'{"ev":"play","t":' if kind == EV_PLAY else b'{"ev":"reject","t":')
            self._slot_card(r, i, t)
            _num(line, b',"pile":', r[i + 4])
            if kind == EV_REJECT:
                line.extend(b',"why":"')
                line.extend(REJECT_WHY[r[i + 5]])
                line.append(34)  # "
            if r[i + 6] == TIE_WON:
                line.extend(b',"tie":"won"')
            elif r[i + 6] == TIE_LOST:
                line.extend(b',"tie":"lost"')
        elif kind == EV_DRAW:
            line.extend(b'{"ev":"draw","t":')
            self._slot_card(r, i, t)
        elif kind == EV_PENALTY:
            _num(line, b'{"ev":"penalty","t":', t)
            _num(line, b',"p":', r[i + 1])
            _num(line, b',"until":', u)
        elif kind == EV_STALL:
            _num(line, b'{"ev":"stall","t":', t)
            _num(line, b',"due":', u)
        elif kind == EV_FLIP:
            _num(line, b'{"ev":"flip","t":', t)
            _num(line, b',"p":', r[i + 1])
            line.extend(b',"card":')
            _card(line, r[i + 3])
            _num(line, b',"pile":', r[i + 4])
        elif kind == EV_HAND_END:
            _num(line, b'{"ev":"hand_end","t":', t)
            line.extend(b',"winner":')
            _player(line, r[i + 1])
            line.extend(b',"why":"')
            line.extend(END_WHY[r[i + 5]])
            _pair(line, b'","left":', r[i + 2], r[i + 3])
            line.extend(b',"sweep":true' if r[i + 4] else b',"sweep":false')
            if r[i + 6]:
                _num(line, b',"overflows":', r[i + 6])
        elif kind == EV_MATCH_END:
            line.extend(b'{"ev":"match_end","winner":')
            _player(line, r[i + 1])
            _pair(line, b',"score":', r[i + 2], r[i + 3])
            if r[i + 5]:
                _pair(line, b',"points":', t, u)
        elif kind == EV_MATCH:
            self._header()
        elif kind == EV_DEAL:
            _num(line, b'{"ev":"deal","hand_no":', u)
            line.extend(b',"hands":[[')
            self._lists = 0
            return False
        elif kind == EV_REDEAL:
            _num(line, b'{"ev":"redeal","t":', t)
            line.extend(b',"side":[[')
            self._lists = 6  # a redeal's two lists take the deal's "side" places
            return False
        else:
            raise ValueError("corrupt match log record kind %d" % kind)
        line.append(125)  # }
        return True

    def _slot_card(self, r, i, t):
        line = self.line
        _int(line, t)
        _num(line, b',"p":', r[i + 1])
        _num(line, b',"slot":', r[i + 2])
        line.extend(b',"card":')
        _card(line, r[i + 3])

    def _cards(self, r, i) -> bool:
        """A CARDS record: up to 13 cards of the current list; True when the line is done."""
        line = self.line
        n = r[i + 1]
        for k in range(n):
            if line[len(line) - 1] != 91:  # not right after [
                line.append(44)
            _card(line, r[i + 3 + k])
        if r[i + 2]:  # more of this list follows
            return False
        self._lists += 1
        lists = self._lists
        if lists == 8:  # a deal's last list, or a redeal's second
            line.extend(b"]]}")
            return True
        line.extend(_BETWEEN_LISTS[lists])
        return False

    def _header(self):
        """The ``match`` line: once per match, before play (it may allocate)."""
        seed, rules, best_of, tie_first = self.header
        line = self.line
        _num(line, b'{"ev":"match","v":', LOG_VERSION)
        _num(line, b',"seed":', seed)
        line.extend(b',"rules":{')
        first = True
        for name, value in rules.as_pairs():
            if not first:
                line.append(44)
            first = False
            line.append(34)
            line.extend(name.encode())
            line.extend(b'":')
            if value is True:
                line.extend(b"true")
            elif value is False:
                line.extend(b"false")
            elif isinstance(value, str):
                line.append(34)
                line.extend(value.encode())
                line.append(34)
            else:
                _int(line, value)
        _num(line, b'},"best_of":', best_of)
        _num(line, b',"tie_break":"alternate","tie_first":', tie_first)


# what closes a deal line's card list k (1..7) and opens list k + 1
_BETWEEN_LISTS = (
    b"",
    b"],[",
    b']],"draw":[[',
    b"],[",
    b']],"side":[[',
    b"],[",
    b']],"piles":[[',
    b"],[",
)
_RANK_BYTES = b"A23456789TJQK"
_SUIT_BYTES = b"SHDC"


def _num(line, key: bytes, n: int) -> None:
    """Append ``key`` (the bytes before a number, e.g. ``b',"p":'``) and the number."""
    line.extend(key)
    _int(line, n)


def _pair(line, key: bytes, a: int, b: int) -> None:
    """Append ``key`` and the list ``[a,b]``."""
    line.extend(key)
    line.append(91)  # [
    _int(line, a)
    line.append(44)  # ,
    _int(line, b)
    line.append(93)  # ]


def _int(line, n: int) -> None:
    """Append the decimal digits of n (a small int; no str is built)."""
    if n < 0:
        line.append(45)  # -
        n = -n
    if n < 10:
        line.append(48 + n)
        return
    divisor = 10
    while divisor <= n // 10:  # never past n: stays a small int on the board
        divisor *= 10
    while divisor:
        line.append(48 + (n // divisor) % 10)
        divisor //= 10


def _card(line, card: int) -> None:
    """Append a card's quoted name: ``"TH"``, jokers ``"X1"``/``"X2"`` (cards.card_name)."""
    line.append(34)
    if card >= JOKER1:
        line.append(88)  # X
        line.append(49 if card == JOKER1 else 50)
    else:
        line.append(_RANK_BYTES[(card % DECK_SIZE) >> 2])
        line.append(_SUIT_BYTES[card & 3])
    line.append(34)


def _player(line, p: int) -> None:
    if p == NULL_PLAYER:
        line.extend(b"null")
    else:
        _int(line, p)
