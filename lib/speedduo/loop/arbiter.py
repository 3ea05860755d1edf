"""The arbiter: key events become plays in the order they happened (docs/rules.md R4, R8, R13).

Every loop pass ``service(now_ticks)`` drains the ``keypad`` event queue into
preallocated arrays, orders the presses by their scan timestamp (wrap-safe
``speedduo.vocab.ticks`` arithmetic on the 2**29 ms clock) and applies them to the
match in that order, letting the match's clock catch up before each one.
Events stamped with the current millisecond wait for the next pass: two scans
can share a millisecond (1024 ticks a second), and a tie must see them all. With
``scans`` (the board's keypad read as it is: no opponent in front of it) they wait
only in the 24 milliseconds of each 1,000 that two ticks share (``one_tick_ms``):
the keypad scans at most once a tick, from the tick interrupt, stamping the
tick's ``ticks_ms()`` and queueing all its events at once, so once a loop pass
has read events of a single-tick millisecond, no other scan will stamp it
(docs/device.md, "Timing"). The instants are the same; only the wait is shorter.

Presses with the same timestamp are a tie. Their destination piles are settled
on the state they all saw; two players aiming at the same pile conflict, and
the conflict goes to the player whose turn it is to win a tie: ties alternate
(the first is drawn from the seed and written in the log's ``match`` line), so
over time neither player nor any key is favoured, and a replay reproduces it.
Both players' last cards in one tie end the hand as a photo finish (R13).

Bounce: ``debounce_threshold=1`` keeps each press's timestamp at the first
scan that saw the contact close; the chatter after it is dropped here: a press
of a key less than ``REBOUNCE_MS`` after that key's release is bounce.

Key numbers: player p's row ``L 1 2 3 4 5 R`` is keys ``7p .. 7p+6``.

One arbiter for every game: reading the queue, the overflow, the tick wrap, the
instants in time order, rebounce, which keys are down, and the match's clock
catching up are written here once. Each instant's key events that count go to
the match in its ``group_key``/``group_down`` arrays through its one method
``step_group(t, n)`` (every game's: ``phases.Phases``, its core's settings, aims
and presses, and the ties, R4, R8, R13).

The two logs' key records differ, and each stays as it was (``KEYS_PAIRED``, a
match's class attribute). Classic Speed's (``keylog.KeyRecorder``) holds every
event as read, so there a release of a key not down still starts its rebounce
window and an instant of chatter alone still reaches the match (R17: any key
keeps it awake). Version 2's is written at the instant and pairs each key's
press and release: a release of a key not down is dropped, an instant with
nothing recorded is not handed over, and an instant the match's clock has
already passed goes to the millisecond after it (the record never runs back).
In both, a press of a key already down (its release was lost) follows a release
of it at the same instant, and chatter does not reach the match.

Who was first, to the microsecond (issue 19, docs/rules.md "Who was first"): with a
source that stamps every edge in µs (``micro``: the PIO's edge stamps, ``edges.py``)
an event also says its µs past the millisecond (``sub_us``), and an instant is one
µs: of two presses for one pile in the same millisecond the earlier is applied
first and wins; a tie is only the same µs. The match's clock stays in ms (the
instants of one ms are handed over one after another, each at that ms), rebounce
too; the instant's µs is the match's ``group_sub`` while it is handed over (the key
record writes it).

The head start (docs/rules.md H1, issue 30; the match's rules ``head_start_p1_ms`` and
``head_start_p2_ms``): player p's events count as if made ``lead`` ms earlier; the batch
orders every event by its stamp less its player's lead (``keybatch.py``) and the match
is given those adjusted times. So that a press is never applied before a press of the
other player that could still come and be earlier in adjusted time, and never counts
before what it answers could be seen, the match's clock lags the keys' clock by the
largest lead (``lag``): instants are complete before ``now - lag``, the clock catches up
to ``now - 1 - lag``, and the screens (and the opponent, and the bots) show the table of
``now - lag``. With both leads 0 nothing of this changes what happens.

The board's opponent (``watcher``: ``opponent.Opponent``) looks at the table at moments
that do not depend on the loop's passes: before every change (an instant, or what the
match's clock runs out: ``next_due``) it is asked to look (``look_at``), and after it
is told (``changed``), so the same presses give the same match on every machine.
"""

