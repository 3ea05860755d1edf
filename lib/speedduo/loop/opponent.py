"""One player against the board: the opponent the board plays itself (issue 10).

``Brain`` is what a player decides: it sees what a player sees (its own hand
slots, both pile tops, who is out) and picks a key and a reaction time.
Reaction times (ms, uniform, from the moment it could see the change to the
key going down), drawn from its own seeded stream (``rng.py``):

    easy      700-1500     medium    450-900
    hard      250-500      perfect   0 (the simulator's; not in the menu)
    age6     1100-2200     age10     770-1530 (the simulator's; not in the menu)

``age6`` and ``age10`` stand in for a 6- and a 10-year-old (issue 30's benchmark,
``bench/bench_balance.py``): their means (1650, 1150 ms) are a simple reaction time at
that age plus the time to pick one of five keys, slowed as a child is; their range is
the mean -1/3..+1/3, as the other levels' are. The figures and their sources:
docs/opponent.md.

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
queue's events with the opponent's planned key events merged in, in time
order to the microsecond (with the PIO's µs stamps its presses carry µs too; the
same instant: key order, as one keypad scan reports them). So its presses go
through the same key record (``keylog.py``) and arbiter as a human's (R4, R8,
ties), and ``replay`` checks the whole match. The physical buttons of its row
are ignored while it plays (not recorded, not played).

When it looks does not depend on the loop's passes, so the same presses give the
same match on the board and in the simulator (issue 27): the arbiter tells it of
every change of the table (``changed``: an instant applied, a countdown or stall
run out) and asks it to look before each one (``look_at``). It looks at the table
as it stood at the moment it could first see it (the last change, or the end of
its previous press, whichever is later) and its reaction time counts from then;
a press is never stamped before the pass that plans it (``look``'s time).
Allocation-free once made (bench/mp_heap_lock.py).
"""

from array import array

from micropython import const  # on the host, Blinka provides this module

from speedduo.game.rng import Rng
from speedduo.loop.arbiter import REBOUNCE_MS
from speedduo.vocab.codes import KEY_L, KEY_R, KEYS_PER_PLAYER, PLAYING
from speedduo.vocab.ticks import ticks_add, ticks_diff

try:
    from typing import Any  # noqa: F401  (type comments only; the board has no typing)
except ImportError:
    pass

