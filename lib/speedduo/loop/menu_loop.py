"""The menu and what it opens (how to play, the self-test, a notice, a fault's message).

``choose`` shows the menu on both panels until PLAY (``choose_for``: on a ``Menu`` made
from what it chose last time); ``stats``: a callable that gives the stats
(``board_io.HostStats.stats``: read from nvm when first asked).

What the menu opens (how to play, the stats screen, the self-test, the doze, a fault's
wrapping) is imported when it is chosen, not with the menu: on the stock firmware's ``.mpy``
fallback every module imported is bytecode in the heap until forgotten (``board_io.MENU``
forgets them with the menu). Measured there (``bench/bench_import_heap.py --deploy mpy``),
bytes each holds once imported: ``howto`` 5,504, ``selftest`` 2,304, ``stats_screen`` 1,968,
``idle`` 576, ``settings`` (``wrap``, a fault's message) 7,424.
"""

import gc
import sys

import keypad
import supervisor

from speedduo.display.menu import (
    LINE_CHARS,
    SHOW_HOW_TO_PLAY,
    SHOW_SELF_TEST,
    SHOW_STATS,
    START,
    TITLE,
    Menu,
)
from speedduo.loop.sound import TUNE_COUNTDOWN, TUNE_MENU
from speedduo.vocab.ticks import ticks_diff


def menu_title(screens) -> str:
    """The menu's top line: the game's name, or which player's screen is missing."""
    for i in range(2):
        if not screens.panels[i].online:
            return "P%d SCREEN MISSING" % (i + 1)
    return TITLE


def choose_for(choices, keys, screens, link, feed, stats, sound, idle_off_ms) -> int:
    """``choose`` on a ``Menu`` made from ``choices`` (``board_io.Choices``: what the menu
    chose last time, its selected item too), written back to them after; while it shows,
    the host's ``rules`` request reads the menu (``link.menu``). Returns the PLAY press's
    timestamp."""
    menu = Menu(
        choices.rules,
        choices.best_of,
        choices.opponent,
        choices.volume,
        choices.game,
        choices.auto_balance,
    )
    menu.selected = choices.selected
    link.menu = menu
    play_ticks = choose(keys, screens, menu, feed, stats, sound, idle_off_ms)
    choices.keep(menu)
    link.menu = choices
    return play_ticks


def choose(keys, screens, menu, feed, stats=None, sound=None, idle_off_ms=0) -> int:
    """The menu on both panels until PLAY is pressed with both panels there.

    L/R move, 1-5 choose. A missing panel is retried while the menu shows and
    gets the menu as soon as it answers. STATS shows the stats (stats_screen),
    SELF TEST the bring-up test (selftest.py). After ``idle_off_ms`` with no key
    (0: never) the board dozes (``idle.doze``) and comes back to the menu as it was.
    Returns the PLAY press's keypad timestamp: the match's time 0 is that
    press, whatever the loop was doing. The last match's tune plays on; a press
    clicks at the menu's volume.
    """
    event = getattr(keys.events, "Event", keypad.Event)()  # the PIO reader's, or keypad's
    start = supervisor.ticks_ms()
    last_key = start
    title = None
    while True:
        feed()
        if sound is not None:
            sound.update(supervisor.ticks_ms())
        screens.recover(ticks_diff(supervisor.ticks_ms(), start))
        if menu_title(screens) != title:
            title = menu_title(screens)
            screens.show_menu(-1, menu.lines(), menu.selected, title)
        if idle_off_ms and ticks_diff(supervisor.ticks_ms(), last_key) >= idle_off_ms:
            from speedduo.loop.idle import doze

            doze(keys, screens, feed, sound)
            title = None  # the menu again, on both panels
            last_key = supervisor.ticks_ms()
            continue
        while keys.events.get_into(event):
            last_key = supervisor.ticks_ms()
            if not event.pressed:
                continue
            action = menu.press(event.key_number)
            if sound is not None:
                sound.volume = menu.volume
                if action != START:  # (PLAY: the countdown beeps, below)
                    sound.play(TUNE_MENU)
            if action == SHOW_HOW_TO_PLAY:
                how_to_play(keys, screens, feed)
            elif action == SHOW_STATS and stats is not None:
                from speedduo.display.stats_screen import show_stats

                show_stats(keys, screens, stats(), menu.rules, feed)
            elif action == SHOW_SELF_TEST:
                self_test(keys, screens, feed, sound)
            elif action == START:
                if title != TITLE:
                    continue  # PLAY waits for both screens
                # the PLAY press is read (not a play); the events after it stay queued,
                # so its release is in the match's key record however soon the loop saw it
                screens.hide_menu()
                if sound is not None:  # R3's first beep at the press, not once the match
                    sound.play(TUNE_COUNTDOWN)  # is built (~0.3 s later on the board)
                    sound.update(supervisor.ticks_ms())
                return event.timestamp
            screens.show_menu(-1, menu.lines(), menu.selected, title)
            last_key = supervisor.ticks_ms()  # (a screen the press opened has closed)


def self_test(keys, screens, feed, sound=None):
    """The bring-up self-test (selftest.py)."""
    from speedduo.loop import selftest

    gc.collect()
    before = _free()
    selftest.run(keys, screens, feed, sound)
    gc.collect()
    if before >= 0:
        print("self test: heap free %d before, %d after" % (before, _free()))


def _free():
    """Free heap bytes (-1 where ``gc`` cannot say: CPython)."""
    return gc.mem_free() if hasattr(gc, "mem_free") else -1


def how_to_play(keys, screens, feed):
    """The rules in short, page by page on both panels; any key turns the page."""
    from speedduo.display import howto

    last = len(howto.PAGES) - 1
    for i, (title, lines) in enumerate(howto.PAGES):
        notice(keys, screens, title, list(lines) + [howto.DONE if i == last else howto.NEXT], feed)


def notice(keys, screens, title, lines, feed, wait_ms=0):
    """A message on both panels (and the console) until a key is pressed, or ``wait_ms``."""
    print("%s: %s" % (title, " / ".join(line.strip() for line in lines)))
    screens.show_menu(-1, lines, -1, title)
    event = getattr(keys.events, "Event", keypad.Event)()  # the PIO reader's, or keypad's
    keys.events.clear()
    start = supervisor.ticks_ms()
    while not wait_ms or ticks_diff(supervisor.ticks_ms(), start) < wait_ms:
        feed()
        screens.recover(ticks_diff(supervisor.ticks_ms(), start))
        while keys.events.get_into(event):
            if event.pressed:
                keys.events.clear()
                screens.hide_menu()
                return
    screens.hide_menu()


def show_fault(error, keys, screens, feed, sound=None):
    """Anything the game did not expect (MemoryError too): on both panels and the
    console, then back to the menu at a key press. No reset, so no reset loop."""
    from speedduo.loop.settings import wrap

    if sound is not None:
        sound.stop()
    gc.collect()
    try:
        import traceback

        traceback.print_exception(error)
    except ImportError:  # the MicroPython VM of the tests
        sys.print_exception(error)  # type: ignore[attr-defined]
    lines = wrap("%s: %s" % (type(error).__name__, error), LINE_CHARS)[:5]
    lines.append("ANY KEY: MENU")
    notice(keys, screens, "SORRY, AN ERROR", lines, feed)
