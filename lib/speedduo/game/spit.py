"""Spit (docs/rules.md V8): one round of the game as one state object, rounds until a
player has no cards left.

Pure Python, no I/O, no clock: every entry point takes ``t``, ms since the
round's start signal. ``GameMatch`` (gamematch.py) calls ``deal`` for each
round ("hand" in the log), the arbiter calls ``setting``/``aim``/``press`` for
each key press. Piles are lists with their top last, made once with room for
every card they can hold and never rebuilt: a press, a stall, a round's end
and the next deal allocate nothing (bench/mp_heap_lock.py).

Buttons (V8.10): ``1``-``5`` act on stockpile place 1-5: a face-down top is
turned up; a face-up top goes onto the spit pile it fits (the target pile when
it fits both); one that fits neither moves to the leftmost empty place when
there is one and cards lie under it; otherwise it is refused (``late`` when a
spit pile it fitted was covered less than ``race_window_ms`` ago, R8; else
``invalid``). ``L``/``R`` aim at spit pile 0/1 and, once a round has stopped,
slap that pile.
"""

from array import array

from micropython import const  # on the host, Blinka provides this module

from speedduo.game.gamematch import (
    CONTINUE,
    OUT_BIT,
    GameCore,
    aim_word,
    room,
    take_top,
    tie_field,
)
from speedduo.vocab.cards import DECK_SIZE, RANKS
from speedduo.vocab.codes import (
    EMPTY_SLOT,
    EV_DEAL,
    EV_MOVE,
    EV_PLAY,
    EV_REJECT,
    EV_SLAP,
    EV_SPIT,
    EV_STOP,
    EV_TURN,
    INVALID,
    KEY_L,
    KEY_R,
    LATE,
    NO_T,
    NOT_PLAYING,
    NULL_PLAYER,
    PLAYED,
)

PLACES = const(5)  # V8.1: five stockpiles
LAYOUT_CARDS = const(15)  # 1 + 2 + 3 + 4 + 5
SLAP_BIT = const(4)  # aim bit of a slap (bits 1, 2: spit piles 0, 1)
_NO_TIME = const(-1)
_HALF = const(26)  # round 1: each player's share of the deck
_WRAP = const(12)  # the rank gap of Ace and King (cards.RANKS - 1)


def fits(card: int, top: int, no_wrap: bool) -> bool:
    """V8.3: one rank above or below; the ranks close into a ring unless V1 is on."""
    a = card >> 2
    b = top >> 2
    if no_wrap:
        return a - b == 1 or b - a == 1
    d = (a - b) % RANKS
    return d == 1 or d == RANKS - 1


