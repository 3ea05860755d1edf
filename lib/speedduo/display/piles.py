"""Two centre piles' tops, 24x32 + suit, and the countdown's large digit: the table of
classic Speed (view.py) and Spit (spit_view.py), each view's ``_draw_piles`` and
``_draw_count``.

The large ranks (``large_ranks.py``, loaded with this module) are read from a stream
(``io.BytesIO``, which refers to them: no copy) into views of the framebuffer that each
view keeps (``places``: 8 rows); the pile a player aims at is inverted where it was
copied. The suit is a character of the small font.
"""

import io

from micropython import const  # on the host, Blinka provides this module

from speedduo.display.base_view import FONT, INDEX
from speedduo.display.large_ranks import LARGE, LARGE_PAGES, LARGE_SIZE, LARGE_W
from speedduo.display.ssd1306 import SHARED
from speedduo.vocab.cards import DECK_SIZE, JOKER1, NO_CARD

_BACK = const(254)  # base_view's: a face-down card
_CENTRE_X = const(40)  # base_view's: the moments, between the piles' frames
_CENTRE_W = const(48)
_PILE_X = (9, 89)  # left, right pile glyph column (the inverted frame: x-1 .. x+30)
_SUIT_DX = const(25)
_FRAME_W = const(32)  # a pile drawn as the target: inverted from x-1, this wide

# the large ranks (the pile tops), a page row after another: Panel.put_from
# copies them in C, so a new pile top is drawn without a loop per byte (the aimed one
# is then inverted where it was copied)
_RANKS = io.BytesIO(LARGE)


def places(panel):
    """Where ``panel``'s pile tops go, as views of its framebuffer (each pile's four rank
    rows): made with the view, not during play (making them allocates)."""
    rows = panel.places(_PILE_X[0], 1, LARGE_W, LARGE_PAGES)
    rows += panel.places(_PILE_X[1], 1, LARGE_W, LARGE_PAGES)
    return tuple(rows)


def pile_region(pile):
    """(x0, x1, y0, y1): where pile ``pile``'s top is drawn on a panel, as its viewer sees
    it (the same on both panels: pile 0 on the left). Host tools measure press to pixel
    there (``View.played``)."""
    x = _PILE_X[pile]
    return x, x + _SUIT_DX + 6, 8, 8 * (1 + LARGE_PAGES)


def played_on_pile(event, viewer):
    """``View.played`` for the games whose plays go on these piles (classic Speed, Spit): a
    ``play`` line's key (its slot's) and its pile's region."""
    if event["ev"] != "play":
        return None
    return (1 + event["slot"],) + pile_region(event["pile"])


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
            _draw_top(view, side, card, target, old_target)
            drawn |= 1 << side
    for side in range(2):
        if not drawn >> side & 1 and (side == target) != (side == old_target):
            _draw_top(view, side, tops[side], target, old_target)


def _draw_top(view, side, card, target, old_target):
    """Pile ``side``'s top; inverted, in a solid frame, when it is the ``target``. The
    frame's columns hold the ground already unless the aim changed (``old_target``):
    every kind of top below leaves them so."""
    panel = view.panel
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
        panel.fill(x + LARGE_W, 1, _FRAME_W - 1 - LARGE_W, 4, ground, SHARED)
    if card == _BACK:
        panel.fill(x, 1, LARGE_W, 4, 0xAA if aimed else 0x55, SHARED)
        return
    if card == NO_CARD:  # an empty pile (Spit: only one player could spit): a dash
        panel.fill(x + 4, 3, LARGE_W - 8, 1, 0xE7 if aimed else 0x18, SHARED)
        return
    if card >= JOKER1:  # V3: no sprite; the joker's letter, as in its log name X1/X2
        panel.char(FONT, INDEX, 88, x + 9, 2, SHARED, aimed)
        return
    rank = (card % DECK_SIZE) >> 2  # (V4: a second deck's card has the same rank)
    first = side * LARGE_PAGES
    start = rank * LARGE_SIZE
    panel.put_from(_RANKS, start, view._places, first, LARGE_PAGES, x, 1, SHARED, aimed)
    panel.char(FONT, INDEX, 1 + (card & 3), x + _SUIT_DX, 1, SHARED, aimed)  # the suit (1-4)


def draw_count(view, arg, cls):
    """R3's countdown: the large digit ``arg`` (1-9) in the centre (once a second: a loop
    over its bytes, no places of its own)."""
    if arg == 1:  # the "1" of the "10" sprite
        x = _CENTRE_X + (_CENTRE_W - 11) // 2
        start = 9 * LARGE_SIZE
        width = 11
    else:
        x = _CENTRE_X + (_CENTRE_W - LARGE_W) // 2
        start = (arg - 1) * LARGE_SIZE  # rank 1 is "2"
        width = LARGE_W
    view.panel.blit(LARGE, start, LARGE_W, width, 4, x, 1, cls, False)
    view._extent(1, 4, x, x + width - 1)
