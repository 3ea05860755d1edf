"""Bots for the other games (V8 Spit, V9 California Speed, V10 Speed for 3-4 players).

A bot sees what a player sees (the rules core's ``bot_keys(p)``: the keys that
do something for it now), picks one of them from its own seeded stream after
a reaction time of its level (the board opponent's, ``speedduo.opponent``, in
whole ms; ``perfect`` reacts in 1 ms, the next millisecond) and commits to it:
if the table changes meanwhile it still presses and may lose the race (R8).
It holds the key 60-120 ms and looks again once the key is up and has settled.
"""

from speedduo.codes import KEYS_PER_PLAYER
from speedduo.opponent import (
    HOLD_MS,
    HOLD_SPREAD_MS,
    LEVEL_NAMES,
    REACTION_LOW_MS,
    REACTION_SPREAD_MS,
    SETTLE_MS,
)


class GameBot:
    def __init__(self, player, level, rng):
        if level not in LEVEL_NAMES[1:]:
            raise ValueError("unknown bot level %r (easy, medium, hard, perfect)" % level)
        self.player = player
        self.level = level
        self._low = REACTION_LOW_MS[LEVEL_NAMES.index(level)]
        self._spread = REACTION_SPREAD_MS[LEVEL_NAMES.index(level)]
        self.rng = rng
        self.press_at = -1  # match ms of the planned press
        self.key = 0
        self.resume_at = 0  # no new plan before this

    def reaction_ms(self):
        spread = self._spread
        return max(1, self._low + (self.rng.below(spread + 1) if spread else 0))

    def observe(self, now, core):
        """Plan a press when something can be done and nothing is planned."""
        if self.press_at >= 0 or now < self.resume_at or core.over:
            return
        keys = core.bot_keys(self.player)
        if not keys:
            return
        self.key = keys[self.rng.below(len(keys))]
        self.press_at = now + self.reaction_ms()

    def fire(self):
        """The planned press: (key number, down at, up at); the bot waits for it to land."""
        hold = HOLD_MS + self.rng.below(HOLD_SPREAD_MS + 1)
        at = self.press_at
        self.press_at = -1
        self.resume_at = at + hold + SETTLE_MS
        return self.player * KEYS_PER_PLAYER + self.key, at, at + hold

    def forget(self):
        self.press_at = -1
        self.resume_at = 0
