"""A match: hands one after another until someone wins it (docs/rules.md R14, R15, R17).

Time here is ``now``, milliseconds since the match began, from whatever clock
the caller has (the board's ticks, the simulator's virtual clock). Each hand
starts after a countdown (R3) and the match converts ``now`` into the hand's
own ``t`` for the rules core. ``advance(now)`` moves the phases along and says,
through ``next_due()``, when it next needs to be called.
"""

from micropython import const  # on the host, Blinka provides this module

from speedduo.codes import COUNTDOWN, OVER, PLAYING, RESULT  # noqa: F401  (re-exported)
from speedduo.core import Hand
from speedduo.matchlog import END_ABANDONED, NULL_PLAYER
from speedduo.rng import Rng
from speedduo.rules import BEST_OF

COUNTDOWN_MS = const(3000)
RESULT_MS = const(3000)


class Match:
    """Score, phase and the current hand of one match."""

    def __init__(
        self, seed: int, rules, best_of: int, log, countdown_ms=COUNTDOWN_MS, result_ms=RESULT_MS
    ):
        if best_of not in BEST_OF:
            raise ValueError("best_of must be 3, 5 or 7")
        self.rules = rules
        self.best_of = best_of
        self.log = log
        self.rng = Rng(seed)
        self.hand = Hand(rules, log)
        self.wins = bytearray(2)  # R14: hands won
        self.points = bytearray(2)  # R15
        self.hands_played = 0
        self.winner = NULL_PLAYER
        self.countdown_ms = countdown_ms
        self.result_ms = result_ms
        self.phase = COUNTDOWN
        self.hand_start = countdown_ms  # `now` of the next/current hand's R3 flip
        self.last_press = 0  # R17
        # ties between players take turns (Hand.take_tie_turn); the first from the seed
        self.tie_first = Rng(seed ^ 0x15555555).next30() >> 29
        self.hand.tie_next = self.tie_first
        log.header = (seed, rules, best_of, self.tie_first)
        log.put_match()

    def hand_time(self, now: int) -> int:
        """The current hand's ``t`` for a match time."""
        return now - self.hand_start

    def next_due(self) -> int:
        """The next match time at which ``advance`` has work to do (-1: never)."""
        if self.phase == OVER:
            return -1
        idle = self.idle_at()
        if self.phase == PLAYING:
            due = self.hand.next_due()
            if due >= 0:
                due += self.hand_start
                return due if due < idle else idle
            return idle
        due = self.hand_start if self.phase == COUNTDOWN else self.hand_start - self.countdown_ms
        return due if due < idle else idle

    def idle_at(self) -> int:
        """R17: when the match stops idle: ``idle_ms`` after the last press or after the
        current (or next) hand's start signal, whichever is later, so every hand can be
        played for at least ``idle_ms`` (no countdown or result counts as idle)."""
        start = self.hand_start if self.hand_start > self.last_press else self.last_press
        return start + self.rules.idle_ms

    def pressed(self, now: int) -> None:
        """Any button, pressed or released, keeps the device awake (R17)."""
        if now > self.last_press:
            self.last_press = now

    def advance(self, now: int) -> None:
        """Move the match along to ``now``: countdowns, stall flips, hand ends, R17.

        However far ``now`` jumps, things happen in time order: what was due
        before the R17 idle instant happens first, then the idle stop.
        """
        while True:
            idle_at = self.idle_at()
            if now < idle_at:
                self._advance_to(now)
                return
            self._advance_to(idle_at - 1)
            if self.phase == OVER:
                return
            if self.idle_at() == idle_at:  # (a new hand on the way moves the idle instant)
                self._idle_stop(idle_at)  # R17
                return

    def _advance_to(self, now: int) -> None:
        """Countdowns, stall flips and hand ends due by ``now`` (no R17)."""
        while self.phase != OVER:
            if self.phase == COUNTDOWN:
                if now < self.hand_start:
                    return
                self.hands_played += 1
                self.phase = PLAYING
                self.hand.deal(self.rng, self.hands_played)
            elif self.phase == PLAYING:
                self.hand.advance(now - self.hand_start)
                if not self.hand.over:
                    return
                self.finish_hand()
            elif self.phase == RESULT:
                if now < self.hand_start - self.countdown_ms:
                    return
                self.phase = COUNTDOWN

    def finish_hand(self) -> None:
        """Score the hand that just ended (R14, R15) and schedule the next one."""
        hand = self.hand
        winner = hand.winner
        end_now = self.hand_start + hand.end_t
        if winner != NULL_PLAYER:  # R13/R11 ties are replayed and do not count
            self.wins[winner] += 1
            self.points[winner] += 2 if hand.swept else 1
            if self.wins[winner] * 2 > self.best_of:
                self._end_match(winner)
                return
        self.phase = RESULT
        self.hand_start = end_now + self.result_ms + self.countdown_ms

    def _idle_stop(self, now: int) -> None:
        """R17: the hand is abandoned without a result and the match stops."""
        if self.phase == PLAYING and not self.hand.over:
            self.hand.abandon(now - self.hand_start, END_ABANDONED)
        self._end_match(NULL_PLAYER)

    def _end_match(self, winner: int) -> None:
        self.phase = OVER
        self.winner = winner
        self.log.put_match_end(
            winner, self.wins[0], self.wins[1], self.points if self.rules.points else None
        )
