"""The match log (MATCH-LOG.md, format version 1): record now, format later.

The game records every event as one fixed-width 16-byte record in a
preallocated ring (``put``: a few byte stores, no allocation), so the play path
never builds a string. ``drain(write)`` turns the waiting records into JSON
Lines outside the hot path and hands each line to ``write``.

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

from speedduo.cards import card_name

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
REJECT_WHY = ("", "late", "invalid", "locked", "joker_last")

# hand_end reasons
END_OUT = const(1)
END_DEAD_STALL = const(2)
END_PHOTO_FINISH = const(3)
END_CLAIM = const(4)
END_ABANDONED = const(5)
END_WHY = ("", "out", "dead_stall", "photo_finish", "claim", "abandoned")

# ties settled by the arbiter (extra field "tie" on play/reject)
TIE_NONE = const(0)
TIE_WON = const(1)
TIE_LOST = const(2)

NULL_PLAYER = const(2)
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
        self.header = None  # type: Any  # (seed, rules, best_of, tie_first), set by the match
        self._pending = None  # type: Any  # a deal/redeal being assembled while draining

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
        """Format every complete waiting event as one JSON line; return how many."""
        lines = 0
        while self._count:
            i = self._head * _RECORD
            record = self._ring[i : i + _RECORD]
            self._head += 1
            if self._head == self._capacity:
                self._head = 0
            self._count -= 1
            line = self._format(record)
            if line is not None:
                write(line)
                lines += 1
        return lines

    def _format(self, r):
        kind = r[0]
        t = r[8] | (r[9] << 8) | (r[10] << 16) | (r[11] << 24)
        u = r[12] | (r[13] << 8) | (r[14] << 16) | (r[15] << 24)
        if kind == EV_CARDS:
            return self._collect_cards(r)
        if kind == EV_PLAY:
            return _obj(
                (("ev", '"play"'), ("t", t), ("p", r[1]), ("slot", r[2]))
                + (("card", _card(r[3])), ("pile", r[4]))
                + _tie(r[6])
            )
        if kind == EV_DRAW:
            return _obj(
                (("ev", '"draw"'), ("t", t), ("p", r[1]), ("slot", r[2]), ("card", _card(r[3])))
            )
        if kind == EV_REJECT:
            return _obj(
                (("ev", '"reject"'), ("t", t), ("p", r[1]), ("slot", r[2]))
                + (("card", _card(r[3])), ("pile", r[4]), ("why", '"' + REJECT_WHY[r[5]] + '"'))
                + _tie(r[6])
            )
        if kind == EV_PENALTY:
            return _obj((("ev", '"penalty"'), ("t", t), ("p", r[1]), ("until", u)))
        if kind == EV_STALL:
            return _obj((("ev", '"stall"'), ("t", t), ("due", u)))
        if kind == EV_FLIP:
            return _obj(
                (("ev", '"flip"'), ("t", t), ("p", r[1]), ("card", _card(r[3])), ("pile", r[4]))
            )
        if kind == EV_HAND_END:
            winner = "null" if r[1] == NULL_PLAYER else r[1]
            return _obj(
                (("ev", '"hand_end"'), ("t", t), ("winner", winner))
                + (("why", '"' + END_WHY[r[5]] + '"'), ("left", "[%d,%d]" % (r[2], r[3])))
                + (("sweep", "true" if r[4] else "false"),)
                + ((("overflows", r[6]),) if r[6] else ())
            )
        if kind == EV_MATCH_END:
            winner = "null" if r[1] == NULL_PLAYER else r[1]
            points = (("points", "[%d,%d]" % (t, u)),) if r[5] else ()
            return _obj(
                (("ev", '"match_end"'), ("winner", winner), ("score", "[%d,%d]" % (r[2], r[3])))
                + points
            )
        if kind == EV_MATCH:
            seed, rules, best_of, tie_first = self.header
            pairs = []
            for name, value in rules.as_pairs():
                pairs.append((name, _value(value)))
            return _obj(
                (("ev", '"match"'), ("v", LOG_VERSION), ("seed", seed))
                + (("rules", _obj(pairs)), ("best_of", best_of))
                + (("tie_break", '"alternate"'), ("tie_first", tie_first))
            )
        if kind == EV_DEAL:
            self._pending = [EV_DEAL, u, []]  # hand_no, the card lists
            return None
        if kind == EV_REDEAL:
            self._pending = [EV_REDEAL, t, []]
            return None
        raise ValueError("corrupt match log record kind %d" % kind)

    def _collect_cards(self, r):
        pending = self._pending
        lists = pending[2]
        if not lists or lists[-1][1] == 0:
            lists.append([[], 1])
        current = lists[-1]
        for k in range(r[1]):
            current[0].append(_card(r[3 + k]))
        current[1] = r[2]
        if r[2]:
            return None
        kind = pending[0]
        if kind == EV_DEAL and len(lists) == 8:
            self._pending = None
            cards = [_list(item[0]) for item in lists]
            return _obj(
                (("ev", '"deal"'), ("hand_no", pending[1]))
                + (("hands", "[%s,%s]" % (cards[0], cards[1])),)
                + (("draw", "[%s,%s]" % (cards[2], cards[3])),)
                + (("side", "[%s,%s]" % (cards[4], cards[5])),)
                + (("piles", "[%s,%s]" % (cards[6], cards[7])),)
            )
        if kind == EV_REDEAL and len(lists) == 2:
            self._pending = None
            cards = [_list(item[0]) for item in lists]
            return _obj(
                (("ev", '"redeal"'), ("t", pending[1]), ("side", "[%s,%s]" % (cards[0], cards[1])))
            )
        return None


def _card(card: int) -> str:
    return '"' + card_name(card) + '"'


def _list(items) -> str:
    return "[" + ",".join(items) + "]"


def _tie(extra: int):
    if extra == TIE_WON:
        return (("tie", '"won"'),)
    if extra == TIE_LOST:
        return (("tie", '"lost"'),)
    return ()


def _value(value) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return '"' + value + '"'
    return str(value)


def _obj(fields) -> str:
    """A compact JSON object from (name, already-encoded value) pairs, in order."""
    return "{" + ",".join(['"%s":%s' % (name, value) for name, value in fields]) + "}"
