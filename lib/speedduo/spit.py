"""Spit (docs/rules.md V8): one round of the game as one state object, rounds until a
player has no cards left.

Pure Python, no I/O, no clock: every entry point takes ``t``, ms since the
round's start signal. ``GameMatch`` (gamematch.py) calls ``deal`` for each
round ("hand" in the log), the arbiter calls ``setting``/``aim``/``press`` for
each key press. Piles are lists with their top last.

Buttons (V8.10): ``1``-``5`` act on stockpile place 1-5: a face-down top is
turned up; a face-up top goes onto the spit pile it fits (the target pile when
it fits both); one that fits neither moves to the leftmost empty place when
there is one and cards lie under it; otherwise it is refused (``late`` when a
spit pile it fitted was covered less than ``race_window_ms`` ago, R8; else
``invalid``). ``L``/``R`` aim at spit pile 0/1 and, once a round has stopped,
slap that pile.
"""

from micropython import const  # on the host, Blinka provides this module

from speedduo.cards import DECK_SIZE, RANKS, card_name
from speedduo.codes import EMPTY_SLOT, INVALID, KEY_L, KEY_R, LATE, NOT_PLAYING, PLAYED
from speedduo.gamematch import CONTINUE, NO_PLAYER, OUT_BIT, GameCore, tie_word

PLACES = const(5)  # V8.1: five stockpiles
LAYOUT_CARDS = const(15)  # 1 + 2 + 3 + 4 + 5
SLAP_BIT = const(4)  # aim bit of a slap (bits 1, 2: spit piles 0, 1)
_NO_TIME = const(-1)


def fits(card: int, top: int, no_wrap: bool) -> bool:
    """V8.3: one rank above or below; the ranks close into a ring unless V1 is on."""
    a = card >> 2
    b = top >> 2
    if no_wrap:
        return a - b == 1 or b - a == 1
    return (a - b) % RANKS in (1, RANKS - 1)


