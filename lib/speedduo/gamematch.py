"""A match of one of the other games (V8 Spit, V9 California Speed, V10 Speed for 3-4
players) and the arbiter that feeds it key events (docs/rules.md R3, R4, R8, R13, R14, R17).

``GameSession`` is what the simulator's runner and the replay both drive:
``step(now, events)`` takes the key events of one millisecond of match time
(``[(key, pressed)]``, player p's ``L 1 2 3 4 5 R`` are keys 7p .. 7p+6) and
does, in this order: everything due before ``now``, the key record, everything
due at ``now``, then the presses. Two drivers that call ``step`` with the same
events write the same log, line for line.

A rules core (``spit.Spit``, ``california.California``, ``speed_n.SpeedN``)
answers, for each press, the resource it aims at (``aim``: a pile, a slap, the
last card) on the state every press of that millisecond saw; presses of
different players aiming at one resource are a tie (R4, R8). Ties take turns
around the table: the first goes to the log's ``tie_first``, each later one to
the first player in the tie at or after the one after the last winner (with two
players: they alternate, as classic Speed's arbiter does).
"""

from micropython import const  # on the host, Blinka provides this module

from speedduo.codes import (
    KEYS_PER_PLAYER,
    NOT_PLAYING,
    OVER,
    PLAYING,
    RESULT,
    TIE_LOST,
    TIE_NONE,
    TIE_WON,
)
from speedduo.gamelog import GameLog
from speedduo.phases import Phases
from speedduo.rng import Rng

COUNTDOWN_MS = const(3000)  # R3
RESULT_MS = const(3000)
NO_PLAYER = const(-1)
_NO_TIME = const(-1)  # no stall pending
CONTINUE = const(-2)  # match_winner(): the match goes on
OUT_BIT = const(1 << 20)  # aim bit of a press that would be its player's last card


class GameMatch(Phases):
    """Score and hands (V8/V9: rounds) of one match of a rules core (phases: phases.py)."""

    def __init__(self, core, seed: int, rules, best_of: int, log) -> None:
        Phases.__init__(self, core, rules, seed, COUNTDOWN_MS, RESULT_MS)
        self.core = core
        self.best_of = best_of
        self.log = log
        n = core.players
        self.wins = [0] * n  # R14 (V8/V9: rounds won)
        self.points = [0] * n  # R15 (V10 with points)
        self.winner = NO_PLAYER
        self.end_why = ""
        draw = Rng(seed ^ 0x15555555)
        self.tie_next = draw.next30() >> 29 if n == 2 else draw.below(n)
        log.header(core.game, n, seed, rules.as_pairs(), best_of, self.tie_next)
        core.log = log

    def _idle_stop(self, now: int) -> None:
        """R17: the hand in play is abandoned without a result and the match stops."""
        if self.phase == PLAYING and not self.core.over:
            self.core.abandon(now - self.hand_start)
        self._end_match(NO_PLAYER, "")

    def finish_hand(self) -> None:
        core = self.core
        winner = core.winner
        if winner != NO_PLAYER:
            self.wins[winner] += 1
            self.points[winner] += 2 if core.swept else 1
        decided = core.match_winner(self.wins, self.best_of, self.hands_played)
        if decided != CONTINUE:
            self._end_match(decided, core.match_why)
            return
        self.phase = RESULT
        self.hand_start += core.end_t + self.result_ms + self.countdown_ms

    def _end_match(self, winner: int, why: str) -> None:
        self.phase = OVER
        self.winner = winner
        fields = [("winner", None if winner == NO_PLAYER else winner), ("score", self.wins)]
        if getattr(self.rules, "points", False):
            fields.append(("points", self.points))
        if why:
            fields.append(("why", why))
        self.log.put("match_end", fields)


