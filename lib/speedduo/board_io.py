"""The board's glue: pins, buses and scanner from the pin map, and the loop of matches.

Everything hardware-specific lives here; ``code.py`` only calls ``main()``.
The same module runs in the simulator, whose shims stand in for ``board``,
``busio``, ``keypad``, ``supervisor``, ``usb_cdc`` and ``digitalio``.

What a real board does that the game must survive (all seen on CircuitPython
10.2.1 on an emulated RP2040, docs/device.md):
- a panel module unplugged at power-on takes its SDA/SCL pull-ups with it, and
  ``busio.I2C()`` raises ``RuntimeError``: that panel waits behind a
  ``PanelBus`` that opens the bus when the panel is plugged in, the other panel
  shows the menu and says which screen is missing, and PLAY waits for both;
- a host that holds the USB data port open and stops reading would block
  every write forever: the log goes out through ``LogPort`` (short timeout,
  lost lines counted and marked);
- ``keypad.EventQueue.overflowed`` is read-only (the arbiter uses ``clear()``).

Left in the menu with no key for ``IDLE_OFF_MIN`` minutes (settings.toml), both panels
go dark and the board dozes until a key is pressed (``idle.py``). Holding Player 1's L
at power-on, or the menu's SELF TEST, runs the bring-up self-test (``selftest.py``).
"""

import gc
import os
import sys

import board
import busio
import keypad
import supervisor

from speedduo import pins
from speedduo.link import Link
from speedduo.loader import load, unload
from speedduo.logport import LogPort
from speedduo.menu import LINE_CHARS, Menu
from speedduo.rng import SEED_LIMIT
from speedduo.screens import Screens
from speedduo.sound import Sound

try:
    from typing import Optional  # noqa: F401  (type comments only; the board has no typing)
except ImportError:
    pass

_NO_DEVICE = OSError(19)  # ENODEV, what an unanswered address raises; preallocated
WATCHDOG_S = 8  # a loop pass that hangs this long resets the board (RP2040: at most 8.3 s)
NOTICE_MS = 10000  # a settings notice stays this long unless a key is pressed

# what a match brings in, leaves first (each after a collection: compiling needs room);
# forgotten after the match, so the menu and the next game get their room back
CLASSIC_MODULES = ("dealtext", "matchlog", "keylog", "phases", "stall", "core", "match")
LOOP_MODULES = ("keybatch", "arbiter", "app")
MATCH_MODULES = CLASSIC_MODULES + LOOP_MODULES + ("opponent",)
# (game_app.MODULES: the other games' own)


class PanelBus:
    """Panel ``index``'s busio.I2C, opened once something pulls SDA and SCL up.

    Until then every write fails as a NACK does (``OSError`` 19), so the panel
    is offline and retried like any unplugged panel (``Panel.recover``, every
    ``retry_ms``); the retry that finds the pull-ups opens the bus and hands it
    to the panel, so from then on the panel talks to busio directly.
    """

    def __init__(self, index: int, frequency: int) -> None:
        self.index = index
        self.frequency = frequency
        self.bus = None  # type: Optional[busio.I2C]
        self.panel = None  # the Panel to hand the bus to
        self.open()

    def open(self):
        """Try to open the bus; None while no panel (no pull-ups) is there."""
        i = self.index
        try:
            bus = busio.I2C(
                getattr(board, pins.PANEL_SCL[i]),
                getattr(board, pins.PANEL_SDA[i]),
                frequency=self.frequency,
            )
        except RuntimeError:  # "No pull up found on SDA or SCL": no panel module
            return None
        self.bus = bus
        if self.panel is not None:
            self.panel.i2c = bus
        return bus

    def try_lock(self) -> bool:
        bus = self.bus
        if bus is None:
            bus = self.open()
            if bus is None:
                return True  # writeto answers for the missing panel
        return bus.try_lock()

    def writeto(self, address, buffer, *, start, end) -> None:
        if self.bus is None:
            raise _NO_DEVICE
        self.bus.writeto(address, buffer, start=start, end=end)

    def unlock(self) -> None:
        if self.bus is not None:
            self.bus.unlock()


