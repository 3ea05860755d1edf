"""One player against the board: the opponent the board plays itself (issue 10).

``Brain`` is what a player decides: it sees what a player sees (its own hand
slots, both pile tops, who is out) and picks a key and a reaction time.
Reaction times (ms, uniform, from the moment it could see the change to the
key going down), drawn from its own seeded stream (``rng.py``):

    easy      700-1500     medium    450-900
    hard      250-500      perfect   0 (the simulator's; not in the menu)

It picks one of its playable cards at random and commits to the press: if a
pile changes during its reaction time it still presses and loses the race
(R8 ``late``) or misses (``invalid``, R16), as a person would. Each press is
held 60-120 ms; it looks again once its key is up and the press has landed.
Under V5 it claims "Speed!" (L and R together) when it is out, or in the race
form when anyone is out. The simulator's bots (``host_sim/bots.py``) are this
brain pressing the simulated buttons.

``Opponent`` is the board's side: player ``player``'s row (player 1 on the
board) played by a ``Brain``. It stands where the ``keypad.EventQueue`` stands
(``get_into``, ``overflowed``, ``len()``, ``clear()``) and hands on the real
queue's events with the opponent's planned key events merged in, in timestamp
order (same millisecond: key order, as one keypad scan reports them). So its
presses go through the same key record (``keylog.py``) and arbiter as a
human's (R4, R8, ties), and ``replay`` checks the whole match. The physical
buttons of its row are ignored while it plays (not recorded, not played).
Allocation-free once made (bench/mp_heap_lock.py).
"""

from array import array

from micropython import const  # on the host, Blinka provides this module

from speedduo.game.codes import KEY_L, KEY_R, KEYS_PER_PLAYER, PLAYING
from speedduo.game.rng import Rng
from speedduo.game.ticks import ticks_add, ticks_diff
from speedduo.loop.arbiter import REBOUNCE_MS

try:
    from typing import Any  # noqa: F401  (type comments only; the board has no typing)
except ImportError:
    pass

# level numbers: 0 is "no opponent" (two players), as in the menu and SPEED_OPPONENT
LEVEL_NAMES = ("off", "easy", "medium", "hard", "perfect")
# reaction times by level: REACTION_LOW_MS + 0..REACTION_SPREAD_MS (uniform)
REACTION_LOW_MS = (0, 700, 450, 250, 0)
REACTION_SPREAD_MS = (0, 800, 450, 250, 0)
HOLD_MS = const(60)  # a press is held HOLD_MS + 0..HOLD_SPREAD_MS
HOLD_SPREAD_MS = const(60)
SETTLE_MS = REBOUNCE_MS + 5  # after the release: past the arbiter's re-bounce guard
CLAIM = const(5)  # a choice: press L and R together (V5)
NOTHING = const(-1)
_PLAN = const(4)  # key events one plan makes at most: L and R down, L and R up


def hold_ms(rng) -> int:
    """How long an opponent's key stays down (every game's), drawn from its ``rng``."""
    return HOLD_MS + rng.below(HOLD_SPREAD_MS + 1)


def opponent_seed(seed, player):
    """The stream of the player's brain, drawn from the match seed (not the deal's stream)."""
    return (seed ^ (0x2AAAAAAA >> player)) & 0x3FFFFFFF


