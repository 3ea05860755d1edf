"""The board program in a window: ``code.py``'s ``board_io.main()`` on the shims, in this process.

Design (one thread, cooperative): the board program is the main loop, exactly
as on the board; the window is serviced from inside it. Every time the board
reads the time or the keypad (``supervisor.ticks_ms()``, ``EventQueue.get_into``)
the virtual clock's ``spend()`` runs; ``WallClock`` (window_clock.py) calls
``BoardWindow.service`` there, which pumps pygame's events (every read, so a
key event is seen within about a millisecond) and draws a frame when what it
shows changed (looked at every ms; drawn once the change is 3 ms old, so a
press's panel writes come in the same frame; at most ``fps`` a second), then
lets the virtual clock catch up with the wall clock.

A key event becomes a contact change on the keypad shim at the virtual time it
was received, so the keypad scans and stamps it on the board's 1/1024 s grid and
the arbiter sees two players' presses in the order the keyboard delivered them
(to the resolution of the pumping, ~1 ms, and of the keyboard itself: many USB
keyboards report every 8 ms). Losing focus releases every held key.

Closing the window (or Escape) raises ``WindowClosed``, a ``BaseException``,
so it passes the board program's ``except Exception`` (which shows faults on
the panels) and ends ``main()``; an error in the window's own code is wrapped
the same way (``WindowError``) and not mistaken for a board fault.
"""

import json
import os
import sys

from host_sim import SHIMS, use_board_paths

use_board_paths()

from host_sim.window_clock import WallClock, wall_us  # noqa: E402
from host_sim.window_panel import panel_pixels, panel_state  # noqa: E402
from host_sim.wire import Decoder, lost_line  # noqa: E402

MIN_CHANGE_US = 2000  # two keypad scans (the board scans every 1/1024 s)
CHECK_US = 1000  # how often the window looks for a change to draw
SETTLE_US = 3000  # how old a change is before it is drawn
SHIM_MODULES = (
    "vclock",
    "board",
    "busio",
    "digitalio",
    "keypad",
    "microcontroller",
    "supervisor",
    "usb_cdc",
    "watchdog",
)


class WindowClosed(BaseException):
    """The window was closed: the board program stops."""


class WindowError(BaseException):
    """The window's own code failed (not the board program): carries the error."""


def fresh_shims():
    """The shim modules, their hardware state as at power-on (one board per run).

    A module of a shim's name that is not the shim (e.g. Blinka's ``board``, which
    another part of the process imported) is dropped, with the board modules that
    bound it at import (``speedduo.loop.board_io``, ``speedduo.loop.keys``)."""
    import importlib

    foreign = [
        name for name in SHIM_MODULES if name in sys.modules and not _is_shim(sys.modules[name])
    ]
    for name in foreign + (["speedduo.loop.board_io", "speedduo.loop.keys"] if foreign else []):
        del sys.modules[name]
    shims = {name: importlib.import_module(name) for name in SHIM_MODULES}
    for name, module in shims.items():
        if not _is_shim(module):
            raise RuntimeError(f"{name} is not the simulator's shim ({module.__file__})")
    busio = shims["busio"]
    busio.buses.clear()
    busio.sockets[:] = [busio.Socket(), busio.Socket()]
    shims["usb_cdc"].data = shims["usb_cdc"]._Port()
    shims["microcontroller"].watchdog = shims["microcontroller"]._WatchDogTimer()
    return shims


def _is_shim(module):
    path = getattr(module, "__file__", None)
    return bool(path) and os.path.dirname(os.path.abspath(path)) == SHIMS


