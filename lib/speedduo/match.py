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
from speedduo.phases import Phases, first_tie
from speedduo.rules import BEST_OF

COUNTDOWN_MS = const(3000)
RESULT_MS = const(3000)


class Match(Phases):
    """Score, phase and the current hand of one match (the phases: phases.py)."""

    def __init__(
        self, seed: int, rules, best_of: int, log, countdown_ms=COUNTDOWN_MS, result_ms=RESULT_MS
    ):
        if best_of not in BEST_OF:
            raise ValueError("best_of must be 3, 5 or 7")
        Phases.__init__(self, Hand(rules, log), rules, seed, countdown_ms, result_ms)
        self.best_of = best_of
        self.log = log
        self.wins = bytearray(2)  # R14: hands won
        self.points = bytearray(2)  # R15
        self.fastest_ms = [0, 0]  # each player's quickest hand won: its end t (0: none; stats)
        self.winner = NULL_PLAYER
        # ties between players take turns (Hand.take_tie_turn); the first from the seed
        self.tie_first = first_tie(seed, 2)
        self.hand.tie_next = self.tie_first
        log.header = (seed, rules, best_of, self.tie_first)
        log.match = self  # (its observe tells each record's match time)
        log.put_match()

    def finish_hand(self) -> None:
        """Score the hand that just ended (R14, R15) and schedule the next one."""
        hand = self.hand
        winner = hand.winner
        end_now = self.hand_start + hand.end_t
        if winner != NULL_PLAYER:  # R13/R11 ties are replayed and do not count
            self.wins[winner] += 1
            if self.fastest_ms[winner] == 0 or hand.end_t < self.fastest_ms[winner]:
                self.fastest_ms[winner] = hand.end_t
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
