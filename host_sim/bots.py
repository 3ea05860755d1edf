"""Bots: the board's opponent plans pressing the simulated buttons, in every game.

A ``Bot`` asks its plan what to press on the table it sees (a mask of its row's keys, L
= bit 0 .. R = bit 6; 0: nothing), after how long (µs) and for how long; it closes and
opens those key contacts on the simulated buttons (``host_sim.buttons``, with bounce when
asked), so every bot press goes through the board's key reader, its stamp and the
arbiter like a human's, and either player (or every player) can be a bot. The plans are
the board's own (their decisions, levels, reaction times and seeded draws):
``BrainPlan``, classic Speed's ``speedduo.loop.opponent.Brain``; ``GameBotPlan``, the
other games' ``speedduo.loop.game_opponent.GameBot`` (V8-V10). Levels: easy, medium,
hard, and the simulator's perfect, age6 and age10 (``LEVEL_NAMES``). Runs under CPython
and MicroPython.
"""

from speedduo.loop.game_opponent import GameBot
from speedduo.loop.opponent import CLAIM, LEVEL_NAMES, NOTHING, SETTLE_MS, Brain, hold_ms

SETTLE_US = SETTLE_MS * 1000
_L_AND_R = 1 | 1 << 6  # V5's claim


def level_number(name):
    """A level's number from its name (``LEVEL_NAMES``); ValueError for any other."""
    if name not in LEVEL_NAMES:
        raise ValueError("unknown opponent level %r (%s)" % (name, ", ".join(LEVEL_NAMES)))
    return LEVEL_NAMES.index(name)


class BrainPlan:
    """Classic Speed's plan: the board opponent's ``Brain`` (a hand slot, or L and R)."""

    def __init__(self, player, level, rng, claim_mode=0):
        self.brain = Brain(player, level_number(level), rng, claim_mode)

    def keys(self, hand):
        choice = self.brain.choose(hand)
        if choice == NOTHING:
            return 0
        if choice == CLAIM:
            return _L_AND_R
        return 1 << (1 + choice)

    def reaction_us(self):
        return self.brain.reaction_us()

    def hold_us(self):
        return self.brain.hold_ms() * 1000


class GameBotPlan:
    """The other games' plan: the board opponent's ``GameBot`` (one key of its row)."""

    def __init__(self, player, level, rng):
        self.bot = GameBot(player, level, rng)
        self._reaction_us = 0

    def keys(self, core):
        bot = self.bot
        bot.forget()
        bot.observe(0, core)  # its reaction: its planned press's time from 0
        if bot.press_at < 0:
            return 0
        self._reaction_us = bot.press_at * 1000
        return 1 << bot.key

    def reaction_us(self):
        return self._reaction_us

    def hold_us(self):
        return hold_ms(self.bot.rng) * 1000


def make_plan(game, players, player, level, rng, rules):
    """Player ``player``'s plan at ``level`` in ``game`` (``players`` of them)."""
    if level not in LEVEL_NAMES[1:]:
        raise ValueError("unknown bot level %r (%s)" % (level, ", ".join(LEVEL_NAMES[1:])))
    if game == "speed" and players == 2:
        return BrainPlan(player, level, rng, rules.claim_mode)
    return GameBotPlan(player, level, rng)


class Bot:
    """Player ``player``'s buttons pressed as ``plan`` says (the module docstring)."""

    def __init__(self, player, plan, buttons, least_us=0):
        """``least_us``: the shortest reaction (1 with the PIO's µs stamps, so a press is
        never stamped with the change it reacts to, as the board opponent's; perfect's is
        0, and the keypad stamps it at a later scan anyway)."""
        self.player = player
        self.least_us = least_us
        self.plan = plan
        self.buttons = buttons
        self.pending_us = -1  # when the chosen keys will be pressed
        self.pending_keys = 0  # ... which (a mask of the row)
        self.resume_us = 0  # no new plan before this (its last press is landing)

    def observe(self, now_us, table):
        """Look at the table (classic Speed's hand, another game's core); when something
        can be pressed and no press is planned, plan one."""
        if self.pending_us >= 0 or table.over or now_us < self.resume_us:
            return
        keys = self.plan.keys(table)
        if not keys:
            return
        self.pending_keys = keys
        self.pending_us = now_us + max(self.least_us, self.plan.reaction_us())

    def forget(self):
        """Between hands a bot starts afresh."""
        self.pending_us = -1
        self.resume_us = 0

    def fire(self, now_us):
        """Press the planned keys now, together."""
        hold = self.plan.hold_us()
        keys = self.pending_keys
        key = 0
        while keys:
            if keys & 1:
                self.buttons.press(self.player, key, now_us, hold)
            keys >>= 1
            key += 1
        self.pending_us = -1
        self.resume_us = now_us + hold + SETTLE_US