class LogCollector:
    """The board's data port: bytes -> match log lines; each finished match goes to a file."""

    def __init__(self, path=None):
        self.path = path
        self.lines = []  # the current match
        self.saved = []  # files written
        self.matches = 0
        self.status = ""
        self._wire = Decoder()
        self._score = [0, 0]

    def write(self, data):
        """The port's bytes: each line's seq stripped (docs/link.md), replies left out."""
        for item in self._wire.feed(bytes(data)):
            if item.kind == "log":
                self.line(item.text)
            elif item.kind == "lost":
                self.line(lost_line(item.count))

    def line(self, text):
        if not text.startswith("{"):
            return
        self.lines.append(text)
        try:
            event = json.loads(text)
        except ValueError:
            return
        ev = event.get("ev")
        if ev == "match":
            self.lines = [text]
            self._score = [0, 0]
            self.status = "BEST OF %d: 0-0" % event.get("best_of", 3)
        elif ev == "deal":
            self.status = "HAND %d: %d-%d" % (event["hand_no"], *self._score)
        elif ev == "hand_end":
            if event.get("winner") in (0, 1):
                self._score[event["winner"]] += 1
            self.status = "SCORE %d-%d" % tuple(self._score)
        elif ev == "match_end":
            self.matches += 1
            score = event.get("score", self._score)
            if event.get("winner") in (0, 1):
                w = event["winner"]
                self.status = "PLAYER %d WINS %d-%d" % (w + 1, score[w], score[1 - w])
            else:
                self.status = "MATCH STOPPED %d-%d" % tuple(score)
            self._save()

    def _save(self):
        if not self.path:
            return
        from host_sim.logfile import write_atomically

        path = self.path
        if self.matches > 1:
            stem, ext = os.path.splitext(self.path)
            path = "%s-%d%s" % (stem, self.matches, ext)
        write_atomically(path, self.lines)
        self.saved.append(path)