# level numbers: 0 is "no opponent" (two players), as in the menu and SPEED_OPPONENT
# (0-3 are the menu's; perfect, age6 and age10 are the simulator's)
LEVEL_NAMES = ("off", "easy", "medium", "hard", "perfect", "age6", "age10")
# reaction times by level: REACTION_LOW_MS + 0..REACTION_SPREAD_MS (uniform)
REACTION_LOW_MS = (0, 700, 450, 250, 0, 1100, 770)
REACTION_SPREAD_MS = (0, 800, 450, 250, 0, 1100, 760)
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

    ``join(events, match, start_ticks)`` puts it in front of the real queue. The
    App calls ``look(now_ticks)`` at the start of every loop pass (before the
    arbiter reads the keys): its key events stamped before ``now_ticks`` become
    due. The arbiter calls ``changed(t, sub)`` after every change of the table and
    ``look_at(t, sub)`` before it (match ms and µs past it): the opponent plans
    there, on the table of the moment it could first see it. An event is handed on
    only once every scan of its millisecond is in the real queue (``now_ticks`` is
    later), and a real event later than it waits for it, so the merge is in the
    order the presses happened and the key record's time never runs backwards.
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
        self._t = array("i", [0] * _PLAN)  # the plan's key events: match ms, µs past it,
        self._sub = array("H", [0] * _PLAN)  # key, down
        self._key = bytearray(_PLAN)
        self._down = bytearray(_PLAN)
        self._n = 0
        self._i = 0  # the next of them to hand on
        self._hand_no = 0  # the hand the plan was made in
        self._resume = 0  # no new plan before this match time
        self._changed = 0  # the last change of the table: match ms, µs past it
        self._changed_sub = 0
        self._looked = -1  # the last moment it looked and found nothing to press
        self._looked_sub = 0
        self._now = 0  # match ms of the pass (``look``)
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
        self._changed = 0
        self._changed_sub = 0
        self._looked = -1
        self._has_real = False
        return self

    def look(self, now_ticks: int) -> None:
        """The start of a loop pass: the time now (its events before it become due)."""
        self._now = ticks_diff(now_ticks, self.start_ticks)

    def changed(self, t: int, sub: int) -> None:
        """The table changed at match ms ``t`` + ``sub`` µs (the arbiter: an instant
        applied, or something due by the clock). A press whose key is not down yet is
        dropped when its hand has ended."""
        self._changed = t
        self._changed_sub = sub
        if self._n and self._i == 0:
            match = self.match
            hand = match.hand
            if match.phase != PLAYING or hand.over or hand.hand_no != self._hand_no:
                self._n = 0
                self._forget()

    def look_at(self, t: int, sub: int) -> None:
        """Match ms ``t`` + ``sub`` µs has come, and every change before it is applied:
        if it is free and the table has changed since it last looked, it looks, at the
        moment it could first see this table, and may plan a press (``_plan``)."""
        if self._n:
            return
        w = self._resume  # when it could first see this table: ms, µs
        ws = 0
        if self._changed > w or (self._changed == w and self._changed_sub > 0):
            w = self._changed
            ws = self._changed_sub
        if w > t or (w == t and ws >= sub):
            return  # not yet
        if w < self._looked or (w == self._looked and ws <= self._looked_sub):
            return  # it looked at this table already
        match = self.match
        hand = match.hand
        if match.phase != PLAYING or hand.over:
            return
        self._looked = w
        self._looked_sub = ws
        n = self._plan(w, ws, hand)
        if n:
            self._hand_no = hand.hand_no
            self._n = n
            self._i = 0
            self.presses += 1

    def _press_at(self, w: int, ws: int, reaction_us: int) -> None:
        """The plan's press: ``reaction_us`` after ms ``w`` + ``ws`` µs (at least 1 µs;
        whole ms on a ms source), never before the pass planning it; into ``_t[0]``,
        ``_sub[0]``."""
        if not self.micro:
            ws = 0
            reaction_us = reaction_us // 1000 * 1000
            if reaction_us < 1000:
                reaction_us = 1000
        elif reaction_us < 1:
            reaction_us = 1
        total = ws + reaction_us
        at = w + total // 1000
        sub = total % 1000
        if at <= self._now:  # a pass later than the moment (the board was busy)
            at = self._now + 1
            sub = 0
        self._t[0] = at
        self._sub[0] = sub

    def _plan(self, w: int, ws: int, hand) -> int:
        """Classic Speed's brain looks at the table, as it stood at ms ``w`` + ``ws`` µs: a
        press (or V5's claim) planned as key events (``_put``); returns how many (0: none)."""
        brain = self.brain
        if not brain.claim_mode and not hand.playable_mask(self.player):
            return 0  # what choose answers (NOTHING, no draw), two calls shorter
        choice = brain.choose(hand)
        if choice == NOTHING:
            return 0
        self._press_at(w, ws, brain.reaction_us())
        at = self._t[0]
        sub = self._sub[0]
        up = at + brain.hold_ms()
        self._resume = up + SETTLE_MS
        if choice == CLAIM:
            self._put(0, at, sub, KEY_L, 1)
            self._put(1, at, sub, KEY_R, 1)
            self._put(2, up, sub, KEY_L, 0)
            self._put(3, up, sub, KEY_R, 0)
            return 4
        self._put(0, at, sub, 1 + choice, 1)
        self._put(1, up, sub, 1 + choice, 0)
        return 2

    def _forget(self) -> None:
        """The plan was dropped (its hand ended before its key went down)."""
        self._resume = 0

    def _put(self, i: int, t: int, sub: int, key: int, down: int) -> None:
        self._t[i] = t
        self._sub[i] = sub
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
            sub = self._sub[i]
            first = True
            real_t = real_sub = 0
            if has_real:
                real_t = ticks_diff(real.timestamp, self.start_ticks)
                real_sub = real.sub_us if self.micro else 0
                first = t < real_t or (
                    t == real_t
                    and (sub < real_sub or (sub == real_sub and self._key[i] < real.key_number))
                )
            if first:
                if t >= self._now:
                    return False  # its turn, but a scan of ms t may still come: wait
                event.key_number = self._key[i]
                event.pressed = self._down[i] == 1
                event.timestamp = ticks_add(self.start_ticks, t)
                event.sub_us = sub
                i += 1
                if i == self._n:
                    i = 0
                    self._n = 0
                self._i = i
                return True
            if t == real_t and sub == real_sub and t >= self._now and self.micro:
                # a real press at the µs of one of its own not due yet: one instant, so
                # both go together (the arbiter applies a µs source's instants once read)
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
