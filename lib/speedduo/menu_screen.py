"""A full-screen menu or notice on one player's panel (``view.PlayerView.show_menu``).

Loaded while the menu shows and forgotten during a match (``board_io``), so the match's
heap does not hold it. Not on the play path: it may build strings.
"""

from speedduo import glyphs
from speedduo.ssd1306 import PAGES, PRIVATE, WIDTH

_MENU_HINT = b"L R:MOVE  1-5:CHOOSE"  # a menu's bottom line


def draw(view, lines, selected, title):
    """``title`` on top, then the lines. A menu (``selected`` >= 0) inverts its selected
    line, scrolls to keep it in view and says which keys move and choose on the bottom
    line."""
    panel = view.panel
    font = glyphs.SMALL
    index = glyphs.SMALL_INDEX
    panel.clear(PRIVATE)
    page = 0
    if title:
        view._centred(title, 0, WIDTH, 0, PRIVATE, False)
        page = 1
    last = PAGES
    if selected >= 0:
        last = PAGES - 1
        panel.text(font, index, _MENU_HINT, 1, last, PRIVATE, False)
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
        panel.text(font, index, lines[i], 3, page, PRIVATE, on)
        page += 1
