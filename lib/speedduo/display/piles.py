"""Two centre piles' tops, 24x32 + suit, and the countdown's large digit: the table of
classic Speed (view.py) and Spit (spit_view.py), each view's ``_draw_piles`` and
``_draw_count``.

The sprite rows are made when this module is loaded for a match of those games (about
3.6 KB) and given back with it: the menu and California Speed do without them.
"""

from micropython import const  # on the host, Blinka provides this module

from speedduo.display import glyphs
from speedduo.display.base_view import FONT, INDEX
from speedduo.display.ssd1306 import SHARED, inverted, sprite_rows
from speedduo.game.cards import DECK_SIZE, JOKER1, NO_CARD

_BACK = const(254)  # base_view's: a face-down card
_CENTRE_X = const(40)  # base_view's: the moments, between the piles' frames
_CENTRE_W = const(48)
_PILE_X = (9, 89)  # left, right pile glyph column (the inverted frame: x-1 .. x+30)
_SUIT_DX = const(25)
_FRAME_W = const(32)  # a pile drawn as the target: inverted from x-1, this wide

# every page row of the large rank sprites (pile tops, countdown), as views made once:
# Panel.put copies them in C, so a new pile top is drawn without a loop per byte
_LARGE_ROWS = sprite_rows(glyphs.LARGE, 13, glyphs.LARGE_SIZE, glyphs.LARGE_W, glyphs.LARGE_PAGES)

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
        glyph = INDEX[1 + suit] * glyphs.SMALL_W
        for i in range(glyphs.SMALL_W):
            rows[suit * 6 + i] = glyphs.SMALL[glyph + i]
            rows[24 + suit * 6 + i] = glyphs.SMALL[glyph + i] ^ 0xFF
        rows[24 + suit * 6 + 5] = 0xFF
    return sprite_rows(rows, 8, 6, 6, 1)


_SUIT_ROWS = _suits()
del _suits  # needed once: its bytecode need not stay on the heap (as sound.py's)


def draw_piles(view, left, right, target):
    """Both pile tops (cards ``left``, ``right``) with ``target`` inverted: what
    changed only, a new card before a pile whose aim alone changed."""
    old_target = view._target
    view._target = target
    tops = view._tops
    drawn = 0  # bit side: drawn in the first loop
    for side in range(2):
        card = right if side else left
        if card != tops[side]:
            tops[side] = card
            _draw_top(view.panel, side, card, target, old_target)
            drawn |= 1 << side
    for side in range(2):
        if not drawn >> side & 1 and (side == target) != (side == old_target):
            _draw_top(view.panel, side, tops[side], target, old_target)


def _draw_top(panel, side, card, target, old_target):
    """Pile ``side``'s top; inverted, in a solid frame, when it is the ``target``. The
    frame's columns hold the ground already unless the aim changed (``old_target``):
    every kind of top below leaves them so."""
    x = _PILE_X[side]
    aimed = side == target
    # the frame: solid when this is the player's target pile, else blank
    ground = 0xFF if aimed else 0
    if card == NO_CARD or card >= JOKER1:  # (their glyphs leave the card's area open)
        panel.fill(x - 1, 1, _FRAME_W, 4, ground, SHARED)
    elif aimed != (side == old_target):  # the card's area is drawn whole below
        # the frame's column before the card and the 7 after it (only when the aim
        # changed: fills, not sprite rows, which would hold about 270 bytes of heap)
        panel.fill(x - 1, 1, 1, 4, ground, SHARED)
        panel.fill(x + glyphs.LARGE_W, 1, _FRAME_W - 1 - glyphs.LARGE_W, 4, ground, SHARED)
    if card == _BACK:
        panel.fill(x, 1, glyphs.LARGE_W, 4, 0xAA if aimed else 0x55, SHARED)
        return
    if card == NO_CARD:  # an empty pile (Spit: only one player could spit): a dash
        panel.fill(x + 4, 3, glyphs.LARGE_W - 8, 1, 0xE7 if aimed else 0x18, SHARED)
        return
    if card >= JOKER1:  # V3: no sprite; the joker's letter, as in its log name X1/X2
        panel.char(FONT, INDEX, 88, x + 9, 2, SHARED, aimed)
        return
    rank = (card % DECK_SIZE) >> 2  # (V4: a second deck's card has the same rank)
    rows = _AIMED_ROWS if aimed else _LARGE_ROWS
    panel.put(rows, rank * glyphs.LARGE_PAGES, glyphs.LARGE_PAGES, x, 1, SHARED)
    panel.put(_SUIT_ROWS, (card & 3) + (4 if aimed else 0), 1, x + _SUIT_DX, 1, SHARED)


def draw_count(view, arg, cls):
    """R3's countdown: the large digit ``arg`` (1-9) in the centre."""
    panel = view.panel
    if arg == 1:  # the "1" of the "10" sprite
        x = _CENTRE_X + (_CENTRE_W - 11) // 2
        panel.blit(glyphs.LARGE, 9 * glyphs.LARGE_SIZE, 24, 11, 4, x, 1, cls, False)
        view._extent(1, 4, x, x + 10)
    else:
        x = _CENTRE_X + (_CENTRE_W - 24) // 2
        first = (arg - 1) * glyphs.LARGE_PAGES  # rank 1 is "2"
        panel.put(_LARGE_ROWS, first, glyphs.LARGE_PAGES, x, 1, cls)
        view._extent(1, 4, x, x + 23)
