"""Speed for three or four players (docs/rules.md V10): one hand as one state object.

The classic rules (R1-R17) with one centre pile, one side pile, one hand and one
draw pile per player, from one deck (V10.1). Pure Python, no I/O, no clock: every
entry point takes ``t``, ms since the hand's start signal (R3). Piles are lists,
top last; an empty hand slot holds None. Classic two-player Speed stays in
``core.py``; this module serves the simulator's ``--players 3|4``.

Buttons (V10.5): ``1``-``5`` play the card of that hand slot, onto your target
pile when it fits there, else onto the first pile it fits counting on from the
target; ``L``/``R`` move the target one pile down/up (round the table).
"""

from micropython import const  # on the host, Blinka provides this module

from speedduo.game.gamematch import CONTINUE, OUT_BIT, GameCore, aim_word, tie_word
from speedduo.vocab.cards import DECK_SIZE, RANKS, card_name
from speedduo.vocab.codes import (
    EMPTY_SLOT,
    EV_DEAL,
    EV_DRAW,
    EV_FLIP,
    EV_PLAY,
    EV_REDEAL,
    EV_REJECT,
    INVALID,
    KEY_L,
    KEY_R,
    LATE,
    NO_T,
    NOT_PLAYING,
    NULL_PLAYER,
    PLAYED,
)

HAND_SLOTS = const(5)
SIDE_CARDS = const(5)  # V10.1: five side cards each
REDEAL_EACH = const(5)  # R10: at most five per side pile
# V10.1: draw cards each from one deck: 3 players 6 (one card left for the reserve), 4 players 2
DRAW_CARDS = {3: 6, 4: 2}
_NO_TIME = const(-1)


