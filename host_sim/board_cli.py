"""``python -m host_sim board|device``: the board program, on the shims or on the real firmware.

Both subcommands take the same options and write the same outputs:

* the rule options of ``run`` and ``--best-of`` become ``settings.toml`` values
  (``SPEED_<NAME>``; switches 0/1), ``--seed N`` becomes ``SPEED_SEED``;
* ``--script FILE``: the ``run`` line format, times in µs since power-on (the menu
  comes first: a script presses 1 of either player while PLAY is selected);
* ``--opponent easy|medium|hard``: one player against the board's own opponent
  (lib/speedduo/opponent.py), as if chosen in the menu (``SPEED_OPPONENT``); it
  plays player 1 and player 1's buttons are ignored;
* ``--matches N`` (default 1): stop after N matches; ``--log FILE``: the match log
  the board streams on its USB data port (JSON Lines);
* ``--sounds FILE``: the piezo's tones (GP15's PWM), one JSON line each,
  ``{"t": ms since power-on, "hz": .., "ms": length}`` (docs/sound.md); a tone still
  sounding when the run stops ends there; ``--volume 0..3`` becomes ``SPEED_VOLUME``;
* ``--screens DIR --snap T_MS``: both panels as PNGs at T_MS ms since power-on,
  decoded by our SSD1306 emulator from the bytes each I2C bus carried up to then;
* ``--panel0/--panel1 present|absent|nack|late:T_MS`` (``absent``: no panel and so
  no pull-ups; ``nack``: pull-ups but the address is never ACKed; ``late``: absent
  until T_MS, then present) and ``--data-port read|never|stop:T_MS`` (the host reads
  the log port / never opens it / holds it open and stops reading at T_MS).

``board`` runs ``code.py`` on the simulator's shims (``host_sim/board_run.py``), in
CPython or the MicroPython VM. ``device`` runs it on CircuitPython itself on an
emulated RP2040 (``host_sim/device_run.py``; docs/device.md).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

from host_sim import HOST_SIM, ROOT
from host_sim.logfile import read_text, write_atomically

DEFAULT_STEP_US = 200


def _panel_mode(text):
    import argparse

    if text in ("present", "absent", "nack"):
        return text
    if text.startswith("late:") and text[5:].isdigit():
        return text
    raise argparse.ArgumentTypeError(f"bad panel mode {text!r}: present|absent|nack|late:T_MS")


def _data_mode(text):
    import argparse

    if text in ("read", "never"):
        return text
    if text.startswith("stop:") and text[5:].isdigit():
        return text
    raise argparse.ArgumentTypeError(f"bad data-port mode {text!r}: read|never|stop:T_MS")


def add_parsers(sub, seed_type, add_rule_options, heap_type):
    """The ``board`` and ``device`` subcommands, on cli.py's subparsers."""
    from speedduo.rules import BEST_OF

    for name in ("board", "device"):
        p = sub.add_parser(
            name,
            help="run code.py on the shims"
            if name == "board"
            else "run code.py on CircuitPython on an emulated RP2040",
        )
        p.add_argument("--seed", type=seed_type, default=None, help="SPEED_SEED (default: random)")
        p.add_argument("--script", help="presses: T_US PLAYER KEY [down|up], µs since power-on")
        p.add_argument("--matches", type=int, default=1, help="stop after N matches (default 1)")
        p.add_argument("--best-of", type=int, choices=BEST_OF, default=None)
        p.add_argument(
            "--opponent",
            choices=("easy", "medium", "hard"),
            default=None,
            help="the board plays player 1 (SPEED_OPPONENT; default: two players)",
        )
        p.add_argument("--i2c-frequency", type=int, default=None, metavar="HZ")
        p.add_argument("--log", help="write the match log from the data port here")
        p.add_argument("--sounds", help="write the piezo's tones here (JSON lines)")
        p.add_argument("--volume", type=int, choices=range(4), default=None, help="SPEED_VOLUME")
        p.add_argument("--screens", help="save both panels as PNG into DIR at each --snap")
        p.add_argument(
            "--snap",
            type=int,
            action="append",
            default=[],
            metavar="T_MS",
            help="ms since power-on (repeatable)",
        )
        p.add_argument("--panel0", type=_panel_mode, default="present")
        p.add_argument("--panel1", type=_panel_mode, default="present")
        p.add_argument("--data-port", type=_data_mode, default="read")
        if name == "board":
            p.add_argument("--vm", choices=("cpython", "micropython"), default="cpython")
            p.add_argument("--heap", type=heap_type, default="256K", help="MicroPython heap")
            p.add_argument(
                "--step-us",
                type=int,
                default=DEFAULT_STEP_US,
                help="virtual time each ticks_ms() read costs (default 200)",
            )
        else:
            p.add_argument("--report", help="write the measured figures (JSON) here")
            p.add_argument("--firmware-dir", help="firmware.uf2 + bootrom.bin (docs/device.md)")
            p.add_argument("--deploy", choices=("py", "mpy"), default="py")
            p.add_argument(
                "--limit-ms",
                type=int,
                default=None,
                help="emulated time limit (default: last press + 30000)",
            )
            p.add_argument("--keep", help="keep the harness's raw recordings in DIR")
        add_rule_options(p)


def settings_values(args, changed):
    """[(SETTING, value)] for settings.toml / the environment, from the options."""
    values = []
    for name, value in changed:
        if isinstance(value, bool):
            value = int(value)
        values.append(("SPEED_" + name.upper(), value))
    if args.best_of is not None:
        values.append(("SPEED_BEST_OF", args.best_of))
    if args.opponent is not None:
        values.append(("SPEED_OPPONENT", args.opponent))
    if args.seed is not None:
        values.append(("SPEED_SEED", args.seed))
    if args.i2c_frequency is not None:
        values.append(("SPEED_I2C_FREQUENCY", args.i2c_frequency))
    if args.volume is not None:
        values.append(("SPEED_VOLUME", args.volume))
    return values


