"""A match of one of the other games (V8 Spit, V9 California Speed, V10 Speed for 3-4
players) and its arbitration of one instant's key events (docs/rules.md R3, R4, R8, R13,
R14, R17).

``GameMatch.step_group(now, n)`` takes the first ``n`` key events of one millisecond
of match time from its ``group_key``/``group_down`` arrays (player p's
``L 1 2 3 4 5 R`` are keys 7p .. 7p+6) and does, in this order: everything due
before ``now``, the key record, everything due at ``now``, then the presses. The
board's arbiter (arbiter.py, every game's) fills the arrays: no list, no tuple,
nothing allocated. ``GameSession`` is the host's form (the simulator's runner,
the replay): ``step(now, [(key, pressed)])`` fills the same arrays, so two drivers
with the same events write the same log, line for line.

A rules core (``spit.Spit``, ``california.California``, ``speed_n.SpeedN``)
answers, for each press, the resource it aims at (``aim``: a pile, a slap, the
last card, packed in one int by ``aim_word``) on the state every press of that
millisecond saw; presses of
different players aiming at one resource are a tie (R4, R8). Ties take turns
around the table: the first goes to the log's ``tie_first``, each later one to
the first player in the tie at or after the one after the last winner (with two
players: they alternate, as classic Speed's arbiter does).
"""

from array import array

from micropython import const  # on the host, Blinka provides this module

from speedduo.game.phases import CONTINUE, Phases, StallCountdown  # noqa: F401
from speedduo.game.rules import head_starts
from speedduo.vocab.codes import (
    END_OUT,
    EV_HAND_END,
    EV_STALL,
    KEYS_PER_PLAYER,
    NOT_PLAYING,
    NULL_PLAYER,
    OVER,
    PLAYING,
    TIE_LOST,
    TIE_NONE,
    TIE_WON,
)

_NO_TIME = const(-1)  # no stall pending
OUT_BIT = const(1 << 20)  # aim bit of a press that would be its player's last card
_AIM_SHIFT = const(21)  # aim_word: the pile + 1 above the bits
_BITS_MASK = const((1 << 21) - 1)
_GROUP = const(64)  # key events of one instant the board hands over at most (keybatch.BATCH)
_MAX_PLAYERS = const(4)
_SETTING = const(-1)  # _aims: a press that only changed a setting (or a release)


def aim_word(pile: int, bits: int) -> int:
    """What ``aim`` answers: the pile (or slap) aimed at and the conflict bits in one int
    (0: nothing to aim at)."""
    return (pile + 1) << _AIM_SHIFT | bits


def room(size: int):
    """An empty pile (a bytearray of cards, top last) with room for ``size`` cards: filling
    it up to there, emptying it (``pile[0:] = b""``) and ``take_top`` allocate nothing (a
    list's slice store or ``pop`` may allocate or give the room back)."""
    pile = bytearray(size)
    pile[0:] = b""
    return pile


def take_top(pile) -> int:
    """Remove and return the top (last) card of a pile, keeping its room."""
    n = len(pile) - 1
    card = pile[n]
    pile[n:] = b""
    return card