class Brain:
    """Which key player ``player`` presses, and after how long (level: a LEVEL_NAMES index)."""

    def __init__(self, player, level, rng, claim_mode=0) -> None:
        if not 1 <= level < len(LEVEL_NAMES):
            raise ValueError("opponent level must be 1..%d" % (len(LEVEL_NAMES) - 1))
        self.player = player
        self.level = level
        self.rng = rng
        self.claim_mode = claim_mode  # 0 off, 1 simple, 2 race (V5)

    def choose(self, hand) -> int:
        """What to press on this table: a hand slot 0-4, CLAIM, or NOTHING (no card fits).
        It sees what its player sees: its own hand slots, both pile tops, who is out."""
        p = self.player
        claim = self.claim_mode
        if claim and (hand.is_out(p) or (claim == 2 and hand.is_out(1 - p))):
            return CLAIM  # V5
        mask = hand.playable_mask(p)  # bit s: slot s's card may be played (R5)
        if not mask:
            return NOTHING
        playable = 0
        for slot in range(5):
            playable += (mask >> slot) & 1
        pick = self.rng.below(playable)  # the pick-th playable slot, lowest first
        slot = 0
        while pick or not (mask >> slot) & 1:
            pick -= (mask >> slot) & 1
            slot += 1
        return slot

    def reaction_us(self) -> int:
        """The time from seeing the table to the key going down, in µs."""
        spread = REACTION_SPREAD_MS[self.level]
        if not spread:
            return REACTION_LOW_MS[self.level] * 1000
        ms = REACTION_LOW_MS[self.level] + self.rng.below(spread + 1)
        return ms * 1000 + self.rng.below(1000)

    def hold_ms(self) -> int:
        """How long the key stays down."""
        return hold_ms(self.rng)


class KeyEvent:
    """What the arbiter reads of a key event; writable (keypad.Event is read-only on the board)."""

    def __init__(self) -> None:
        self.key_number = 0
        self.pressed = False
        self.timestamp = 0
        self.sub_us = 0  # µs past ``timestamp`` (a µs source's events; the plan's: 0)


