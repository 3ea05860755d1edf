"""One player's view of the game on their own panel (drawn upright for that player).

Layout, 128x64 px (pages are 8 px rows)::

    page 0    YOU 17     1-0     THEM 12   cards you / they still have to play
                                           (hand + draw pile, R12), hands won
    pages 1-4 L [pile]  moments  [pile] R  pile tops 24x32 + suit; the target pile
                                           (where a card that fits both goes) is
                                           drawn inverted; centre: countdown, stall,
                                           flip, a refused press, lock-out, results
    page 5       1    2    3    4    5     the button under each hand slot
    pages 6-7    A    7    -    Q    3     hand slots

A 0.96" panel is 22 mm wide and the seven buttons span about 90 mm, so a card
cannot sit over its button; the button's number is written above each card
instead, and L / R beside the pile each aims at. Both players see centre pile 0
on the left, so L means "the left pile" for the input code (arbiter.py). The
words on screen are the ones the docs use (docs/screens.md).

``update(hand, match, now)`` compares the state with small caches of what is
on the panel and redraws only what changed; pile tops (and moments both
players share: countdown, stall, flip, hand result) are marked ``SHARED`` so
the coordinator sends them to both panels before anything private. The play
path allocates nothing. What happened comes from the core's own record of it:
``event(kind, ...)`` gets each match-log record as the app drains the log
(flips and redeals, refused presses); ``show_overflow`` (the keypad lost
presses) and ``show_menu`` are the app's.

The parts every game draws the same way (menus, slots, counts, the centre's words)
are ``base_view.View``'s, the pile tops ``piles.py``'s. It reads what its
player may see (``game.seat.Seat``'s answers: own hand slots, both pile tops, the aim,
cards left, a lock-out) straight from the ``core.Hand`` each update is given, so it holds
no hand between matches and the board loads no ``seat`` for it.
"""

from micropython import const  # on the host, Blinka provides this module

from speedduo.display.base_view import FONT, INDEX, View
from speedduo.display.piles import draw_count, draw_piles, places, played_on_pile
from speedduo.display.ssd1306 import PRIVATE, WIDTH
from speedduo.vocab.cards import HAND_SLOTS, NO_CARD
from speedduo.vocab.codes import (  # not matchlog: the menu and the other games do without it
    COUNTDOWN,
    END_CLAIM,
    END_DEAD_STALL,
    END_OUT,
    EV_FLIP,
    EV_REDEAL,
    EV_REJECT,
    INVALID,
    LATE,
    NULL_PLAYER,
    RESULT,
)

# base_view's numbers, as consts of this module (folded: no name on the heap)
_BACK = const(254)
_UNKNOWN = const(253)
_SLOT_X0 = const(22)
_SLOT_DX = const(18)
_FLASH_MS = const(700)
_STALL_STEPS = const(6)
_M_NONE = const(0)
_M_COUNT = const(1)
_M_STALL = const(2)
_M_FLIP = const(3)
_M_REDEAL = const(4)
_M_LATE = const(5)
_M_INVALID = const(6)
_M_LOCKED = const(7)
_M_LOCKOUT = const(9)
_M_WIN = const(10)
_M_LOSE = const(11)
_M_REPLAY = const(12)
_SCREEN_OVER = const(2)
_FLIP_MS = const(800)