class SpeedN(GameCore):
    """Hands, draw, side and centre piles of n players, the reserve and the timers."""

    game = "speed"
    photo_finish_on_tie = True  # R13

    def __init__(self, rules, players: int) -> None:
        if players not in DRAW_CARDS:
            raise ValueError("V10 plays with 3 or 4 players")
        self.rules = rules
        self.players = players
        self.log = None  # set by GameMatch
        n = players
        self.hand = [[None] * HAND_SLOTS for _ in range(n)]
        self.draw = [[] for _ in range(n)]
        self.side = [[] for _ in range(n)]
        self.centre = [[] for _ in range(n)]
        self.covered = [[] for _ in range(n)]  # when each centre card was covered (R8)
        self.reserve = []
        self.target = list(range(n))
        self._clear(True)
        self.plays_since_redeal = 0
        self.redeals = 0
        self.hand_no = 0
        self.swept = False
        self.match_why = b""
        self._rng = None

    # ---- V10.1: the deal ----

    def deal(self, rng, hand_no: int) -> None:
        """V10.1: shuffle one deck; each player gets, from their part of it, a draw pile, a
        hand of five, a starter and five side cards; what is left is the reserve (R10)."""
        n = self.players
        deck = bytearray(range(DECK_SIZE))
        rng.shuffle(deck, 0, DECK_SIZE)
        self._rng = rng
        self.hand_no = hand_no
        draw = DRAW_CARDS[n]
        each = draw + HAND_SLOTS + 1 + SIDE_CARDS
        for p in range(n):
            part = list(deck[p * each : (p + 1) * each])
            self.draw[p] = part[0:draw]
            self.hand[p] = part[draw : draw + HAND_SLOTS]
            self.centre[p] = [part[draw + HAND_SLOTS]]  # R3: the starters turn at t=0
            self.covered[p] = [0]
            self.side[p] = part[draw + HAND_SLOTS + 1 :]
        self.reserve = list(deck[n * each :])
        self.target = list(range(n))
        self._clear(False)
        self.plays_since_redeal = 0
        self.redeals = 0
        self.swept = False
        _put(
            self.log,
            EV_DEAL,
            [
                ("hand_no", hand_no),
                ("hands", [[card_name(c) for c in self.hand[p]] for p in range(n)]),
                ("draw", [_names(self.draw[p]) for p in range(n)]),
                ("side", [_names(self.side[p]) for p in range(n)]),
                ("piles", [_names(self.centre[p]) for p in range(n)]),
                ("reserve", _names(self.reserve)),
            ],
        )
        self._check_stall(0)

    # ---- what a player sees ----

    def fits(self, card: int, pile: int) -> bool:
        """R5 with R1's ring, V1 and V2, on centre pile ``pile``."""
        a = card >> 2
        b = self.centre[pile][-1] >> 2
        if a == b:
            return self.rules.same_rank
        if self.rules.no_wrap:
            return a - b == 1 or b - a == 1
        return (a - b) % RANKS in (1, RANKS - 1)

    def pile_for(self, p: int, card: int, aim: int = -1) -> int:
        """The aim, else the target, else the first pile it fits after the target; -1."""
        if aim >= 0 and self.fits(card, aim):
            return aim
        n = self.players
        for k in range(n):
            pile = (self.target[p] + k) % n
            if self.fits(card, pile):
                return pile
        return -1

    def can_play(self, p: int) -> bool:
        for card in self.hand[p]:
            if card is not None and self.pile_for(p, card) >= 0:
                return True
        return False

    def cards_left(self, p: int) -> int:
        """Hand + draw pile (R11, R15)."""
        return len(self.draw[p]) + sum(1 for card in self.hand[p] if card is not None)

    def bot_mask(self, p: int) -> int:
        """The keys that play a card for player p now, one bit each (bit k: key k)."""
        if self.over or self.stall_due != _NO_TIME:
            return 0
        mask = 0
        for s in range(HAND_SLOTS):
            if self.hand[p][s] is not None and self.pile_for(p, self.hand[p][s]) >= 0:
                mask |= 2 << s
        return mask

    def bot_keys(self, p: int):
        """``bot_mask`` as a list of keys."""
        mask = self.bot_mask(p)
        return [k for k in range(HAND_SLOTS + 2) if mask >> k & 1]

    # ---- the arbiter's questions ----

    def setting(self, p: int, key: int) -> bool:
        """V10.5: L/R move the target pile one down/up, round the table (not logged)."""
        if key == KEY_L:
            self.target[p] = (self.target[p] - 1) % self.players
            return True
        if key == KEY_R:
            self.target[p] = (self.target[p] + 1) % self.players
            return True
        return False

    def aim(self, p: int, key: int):
        if self.over:
            return 0
        card = self.hand[p][key - 1]
        if card is None:
            return 0
        pile = self.pile_for(p, card)
        if pile < 0:
            return 0
        bits = 1 << pile
        if self.cards_left(p) == 1:
            bits |= OUT_BIT  # R13: a last card
        return aim_word(pile, bits)

    # ---- R4-R8: a play ----

    def press(self, t: int, p: int, key: int, aim: int, tie: int) -> int:
        if self.over:
            return NOT_PLAYING
        s = key - 1
        card = self.hand[p][s]
        if card is None:
            return EMPTY_SLOT
        pile = self.pile_for(p, card, aim)
        word = tie_word(tie)
        if pile < 0:
            late = self._late_pile(t, card)
            fields = [("t", t), ("p", p), ("slot", s), ("card", card_name(card))]
            fields.append(("pile", late if late >= 0 else self.target[p]))
            fields.append(("why", "late" if late >= 0 else "invalid"))
            if word is not None:
                fields.append(("tie", word))
            _put(self.log, EV_REJECT, fields)
            return LATE if late >= 0 else INVALID
        self.covered[pile][-1] = t
        self.centre[pile].append(card)
        self.covered[pile].append(0)
        self.plays_since_redeal += 1
        fields = [("t", t), ("p", p), ("slot", s), ("card", card_name(card)), ("pile", pile)]
        if word is not None:
            fields.append(("tie", word))
        _put(self.log, EV_PLAY, fields)
        if self.draw[p]:  # R7: the emptied slot is refilled at once
            drawn = self.draw[p].pop()
            self.hand[p][s] = drawn
            _put(self.log, EV_DRAW, [("t", t), ("p", p), ("slot", s), ("card", card_name(drawn))])
        else:
            self.hand[p][s] = None
            if self.cards_left(p) == 0:
                self._end(t, p, b"out")  # R12
                return PLAYED
        self._check_stall(t)
        return PLAYED

    def _late_pile(self, t: int, card: int) -> int:
        """R8: the pile whose top changed less than the window ago under a card this one
        fitted; -1: none (the press is invalid)."""
        window = self.rules.race_window_ms
        for pile in range(self.players):
            cards = self.centre[pile]
            covered = self.covered[pile]
            k = len(cards) - 2
            while k >= 0 and t - covered[k] < window:
                if self._fits_card(card, cards[k]):
                    return pile
                k -= 1
        return -1

    def _fits_card(self, card: int, top: int) -> bool:
        a = card >> 2
        b = top >> 2
        if a == b:
            return self.rules.same_rank
        if self.rules.no_wrap:
            return a - b == 1 or b - a == 1
        return (a - b) % RANKS in (1, RANKS - 1)

    def photo_finish(self, t: int) -> None:
        """R13: last cards of two or more players at one instant: the hand is replayed."""
        self._end(t, NULL_PLAYER, b"photo_finish")

    # ---- R9-R11: stalls ----

    def _check_stall(self, t: int) -> None:
        if self.over or self.stall_due != _NO_TIME:
            return
        for p in range(self.players):
            if self.can_play(p):
                return
        self._declare_stall(t)

    def _stall_ended(self, t: int) -> None:
        """R9: every side pile flips; with one empty: R10 redeal, or R11 dead stall."""
        n = self.players
        if all(self.side[p] for p in range(n)):
            for p in range(n):
                self._flip(t, p)
        elif self.redeals and self.plays_since_redeal == 0:
            self._dead_stall(t)  # R11: the cards only go round
            return
        elif not self._redeal(t):
            self._dead_stall(t)  # R11: nothing to redeal
            return
        self._check_stall(t)

    def _flip(self, t: int, p: int) -> None:
        card = self.side[p].pop()
        self.covered[p][-1] = t
        self.centre[p].append(card)
        self.covered[p].append(0)
        _put(self.log, EV_FLIP, [("t", t), ("p", p), ("card", card_name(card)), ("pile", p)])

    def _redeal(self, t: int) -> bool:
        """R10: centre cards under the tops, side piles and reserve, shuffled, dealt in turn
        onto the side piles (player 0 first), at most five each; the rest is the reserve."""
        n = self.players
        gathered = []
        for pile in range(n):
            gathered.extend(self.centre[pile][:-1])
            self.centre[pile] = self.centre[pile][-1:]
            self.covered[pile] = [t]
            gathered.extend(self.side[pile])
            self.side[pile] = []
        gathered.extend(self.reserve)
        if not gathered:
            return False
        cards = bytearray(gathered)
        self._rng.shuffle(cards, 0, len(cards))
        dealt = min(len(cards), n * REDEAL_EACH)
        for k in range(dealt):
            self.side[k % n].append(cards[k])
        self.reserve = list(cards[dealt:])
        self.redeals += 1
        self.plays_since_redeal = 0
        _put(self.log, EV_REDEAL, [("t", t), ("side", [_names(self.side[p]) for p in range(n)])])
        for p in range(n):
            if self.side[p]:  # a side pile that got nothing does not flip
                self._flip(t, p)
        return True

    def _dead_stall(self, t: int) -> None:
        """R11: the fewest cards left wins; a shared fewest replays the hand."""
        left = [self.cards_left(p) for p in range(self.players)]
        fewest = min(left)
        winner = left.index(fewest) if left.count(fewest) == 1 else NULL_PLAYER
        self._end(t, winner, b"dead_stall")

    # ---- R12-R15, R17: the end ----

    def abandon(self, t: int) -> None:
        self._end(t, NULL_PLAYER, b"abandoned")

    def _end(self, t: int, winner: int, why) -> None:
        left = [self.cards_left(p) for p in range(self.players)]
        # R15 (V10.4): a sweep when every other player still holds sweep_cards or more
        self.swept = winner != NULL_PLAYER and all(
            left[q] >= self.rules.sweep_cards for q in range(self.players) if q != winner
        )
        self._hand_over(t, winner, why, left)

    def match_winner(self, wins, best_of: int, hands: int) -> int:
        """R14: the first to win more than half of best_of hands."""
        for p in range(self.players):
            if wins[p] * 2 > best_of:
                return p
        return CONTINUE


def _names(cards):
    """A pile (top last) as the log lists it: top first."""
    names = [card_name(card) for card in cards]
    names.reverse()
    return names


def _put(log, ev: int, fields) -> None:
    """One line of event ``ev`` (codes.EV_*): ``fields`` are (name, value) pairs, written
    compact in that order (host)."""
    log.begin(ev, NO_T)
    for name, value in fields:
        log.raw((',"%s":%s' % (name, _json(value))).encode())
    log.end()


def _json(value) -> str:
    """A value (int, word, bool, None, or a list of these) as compact JSON."""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return '"' + value + '"'
    return "[" + ",".join([_json(item) for item in value]) + "]"