class Opponent:
    """The keypad's event queue with the board's opponent playing player ``player``'s row
    (every game's: ``game_opponent.GameOpponent`` plans with its own bot, ``_plan``).

    ``join(events, match, start_ticks)`` puts it in front of the real queue;
    the App calls ``look(now_ticks)`` at the start of every loop pass (before the
    arbiter reads the keys): the opponent looks at the table and may plan a
    press, and its key events stamped before ``now_ticks`` become due. An event
    is handed on only once every scan of its millisecond is in the real queue
    (``now_ticks`` is later), and a real event later than it waits for it (a
    scan during the pass may stamp one), so the merge is in the order the scans
    happened and the key record's time never runs backwards.
    The arbiter must read into ``event`` (a ``KeyEvent``: the App sees to it).
    """

    def __init__(self, level, seed, claim_mode=0, player=1) -> None:
        self._setup(player)
        self.brain = Brain(player, level, Rng(opponent_seed(seed, player)), claim_mode)

    def _setup(self, player) -> None:
        """What every game's opponent holds: the merge and the plan's key events."""
        self.player = player
        self.event = KeyEvent()  # the arbiter reads every event through this one
        self._real = None  # type: Any  # a keypad.Event: the real queue's next event, read ahead
        self._has_real = False
        self._t = array("i", [0] * _PLAN)  # the plan's key events: match time, key, down
        self._key = bytearray(_PLAN)
        self._down = bytearray(_PLAN)
        self._n = 0
        self._i = 0  # the next of them to hand on
        self._hand_no = 0  # the hand the plan was made in
        self._resume = 0  # no new plan before this match time (a game's bot: always 0)
        self._now = 0
        self.events = None  # type: Any  # the real keypad.EventQueue
        self.match = None  # type: Any
        self.start_ticks = 0
        self.micro = False  # the real events carry ``sub_us`` (a µs source: App sets it)
        self.presses = 0  # presses it made
        self.ignored = 0  # physical presses of its row, dropped

    def join(self, events, match, start_ticks: int, real_event):
        """Stand in front of the real queue ``events`` for one match; returns itself.
        ``real_event``: a keypad.Event to read the real queue into (the board glue's)."""
        self.events = events
        self._real = real_event
        self.match = match
        self.start_ticks = start_ticks
        self._n = 0
        self._i = 0
        self._resume = 0
        self._has_real = False
        return self

    def look(self, now_ticks: int) -> None:
        """The start of a loop pass: the time now, and a look at the table (every game's
        rules core: ``hand``, ``over``, ``hand_no``); a plan is ``_plan``'s."""
        now = ticks_diff(now_ticks, self.start_ticks)
        self._now = now
        match = self.match
        hand = match.hand
        playing = match.phase == PLAYING and not hand.over
        if self._n:
            # a press whose key is not down yet is dropped when its hand ends
            same_hand = playing and hand.hand_no == self._hand_no
            if self._i == 0 and self._t[0] >= now and not same_hand:
                self._n = 0
                self._forget()
            return
        if playing and now >= self._resume:  # (a call less in the passes before it)
            n = self._plan(now, hand)
            if n:
                self._hand_no = hand.hand_no
                self._n = n
                self._i = 0
                self.presses += 1

    def _plan(self, now: int, hand) -> int:
        """Classic Speed's brain looks at the table: a press (or V5's claim) planned as
        key events (``_put``); returns how many (0: none)."""
        brain = self.brain  # (``look`` waited for ``_resume``)
        if not brain.claim_mode and not hand.playable_mask(self.player):
            return 0  # what choose answers (NOTHING, no draw), two calls shorter: most passes
        choice = brain.choose(hand)
        if choice == NOTHING:
            return 0
        at = now + brain.reaction_us() // 1000
        up = at + brain.hold_ms()
        self._resume = up + SETTLE_MS
        if choice == CLAIM:
            self._put(0, at, KEY_L, 1)
            self._put(1, at, KEY_R, 1)
            self._put(2, up, KEY_L, 0)
            self._put(3, up, KEY_R, 0)
            return 4
        self._put(0, at, 1 + choice, 1)
        self._put(1, up, 1 + choice, 0)
        return 2

    def _forget(self) -> None:
        """The plan was dropped (its hand ended before its key went down)."""
        self._resume = 0

    def _put(self, i: int, t: int, key: int, down: int) -> None:
        self._t[i] = t
        self._key[i] = self.player * KEYS_PER_PLAYER + key
        self._down[i] = down

    def get_into(self, event) -> bool:
        """The next key event in time order (a keypad.EventQueue's get_into)."""
        real = self._real
        has_real = self._has_real
        if not has_real:  # read the real queue's next event ahead (_read_real, inlined)
            events = self.events
            base = self.player * KEYS_PER_PLAYER
            while events.get_into(real):
                k = real.key_number
                if base <= k < base + KEYS_PER_PLAYER:  # its own row's: dropped
                    if real.pressed:
                        self.ignored += 1
                    continue
                self._has_real = has_real = True
                break
        i = self._i
        if i < self._n:
            t = self._t[i]
            key = self._key[i]
            real_t = 0
            if has_real:
                real_t = ticks_diff(real.timestamp, self.start_ticks)
            if not has_real or t < real_t or (t == real_t and key < real.key_number):
                if t >= self._now:
                    return False  # its turn, but a scan of ms t may still come: wait
                event.key_number = key
                event.pressed = self._down[i] == 1
                event.timestamp = ticks_add(self.start_ticks, t)
                event.sub_us = 0
                i += 1
                if i == self._n:
                    i = 0
                    self._n = 0
                self._i = i
                return True
            if t == real_t and t >= self._now and self.micro:
                # a real press in the ms of one of its own not due yet: both go together,
                # one instant (the arbiter applies a µs source's instants once read)
                return False
        if has_real:
            event.key_number = real.key_number
            event.pressed = real.pressed
            event.timestamp = real.timestamp
            if self.micro:
                event.sub_us = real.sub_us
            self._has_real = False
            return True
        return False

    def _due(self) -> int:
        due = 0
        for i in range(self._i, self._n):
            if self._t[i] < self._now:
                due += 1
        return due

    @property
    def overflowed(self) -> bool:
        """The real queue's flag (read-only, as on the board: ``clear()`` resets it)."""
        return self.events.overflowed

    def __len__(self) -> int:
        return len(self.events) + (1 if self._has_real else 0) + self._due()

    def clear(self) -> None:
        """Empty the real queue (and what was read ahead of it); the opponent's plan stays."""
        self._has_real = False
        self.events.clear()
