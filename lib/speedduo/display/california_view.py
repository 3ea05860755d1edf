"""One player's screen of California Speed (docs/rules.md V9) on their own panel.

Layout, 128x64 px (pages are 8 px rows), upright for the player::

    page 0     YOU 16              THEM 14   cards left in each stock (V9.4: the
                                             one who covers with the last wins)
    pages 1-2     9    K    4    9    2   R  the other player's row (R aims there)
    page 3        1    2    3    4    5      the button of each column (V9.6)
    pages 4-5  L  7    K    -    A    5      your own row (L aims there)
    pages 6-7          moments               countdown, stall, LATE / INVALID, result

The grid (V9.1) is drawn from each player's side: their own row nearest them,
column 1 on the left for both (the core's column = key - 1). The row the
player aims at (``target``: where a press covers when both rows could) is
drawn inverted, as classic Speed inverts the target pile; each player starts
aiming at the other player's row. Face-down cards (the countdown) are
hatched, an empty place is a short dash. Stocks are face down (V9.2): only
their sizes show.

Moments, most important first: the countdown (R3, a 12x16 digit); the
round's result (``BLOCKED``: nobody could cover and the rows went under the
stocks, V9.5; ``YOU WIN`` / ``YOU LOSE``); the stall countdown (R9); a
refused press in the log's word (LATE, R8; INVALID) or TOO FAST.

The grid and the shared moments are ``SHARED``; labels and counts private.
The play path allocates nothing.
"""

from micropython import const  # on the host, Blinka provides this module

from speedduo.display import glyphs
from speedduo.display.base_view import FONT, INDEX, View, class_of
from speedduo.display.game_view import (
    ARG_BITS,
    BACK,
    FORCE,
    M_COUNT,
    M_LOSE,
    M_WIN,
    NOT_AIMED,
    GameView,
)
from speedduo.display.ssd1306 import PRIVATE, SHARED, WIDTH
from speedduo.vocab.cards import DECK_SIZE, JOKER1, NO_CARD
from speedduo.vocab.codes import COUNTDOWN, NULL_PLAYER

_COLS = const(5)
_COL_X0 = const(12)  # column c's card: x = _COL_X0 + c * _COL_DX, 12 px wide
_COL_DX = const(22)
_CARD_W = const(12)
_ROW_X = const(8)  # a row drawn as the target: inverted from here, this wide
_ROW_W = const(108)
_OWN_PAGE = const(4)
_OTHER_PAGE = const(1)
_BAND = const(6)  # the moments' first page
_X = const(40)  # the moments' centre columns (base_view's)
_W = const(48)

# the grid's cards as page rows, plain and inverted (the aimed row), made when this module
# is loaded for a match (about 1.9 KB, given back with the module): the 13 ranks, then a
# face-down card (hatched) and an empty place (a short dash); a card is a copy in C on
# each panel, not a Python loop over its 24 bytes
_FACE_DOWN = const(13)
_EMPTY = const(14)
_SPRITES = glyphs.MEDIUM + b"\x55" * 24 + bytes(14) + b"\x08" * 8 + bytes(2)


def _rows(sprites):
    """Memoryviews of every page row of ``sprites`` (12 bytes each: a sprite's two pages
    one after the other), made once at import so ``Panel.put`` copies without allocating."""
    view = memoryview(sprites)
    rows = []
    for start in range(0, len(sprites), glyphs.MEDIUM_W):
        rows.append(view[start : start + glyphs.MEDIUM_W])
    return tuple(rows)


_CARD_ROWS = _rows(_SPRITES)
_AIMED_ROWS = _rows(bytes(byte ^ 0xFF for byte in _SPRITES))  # every pixel flipped
del _rows  # needed once: its bytecode need not stay on the heap (as sound.py's)
# the band between the cards, both pages: blank, then solid (the aimed row)
_GROUND = memoryview(bytes(10) + b"\xff" * 10)
_GAPS = ((_GROUND[0:10],) * 2, (_GROUND[10:20],) * 2)  # between two cards
_ENDS = ((_GROUND[0:4],) * 2, (_GROUND[10:14],) * 2)  # before the first, after the last


def _sprite(card):
    """What a grid place shows of ``card`` (BACK, NO_CARD): its sprite's number in the rows
    below (a joker, FORCE: the card itself)."""
    if card == BACK:
        return _FACE_DOWN
    if card == NO_CARD:
        return _EMPTY
    return card if card >= JOKER1 else (card % DECK_SIZE) >> 2


