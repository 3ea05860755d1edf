"""One player's view of the game on their own panel (drawn upright for that player).

Layout, 128x64 px (pages are 8 px rows)::

    page 0    D15 S5   1-0        OPP25    own draw / side pile, score, opponent's cards
    pages 1-4  [pile]  moments   [pile]    pile tops 24x32 + suit; centre: countdown,
                                           stall, flip, refused play, lock-out, results
    page 5     ^^^^              (target)  arrows under the target pile
    pages 6-7    A   7   -   Q   3         hand slots 1-5, above buttons 1-5
                 L   1   2   3   4   5   R  (the buttons under the panel)

The 7 buttons split the width into 7 columns of 18 px; slot s sits over
button s+1. The pile drawn on the left is ``left_pile`` (0 by default for both
players), so the L button means "the left pile" for the input code.

``update(hand, match, now)`` compares the state with small caches of what is
on the panel and redraws only what changed; pile tops (and moments both
players share: countdown, stall, flip, hand result) are marked ``SHARED`` so
the coordinator sends them to both panels before anything private. The play
path allocates nothing. ``show_refused``, ``show_overflow`` and ``show_menu``
are the app's "moments".
"""

from micropython import const  # on the host, Blinka provides this module

from speedduo import glyphs
from speedduo.cards import NO_CARD
from speedduo.ssd1306 import PAGES, PRIVATE, SHARED, WIDTH

# match phases (speedduo.match)
_COUNTDOWN = const(0)
_PLAYING = const(1)
_RESULT = const(2)
_OVER = const(3)
_NULL = const(2)  # no winner
_END_OUT = const(1)
_END_DEAD_STALL = const(2)
_END_CLAIM = const(4)

# refusal reasons for show_refused (the core's play() results)
LATE = const(1)
INVALID = const(2)
LOCKED = const(3)

_BACK = const(254)  # a face-down card (countdown)
_UNKNOWN = const(253)  # no target pile (countdown)
_FORCE = const(252)  # nothing known on the panel: draw it

# the view's state bytes
_S_TOPS = const(0)  # 2: card drawn on the left / right pile
_S_SLOTS = const(2)  # 5: card drawn in each hand slot
_S_COUNTS = const(7)  # 5: own draw, own side, opponent's cards, own wins, other wins
_S_EXT = const(12)  # 4: centre message extent: page0, page1, x0, x1 (page0 255: none)
_S_TARGET = const(16)
_S_MSG = const(17)
_S_ARG = const(18)
_S_SCREEN = const(19)
_S_FLASH = const(20)  # the refused-play message to flash
_S_REDEALT = const(21)
_S_SIDES = const(22)
_S_REDEALS = const(23)
_S_SIZE = const(24)

_PILE_X = (10, 94)  # left, right pile glyph column
_SUIT_DX = const(25)
_CENTRE_X = const(44)
_CENTRE_W = const(42)
_SLOT_X0 = const(22)
_SLOT_DX = const(18)
_FLASH_MS = const(700)
_FLIP_MS = const(800)
_STALL_STEPS = const(6)

# centre messages
_M_NONE = const(0)
_M_COUNT = const(1)
_M_STALL = const(2)
_M_FLIP = const(3)
_M_REDEAL = const(4)
_M_LATE = const(5)
_M_MISS = const(6)
_M_LOCKED = const(7)
_M_KEYS = const(8)
_M_LOCKOUT = const(9)
_M_WIN = const(10)
_M_LOSE = const(11)
_M_REPLAY = const(12)
_ONE_WORD = (b"FLIP!", b"REDEAL", b"LATE", b"MISS", b"LOCKED", b"KEYS!")  # _M_FLIP.._M_KEYS

_SCREEN_NONE = const(0)
_SCREEN_PLAY = const(1)
_SCREEN_OVER = const(2)
_SCREEN_MENU = const(3)

