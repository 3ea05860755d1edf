"""The match log (docs/match-log.md, format version 1): record now, format later.

The game records every event as one fixed-width 16-byte record in a
preallocated ring (one ``put_*`` writer per event kind, each beside the
method that formats its line: a few byte stores, no allocation), so the play
path never builds a string. ``drain_into(sink)`` turns the waiting records into JSON
Lines, each written into one reusable ``bytearray`` (``line``, with room for the
longest: ``ONE_DECK_LINE``, or ``LINE_CAPACITY`` under V3/V4; no trailing newline)
and handed to ``sink(line)``, which
must use it before it returns: on the board that is the USB data port
(``logport.py``), and formatting allocates nothing there either, for every
event but the ``match`` header. ``drain(write)`` is the host's form: each
line as a ``str``.

Record layout (``struct`` ``<BBBBBBBBii``, written by ``_put`` and ``put_play``): 0 kind,
1 player (or winner; 2 = null), 2 slot, 3 card, 4 pile, 5 why, 6 extra, 7 the card an accepted
play's slot was refilled with (R7; NO_CARD: none, so one record gives the
``play`` and ``draw`` lines), 8-11 ``t`` (ms, little-endian), 12-15 ``u`` (a
second time or number). Events with cards are followed by ``CARDS`` records
(1 count, 2 "more follows", 3.. up to 13 cards): a ``redeal`` by its two card
lists, a ``deal`` by the 52 cards of the shuffled deck in four records, which
the formatter turns into the line's lists (cards.py says who gets which).

Key events (replay, docs/match-log.md "Key events"): a ``keylog.KeyRecorder``
between the keypad queue and the arbiter records every event the arbiter reads
as a ``KEY`` record (1 key number, KEY_OVERFLOW for "events were lost here"
or KEY_CLEARED for "the queue was cleared here"; 2 pressed, or for KEY_CLEARED
the hand that counted the loss; ``t`` match time in ms). The formatter gathers
them, without allocating, into the extra fields ``keys`` and ``keys_total`` of
the next line; when more are waiting than one line can carry (KEYS_CAPACITY
bytes of text), they go out on a ``keys`` line of their own.
"""

from micropython import const  # on the host, Blinka provides this module

try:
    from typing import Any  # noqa: F401  (type comments only; the board has no typing)
except ImportError:
    pass

from struct import pack_into

from speedduo.log.dealtext import DEAL_AT, DEAL_TEMPLATE
from speedduo.log.header import match_into
from speedduo.log.logtext import (  # noqa: F401  (KEY_TEXT_MAX, KEYS_CAPACITY, player_into: re-exported)
    KEY_TEXT_MAX,
    KEY_US_TEXT_MAX,
    KEYS_CAPACITY,
    RANK_BYTES,
    SUIT_BYTES,
    card_into,
    field_into,
    int_into,
    key_into,
    keys_into,
    late_into,
    player_into,
)
from speedduo.vocab.cards import (
    DEAL_HAND,
    DEAL_SIDE,
    DEAL_STARTER,
    DECK_SIZE,
    DRAW_CARDS,
    HAND_SLOTS,
    NO_CARD,
)
from speedduo.vocab.codes import (  # noqa: F401  (re-exported: the log's words for them)
    END_ABANDONED,
    END_CLAIM,
    END_DEAD_STALL,
    END_OUT,
    END_PHOTO_FINISH,
    EV_CARDS,
    EV_DEAL,
    EV_FLIP,
    EV_HAND_END,
    EV_KEY,
    EV_MATCH,
    EV_MATCH_END,
    EV_PENALTY,
    EV_PLAY,
    EV_REDEAL,
    EV_REJECT,
    EV_STALL,
    NULL_PLAYER,
    TIE_LOST,
    TIE_NONE,
    TIE_WON,
)

# the reject reasons (field "why" of reject): the core's results of the same name
from speedduo.vocab.codes import INVALID as WHY_INVALID  # noqa: F401, I001  (re-exported)
from speedduo.vocab.codes import JOKER_LAST as WHY_JOKER_LAST  # noqa: F401  (re-exported)
from speedduo.vocab.codes import LATE as WHY_LATE  # noqa: F401  (re-exported)
from speedduo.vocab.codes import LOCKED as WHY_LOCKED  # noqa: F401  (re-exported)

