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
board) played by a ``Brain``, its key events merged into the keypad's queue by
``keymerge.KeyMerge`` (as the other games' ``game_opponent.GameOpponent``'s).
"""

from micropython import const  # on the host, Blinka provides this module

from speedduo.codes import KEY_L, KEY_R
from speedduo.keymerge import (  # noqa: F401  (re-exported: KeyEvent)
    LEVEL_NAMES,
    REACTION_LOW_MS,
    REACTION_SPREAD_MS,
    SETTLE_MS,
    KeyEvent,
    KeyMerge,
    hold_ms,
    opponent_seed,
)
from speedduo.rng import Rng
from speedduo.seat import Seat

CLAIM = const(5)  # a choice: press L and R together (V5)
NOTHING = const(-1)


def level_number(name):
    """A level's number from its name (``LEVEL_NAMES``); ValueError for any other."""
    for level in range(len(LEVEL_NAMES)):
        if LEVEL_NAMES[level] == name:
            return level
    raise ValueError("unknown opponent level %r (%s)" % (name, ", ".join(LEVEL_NAMES)))


class Brain:
    """Which key player ``player`` presses, and after how long (level: a LEVEL_NAMES index)."""

    def __init__(self, player, level, rng, claim_mode=0) -> None:
        if not 1 <= level < len(LEVEL_NAMES):
            raise ValueError("opponent level must be 1..%d" % (len(LEVEL_NAMES) - 1))
        self.player = player
        self.level = level
        self.rng = rng
        self.claim_mode = claim_mode  # 0 off, 1 simple, 2 race (V5)
        # what this player sees (made now: making one during play would allocate)
        self.seat = Seat(None, player)

    def choose(self, hand) -> int:
        """What to press on this table: a hand slot 0-4, CLAIM, or NOTHING (no card fits)."""
        seat = self.seat
        if seat.hand is not hand:
            seat.hand = hand  # a new match's table
        if self.claim_mode and (seat.is_out() or (self.claim_mode == 2 and seat.opponent_is_out())):
            return CLAIM  # V5
        mask = seat.playable_mask()  # bit s: slot s's card may be played (R5)
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


class Opponent(KeyMerge):
    """The keypad's event queue with classic Speed's ``Brain`` playing player ``player``'s
    row (``keymerge.KeyMerge``: the merge, ``join``, ``look``)."""

    def __init__(self, level, seed, claim_mode=0, player=1) -> None:
        self._setup(player)
        self.brain = Brain(player, level, Rng(opponent_seed(seed, player)), claim_mode)

    def _plan(self, now: int, hand) -> int:
        """Classic Speed's brain looks at the table: a press (or V5's claim) planned as
        key events (``_put``); returns how many (0: none)."""
        if now < self._resume:
            return 0
        brain = self.brain
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
        self._resume = 0
