"""A match around its hands, for any rules core (docs/rules.md R3, R4, R8, R13-R15, R17).

Countdown (R3), the hand in play, the result on screen, the next countdown,
and R17's idle stop, all on ``now``, milliseconds since the match began; the
score (R14, R15) and the match's end; and each instant of key events, with its
ties (``step_group``). One match for every game: ``match.Match`` (classic Speed)
and ``gamematch.GameMatch`` (the other games) only build its rules core. The
rules core answers ``game``, ``players``, ``deal``, ``advance``, ``next_due``,
``over``, ``winner``, ``swept``, ``end_t``, ``abandon(t)``,
``match_winner(wins, best_of, hands)`` (CONTINUE: play on; ``match_why``: the
log's reason), ``photo_finish_on_tie`` and ``photo_finish(t)`` (R13), and for
each press ``setting(p, key)``, ``aim(p, key)`` and ``press(t, p, key, pile,
tie)`` (``step_group``); the log answers ``header(...)``, ``key(...)`` (a paired
key record only: ``KEYS_PAIRED``) and ``match_end(winner, wins, points, why)``.

One instant (``step_group(now, n)``): the first ``n`` key events of one millisecond
(or µs) of match time in ``group_key``/``group_down`` (player p's ``L 1 2 3 4 5 R``
are keys 7p .. 7p+6). Presses that only change a player's own setting go first
(classic Speed's target pile); then the rules core answers, for each other press,
the resource it aims at (``aim``: a pile, a claim, a slap, the last card, packed in
one int by ``aim_word``) on the state every press of that instant saw; presses of
different players aiming at one resource are a tie (R4, R8). Ties take turns
around the table: the first goes to the log's ``tie_first``, each later one to the
first player in the tie at or after the one after the last winner (with two
players: they alternate). The board's arbiter (arbiter.py) fills the arrays: no
list, no tuple, nothing allocated.
"""

from array import array

try:
    from typing import Any  # noqa: F401  (type comments only; the board has no typing)
except ImportError:
    pass

from micropython import const  # on the host, Blinka provides this module

from speedduo.game.rng import Rng
from speedduo.game.rules import head_starts
from speedduo.vocab import codes  # (the tie words and NOT_PLAYING: one name, not four)
from speedduo.vocab.codes import COUNTDOWN, KEYS_PER_PLAYER, NULL_PLAYER, OVER, PLAYING, RESULT

CONTINUE = const(-2)  # match_winner(): the match goes on
COUNTDOWN_MS = const(3000)  # R3
RESULT_MS = const(3000)  # the hand's result on the screens
_GROUP = const(64)  # key events of one instant the arbiter hands over (keybatch.BATCH)
OUT_BIT = const(1 << 20)  # aim bit of a press that would be its player's last card (R13)
_AIM_SHIFT = const(21)  # aim_word: the pile + 1 above the bits
_BITS_MASK = const((1 << 21) - 1)
_SETTING = const(-1)  # _aims: a press that only changed a setting (or a release)