from array import array

from micropython import const  # on the host, Blinka provides this module

from speedduo.game.rules import head_starts
from speedduo.loop.keybatch import BATCH, KeyBatch
from speedduo.vocab.codes import OVER
from speedduo.vocab.ticks import one_tick_ms, ticks_diff

try:
    from typing import Any  # noqa: F401  (type comments only; the board has no typing)
except ImportError:
    pass

KEY_NAMES = "L12345R"
# A press this soon after the same key's release is chatter: longer than the
# worst chatter the simulator makes (20 ms; real tact switches 0.1-5 ms), far
# shorter than a finger can lift and press again. A first press never waits.
REBOUNCE_MS = const(25)
_LATEST = const(0x3FFFFFFF)  # later than any match time: with µs stamps nothing waits


class Arbiter:
    """Turns keypad events into plays, target switches and claims, in time order."""

    def __init__(
        self, events, match, start_ticks: int, event, micro: bool = False, scans: bool = False
    ) -> None:
        """``events``: a keypad.EventQueue (or what reads one: keylog.KeyRecorder);
        ``event``: a keypad.Event to read into, made by the board glue (board_io);
        ``micro``: the events carry ``sub_us``; ``scans``: they are one keypad's scans as
        it queued them, stamped with ``ticks_ms()`` (the module docstring)."""
        self.events = events
        self.match = match
        self.start_ticks = start_ticks  # ticks_ms at the match's time 0
        self._event = event
        self.batch = KeyBatch(micro)
        lead0, lead1 = head_starts(getattr(match, "rules", None))  # H1 (the docstring)
        self.batch.lead[0] = lead0
        self.batch.lead[1] = lead1
        self.lag = lead0 if lead0 > lead1 else lead1  # the match's clock behind the keys'
        self._match_time = self.match_time  # made once (making a bound method allocates)
        self._held = match.held  # 1: the key is down (the match reads it: V5's claim)
        self._keys = len(match.held)  # keys past the players' rows are not the match's
        self._released_at = array("i", [-REBOUNCE_MS] * self._keys)
        self._paired = match.KEYS_PAIRED  # the key record's kind (above)
        self.moved_to = -1  # the match time the match's clock has been moved on to
        self._micro = micro
        self._scans = scans and not micro
        self._instant_at = -1  # the last instant handed over: its stamp's ms, and the ms
        self._instant_t = -1  # it was handed over at
        self.presses = 0  # key-down events seen
        self.applied = 0  # presses applied (not bounce), so the app knows to redraw
        self.bounces = 0  # presses dropped as contact bounce
        self.overflows = 0  # times the keypad queue overflowed
        self.watcher = None  # type: Any  # the board's opponent (the module docstring)

    @property
    def held_back(self) -> int:
        """Events of the current millisecond kept for the next pass."""
        return self.batch.count

    def match_time(self, ticks: int) -> int:
        """A ticks_ms value as milliseconds since the match began."""
        return ticks_diff(ticks, self.start_ticks)

    def service(self, now_ticks: int) -> int:
        """Drain and apply every waiting key event; then let the match catch up. Returns events."""
        events = self.events
        batch = self.batch
        match = self.match
        self.presses += batch.read(events, self._event, self._match_time)
        if events.overflowed and not len(events):
            # The full queue dropped its newest events: note it and play on. The
            # flag is read-only on the board; only clear() resets it, and that
            # empties the queue, so it waits until everything queued is drained.
            events.clear()
            self.overflows += 1
            match.hand.keys_lost()  # classic Speed's hand counts it (R-log), V8/V9: none
        # A scan later in this same millisecond may still add to the newest
        # timestamp's group, so only instants before `now` are complete; with `scans`,
        # `now`'s too when no other tick shares its millisecond and the batch read the
        # queue to its end. (The PIO's edges come in the order of their µs stamps, each
        # instant whole in one of its pairs: every instant read is complete.)
        now = self.match_time(now_ticks)
        count = batch.count
        at = batch.at
        complete = now
        lag = self.lag
        if lag:  # H1: a press not read yet may still be earlier, to ``now - lag``
            complete = now - lag
        elif self._micro:
            complete = _LATEST
        elif self._scans and count < BATCH and one_tick_ms(now_ticks):
            complete = now + 1
        i = 0
        while i < count and at[i] < complete and match.phase != OVER:
            j = batch.group_end(i)
            self._apply_group(i, j)
            i = j
        if match.phase == OVER:
            i = count  # what comes after the match's end is not played
        batch.keep_from(i)  # the rest waits for the next pass
        # things due at `now` wait one pass: a press stamped `now` may still arrive
        self._catch_up(now - 1 - lag)
        return count

    def _catch_up(self, now: int) -> None:
        """The match's clock moves on to ``now`` (countdowns, stalls, R17)."""
        if now > self.moved_to and self.match.phase != OVER:
            self.moved_to = now
            if self.watcher is not None:
                self._watch(now + 1, 0)  # the opponent's look: after all of ms ``now``
            self.match.advance(now)

    def _bounce(self, k: int, now: int) -> bool:
        """A press of key k at ``now``: contact chatter after its release?"""
        if now - self._released_at[k] < REBOUNCE_MS:
            self.bounces += 1
            return True
        return False

    def _apply_group(self, first: int, end: int) -> None:
        """The events sharing one timestamp: one instant of the match (a tie when they
        conflict). Rebounce and the keys down here, the rest is the match's."""
        batch = self.batch
        paired = self._paired
        at = batch.at[first]
        t = at
        if paired:
            if at == self._instant_at and self._micro:  # a µs after the instant before: its ms
                t = self._instant_t
            elif t <= self.moved_to:  # the clock is past it already: the next ms
                t = self.moved_to + 1
        match = self.match
        held = self._held
        keys = match.group_key
        downs = match.group_down
        key = batch.key
        down = batch.down
        n = 0
        presses = 0
        for i in range(first, end):
            k = key[i]
            if k >= self._keys:
                continue
            if down[i]:
                if held[k]:  # its release was lost: one goes first
                    keys[n] = k
                    downs[n] = 0
                    n += 1
                elif self._bounce(k, t):  # contact chatter: not a new press
                    continue
                held[k] = 1
                keys[n] = k
                downs[n] = 1
                n += 1
                presses += 1
            elif held[k] or not paired:
                held[k] = 0
                self._released_at[k] = t
                keys[n] = k
                downs[n] = 0
                n += 1
        if n or not paired:
            if t > self.moved_to:
                self.moved_to = t
            self._instant_at = at
            self._instant_t = t
            sub = 0
            if self._micro:
                sub = match.group_sub = batch.sub[first]
            watcher = self.watcher
            if watcher is not None:
                self._watch(t, sub)
            match.step_group(t, n)
            if watcher is not None:
                watcher.changed(t, sub)
        self.applied += presses

    def _watch(self, t: int, sub: int) -> None:
        """The match's clock runs out what is due before ms ``t``, the opponent looking
        before and told after each; then it looks at ms ``t`` + ``sub`` µs. (What is due
        at ``t`` itself the match runs out with the instant: V8/V9's key record goes
        first.)"""
        match = self.match
        watcher = self.watcher
        due = match.next_due()
        while 0 <= due < t and match.phase != OVER:
            watcher.look_at(due, 0)
            match.advance(due)
            watcher.changed(due, 0)
            after = match.next_due()
            if after == due:  # (nothing more runs out by itself at this moment)
                break
            due = after
        watcher.look_at(t, sub)
