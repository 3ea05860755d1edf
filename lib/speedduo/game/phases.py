"""A match around its hands, for any rules core (docs/rules.md R3, R13-R15, R17).

Countdown (R3), the hand in play, the result on screen, the next countdown,
and R17's idle stop, all on ``now``, milliseconds since the match began; the
score (R14, R15) and the match's end. One match for every game: ``match.Match``
(classic Speed) and ``gamematch.GameMatch`` (the other games) only set it up
(its rules core, its log's first line, the first tie). The rules core answers
``deal``, ``advance``, ``next_due``, ``over``, ``winner``, ``swept``, ``end_t``,
``abandon(t)`` and ``match_winner(wins, best_of, hands)`` (CONTINUE: play on;
``match_why``: the log's reason); the log answers ``match_end(winner, wins,
points, why)``.
"""

try:
    from typing import Any  # noqa: F401  (type comments only; the board has no typing)
except ImportError:
    pass

from micropython import const  # on the host, Blinka provides this module

from speedduo.game.rng import Rng
from speedduo.vocab.codes import COUNTDOWN, KEYS_PER_PLAYER, NULL_PLAYER, OVER, PLAYING, RESULT

CONTINUE = const(-2)  # match_winner(): the match goes on
COUNTDOWN_MS = const(3000)  # R3
RESULT_MS = const(3000)  # the hand's result on the screens
_GROUP = const(64)  # key events of one instant the arbiter hands over (keybatch.BATCH)


def first_tie(seed: int, players: int) -> int:
    """The player the match's first tie goes to (the log's ``tie_first``), drawn from the
    seed; later ties take turns (R4, R8)."""
    draw = Rng(seed ^ 0x15555555)
    return draw.next30() >> 29 if players == 2 else draw.below(players)


class StallCountdown:
    """R9's visible countdown, for every rules core (core.Hand, gamematch.GameCore): declared
    when nobody can act (logged by the core's ``_stall_logged(t, due)``), run out by
    ``advance``, which calls the core's ``_stall_ended(due)``. The core holds
    ``stall_due`` (-1: none pending), ``over`` and ``rules``."""

    stall_due = -1
    over = False
    rules = None  # type: Any

    def _declare_stall(self, t: int) -> None:
        """R9: the countdown starts at t and runs out stall_countdown_ms later."""
        self.stall_due = t + self.rules.stall_countdown_ms
        self._stall_logged(t, self.stall_due)

    def next_due(self) -> int:
        """The time the core next needs ``advance``; -1 when nothing is pending."""
        return self.stall_due

    def advance(self, t: int) -> None:
        """Let time pass to t: every stall countdown that ran out by t, in order."""
        while not self.over and self.stall_due >= 0 and t >= self.stall_due:
            due = self.stall_due
            self.stall_due = -1
            self._stall_ended(due)

    def _stall_logged(self, t: int, due: int) -> None:
        raise NotImplementedError

    def _stall_ended(self, due: int) -> None:
        raise NotImplementedError


