"""A match: hands one after another until someone wins it (docs/rules.md R14, R15, R17).

Time here is ``now``, milliseconds since the match began, from whatever clock
the caller has (the board's ticks, the simulator's virtual clock). Each hand
starts after a countdown (R3) and the match converts ``now`` into the hand's
own ``t`` for the rules core. ``advance(now)`` moves the phases along and says,
through ``next_due()``, when it next needs to be called.
"""

from micropython import const  # on the host, Blinka provides this module

from speedduo.game.core import Hand
from speedduo.game.phases import COUNTDOWN_MS, RESULT_MS, Phases  # noqa: F401  (re-exported)
from speedduo.game.rules import BEST_OF, head_starts
from speedduo.vocab.codes import (  # noqa: F401  (COUNTDOWN, OVER, RESULT: re-exported)  # noqa: F401  (re-exported)
    COUNTDOWN,
    END_ABANDONED,
    KEY_L,
    KEY_R,
    KEYS_PER_PLAYER,
    NULL_PLAYER,
    OVER,
    PLAYING,
    RESULT,
)

# Both screens draw centre pile 0 on the left (view.py), so L aims at pile 0 and R at
# pile 1 for both players: "the left / right pile on my screen".
_LEFT_PILE = const(0)
_RIGHT_PILE = const(1)


class Match(Phases):
    """One match of classic Speed: its core.Hand, its log's match line, and what an
    instant's keys do (L/R, claims, slots)."""

    def __init__(self, seed: int, rules, best_of: int, log):
        if best_of not in BEST_OF:
            raise ValueError("best_of must be 3, 5 or 7")
        Phases.__init__(self, Hand(rules, log), rules, seed, 2, best_of, log)
        # ties between players take turns (Hand.take_tie_turn); the first from the seed
        self.hand.tie_next = self.tie_first
        log.header = (seed, rules, best_of, self.tie_first, head_starts(rules))  # (H1's leads)
        log.put_match()

    def step_group(self, now: int, n: int) -> None:
        """One instant from the arbiter (every key event read reaches here, R17): L or R
        alone aims the target pile; pressed while the other is held, a claim (V5); 1-5 a
        slot. What they do together is the core's (``Hand.press_together``)."""
        self.advance(now)
        self.pressed(now)
        if self.phase != PLAYING:
            return
        t = self.hand_time(now)
        if t < 0:
            return
        hand = self.hand
        held = self.held
        key = self.group_key
        down = self.group_down
        claims = 0
        slots0 = 0
        slots1 = 0
        for p in range(2):
            base = p * KEYS_PER_PLAYER
            new_l = 0
            new_r = 0
            for i in range(n):
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
            if (new_l or new_r) and held[base + KEY_L] and held[base + KEY_R]:
                claims |= 1 << p
            elif new_l and not new_r:
                hand.set_target(p, _LEFT_PILE)
            elif new_r and not new_l:
                hand.set_target(p, _RIGHT_PILE)
        if claims or slots0 or slots1:
            hand.press_together(t, claims, slots0, slots1)
            self.advance(now)  # a hand the press ended is scored at its instant (R14)
