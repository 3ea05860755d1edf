"""Bots: players with a reaction time who press the same buttons a person does.

A bot sees only what a player sees (its own hand slots, both pile tops) and
acts by closing and opening a key contact on the simulated keypad, so every
bot press goes through the scan, the timestamp and the arbiter like a human's.

Reaction times (ms, from the moment the bot could see the change to the
contact closing), uniform over the range, drawn from the bot's own seeded
stream; each press is held for 60-120 ms:

    easy      700-1500     medium    450-900
    hard      250-500      perfect   0 (presses at once)

A bot picks one of its playable cards at random. It commits to the press: if
the pile changes during its reaction time it still presses and loses the race
(R8 ``late``), as a person would. After a press it looks again only once its
key is released and the press has landed (hold + ``SETTLE_US``). Under V5 it claims "Speed!" (L and
R together) when it is out, or in the race form when anyone is out. Runs
under CPython and MicroPython.
"""

LEVELS = {
    "easy": (700, 800),
    "medium": (450, 450),
    "hard": (250, 250),
    "perfect": (0, 0),
}
from speedduo.arbiter import REBOUNCE_MS  # noqa: E402

HOLD_MS = (60, 60)
SETTLE_US = (REBOUNCE_MS + 5) * 1000  # past the arbiter's re-bounce guard after the release
CLAIM = 5  # pending_slot value meaning "press L and R together"


class Bot:
    def __init__(self, player, level, rng, buttons, claim_mode=0):
        if level not in LEVELS:
            raise ValueError("unknown bot level %r (easy, medium, hard, perfect)" % level)
        self.player = player
        self.level = level
        self.rng = rng
        self.buttons = buttons
        self.pending_us = -1  # when the chosen key will be pressed
        self.pending_slot = 0
        self.claim_mode = claim_mode  # 0 off, 1 simple, 2 race (V5)
        self.resume_us = 0  # no new plan before this (its last press is landing)

    def reaction_us(self):
        low, spread = LEVELS[self.level]
        ms = low + (self.rng.below(spread + 1) if spread else 0)
        return ms * 1000 + (self.rng.below(1000) if spread else 0)

    def observe(self, now_us, hand):
        """Look at the table; when a card fits and no press is planned, plan one."""
        if self.pending_us >= 0 or hand.over or now_us < self.resume_us:
            return
        p = self.player
        if self.claim_mode and (hand.is_out(p) or (self.claim_mode == 2 and hand.is_out(1 - p))):
            self.pending_slot = CLAIM
            self.pending_us = now_us + self.reaction_us()
            return
        mask = hand.playable_mask(p)  # bit s: slot s's card fits a pile
        if not mask:
            return
        playable = 0
        for slot in range(5):
            playable += (mask >> slot) & 1
        pick = self.rng.below(playable)  # the pick-th playable slot, lowest first
        slot = 0
        while pick or not (mask >> slot) & 1:
            pick -= (mask >> slot) & 1
            slot += 1
        self.pending_slot = slot
        self.pending_us = now_us + self.reaction_us()

    def forget(self):
        """Between hands a bot starts afresh."""
        self.pending_us = -1
        self.resume_us = 0

    def fire(self, now_us):
        """Press the planned key now."""
        hold = (HOLD_MS[0] + self.rng.below(HOLD_MS[1] + 1)) * 1000
        if self.pending_slot == CLAIM:
            self.buttons.press(self.player, 0, now_us, hold)
            self.buttons.press(self.player, 6, now_us, hold)
        else:
            self.buttons.press(self.player, 1 + self.pending_slot, now_us, hold)
        self.pending_us = -1
        self.resume_us = now_us + hold + SETTLE_US