class Phases:
    """Countdowns, hands, results, the score and R17, in time order; and the instants of
    key events the arbiter (arbiter.py) hands over. Each game's match answers
    ``step_group(now, n)``: one instant at match time ``now``, the first ``n`` key events
    of ``group_key`` / ``group_down`` (player p's ``L 1 2 3 4 5 R`` are keys 7p .. 7p+6;
    0: released)."""

    KEYS_PAIRED = False  # the key record pairs presses and releases (arbiter.py; V8, V9)

    def __init__(self, hand, rules, seed: int, players: int, best_of: int, log) -> None:
        """What every game's match holds: its rules core (``hand``), rules, the deals'
        stream, the phases, the score (R14 hands or rounds won, R15 points, each player's
        quickest hand won: its end t, 0: none, for the stats), its log (``log.match``:
        each event's match time), the first tie's player (``tie_first``) and the keys."""
        self.hand = hand  # the rules core in play
        self.rules = rules
        self.rng = Rng(seed)  # the deals' stream
        self.hands_played = 0
        self.countdown_ms = COUNTDOWN_MS
        self.result_ms = RESULT_MS
        self.phase = COUNTDOWN
        self.hand_start = COUNTDOWN_MS  # `now` of the next/current hand's R3 flip
        self.last_press = 0  # R17
        self.clock = 0  # the latest ``now`` advance was given (events without a time: log)
        self.winner = NULL_PLAYER
        self.end_why = b""  # the log's reason for the match's end (V8.11, V9.7: max_rounds)
        self.players = players
        self.best_of = best_of
        self.wins = [0] * players
        self.points = [0] * players
        self.fastest_ms = [0] * players
        self.tie_first = first_tie(seed, players)  # later ties take turns (R4, R8)
        # the keys down and one instant's key events (the arbiter's and step_group's)
        self.held = bytearray(KEYS_PER_PLAYER * players)
        self.group_key = bytearray(_GROUP)
        self.group_down = bytearray(_GROUP)
        self.group_sub = -1  # the instant's µs past its ms (the arbiter's; -1: a ms source)
        self.log = log
        log.match = self

    def finish_hand(self) -> None:
        """Score the hand that just ended (R14, R15); schedule the next one or end the match
        (R13/R11 ties are replayed and do not count)."""
        hand = self.hand
        winner = hand.winner
        if winner != NULL_PLAYER:
            self.wins[winner] += 1
            if self.fastest_ms[winner] == 0 or hand.end_t < self.fastest_ms[winner]:
                self.fastest_ms[winner] = hand.end_t
            self.points[winner] += 2 if hand.swept else 1
        decided = hand.match_winner(self.wins, self.best_of, self.hands_played)
        if decided != CONTINUE:
            self._end_match(decided, hand.match_why)
            return
        self.phase = RESULT
        self.hand_start += hand.end_t + self.result_ms + self.countdown_ms

    def _idle_stop(self, now: int) -> None:
        """R17: the hand in play is abandoned without a result and the match stops."""
        if self.phase == PLAYING and not self.hand.over:
            self.hand.abandon(now - self.hand_start)
        self._end_match(NULL_PLAYER, b"")

    def _end_match(self, winner: int, why) -> None:
        self.phase = OVER
        self.winner = winner
        self.end_why = why
        points = self.points if getattr(self.rules, "points", False) else None
        self.log.match_end(winner, self.wins, points, why)

    def hand_time(self, now: int) -> int:
        """The current hand's ``t`` for a match time."""
        return now - self.hand_start

    def next_due(self) -> int:
        """The next match time at which ``advance`` has work to do (-1: never)."""
        if self.phase == OVER:
            return -1
        idle = self.idle_at()
        if self.phase == PLAYING:
            due = self.hand.next_due()
            if due >= 0:
                due += self.hand_start
                return due if due < idle else idle
            return idle
        due = self.hand_start if self.phase == COUNTDOWN else self.hand_start - self.countdown_ms
        return due if due < idle else idle

    def idle_at(self) -> int:
        """R17: when the match stops idle: ``idle_ms`` after the last press or after the
        current (or next) hand's start signal, whichever is later, so every hand can be
        played for at least ``idle_ms`` (no countdown or result counts as idle)."""
        start = self.hand_start if self.hand_start > self.last_press else self.last_press
        return start + self.rules.idle_ms

    def pressed(self, now: int) -> None:
        """Any button, pressed or released, keeps the device awake (R17)."""
        if now > self.last_press:
            self.last_press = now

    def advance(self, now: int) -> None:
        """Move the match along to ``now``: countdowns, stall flips, hand ends, R17.

        However far ``now`` jumps, things happen in time order: what was due
        before the R17 idle instant happens first, then the idle stop.
        """
        self.clock = now
        while True:
            idle_at = self.idle_at()
            if now < idle_at:
                self._advance_to(now)
                return
            self._advance_to(idle_at - 1)
            if self.phase == OVER:
                return
            if self.idle_at() == idle_at:  # (a new hand on the way moves the idle instant)
                self._idle_stop(idle_at)  # R17
                return

    def _advance_to(self, now: int) -> None:
        """Countdowns, stall flips and hand ends due by ``now`` (no R17)."""
        while self.phase != OVER:
            if self.phase == COUNTDOWN:
                if now < self.hand_start:
                    return
                self.hands_played += 1
                self.phase = PLAYING
                self.hand.deal(self.rng, self.hands_played)
            elif self.phase == PLAYING:
                self.hand.advance(now - self.hand_start)
                if not self.hand.over:
                    return
                self.finish_hand()
            elif self.phase == RESULT:
                if now < self.hand_start - self.countdown_ms:
                    return
                self.phase = COUNTDOWN