def new_seed():
    value = 0
    for byte in os.urandom(4):
        value = (value << 8) | byte
    return value % SEED_LIMIT


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


class HostStats:
    """What the host's ``stats`` request gets (``Link(stats=...)``): the stats kept in
    nvm (``Stats.summary()``, read when first asked) and what the board knows since
    power-on (matches, log lines sent and lost)."""

    def __init__(self, log_port, stats_box) -> None:
        self.log_port = log_port
        self.stats_box = stats_box
        self.matches = 0  # matches played to their end since power-on

    def stats(self):
        """The stats (read from nvm when first asked: the_stats)."""
        return the_stats(self.stats_box)

    def summary(self):
        summary = self.stats().summary()
        port = self.log_port
        summary["power_on"] = {
            "matches": self.matches,
            "lines_sent": port.sent,
            "lines_lost": port.lost_total,
        }
        return summary


def forget_match():
    """Forget every module a match brought in (``MATCH_MODULES``, ``game_app.MODULES``):
    once the match is dropped, their code goes back to the heap."""
    for name in MATCH_MODULES:
        unload(name)
    game_app = sys.modules.get("speedduo.game_app")
    if game_app is not None:
        from speedduo.games import BOARD_GAMES, modules

        for name in game_app.MODULES:
            unload(name)
        for game in BOARD_GAMES:  # the other games' cores and views (the registry's)
            if game != "speed":  # (classic's: MATCH_MODULES, and the screens' view)
                for name in modules(game):
                    unload(name)
    gc.collect()


def _menu():
    """``menu_loop`` (the menu and what it opens), loaded when the menu shows; forgotten
    during a match (main)."""
    load(("menu_loop",))
    return sys.modules["speedduo.menu_loop"]


def the_stats(box):
    """``box[0]``, the stats, read from nvm the first time they are needed (a match's end
    or the STATS screen), not at boot: the menu comes up as soon as before."""
    if box[0] is None:
        box[0] = load_stats()
    return box[0]


def load_stats():
    """The stats kept in ``microcontroller.nvm`` (in RAM only where there is none)."""
    try:
        from microcontroller import nvm
    except ImportError:
        nvm = None
    from speedduo.stats import Stats

    stats = Stats(nvm)
    if stats.loaded:
        print("stats: record %d read from nvm" % stats.store.seq)
    return stats


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


