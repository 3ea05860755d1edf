"""Run the whole board program (``code.py`` -> ``speedduo.loop.board_io``) on the simulator.

The shims stand in for the hardware; the virtual clock runs free (every
``supervisor.ticks_ms()`` read moves it on by STEP_US, like a CPU that takes
time), scripted presses reach the keypad, both panels are emulated, and the
log written to ``usb_cdc.data`` goes to stdout. Runs under CPython and inside
the MicroPython VM:

    board_run.py ROOT STEP_US MATCHES SCRIPT|- [TRACE|- [FAULTS [DATA [NVM [SOUNDS]]]]]

Script times here are µs since power-on (the menu comes first: press 1 on PLAY).
TRACE: a file that gets every I2C write, one JSON line each (``bus``, ``t0``/``t1``
µs on the virtual clock, ``addr``, ``ack``, ``data`` in hex), the format the
device harness writes, so ``--screens`` works the same for both.
FAULTS: comma-separated ``p0=MODE``, ``p1=MODE`` (``present``, ``absent``,
``nack``, ``late:T_MS``), ``data=MODE`` (``read``, ``never``, ``stop:T_MS``,
``pull:T1_MS-T2_MS``), ``cut=T_US`` (the power goes at T_US µs: the program stops
where it is, a flash write half done stays half done; then ``# power cut at T_MS
ms`` and exit 0); ``send=FILE``: the data port's host writes bytes at set times
(FILE: ``T_US HEX`` lines; at the end ``# host unsent N`` counts those it never got
to send); ``pty=FD``: the data port's host is at the other end of the
pseudo-terminal whose master is FD, and ``speed=X`` paces the virtual clock at X
times wall time (CPython only). Each nvm write is printed as
``# nvm write START_US END_US``.
DATA: a file that gets the data port's bytes exactly (else they go to stdout, with
whatever the board program prints). NVM: ``microcontroller.nvm``'s 4096 bytes,
loaded at power-on when the file exists and written back when the program stops
(matches done or power cut). SOUNDS: a file that gets the piezo's tones, one JSON
line each as they end (``{"t":..,"hz":..,"ms":..}``, shims/pwmio.py); those still
sounding when the program returns end then. Board settings (SPEED_*, IDLE_OFF_*) come
from the environment (``os.getenv``), unless ``$SPEEDDUO_SETTINGS`` names a settings.toml:
then ``os.getenv`` reads that file as CircuitPython's does (``settings_file.py``), bytes as
they are. ``$SPEEDDUO_DRIVE``: a CIRCUITPY folder to run instead of the repository's
board program, as CircuitPython runs it: the folder is the drive's root ``/`` (the current
folder at power-on; an absolute ``os.chdir`` stays inside it, so deploy's ``code.py``,
which changes to its version folder, works), ``sys.path`` is CircuitPython's (``""``,
``/``, ``/lib``) after the shims, and its ``code.py`` runs as ``__main__``; the
``main()`` it calls stops after MATCHES matches (``_Drive``).
FAULTS' ``end=T_US``: the script is over at T_US (the last press, the host's last send,
the last snap): from then on the board in its menu will never start another match, so
the run ends there with ``# script ended at T_MS ms in the menu`` and exit 0.
``time.sleep`` (the idle power-off's naps) moves the virtual clock on under CPython; the
MicroPython VM's ``time`` cannot be patched, so there a nap waits for real while the clock
stands still (a doze is slow there).
"""

import os
import sys
import time

_root = sys.argv[1]
_wall_sleep = time.sleep
_drive = os.getenv("SPEEDDUO_DRIVE")
_BOARD_IO = "speedduo.loop.board_io"
# (the shims read the hardware's facts, the pin map, from the repository's lib: with a
# drive, its own modules replace them once the board program starts, _Drive.run)
sys.path[:0] = [_root + "/lib", _root + "/host_sim/shims", _root + "/host_sim"]