class GameMatch(Phases):
    """One match of a rules core of the other games (V8/V9: rounds; phases.py is the
    match): its log's match line, the first tie, and each instant's arbitration."""

    KEYS_PAIRED = True  # its log's key record (version 2) pairs presses and releases

    def __init__(self, core, seed: int, rules, best_of: int, log) -> None:
        Phases.__init__(self, core, rules, seed, core.players, best_of, log)
        self.core = core
        self.tie_next = self.tie_first
        self.ties = 0
        self._aims = array("i", [0] * _GROUP)  # each press's aim_word (_SETTING: none)
        self._bits = array("i", [0] * _MAX_PLAYERS)  # each player's aim bits, together
        leads = head_starts(rules)  # H1: the key record's times are the presses' (step_group)
        log.header(core.game, self.players, seed, rules.as_pairs(), best_of, self.tie_next, leads)
        self._lead = array("i", [leads[0], leads[1], 0, 0])  # by player (V10's: none)
        core.log = log

    def step_group(self, now: int, n: int) -> None:
        """One instant (``Phases.step_group``): everything due before ``now``, the key
        record, everything due at ``now``, then the presses."""
        self.advance(now - 1)
        log = self.log
        keys = self.group_key
        downs = self.group_down
        sub = self.group_sub
        lead = self._lead
        for i in range(n):  # (H1: at the press's own time, its lead after the instant's)
            log.key(now + lead[keys[i] // KEYS_PER_PLAYER], keys[i], downs[i], sub)
        self.advance(now)
        if n:
            self._apply(now, n)

    def _apply(self, now: int, n: int) -> None:
        self.pressed(now)  # R17: any key event keeps the match awake
        keys = self.group_key
        downs = self.group_down
        aims = self._aims
        presses = 0
        for i in range(n):
            aims[i] = _SETTING
            if downs[i]:
                presses += 1
        if self.phase != PLAYING or not presses:
            return
        t = now - self.hand_start
        core = self.core
        if t < 0 or core.over:
            return
        players = self.players
        # 1. presses that only change a player's own setting (the target of L/R)
        rest = 0
        for i in range(n):
            if downs[i]:
                p = keys[i] // KEYS_PER_PLAYER
                if not core.setting(p, keys[i] - p * KEYS_PER_PLAYER):
                    aims[i] = 0
                    rest += 1
        if not rest:
            return
        # 2. what each press aims at, on the state every press of this instant saw
        bits = self._bits
        for p in range(players):
            bits[p] = 0
        for i in range(n):
            if aims[i] != _SETTING:
                p = keys[i] // KEYS_PER_PLAYER
                aim = core.aim(p, keys[i] - p * KEYS_PER_PLAYER)
                aims[i] = aim
                bits[p] |= aim & _BITS_MASK
        outs = 0
        for p in range(players):
            if bits[p] & OUT_BIT:
                outs += 1
        if outs > 1 and core.photo_finish_on_tie:  # R13: last cards at one instant
            core.photo_finish(t)
            return
        # 3. a tie: players aiming at one resource; the turn decides who goes first
        contested = 0
        for a in range(players):
            for b in range(a + 1, players):
                if bits[a] & bits[b]:
                    contested |= (1 << a) | (1 << b)
        first = 0
        if contested:
            first = self.tie_next
            while not contested >> first & 1:
                first = (first + 1) % players
            self.tie_next = (first + 1) % players
            self.ties += 1
        for turn in range(players):
            p = (first + turn) % players
            for i in range(n):
                aim = aims[i]
                if aim == _SETTING or keys[i] // KEYS_PER_PLAYER != p:
                    continue
                tie = TIE_NONE
                if contested >> p & 1 and _shared(aim & _BITS_MASK, p, bits, players):
                    tie = TIE_WON if p == first else TIE_LOST
                key = keys[i] - p * KEYS_PER_PLAYER
                if core.press(t, p, key, (aim >> _AIM_SHIFT) - 1, tie) == NOT_PLAYING:
                    return


class GameSession:
    """Match + log: key events in, log lines out (the runner's and the replay's; the
    board's arbiter hands its instants to the match itself)."""

    def __init__(self, core, seed: int, rules, best_of: int, log) -> None:
        """``log``: the match's writer (``gamelog.GameLog``: the rules import no log, the
        caller brings it), its ``micro`` saying whether the key events carry µs."""
        self.log = log
        self.match = GameMatch(core, seed, rules, best_of, self.log)
        self.core = core
        self.players = core.players

    def step(self, now: int, events) -> None:
        """The key events ``[(key, pressed)]`` stamped ``now`` (match ms), in the order read."""
        match = self.match
        n = len(events)
        if n > len(match.group_key):  # (the host's form may hand over more than the board)
            match.group_key = bytearray(n)
            match.group_down = bytearray(n)
            match._aims = array("i", [0] * n)
        for i in range(n):
            key, pressed = events[i]
            match.group_key[i] = key
            match.group_down[i] = 1 if pressed else 0
        match.step_group(now, n)

    def finish(self) -> None:
        """Let the match run to its end with nobody pressing (R17 stops it at the latest)."""
        match = self.match
        while match.phase != OVER:
            match.advance(match.next_due())


def _shared(aim_bits: int, p: int, bits, players: int) -> bool:
    """Does this press aim at something another player aims at too?"""
    for q in range(players):
        if q != p and aim_bits & bits[q]:
            return True
    return False


def tie_field(log, tie: int) -> None:
    """The log's ``tie`` field for a TIE_* value (none for TIE_NONE)."""
    if tie == TIE_WON:
        log.raw(b',"tie":"won"')
    elif tie == TIE_LOST:
        log.raw(b',"tie":"lost"')


def tie_word(tie: int):
    """The log's ``tie`` word for a TIE_* value (None: no field; V10's host form)."""
    if tie == TIE_WON:
        return "won"
    if tie == TIE_LOST:
        return "lost"
    return None


class GameCore(StallCountdown):
    """What the other games' rules cores (spit.py, california.py, speed_n.py) share: the
    R9 stall countdown (phases.StallCountdown, as classic Speed's core.Hand; its line
    here) and the end of a hand or round."""

    def _clear(self, over: bool) -> None:
        """The hand's result and timers as at a deal (``over``: or "no hand yet")."""
        self.stall_due = _NO_TIME
        self.over = over
        self.winner = NULL_PLAYER
        self.end_t = 0

    def _stall_logged(self, t: int, due: int) -> None:
        """R9 (V8.6, V9.5): nobody can act; the countdown runs out at ``due``."""
        log = self.log  # type: ignore[attr-defined]
        log.begin(EV_STALL, t)
        log.number(b',"due":', due)
        log.end()

    def _hand_over(self, t: int, winner: int, why, left) -> None:
        """The hand (round) ends at t: its ``hand_end`` line with ``left`` cards each (a
        list, one per player) and the fields ``_end_fields`` adds."""
        self.over = True
        self.stall_due = _NO_TIME
        self.winner = winner
        self.end_t = t
        log = self.log  # type: ignore[attr-defined]
        log.begin(EV_HAND_END, t, winner, END_OUT if why == b"out" else 0)
        log.player(b',"winner":', winner)
        log.word(b',"why":', why)
        log.numbers(b',"left":', left, len(left))
        log.flag(b',"sweep":', self.swept)  # type: ignore[attr-defined]
        self._end_fields(log)
        log.end()

    def keys_lost(self) -> None:
        """The keypad dropped key events: version 2 has no loss marker (the screens say
        it: App.step, TOO FAST)."""

    def _end_fields(self, log) -> None:
        """A game's own fields on its hand_end line (none by default)."""