def main(matches=0, free_at_boot=-1, keys=None, testing=False):
    """Play matches forever (or ``matches`` of them): the device's whole life.

    ``keys``: the keypad, when ``code.py`` made it before importing this module;
    ``testing``: Player 1's L was held at power-on (code.py): the self-test first."""
    # the buttons first: a press while the rest boots (~5 s after power-on with .py
    # files) is queued, not lost
    if keys is None:
        from speedduo.keys import SELF_TEST_KEY, held, make_keys

        testing = held(board, SELF_TEST_KEY)
        keys = make_keys(board)
        del held, make_keys
    unload("keys")  # needed at power-on only
    from speedduo.settings import read_settings

    settings = read_settings(
        os.getenv,
        getattr(os, "environ", None),
        pins.PANEL_FREQUENCY[0],
        pins.PANEL_MAX_FREQUENCY[0],
    )
    profiler = None
    if settings.profile:
        from speedduo.profiling import Profiler

        profiler = Profiler(getattr(board, pins.LED_PIN), free_at_boot)
    buses = (PanelBus(0, settings.i2c_frequency), PanelBus(1, settings.i2c_frequency))
    screens = Screens.build(
        buses[0], buses[1], address=pins.PANEL_ADDRESS[0], rotations=pins.PANEL_ROTATION, log=print
    )
    for i in range(2):
        buses[i].panel = screens.panels[i]
        if buses[i].bus is None:
            print("P%d screen: not plugged in (no pull-ups on SDA/SCL); waiting for it" % (i + 1))
    screens.start()
    log_port = LogPort(data_port())
    menu = Menu(settings.rules, settings.best_of, settings.opponent, settings.volume, settings.game)
    sound = piezo(settings.volume)
    stats_box = [None]  # the_stats()
    host_stats = HostStats(log_port, stats_box)
    # every loop pass feeds the watchdog and answers the host's requests (link.py)
    link = Link(log_port, supervisor.ticks_ms, start_watchdog(), host_stats.summary, menu)
    feed = link.poll
    lines = settings.report_lines(LINE_CHARS)
    seed = settings.seed
    idle_off_ms = settings.idle_off_ms
    # read once: the module leaves the heap (the menu keeps the rules and the choices)
    del settings, read_settings
    unload("settings")
    if reset_after_a_hang():
        _menu().notice(keys, screens, "RESTARTED", ["the game hung and", "was restarted"], feed)
    if lines:
        lines.append("(defaults used)")
        _menu().notice(keys, screens, "SETTINGS.TOML", lines, feed, NOTICE_MS)
    if testing:
        _menu().self_test(keys, screens, feed, sound)
    if profiler is not None:
        profiler.imported()
    played = 0
    while True:
        try:
            play_ticks = _menu().choose(
                keys, screens, menu, feed, host_stats.stats, sound, idle_off_ms
            )
            unload("menu_loop")  # (loaded again when the menu shows)
            match_seed = seed if seed >= 0 else new_seed()
            app = None  # the last match's memory goes back to the heap first
            # the match's modules are loaded now and reached through sys.modules (a name
            # bound here would keep a module's code alive after forget_match)
            load(LOOP_MODULES)
            if menu.game:  # V8, V9: not in the stats (docs/stats.md)
                load(("game_app",))
                board_ = (supervisor.ticks_ms, keypad.Event(), sound, feed, profiler, link)
                app = sys.modules["speedduo.game_app"].board_match(
                    menu, menu.rules, match_seed, play_ticks, keys.events, screens, log_port, board_
                )
            else:
                load(CLASSIC_MODULES)
                opponent = None
                if menu.opponent:  # one player against the board: it plays Player 2
                    load(("opponent",))
                    opponent = sys.modules["speedduo.opponent"].Opponent(
                        menu.opponent, match_seed, menu.rules.claim_mode
                    )
                app = sys.modules["speedduo.app"].App(
                    keys.events,
                    supervisor.ticks_ms,
                    match_seed,
                    menu.rules,
                    menu.best_of,
                    log_port.send,
                    screens,
                    start_ticks=play_ticks,
                    opponent=opponent,
                    event=keypad.Event(),
                    sound=sound,
                )
                opponent = None  # (the app holds it)
                if profiler is None:
                    app.run(feed)
                else:
                    profiler.run(app, feed, link)
            log_port.flush()
            # the match's last tune to its end before the stats: reading them (an import)
            # and the flash write pause the loop, which would swallow its notes
            while sound is not None and sound.playing:
                feed()
                sound.update(supervisor.ticks_ms())
            screens.release()  # the views let go of the match: nothing holds it but `app`
            if not menu.game:
                stats = the_stats(stats_box)
                stats.record(app.match)
                stats.save()  # the match is over: a flash write pauses the board (stats_store)
                if stats.store.nvm is not None:
                    print("stats: saved record %d" % stats.store.seq)
                    # saved in nvm: the stats leave the heap until they are asked for again
                    # (the STATS screen, the host's request, the next match's end)
                    stats = stats_box[0] = None
                    unload("stats")
                    unload("stats_store")
        except Exception as error:  # noqa: BLE001  (a child's toy must not go dark)
            if matches:  # the simulator and the tests: a fault is a failure
                raise
            app = opponent = None
            forget_match()
            _menu().show_fault(error, keys, screens, feed, sound)
            continue
        if seed >= 0:
            seed = (seed + 1) % SEED_LIMIT
        played += 1
        host_stats.matches = played
        if matches and played >= matches:
            forget_match()
            return app
        app = None  # the match leaves the heap, and the modules it brought in
        forget_match()