KEY_OVERFLOW = const(255)  # EV_KEY's key number for "the keypad queue dropped events here"
KEY_CLEARED = const(254)  # ... "the queue was cleared here" (a loss's window ends; 2: the hand)

REJECT_WHY = (b"", b"late", b"invalid", b"locked", b"joker_last")
END_WHY = (b"", b"out", b"dead_stall", b"photo_finish", b"claim", b"abandoned")  # by END_*

# The ring holds what waits for the loop's drain: a pass drains it (app.App.step), or after a
# redraw lets fewer than LOG_PATIENCE wait a pass (may_wait). A pass that records more than
# the ring holds (a burst of key events, a chain of stalls) does not stop the game: the ring
# spills (``_spill``), its observer sees the waiting records and they go out to ``sink``
# (the board's log port) at once, as the pass's drain would have sent them, line for line
# (tests/test_matchlog_ring.py). An event's records go in together (``_room``): the deal
# line is read from its CARDS records where they wait.
LOG_PATIENCE = const(8)  # records that may wait a pass after a redraw (may_wait)
RING_RECORDS = const(32)  # 512 bytes: more than LOG_PATIENCE and than any event's records
# a line's room, the log port's tab, seq and newline included (logport.py): the longest
# line is a deal with the most key text waiting (400 bytes and the key fields); a deal of
# one deck takes 348 bytes with a 10-digit hand number, so 796 in all, and one of two
# decks and jokers 618, so 1,066 (tests/test_keylog.py: 785 and 1,055 measured)
LINE_CAPACITY = const(1072)  # V3/V4: a deal of 2 decks and jokers
ONE_DECK_LINE = const(816)  # one deck (the rules without V3 and V4)
_RECORD = const(16)
_CARDS_PER_RECORD = const(13)
_LOG_VERSION = const(1)
_DECK_WRITTEN = const(-1)  # _lists: a deal's CARDS records follow, their cards written already