MENU_READS_US = 500000  # the menu has read every press queued before it showed by then


class ScriptEnded(BaseException):
    """The script is over and the board waits in its menu: no match can start any more."""


def main(argv):
    import vclock

    # the board's tick grid and its ticks_ms at power-on (vclock.py; docs/device.md)
    clock = vclock.install(vclock.VirtualClock(0, vclock.BOARD_MS_AT_POWER_ON))
    clock.auto_step_us = int(argv[2])
    try:  # the board's nap (time.sleep: board_io.doze) passes virtual time
        time.sleep = lambda seconds: clock.advance_to(clock.now_us + int(seconds * 1000000))
    except AttributeError:  # the MicroPython VM's time is read-only: a nap waits for real
        pass
    if argv[4] != "-":
        from script import parse_script

        with open(argv[4]) as f:
            script = parse_script(f.read())
        clock.contacts = [(t, p * 7 + k, closed) for t, p, k, closed in script]
    import usb_cdc

    if len(argv) > 7 and argv[7] != "-":
        data_out = open(argv[7], "wb")
        usb_cdc.data.echo = data_out.write
    else:
        data_out = None
        usb_cdc.data.echo = _echo
    import busio

    trace = None
    if len(argv) > 5 and argv[5] != "-":
        trace = open(argv[5], "w")
        _trace_writes(busio, clock, trace)
    if len(argv) > 6 and argv[6]:
        _faults(argv[6], busio, usb_cdc, clock)
    import microcontroller

    nvm_path = argv[8] if len(argv) > 8 and argv[8] != "-" else None
    if nvm_path is not None:
        try:
            with open(nvm_path, "rb") as f:
                microcontroller.nvm.read_from(f)
        except OSError:
            pass  # no file yet: the flash is erased
    sounds = None
    if len(argv) > 9 and argv[9] != "-":
        sounds = open(argv[9], "w")
        clock.tone_listeners.append(
            lambda t, hz, ms: sounds.write('{"t":%d,"hz":%d,"ms":%d}\n' % (t, hz, ms))
        )
    settings_path = os.getenv("SPEEDDUO_SETTINGS")
    end_us = _end_of_script(argv[6] if len(argv) > 6 else "")
    cut = False
    ended = False
    try:
        if _drive:
            _Drive(_drive, settings_path, int(argv[3]), clock, end_us).run()
        else:
            from speedduo.loop import board_io

            if settings_path:
                from settings_file import DriveOS
                from speedduo.loop import settings

                settings.SETTINGS_PATH = settings_path
                board_io.os = DriveOS(settings_path, os)
            _watch_menu(board_io, clock, end_us)
            board_io.main(matches=int(argv[3]))
    except vclock.PowerCut:
        cut = True
    except ScriptEnded:
        ended = True
    finally:
        import pwmio

        pwmio.end_all(clock)
        if sounds is not None:
            sounds.close()
        if trace is not None:
            trace.close()
        if data_out is not None:
            data_out.close()
        if nvm_path is not None:
            with open(nvm_path, "wb") as f:
                microcontroller.nvm.write_to(f)
    for t0, t1 in microcontroller.nvm.spans:
        print("# nvm write %d %d" % (t0, t1))
    if cut:
        print("# power cut at %d ms" % (clock.power_cut_us // 1000))
    if ended:
        print("# script ended at %d ms in the menu" % (clock.now_us // 1000))
    if usb_cdc.data.host_schedule:
        print("# host unsent %d" % sum(len(d) for _, d in usb_cdc.data.host_schedule))
    for i, bus in enumerate(busio.buses):
        print(
            "# panel %d: %d transfers, %d bytes"
            % (i, sum(bus.transfers.values()), sum(bus.bytes.values()))
        )


def _end_of_script(faults):
    """FAULTS' ``end=T_US`` (-1: none)."""
    for item in faults.split(","):
        if item.startswith("end="):
            return int(item[4:])
    return -1


def _watch_menu(board_io, clock, end_us):
    """From ``end_us`` on, the board in its menu ends the run (``ScriptEnded``): no press
    is left to start a match. The board is in its menu from when it forgets power-on's or
    the last match's modules (``board_io.forget(POWER_ON)``, ``forget(OTHER_GAMES)``) until
    it forgets the menu's (``forget(MENU)``, the menu chose PLAY)."""
    if end_us < 0 or not hasattr(board_io, "MENU"):
        return
    forget = board_io.forget
    advance_to = clock.advance_to

    def advance_in_menu(t_us):
        advance_to(t_us)
        if t_us >= clock.menu_end_us:
            raise ScriptEnded()

    def watched_forget(names):
        forget(names)
        if names is board_io.MENU:
            clock.advance_to = advance_to
        elif names is board_io.POWER_ON or names is board_io.OTHER_GAMES:
            # (presses queued before the menu showed are read by then)
            clock.menu_end_us = max(end_us, clock.now_us + MENU_READS_US)
            clock.advance_to = advance_in_menu

    board_io.forget = watched_forget


class _Drive:
    """A CIRCUITPY folder's ``code.py`` run as CircuitPython runs it: the folder is ``/``
    (the current folder at power-on; ``os.chdir`` to an absolute path stays inside it),
    ``os.getenv`` reads its settings.toml (``SETTINGS``), the modules come from where
    code.py's ``sys.path`` finds them; the ``main()`` it calls stops after ``matches``
    matches. The board's modules are patched as they are imported (an ``__import__``
    hook: both VMs have one; the VM's own ``os`` cannot be changed, so ``import os``
    gets ``_DriveOS``)."""

    def __init__(self, root, settings_path, matches, clock, end_us):
        self.root = root.rstrip("/") or "/"
        self.settings_path = settings_path
        self.matches = matches
        self.clock = clock
        self.end_us = end_us
        self.patched = {}  # module name -> the module object patched (a reload is patched again)
        self.os = _DriveOS(self)

    def run(self):
        import builtins

        real_import = builtins.__import__

        def drive_import(name, *args):
            if name == "os":
                return self.os
            module = real_import(name, *args)
            self._patch()
            return module

        for name in [name for name in sys.modules if name.split(".")[0] == "speedduo"]:
            del sys.modules[name]  # the shims' pin map (theirs to keep): not the drive's
        # CircuitPython's sys.path (["", "/", ".frozen", "/lib"]) after its built-ins
        sys.path[:] = [_root + "/host_sim/shims", "", self.root, self.root + "/lib"] + [
            path for path in sys.path if path not in (_root + "/lib", _root + "/host_sim/shims")
        ]
        os.chdir(self.root)
        builtins.__import__ = drive_import
        try:
            path = self.root + "/code.py"
            with open(path) as f:
                source = f.read()
            exec(compile(source, path, "exec"), {"__name__": "__main__"})
        finally:
            builtins.__import__ = real_import
            os.chdir(_root)

    def _patch(self):
        board_io = sys.modules.get(_BOARD_IO)
        if (
            board_io is not None
            and self.patched.get(_BOARD_IO) is not board_io
            and hasattr(board_io, "main")  # (imported whole, not still importing)
        ):
            self.patched[_BOARD_IO] = board_io
            main = board_io.main
            matches = self.matches

            def main_for_a_while(**options):
                return main(matches=matches, **options)

            board_io.main = main_for_a_while
            _watch_menu(board_io, self.clock, self.end_us)
        settings = sys.modules.get("speedduo.loop.settings")
        if settings is not None and self.settings_path and hasattr(settings, "SETTINGS_PATH"):
            settings.SETTINGS_PATH = self.settings_path

    def host_path(self, path):
        """The host's path of the board's ``path`` (absolute ones are inside the drive)."""
        if not path.startswith("/"):
            return path
        parts = [part for part in path.split("/") if part and part != "."]
        if ".." in parts:
            raise OSError(2, "no such folder on the drive: %s" % path)
        return "/".join([self.root] + parts)


class _DriveOS:
    """CircuitPython's ``os`` on a drive: ``chdir``/``getcwd`` within it, ``getenv`` from
    its settings.toml (``settings_file.lookup``); the rest is the host's."""

    def __init__(self, drive):
        self._drive = drive
        self._settings = None
        if drive.settings_path:
            from settings_file import DriveOS

            self._settings = DriveOS(drive.settings_path, os)

    def __getattr__(self, name):
        return getattr(os, name)

    def chdir(self, path):
        os.chdir(self._drive.host_path(path))

    def getcwd(self):
        here = os.getcwd()
        root = self._drive.root
        if here == root:
            return "/"
        return here[len(root) :] if here.startswith(root + "/") else here

    def getenv(self, key, default=None):
        if self._settings is not None:
            return self._settings.getenv(key, default)
        return os.getenv(key, default)


def _echo(data):
    sys.stdout.write(bytes(data).decode())


def _hex(data):
    digits = "0123456789abcdef"
    out = []
    for b in data:
        out.append(digits[b >> 4])
        out.append(digits[b & 15])
    return "".join(out)


def _trace_writes(busio, clock, out):
    original = busio.I2C.writeto

    def writeto(self, address, buffer, *, start=0, end=None):
        if self not in busio.buses:
            busio.buses.append(self)  # a bus made before the trace was set up
        bus = busio.buses.index(self)
        t0 = clock.now_us
        if end is None:
            end = len(buffer)
        ack = 1
        try:
            return original(self, address, buffer, start=start, end=end)
        except OSError:
            ack = 0
            raise
        finally:
            line = '{"bus":%d,"t0":%d,"t1":%d,"addr":%d,"ack":%s,"data":"%s"}\n' % (
                bus,
                t0,
                clock.now_us,
                address,
                "true" if ack else "false",
                _hex(bytes(buffer[start:end])) if ack else "",
            )
            out.write(line)

    busio.I2C.writeto = writeto


def _faults(text, busio, usb_cdc, clock):
    for item in text.split(","):
        name, _, mode = item.partition("=")
        if name in ("p0", "p1"):
            socket = busio.sockets[int(name[1])]
            if mode == "absent":
                socket.plugged_us = -1
            elif mode == "nack":
                socket.nack = True
            elif mode.startswith("late:"):
                socket.plugged_us = int(mode[5:]) * 1000
        elif name == "data":
            port = usb_cdc.data
            if mode == "never":
                port.connected = False
            elif mode.startswith("stop:"):
                port.stall_from_us = int(mode[5:]) * 1000
            elif mode.startswith("pull:"):
                start, _, end = mode[5:].partition("-")
                port.pull_from_us = int(start) * 1000
                port.pull_until_us = int(end) * 1000
        elif name == "send":  # the host's requests (host_sim/host_requests.py)
            with open(mode) as f:
                for line in f:
                    t_us, data = line.split()
                    usb_cdc.data.host_schedule.append((int(t_us), bytes.fromhex(data)))
        elif name == "pty":  # the data port's host: a program at the pty's other end
            usb_cdc.data.attach_pty(int(mode))
        elif name == "speed" and float(mode) > 0:
            _pace(float(mode))
        elif name == "cut":
            clock.power_cut_us = int(mode)


def _pace(speed):
    """Keep virtual time at most ``speed`` times wall time (a host watches it live)."""
    import vclock

    clock = vclock.current()
    advance_to = clock.advance_to
    started = time.monotonic()

    def paced(t_us):
        advance_to(t_us)
        ahead = t_us / 1e6 / speed - (time.monotonic() - started)
        if ahead > 0.002:
            _wall_sleep(ahead)

    clock.advance_to = paced


main(sys.argv)
