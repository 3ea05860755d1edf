"""The STATS screen: each player's numbers on their own panel, for the menu's game mode.

Wins and the fastest hand in the small font drawn twice as large (10x16 per
character: readable at arm's length), the rest in the small font. Any number
key goes back to the menu; one player holding L and R together for
``RESET_HOLD_MS`` sets every number back to 0 (the screen counts it down).
Imported only when STATS is chosen; not on the play path.
"""

import keypad
import supervisor
from micropython import const  # on the host, Blinka provides this module

from speedduo.display import glyphs
from speedduo.display.ssd1306 import PRIVATE, WIDTH
from speedduo.host.stats import MODE_NAMES, mode_of
from speedduo.vocab.codes import KEY_L, KEY_R, KEYS_PER_PLAYER
from speedduo.vocab.ticks import ticks_diff

RESET_HOLD_MS = const(3000)
FOOTER = "L+R 3S=RESET 1-5=BACK"
_BIG_W = const(12)  # a character cell of the doubled font


def _spread():
    """Each 4-bit nibble with every bit doubled (a column byte of the doubled font)."""
    out = bytearray(16)
    for n in range(16):
        for bit in range(4):
            if n >> bit & 1:
                out[n] |= 3 << (2 * bit)
    return out


_SPREAD = _spread()


def big_text(panel, text, x, page):
    """``text`` in the small font at twice its size, two pages tall, at column x."""
    font = glyphs.SMALL
    index = glyphs.SMALL_INDEX
    width = len(text) * _BIG_W
    if x + width > WIDTH:
        width = (WIDTH - x) // _BIG_W * _BIG_W
    sprite = bytearray(2 * width)
    for i in range(width // _BIG_W):
        glyph = index[ord(text[i])]
        if glyph == 255:
            continue
        for c in range(glyphs.SMALL_W):
            column = font[glyph * glyphs.SMALL_W + c]
            at = i * _BIG_W + 2 * c
            sprite[at] = sprite[at + 1] = _SPREAD[column & 15]
            sprite[width + at] = sprite[width + at + 1] = _SPREAD[column >> 4]
    panel.blit(sprite, 0, width, width, 2, x, page, PRIVATE)


def seconds(ms):
    """A hand time as the screen shows it: 23.4S, 123S, or - for none."""
    if not ms:
        return "-"
    if ms < 100000:
        return "%d.%dS" % (ms // 1000, ms // 100 % 10)
    return "%dS" % (ms // 1000)


def lines_for(stats, mode, p):
    """(title, big lines, small lines) of player ``p``'s panel."""
    matches, hands = stats.totals(mode)
    wins, hands_won, best_ms, streak, best_streak = stats.player(mode, p)
    return (
        "P%d %s" % (p + 1, MODE_NAMES[mode]),
        ("WINS %d/%d" % (wins, matches), "BEST " + seconds(best_ms)),
        ("STREAK %d (MAX %d)" % (streak, best_streak), "HANDS WON %d/%d" % (hands_won, hands)),
    )


def draw(screens, stats, mode, footer):
    for p in range(2):
        title, big, small = lines_for(stats, mode, p)
        screens.views[p].show_menu((), -1, title)
        panel = screens.panels[p]
        big_text(panel, big[0], 2, 1)
        big_text(panel, big[1], 2, 3)
        panel.text(glyphs.SMALL, glyphs.SMALL_INDEX, small[0], 1, 5, PRIVATE)
        panel.text(glyphs.SMALL, glyphs.SMALL_INDEX, small[1], 1, 6, PRIVATE)
        _footer(panel, footer)


def _footer(panel, text):
    panel.fill(0, 7, WIDTH, 1, 0, PRIVATE)
    panel.text(glyphs.SMALL, glyphs.SMALL_INDEX, text, 1, 7, PRIVATE)
    panel.flush()


def show_stats(keys, screens, stats, rules, feed):
    """The stats screen until a number key is pressed (see the module docstring)."""
    mode = mode_of(rules)
    draw(screens, stats, mode, FOOTER)
    event = getattr(keys.events, "Event", keypad.Event)()  # the PIO reader's, or keypad's
    held = bytearray(2 * KEYS_PER_PLAYER)
    keys.events.clear()
    start = supervisor.ticks_ms()
    since = -1  # when one player's L and R were both down (ticks_ms)
    shown = -1  # the countdown second on the footer
    while True:
        feed()
        now = supervisor.ticks_ms()
        screens.recover(ticks_diff(now, start))
        while keys.events.get_into(event):
            k = event.key_number
            key = k % KEYS_PER_PLAYER
            if key == KEY_L or key == KEY_R:
                held[k] = 1 if event.pressed else 0
            elif event.pressed:
                screens.hide_menu()
                return
        both = False
        for p in range(2):
            base = p * KEYS_PER_PLAYER
            if held[base + KEY_L] and held[base + KEY_R]:
                both = True
        if not both:
            if shown > 0:  # let go before the end: nothing reset
                for p in range(2):
                    _footer(screens.panels[p], FOOTER)
            since = -1
            shown = -1
            continue
        if since < 0:
            since = now
        if shown == 0:
            continue  # done: let go first
        left = RESET_HOLD_MS - ticks_diff(now, since)
        if left <= 0:
            stats.reset()
            draw(screens, stats, mode, "STATS RESET")
            shown = 0
        elif (left + 999) // 1000 != shown:
            shown = (left + 999) // 1000
            for p in range(2):
                _footer(screens.panels[p], "KEEP HOLDING... %d" % shown)
