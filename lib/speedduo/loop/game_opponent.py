"""The board's opponent in the other games (V8 Spit, V9 California Speed), and the simulator's
bots for them (V10 too): one ``GameBot``.

A bot sees what a player sees (the rules core's ``bot_mask(p)``: the keys that
do something for it now, one bit each), picks one of them from its own seeded stream after
a reaction time of its level (``opponent.py``'s: easy 700-1500 ms, medium
450-900, hard 250-500, the simulator's age6 1100-2200 and age10 770-1530, in whole ms;
``perfect`` reacts in 1 ms, the next millisecond) and commits to it: if the table
changes meanwhile it still presses and may lose the race (R8). It holds the key 60-120 ms
and looks again once the key is up and has settled. The simulator's bots press buttons as it
plans (``host_sim/bots.py``'s ``GameBotPlan``).

``GameOpponent`` is the board's side, as ``opponent.Opponent`` is for classic
Speed (whose merge and look it inherits; its ``_plan`` is the bot's): it stands
in front of the keypad's event queue and hands on the real events with the
bot's planned presses merged in, in timestamp order, so they go through the key
record and the match's arbitration as a human's do (logged, and replayed by ``replay``). It plays
player 1; the physical buttons of that row are ignored while it plays.
"""

from speedduo.game.rng import Rng
from speedduo.loop.opponent import (
    LEVEL_NAMES,
    REACTION_LOW_MS,
    REACTION_SPREAD_MS,
    SETTLE_MS,
    Opponent,
    hold_ms,
    opponent_seed,
)
from speedduo.vocab.codes import KEYS_PER_PLAYER

_KEYS = KEYS_PER_PLAYER


class GameBot:
    """Player ``player`` of a rules core at ``level`` (a LEVEL_NAMES name), drawing from ``rng``."""

    def __init__(self, player, level, rng):
        if level not in LEVEL_NAMES[1:]:
            raise ValueError("unknown bot level %r (%s)" % (level, ", ".join(LEVEL_NAMES[1:])))
        self.player = player
        self.level = level
        self._low = REACTION_LOW_MS[LEVEL_NAMES.index(level)]
        self._spread = REACTION_SPREAD_MS[LEVEL_NAMES.index(level)]
        self.rng = rng
        self.press_at = -1  # match ms of the planned press
        self.key = 0
        self.resume_at = 0  # no new plan before this
        self.down_at = 0  # the last press fired: down and up (match ms)
        self.up_at = 0

    def reaction_ms(self):
        spread = self._spread
        return max(1, self._low + (self.rng.below(spread + 1) if spread else 0))

    def observe(self, now, core):
        """Plan a press when something can be done and nothing is planned."""
        if self.press_at >= 0 or now < self.resume_at or core.over:
            return
        mask = core.bot_mask(self.player)
        if not mask:
            return
        count = 0
        for key in range(_KEYS):
            count += mask >> key & 1
        pick = self.rng.below(count)  # the pick-th of the keys, in key order
        key = 0
        while pick or not mask >> key & 1:
            pick -= mask >> key & 1
            key += 1
        self.key = key
        self.press_at = now + self.reaction_ms()

    def fire(self) -> int:
        """The planned press: its key number (held from ``down_at`` to ``up_at``); the bot
        waits for it to land."""
        hold = hold_ms(self.rng)
        at = self.press_at
        self.press_at = -1
        self.resume_at = at + hold + SETTLE_MS
        self.down_at = at
        self.up_at = at + hold
        return self.player * KEYS_PER_PLAYER + self.key

    def forget(self):
        self.press_at = -1
        self.resume_at = 0


class GameOpponent(Opponent):
    """The keypad's event queue with a ``GameBot`` playing player ``player``'s row.

    ``level``: 1-3 (the menu's EASY, MEDIUM, HARD; LEVEL_NAMES); its stream is drawn
    from the match seed as the simulator's bots' are (``opponent.opponent_seed``).
    ``join(events, match, start_ticks, real_event)`` and ``look(now_ticks)`` are
    ``Opponent``'s (the loop calls ``look`` at the start of every pass, before it reads
    the keys); ``_plan`` and ``_forget`` are the bot's."""

    def __init__(self, level, seed, player=1) -> None:
        self._setup(player)
        self.bot = GameBot(player, LEVEL_NAMES[level], Rng(opponent_seed(seed, player)))
        self._seen_hand = -1

    def _plan(self, w: int, ws: int, core) -> int:
        """The bot looks at the table, as it stood at ms ``w`` + ``ws`` µs: a press
        planned is two key events (the bot's whole-ms reaction, from that moment)."""
        bot = self.bot
        if core.hand_no != self._seen_hand:  # a new round: nothing planned carries over
            self._seen_hand = core.hand_no
            bot.forget()
        bot.observe(w, core)
        if bot.press_at < 0:
            return 0
        key = bot.fire() - self.player * KEYS_PER_PLAYER
        self._press_at(w, ws, (bot.down_at - w) * 1000)
        at = self._t[0]
        sub = self._sub[0]
        up = at + bot.up_at - bot.down_at
        self._resume = bot.resume_at = up + SETTLE_MS
        self._put(0, at, sub, key, 1)
        self._put(1, up, sub, key, 0)
        return 2

    def _forget(self) -> None:
        self._resume = 0
        self.bot.forget()
