"""Bots: the board's opponent brain (``speedduo.loop.opponent.Brain``) pressing
the simulated buttons.

The decisions, levels, reaction times and seeded draws are the board's own
(lib/speedduo/loop/opponent.py); only the pressing differs: a bot closes and opens a
key contact on the simulated keypad (``host_sim.buttons``, with bounce when
asked), so every bot press goes through the scan, the timestamp and the
arbiter like a human's, and either player (or both) can be a bot. Levels:
easy, medium, hard and perfect (0 ms, the simulator's). Runs under CPython
and MicroPython.

The other games' bots (V8-V10) are the board's opponent code as it is
(``speedduo.loop.game_opponent.GameBot``): the runner (``runner.GameSimulation``) puts
their key events straight into the keypad queue, on its millisecond clock.
"""

from speedduo.loop.game_opponent import GameBot  # noqa: F401  (the other games' bots: runner.py)
from speedduo.loop.opponent import CLAIM, LEVEL_NAMES, NOTHING, SETTLE_MS, Brain

SETTLE_US = SETTLE_MS * 1000


def level_number(name):
    """A level's number from its name (``LEVEL_NAMES``); ValueError for any other."""
    if name not in LEVEL_NAMES:
        raise ValueError("unknown opponent level %r (%s)" % (name, ", ".join(LEVEL_NAMES)))
    return LEVEL_NAMES.index(name)


class Bot:
    def __init__(self, player, level, rng, buttons, claim_mode=0):
        if level not in ("easy", "medium", "hard", "perfect"):
            raise ValueError("unknown bot level %r (easy, medium, hard, perfect)" % level)
        self.player = player
        self.level = level
        self.brain = Brain(player, level_number(level), rng, claim_mode)
        self.buttons = buttons
        self.pending_us = -1  # when the chosen key will be pressed
        self.pending_slot = 0  # a hand slot, or CLAIM
        self.resume_us = 0  # no new plan before this (its last press is landing)

    def observe(self, now_us, hand):
        """Look at the table; when a card fits and no press is planned, plan one."""
        if self.pending_us >= 0 or hand.over or now_us < self.resume_us:
            return
        choice = self.brain.choose(hand)
        if choice == NOTHING:
            return
        self.pending_slot = choice
        self.pending_us = now_us + self.brain.reaction_us()

    def forget(self):
        """Between hands a bot starts afresh."""
        self.pending_us = -1
        self.resume_us = 0

    def fire(self, now_us):
        """Press the planned key now."""
        hold = self.brain.hold_ms() * 1000
        if self.pending_slot == CLAIM:
            self.buttons.press(self.player, 0, now_us, hold)
            self.buttons.press(self.player, 6, now_us, hold)
        else:
            self.buttons.press(self.player, 1 + self.pending_slot, now_us, hold)
        self.pending_us = -1
        self.resume_us = now_us + hold + SETTLE_US