class BoardWindow:
    """The keyboard, the panels and the log of one board program run (see the module text)."""

    def __init__(
        self, pygame, keymap, painter, tones=None, log_path=None, fps=60, on_frame=None, now=None
    ):
        self.pygame = pygame
        self.keymap = keymap
        self.painter = painter
        self.tones = tones  # ToneSink: follows the board's PWM (the piezo)
        self._tone_hz = 0
        self.log = LogCollector(log_path)
        self.frame_us = 1000000 // fps
        self.on_frame = on_frame  # tests: called every 1/fps s (drawn or not) with this window
        self.now = now or wall_us
        self.held = {}  # keyboard code -> key number, keys down now
        self.closed = [False] * 14  # the contacts as the keypad shim has them
        self._changed_us = [-MIN_CHANGE_US] * 14  # when each contact last changed
        self.frames = 0
        self.contacts = []  # (t_us, key number, closed): every change given to the keypad
        self.clock = None
        self._drawn_at = -self.frame_us  # wall µs of the last frame drawn
        self._checked_at = -CHECK_US
        self._ticked_at = -self.frame_us
        self._changed_at = None  # when the scene was first seen to differ from the frame
        self._scene = None
        self._shims = None

    # ---- the board program ----

    def run(self, settings=(), matches=0):
        """Run code.py's ``main()`` until the window closes (or ``matches`` are played)."""
        shims = self._shims = fresh_shims()
        self.clock = shims["vclock"].install(WallClock(self.now, self.service))
        shims["usb_cdc"].data.echo = self.log.write
        saved = {k: v for k, v in os.environ.items() if k.startswith("SPEED_")}
        for key in saved:
            del os.environ[key]
        for key, value in settings:
            os.environ[key] = str(value)
        from speedduo.loop import board_io

        try:
            board_io.main(matches=matches)
        except WindowClosed:
            pass
        except WindowError as e:
            raise e.args[0] from None
        finally:
            for key in [k for k in os.environ if k.startswith("SPEED_")]:
                del os.environ[key]
            os.environ.update(saved)
        return self.log

    # ---- called from the clock, between the board's reads ----

    def service(self, target_us):
        try:
            self._events(target_us)
            self._follow_piezo()
            now = self.now()
            if now - self._checked_at >= CHECK_US:
                self._checked_at = now
                self._maybe_draw(now)
            if self.on_frame is not None and now - self._ticked_at >= self.frame_us:
                self._ticked_at = now
                self.on_frame(self)
        except (WindowClosed, WindowError, KeyboardInterrupt):
            raise
        except Exception as e:  # noqa: BLE001  (not the board's fault: out of main())
            raise WindowError(e) from e

    def _events(self, target_us):
        pg = self.pygame
        for event in pg.event.get():
            if event.type == pg.QUIT:
                raise WindowClosed()
            if event.type == pg.KEYDOWN:
                if event.key == pg.K_ESCAPE:
                    raise WindowClosed()
                number = self.keymap.buttons.get(event.key)
                if number is not None:
                    self.held[event.key] = number
                    self._contact(number, target_us)
            elif event.type == pg.KEYUP:
                number = self.held.pop(event.key, None)
                if number is not None:
                    self._contact(number, target_us)
            elif event.type == getattr(pg, "WINDOWFOCUSLOST", -1):
                for code in list(self.held):
                    number = self.held.pop(code)
                    self._contact(number, target_us)

    def _follow_piezo(self):
        """The piezo, live: the board's PWM outputs (``pwmio`` shim, on the clock's
        ``pwm_outs``) read through their CircuitPython API; a tone starts when
        ``duty_cycle`` goes non-zero or ``frequency`` changes while on, ends at duty 0."""
        if self.tones is None:
            return
        sounding = 0
        for pwm in getattr(self.clock, "pwm_outs", {}).values():
            if not pwm.deinited() and pwm.duty_cycle:
                sounding = pwm.frequency
        if sounding != self._tone_hz:
            self._tone_hz = sounding
            if sounding:
                self.tones.start(sounding)
            else:
                self.tones.stop()

    def _contact(self, number, t_us):
        closed = number in self.held.values()
        if closed == self.closed[number]:
            return
        self.closed[number] = closed
        # a press and its release taken in one batch (a stalled loop, a fast tap) stay
        # MIN_CHANGE_US apart, so the keypad's scans see the press
        t_us = max(t_us, self._changed_us[number] + MIN_CHANGE_US)
        self._changed_us[number] = t_us
        self.contacts.append((t_us, number, closed))
        keys = [s for s in self.clock.scanners if hasattr(s, "set_contact")]
        if keys:
            for scanner in keys:
                scanner.set_contact(number, t_us, closed)
        else:  # before the board made its keypad.Keys: it reads them when it does
            self.clock.contacts.append((t_us, number, closed))

    # ---- the picture ----

    def emulators(self):
        """The two panels' emulators (None for one whose bus is not open yet)."""
        found = [None, None]
        for bus in self._shims["busio"].buses if self._shims else ():
            for device in bus.devices.values():
                if device.name in ("p0", "p1"):
                    found[int(device.name[1])] = device
        return found

    def pixels(self):
        return [b"\0" * 8192 if e is None else panel_pixels(e) for e in self.emulators()]

    def scene(self):
        """Everything a frame shows (to draw only when it changed)."""
        return (
            tuple(None if e is None else panel_state(e) for e in self.emulators()),
            tuple(self.closed),
            self.log.status,
        )

    def _maybe_draw(self, now):
        """A frame when the scene changed, once the change is SETTLE_US old (a press's
        lit button and the board's panel writes after it come in one frame) and at most
        ``fps`` frames a second."""
        if self.scene() == self._scene:
            self._changed_at = None
            return
        if self._changed_at is None:
            self._changed_at = now
        if now - self._changed_at >= SETTLE_US and now - self._drawn_at >= self.frame_us:
            self._drawn_at = now
            self._changed_at = None
            self.draw()

    def draw(self):
        scene = self.scene()
        if scene == self._scene:
            return
        self._scene = scene
        self.painter.frame(self.pixels(), self.closed, "SPEED DUO", self.log.status)
        self.pygame.display.flip()
        self.frames += 1


def legend_text(keymap):
    """One line: each player's keys, L 1 2 3 4 5 R order, and Escape."""
    parts = []
    for player in range(2):
        names = ["/".join(k.upper() for k in keymap.labels[player * 7 + i]) for i in range(7)]
        parts.append("PLAYER %d: %s" % (player + 1, " ".join(names)))
    return "   ".join(parts) + "   (L 1 2 3 4 5 R)   ESC: QUIT"