def check_out_path(path, what):
    """Refuse an output file that cannot be written, before the run (one line, exit 2)."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise ValueError(f"cannot write {what} {path}: it is a folder")
    if not os.path.isdir(folder) or not os.access(folder, os.W_OK):
        raise ValueError(f"cannot write {what} {path}: folder {folder} is missing or read-only")


def tone_line(t_ms, hz, ms):
    """One tone as the --sounds file holds it."""
    return '{"t":%d,"hz":%d,"ms":%d}' % (t_ms, hz, ms)


def load_script(path):
    from script import parse_script

    return parse_script(read_text(path, "script")) if path else []


def run_board(args, changed):
    if args.matches < 1:
        raise ValueError("--matches must be at least 1 on the simulator (it has no time limit)")
    values = settings_values(args, changed)
    load_script(args.script)  # one-line error for a bad script, before the VM starts
    if args.sounds:
        check_out_path(args.sounds, "sounds")
    env = dict(os.environ)
    for key in [k for k in env if k.startswith("SPEED_")]:
        del env[key]
    for key, value in values:
        env[key] = str(value)
    import adafruit_ticks

    with tempfile.TemporaryDirectory() as tmp:
        os.symlink(adafruit_ticks.__file__, os.path.join(tmp, "adafruit_ticks.py"))
        trace = os.path.join(tmp, "i2c.jsonl")
        data = os.path.join(tmp, "data.bin")
        sounds = os.path.join(tmp, "sounds.jsonl")
        if args.vm == "micropython":
            micropython = shutil.which("micropython", path=os.path.dirname(sys.executable))
            micropython = micropython or shutil.which("micropython")
            if not micropython:
                raise ValueError("micropython not found: run `python3 dev.py setup`")
            interpreter = [micropython, "-X", f"heapsize={args.heap}"]
        else:
            interpreter = [sys.executable]
        faults = ",".join([f"p0={args.panel0}", f"p1={args.panel1}", f"data={args.data_port}"])
        command = [
            *interpreter,
            os.path.join(HOST_SIM, "board_run.py"),
            ROOT,
            tmp,
            str(args.step_us),
            str(args.matches),
            os.path.abspath(args.script) if args.script else "-",
            trace if (args.screens or args.snap) else "-",
            faults,
            data,
            sounds if args.sounds else "-",
        ]
        result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=3600)
        if result.returncode != 0:
            tail = (result.stderr or result.stdout).strip().splitlines()[-1:] or ["(no output)"]
            raise RuntimeError(f"the board program failed on the shims ({args.vm}): {tail[0]}")
        from host_sim.device_run import log_lines

        with open(data, "rb") as f:
            lines = log_lines(f.read().decode("utf-8", "replace"), args.matches)
        if args.screens or args.snap:
            traces = read_traces(trace, buses=2)
            render_snaps(traces, args.snap, args.screens or ".")
        if args.sounds:
            with open(sounds) as f:
                tones = f.read().splitlines()
    if args.log:
        write_atomically(args.log, lines)
    if args.sounds:
        write_atomically(args.sounds, tones)
    print(summary("board", args, lines))
    return 0


def summary(kind, args, lines):
    ends = [json.loads(line) for line in lines if line.startswith('{"ev":"match_end"')]
    plays = sum(1 for line in lines if line.startswith('{"ev":"play"'))
    where = f", log {args.log}" if args.log else ""
    scores = "; ".join(
        "winner %s %d-%d" % (e["winner"], e["score"][0], e["score"][1]) for e in ends
    )
    return f"{kind}: {len(ends)} match(es), {plays} plays ({scores or 'no match ended'}){where}"


# ---- I2C traces and panel pictures (shared by board and device) ----


def read_traces(path_or_paths, buses=2):
    """[[transaction, ...] per bus]: dicts with t0, t1 (µs), addr, ack, data (bytes)."""
    out = [[] for _ in range(buses)]
    paths = path_or_paths if isinstance(path_or_paths, (list, tuple)) else [path_or_paths]
    for index, path in enumerate(paths):
        if not os.path.exists(path):
            continue
        with open(path) as f:
            for line in f:
                t = json.loads(line)
                t["data"] = bytes.fromhex(t["data"])
                out[t.get("bus", index)].append(t)
    return out


def panel_emulators():
    from speedduo import pins
    from ssd1306_emulator import SSD1306Emulator

    return [
        SSD1306Emulator(mounted_rotation=pins.PANEL_ROTATION[i], name="p%d" % i)
        for i in range(pins.PANEL_COUNT)
    ]


def render_snaps(traces, snaps_ms, directory, address=None):
    """Feed each bus's writes (those finished by the snap time) to an emulator; save PNGs."""
    from speedduo import pins

    from host_sim.screens_capture import save_screens

    address = pins.PANEL_ADDRESS[0] if address is None else address
    emulators = panel_emulators()
    cursors = [0] * len(traces)
    saved = []
    for snap in sorted(snaps_ms):
        for bus, transactions in enumerate(traces):
            i = cursors[bus]
            while i < len(transactions) and transactions[i]["t1"] <= snap * 1000:
                t = transactions[i]
                if t["ack"] and t["addr"] == address and not t.get("read") and t["data"]:
                    emulators[bus].receive(t["data"])
                i += 1
            cursors[bus] = i
        saved += save_screens(emulators, directory, "snap_%d" % snap)
    if not snaps_ms:
        os.makedirs(directory, exist_ok=True)
    return saved