class GameSession:
    """Match + arbiter + log: key events in, log lines out (the runner's and the replay's)."""

    def __init__(self, core, seed: int, rules, best_of: int) -> None:
        self.log = GameLog()
        self.match = GameMatch(core, seed, rules, best_of, self.log)
        self.core = core
        self.players = core.players
        self.held = bytearray(KEYS_PER_PLAYER * core.players)
        self.ties = 0

    def step(self, now: int, events) -> None:
        """The key events ``[(key, pressed)]`` stamped ``now`` (match ms), in the order read."""
        match = self.match
        match.advance(now - 1)
        log = self.log
        for key, pressed in events:
            log.key(now, key, pressed)
        match.advance(now)
        if events:
            self._apply(now, events)

    def finish(self) -> None:
        """Let the match run to its end with nobody pressing (R17 stops it at the latest)."""
        match = self.match
        while match.phase != OVER:
            match.advance(match.next_due())

    def _apply(self, now: int, events) -> None:
        match = self.match
        match.pressed(now)  # R17: any key event keeps the match awake
        presses = []
        for key, pressed in events:
            if pressed:
                self.held[key] = 1
                presses.append(key)
            else:
                self.held[key] = 0
        if match.phase != PLAYING or not presses:
            return
        t = now - match.hand_start
        core = self.core
        if t < 0 or core.over:
            return
        n = self.players
        # 1. presses that only change a player's own setting (the target of L/R)
        rest = []
        for key in presses:
            p = key // KEYS_PER_PLAYER
            if not core.setting(p, key - p * KEYS_PER_PLAYER):
                rest.append(key)
        if not rest:
            return
        # 2. what each press aims at, on the state every press of this instant saw
        aims = []
        bits = [0] * n
        for key in rest:
            p = key // KEYS_PER_PLAYER
            aim, aim_bits = core.aim(p, key - p * KEYS_PER_PLAYER)
            aims.append((p, key - p * KEYS_PER_PLAYER, aim, aim_bits))
            bits[p] |= aim_bits
        outs = 0
        for p in range(n):
            if bits[p] & OUT_BIT:
                outs += 1
        if outs > 1 and core.photo_finish_on_tie:  # R13: last cards at one instant
            core.photo_finish(t)
            return
        # 3. a tie: players aiming at one resource; the turn decides who goes first
        contested = 0
        for a in range(n):
            for b in range(a + 1, n):
                if bits[a] & bits[b]:
                    contested |= (1 << a) | (1 << b)
        first = 0
        if contested:
            first = match.tie_next
            while not contested >> first & 1:
                first = (first + 1) % n
            match.tie_next = (first + 1) % n
            self.ties += 1
        for turn in range(n):
            p = (first + turn) % n
            for q, k, aim, aim_bits in aims:
                if q != p:
                    continue
                tie = TIE_NONE
                if contested >> p & 1 and _shared(aim_bits, p, bits):
                    tie = TIE_WON if p == first else TIE_LOST
                if core.press(t, p, k, aim, tie) == NOT_PLAYING:
                    return


def _shared(aim_bits: int, p: int, bits) -> bool:
    """Does this press aim at something another player aims at too?"""
    for q in range(len(bits)):
        if q != p and aim_bits & bits[q]:
            return True
    return False


def tie_word(tie: int):
    """The log's ``tie`` field for a TIE_* value (None: no field)."""
    if tie == TIE_WON:
        return "won"
    if tie == TIE_LOST:
        return "lost"
    return None


class GameCore:
    """What the other games' rules cores (spit.py, california.py, speed_n.py) share: the
    R9 stall countdown (``stall_due``, logged when declared, run out by ``advance``,
    which calls the core's ``_stall_ended(due)``) and the end of a hand or round."""

    def _clear(self, over: bool) -> None:
        """The hand's result and timers as at a deal (``over``: or "no hand yet")."""
        self.stall_due = _NO_TIME
        self.over = over
        self.winner = NO_PLAYER
        self.end_t = 0

    def _declare_stall(self, t: int) -> None:
        """R9 (V8.6, V9.5): nobody can act; the countdown runs out at ``stall_due``."""
        self.stall_due = t + self.rules.stall_countdown_ms
        self.log.put("stall", [("t", t), ("due", self.stall_due)])

    def next_due(self) -> int:
        """The time the core next needs ``advance``; -1 when nothing is pending."""
        return self.stall_due

    def advance(self, t: int) -> None:
        """Let time pass to t: every stall countdown that ran out by t, in order."""
        while not self.over and self.stall_due != _NO_TIME and t >= self.stall_due:
            due = self.stall_due
            self.stall_due = _NO_TIME
            self._stall_ended(due)

    def _stall_ended(self, t: int) -> None:
        raise NotImplementedError

    def _hand_over(self, t: int, winner: int, why: str, left, fields=()) -> None:
        """The hand (round) ends at t: its ``hand_end`` line with ``left`` cards each and
        any further ``fields``."""
        self.over = True
        self.stall_due = _NO_TIME
        self.winner = winner
        self.end_t = t
        line = [
            ("t", t),
            ("winner", None if winner == NO_PLAYER else winner),
            ("why", why),
            ("left", left),
            ("sweep", self.swept),
        ]
        line.extend(fields)
        self.log.put("hand_end", line)
