"""The match log of the other games (docs/match-log.md, version 2: V8 Spit, V9 California
Speed, V10 Speed for three or four players).

Version 2 is version 1 with documented additions: a ``game`` and a ``players``
field on the ``match`` line, the events of each game, and lists with one entry
per player. The key record (``keys``, ``keys_total``, a ``keys`` line of its own
when the waiting entries' text passes 374 bytes) is version 1's, to the letter:
``logtext`` writes it for both.
Classic two-player Speed keeps writing version 1 (``matchlog.py``); nothing here
touches it.

A rules core writes each event's line as it happens, field by field, straight
into a line of a preallocated pool (``begin``, then ``number`` / ``word`` /
``card`` / ``player`` / ``numbers`` / ``cards``, then ``end``): a few byte
stores, no string is built, so a press allocates nothing (bench/mp_heap_lock.py).
``drain_into(sink)`` hands each finished line (a ``bytearray`` without its
newline) to ``sink``, which must use it before it returns (the board's
``LogPort.send`` appends to it); ``drain(write)`` is the host's form (a str each).
On the board the pool is one line of 1 KiB (a deal line and a full key record fit
in it): a pass's first line waits for the loop's drain, each further one sends
the one before it at once (``sink`` set) rather than growing the pool; the host's
pool grows instead.

The key record is noted, not written, during the press (``key``: three arrays), and a
line's ``end`` only counts it: the key entries' text, the line's key fields and its
``}`` are written when the line is closed (``_close``: at the drain, after the
screens; or first thing when the pass writes another line or reads another key). The
text is the same byte for byte (``key`` writes it at once when it might not fit).

``begin`` also notes the event for the board's loop (``notes_on``): its kind
(codes.EV_*), player, one number (a refusal's why, a deal's number, an end's
why), the hand's and the match's time, in preallocated arrays that the loop
(``app.App.step``) reads after each pass through ``observe``, as classic
Speed's records, for the screens and the sound.

V10's log (``v10log.V10Log``, a GameLog: classic Speed's core with 3-4 players, which
never runs on the board) writes its fields as text (``raw``) between the same ``begin``
and ``end``.
"""

from array import array

from micropython import const  # on the host, Blinka provides this module

try:
    from typing import Any  # noqa: F401  (type comments only; the board has no typing)
except ImportError:
    pass

from speedduo.log.header import match_into
from speedduo.log.logtext import (  # noqa: F401  (KEY_TEXT_MAX, KEYS_CAPACITY: re-exported)
    KEY_TEXT_MAX,
    KEY_US_TEXT_MAX,
    KEYS_CAPACITY,
    KEYS_FIELD,
    KEYS_US_FIELD,
    card_into,
    int_into,
    key_into,
    keys_into,
    late_into,
    player_into,
)
from speedduo.vocab.codes import EV_DEAL, EV_MATCH_END, NO_T, NULL_PLAYER

LOG_VERSION = const(2)
_LINES = const(1)  # lines in the pool (a loop pass rarely finishes more; see _new_line)
_LINE_ROOM = const(1024)  # each line's room: the longest event line (a deal) + a full key record
_NOTES = const(16)  # events noted for the board's loop between two passes
_KEYS_NOTED = const(15)  # key events noted, text not yet written: KEYS_CAPACITY // KEY_TEXT_MAX

# each event's word in the log, by codes.EV_* (b"": records that are no line of their own)
EV_WORDS = (
    b"",
    b"match",
    b"deal",
    b"play",
    b"draw",
    b"reject",
    b"penalty",
    b"stall",
    b"redeal",
    b"flip",
    b"hand_end",
    b"match_end",
    b"",
    b"keys",
    b"turn",
    b"move",
    b"spit",
    b"stop",
    b"slap",
    b"cover",
)