def aim_word(pile: int, bits: int) -> int:
    """What a rules core's ``aim`` answers: the pile (or slap, or claim) aimed at and the
    conflict bits in one int (0: nothing to aim at)."""
    return (pile + 1) << _AIM_SHIFT | bits


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
    countdown_ms = COUNTDOWN_MS  # R3 (class attributes: a match's dict stays small)
    result_ms = RESULT_MS

    def __init__(self, hand, rules, seed: int, players: int, best_of: int, log) -> None:
        """What every game's match holds: its rules core (``hand``), rules, the deals'
        stream, the phases, the score (R14 hands or rounds won, R15 points, each player's
        quickest hand won: its end t, 0: none, for the stats), its log (``log.match``:
        each event's match time), whose the next tie is (``tie_next``) and the keys."""
        self.hand = hand  # the rules core in play
        self.rules = rules
        self.rng = Rng(seed)  # the deals' stream
        self.hands_played = 0
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
        # the keys down and one instant's key events (the arbiter's and step_group's)
        self.held = bytearray(KEYS_PER_PLAYER * players)
        self.group_key = bytearray(_GROUP)
        self.group_down = bytearray(_GROUP)
        self.group_sub = -1  # the instant's µs past its ms (the arbiter's; -1: a ms source)
        tie_first = first_tie(seed, players)  # the log's; later ties take turns (R4, R8)
        self.tie_next = tie_first  # whose the next tie is (until the first: tie_first)
        self.ties = 0  # ties settled so far
        # an instant's aims: each key's aim_word (_SETTING: none; a key presses at most
        # once in an instant, and its aims are alike), then each player's bits together
        self._aims = array("i", bytes(4 * (KEYS_PER_PLAYER + 1) * players))
        self.log = log
        log.match = self
        log.header(hand.game, players, seed, rules, best_of, tie_first, head_starts(rules))

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

    # ---- one instant of key events (the arbiter's; every game's) ----

    def step_group(self, now: int, n: int) -> None:
        """One instant: everything due before ``now``, the key record (a paired one,
        ``KEYS_PAIRED``: each event at its press's own time, the instant's plus its
        player's H1 lead, ``_lead``; classic Speed's records every event as read,
        keylog.py), everything due at ``now``, the presses, and what they ended (R14: a
        hand a press ended is scored at its instant)."""
        self.advance(now - 1)
        if self.KEYS_PAIRED:
            log = self.log
            keys = self.group_key
            downs = self.group_down
            lead = self._lead  # type: ignore[attr-defined]  # (gamematch.GameMatch's)
            for i in range(n):
                p = keys[i] // KEYS_PER_PLAYER
                log.key(now + lead[p], keys[i], downs[i], self.group_sub)
        self.advance(now)
        if n:
            self.pressed(now)  # R17: any key event keeps the match awake
            if self._apply(now, n):
                self.advance(now)

    def _apply(self, now: int, n: int) -> bool:
        """The presses of one instant, ties settled by turns (R4, R8, R13); True when a
        press reached the rules core."""
        keys = self.group_key
        downs = self.group_down
        aims = self._aims
        presses = 0
        for i in range(n):
            aims[keys[i]] = _SETTING
            if downs[i]:
                presses += 1
        if self.phase != PLAYING or not presses:
            return False
        t = now - self.hand_start
        core = self.hand
        if t < 0 or core.over:
            return False
        players = self.players
        # 1. presses that only change a player's own setting (the target of L/R)
        rest = 0
        for i in range(n):
            if downs[i]:
                k = keys[i]
                p = k // KEYS_PER_PLAYER
                if not core.setting(p, k - p * KEYS_PER_PLAYER):
                    aims[k] = 0
                    rest += 1
        if not rest:
            return False
        # 2. what each press aims at, on the state every press of this instant saw
        bits = players * KEYS_PER_PLAYER  # where each player's bits are, in _aims
        for p in range(players):
            aims[bits + p] = 0
        for i in range(n):
            k = keys[i]
            if downs[i] and aims[k] != _SETTING:
                p = k // KEYS_PER_PLAYER
                aim = core.aim(p, k - p * KEYS_PER_PLAYER)
                aims[k] = aim
                aims[bits + p] |= aim & _BITS_MASK
        outs = 0
        for p in range(players):
            if aims[bits + p] & OUT_BIT:
                outs += 1
        if outs > 1 and core.photo_finish_on_tie:  # R13: last cards at one instant
            core.photo_finish(t)
            return True
        # 3. a tie: players aiming at one resource; the turn decides who goes first
        contested = 0
        for a in range(players):
            for b in range(a + 1, players):
                if aims[bits + a] & aims[bits + b]:
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
                k = keys[i]
                aim = aims[k]
                if not downs[i] or aim == _SETTING or k // KEYS_PER_PLAYER != p:
                    continue
                tie = codes.TIE_NONE
                if contested >> p & 1:  # does it aim at what another player aims at too?
                    for q in range(players):
                        if q != p and aim & _BITS_MASK & aims[bits + q]:
                            tie = codes.TIE_WON if p == first else codes.TIE_LOST
                key = k - p * KEYS_PER_PLAYER
                if core.press(t, p, key, (aim >> _AIM_SHIFT) - 1, tie) == codes.NOT_PLAYING:
                    return True
        return True
