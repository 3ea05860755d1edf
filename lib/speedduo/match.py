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
from speedduo.matchlog import END_ABANDONED, NULL_PLAYER  # noqa: F401  (re-exported)
from speedduo.phases import Phases, first_tie
from speedduo.rules import BEST_OF

COUNTDOWN_MS = const(3000)
RESULT_MS = const(3000)


class Match(Phases):
    """One match of classic Speed: its core.Hand, its log's match line, the first tie."""

    def __init__(
        self, seed: int, rules, best_of: int, log, countdown_ms=COUNTDOWN_MS, result_ms=RESULT_MS
    ):
        if best_of not in BEST_OF:
            raise ValueError("best_of must be 3, 5 or 7")
        Phases.__init__(self, Hand(rules, log), rules, seed, countdown_ms, result_ms)
        self._score(2, best_of, log)
        # ties between players take turns (Hand.take_tie_turn); the first from the seed
        self.tie_first = first_tie(seed, 2)
        self.hand.tie_next = self.tie_first
        log.header = (seed, rules, best_of, self.tie_first)
        log.match = self  # (its observe tells each record's match time)
        log.put_match()