class GameLog:
    """Writes events as JSON Lines into a pool of reusable lines, the key record onto them."""

    def __init__(self, micro: bool = False) -> None:
        """``micro``: the key events are stamped in µs (``keys_us``, the match line says
        ``stamped_by``; the arbiter's ``micro``)."""
        self.micro = micro
        self.late_of = None  # the µs reader (edges.Edges): match_end's late_us
        self._keys_field = KEYS_US_FIELD if micro else KEYS_FIELD
        self._key_room = KEY_US_TEXT_MAX if micro else KEY_TEXT_MAX
        self._pool = [bytearray(_LINE_ROOM) for _ in range(_LINES)]
        for line in self._pool:
            line[:] = b""  # empty; the capacity stays
        self._count = 0  # finished lines waiting in the pool
        self._line = self._pool[0]  # the line being written
        self._kind = 0  # its event (codes.EV_*)
        self._keys = bytearray(KEYS_CAPACITY)  # key entries waiting for the next line
        self._keys[:] = b""
        # key events noted during the press, their text written after the screens (_close)
        self._key_t = array("i", [0] * _KEYS_NOTED)
        self._key_key = bytearray(_KEYS_NOTED)
        self._key_down = bytearray(_KEYS_NOTED)
        self._key_sub = array("h", [-1] * _KEYS_NOTED)  # µs past t (-1: a ms log)
        self._keys_noted = 0
        self._open = False  # the last line ended, its key record and "}" not written yet
        self.keys_total = 0
        self.match = None  # the GameMatch (its hand_start times the notes)
        self.sink = None  # the board's way out (drain_into's): lines go early when the pool is full
        self.notes_on = False  # note events for the board's loop (game_app.GameApp)
        self.notes = 0
        self.notes_lost = 0
        self.note_kind = bytearray(_NOTES)
        self.note_p = bytearray(_NOTES)
        self.note_arg = array("i", [0] * _NOTES)
        self.note_t = array("i", [0] * _NOTES)  # the hand's ms (NO_T: none)
        self.note_now = array("i", [0] * _NOTES)  # the match's ms

    # ---- lines ----

    def _new_line(self):
        """The next free line of the pool. When every line waits (a pass that logged a
        lot), they go out at once to ``sink`` (the board's: nothing allocated), else (the
        host's ``drain``) the pool grows."""
        if self._open:
            self._close()
        pool = self._pool
        if self._count == len(pool):
            if self.sink is not None:
                self.drain_into(self.sink)
            else:
                pool.append(bytearray(_LINE_ROOM))
        line = pool[self._count]
        line[:] = b""
        self._line = line
        return line

    def _finish(self) -> None:
        self._line.append(125)  # }
        self._count += 1

    def header(self, game, players, seed, rules, best_of, tie_first, head_start=(0, 0)) -> None:
        """The ``match`` line (version 2): ``rules``' options (``as_pairs``: (name, value)
        pairs in log order); ``head_start``: H1's leads (``rules.head_starts``). Once per
        match, before play (``header.match_into``: it may allocate)."""
        line = self._new_line()
        match_into(
            line,
            LOG_VERSION,
            game,
            players,
            seed,
            rules.as_pairs(),
            best_of,
            b"rotate",
            tie_first,
            self.micro,
            head_start,
        )
        self._finish()

    def key(self, t: int, key: int, pressed: int, sub: int = -1) -> None:
        """A key event read (``[t, key, pressed]``, t in ms since the match began; in a
        µs log ``sub``, the µs past t).

        Record now, write later: the event is noted in three arrays and its text is
        written when the line it rides on is closed (``_close``: the loop's drain, after
        the screens). Only when the waiting text and the noted events together might not
        fit (each noted one counted at its longest) is the text written at once, exactly
        as each event's would have been, so the lines are the same byte for byte."""
        if self._open:  # a line ended before this event: its record is complete
            self._close()
        n = self._keys_noted
        room = self._key_room
        if len(self._keys) + (n + 1) * room <= KEYS_CAPACITY:
            self._key_t[n] = t
            self._key_key[n] = key
            self._key_down[n] = pressed
            self._key_sub[n] = sub
            self._keys_noted = n + 1
            self.keys_total += 1
            return
        self._write_keys()
        if len(self._keys) + room > KEYS_CAPACITY:  # no room: the waiting ones go now
            line = self._new_line()
            line.extend(b'{"ev":"keys"')
            self._kind = 0
            keys_into(line, self._keys, self.keys_total, self._keys_field)
            self._finish()
        key_into(self._keys, t, key, pressed, sub)
        self.keys_total += 1

    # ---- one event, field by field (allocation-free) ----

    def begin(self, kind: int, t: int, p: int = NULL_PLAYER, arg: int = 0) -> None:
        """Start the line of event ``kind`` (codes.EV_*): ``{"ev":"<word>"`` and, unless
        ``t`` is NO_T, its ``t`` field; noted with player ``p`` and ``arg`` (see above)."""
        line = self._new_line()
        self._kind = kind
        line.extend(b'{"ev":"')
        line.extend(EV_WORDS[kind])
        line.append(34)  # "
        if t != NO_T:
            line.extend(b',"t":')
            int_into(line, t)
        if self.notes_on:
            self._note(kind, t, p, arg)

    def _note(self, kind, t, p, arg) -> None:
        n = self.notes
        if n == _NOTES:
            self.notes_lost += 1
            return
        self.note_kind[n] = kind
        self.note_p[n] = p
        self.note_arg[n] = arg
        self.note_t[n] = t
        match = self.match  # type: Any
        if t != NO_T:
            self.note_now[n] = match.hand_start + t
        elif kind == EV_DEAL:
            self.note_now[n] = match.hand_start
        else:  # (match_end) the time the match has been moved on to
            self.note_now[n] = match.clock
        self.notes = n + 1

    def number(self, key, n: int) -> None:
        """A field: ``key`` is its text up to the value (``b',"p":'``), then the number."""
        line = self._line
        line.extend(key)
        if 0 <= n < 10:  # (a player, a place, a pile: a call less)
            line.append(48 + n)
        else:
            int_into(line, n)

    def word(self, key, word) -> None:
        """A field whose value is a word (bytes), quoted."""
        line = self._line
        line.extend(key)
        line.append(34)
        line.extend(word)
        line.append(34)

    def card(self, key, card: int) -> None:
        line = self._line
        line.extend(key)
        card_into(line, card)

    def player(self, key, p: int) -> None:
        """A player field: the number, or null for no player (codes.NULL_PLAYER)."""
        line = self._line
        line.extend(key)
        player_into(line, p)

    def flag(self, key, value: bool) -> None:
        line = self._line
        line.extend(key)
        line.extend(b"true" if value else b"false")

    def numbers(self, key, values, n: int) -> None:
        """A list field of the first ``n`` ints of ``values``."""
        line = self._line
        line.extend(key)
        line.append(91)  # [
        for i in range(n):
            if i:
                line.append(44)
            int_into(line, values[i])
        line.append(93)  # ]

    def raw(self, text) -> None:
        """Text as it is (a field's name, a list's brackets)."""
        self._line.extend(text)

    def cards(self, pile, n: int) -> None:
        """A card list: the first ``n`` cards of ``pile`` (top last), written top first."""
        line = self._line
        line.append(91)  # [
        i = n - 1
        while i >= 0:
            card_into(line, pile[i])
            if i:
                line.append(44)
            i -= 1
        line.append(93)  # ]

    def match_end(self, winner: int, wins, points, why) -> None:
        """The match's end (phases.Phases): winner, score, R15 points (None: off), why."""
        n = len(wins)
        self.begin(EV_MATCH_END, NO_T, winner)
        self.player(b',"winner":', winner)
        self.numbers(b',"score":', wins, n)
        if points is not None:
            self.numbers(b',"points":', points, n)
        if why:
            self.word(b',"why":', why)
        late_into(self._line, self.late_of)
        self.end()

    def end(self) -> None:
        """Finish the line: the waiting key entries ride on it (a match_end always says
        ``keys_total``). Their text and the closing brace are written later (``_close``:
        before the next line, the next key event or the drain), off the press's path."""
        self._count += 1
        self._open = True

    def _write_keys(self) -> None:
        """The noted key events' text after the waiting entries (``key`` saw to the room)."""
        keys = self._keys
        ts = self._key_t
        ks = self._key_key
        downs = self._key_down
        subs = self._key_sub
        for i in range(self._keys_noted):
            key_into(keys, ts[i], ks[i], downs[i], subs[i])
        self._keys_noted = 0

    def _close(self) -> None:
        """Write the ended line's tail: the waiting key entries and ``}``."""
        self._open = False
        if self._keys_noted:
            self._write_keys()
        line = self._line
        if len(self._keys) or self._kind == EV_MATCH_END:
            keys_into(line, self._keys, self.keys_total, self._keys_field)
        line.append(125)  # }

    # ---- the way out ----

    def drain_into(self, sink) -> int:
        """Hand every finished line to ``sink`` (a bytearray, no newline); returns how many."""
        if self._open:
            self._close()
        count = self._count
        pool = self._pool
        for i in range(count):
            sink(pool[i])
        self._count = 0
        return count

    def drain(self, write) -> int:
        """Host form of ``drain_into``: each line as a str."""
        return self.drain_into(lambda line: write(bytes(line).decode()))

    def take_notes(self) -> int:
        """How many events are noted (read note_*[0 .. n-1]); the next pass starts afresh."""
        n = self.notes
        self.notes = 0
        return n

    def observe(self, observer) -> int:
        """Show each noted event to ``observer(kind, p, why, t, now)`` (as
        ``matchlog.MatchLog.observe``); returns how many."""
        n = self.take_notes()
        for i in range(n):
            observer(
                self.note_kind[i],
                self.note_p[i],
                self.note_arg[i],
                self.note_t[i],
                self.note_now[i],
            )
        return n

    def may_wait(self) -> bool:
        """May the finished lines wait a pass? No: the pool holds one (it goes every pass)."""
        return False
