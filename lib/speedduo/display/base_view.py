"""What every player's screen shares: the menu, the notices and the parts each game's
view draws the same way (view.py: classic Speed's; game_view.py: the other games').

A ``View`` is what the screens hold while no match plays (``show_menu``,
``hide_menu``): the board keeps only this module loaded between matches, and each
match loads its game's view on top (docs/device.md: the heap a match holds). Its
parts for a game: the labels, a hand slot's card, the counts, the centre's
moments (its countdown digit is the game's: ``_draw_count``), the refusal and
overflow flashes, and what is on the panel now (the redraw by difference).
"""

from micropython import const  # on the host, Blinka provides this module

from speedduo.display import glyphs
from speedduo.display.ssd1306 import PAGES, PRIVATE, SHARED, WIDTH
from speedduo.vocab.cards import DECK_SIZE, JOKER1, NO_CARD
from speedduo.vocab.codes import OVER

_BACK = const(254)  # a face-down card (countdown)
_UNKNOWN = const(253)  # no target pile (countdown)
_FORCE = const(252)  # nothing known on the panel: draw it
_LEADS = const(251)  # _counts[0] while page 0 shows H1's leads (the countdown)

_CENTRE_X = const(40)  # the moments, between the piles' frames
_CENTRE_W = const(48)
_SLOT_X0 = const(22)
_SLOT_DX = const(18)
_FLASH_MS = const(700)
_STALL_STEPS = const(6)

# centre messages
_M_NONE = const(0)
_M_COUNT = const(1)
_M_STALL = const(2)
_M_FLIP = const(3)
_M_REDEAL = const(4)
_M_LATE = const(5)
_M_INVALID = const(6)
_M_LOCKED = const(7)
_M_KEYS = const(8)
_M_LOCKOUT = const(9)
_M_WIN = const(10)
_M_LOSE = const(11)
_M_REPLAY = const(12)
# _M_FLIP..M_KEYS; the refusals are the log's words (R8 late, invalid, R16 locked)
_ONE_WORD = (b"FLIP!", b"REDEAL", b"LATE", b"INVALID", b"LOCKED", b"TOO FAST")

_MENU_HINT = b"L R:MOVE  1-5:CHOOSE"  # a menu's bottom line

_SCREEN_NONE = const(0)
_SCREEN_PLAY = const(1)
_SCREEN_OVER = const(2)
_SCREEN_MENU = const(3)
_SCREEN_LAST = const(4)  # the match is over: its last table shows, the result next

FONT = glyphs.SMALL
INDEX = glyphs.SMALL_INDEX


def class_of(msg):
    """Countdown, stall, flip, redeal and results are shared; refusals and lock-out private."""
    if _M_COUNT <= msg <= _M_REDEAL or msg >= _M_WIN:
        return SHARED
    return PRIVATE


def _fill(state, value):
    for k in range(len(state)):
        state[k] = value