class Spit(GameCore):
    """Two players' stockpiles and spit cards, the two spit piles, and the round's phase."""

    game = "spit"
    players = 2
    photo_finish_on_tie = False  # the last cards of both at one instant: the tie turn decides
    swept = False

    def __init__(self, rules) -> None:
        self.rules = rules
        self.log = None  # set by GameMatch
        self.held = [room(DECK_SIZE), room(DECK_SIZE)]  # each player's cards between rounds
        self.stock = [[room(PLACES) for _ in range(PLACES)] for _ in range(2)]
        self.up = [[False] * PLACES for _ in range(2)]  # is the top of each place face up
        self.spit = [room(DECK_SIZE), room(DECK_SIZE)]  # face-down spit cards, top last
        self.piles = [room(DECK_SIZE), room(DECK_SIZE)]  # the spit piles, top last
        # when each spit pile card was covered (R8), by its place in the pile (0: bottom)
        self.covered = [array("i", bytes(4 * DECK_SIZE)), array("i", bytes(4 * DECK_SIZE))]
        self.target = [0, 1]
        self.two_piles = True
        self.lone_pile = -1  # V8.7: the pile a lone spitter keeps spitting onto
        self.opener = 0  # the player who opened the only pile (single-pile rounds)
        self.stall_due = _NO_TIME
        self.stopped = False  # V8.8: the round has stopped; only a slap counts
        self.stop_why = b""  # b"out" or b"blocked"
        self.stop_p = NULL_PLAYER  # who emptied the stockpiles first
        self.took = [-1, -1]  # the spit pile each player took at the round's end (-1: none)
        self._left = [0, 0]  # cards each holds at the round's end
        self._deck = bytearray(DECK_SIZE)
        self._clear(True)
        self.hand_no = 0
        self.match_why = b""

    # ---- V8.1/V8.2: the deal of a round ----

    def deal(self, rng, hand_no: int) -> None:
        """Round 1 deals 26 each from a shuffled deck; later rounds each player's own cards,
        shuffled (V8.9). Then the layout (V8.1) and the opening spit (V8.2) at t=0."""
        self.hand_no = hand_no
        held = self.held
        if hand_no == 1:
            deck = self._deck
            for i in range(DECK_SIZE):
                deck[i] = i
            rng.shuffle(deck, 0, DECK_SIZE)
            for p in range(2):
                cards = held[p]
                cards[0:] = b""
                for i in range(p * _HALF, p * _HALF + _HALF):
                    cards.append(deck[i])
        else:
            for p in range(2):
                rng.shuffle(held[p], 0, len(held[p]))
        openers = 0
        for p in range(2):
            cards = held[p]
            places = self.stock[p]
            for s in range(PLACES):
                places[s][0:] = b""
            i = 0
            for row in range(PLACES):  # row by row: place s gets s + 1 cards, as far as they go
                for s in range(row, PLACES):
                    if i < len(cards):
                        places[s].append(cards[i])
                        i += 1
            for s in range(PLACES):
                self.up[p][s] = len(places[s]) > 0
            spit = self.spit[p]
            spit[0:] = b""
            while i < len(cards):
                spit.append(cards[i])
                i += 1
            cards[0:] = b""
            self.piles[p][0:] = b""
            self.took[p] = -1
            if spit:
                openers += 1
                self.opener = p
        self.target[0] = 0
        self.target[1] = 1
        self.lone_pile = -1
        self.two_piles = openers == 2
        for p in range(2):  # V8.2: "Spit!": each turns a spit card onto a pile of their own
            if self.spit[p]:
                self.piles[p].append(take_top(self.spit[p]))
                self.covered[p][0] = 0
        if not self.two_piles:  # V8.9: a player short of cards cannot spit: one pile only
            self.lone_pile = self.opener
        self._clear(False)
        self.stopped = False
        self.match_why = b""
        log = self.log
        log.begin(EV_DEAL, NO_T, NULL_PLAYER, hand_no)
        log.number(b',"hand_no":', hand_no)
        log.raw(b',"stock":[[')
        for p in range(2):
            if p:
                log.raw(b"],[")
            places = self.stock[p]
            for s in range(PLACES):
                if s:
                    log.raw(b",")
                log.cards(places[s], len(places[s]))
        log.raw(b']],"spit":[')
        log.cards(self.spit[0], len(self.spit[0]))
        log.raw(b",")
        log.cards(self.spit[1], len(self.spit[1]))
        log.raw(b'],"piles":[')
        log.cards(self.piles[0], len(self.piles[0]))
        log.raw(b",")
        log.cards(self.piles[1], len(self.piles[1]))
        log.raw(b"]")
        log.end()
        self._check_stall(0)

    # ---- what a player sees ----

    def stock_left(self, p: int) -> int:
        n = 0
        for place in self.stock[p]:
            n += len(place)
        return n

    def cards_left(self, p: int) -> int:
        """Everything player p holds: stockpiles and spit cards (V8.9)."""
        return self.stock_left(p) + len(self.spit[p]) + len(self.held[p])

    def pile_for(self, p: int, card: int, aim: int = -1) -> int:
        """The spit pile a card goes to: the aim, else the target, else the other; -1: none.
        (``fits`` written out: every press asks this, some twice.)"""
        rank = card >> 2
        wrap = not self.rules.no_wrap
        target = self.target[p]
        pile = aim
        for turn in range(3):  # the aim, the target, the other
            if turn:
                pile = target if turn == 1 else 1 - target
            if pile >= 0:
                cards = self.piles[pile]
                if cards:
                    d = rank - (cards[-1] >> 2)  # V8.3: one rank apart, A-K too unless V1
                    if d == 1 or d == -1 or (wrap and (d == _WRAP or d == -_WRAP)):
                        return pile
        return -1

    def can_act(self, p: int) -> bool:
        """V8.4/V8.6: can player p turn, play or move anything now? (the first place that
        can says so: every play asks it for both players, R9)"""
        places = self.stock[p]
        up = self.up[p]
        empty = False
        for place in places:
            if not place:
                empty = True
        for s in range(PLACES):
            place = places[s]
            if not place:
                continue
            if not up[s] or (empty and len(place) > 1) or self.pile_for(p, place[-1]) >= 0:
                return True
        return False

    def _act_mask(self, p: int) -> int:
        """Bit 1 + s for each stockpile place s whose top can be turned, played or moved."""
        places = self.stock[p]
        up = self.up[p]
        empty = False
        for place in places:
            if not place:
                empty = True
        mask = 0
        for s in range(PLACES):
            place = places[s]
            if place and (
                not up[s] or self.pile_for(p, place[-1]) >= 0 or (empty and len(place) > 1)
            ):
                mask |= 2 << s
        return mask

    def bot_mask(self, p: int) -> int:
        """The keys (0-6) that do something for player p now (what the player sees), one
        bit each (bit k: key k)."""
        if self.over:
            return 0
        if self.stopped:
            if not self.two_piles:
                return 0
            return 1 << (KEY_L if len(self.piles[0]) <= len(self.piles[1]) else KEY_R)
        if self.stall_due != _NO_TIME:
            return 0
        return self._act_mask(p)

    def bot_keys(self, p: int):
        """``bot_mask`` as a list of keys (host form)."""
        mask = self.bot_mask(p)
        return [k for k in range(KEY_R + 1) if mask >> k & 1]

    # ---- the arbiter's questions ----

    def setting(self, p: int, key: int) -> bool:
        """L/R while the round is on: aim at spit pile 0/1 (not logged)."""
        if (key == KEY_L or key == KEY_R) and not self.stopped:
            self.target[p] = 0 if key == KEY_L else 1
            return True
        return False

    def aim(self, p: int, key: int) -> int:
        """What a press aims at (gamematch.aim_word: the pile, the conflict bits), on the
        state before any press of its instant; 0: nothing."""
        if self.over:
            return 0
        if key == KEY_L or key == KEY_R:
            return aim_word(0 if key == KEY_L else 1, SLAP_BIT)
        if self.stopped:
            return 0
        s = key - 1
        place = self.stock[p][s]
        if not place or not self.up[p][s]:
            return 0
        pile = self.pile_for(p, place[-1])
        if pile < 0:
            return 0
        bits = 1 << pile
        if len(place) == 1 and self.stock_left(p) == 1:  # (more under it: not the last)
            bits |= OUT_BIT
        return aim_word(pile, bits)

    # ---- V8.3-V8.5: a press ----

    def press(self, t: int, p: int, key: int, aim: int, tie: int) -> int:
        if self.over:
            return NOT_PLAYING
        if key == KEY_L or key == KEY_R:
            if not self.stopped or not self.two_piles:
                return EMPTY_SLOT
            self._slap(t, p, aim, tie)
            return PLAYED
        if self.stopped:
            return EMPTY_SLOT
        s = key - 1
        place = self.stock[p][s]
        if not place:
            return EMPTY_SLOT
        card = place[-1]
        log = self.log
        if not self.up[p][s]:  # V8.4: turn a face-down top
            self.up[p][s] = True
            self._begin_place(EV_TURN, t, p, s, card)
            log.end()
            self._check_stall(t)
            return PLAYED
        pile = self.pile_for(p, card, aim)
        if pile >= 0:  # V8.3: onto a spit pile
            self._cover(pile, card, t)
            place[len(place) - 1 :] = b""  # (take_top, written out: the card is known)
            self.up[p][s] = False
            self._begin_place(EV_PLAY, t, p, s, card)
            log.number(b',"pile":', pile)
            if tie:  # (TIE_NONE: no field)
                tie_field(log, tie)
            log.end()
            if place:  # its new top lies face down: p can turn it, no stall (V8.4, V8.6)
                return PLAYED
            if self.stock_left(p) == 0:
                self._stop(t, b"out", p)  # V8.8
            else:
                self._check_stall(t)
            return PLAYED
        late = self._late(t, card)
        if not late:
            to = _first_empty(self.stock[p])
            if to >= 0 and len(place) > 1:  # V8.5: into an empty place
                self.stock[p][to].append(take_top(place))
                self.up[p][to] = True
                self.up[p][s] = False
                self._begin_place(EV_MOVE, t, p, s, card)
                log.number(b',"to":', to)
                log.end()
                return PLAYED  # the card left under it lies face down: p can turn it
        why = LATE if late else INVALID
        self._begin_place(EV_REJECT, t, p, s, card, why)
        log.number(b',"pile":', self.target[p])
        log.word(b',"why":', b"late" if late else b"invalid")
        tie_field(log, tie)
        log.end()
        return why

    def _begin_place(self, kind: int, t: int, p: int, s: int, card: int, why: int = 0) -> None:
        """The line of a press on a stockpile place, up to its card: ev, t, p, slot, card."""
        log = self.log
        log.begin(kind, t, p, why)
        log.number(b',"p":', p)
        log.number(b',"slot":', s)
        log.card(b',"card":', card)

    def _cover(self, pile: int, card: int, t: int) -> None:
        """``card`` goes onto spit pile ``pile`` at t: its old top was covered then."""
        cards = self.piles[pile]
        top = len(cards)
        covered = self.covered[pile]
        covered[top - 1] = t
        cards.append(card)
        covered[top] = 0

    def _late(self, t: int, card: int) -> bool:
        """R8: did a spit pile card this one fitted get covered less than the window ago?"""
        window = self.rules.race_window_ms
        for pile in range(2):
            cards = self.piles[pile]
            covered = self.covered[pile]
            k = len(cards) - 2
            while k >= 0 and t - covered[k] < window:
                if fits(card, cards[k], self.rules.no_wrap):
                    return True
                k -= 1
        return False

    # ---- V8.6/V8.7: stalls ----

    def _check_stall(self, t: int) -> None:
        if self.over or self.stopped or self.stall_due != _NO_TIME:
            return
        if self.can_act(0) or self.can_act(1):
            return
        self._declare_stall(t)

    def _stall_ended(self, t: int) -> None:
        """V8.6: both spit onto their own pile; V8.7: one alone onto one pile; none: blocked."""
        spit = self.spit
        if not spit[0] and not spit[1]:
            self._stop(t, b"blocked", NULL_PLAYER)  # V8.8
            return
        if spit[0] and spit[1]:
            for p in range(2):
                self._spit_one(t, p, p)
        else:
            q = 0 if spit[0] else 1
            if self.lone_pile < 0:
                self.lone_pile = self.target[q]  # chosen once, then kept
            self._spit_one(t, q, self.lone_pile)
        self._check_stall(t)

    def _spit_one(self, t: int, p: int, pile: int) -> None:
        card = take_top(self.spit[p])
        self._cover(pile, card, t)
        log = self.log
        log.begin(EV_SPIT, t, p)
        log.number(b',"p":', p)
        log.card(b',"card":', card)
        log.number(b',"pile":', pile)
        log.end()

    # ---- V8.8/V8.9: the end of a round ----

    def _stop(self, t: int, why, p: int) -> None:
        self.stopped = True
        self.stop_why = why
        self.stop_p = p
        self.stall_due = _NO_TIME
        log = self.log
        log.begin(EV_STOP, t, p)
        log.word(b',"why":', why)
        log.player(b',"p":', p)
        log.end()
        if self.two_piles:
            return  # V8.8: a slap decides
        # V8.9: one pile: it goes to the player who did not empty the stockpiles first;
        # blocked: to the player with more stockpile cards (equal: its opener)
        if why == b"out":
            taker = 1 - p
        else:
            left0 = self.stock_left(0)
            left1 = self.stock_left(1)
            taker = self.opener if left0 == left1 else (0 if left0 > left1 else 1)
        self.took[taker] = self.opener
        self._end(t, p, why)

    def _slap(self, t: int, p: int, pile: int, tie: int) -> None:
        """V8.8: the first slap takes that pile; the other player takes the other one."""
        log = self.log
        log.begin(EV_SLAP, t, p)
        log.number(b',"p":', p)
        log.number(b',"pile":', pile)
        tie_field(log, tie)
        log.end()
        self.took[p] = pile
        self.took[1 - p] = 1 - pile
        self._end(t, self.stop_p, self.stop_why)

    def abandon(self, t: int) -> None:
        """R17: the round ends without a result (the match stops)."""
        self.took[0] = -1
        self.took[1] = -1
        self._end(t, NULL_PLAYER, b"abandoned")

    def _end(self, t: int, winner: int, why) -> None:
        """Each player gathers places, spit cards and the pile they took (``took``)."""
        for p in range(2):
            cards = self.held[p]
            cards[0:] = b""
            for place in self.stock[p]:
                for card in place:
                    cards.append(card)
                place[0:] = b""
            for card in self.spit[p]:
                cards.append(card)
            self.spit[p][0:] = b""
            if self.took[p] >= 0:
                for card in self.piles[self.took[p]]:
                    cards.append(card)
            self._left[p] = len(cards)
        self._hand_over(t, winner, why, self._left)

    def _end_fields(self, log) -> None:
        """The spit pile each player took (null: none)."""
        took = self.took
        log.raw(b',"took":[')
        for p in range(2):
            if p:
                log.raw(b",")
            if took[p] < 0:
                log.raw(b"null")
            else:
                log.number(b"", took[p])
        log.raw(b"]")

    def match_winner(self, wins, best_of: int, rounds: int) -> int:
        """V8.9: a player left with no cards wins; V8.11: after max_rounds, fewer cards."""
        for p in range(2):
            if not self.held[p]:
                return p
        if rounds >= self.rules.max_rounds:
            self.match_why = b"max_rounds"
            left0 = len(self.held[0])
            left1 = len(self.held[1])
            if left0 == left1:
                return NULL_PLAYER
            return 0 if left0 < left1 else 1
        return CONTINUE


def _first_empty(places) -> int:
    for s in range(PLACES):
        if not places[s]:
            return s
    return -1
