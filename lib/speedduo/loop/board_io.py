"""The board's glue: the loop of matches, from power-on to the menu, a match and back.

``code.py`` only calls ``main()``. What only power-on does (pins, buses and scanner from
the pin map, the settings, the notices) is ``poweron.py``, a match's start and end
``board_play.py``, the menu ``menu_loop.py``, the other games' match ``game_app.py``.
On the board the game is frozen into the firmware: its code and names live in flash, not in
the heap (docs/device.md). What a module still costs the heap once imported (its functions,
classes and tables) is forgotten for these groups only, where the figure says so
(``forget``: ``POWER_ON``, ``MENU``, ``OTHER_GAMES``, ``CLASSIC``, ``STATS``).
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

import os
import sys

import keypad
import supervisor

from speedduo.game.rng import SEED_LIMIT
from speedduo.loop import board_play

# Modules the board forgets when their moment is over. Frozen in, a module still costs the
# heap its functions, classes and import-time tables; measured on the frozen firmware
# (bytes each group holds once imported; docs/device.md, "What the board holds"), with all of
# them held classic Speed's match held 45,040 bytes, over the 40,000 budget. ".mpy N B": a
# module added for the stock firmware's .mpy fallback, where a module held is its bytecode
# too (bench/bench_import_heap.py --deploy mpy; docs/device.md, "The stock firmware"):
POWER_ON = (  # 2,288 B: power-on's steps, its settings reader, the PIO program
    "loop.poweron",
    "loop.settings",
    "loop.panel_bus",  # (a panel still unplugged keeps its PanelBus, and the class)
    "display.screens_setup",
    "loop.keys",
    "loop.edge_program",
    "loop.pins",  # .mpy 1,504 B (the self-test imports it again: only it reads them after)
)
MENU = (  # 2,912 B: the menu's loop and what it opens (Choices keeps what it chose)
    "loop.menu_loop",
    "display.menu",
    "display.howto",
    "display.stats_screen",
    "loop.selftest",
    "loop.idle",
    "loop.settings",
)  # (not ``games``: a game ``code.py`` registered lives in its tables, issue 29.4)
OTHER_GAMES = (  # 4,416 B for V8/V9's loop, match and log, + each game's core and view
    "loop.game_app",  # (Spit's 1,808, California's 5,216: its view's sprite rows)
    "loop.game_opponent",
    "loop.opponent",  # .mpy 3,872 B (classic Speed's too: imported per match against the board)
    "game.gamematch",
    "game.gamerules",
    "log.gamelog",
    "display.game_view",
    "game.spit",
    "display.spit_view",
    "game.california",
    "display.california_view",
    "display.piles",  # .mpy 1,248 + 1,632 B: classic's and Spit's views' piles and their
    "display.large_ranks",  # large ranks (a California match after them held them)
)
CLASSIC = (  # classic Speed's match, core and log, and its view (board_play imports it per
    "game.match",  # match): a V8/V9 match after a classic one would hold them (three
    "game.core",  # matches in one power-on against the board held 46,256 with them)
    "game.stall",
    "log.matchlog",
    "log.dealtext",
    "log.keylog",
    "display.view",
)
STATS = ("host.stats", "host.stats_store", "game.balance")  # 896 B: read again when next asked


def forget(names):
    """Forget ``speedduo.<name>`` for each of ``names`` (``package.module``): once nothing
    else refers to it, what it made at import goes back to the heap (an import makes it
    again: frozen in, that costs no compiling)."""
    for name in names:
        sys.modules.pop("speedduo." + name, None)
        dot = name.rfind(".")
        package = sys.modules.get("speedduo." + name[:dot] if dot > 0 else "speedduo")
        leaf = name[dot + 1 :]
        if package is not None and hasattr(package, leaf):
            delattr(package, leaf)


def new_seed():
    value = 0
    for byte in os.urandom(4):
        value = (value << 8) | byte
    return value % SEED_LIMIT


class HostStats:
    """What the host's ``stats`` request gets (``Link(stats=...)``): the stats kept in
    nvm (``Stats.summary()``, read when first asked) and what the board knows since
    power-on (matches, log lines sent and lost)."""

    def __init__(self, log_port, stats_box) -> None:
        self.log_port = log_port
        self.stats_box = stats_box
        self.matches = 0  # matches played to their end since power-on

    def stats(self):
        """``stats_box[0]``, the stats, read from nvm the first time they are needed (a
        match's end or the STATS screen: ``host.stats.from_nvm``), not at boot: the menu
        comes up as soon as before."""
        box = self.stats_box
        if box[0] is None:
            from speedduo.host.stats import from_nvm

            box[0] = from_nvm()
        return box[0]

    def summary(self):
        summary = self.stats().summary()
        port = self.log_port
        summary["power_on"] = {
            "matches": self.matches,
            "lines_sent": port.sent,
            "lines_lost": port.lost_total,
        }
        return summary


class Choices:
    """What the menu chose (a ``menu.Menu``'s state: the rules, best of, opponent,
    volume, game and the selected item), kept between two menus: during a match the
    match, the link's ``rules`` reply and the next menu read it here."""

    def __init__(self, menu) -> None:
        self.keep(menu)
        self.balance_kept = False  # H3's switch as the stats record has it

    def keep(self, menu) -> None:
        """Take ``menu``'s choices (the menu is closing)."""
        self.rules = menu.rules
        self.best_of = menu.best_of
        self.opponent = menu.opponent
        self.volume = menu.volume
        self.game = menu.game
        self.selected = menu.selected
        self.auto_balance = menu.auto_balance  # H3 (board_play.finish moves the leads)


def main(matches=0, free_at_boot=-1, keys=None, testing=False):
    """Play matches forever (or ``matches`` of them): the device's whole life.

    ``keys``: the keypad, when ``code.py`` made it before importing this module;
    ``testing``: Player 1's L was held at power-on (code.py): the self-test first."""
    from speedduo.loop.poweron import start

    (keys, screens, log_port, sound, link, profiler, menu, seed, idle_off_ms) = start(
        os, free_at_boot, keys, testing
    )
    del start
    forget(POWER_ON)
    choices = Choices(menu)
    menu = None
    stats_box = [None]  # HostStats.stats()
    host_stats = HostStats(log_port, stats_box)
    link.stats = host_stats.summary
    link.menu = choices
    board_play.restore_balance(choices, host_stats)  # H3: the menu starts as it was left
    feed = link.poll
    if profiler is not None:
        profiler.imported()
    played = 0
    while True:
        try:
            from speedduo.loop.menu_loop import choose_for

            play_ticks = choose_for(
                choices, keys, screens, link, feed, host_stats.stats, sound, idle_off_ms
            )
            del choose_for
            forget(MENU)
            stats = stats_box[0]
            if stats is not None and stats.store.nvm is not None:  # read for the STATS screen:
                stats = stats_box[0] = None  # kept in nvm, read again at the match's end
                forget(STATS)
            match_seed = seed if seed >= 0 else new_seed()
            app = None  # the last match's memory goes back to the heap first
            app = board_play.begin_match(
                choices, match_seed, play_ticks, keys.events, screens, log_port, sound
            )
            if choices.game:  # V8, V9: game_app's board_match builds and plays it
                from speedduo.loop.game_app import board_match

                event = getattr(keys.events, "Event", keypad.Event)()  # (the PIO reader's)
                board_ = (supervisor.ticks_ms, event, sound, feed, profiler, link)
                app = board_match(
                    choices,
                    choices.rules,
                    match_seed,
                    play_ticks,
                    keys.events,
                    screens,
                    log_port,
                    board_,
                )
                del board_match
            elif profiler is None:
                app.run(feed)
            else:
                profiler.run(app, feed, link)
            board_play.finish(app, choices, host_stats, screens, log_port, sound, feed)
            if choices.auto_balance:  # H3: the head starts now in force, on both panels
                board_play.show_balance(choices, keys, screens, feed)
            forget(OTHER_GAMES)
            forget(CLASSIC)
            if stats_box[0] is None:  # saved (board_play.finish)
                forget(STATS)
        except Exception as error:  # noqa: BLE001  (a child's toy must not go dark)
            if matches:  # the simulator and the tests: a fault is a failure
                raise
            app = None
            screens.release()  # the menu's views again (a match's may still show)
            forget(OTHER_GAMES)
            forget(CLASSIC)
            from speedduo.loop.menu_loop import show_fault

            show_fault(error, keys, screens, feed, sound)
            del show_fault
            continue
        if seed >= 0:
            seed = (seed + 1) % SEED_LIMIT
        played += 1
        host_stats.matches = played
        if matches and played >= matches:
            return app
        app = None  # the match leaves the heap