class PlayerView(View):
    """What player ``player`` sees of a classic Speed match, kept in sync by ``update``."""

    def __init__(self, panel, player):
        self._redealt = False  # the flip on show came with a redeal (R10)
        self._redeal_t = -1
        self._flip_until = 0
        self._places = places(panel)  # where the pile tops are copied (piles.py)
        View.__init__(self, panel, player)

    _draw_piles = draw_piles  # the pile tops (piles.py), shared with Spit
    _draw_count = draw_count
    played = staticmethod(played_on_pile)

    # ---- the app's moments ----

    def event(self, kind, p, why, t, now):
        """What the core recorded (a match-log record kind), as the app drains the log:
        flips and redeals (R9, R10) for both players, a refused press for its player."""
        if kind == EV_REDEAL:
            self._redealt = True
            self._redeal_t = t
            self._flip_until = now + _FLIP_MS
        elif kind == EV_FLIP:
            if t != self._redeal_t:  # flips of the same instant as a redeal show REDEAL
                self._redealt = False
            self._flip_until = now + _FLIP_MS
        elif kind == EV_REJECT and p == self.player:
            if why == LATE:
                self._flash = _M_LATE
            elif why == INVALID:
                self._flash = _M_INVALID
            else:
                self._flash = _M_LOCKED
            self._flash_until = now + _FLASH_MS

    # ---- the game ----

    def update(self, hand, match, now):
        """Redraw what changed since the last update (allocation-free while playing)."""
        if self.update_shared(hand, match, now):
            self.update_private(hand, match)

    def update_table(self, hand, match, now):
        """The pile tops, the target inverted; a new card before a pile whose aim alone
        changed (the played pile's bytes go out first). Returns True while the game
        screen shows (then ``update_moment`` and ``update_private`` follow)."""
        if not self._game_screen(match):
            return False
        dealt = match.phase != COUNTDOWN
        if dealt and hand.hand_no != self._hand_no:
            self._hand_no = hand.hand_no
            self._flip_until = 0
            self._flash_until = 0
        if dealt:  # pile tops (shared), the target pile inverted (this player's aim)
            self._draw_piles(hand.top(0), hand.top(1), hand.target[self.player])
        else:
            self._draw_piles(_BACK, _BACK, _UNKNOWN)
        return True

    def update_private(self, hand, match):
        """This player's own part: hand slots, cards left, score."""
        p = self.player
        cards = hand.hand  # player p's slots from p * HAND_SLOTS on (Seat.card)
        base = p * HAND_SLOTS
        dealt = match.phase != COUNTDOWN
        k = HAND_SLOTS  # H2: the countdown shows a back in each of this player's slots in play
        if not dealt:
            rules = match.rules
            k = getattr(rules, "hand_slots_p2", 5) if p else getattr(rules, "hand_slots_p1", 5)
        for s in range(5):
            card = cards[base + s] if dealt else (_BACK if s < k else NO_CARD)
            if card != self._slots[s]:
                self._slots[s] = card
                # (private, after the piles: the per-byte diff keeps the bytes sent down)
                self._draw_card(card, _SLOT_X0 + s * _SLOT_DX, 6, PRIVATE, False)
        if self._head_start(match, dealt):  # H1's leads on page 0 (the countdown)
            return
        if dealt:
            self._count(0, hand.cards_left(p), 24)  # after "YOU "
            self._count(1, hand.cards_left(1 - p), 116)  # after "THEM "
        self._score(match.wins[p], match.wins[1 - p])

    def _score(self, mine, theirs):
        if self._wins == mine and self._other_wins == theirs:
            return
        self._wins = mine
        self._other_wins = theirs
        panel = self.panel
        x = panel.number(FONT, INDEX, mine, 55, 0, 1, PRIVATE, False)
        x = panel.char(FONT, INDEX, 45, x, 0, PRIVATE, False)  # '-'
        panel.number(FONT, INDEX, theirs, x, 0, 1, PRIVATE, False)

    def _centre(self, hand, match, now, phase):
        """Pick the moment the centre shows (one at a time, most important first)."""
        p = self.player
        t = now - match.hand_start
        msg = _M_NONE
        arg = 0
        if phase == COUNTDOWN:
            left = match.hand_start - now
            arg = (left + 999) // 1000
            if arg < 1:
                arg = 1
            if arg > 9:
                arg = 9
            msg = _M_COUNT
        elif phase == RESULT or hand.over:
            winner = hand.winner
            msg = _M_REPLAY if winner == NULL_PLAYER else _M_WIN if winner == p else _M_LOSE
            why = hand.end_why
            arg = 1 if why == END_OUT or why == END_CLAIM else 2 if why == END_DEAD_STALL else 0
        elif now < self._flip_until:
            msg = _M_REDEAL if self._redealt else _M_FLIP
        elif hand.stall_due >= 0:
            total = match.rules.stall_countdown_ms
            left = hand.stall_due - t
            if left < 0:
                left = 0
            msg = _M_STALL
            arg = (left * _STALL_STEPS + total - 1) // total if total else 0
        elif now < self._flash_until:
            msg = self._flash
        elif hand.locked_until[p] > t:  # R16
            msg = _M_LOCKOUT
            arg = (hand.locked_until[p] - t + 999) // 1000
        if msg == self._msg and arg == self._arg:
            return
        old = self._msg
        self._msg = msg
        self._arg = arg
        self._draw_centre(old, msg, arg)

    def _draw_over(self, match):
        """The match result, full screen (not during play)."""
        panel = self.panel
        panel.clear(PRIVATE)
        p = self.player
        self._centred(b"MATCH OVER", 0, WIDTH, 1, PRIVATE, True)
        if match.winner == NULL_PLAYER:
            text = b"NO RESULT"
        elif match.winner == p:
            text = b"YOU WIN!"
        else:
            text = b"YOU LOSE"
        self._centred(text, 0, WIDTH, 3, PRIVATE, False)
        x = panel.number(FONT, INDEX, match.wins[p], 46, 5, 2, PRIVATE, False)
        x = panel.text(FONT, INDEX, b" - ", x, 5, PRIVATE, False)
        panel.number(FONT, INDEX, match.wins[1 - p], x, 5, 1, PRIVATE, False)
        if match.rules.points:
            x = panel.text(FONT, INDEX, b"POINTS ", 22, 6, PRIVATE, False)
            x = panel.number(FONT, INDEX, match.points[p], x, 6, 2, PRIVATE, False)
            x = panel.text(FONT, INDEX, b" - ", x, 6, PRIVATE, False)
            panel.number(FONT, INDEX, match.points[1 - p], x, 6, 2, PRIVATE, False)
        self._centred(b"PRESS ANY KEY", 0, WIDTH, 7, PRIVATE, False)
        self._screen = _SCREEN_OVER
        self._forget()