_FONT = glyphs.SMALL
_INDEX = glyphs.SMALL_INDEX


def _class_of(msg):
    """Countdown, stall, flip, redeal and results are shared; refusals and lock-out private."""
    if _M_COUNT <= msg <= _M_REDEAL or msg >= _M_WIN:
        return SHARED
    return PRIVATE


class PlayerView:
    """What player ``player`` sees, kept in sync with the game by ``update``."""

    def __init__(self, panel, player, left_pile=0):
        self.panel = panel
        self.player = player
        self.left_pile = left_pile
        # what is on the panel, in one bytearray (see the _S_ offsets)
        self._st = bytearray(_S_SIZE)
        self._st[_S_SCREEN] = _SCREEN_NONE
        self._flash_until = 0  # a refused-play message shows until then
        self._flip_until = 0
        self._hand_no = -1
        self._forget()

    def _forget(self):
        """Nothing on the panel is known: the next update draws everything."""
        st = self._st
        for k in range(_S_TOPS, _S_COUNTS + 5):
            st[k] = _FORCE
        st[_S_TARGET] = _FORCE
        st[_S_MSG] = _FORCE
        st[_S_ARG] = _FORCE
        st[_S_EXT] = 255

    @property
    def moment(self):
        """(message id, argument) shown in the centre now: for tests."""
        return self._st[_S_MSG], self._st[_S_ARG]

    @property
    def screen(self):
        return self._st[_S_SCREEN]

    def drawn_slots(self):
        return bytes(self._st[_S_SLOTS : _S_SLOTS + 5])

    # ---- the app's moments ----

    def show_refused(self, why, now):
        """A press was refused: LATE (lost a race, R8), INVALID (does not fit), LOCKED (R16)."""
        self._st[_S_FLASH] = _M_LATE if why == LATE else _M_MISS if why == INVALID else _M_LOCKED
        self._flash_until = now + _FLASH_MS

    def show_overflow(self, now):
        """The key queue overflowed: some presses were lost."""
        self._st[_S_FLASH] = _M_KEYS
        self._flash_until = now + _FLASH_MS

    def show_menu(self, lines, selected, title=None):
        """A full-screen menu (not during play): ``title`` on top, ``selected`` line inverted."""
        panel = self.panel
        panel.clear(PRIVATE)
        page = 0
        if title:
            self._centred(title, 0, WIDTH, 0, PRIVATE, True)
            page = 1
        first = 0
        room = PAGES - page
        if selected >= room:
            first = selected - room + 1
        for i in range(first, len(lines)):
            if page >= PAGES:
                break
            on = i == selected
            if on:
                panel.fill(0, page, WIDTH, 1, 0xFF, PRIVATE)
            panel.text(_FONT, _INDEX, lines[i], 3, page, PRIVATE, on)
            page += 1
        self._st[_S_SCREEN] = _SCREEN_MENU

    def hide_menu(self):
        """Back from a menu: the next update redraws the game screen."""
        self._st[_S_SCREEN] = _SCREEN_NONE

    # ---- the game ----

    def update(self, hand, match, now):
        """Redraw what changed since the last update (allocation-free while playing)."""
        screen = self._st[_S_SCREEN]
        if screen == _SCREEN_MENU:
            return
        phase = match.phase
        if phase == _OVER:
            if screen != _SCREEN_OVER:
                self._draw_over(match)
            return
        panel = self.panel
        if screen != _SCREEN_PLAY:
            panel.clear(PRIVATE)
            self._forget()
            self._st[_S_SCREEN] = _SCREEN_PLAY
        p = self.player
        dealt = phase != _COUNTDOWN
        if dealt and hand.hand_no != self._hand_no:
            self._hand_no = hand.hand_no
            self._st[_S_SIDES] = hand.side_n[0] + hand.side_n[1]
            self._st[_S_REDEALS] = hand.redeals & 0xFF
            self._flip_until = 0
            self._flash_until = 0
        # pile tops: shared
        for side in range(2):
            card = hand.top(side ^ self.left_pile) if dealt else _BACK
            if card != self._st[_S_TOPS + side]:
                self._st[_S_TOPS + side] = card
                self._draw_top(side, card)
        # hand slots
        base = p * 5
        for s in range(5):
            card = hand.hand[base + s] if dealt else _BACK
            if card != self._st[_S_SLOTS + s]:
                self._st[_S_SLOTS + s] = card
                self._draw_slot(s, card)
        # counts and score
        q = 1 - p
        if dealt:
            self._count(0, hand.draw_n[p], 0, 68)  # 'D'
            self._count(1, hand.side_n[p], 24, 83)  # 'S'
            self._count(2, hand.cards_left(q), 92, 0)
        self._score(match.wins[p], match.wins[q])
        # target pile
        target = hand.target[p] if dealt else _UNKNOWN
        if target != self._st[_S_TARGET]:
            self._draw_target(target)
        # flips and redeals (R9, R10) seen as the side piles shrink / the redeal count grows
        if dealt:
            sides = hand.side_n[0] + hand.side_n[1]
            if hand.redeals & 0xFF != self._st[_S_REDEALS]:
                self._st[_S_REDEALS] = hand.redeals & 0xFF
                self._st[_S_REDEALT] = 1
                self._flip_until = now + _FLIP_MS
            elif sides < self._st[_S_SIDES]:
                self._st[_S_REDEALT] = 0
                self._flip_until = now + _FLIP_MS
            self._st[_S_SIDES] = sides
        self._centre(hand, match, now, phase)

    # ---- parts ----

    def _draw_top(self, side, card):
        panel = self.panel
        x = _PILE_X[side]
        if card == _BACK:
            panel.fill(x, 1, glyphs.LARGE_W, 4, 0x55, SHARED)
            panel.fill(x + _SUIT_DX, 1, 6, 1, 0, SHARED)
            return
        rank = card >> 2
        if rank > 12:  # no sprite (V3 jokers): a blank card
            panel.fill(x, 1, glyphs.LARGE_W, 4, 0, SHARED)
            panel.char(_FONT, _INDEX, 63, x + 9, 2, SHARED, False)
            return
        start = rank * glyphs.LARGE_SIZE
        panel.blit(glyphs.LARGE, start, glyphs.LARGE_W, glyphs.LARGE_W, 4, x, 1, SHARED, False)
        panel.char(_FONT, _INDEX, 1 + (card & 3), x + _SUIT_DX, 1, SHARED, False)

    def _draw_slot(self, slot, card):
        panel = self.panel
        x = _SLOT_X0 + slot * _SLOT_DX
        w = glyphs.MEDIUM_W
        if card == _BACK:
            panel.fill(x, 6, w, 2, 0x55, PRIVATE)
        elif card == NO_CARD or card >> 2 > 12:
            panel.fill(x, 6, w, 2, 0, PRIVATE)
            panel.fill(x + 2, 7, w - 4, 1, 0x08, PRIVATE)  # a short dash: empty slot
        else:
            start = (card >> 2) * glyphs.MEDIUM_SIZE
            panel.blit(glyphs.MEDIUM, start, w, w, 2, x, 6, PRIVATE, False)

    def _count(self, k, value, x, label):
        if value > 99:
            value = 99
        if self._st[_S_COUNTS + k] == value:
            return
        self._st[_S_COUNTS + k] = value
        panel = self.panel
        if label:
            x = panel.char(_FONT, _INDEX, label, x, 0, PRIVATE, False)
        else:
            x = panel.text(_FONT, _INDEX, b"OPP", x, 0, PRIVATE, False)
        panel.number(_FONT, _INDEX, value, x, 0, 2, PRIVATE, False)

    def _score(self, mine, theirs):
        st = self._st
        if st[_S_COUNTS + 3] == mine and st[_S_COUNTS + 4] == theirs:
            return
        st[_S_COUNTS + 3] = mine
        st[_S_COUNTS + 4] = theirs
        panel = self.panel
        x = panel.number(_FONT, _INDEX, mine, 52, 0, 1, PRIVATE, False)
        x = panel.char(_FONT, _INDEX, 45, x, 0, PRIVATE, False)  # '-'
        panel.number(_FONT, _INDEX, theirs, x, 0, 1, PRIVATE, False)

    def _draw_target(self, target):
        panel = self.panel
        self._st[_S_TARGET] = target
        for side in range(2):
            x = _PILE_X[side]
            on = target != _UNKNOWN and (side ^ self.left_pile) == target
            if on:
                for k in range(4):
                    panel.char(_FONT, _INDEX, 5, x + k * 6, 5, PRIVATE, False)
            else:
                panel.fill(x, 5, 24, 1, 0, PRIVATE)

    def _centre(self, hand, match, now, phase):
        """Pick the moment the centre shows (one at a time, most important first)."""
        p = self.player
        t = now - match.hand_start
        msg = _M_NONE
        arg = 0
        if phase == _COUNTDOWN:
            left = match.hand_start - now
            arg = (left + 999) // 1000
            if arg < 1:
                arg = 1
            if arg > 9:
                arg = 9
            msg = _M_COUNT
        elif phase == _RESULT or hand.over:
            winner = hand.winner
            msg = _M_REPLAY if winner == _NULL else _M_WIN if winner == p else _M_LOSE
            why = hand.end_why
            arg = 1 if why == _END_OUT or why == _END_CLAIM else 2 if why == _END_DEAD_STALL else 0
        elif now < self._flip_until:
            msg = _M_REDEAL if self._st[_S_REDEALT] else _M_FLIP
        elif hand.stall_due >= 0:
            total = match.rules.stall_countdown_ms
            left = hand.stall_due - t
            if left < 0:
                left = 0
            msg = _M_STALL
            arg = (left * _STALL_STEPS + total - 1) // total if total else 0
        elif now < self._flash_until:
            msg = self._st[_S_FLASH]
        elif hand.locked_until[p] > t:
            msg = _M_LOCKOUT
            arg = (hand.locked_until[p] - t + 999) // 1000
        if msg == self._st[_S_MSG] and arg == self._st[_S_ARG]:
            return
        old = self._st[_S_MSG]
        self._st[_S_MSG] = msg
        self._st[_S_ARG] = arg
        self._draw_centre(old, msg, arg)

    def _draw_centre(self, old, msg, arg):
        panel = self.panel
        # moments both players share go out with the pile tops; a wipe goes with what it wipes
        cls = _class_of(msg if msg != _M_NONE else old)
        st = self._st
        e = _S_EXT
        if st[e] != 255:  # wipe the previous message, only where it was
            panel.fill(st[e + 2], st[e], st[e + 3] - st[e + 2] + 1, st[e + 1] - st[e] + 1, 0, cls)
            st[e] = 255
        if msg == _M_NONE:
            return
        if msg == _M_COUNT:
            if arg == 1:  # the "1" of the "10" sprite
                x = _CENTRE_X + (_CENTRE_W - 11) // 2
                panel.blit(glyphs.LARGE, 9 * glyphs.LARGE_SIZE, 24, 11, 4, x, 1, cls, False)
                self._extent(1, 4, x, x + 10)
            else:
                x = _CENTRE_X + (_CENTRE_W - 24) // 2
                start = (arg - 1) * glyphs.LARGE_SIZE  # rank 1 is "2"
                panel.blit(glyphs.LARGE, start, 24, 24, 4, x, 1, cls, False)
                self._extent(1, 4, x, x + 23)
            return
        if msg == _M_STALL:
            self._centred(b"STALL", _CENTRE_X, _CENTRE_W, 2, cls, False)
            w = arg * (_CENTRE_W // _STALL_STEPS)
            if w:
                x = _CENTRE_X + (_CENTRE_W - w) // 2
                panel.fill(x, 3, w, 1, 0x3C, cls)
            self._extent(2, 3, _CENTRE_X, _CENTRE_X + _CENTRE_W - 1)
            return
        if msg == _M_LOCKOUT:
            self._centred(b"LOCK", _CENTRE_X, _CENTRE_W, 2, cls, True)
            x = _CENTRE_X + (_CENTRE_W - 11) // 2
            panel.number(_FONT, _INDEX, arg, x, 3, 1, cls, False)
            panel.char(_FONT, _INDEX, 115, x + 6, 3, cls, False)  # 's'
            self._extent(2, 3, _CENTRE_X, _CENTRE_X + _CENTRE_W - 1)
            return
        if msg >= _M_WIN:
            if arg == 1:
                self._centred(b"SPEED!", _CENTRE_X, _CENTRE_W, 1, cls, False)
            elif arg == 2:
                self._centred(b"STALL", _CENTRE_X, _CENTRE_W, 1, cls, False)
            text = b"YOU WIN" if msg == _M_WIN else b"LOSE" if msg == _M_LOSE else b"REPLAY"
            self._centred(text, _CENTRE_X, _CENTRE_W, 3, cls, True)
            self._extent(1, 3, _CENTRE_X, _CENTRE_X + _CENTRE_W - 1)
            return
        text = _ONE_WORD[msg - _M_FLIP] if _M_FLIP <= msg <= _M_KEYS else b"?"
        self._centred(text, _CENTRE_X, _CENTRE_W, 2, cls, msg != _M_FLIP and msg != _M_REDEAL)
        self._extent(2, 2, _CENTRE_X, _CENTRE_X + _CENTRE_W - 1)

    def _extent(self, page0, page1, x0, x1):
        st = self._st
        st[_S_EXT] = page0
        st[_S_EXT + 1] = page1
        st[_S_EXT + 2] = x0
        st[_S_EXT + 3] = x1

    def _centred(self, text, x0, width, page, cls, invert):
        """``text`` centred in columns x0..x0+width-1; inverted text gets a full-width bar."""
        n = len(text) * 6 - 1
        x = x0 + (width - n) // 2
        if invert:
            self.panel.fill(x0, page, width, 1, 0xFF, cls)
        self.panel.text(_FONT, _INDEX, text, x, page, cls, invert)

    def _draw_over(self, match):
        """The match result, full screen (not during play)."""
        panel = self.panel
        panel.clear(PRIVATE)
        p = self.player
        self._centred(b"MATCH OVER", 0, WIDTH, 1, PRIVATE, True)
        if match.winner == _NULL:
            text = b"NO RESULT"
        elif match.winner == p:
            text = b"YOU WIN!"
        else:
            text = b"YOU LOSE"
        self._centred(text, 0, WIDTH, 3, PRIVATE, False)
        x = panel.number(_FONT, _INDEX, match.wins[p], 46, 5, 2, PRIVATE, False)
        x = panel.text(_FONT, _INDEX, b" - ", x, 5, PRIVATE, False)
        panel.number(_FONT, _INDEX, match.wins[1 - p], x, 5, 1, PRIVATE, False)
        if match.rules.points:
            x = panel.text(_FONT, _INDEX, b"POINTS ", 22, 6, PRIVATE, False)
            x = panel.number(_FONT, _INDEX, match.points[p], x, 6, 2, PRIVATE, False)
            x = panel.text(_FONT, _INDEX, b" - ", x, 6, PRIVATE, False)
            panel.number(_FONT, _INDEX, match.points[1 - p], x, 6, 2, PRIVATE, False)
        self._centred(b"PRESS ANY KEY", 0, WIDTH, 7, PRIVATE, False)
        self._st[_S_SCREEN] = _SCREEN_OVER
        self._forget()