class MatchLog:
    """A ring of fixed-width event records plus the JSON Lines formatter."""

    def __init__(
        self, capacity: int = RING_RECORDS, micro: bool = False, line_room: int = LINE_CAPACITY
    ) -> None:
        """``micro``: the key events are stamped in µs (``keys_us``, the match line says
        ``stamped_by``; keylog.KeyRecorder's events carry ``sub_us``); ``line_room``: the
        line's (ONE_DECK_LINE when the rules deal one deck)."""
        # imported here, not with the module: its dict holds 59 names, a size of its table
        from speedduo.log.logtext import KEYS_FIELD, KEYS_US_FIELD

        self.micro = micro
        self.late_of = None  # type: Any  # the µs reader (edges.Edges): match_end's late_us
        self._keys_field = KEYS_US_FIELD if micro else KEYS_FIELD
        self._key_room = KEY_US_TEXT_MAX if micro else KEY_TEXT_MAX
        self._ring = bytearray(capacity * _RECORD)
        self._capacity = capacity
        self._head = 0  # next record to format
        self._count = 0  # records waiting
        self._seen = 0  # of those, how many ``observe`` has shown
        self._tail = 0  # byte offset of the next record to write
        self._header = None  # type: Any  # (seed, rules, best_of, tie_first, head starts): the match
        self.match = None  # type: Any  # the Match (set by it): its hand_start times observe
        self.line = bytearray(line_room)  # the line being formatted (see drain_into)
        self._lists = 0  # card lists of a redeal line written so far (or _DECK_WRITTEN)
        self.keys_total = -1  # key events formatted so far; -1: no KeyRecorder, no key fields
        self._keys = bytearray(KEYS_CAPACITY)  # formatted key entries waiting for the next line
        self._keys[:] = b""  # empty; the capacity stays
        self.sink = None  # type: Any  # where a full ring's lines go at once (App: the log port)
        self.observer = None  # type: Any  # who sees them first (App: the screens and the sound)
        self.spills = 0  # passes that logged more than the ring holds (the profiler says how many)

    # ---- recording, on the hot path: one struct.pack_into per record ----

    def _put(self, kind, p, slot, card, pile, why, extra, t, u) -> int:
        """Record one event at the ring's tail (the writers below; a full ring spills
        first); returns the record's byte offset. Allocation-free; the caller drains often."""
        if self._count >= self._capacity:
            self._spill()
        w = self._tail
        self._tail = w + _RECORD if w + _RECORD < len(self._ring) else 0
        self._count += 1
        pack_into("<BBBBBBBBii", self._ring, w, kind, p, slot, card, pile, why, extra, 0, t, u)
        return w

    def _room(self, n: int) -> None:
        """Room for an event's ``n`` records, written together (a deal, a redeal)."""
        if self._count + n > self._capacity:
            self._spill()

    def _spill(self) -> None:
        """The ring is full: its observer sees the waiting records and they go out to
        ``sink`` now (drained later, they would be the same lines). Without a sink (a host
        that drains by hand) a full ring raises."""
        if self.sink is None:
            raise RuntimeError("match log ring is full: drain it every loop pass")
        self.spills += 1
        if self.observer is not None:
            self.observe(self.observer)
        self.drain_into(self.sink)

    def discard(self) -> None:
        """Drop every waiting record unformatted (benchmarks of the rules core alone)."""
        self._head = 0
        self._count = 0
        self._tail = 0
        self._seen = 0

    def observe(self, observer) -> int:
        """Show each record not yet observed to ``observer(kind, p, why, t, now)`` (``t``
        the hand's time, ``now`` the match's: the hand's start + t; card lists and key
        events are skipped), before ``drain_into`` formats them; returns how many it
        showed (a key event read is no news for the screens: a press that did something
        is the arbiter's ``applied``, so the pass that reads a press before its millisecond
        is complete does not redraw for it). Allocation-free."""
        ring = self._ring
        k = self._seen
        shown = 0
        while k < self._count:
            i = self._head + k
            if i >= self._capacity:
                i -= self._capacity
            i *= _RECORD
            kind = ring[i]
            if kind != EV_CARDS and kind != EV_KEY:
                t = ring[i + 8] | (ring[i + 9] << 8) | (ring[i + 10] << 16) | (ring[i + 11] << 24)
                observer(kind, ring[i + 1], ring[i + 5], t, self.match.hand_start + t)
                shown += 1
            k += 1
        self._seen = k
        return shown

    def may_wait(self) -> bool:
        """May the waiting records wait a pass (the loop redrew: the next press comes first)?"""
        return self._count < LOG_PATIENCE

    # ---- formatting, outside the hot path ----

    def drain(self, write) -> int:
        """Host form of ``drain_into``: each line as a str."""
        return self.drain_into(lambda line: write(line.decode()))

    def drain_into(self, sink) -> int:
        """Format every complete waiting event into ``line``; ``sink(line)`` each. Returns lines."""
        lines = 0
        ring = self._ring
        line = self.line
        capacity = self._capacity
        head = self._head
        while self._count:
            i = head * _RECORD
            head += 1
            if head == capacity:
                head = 0
            self._head = head
            self._count -= 1
            kind = ring[i]
            if kind == EV_PLAY:  # most records: the play line, then its refill's
                lines += self._play(ring, i, sink)
            elif kind == EV_KEY:
                lines += self._key(ring, i, sink)
            elif self._format(ring, i):
                if len(self._keys) or (kind == EV_MATCH_END and self.keys_total >= 0):
                    self._with_keys()
                sink(line)
                lines += 1
        self._seen = 0
        return lines

    def put_key(self, t, key, pressed, sub=0) -> None:
        """A key event the arbiter read (KEY_OVERFLOW / KEY_CLEARED: a loss's marks;
        ``pressed`` is then 0 / the hand that counted the loss). Formatted into the
        ``keys`` field of the next line (``_key``); ``sub``: the µs past ``t`` (a µs log)."""
        self._put(EV_KEY, key, pressed, 0, 0, 0, 0, t, sub)

    def _key(self, r, i, sink) -> int:
        """A KEY record: its entry joins the waiting ones (a ``keys`` line first when full);
        a loss's marks are the keys -1 (KEY_OVERFLOW) and -2 (KEY_CLEARED)."""
        lines = 0
        if len(self._keys) + self._key_room > KEYS_CAPACITY:  # no room: the waiting ones go first
            line = self.line
            line[:] = b'{"ev":"keys"}'
            self._with_keys()
            sink(line)
            lines = 1
        key = r[i + 1]
        if key == KEY_OVERFLOW:
            key = -1
        elif key == KEY_CLEARED:
            key = -2
        t = r[i + 8] | (r[i + 9] << 8) | (r[i + 10] << 16) | (r[i + 11] << 24)
        sub = r[i + 12] | (r[i + 13] << 8) if self.micro else -1
        key_into(self._keys, t, key, r[i + 2], sub)
        self.keys_total += 1
        return lines

    def _with_keys(self) -> None:
        """End ``line`` (a finished line, its ``}`` last) with the waiting key entries
        and the running count: ``,"keys":[...],"keys_total":N}``."""
        line = self.line
        line[len(line) - 1 :] = b""  # the closing }
        keys_into(line, self._keys, self.keys_total, self._keys_field)
        line.append(125)  # }

    def _format(self, r, i) -> bool:
        """Write record ``r[i:i+16]`` into ``line``; False while a card list is unfinished."""
        kind = r[i]
        if kind == EV_CARDS:
            return self._cards(r, i)
        if kind >= len(_LINE_WRITERS) or _LINE_WRITERS[kind] is None:
            raise ValueError("corrupt match log record kind %d" % kind)
        line = self.line
        line[:] = b""  # a new line; the capacity stays
        t = r[i + 8] | (r[i + 9] << 8) | (r[i + 10] << 16) | (r[i + 11] << 24)
        u = r[i + 12] | (r[i + 13] << 8) | (r[i + 14] << 16) | (r[i + 15] << 24)
        if not _LINE_WRITERS[kind](self, r, i, t, u):
            return False  # its card lists follow
        line.append(125)  # }
        return True

    # ---- each event kind: its writer (recording) beside its line (formatting) ----
    # A line writer gets the record at r[i:], its t and u; it writes the line's fields
    # without the closing brace and returns True (False: card records follow).

    def header(self, game, players, seed, rules, best_of, tie_first, head_start=(0, 0)) -> None:
        """The ``match`` line (version 1: classic Speed, two players; ``game`` and
        ``players`` are not its fields): seed, rules, best_of, tie_first and H1's head
        starts; H2's hand slots from its rules. Recorded now, written at the drain."""
        self._header = (seed, rules, best_of, tie_first, head_start)
        self._put(EV_MATCH, 0, 0, 0, 0, 0, 0, 0, 0)

    def _match_line(self, r, i, t, u) -> bool:
        """The ``match`` line: once per match, before play (``header.match_into``: it may
        allocate); the header's fields are let go once written."""
        seed, rules, best_of, tie_first, head_start = self._header
        self._header = None
        pairs = rules.as_pairs()
        match_into(
            self.line,
            _LOG_VERSION,
            None,
            2,
            seed,
            pairs,
            best_of,
            b"alternate",
            tie_first,
            self.micro,
            head_start,
            # H2 (rules.hand_slots, without importing the rules module)
            (getattr(rules, "hand_slots_p1", 5), getattr(rules, "hand_slots_p2", 5)),
        )
        return True

    def put_deal(self, hand_no: int, size: int, deck_chunks) -> None:
        """A deal: its record (the deck's ``size`` in byte 3), then the shuffled deck
        (cards.DEAL_* says who got what). ``deck_chunks``: views of up to 13 cards
        each, in deck order; each becomes one CARDS record by one slice copy."""
        self._room(1 + len(deck_chunks))
        self._put(EV_DEAL, 0, 0, size, 0, 0, 0, 0, hand_no)
        ring = self._ring
        last = len(deck_chunks) - 1
        for k in range(last + 1):
            chunk = deck_chunks[k]
            n = len(chunk)
            i = self._put(EV_CARDS, n, 1 if k < last else 0, 0, 0, 0, 0, 0, 0)
            ring[i + 3 : i + 3 + n] = chunk

    def _deal_line(self, r, i, t, u) -> bool:
        """A ``deal`` line (``put_deal``), whole: its deck is read where it waits, in the
        CARDS records right after the deal's (put_deal wrote them together); those records
        are then passed over (``_cards``). One deck fills a template (``_fill_template``);
        V3/V4's decks are written list by list in cards.DEAL_* order (hands in slot order,
        draw and side piles top first, then the starters)."""
        line = self.line
        field_into(line, b'{"ev":"deal","hand_no":', u)
        line.extend(b',"hands":[[')
        size = r[i + 3]
        if size == DECK_SIZE:
            self._fill_template()
        else:
            half = size >> 1  # player 1's cards follow player 0's
            self._card_list(half, DEAL_HAND, HAND_SLOTS, 1, b']],"draw":[[')
            self._card_list(half, DRAW_CARDS - 1, DRAW_CARDS, -1, b']],"side":[[')
            self._card_list(half, half - 1, half - DEAL_SIDE, -1, b']],"piles":[[')
            self._card_list(half, DEAL_STARTER, 1, 1, b"]]}")
        self._lists = _DECK_WRITTEN
        return False

    def _fill_template(self) -> None:
        """A deal of one deck (R2): the template (every card "AS") and each card's name
        where ``DEAL_AT`` puts it, record by record from the deck's CARDS records."""
        line = self.line
        base = len(line)
        line.extend(DEAL_TEMPLATE)
        ring = self._ring
        record = self._head  # the deck's first CARDS record
        have = 0
        while have < DECK_SIZE:
            i = record * _RECORD
            n = ring[i + 1]
            src = i + 3 - have  # deck card d of this record is ring[src + d]
            for d in range(have, have + n):
                card = ring[src + d]
                at = base + DEAL_AT[d]
                line[at] = RANK_BYTES[card >> 2]
                line[at + 1] = SUIT_BYTES[card & 3]
            have += n
            record += 1
            if record == self._capacity:
                record = 0

    def put_reject(self, t, p, slot, card, pile, why, tie) -> None:
        """A refused press (R8 ``late``, ``invalid``, R16 ``locked``; ``tie``: TIE_*)."""
        self._put(EV_REJECT, p, slot, card, pile, why, tie, t, 0)

    def _reject_line(self, r, i, t, u) -> bool:
        line = self.line
        line.extend(b'{"ev":"reject","t":')
        int_into(line, t)
        field_into(line, b',"p":', r[i + 1])
        field_into(line, b',"slot":', r[i + 2])
        line.extend(b',"card":')
        card_into(line, r[i + 3])
        field_into(line, b',"pile":', r[i + 4])
        line.extend(b',"why":"')
        line.extend(REJECT_WHY[r[i + 5]])
        line.append(34)  # "
        if r[i + 6] == TIE_WON:
            line.extend(b',"tie":"won"')
        elif r[i + 6] == TIE_LOST:
            line.extend(b',"tie":"lost"')
        return True

    def put_penalty(self, t, p, until) -> None:
        """R16: player p is locked out until ``until``."""
        self._put(EV_PENALTY, p, 0, 0, 0, 0, 0, t, until)

    def _penalty_line(self, r, i, t, u) -> bool:
        line = self.line
        field_into(line, b'{"ev":"penalty","t":', t)
        field_into(line, b',"p":', r[i + 1])
        field_into(line, b',"until":', u)
        return True

    def put_stall(self, t, due) -> None:
        """R9: nobody can play; the side piles flip at ``due``."""
        self._put(EV_STALL, 0, 0, 0, 0, 0, 0, t, due)

    def _stall_line(self, r, i, t, u) -> bool:
        line = self.line
        field_into(line, b'{"ev":"stall","t":', t)
        field_into(line, b',"due":', u)
        return True

    def put_redeal(self, t, side, side_n, cap) -> None:
        """R10/V7: new side piles: the record, then each pile's cards, top first, in CARDS
        records of up to 13 (player p's pile is ``side[p * cap :]``, ``side_n[p]`` cards,
        top last; an empty pile is one empty record)."""
        last = _CARDS_PER_RECORD - 1  # each pile's records: its cards 13 a record, or one empty
        self._room(
            1
            + ((side_n[0] + last) // _CARDS_PER_RECORD or 1)
            + ((side_n[1] + last) // _CARDS_PER_RECORD or 1)
        )
        self._put(EV_REDEAL, 0, 0, 0, 0, 0, 0, t, 0)
        ring = self._ring
        for p in range(2):
            top = p * cap + side_n[p] - 1  # the next card to record, from the top down
            left = side_n[p]
            while True:
                n = left if left < _CARDS_PER_RECORD else _CARDS_PER_RECORD
                left -= n
                i = self._put(EV_CARDS, n, 1 if left else 0, 0, 0, 0, 0, 0, 0)
                for k in range(n):
                    ring[i + 3 + k] = side[top - k]
                top -= n
                if not left:
                    break

    def _redeal_line(self, r, i, t, u) -> bool:
        line = self.line
        field_into(line, b'{"ev":"redeal","t":', t)
        line.extend(b',"side":[[')
        self._lists = 0  # two card lists follow
        return False

    def put_flip(self, t, p, card) -> None:
        """R9: player p's side pile turned ``card`` onto centre pile p."""
        self._put(EV_FLIP, p, 0, card, p, 0, 0, t, 0)

    def _flip_line(self, r, i, t, u) -> bool:
        line = self.line
        field_into(line, b'{"ev":"flip","t":', t)
        field_into(line, b',"p":', r[i + 1])
        line.extend(b',"card":')
        card_into(line, r[i + 3])
        field_into(line, b',"pile":', r[i + 4])
        return True

    def put_hand_end(self, t, winner, left0, left1, sweep, why, overflows) -> None:
        """The hand ended (END_* ``why``); cards left, R15 sweep, lost key events."""
        self._put(EV_HAND_END, winner, left0, left1, sweep, why, overflows, t, 0)

    def _hand_end_line(self, r, i, t, u) -> bool:
        line = self.line
        field_into(line, b'{"ev":"hand_end","t":', t)
        line.extend(b',"winner":')
        player_into(line, r[i + 1])
        line.extend(b',"why":"')
        line.extend(END_WHY[r[i + 5]])
        field_into(line, b'","left":[', r[i + 2])
        line.append(44)  # ,
        int_into(line, r[i + 3])
        line.extend(b'],"sweep":true' if r[i + 4] else b'],"sweep":false')
        if r[i + 6]:
            field_into(line, b',"overflows":', r[i + 6])
        return True

    def match_end(self, winner, wins, points, why) -> None:
        """The match's end (phases.Phases): R14 (R17: winner NULL_PLAYER), the hands won;
        ``points``: R15's (p0, p1), or None when off. Version 1 has two players, no ``why``."""
        if points is None:
            self._put(EV_MATCH_END, winner, wins[0], wins[1], 0, 0, 0, 0, 0)
        else:
            self._put(EV_MATCH_END, winner, wins[0], wins[1], 0, 1, 0, points[0], points[1])

    def _match_end_line(self, r, i, t, u) -> bool:
        line = self.line
        line.extend(b'{"ev":"match_end","winner":')
        player_into(line, r[i + 1])
        field_into(line, b',"score":[', r[i + 2])
        line.append(44)
        int_into(line, r[i + 3])
        line.append(93)  # ]
        if r[i + 5]:  # R15 points, carried in t and u
            field_into(line, b',"points":[', t)
            line.append(44)
            int_into(line, u)
            line.append(93)
        late_into(line, self.late_of)
        return True

    def put_play(self, t, p, slot, card, pile, tie, drawn) -> None:
        """An accepted play and, when ``drawn`` is not NO_CARD, its R7 refill: one record."""
        if self._count >= self._capacity:  # _put, inlined: this is every play's record
            self._spill()
        w = self._tail
        self._tail = w + _RECORD if w + _RECORD < len(self._ring) else 0
        self._count += 1
        pack_into("<BBBBBBBBii", self._ring, w, EV_PLAY, p, slot, card, pile, 0, tie, drawn, t, 0)

    def _play(self, r, i, sink) -> int:
        """A play record's ``play`` line and, when its slot was refilled (R7), ``draw`` line.

        The play line is a template with its one-digit fields filled in; the draw
        line is the play line cut after ``"card":`` (same fields up to there).
        """
        line = self.line
        line[:] = b""
        t = r[i + 8] | (r[i + 9] << 8) | (r[i + 10] << 16) | (r[i + 11] << 24)
        field_into(line, b'{"ev":"play","t":', t)
        k = len(line)
        line.extend(b',"p":0,"slot":0,"card":"AS","pile":0')
        line[k + 5] = 48 + r[i + 1]  # p, slot and pile are single digits
        line[k + 14] = 48 + r[i + 2]
        card = r[i + 3]
        if card < DECK_SIZE:
            line[k + 24] = RANK_BYTES[card >> 2]
            line[k + 25] = SUIT_BYTES[card & 3]
        else:  # a second deck or a joker (V3, V4): the general form
            line[k + 23 :] = b""
            card_into(line, card)
            line.extend(b',"pile":0')
        line[len(line) - 1] = 48 + r[i + 4]
        tie = r[i + 6]
        if tie != TIE_NONE:
            line.extend(b',"tie":"won"' if tie == TIE_WON else b',"tie":"lost"')
        line.append(125)  # }
        if len(self._keys):
            self._with_keys()
        sink(line)
        drawn = r[i + 7]
        if drawn == NO_CARD:
            return 1
        line[7:11] = b"draw"  # same fields up to the card: cut after "card":, put the refill
        line[k + 23 :] = b""
        if drawn < DECK_SIZE:
            line.extend(b'"AS"}')
            line[k + 24] = RANK_BYTES[drawn >> 2]
            line[k + 25] = SUIT_BYTES[drawn & 3]
        else:
            card_into(line, drawn)
            line.append(125)  # }
        sink(line)
        return 2

    def _cards(self, r, i) -> bool:
        """A CARDS record: up to 13 cards of the current list; True when the line is done."""
        line = self.line
        n = r[i + 1]
        if self._lists == _DECK_WRITTEN:  # a deal's deck (_deal_line wrote its cards)
            if r[i + 2]:  # more of it follows
                return False
            self._lists = 0
            return True
        for k in range(n):
            if line[len(line) - 1] != 91:  # not right after [
                line.append(44)
            card_into(line, r[i + 3 + k])
        if r[i + 2]:  # more of this list follows
            return False
        self._lists += 1
        if self._lists == 2:  # a redeal's second list
            line.extend(b"]]}")
            return True
        line.extend(b"],[")
        return False

    def _card_list(self, half, first, count, step, after) -> None:
        """Both players' lists of one kind of a V3/V4 deal: deck[first + p * half], ``count``
        cards ``step`` apart, each list followed by ``],[`` and the pair by ``after``. Deck
        card d is card d % 13 of the d // 13-th CARDS record from ``_head`` (the first)."""
        line = self.line
        ring = self._ring
        capacity = self._capacity
        for p in range(2):
            d = first + p * half
            for k in range(count):
                if k:
                    line.append(44)  # ,
                at = self._head + d // _CARDS_PER_RECORD
                if at >= capacity:
                    at -= capacity
                card_into(line, ring[at * _RECORD + 3 + d % _CARDS_PER_RECORD])
                d += step
            line.extend(b"],[" if p == 0 else after)


# the line writer of each record kind (EV_*); None: formatted elsewhere (play, draw,
# key and card records)
_LINE_WRITERS = (  # type: tuple
    None,
    MatchLog._match_line,  # EV_MATCH
    MatchLog._deal_line,  # EV_DEAL
    None,  # EV_PLAY: _play
    None,  # EV_DRAW: rides in a play record
    MatchLog._reject_line,  # EV_REJECT
    MatchLog._penalty_line,  # EV_PENALTY
    MatchLog._stall_line,  # EV_STALL
    MatchLog._redeal_line,  # EV_REDEAL
    MatchLog._flip_line,  # EV_FLIP
    MatchLog._hand_end_line,  # EV_HAND_END
    MatchLog._match_end_line,  # EV_MATCH_END
)
