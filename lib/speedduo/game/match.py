"""A match of classic Speed (docs/rules.md R14, R15, R17): ``phases.Phases`` with
``core.Hand`` as its rules core.

Time here is ``now``, milliseconds since the match began, from whatever clock
the caller has (the board's ticks, the simulator's virtual clock). Each hand
starts after a countdown (R3) and the match converts ``now`` into the hand's
own ``t`` for the rules core. ``advance(now)`` moves the phases along and says,
through ``next_due()``, when it next needs to be called; ``step_group`` (every
game's, ``Phases``) takes each instant's keys.
"""

from speedduo.game.core import Hand
from speedduo.game.phases import COUNTDOWN_MS, RESULT_MS, Phases  # noqa: F401  (re-exported)
from speedduo.game.rules import BEST_OF
from speedduo.vocab.codes import (  # noqa: F401  (re-exported)
    COUNTDOWN,
    END_ABANDONED,
    NULL_PLAYER,
    OVER,
    PLAYING,
    RESULT,
)


class Match(Phases):
    """One match of classic Speed: its core.Hand, which reads the keys down (V5's claim
    is L and R held together)."""

    def __init__(self, seed: int, rules, best_of: int, log):
        if best_of not in BEST_OF:
            raise ValueError("best_of must be 3, 5 or 7")
        hand = Hand(rules, log)
        Phases.__init__(self, hand, rules, seed, 2, best_of, log)
        hand.held = self.held
