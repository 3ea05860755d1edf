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
board program: its ``lib/`` is imported and its ``code.py`` run.
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
sys.path[:0] = [(_drive or _root) + "/lib", _root + "/host_sim/shims", _root + "/host_sim"]


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
    from speedduo.loop import board_io

    settings_path = os.getenv("SPEEDDUO_SETTINGS")
    if settings_path:
        from settings_file import DriveOS
        from speedduo.loop import settings

        settings.SETTINGS_PATH = settings_path
        board_io.os = DriveOS(settings_path, os)
    cut = False
    try:
        if _drive:
            _run_code_py(_drive + "/code.py", board_io, int(argv[3]))
        else:
            board_io.main(matches=int(argv[3]))
    except vclock.PowerCut:
        cut = True
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
    if usb_cdc.data.host_schedule:
        print("# host unsent %d" % sum(len(d) for _, d in usb_cdc.data.host_schedule))
    for i, bus in enumerate(busio.buses):
        print(
            "# panel %d: %d transfers, %d bytes"
            % (i, sum(bus.transfers.values()), sum(bus.bytes.values()))
        )


def _run_code_py(path, board_io, matches):
    """The drive's code.py as CircuitPython runs it (as ``__main__``); the main() it
    calls stops after ``matches`` matches."""
    main = board_io.main

    def main_for_a_while(**options):
        return main(matches=matches, **options)

    board_io.main = main_for_a_while
    with open(path) as f:
        source = f.read()
    exec(compile(source, path, "exec"), {"__name__": "__main__"})


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
