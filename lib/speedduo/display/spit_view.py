"""One player's screen of Spit (docs/rules.md V8) on their own panel, upright for them.

Layout, 128x64 px (pages are 8 px rows), classic Speed's (view.py) where it can be::

    page 0    YOU 20              THEM 18    cards each still holds (places + spit cards)
    pages 1-4 L [pile]  moments  [pile] R    the spit piles' tops, 24x32 + suit; the target
                        SPIT 6               pile (L/R) inverted; centre: countdown,
                                             SPIT!, stall, LATE / INVALID, SLAP!, result;
                                             under it the player's spit cards left
    page 5       1    2    3    4    5       the button of each stockpile place
    pages 6-7    7   ###   -    Q    3       the places' tops: face up as its rank,
                                             face down hatched (press to turn it, V8.4),
                                             an empty place a short dash

Moments, most important first: the countdown (R3); the round's result
(``YOU WIN`` / ``YOU LOSE`` for who emptied their places first, ``BLOCKED``
when nobody did, and ``TOOK n``: the cards of the spit pile this player got
from the slap, V8.8/V8.9); ``SLAP!`` with each pile's size once the round
stopped (V8.8: L or R slaps that pile); ``SPIT!`` for 0.8 s when spit cards
are turned (V8.2, V8.6); the stall countdown (R9); a refused press in the
log's word (LATE, R8; INVALID) or TOO FAST.

Spit piles are shared (``SHARED``); places, counts and labels private. The
play path allocates nothing.
"""

from micropython import const  # on the host, Blinka provides this module

from speedduo.display.base_view import FONT, INDEX, View
from speedduo.display.game_view import (
    ARG_BITS,
    BACK,
    FORCE,
    M_LOSE,
    M_SLAP,
    M_SPIT,
    M_WIN,
    NOT_AIMED,
    GameView,
)
from speedduo.display.piles import draw_count, draw_piles, places, played_on_pile
from speedduo.display.ssd1306 import PRIVATE, SHARED
from speedduo.vocab.cards import NO_CARD
from speedduo.vocab.codes import COUNTDOWN, EV_DEAL, EV_SPIT

_PLACES = const(5)
_SLOT_X0 = const(22)  # place s: x = _SLOT_X0 + s * _SLOT_DX (base_view's hand slots)
_SLOT_DX = const(18)
_X = const(40)  # the centre, between the piles' frames (base_view's)
_W = const(48)
_SPIT_X = const(43)  # "SPIT nn" on page 4, centred
_NOTE_MS = const(800)
_HIDDEN = const(253)  # no spit count on show


class SpitView(GameView):
    """What player ``player`` sees of a Spit match (``Screens`` drives it)."""

    def __init__(self, panel, player):
        GameView.__init__(self, panel, player)
        self._places = places(panel)  # where the pile tops are copied (piles.py)
        self._note_until = 0  # SPIT! on show until then

    _draw_piles = draw_piles  # the spit piles' tops, as classic Speed's (piles.py)
    _draw_count = draw_count
    played = staticmethod(played_on_pile)  # a play of a place's top onto a spit pile

    def _forget(self):
        View._forget(self)
        self._spit_left = FORCE

    def _note(self, kind, now):
        if kind == EV_DEAL or kind == EV_SPIT:  # V8.2 (the opening spit), V8.6/V8.7
            self._note_until = now + _NOTE_MS

    # ---- the table ----

    def _held(self, core, p):
        """V8.9: places, spit cards and cards gathered between rounds (no allocation)."""
        n = len(core.spit[p]) + len(core.held[p])
        places = core.stock[p]
        for s in range(_PLACES):
            n += len(places[s])
        return n

    def _draw_table(self, core, dealt):
        if not dealt:
            self._draw_piles(BACK, BACK, NOT_AIMED)
            return
        left = core.piles[0]
        right = core.piles[1]
        self._draw_piles(
            left[-1] if left else NO_CARD, right[-1] if right else NO_CARD, core.target[self.player]
        )

    def _draw_own(self, core, match, dealt):
        p = self.player
        places = core.stock[p]
        up = core.up[p]
        drawn = self._slots
        for s in range(_PLACES):
            card = BACK
            if dealt:
                place = places[s]
                card = (place[-1] if up[s] else BACK) if place else NO_CARD
            if card != drawn[s]:
                drawn[s] = card
                self._draw_card(card, _SLOT_X0 + s * _SLOT_DX, 6, PRIVATE, False)
        if match.phase == COUNTDOWN:  # the countdown's digit covers page 4 of the centre
            self._spit_left = FORCE
            return
        panel = self.panel
        if core.over:
            if self._spit_left != _HIDDEN:
                panel.fill(_X, 4, _W, 1, 0, PRIVATE)
                self._spit_left = _HIDDEN
            return
        left = len(core.spit[p])
        if left != self._spit_left:
            if self._spit_left >= FORCE:  # (FORCE or _HIDDEN: the word is not on show)
                panel.text(FONT, INDEX, b"SPIT", _SPIT_X, 4, PRIVATE, False)
            self._spit_left = left
            panel.number(FONT, INDEX, left, _SPIT_X + 30, 4, 2, PRIVATE, False)

    # ---- moments ----

    def _moment(self, core, now):
        if core.stopped:  # V8.8: only a slap counts; each pile's size helps choose
            # (a pile holds at most 52 cards: each size fits in 6 bits)
            return M_SLAP << ARG_BITS | len(core.piles[0]) << 6 | len(core.piles[1])
        if now < self._note_until:
            return M_SPIT << ARG_BITS
        return 0

    def _result(self, core):
        pile = core.took[self.player]  # the spit pile this player took (V8.8, V8.9)
        took = len(core.piles[pile]) if pile >= 0 else 0
        return self._result_msg(core) << ARG_BITS | took

    def _draw_centre(self, old, msg, arg):
        if msg < M_WIN:  # countdown, stall, refusals: as classic Speed draws them
            View._draw_centre(self, old, msg, arg)
            return
        self._wipe(SHARED)
        if msg == M_SPIT:
            self._centred(b"SPIT!", _X, _W, 2, SHARED, False)
            self._extent(2, 2, _X, _X + _W - 1)
            return
        panel = self.panel
        if msg == M_SLAP:
            self._centred(b"SLAP!", _X, _W, 1, SHARED, True)
            self._centred(b"L OR R", _X, _W, 2, SHARED, False)
            # each pile's size beside an arrow pointing at it
            panel.char(FONT, INDEX, 7, _X + 1, 3, SHARED, False)
            panel.number(FONT, INDEX, arg >> 6, _X + 7, 3, 2, SHARED, False)
            x = panel.number(FONT, INDEX, arg & 63, _X + 29, 3, 2, SHARED, False)
            panel.char(FONT, INDEX, 8, x + 1, 3, SHARED, False)
        else:  # the round's result (V8.8, V8.9)
            text = b"YOU WIN" if msg == M_WIN else b"YOU LOSE" if msg == M_LOSE else b"BLOCKED"
            self._centred(text, _X, _W, 2, SHARED, True)
            x = panel.text(FONT, INDEX, b"TOOK", _X + 3, 3, SHARED, False)
            panel.number(FONT, INDEX, arg, x, 3, 3, SHARED, False)
        self._extent(1, 3, _X, _X + _W - 1)
