"""The bring-up self-test: both panels, all 14 keys and the piezo, checked by eye and ear.

Started by holding Player 1's L while the board powers on (``code.py``), or from the
menu's SELF TEST. Each panel shows, for its player::

    page 0    P1 I2C0 0x3C          which panel, its bus and address
    page 1    checkerboard          every other pixel: a shifted or garbled panel shows
    page 2    all pixels on         a dead row or column shows as a gap
    page 3    HELD: L 3             the keys of this player held right now
    page 4    SCALE C7-C8 / 1-5:... the piezo: a scale at the start
    page 5    P2 SCREEN OK / P2 SCREEN MISSING   the other panel
    pages 6-7 how to leave

and a line down both edges (columns 0 and 127). A panel that does not answer is named
on the other panel and on the console, and is retried every second; so is each key
(``self test: P1 L down``). Holding one player's L and R together for 2 s leaves (back
to the menu); so does turning the power off.

Not on the play path: it may build strings.
"""

import keypad
import supervisor

from speedduo.display import glyphs
from speedduo.display.ssd1306 import PRIVATE, WIDTH
from speedduo.loop import pins
from speedduo.loop.sound import TUNE_MENU, TUNE_SCALE
from speedduo.vocab.codes import KEY_L, KEY_R, KEYS_PER_PLAYER, VOLUME_DEFAULT
from speedduo.vocab.ticks import ticks_diff

EXIT_HOLD_MS = 2000  # one player's L and R held together this long: back to the menu
_PATTERN = (0x55, 0xAA)  # page 1: a checkerboard, one pixel squares


def panel_name(i):
    """``P1 I2C0 0x3C``: the player, the bus and the address of panel ``i``."""
    return "P%d %s 0x%02X" % (i + 1, pins.PANEL_I2C[i], pins.PANEL_ADDRESS[i])


def held_names(held, player):
    """``HELD: L 3`` (or ``HELD: -``): the keys of ``player`` down in ``held``."""
    names = []
    for k in range(KEYS_PER_PLAYER):
        if held[player * KEYS_PER_PLAYER + k]:
            names.append(pins.BUTTON_NAMES[player * KEYS_PER_PLAYER + k])
    return "HELD: " + (" ".join(names) if names else "-")


def lines_for(i, held, online, sound_line):
    """The text lines of panel ``i`` (pages 0 and 3-7; pages 1-2 hold the pattern)."""
    other = 1 - i
    state = "OK" if online[other] else "MISSING"
    return (
        panel_name(i),
        held_names(held, i),
        sound_line,
        "P%d SCREEN %s" % (other + 1, state),
        "EXIT: HOLD L+R 2 S",
        "OR TURN POWER OFF",
    )


def draw(panel, lines):
    """The whole self-test screen into ``panel``'s framebuffer, then sent."""
    font = glyphs.SMALL
    index = glyphs.SMALL_INDEX
    panel.clear(PRIVATE)
    panel.text(font, index, lines[0], 3, 0, PRIVATE)
    for x in range(1, WIDTH - 1):
        panel.fill(x, 1, 1, 1, _PATTERN[x & 1], PRIVATE)
    panel.fill(1, 2, WIDTH - 2, 1, 0xFF, PRIVATE)
    for k in range(1, len(lines)):
        panel.text(font, index, lines[k], 3, k + 2, PRIVATE)
    panel.fill(0, 0, 1, 8, 0xFF, PRIVATE)  # both edges, top to bottom
    panel.fill(WIDTH - 1, 0, 1, 8, 0xFF, PRIVATE)
    panel.flush()


def report_panels(screens, online):
    """Each panel's state on the console; returns the list of online flags."""
    for i in range(2):
        up = screens.panels[i].online
        if up != online[i]:
            online[i] = up
            if up:
                print("self test: %s answers" % panel_name(i))
            else:
                print(
                    "self test: P%d SCREEN MISSING: %s (SDA %s, SCL %s) does not answer"
                    % (i + 1, panel_name(i), pins.PANEL_SDA[i], pins.PANEL_SCL[i])
                )


def run(keys, screens, feed, sound=None):
    """The self-test until one player holds L and R together for EXIT_HOLD_MS."""
    print("self test: hold L+R of one player for 2 s to leave")
    held = bytearray(2 * KEYS_PER_PLAYER)
    online = [None, None]
    volume = 0
    sound_line = "NO PIEZO"
    if sound is not None:
        volume = sound.volume
        sound.volume = volume or VOLUME_DEFAULT  # the test sounds even when the menu muted it
        sound.play(TUNE_SCALE)
        sound_line = "SCALE C7-C8"
        print("self test: piezo (%s) plays a scale C7-C8" % pins.PIEZO_PIN)
    event = getattr(keys.events, "Event", keypad.Event)()  # the PIO reader's, or keypad's
    keys.events.clear()
    start = supervisor.ticks_ms()
    both_since = -1  # ticks_ms when one player's L and R were both down (-1: not)
    dirty = True
    while True:
        feed()
        now = supervisor.ticks_ms()
        if sound is not None:
            sound.update(now)
            if sound_line == "SCALE C7-C8" and not sound.playing:
                sound_line = "1-5: A CLICK EACH"
                dirty = True
        screens.recover(ticks_diff(now, start))
        if online[0] != screens.panels[0].online or online[1] != screens.panels[1].online:
            report_panels(screens, online)
            dirty = True
        while keys.events.get_into(event):
            key = event.key_number
            held[key] = 1 if event.pressed else 0
            player = key // KEYS_PER_PLAYER
            name = pins.BUTTON_NAMES[key]
            print("self test: P%d %s %s" % (player + 1, name, "down" if event.pressed else "up"))
            click = event.pressed and sound_line != "SCALE C7-C8"  # (not over the scale)
            if click and sound is not None and KEY_L < key % KEYS_PER_PLAYER < KEY_R:
                sound.play(TUNE_MENU)
            dirty = True
        if dirty:
            for i in range(2):
                draw(screens.panels[i], lines_for(i, held, online, sound_line))
            dirty = False
        both = False
        for p in range(2):
            if held[p * KEYS_PER_PLAYER + KEY_L] and held[p * KEYS_PER_PLAYER + KEY_R]:
                both = True
        if not both:
            both_since = -1
        elif both_since < 0:
            both_since = now
        elif ticks_diff(now, both_since) >= EXIT_HOLD_MS:
            break
    if sound is not None:
        sound.stop()
        sound.volume = volume
    keys.events.clear()
    print("self test: done")
