"""The arbiter: key events become plays in the order they happened (docs/rules.md R4, R8, R13).

Every loop pass ``service(now_ticks)`` drains the ``keypad`` event queue into
preallocated arrays, orders the presses by their scan timestamp (wrap-safe
``speedduo.ticks`` arithmetic on the 2**29 ms clock) and applies them to the
match in that order, letting the match's clock catch up before each one.
Events stamped with the current millisecond wait for the next pass: two scans
can share a millisecond (1024 ticks a second), and a tie must see them all.

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
instants in time order and the match's clock catching up are written here once.
What an instant does is the game family's: classic Speed's ``_apply_group``
below; the other games' (V8, V9) ``game_app.GameArbiter._apply_group``, which
hands the instant to their ``gamematch.GameSession``. A subclass may also say
what a lost event means (``_lost``) and how the clock catches up (``_catch_up``).
"""

from array import array

from micropython import const  # on the host, Blinka provides this module

from speedduo.codes import KEY_L, KEY_R, KEYS_PER_PLAYER, OVER, PLAYING  # noqa: F401
from speedduo.keybatch import KeyBatch
from speedduo.ticks import ticks_diff

KEY_NAMES = "L12345R"
# A press this soon after the same key's release is chatter: longer than the
# worst chatter the simulator makes (20 ms; real tact switches 0.1-5 ms), far
# shorter than a finger can lift and press again. A first press never waits.
REBOUNCE_MS = const(25)


# Both screens draw centre pile 0 on the left (view.py), so L aims at pile 0 and R at
# pile 1 for both players: "the left / right pile on my screen".
_LEFT_PILE = const(0)
_RIGHT_PILE = const(1)


class Arbiter:
    """Turns keypad events into plays, target switches and claims, in time order."""

    def __init__(self, events, match, start_ticks: int, event) -> None:
        """``events``: a keypad.EventQueue (or what reads one: keylog.KeyRecorder);
        ``event``: a keypad.Event to read into, made by the board glue (board_io)."""
        self.events = events
        self.match = match
        self.start_ticks = start_ticks  # ticks_ms at the match's time 0
        self._event = event
        self.batch = KeyBatch()
        self._match_time = self.match_time  # made once (making a bound method allocates)
        self._held = bytearray(2 * KEYS_PER_PLAYER)
        self._released_at = array("i", [-REBOUNCE_MS] * (2 * KEYS_PER_PLAYER))
        self.presses = 0  # key-down events seen
        self.applied = 0  # presses applied (not bounce), so the app knows to redraw
        self.bounces = 0  # presses dropped as contact bounce
        self.overflows = 0  # times the keypad queue overflowed

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
        self.presses += batch.read(events, self._event, self._match_time)
        if events.overflowed and not len(events):
            # The full queue dropped its newest events: note it and play on. The
            # flag is read-only on the board; only clear() resets it, and that
            # empties the queue, so it waits until everything queued is drained.
            events.clear()
            self.overflows += 1
            self._lost()
        # A scan later in this same millisecond may still add to the newest
        # timestamp's group, so only instants before `now` are complete.
        now = self.match_time(now_ticks)
        match = self.match
        count = batch.count
        at = batch.at
        i = 0
        while i < count and at[i] < now and match.phase != OVER:
            j = batch.group_end(i)
            self._apply_group(i, j)
            i = j
        if match.phase == OVER:
            i = count  # what comes after the match's end is not played
        batch.keep_from(i)  # the rest waits for the next pass
        # things due at `now` wait one pass: a press stamped `now` may still arrive
        self._catch_up(now - 1)
        return count

    def _lost(self) -> None:
        """The keypad queue dropped events (classic Speed: the hand counts it, R-log)."""
        self.match.hand.keys_lost()

    def _catch_up(self, now: int) -> None:
        """The match's clock moves on to ``now`` (countdowns, stalls, R17)."""
        self.match.advance(now)

    def _bounce(self, k: int, now: int) -> bool:
        """A press of key k at ``now``: contact chatter after its release?"""
        if now - self._released_at[k] < REBOUNCE_MS:
            self.bounces += 1
            return True
        return False

    def _apply_group(self, first: int, end: int) -> None:
        """Apply the events sharing one timestamp: a tie when they conflict."""
        match = self.match
        batch = self.batch
        now = batch.at[first]
        match.advance(now)
        match.pressed(now)
        key = batch.key
        down = batch.down
        # 1. releases and bounce; mark the presses that count
        for i in range(first, end):
            k = key[i]
            if not down[i]:
                self._held[k] = 0
                self._released_at[k] = now
                down[i] = 0
            elif self._bounce(k, now):  # contact chatter: not a new press
                down[i] = 0
            else:
                self._held[k] = 1
                self.applied += 1
        if match.phase != PLAYING:
            return
        t = match.hand_time(now)
        if t < 0:
            return
        hand = match.hand
        # 2. route: L or R alone aims the target pile; pressed while the other is held,
        # a claim (V5); 1-5 a slot. What they do together is the core's (press_together).
        claims = 0
        slots0 = 0
        slots1 = 0
        for p in range(2):
            base = p * KEYS_PER_PLAYER
            new_l = 0
            new_r = 0
            for i in range(first, end):
                if not down[i]:
                    continue
                k = key[i] - base
                if k == KEY_L:
                    new_l = 1
                elif k == KEY_R:
                    new_r = 1
                elif 0 < k < KEY_R:
                    if p:
                        slots1 |= 1 << (k - 1)
                    else:
                        slots0 |= 1 << (k - 1)
            if (new_l or new_r) and self._held[base + KEY_L] and self._held[base + KEY_R]:
                claims |= 1 << p
            elif new_l and not new_r:
                hand.set_target(p, _LEFT_PILE)
            elif new_r and not new_l:
                hand.set_target(p, _RIGHT_PILE)
        if claims or slots0 or slots1:
            hand.press_together(t, claims, slots0, slots1)
