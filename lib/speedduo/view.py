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
"""

from micropython import const  # on the host, Blinka provides this module

from speedduo import glyphs
from speedduo.cards import DECK_SIZE, JOKER1, NO_CARD
from speedduo.codes import (  # not matchlog: the menu and the other games do without it
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
    OVER,
    RESULT,
)
from speedduo.seat import Seat
from speedduo.ssd1306 import PAGES, PRIVATE, SHARED, WIDTH, inverted, sprite_rows

_BACK = const(254)  # a face-down card (countdown)
_UNKNOWN = const(253)  # no target pile (countdown)
_FORCE = const(252)  # nothing known on the panel: draw it

_PILE_X = (9, 89)  # left, right pile glyph column (the inverted frame: x-1 .. x+30)
_SUIT_DX = const(25)
_FRAME_W = const(32)  # a pile drawn as the target: inverted from x-1, this wide
_CENTRE_X = const(40)  # the moments, between the piles' frames
_CENTRE_W = const(48)
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
_M_INVALID = const(6)
_M_LOCKED = const(7)
_M_KEYS = const(8)
_M_LOCKOUT = const(9)
_M_WIN = const(10)
_M_LOSE = const(11)
_M_REPLAY = const(12)
# _M_FLIP.._M_KEYS; the refusals are the log's words (R8 late, invalid, R16 locked)
_ONE_WORD = (b"FLIP!", b"REDEAL", b"LATE", b"INVALID", b"LOCKED", b"TOO FAST")

_MENU_HINT = b"L R:MOVE  1-5:CHOOSE"  # a menu's bottom line

_SCREEN_NONE = const(0)
_SCREEN_PLAY = const(1)
_SCREEN_OVER = const(2)
_SCREEN_MENU = const(3)

_FONT = glyphs.SMALL
# every page row of the large rank sprites (pile tops, countdown), as views made once:
# Panel.put copies them in C, so a new pile top is drawn without a loop per byte
_LARGE_ROWS = sprite_rows(glyphs.LARGE, 13, glyphs.LARGE_SIZE, glyphs.LARGE_W, glyphs.LARGE_PAGES)
_INDEX = glyphs.SMALL_INDEX


# ... and inverted, for the pile a player aims at (1,248 bytes and 52 views, about 2.3 KB
# of heap: an aimed pile top is then a copy in C too, not a Python loop over 96 bytes)
_AIMED_ROWS = sprite_rows(
    inverted(glyphs.LARGE), 13, glyphs.LARGE_SIZE, glyphs.LARGE_W, glyphs.LARGE_PAGES
)


def _suits():
    """The four suits as a pile top shows them (glyph and blank column, 6 bytes), then
    the same inverted: row ``suit + 4 * aimed`` (about 250 bytes)."""
    rows = bytearray(48)
    for suit in range(4):
        glyph = _INDEX[1 + suit] * glyphs.SMALL_W
        for i in range(glyphs.SMALL_W):
            rows[suit * 6 + i] = glyphs.SMALL[glyph + i]
            rows[24 + suit * 6 + i] = glyphs.SMALL[glyph + i] ^ 0xFF
        rows[24 + suit * 6 + 5] = 0xFF
    return sprite_rows(rows, 8, 6, 6, 1)


_SUIT_ROWS = _suits()
# a pile's frame around a rank's sprite, 4 pages: the column before it, the 7 after it,
# each blank then solid (the aimed pile)
_FRAME = memoryview(bytes(7) + b"\xff" * 7)
_FRAME_ROWS = ((_FRAME[0:1],) * 4, (_FRAME[7:8],) * 4, (_FRAME[0:7],) * 4, (_FRAME[7:14],) * 4)


def _class_of(msg):
    """Countdown, stall, flip, redeal and results are shared; refusals and lock-out private."""
    if _M_COUNT <= msg <= _M_REDEAL or msg >= _M_WIN:
        return SHARED
    return PRIVATE


def _fill(state, value):
    for k in range(len(state)):
        state[k] = value


class PlayerView:
    """What player ``player`` sees, kept in sync with the game by ``update``."""

    _word_page = 2  # the centre's one-word moments (STALL, LATE...): this page

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
        # where the centre message was drawn: pages page0..page1, columns x0..x1
        self._drawn = False
        self._drawn_page0 = 0
        self._drawn_page1 = 0
        self._drawn_x0 = 0
        self._drawn_x1 = 0
        self._screen = _SCREEN_NONE
        self._flash = _M_NONE  # the refused-play message to flash
        self._flash_until = 0  # ... until then
        self._redealt = False  # the flip on show came with a redeal (R10)
        self._redeal_t = -1
        self._flip_until = 0
        self._hand_no = -1
        # this player's Seat, made here (not during play: making one allocates) and
        # pointed at each match's hand when its first update comes
        self._seat = Seat(None, player)
        self._forget()

    def release(self):
        """Let go of the last match's hand (and, through it, its log): the match's memory
        goes back to the heap before the next one is built (the next update re-points)."""
        self._seat.hand = None

    def _forget(self):
        """Nothing on the panel is known: the next update draws everything."""
        _fill(self._tops, _FORCE)  # (no tuple of the three: building one allocates)
        _fill(self._slots, _FORCE)
        _fill(self._counts, _FORCE)
        self._wins = -1
        self._target = _FORCE
        self._msg = _FORCE
        self._arg = _FORCE
        self._drawn = False

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
            panel.text(_FONT, _INDEX, _MENU_HINT, 1, last, PRIVATE, False)
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
            panel.text(_FONT, _INDEX, lines[i], 3, page, PRIVATE, on)
            page += 1
        self._screen = _SCREEN_MENU

    def hide_menu(self):
        """Back from a menu: the next update redraws the game screen."""
        self._screen = _SCREEN_NONE

    # ---- the game ----

    def update(self, hand, match, now):
        """Redraw what changed since the last update (allocation-free while playing)."""
        if self.update_shared(hand, match, now):
            self.update_private(hand, match)

    def update_shared(self, hand, match, now):
        """The part both players see at once: pile tops and the centre message. The
        coordinator sends it before the private part is even drawn. Returns True
        while the game screen shows (then ``update_private`` follows)."""
        if not self.update_table(hand, match, now):
            return False
        self.update_moment(hand, match, now)
        return True

    def update_moment(self, hand, match, now):
        """The centre's moment (shared, or the player's own refusal): after the table,
        which the coordinator sends first, so a new pile top waits for no text."""
        self._centre(hand, match, now, match.phase)

    def update_table(self, hand, match, now):
        """The pile tops, the target inverted; a new card before a pile whose aim alone
        changed (the played pile's bytes go out first). Returns True while the game
        screen shows (then ``update_moment`` and ``update_private`` follow)."""
        if not self._game_screen(match):
            return False
        dealt = match.phase != COUNTDOWN
        seat = self._seat
        if seat.hand is not hand:  # a new match: the same seat at its table
            seat.hand = hand
        if dealt and hand.hand_no != self._hand_no:
            self._hand_no = hand.hand_no
            self._flip_until = 0
            self._flash_until = 0
        if dealt:  # pile tops (shared), the target pile inverted (this player's aim)
            self._draw_piles(seat.top(0), seat.top(1), seat.target())
        else:
            self._draw_piles(_BACK, _BACK, _UNKNOWN)
        return True

    def _draw_piles(self, left, right, target):
        """Both pile tops (cards ``left``, ``right``) with ``target`` inverted: what
        changed only, a new card before a pile whose aim alone changed."""
        old_target = self._target
        self._target = target
        tops = self._tops
        drawn = 0  # bit side: drawn in the first loop
        for side in range(2):
            card = right if side else left
            if card != tops[side]:
                tops[side] = card
                self._draw_top(side, card, target, old_target)
                drawn |= 1 << side
        for side in range(2):
            if not drawn >> side & 1 and (side == target) != (side == old_target):
                self._draw_top(side, tops[side], target, old_target)

    def _game_screen(self, match):
        # False under a menu or the match result (drawn once); else the game screen
        screen = self._screen
        if screen == _SCREEN_MENU:
            return False
        if match.phase == OVER:
            if screen != _SCREEN_OVER:
                self._draw_over(match)
            return False
        if screen != _SCREEN_PLAY:
            self.panel.clear(PRIVATE)
            self._forget()
            self._draw_labels()
            self._screen = _SCREEN_PLAY
        return True

    def update_private(self, hand, match):
        """This player's own part: hand slots, cards left, score."""
        p = self.player
        seat = self._seat
        dealt = match.phase != COUNTDOWN
        for s in range(5):
            card = seat.card(s) if dealt else _BACK
            if card != self._slots[s]:
                self._slots[s] = card
                # (private, after the piles: the per-byte diff keeps the bytes sent down)
                self._draw_card(card, _SLOT_X0 + s * _SLOT_DX, 6, PRIVATE, False)
        if dealt:
            self._count(0, seat.cards_left(), 24)  # after "YOU "
            self._count(1, seat.opponent_cards_left(), 116)  # after "THEM "
        self._score(match.wins[p], match.wins[1 - p])

    # ---- parts ----

    def _draw_labels(self):
        """What stays put during play: L and R beside the piles they aim at, each hand
        slot's button number, the YOU / THEM words of the top line."""
        panel = self.panel
        panel.char(_FONT, _INDEX, 76, 1, 2, PRIVATE, False)  # 'L'
        panel.char(_FONT, _INDEX, 82, 122, 2, PRIVATE, False)  # 'R'
        for s in range(5):
            panel.char(_FONT, _INDEX, 49 + s, _SLOT_X0 + s * _SLOT_DX + 3, 5, PRIVATE, False)
        panel.text(_FONT, _INDEX, b"YOU", 0, 0, PRIVATE, False)
        panel.text(_FONT, _INDEX, b"THEM", 86, 0, PRIVATE, False)

    def _draw_top(self, side, card, target, old_target):
        """Pile ``side``'s top; inverted, in a solid frame, when it is the ``target``. The
        frame's columns hold the ground already unless the aim changed (``old_target``):
        every kind of top below leaves them so."""
        panel = self.panel
        x = _PILE_X[side]
        aimed = side == target
        # the frame: solid when this is the player's target pile, else blank
        ground = 0xFF if aimed else 0
        if card == NO_CARD or card >= JOKER1:  # (their glyphs leave the card's area open)
            panel.fill(x - 1, 1, _FRAME_W, 4, ground, SHARED)
        elif aimed != (side == old_target):  # the card's area is drawn whole below
            solid = 1 if aimed else 0
            panel.put(_FRAME_ROWS[solid], 0, 4, x - 1, 1, SHARED)
            panel.put(_FRAME_ROWS[2 + solid], 0, 4, x + glyphs.LARGE_W, 1, SHARED)
        if card == _BACK:
            panel.fill(x, 1, glyphs.LARGE_W, 4, 0xAA if aimed else 0x55, SHARED)
            return
        if card == NO_CARD:  # an empty pile (Spit: only one player could spit): a dash
            panel.fill(x + 4, 3, glyphs.LARGE_W - 8, 1, 0xE7 if aimed else 0x18, SHARED)
            return
        if card >= JOKER1:  # V3: no sprite; the joker's letter, as in its log name X1/X2
            panel.char(_FONT, _INDEX, 88, x + 9, 2, SHARED, aimed)
            return
        rank = (card % DECK_SIZE) >> 2  # (V4: a second deck's card has the same rank)
        rows = _AIMED_ROWS if aimed else _LARGE_ROWS
        panel.put(rows, rank * glyphs.LARGE_PAGES, glyphs.LARGE_PAGES, x, 1, SHARED)
        panel.put(_SUIT_ROWS, (card & 3) + (4 if aimed else 0), 1, x + _SUIT_DX, 1, SHARED)

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
            panel.char(_FONT, _INDEX, 88, x + 3, page, cls, not invert)
        else:
            start = ((card % DECK_SIZE) >> 2) * glyphs.MEDIUM_SIZE
            panel.blit(glyphs.MEDIUM, start, w, w, 2, x, page, cls, invert)

    def _count(self, k, value, x, cls=PRIVATE):
        if value > 99:
            value = 99
        if self._counts[k] == value:
            return
        self._counts[k] = value
        self.panel.number(_FONT, _INDEX, value, x, 0, 2, cls, False)

    def _score(self, mine, theirs):
        if self._wins == mine and self._other_wins == theirs:
            return
        self._wins = mine
        self._other_wins = theirs
        panel = self.panel
        x = panel.number(_FONT, _INDEX, mine, 55, 0, 1, PRIVATE, False)
        x = panel.char(_FONT, _INDEX, 45, x, 0, PRIVATE, False)  # '-'
        panel.number(_FONT, _INDEX, theirs, x, 0, 1, PRIVATE, False)

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
        elif self._seat.locked_until() > t:
            msg = _M_LOCKOUT
            arg = (self._seat.locked_until() - t + 999) // 1000
        if msg == self._msg and arg == self._arg:
            return
        old = self._msg
        self._msg = msg
        self._arg = arg
        self._draw_centre(old, msg, arg)

    def _draw_centre(self, old, msg, arg):
        panel = self.panel
        # moments both players share go out with the pile tops; a wipe goes with what it wipes
        cls = _class_of(msg if msg != _M_NONE else old)
        if self._drawn:  # wipe the previous message, only where it was
            x0 = self._drawn_x0
            page0 = self._drawn_page0
            panel.fill(x0, page0, self._drawn_x1 - x0 + 1, self._drawn_page1 - page0 + 1, 0, cls)
            self._drawn = False
        if msg == _M_NONE:
            return
        if msg == _M_COUNT:
            if arg == 1:  # the "1" of the "10" sprite
                x = _CENTRE_X + (_CENTRE_W - 11) // 2
                panel.blit(glyphs.LARGE, 9 * glyphs.LARGE_SIZE, 24, 11, 4, x, 1, cls, False)
                self._extent(1, 4, x, x + 10)
            else:
                x = _CENTRE_X + (_CENTRE_W - 24) // 2
                first = (arg - 1) * glyphs.LARGE_PAGES  # rank 1 is "2"
                panel.put(_LARGE_ROWS, first, glyphs.LARGE_PAGES, x, 1, cls)
                self._extent(1, 4, x, x + 23)
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
            panel.number(_FONT, _INDEX, arg, x, 3, 1, cls, False)
            panel.char(_FONT, _INDEX, 115, x + 6, 3, cls, False)  # 's'
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
        self._drawn = True
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
        self.panel.text(_FONT, _INDEX, text, x, page, cls, invert)

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
        x = panel.number(_FONT, _INDEX, match.wins[p], 46, 5, 2, PRIVATE, False)
        x = panel.text(_FONT, _INDEX, b" - ", x, 5, PRIVATE, False)
        panel.number(_FONT, _INDEX, match.wins[1 - p], x, 5, 1, PRIVATE, False)
        if match.rules.points:
            x = panel.text(_FONT, _INDEX, b"POINTS ", 22, 6, PRIVATE, False)
            x = panel.number(_FONT, _INDEX, match.points[p], x, 6, 2, PRIVATE, False)
            x = panel.text(_FONT, _INDEX, b" - ", x, 6, PRIVATE, False)
            panel.number(_FONT, _INDEX, match.points[1 - p], x, 6, 2, PRIVATE, False)
        self._centred(b"PRESS ANY KEY", 0, WIDTH, 7, PRIVATE, False)
        self._screen = _SCREEN_OVER
        self._forget()