class Spit(GameCore):
    """Two players' stockpiles and spit cards, the two spit piles, and the round's phase."""

    game = "spit"
    players = 2
    photo_finish_on_tie = False  # the last cards of both at one instant: the tie turn decides
    swept = False

    def __init__(self, rules) -> None:
        self.rules = rules
        self.log = None  # set by GameMatch
        self.held = [[], []]  # each player's cards between rounds
        self.stock = [[[] for _ in range(PLACES)] for _ in range(2)]
        self.up = [[False] * PLACES for _ in range(2)]  # is the top of each place face up
        self.spit = [[], []]  # face-down spit cards, top last
        self.piles = [[], []]  # the spit piles, top last
        self.covered = [[], []]  # when each pile card was covered (R8)
        self.target = [0, 1]
        self.two_piles = True
        self.lone_pile = -1  # V8.7: the pile a lone spitter keeps spitting onto
        self.opener = 0  # the player who opened the only pile (single-pile rounds)
        self.stall_due = _NO_TIME
        self.stopped = False  # V8.8: the round has stopped; only a slap counts
        self.stop_why = ""  # "out" or "blocked"
        self.stop_p = NO_PLAYER  # who emptied the stockpiles first
        self._clear(True)
        self.hand_no = 0
        self.match_why = ""

    # ---- V8.1/V8.2: the deal of a round ----

    def deal(self, rng, hand_no: int) -> None:
        """Round 1 deals 26 each from a shuffled deck; later rounds each player's own cards,
        shuffled (V8.9). Then the layout (V8.1) and the opening spit (V8.2) at t=0."""
        self.hand_no = hand_no
        if hand_no == 1:
            deck = bytearray(range(DECK_SIZE))
            rng.shuffle(deck, 0, DECK_SIZE)
            self.held = [list(deck[0:26]), list(deck[26:52])]
        else:
            for p in range(2):
                cards = bytearray(self.held[p])
                rng.shuffle(cards, 0, len(cards))
                self.held[p] = list(cards)
        for p in range(2):
            cards = self.held[p]
            places = [[] for _ in range(PLACES)]
            i = 0
            for row in range(PLACES):  # row by row: place s gets s + 1 cards, as far as they go
                for s in range(row, PLACES):
                    if i < len(cards):
                        places[s].append(cards[i])
                        i += 1
            self.stock[p] = places
            self.up[p] = [len(place) > 0 for place in places]
            self.spit[p] = cards[i:]
            self.held[p] = []
        self.piles = [[], []]
        self.covered = [[], []]
        self.target = [0, 1]
        self.lone_pile = -1
        openers = [p for p in range(2) if self.spit[p]]
        self.two_piles = len(openers) == 2
        for p in openers:  # V8.2: "Spit!": each turns a spit card onto a pile of their own
            self.piles[p].append(self.spit[p].pop())
            self.covered[p].append(0)
        if not self.two_piles:  # V8.9: a player short of cards cannot spit: one pile only
            self.opener = openers[0]
            self.lone_pile = self.opener
        self._clear(False)
        self.stopped = False
        self.match_why = ""
        self.log.put(
            "deal",
            [
                ("hand_no", hand_no),
                ("stock", [[_names(place, True) for place in self.stock[p]] for p in range(2)]),
                ("spit", [_names(self.spit[p], True) for p in range(2)]),
                ("piles", [_names(self.piles[i], True) for i in range(2)]),
            ],
        )
        self._check_stall(0)

    # ---- what a player sees ----

    def stock_left(self, p: int) -> int:
        return sum(len(place) for place in self.stock[p])

    def cards_left(self, p: int) -> int:
        """Everything player p holds: stockpiles and spit cards (V8.9)."""
        return self.stock_left(p) + len(self.spit[p]) + len(self.held[p])

    def fits_pile(self, card: int, pile: int) -> bool:
        cards = self.piles[pile]
        return len(cards) > 0 and fits(card, cards[-1], self.rules.no_wrap)

    def pile_for(self, p: int, card: int, aim: int = -1) -> int:
        """The spit pile a card goes to: the aim, else the target, else the other; -1: none."""
        if aim >= 0 and self.fits_pile(card, aim):
            return aim
        target = self.target[p]
        if self.fits_pile(card, target):
            return target
        if self.fits_pile(card, 1 - target):
            return 1 - target
        return -1

    def can_act(self, p: int) -> bool:
        """V8.4/V8.6: can player p turn, play or move anything now?"""
        places = self.stock[p]
        empty = False
        for place in places:
            if not place:
                empty = True
        for s in range(PLACES):
            place = places[s]
            if not place:
                continue
            if not self.up[p][s] or self.pile_for(p, place[-1]) >= 0:
                return True
            if empty and len(place) > 1:
                return True
        return False

    def bot_keys(self, p: int):
        """The keys (0-6) that do something for player p now (what the player sees)."""
        if self.over:
            return []
        if self.stopped:
            if not self.two_piles:
                return []
            return [KEY_L if len(self.piles[0]) <= len(self.piles[1]) else KEY_R]
        if self.stall_due != _NO_TIME:
            return []
        keys = []
        places = self.stock[p]
        empty = not all(places)
        for s in range(PLACES):
            place = places[s]
            if place and (
                not self.up[p][s] or self.pile_for(p, place[-1]) >= 0 or (empty and len(place) > 1)
            ):
                keys.append(1 + s)
        return keys

    # ---- the arbiter's questions ----

    def setting(self, p: int, key: int) -> bool:
        """L/R while the round is on: aim at spit pile 0/1 (not logged)."""
        if key in (KEY_L, KEY_R) and not self.stopped:
            self.target[p] = 0 if key == KEY_L else 1
            return True
        return False

    def aim(self, p: int, key: int):
        """(pile or -1, conflict bits) of a press on the state before any press of its instant."""
        if self.over:
            return -1, 0
        if key in (KEY_L, KEY_R):
            return (0 if key == KEY_L else 1), SLAP_BIT
        if self.stopped:
            return -1, 0
        s = key - 1
        place = self.stock[p][s]
        if not place or not self.up[p][s]:
            return -1, 0
        pile = self.pile_for(p, place[-1])
        if pile < 0:
            return -1, 0
        bits = 1 << pile
        if self.stock_left(p) == 1:
            bits |= OUT_BIT
        return pile, bits

    # ---- V8.3-V8.5: a press ----

    def press(self, t: int, p: int, key: int, aim: int, tie: int) -> int:
        if self.over:
            return NOT_PLAYING
        if key in (KEY_L, KEY_R):
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
        if not self.up[p][s]:  # V8.4: turn a face-down top
            self.up[p][s] = True
            self.log.put("turn", [("t", t), ("p", p), ("slot", s), ("card", card_name(card))])
            self._check_stall(t)
            return PLAYED
        pile = self.pile_for(p, card, aim)
        if pile >= 0:  # V8.3: onto a spit pile
            self.covered[pile][-1] = t
            self.piles[pile].append(card)
            self.covered[pile].append(0)
            place.pop()
            self.up[p][s] = False
            fields = [("t", t), ("p", p), ("slot", s), ("card", card_name(card)), ("pile", pile)]
            self._put_with_tie("play", fields, tie)
            if self.stock_left(p) == 0:
                self._stop(t, "out", p)  # V8.8
            else:
                self._check_stall(t)
            return PLAYED
        late = self._late(t, card)
        if not late:
            to = _first_empty(self.stock[p])
            if to >= 0 and len(place) > 1:  # V8.5: into an empty place
                self.stock[p][to] = [place.pop()]
                self.up[p][to] = True
                self.up[p][s] = False
                self.log.put(
                    "move",
                    [("t", t), ("p", p), ("slot", s), ("card", card_name(card)), ("to", to)],
                )
                self._check_stall(t)
                return PLAYED
        fields = [
            ("t", t),
            ("p", p),
            ("slot", s),
            ("card", card_name(card)),
            ("pile", self.target[p]),
            ("why", "late" if late else "invalid"),
        ]
        self._put_with_tie("reject", fields, tie)
        return LATE if late else INVALID

    def _put_with_tie(self, ev, fields, tie) -> None:
        word = tie_word(tie)
        if word is not None:
            fields.append(("tie", word))
        self.log.put(ev, fields)

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
        spitters = [p for p in range(2) if self.spit[p]]
        if not spitters:
            self._stop(t, "blocked", NO_PLAYER)  # V8.8
            return
        if len(spitters) == 2:
            for p in spitters:
                self._spit_one(t, p, p)
        else:
            q = spitters[0]
            if self.lone_pile < 0:
                self.lone_pile = self.target[q]  # chosen once, then kept
            self._spit_one(t, q, self.lone_pile)
        self._check_stall(t)

    def _spit_one(self, t: int, p: int, pile: int) -> None:
        card = self.spit[p].pop()
        self.covered[pile][-1] = t
        self.piles[pile].append(card)
        self.covered[pile].append(0)
        self.log.put("spit", [("t", t), ("p", p), ("card", card_name(card)), ("pile", pile)])

    # ---- V8.8/V8.9: the end of a round ----

    def _stop(self, t: int, why: str, p: int) -> None:
        self.stopped = True
        self.stop_why = why
        self.stop_p = p
        self.stall_due = _NO_TIME
        self.log.put("stop", [("t", t), ("why", why), ("p", None if p == NO_PLAYER else p)])
        if self.two_piles:
            return  # V8.8: a slap decides
        # V8.9: one pile: it goes to the player who did not empty the stockpiles first;
        # blocked: to the player with more stockpile cards (equal: its opener)
        pile = self.opener
        if why == "out":
            taker = 1 - p
        else:
            left0 = self.stock_left(0)
            left1 = self.stock_left(1)
            taker = self.opener if left0 == left1 else (0 if left0 > left1 else 1)
        took = [None, None]
        took[taker] = pile
        self._end(t, p, why, took)

    def _slap(self, t: int, p: int, pile: int, tie: int) -> None:
        """V8.8: the first slap takes that pile; the other player takes the other one."""
        self._put_with_tie("slap", [("t", t), ("p", p), ("pile", pile)], tie)
        took = [None, None]
        took[p] = pile
        took[1 - p] = 1 - pile
        self._end(t, self.stop_p, self.stop_why, took)

    def abandon(self, t: int) -> None:
        """R17: the round ends without a result (the match stops)."""
        self._end(t, NO_PLAYER, "abandoned", [None, None])

    def _end(self, t: int, winner: int, why: str, took) -> None:
        for p in range(2):
            cards = []
            for place in self.stock[p]:
                cards.extend(place)
            cards.extend(self.spit[p])
            if took[p] is not None:
                cards.extend(self.piles[took[p]])
            self.held[p] = cards
            self.stock[p] = [[] for _ in range(PLACES)]
            self.spit[p] = []
        self._hand_over(t, winner, why, [len(self.held[0]), len(self.held[1])], [("took", took)])

    def match_winner(self, wins, best_of: int, rounds: int) -> int:
        """V8.9: a player left with no cards wins; V8.11: after max_rounds, fewer cards."""
        for p in range(2):
            if not self.held[p]:
                return p
        if rounds >= self.rules.max_rounds:
            self.match_why = "max_rounds"
            left0 = len(self.held[0])
            left1 = len(self.held[1])
            if left0 == left1:
                return NO_PLAYER
            return 0 if left0 < left1 else 1
        return CONTINUE


def _first_empty(places) -> int:
    for s in range(PLACES):
        if not places[s]:
            return s
    return -1


def _names(cards, top_first: bool):
    names = [card_name(card) for card in cards]
    if top_first:
        names.reverse()
    return names
