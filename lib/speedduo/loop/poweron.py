"""What only power-on does: the settings read, the panels, the log port, the piezo and
the host's link made, the watchdog started, the notices and the self-test shown.

``board_io.main`` calls ``start`` once; what it makes lives on in ``board_io.main``.
"""

import board
import supervisor

from speedduo.display import screens_setup
from speedduo.display.base_view import View
from speedduo.display.menu import LINE_CHARS, Menu
from speedduo.host.link import Link
from speedduo.host.logport import LogPort
from speedduo.loop import menu_loop, pins
from speedduo.loop.keys import SELF_TEST_KEY, held, make_keys, wants_pio
from speedduo.loop.panel_bus import PanelBus
from speedduo.loop.settings import read_settings
from speedduo.loop.sound import Sound

WATCHDOG_S = 8  # a loop pass that hangs this long resets the board (RP2040: at most 8.3 s)
NOTICE_MS = 10000  # a settings notice stays this long unless a key is pressed


def start_watchdog():
    """The board's watchdog, fed every loop pass: a hung loop resets the board.
    Returns its ``feed`` (a no-op where there is none)."""
    try:
        from microcontroller import watchdog
        from watchdog import WatchDogMode
    except ImportError:
        return _no_watchdog
    if watchdog is None:  # a port without one
        return _no_watchdog
    watchdog.timeout = WATCHDOG_S
    watchdog.mode = WatchDogMode.RESET
    watchdog.feed()
    return watchdog.feed


def _no_watchdog():
    pass


def reset_after_a_hang() -> bool:
    """True when the watchdog (not power-on or a reload) started this run."""
    try:
        import microcontroller
        from microcontroller import ResetReason
    except ImportError:
        return False
    return microcontroller.cpu.reset_reason == ResetReason.WATCHDOG


def piezo(volume):
    """The piezo's tune player (docs/sound.md), or None where there is no PWM."""
    try:
        import pwmio
    except ImportError:
        return None
    pwm = pwmio.PWMOut(
        getattr(board, pins.PIEZO_PIN), frequency=2000, duty_cycle=0, variable_frequency=True
    )
    return Sound(pwm, volume)


def data_port():
    """The USB data port when boot.py enabled it, else None."""
    try:
        import usb_cdc
    except ImportError:
        return None
    return usb_cdc.data


def start(os, free_at_boot, keys, testing):
    """Everything power-on does before the first menu. ``os``: board_io's (the simulator
    swaps it for one that reads its settings file). Returns (keys, screens, log_port,
    sound, link, profiler, menu, seed, idle_off_ms): ``menu`` the ``Menu`` of the
    settings' choices; ``link`` has no stats or menu yet."""
    # the buttons first: a press while the rest boots (~5 s after power-on with .py
    # files) is queued, not lost
    if keys is None:
        testing = held(board, SELF_TEST_KEY)
        keys = make_keys(board, wants_pio(os.getenv))
    # which stamps the presses (the match log says it too: stamped_by)
    print("keys: " + ("PIO edge stamps, us" if getattr(keys, "micro", False) else "keypad, ms"))
    settings = read_settings(
        os.getenv,
        getattr(os, "environ", None),
        pins.PANEL_FREQUENCY[0],
        pins.PANEL_MAX_FREQUENCY[0],
    )
    profiler = None
    if settings.profile:  # (its module reads gc.mem_free: CircuitPython's only)
        from speedduo.loop.profiling import Profiler

        profiler = Profiler(getattr(board, pins.LED_PIN), free_at_boot)
    buses = tuple(
        PanelBus(
            i,
            getattr(board, pins.PANEL_SCL[i]),
            getattr(board, pins.PANEL_SDA[i]),
            settings.i2c_frequency,
        )
        for i in range(2)
    )
    # the menu's views: each match shows its own game's on top (board_play, game_app)
    screens = screens_setup.build(
        buses[0],
        buses[1],
        address=pins.PANEL_ADDRESS[0],
        rotations=pins.PANEL_ROTATION,
        log=print,
        view=View,
    )
    for i in range(2):
        buses[i].panel = screens.panels[i]
        if buses[i].bus is None:
            print("P%d screen: not plugged in (no pull-ups on SDA/SCL); waiting for it" % (i + 1))
    screens_setup.start(screens)
    log_port = LogPort(data_port())
    menu = Menu(settings.rules, settings.best_of, settings.opponent, settings.volume, settings.game)
    sound = piezo(settings.volume)
    # every loop pass feeds the watchdog and answers the host's requests (link.py)
    link = Link(log_port, supervisor.ticks_ms, start_watchdog(), None, None)
    feed = link.poll
    lines = settings.report_lines(LINE_CHARS)
    seed = settings.seed
    idle_off_ms = settings.idle_off_ms
    del settings  # read once (the menu keeps the rules and the choices)
    hung = reset_after_a_hang()
    if hung or lines or testing:
        notice = menu_loop.notice
        if hung:
            notice(keys, screens, "RESTARTED", ["the game hung and", "was restarted"], feed)
        if lines:
            lines.append("(defaults used)")
            notice(keys, screens, "SETTINGS.TOML", lines, feed, NOTICE_MS)
        if testing:
            menu_loop.self_test(keys, screens, feed, sound)
    return keys, screens, log_port, sound, link, profiler, menu, seed, idle_off_ms