class CaliforniaView(GameView):
    """What player ``player`` sees of a California Speed match (``Screens`` drives it)."""

    def __init__(self, panel, player):
        self._grid = bytearray(2 * _COLS)  # the top card drawn on each place (core order)
        GameView.__init__(self, panel, player)

    @staticmethod
    def played(event, viewer):
        """``View.played``: a ``cover`` line's key (its column's) and the covered place,
        drawn in ``viewer``'s own row or the other's (V9.1)."""
        if event["ev"] != "cover":
            return None
        page = _OWN_PAGE if event["row"] == viewer else _OTHER_PAGE
        x = _COL_X0 + event["col"] * _COL_DX
        return 1 + event["col"], x, x + _CARD_W, 8 * page, 8 * (page + glyphs.MEDIUM_PAGES)

    def _forget(self):
        View._forget(self)
        for k in range(2 * _COLS):
            self._grid[k] = FORCE

    def _held(self, core, p):
        """V9.4: the cards left in the stock (the grid's rows go back under it, V9.5)."""
        return len(core.stock[p])

    def _draw_labels(self):
        panel = self.panel
        panel.char(FONT, INDEX, 82, 122, _OTHER_PAGE, PRIVATE, False)  # 'R'
        panel.char(FONT, INDEX, 76, 1, _OWN_PAGE, PRIVATE, False)  # 'L'
        for c in range(_COLS):
            panel.char(FONT, INDEX, 49 + c, _COL_X0 + c * _COL_DX + 3, 3, PRIVATE, False)
        panel.text(FONT, INDEX, b"YOU", 0, 0, PRIVATE, False)
        panel.text(FONT, INDEX, b"THEM", 86, 0, PRIVATE, False)

    def _draw_table(self, core, dealt):
        """What goes out first: a row whose aim changed (its band and cards) and the pile
        covered last; the rest of the grid waits for ``update_moment`` (a round's end
        empties all ten places: the played pile's pixels need not wait for the others)."""
        p = self.player
        target = core.target[p] if dealt else NOT_AIMED
        old = self._target
        self._target = target
        for row in range(2):
            if (row == target) != (row == old):  # the band behind the row, then its cards
                self._band(_OWN_PAGE if row == p else _OTHER_PAGE, 1 if row == target else 0)
                for c in range(_COLS):
                    self._grid[row * _COLS + c] = FORCE
                    self._draw_place(core, dealt, row * _COLS + c)
        if not dealt:
            self._draw_grid(core, dealt)
        elif core.last_cover >= 0:
            self._draw_place(core, dealt, core.last_cover)

    def _draw_grid(self, core, dealt):
        for k in range(2 * _COLS):
            self._draw_place(core, dealt, k)

    def _draw_place(self, core, dealt, k):
        """Place k (core order) when its top changed."""
        card = BACK
        if dealt:
            pile = core.grid[k]
            card = pile[-1] if pile else NO_CARD
        drawn = self._grid[k]
        if card != drawn:
            self._grid[k] = card
            sprite = _sprite(card)
            # (a place shows a rank only: a card on its own rank is not sent)
            if sprite != _sprite(drawn):
                row = k // _COLS
                page = _OWN_PAGE if row == self.player else _OTHER_PAGE
                x = _COL_X0 + (k - row * _COLS) * _COL_DX
                self._draw_sprite(sprite, x, page, row == self._target)

    def _draw_sprite(self, sprite, x, page, aimed):
        """A grid place from the rows made once (a joker of V3 as View draws it)."""
        if sprite >= JOKER1:
            View._draw_card(self, sprite, x, page, SHARED, aimed)
            return
        rows = _AIMED_ROWS if aimed else _CARD_ROWS
        self.panel.put(rows, sprite * glyphs.MEDIUM_PAGES, glyphs.MEDIUM_PAGES, x, page, SHARED)

    def _band(self, page, aimed):
        """The band behind a row (``_ROW_X`` .. ``_ROW_X + _ROW_W - 1``), only between the
        cards: each card is drawn whole over its own 12 columns right after."""
        panel = self.panel
        panel.put(_ENDS[aimed], 0, 2, _ROW_X, page, SHARED)
        for c in range(1, _COLS):
            panel.put(_GAPS[aimed], 0, 2, _COL_X0 + c * _COL_DX - 10, page, SHARED)
        panel.put(_ENDS[aimed], 0, 2, _ROW_X + _ROW_W - 4, page, SHARED)

    def update_moment(self, core, match, now):
        """The stocks' counts, then the moment: after the grid went out, and both shared
        (a cover by a card of the covered rank changes nothing else: both panels at once)."""
        if match.phase != COUNTDOWN:
            self._draw_grid(core, True)  # what _draw_table left: the table went out
            self._head_start(match, True)  # H1's leads gone: the labels before the counts
            p = self.player
            self._count(0, self._held(core, p), 24, SHARED)  # after "YOU "
            self._count(1, self._held(core, 1 - p), 116, SHARED)  # after "THEM "
        View.update_moment(self, core, match, now)

    def _over_reason(self, match):
        """V9.4: the match ends when a player covers with their last stock card."""
        if match.end_why or match.winner == NULL_PLAYER:  # V9.7 max_rounds, R17: the cards left
            return None
        return b"NO CARDS LEFT!" if match.winner == self.player else b"THEY RAN OUT FIRST"

    def _result(self, core):
        return self._result_msg(core) << ARG_BITS

    _word_page = _BAND  # STALL, LATE, INVALID, TOO FAST: drawn by View in the band

    def _draw_centre(self, old, msg, arg):
        """The moments, in the band under the player's own row."""
        if msg != M_COUNT and msg < M_WIN:  # none, stall, refusals: as classic Speed's
            View._draw_centre(self, old, msg, arg)
            return
        cls = class_of(msg)
        self._wipe(cls)
        if msg == M_COUNT:  # R3: a 12x16 digit ("1": the left of the "10" sprite)
            w = 5 if arg == 1 else glyphs.MEDIUM_W
            rank = 9 if arg == 1 else arg - 1
            x = (WIDTH - w) // 2
            start = rank * glyphs.MEDIUM_SIZE
            self.panel.blit(glyphs.MEDIUM, start, glyphs.MEDIUM_W, w, 2, x, _BAND, cls, False)
            self._extent(_BAND, _BAND + 1, x, x + w - 1)
        else:  # the round's result (V9.4, V9.5)
            text = b"YOU WIN" if msg == M_WIN else b"YOU LOSE" if msg == M_LOSE else b"BLOCKED"
            self._centred(text, _X, _W, _BAND, cls, True)
            if msg > M_LOSE:
                self._centred(b"NO PAIRS: NEW ROUND", 0, WIDTH, _BAND + 1, cls, False)
            self._extent(_BAND, _BAND + 1, 0, WIDTH - 1)
