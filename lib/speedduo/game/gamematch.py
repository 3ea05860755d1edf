"""A match of one of the other games (V8 Spit, V9 California Speed, V10 Speed for 3-4
players: classic Speed's ``core.Hand`` with more players): ``phases.Phases`` with their
rules core, and what those cores share.

Every game's instant of key events, and its ties, is ``Phases.step_group``; a rules
core (``spit.Spit``, ``california.California``, classic Speed's ``core.Hand``)
answers ``setting``, ``aim`` (``aim_word``) and ``press`` for it.
``GameSession`` is the host's form (the simulator's runner, the replay):
``step(now, [(key, pressed)])`` fills the match's arrays, so two drivers with the
same events write the same log, line for line.
"""

from array import array

from micropython import const  # on the host, Blinka provides this module

from speedduo.game.phases import (  # noqa: F401  (OUT_BIT, aim_word, CONTINUE: re-exported)
    CONTINUE,
    OUT_BIT,
    Phases,
    StallCountdown,
    aim_word,
)
from speedduo.game.rules import head_starts
from speedduo.vocab.codes import (
    END_OUT,
    EV_HAND_END,
    EV_STALL,
    NULL_PLAYER,
    OVER,
    TIE_LOST,
    TIE_WON,
)

_NO_TIME = const(-1)  # no stall pending


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
    """One match of a rules core of the other games (V8/V9: rounds): phases.py is the
    match; their log (version 2) pairs presses and releases in its key record."""

    KEYS_PAIRED = True  # its log's key record (version 2) pairs presses and releases

    def __init__(self, core, seed: int, rules, best_of: int, log) -> None:
        core.log = log
        Phases.__init__(self, core, rules, seed, core.players, best_of, log)
        self.core = core
        leads = head_starts(rules)  # H1: the key record's times are the presses' (step_group)
        self._lead = array("i", [leads[0], leads[1], 0, 0])  # by player (V10's: none)


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


def tie_field(log, tie: int) -> None:
    """The log's ``tie`` field for a TIE_* value (none for TIE_NONE)."""
    if tie == TIE_WON:
        log.raw(b',"tie":"won"')
    elif tie == TIE_LOST:
        log.raw(b',"tie":"lost"')


class GameCore(StallCountdown):
    """What the other games' rules cores (spit.py, california.py) share: the
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