class View:
    """Player ``player``'s panel: menus and notices, and the parts every game's view draws."""

    _word_page = 2  # the centre's one-word moments (STALL, LATE...): this page

    @staticmethod
    def played(event, viewer):
        """A log line's event (a dict) that put a card on a pile: (the key 1-5 that played
        it, and x0, x1, y0, y1: where that pile is drawn on player ``viewer``'s panel, as
        they see it); None for any other event. The device report measures press to
        pixel and the panels' skew on each play's own pile (host_sim/device_run.py)."""
        return None

    def __init__(self, panel, player):
        self.panel = panel
        self.player = player
        # what is on the panel now
        self._tops = bytearray(2)  # card drawn on the left / right pile
        self._slots = bytearray(5)  # card drawn in each hand slot
        self._counts = bytearray(2)  # cards left on show: own, the opponent's
        self._wins = -1  # the score on show: own hands won, the other's
        self._other_wins = -1
        self._target = _FORCE
        self._msg = _FORCE  # the centre message and its argument
        self._arg = _FORCE
        # where the centre message was drawn: pages page0..page1, columns x0..x1 (x1 -1:
        # nothing drawn; no flag of its own: one attribute fewer keeps a view's dict small)
        self._drawn_page0 = 0
        self._drawn_page1 = 0
        self._drawn_x0 = 0
        self._drawn_x1 = -1
        self._screen = _SCREEN_NONE
        self._flash = _M_NONE  # the refused-play message to flash
        self._flash_until = 0  # ... until then
        self._hand_no = -1
        self._forget()

    def release(self):
        """Let go of the last match (nothing to let go of here)."""

    def _forget(self):
        """Nothing on the panel is known: the next update draws everything."""
        _fill(self._tops, _FORCE)  # (no tuple of the three: building one allocates)
        _fill(self._slots, _FORCE)
        _fill(self._counts, _FORCE)
        self._wins = -1
        self._target = _FORCE
        self._msg = _FORCE
        self._arg = _FORCE
        self._drawn_x1 = -1

    @property
    def moment(self):
        """(message id, argument) shown in the centre now: for tests."""
        return self._msg, self._arg

    @property
    def screen(self):
        return self._screen

    def drawn_slots(self):
        return bytes(self._slots)

    # ---- the app's moments ----

    def show_overflow(self, now):
        """The key queue overflowed: some presses were lost."""
        self._flash = _M_KEYS
        self._flash_until = now + _FLASH_MS

    def show_menu(self, lines, selected, title=None):
        """A full-screen menu or notice (not during play): ``title`` on top, then the
        lines. A menu (``selected`` >= 0) inverts its selected line, scrolls to keep
        it in view and says which keys move and choose on the bottom line."""
        panel = self.panel
        panel.clear(PRIVATE)
        page = 0
        if title:
            self._centred(title, 0, WIDTH, 0, PRIVATE, False)
            page = 1
        last = PAGES
        if selected >= 0:
            last = PAGES - 1
            panel.text(FONT, INDEX, _MENU_HINT, 1, last, PRIVATE, False)
        first = 0
        room = last - page
        if selected >= room:
            first = selected - room + 1
        for i in range(first, len(lines)):
            if page >= last:
                break
            on = i == selected
            if on:
                panel.fill(0, page, WIDTH, 1, 0xFF, PRIVATE)
            panel.text(FONT, INDEX, lines[i], 3, page, PRIVATE, on)
            page += 1
        self._screen = _SCREEN_MENU

    def hide_menu(self):
        """Back from a menu: the next update redraws the game screen."""
        self._screen = _SCREEN_NONE

    # ---- the game ----

    def update_shared(self, hand, match, now):
        """The part both players see at once: pile tops and the centre message. The
        coordinator sends it before the private part is even drawn. Returns True
        while the game screen shows (then ``update_private`` follows)."""
        if not self.update_table(hand, match, now):
            return False
        self.update_moment(hand, match, now)
        return True

    def update_table(self, hand, match, now):
        """The table both players see (the game's view's); True while the game screen shows."""
        return False

    def update_moment(self, hand, match, now):
        """The centre's moment (shared, or the player's own refusal): after the table,
        which the coordinator sends first, so a new pile top waits for no text."""
        self._centre(hand, match, now, match.phase)

    def _centre(self, hand, match, now, phase):
        """Pick the moment the centre shows and draw it when it changed (the game's view's)."""

    def _game_screen(self, match):
        # False under a menu or the match result (drawn once); else the game screen
        screen = self._screen
        if screen == _SCREEN_MENU:
            return False
        if match.phase == OVER:
            if screen == _SCREEN_PLAY:  # the press that ended it shows first (its pile), then
                self._screen = _SCREEN_LAST  # the result at the next refresh (App.step)
                return True
            if screen != _SCREEN_OVER:
                self._draw_over(match)
            return False
        if screen != _SCREEN_PLAY:
            self.panel.clear(PRIVATE)
            self._forget()
            self._draw_labels()
            self._screen = _SCREEN_PLAY
        return True

    def _draw_over(self, match):
        """The match result, full screen (the game's view's)."""

    # ---- parts ----

    def _draw_labels(self):
        """What stays put during play: L and R beside the piles they aim at, each hand
        slot's button number, the YOU / THEM words of the top line."""
        panel = self.panel
        panel.char(FONT, INDEX, 76, 1, 2, PRIVATE, False)  # 'L'
        panel.char(FONT, INDEX, 82, 122, 2, PRIVATE, False)  # 'R'
        for s in range(5):
            panel.char(FONT, INDEX, 49 + s, _SLOT_X0 + s * _SLOT_DX + 3, 5, PRIVATE, False)
        panel.text(FONT, INDEX, b"YOU", 0, 0, PRIVATE, False)
        panel.text(FONT, INDEX, b"THEM", 86, 0, PRIVATE, False)

    def _draw_card(self, card, x, page, cls, invert):  # 12x16 at x, page
        panel = self.panel
        w = glyphs.MEDIUM_W
        ground = 0xFF if invert else 0
        if card == _BACK:
            panel.fill(x, page, w, 2, 0xAA if invert else 0x55, cls)
        elif card == NO_CARD:
            panel.fill(x, page, w, 2, ground, cls)
            panel.fill(x + 2, page + 1, w - 4, 1, ground ^ 0x08, cls)  # a short dash
        elif card >= JOKER1:  # V3: the joker's letter
            panel.fill(x, page, w, 2, ground, cls)
            panel.char(FONT, INDEX, 88, x + 3, page, cls, not invert)
        else:
            start = ((card % DECK_SIZE) >> 2) * glyphs.MEDIUM_SIZE
            panel.blit(glyphs.MEDIUM, start, w, w, 2, x, page, cls, invert)

    def _count(self, k, value, x, cls=PRIVATE):
        if value > 99:
            value = 99
        if self._counts[k] == value:
            return
        self._counts[k] = value
        self.panel.number(FONT, INDEX, value, x, 0, 2, cls, False)

    def _head_start(self, match, dealt):
        """H1 (docs/rules.md): during the countdown, with a head start in force, page 0 shows
        both players' leads (``P1 +0MS  P2 +300MS``, the same on both panels) instead of the
        cards-left line, drawn once (``_counts[0]`` says it is on show: no attribute of its
        own); the labels again when the cards are dealt. True while the leads show."""
        rules = match.rules
        lead0 = getattr(rules, "head_start_p1_ms", 0)
        lead1 = getattr(rules, "head_start_p2_ms", 0)
        if not (lead0 or lead1):
            return False
        counts = self._counts
        panel = self.panel
        if not dealt:
            if counts[0] != _LEADS:
                counts[0] = _LEADS
                counts[1] = _FORCE
                panel.fill(0, 0, WIDTH, 1, 0, PRIVATE)
                x = panel.text(FONT, INDEX, b"P1 +", 4, 0, PRIVATE, False)
                # (each lead's digits: 0, 50, 100-400; no helper: one name fewer on the heap)
                n = 1 if lead0 < 10 else 2 if lead0 < 100 else 3
                x = panel.number(FONT, INDEX, lead0, x, 0, n, PRIVATE, False)
                x = panel.text(FONT, INDEX, b"MS  P2 +", x, 0, PRIVATE, False)
                n = 1 if lead1 < 10 else 2 if lead1 < 100 else 3
                x = panel.number(FONT, INDEX, lead1, x, 0, n, PRIVATE, False)
                panel.text(FONT, INDEX, b"MS", x, 0, PRIVATE, False)
            return True
        if counts[0] == _LEADS:  # the cards are out: the cards-left line again
            counts[0] = _FORCE
            panel.fill(0, 0, WIDTH, 1, 0, PRIVATE)
            self._draw_labels()
            self._wins = -1  # (classic Speed's score on page 0)
        return False

    def _draw_count(self, arg, cls):
        """The countdown's digit ``arg`` in the centre (piles.draw_count for the games
        whose table is two piles)."""

    def _draw_centre(self, old, msg, arg):
        panel = self.panel
        # moments both players share go out with the pile tops; a wipe goes with what it wipes
        cls = class_of(msg if msg != _M_NONE else old)
        if self._drawn_x1 >= 0:  # wipe the previous message, only where it was
            x0 = self._drawn_x0
            page0 = self._drawn_page0
            panel.fill(x0, page0, self._drawn_x1 - x0 + 1, self._drawn_page1 - page0 + 1, 0, cls)
            self._drawn_x1 = -1
        if msg == _M_NONE:
            return
        if msg == _M_COUNT:
            self._draw_count(arg, cls)
            return
        page = self._word_page
        if msg == _M_STALL:
            self._centred(b"STALL", _CENTRE_X, _CENTRE_W, page, cls, False)
            w = arg * (_CENTRE_W // _STALL_STEPS)
            if w:
                x = _CENTRE_X + (_CENTRE_W - w) // 2
                panel.fill(x, page + 1, w, 1, 0x3C, cls)
            self._extent(page, page + 1, _CENTRE_X, _CENTRE_X + _CENTRE_W - 1)
            return
        if msg == _M_LOCKOUT:
            self._centred(b"LOCKED", _CENTRE_X, _CENTRE_W, 2, cls, True)
            x = _CENTRE_X + (_CENTRE_W - 11) // 2
            panel.number(FONT, INDEX, arg, x, 3, 1, cls, False)
            panel.char(FONT, INDEX, 115, x + 6, 3, cls, False)  # 's'
            self._extent(2, 3, _CENTRE_X, _CENTRE_X + _CENTRE_W - 1)
            return
        if msg >= _M_WIN:
            # the reason above the result: "SPEED!" only for the one who went out
            if msg == _M_REPLAY:
                self._centred(b"TIE!", _CENTRE_X, _CENTRE_W, 1, cls, False)
            elif arg == 2:
                self._centred(b"STALL", _CENTRE_X, _CENTRE_W, 1, cls, False)
            elif arg == 1 and msg == _M_WIN:
                self._centred(b"SPEED!", _CENTRE_X, _CENTRE_W, 1, cls, False)
            text = b"YOU WIN" if msg == _M_WIN else b"YOU LOSE" if msg == _M_LOSE else b"REPLAY"
            self._centred(text, _CENTRE_X, _CENTRE_W, 3, cls, True)
            self._extent(1, 3, _CENTRE_X, _CENTRE_X + _CENTRE_W - 1)
            return
        text = _ONE_WORD[msg - _M_FLIP] if _M_FLIP <= msg <= _M_KEYS else b"?"
        self._centred(text, _CENTRE_X, _CENTRE_W, page, cls, msg != _M_FLIP and msg != _M_REDEAL)
        self._extent(page, page, _CENTRE_X, _CENTRE_X + _CENTRE_W - 1)

    def _extent(self, page0, page1, x0, x1):
        self._drawn_page0 = page0
        self._drawn_page1 = page1
        self._drawn_x0 = x0
        self._drawn_x1 = x1

    def _centred(self, text, x0, width, page, cls, invert):
        """``text`` centred in columns x0..x0+width-1; inverted text gets a full-width bar."""
        n = len(text) * 6 - 1
        x = x0 + (width - n) // 2
        if invert:
            self.panel.fill(x0, page, width, 1, 0xFF, cls)
        self.panel.text(FONT, INDEX, text, x, page, cls, invert)
