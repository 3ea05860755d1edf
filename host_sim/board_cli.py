"""``python -m host_sim board|device``: the board program, on the shims or on the real firmware.

Both subcommands take the same options and write the same outputs:

* the rule options of ``run`` and ``--best-of`` become ``settings.toml`` values
  (``SPEED_<NAME>``; switches 0/1), ``--seed N`` becomes ``SPEED_SEED``;
* ``--script FILE``: the ``run`` line format, times in µs since power-on (the menu
  comes first: a script presses 1 of either player while PLAY is selected);
* ``--opponent easy|medium|hard``: one player against the board's own opponent
  (lib/speedduo/loop/opponent.py), as if chosen in the menu (``SPEED_OPPONENT``); it
  plays Player 2 and Player 2's buttons are ignored;
* ``--game spit|california``: V8 Spit or V9 California Speed instead of classic
  Speed, as if chosen in the menu (``SPEED_GAME``; lib/speedduo/loop/game_app.py); only the
  rule options the game takes (the registry's options, speedduo.games) and no ``--best-of``;
* ``--matches N`` (default 1): stop after N matches; ``board`` (but ``--pty``, whose
  host may still ask) stops too once the script is over and the board waits in its
  menu (no match can start without a press): what was played is written, then one
  line says so (exit 2);
  ``--log FILE``: the match log the board streams on its USB data port (JSON Lines),
  one match per file as ``monitor --save`` and the window write them: the first to
  FILE, the next to FILE-2, FILE-3, ... (before the extension), each one ``replay``
  reads;
* ``--sounds FILE``: the piezo's tones (GP15's PWM), one JSON line each,
  ``{"t": ms since power-on, "hz": .., "ms": length}`` (docs/sound.md); a tone still
  sounding when the run stops ends there; ``--volume 0..3`` becomes ``SPEED_VOLUME``;
* ``--screens DIR --snap T_MS``: both panels as PNGs at T_MS ms since power-on,
  decoded by our SSD1306 emulator from the bytes each I2C bus carried up to then;
* ``--panel0/--panel1 present|absent|nack|late:T_MS`` (``absent``: no panel and so
  no pull-ups; ``nack``: pull-ups but the address is never ACKed; ``late``: absent
  until T_MS, then present) and ``--data-port read|never|stop:T_MS`` (the host reads
  the log port / never opens it / holds it open and stops reading at T_MS), and,
  ``board`` only, ``pull:T1_MS-T2_MS`` (the cable is out from T1 to T2: writes raise);
* ``board --pty``: the data port on a pseudo-terminal (its path on the first line)
  for ``monitor``/``stats`` (docs/link.md); the board powers on when a host first
  opens it (``--no-wait``: at once), paced at ``--speed`` virtual s per wall s.

* ``--nvm FILE``: ``microcontroller.nvm``'s 4096 bytes, read at power-on when FILE
  exists and written back when the run ends; ``board`` also takes ``--power-cut-ms T``
  (the power goes at T ms since power-on: the run stops there, a flash write half
  done stays half done, and FILE gets what the flash then holds; docs/stats.md).

``board`` runs ``code.py`` on the simulator's shims (``host_sim/board_run.py``), in
CPython or the MicroPython VM; ``--drive DIR`` runs that drive's ``code.py`` as
CircuitPython would (DIR is the drive's ``/``: deploy's version folder and its
``code.py`` loader, or the bundle's plain ``lib/``); a drive of ``.mpy`` files is
CircuitPython's bytecode: ``device --drive`` runs it. ``SPEED_PROFILE = 1`` prints the
board's ``speedduo-profile`` lines (``board console: ...``); CPython has no
``gc.mem_free``, so there the heap figures are -1 and a line says so. ``device`` runs
it on CircuitPython itself on an emulated RP2040 (``host_sim/device_run.py``; docs/device.md).
"""

import os
import shutil
import subprocess
import sys
import tempfile

from speedduo import games  # noqa: E402  (the registry; cli_options put lib/ on the path)

from host_sim import HOST_SIM, ROOT, host_requests
from host_sim.cli_options import add_rule_options, heap_type, seed_type
from host_sim.logfile import (
    check_out_paths,
    write_atomically,
    write_bytes_atomically,
)
from host_sim.run_files import (
    drive_sources,
    load_script,
    match_logs,
    read_nvm,
    read_traces,
    render_snaps,
    settings_values,
    summary,
    write_match_logs,
)

DEFAULT_STEP_US = 200
DEFAULT_PTY_SPEED = 4.0
# what the board prints with SPEED_PROFILE = 1 (profiling.py), shown as its console's
PROFILE_LINES = ("speedduo-profile ", "profile: ")


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
    start, _, end = text[5:].partition("-")
    if text.startswith("pull:") and start.isdigit() and end.isdigit() and int(start) < int(end):
        return text
    raise argparse.ArgumentTypeError(
        f"bad data-port mode {text!r}: read|never|stop:T_MS|pull:T1_MS-T2_MS"
    )


IDLE_OFF_S_MAX = 14400  # settings.py's limit for IDLE_OFF_S


def _idle_seconds(text):
    import argparse

    if not (text.isdigit() and int(text) <= IDLE_OFF_S_MAX):
        raise argparse.ArgumentTypeError(f"bad idle time {text!r}: 0..{IDLE_OFF_S_MAX} seconds")
    return int(text)


def _speed(text):
    import argparse

    try:
        value = float(text)
    except ValueError:
        value = -1
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"bad speed {text!r}: a number >= 0 (0: no pacing)")
    return value


def add_parsers(sub):
    """The ``board`` and ``device`` subcommands, on cli.py's subparsers."""
    from speedduo.game.rules import BEST_OF

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
            help="the board plays Player 2 (SPEED_OPPONENT; default: two players)",
        )
        p.add_argument(
            "--game",
            choices=games.BOARD_GAMES,
            default=None,
            help="V8 spit, V9 california (SPEED_GAME; default: classic speed)",
        )
        p.add_argument("--i2c-frequency", type=int, default=None, metavar="HZ")
        p.add_argument("--log", help="write the match log from the data port here")
        p.add_argument("--sounds", help="write the piezo's tones here (JSON lines)")
        p.add_argument("--volume", type=int, choices=range(4), default=None, help="SPEED_VOLUME")
        p.add_argument(
            "--keys",
            choices=("pio", "keypad"),
            default=None,
            help="SPEED_KEYS: who stamps the presses (default pio: to the µs; keypad: ms)",
        )
        p.add_argument(
            "--idle-off-s",
            type=_idle_seconds,
            default=None,
            metavar="S",
            help="IDLE_OFF_S: seconds in the menu with no key before both panels go dark "
            "(0: never; default: IDLE_OFF_MIN's 5 minutes)",
        )
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
        p.add_argument("--nvm", help="microcontroller.nvm's bytes: read at power-on, saved")
        p.add_argument(
            "--settings",
            metavar="FILE",
            help="the drive's settings.toml: FILE as it is, bytes untouched (the settings "
            "options are then refused: put SPEED_SEED etc. in FILE)",
        )
        p.add_argument(
            "--drive",
            metavar="DIR",
            help="run the board program from a CIRCUITPY folder (its code.py, lib/ and "
            "settings.toml as they are; e.g. an unpacked `dev.py bundle`)",
        )
        host_requests.add_options(p)
        if name == "board":
            p.add_argument(
                "--power-cut-ms",
                type=float,
                default=None,
                metavar="T_MS",
                help="the power goes at T_MS ms since power-on (fractions allowed)",
            )
            p.add_argument("--vm", choices=("cpython", "micropython"), default="cpython")
            p.add_argument(
                "--heap",
                type=heap_type,
                default="1M",  # (board code held from power-on, compiled from source: 512K
                # failed with SPEED_PROFILE's buffers once the loader was retired)
                help="MicroPython heap (the 64-bit VM's objects are about twice the board's)",
            )
            p.add_argument(
                "--step-us",
                type=int,
                default=DEFAULT_STEP_US,
                help="virtual time each ticks_ms() read costs (default 200)",
            )
            p.add_argument(
                "--pty",
                action="store_true",
                help="the data port on a pseudo-terminal for host tools (path on the first line)",
            )
            p.add_argument(
                "--no-wait",
                action="store_true",
                help="--pty: power on at once, not when a host first opens the port",
            )
            p.add_argument(
                "--speed",
                type=_speed,
                default=DEFAULT_PTY_SPEED,
                help="--pty: virtual seconds per wall second (default 4; 0: as fast as it runs)",
            )
        else:
            p.add_argument("--report", help="write the measured figures (JSON) here")
            p.add_argument("--firmware-dir", help="firmware.uf2 + bootrom.bin (docs/device.md)")
            p.add_argument(
                "--deploy",
                choices=("py", "mpy", "frozen"),
                default=None,
                help="the drive: the game as .py or .mpy (stock firmware), or frozen: only "
                "code.py and boot.py, on Speed Duo's UF2 (--uf2 or $SPEEDDUO_FROZEN_UF2; "
                "the default where that is set, else py)",
            )
            p.add_argument("--uf2", help="run this UF2 instead of the firmware folder's")
            p.add_argument(
                "--blank-flash",
                action="store_true",
                help="the drive erased, as on a new Pico (the UF2 brings its files)",
            )
            p.add_argument(
                "--drive-writes",
                action="store_true",
                help="the drive takes the firmware's writes (else read-only; --keep: drive.bin)",
            )
            p.add_argument(
                "--boot-out",
                metavar="FILE",
                help="the drive's boot_out.txt: FILE's bytes, the text this firmware wrote at "
                "its first boot (then it waits no 1 s to write it: a Pico's every-day power-on)",
            )
            p.add_argument(
                "--limit-ms",
                type=int,
                default=None,
                help="emulated time limit (default: last press + 30000)",
            )
            p.add_argument("--keep", help="keep the harness's raw recordings in DIR")
        add_rule_options(p)


def run_board(args, changed):
    """``python -m host_sim board``: the board program on the shims, in steps: the options
    checked (every one before the run), the board's environment, the run, what it wrote."""
    values, sends, nvm_image = _checked_options(args, changed)
    env = _board_environment(args, values)
    with tempfile.TemporaryDirectory() as tmp:
        paths = {name: os.path.join(tmp, name) for name in ("i2c.jsonl", "data.bin", "nvm.bin")}
        paths["sounds.jsonl"] = os.path.join(tmp, "sounds.jsonl")
        faults, script, pty = _faults_and_script(args, tmp, sends)
        if nvm_image is not None:
            with open(paths["nvm.bin"], "wb") as f:
                f.write(nvm_image)
        command = [
            *_interpreter(args),
            os.path.join(HOST_SIM, "board_run.py"),
            ROOT,
            str(args.step_us),
            str(args.matches),
            script,
            paths["i2c.jsonl"] if (args.screens or args.snap) else "-",
            ",".join(faults),
            paths["data.bin"],
            paths["nvm.bin"] if args.nvm else "-",
            paths["sounds.jsonl"] if args.sounds else "-",
        ]
        try:
            result = subprocess.run(
                command,
                capture_output=True,
                text=True,
                env=env,
                timeout=None if pty else 3600,
                pass_fds=(pty.master,) if pty else (),
            )
        except KeyboardInterrupt:
            say("board: stopped")
            return 130
        finally:
            if pty is not None:
                pty.close()  # once the host has read what is queued (or has gone)
        if result.returncode != 0:
            tail = (result.stderr or result.stdout).strip().splitlines()[-1:] or ["(no output)"]
            raise RuntimeError(f"the board program failed on the shims ({args.vm}): {tail[0]}")
        data_bytes, logs, tones = _collect(args, paths)
    _report(args, result.stdout, data_bytes, logs, tones, sends)
    ended = [line for line in result.stdout.splitlines() if line.startswith(SCRIPT_ENDED)]
    if ended:  # what was played is written (above); the matches asked for are not there
        played = sum(1 for lines in logs if lines[-1].startswith('{"ev":"match_end"'))
        raise ValueError(
            f"--matches {args.matches}: the board played {played} and waits in its menu at"
            f" {ended[0].split()[4]} ms, after the last press of the script: no match can"
            " start without one (add presses, or ask for fewer matches)"
        )
    return 0


# board_run.py's line when the script is over and the board waits in its menu (end=)
SCRIPT_ENDED = "# script ended at "
SCRIPT_END_PAD_US = 500000  # after the last press: the menu has read it (a pass is ~ms)


def script_end_us(script, sends, snaps_ms):
    """When nothing scripted is left (µs since power-on): the last press or release, the
    host's last request answered, the last snap; board_run.py's ``end=``."""
    last = max([t for t, _, _, _ in script] + [host_requests.run_until_us(sends)])
    return max([last + SCRIPT_END_PAD_US] + [t * 1000 for t in snaps_ms])


def _checked_options(args, changed):
    """The settings the options make, the host's sends and the nvm image, every option
    checked before anything runs (one line, exit 2)."""
    if args.matches < 1:
        raise ValueError("--matches must be at least 1 on the simulator (it has no time limit)")
    if args.step_us < 1:
        raise ValueError("--step-us must be at least 1 (each ticks_ms() read moves the clock)")
    values = settings_values(args, changed)
    check_out_paths(args)  # --log, --sounds, --nvm: before the run, not after it
    load_script(args.script)  # one-line error for a bad script, before the VM starts
    if args.pty and args.vm != "cpython":
        raise ValueError("--pty runs the board on CPython (--vm cpython)")
    if args.pty and not args.data_port.startswith(("read", "pull:")):
        raise ValueError("--pty: the host at the other end decides when it reads (read|pull:)")
    sends = host_requests.schedule(args)
    if sends and (args.pty or args.data_port == "never"):
        raise ValueError(
            "--ask/--send: the host is the program at the pty's other end (--pty)"
            if args.pty
            else "--ask/--send: the host never opens the data port"
        )
    nvm_image = read_nvm(args.nvm) if args.nvm else None
    if args.power_cut_ms is not None and not 0 <= args.power_cut_ms < 1e9:
        raise ValueError("--power-cut-ms must be 0 <= T_MS < 1e9")
    return values, sends, nvm_image


def _board_environment(args, values):
    """The environment the board program reads its settings from (``os.getenv`` on the
    shims): this run's values only, or the drive's settings.toml as it is."""
    env = dict(os.environ)
    for key in [k for k in env if k.startswith(("SPEED_", "IDLE_OFF_"))]:
        del env[key]
    for key, value in values:
        env[key] = str(value)
    drive, settings_file = drive_sources(args, values)
    if settings_file:
        env["SPEEDDUO_SETTINGS"] = settings_file
    if drive:
        _check_runs_on_shims(args.drive, drive)
        env["SPEEDDUO_DRIVE"] = drive
    return env


def _check_runs_on_shims(name, drive):
    """A drive whose game is CircuitPython bytecode (``.mpy``, deploy's and the bundle's
    form when mpy-cross is found) runs on CircuitPython only: one line, before the run."""
    for folder, _, files in os.walk(drive):
        if any(f.endswith(".mpy") for f in files) and "speedduo" in folder.split(os.sep):
            raise ValueError(
                f"--drive {name}: its game is CircuitPython bytecode (.mpy), which the shims"
                " cannot run: `device --drive` runs it on CircuitPython (deploy and bundle"
                " write .py when mpy-cross is not found)"
            )


def _interpreter(args):
    """CPython, or the venv's MicroPython VM with the heap asked for."""
    if args.vm != "micropython":
        return [sys.executable]
    micropython = shutil.which("micropython", path=os.path.dirname(sys.executable))
    micropython = micropython or shutil.which("micropython")
    if not micropython:
        raise ValueError("micropython not found: run `python3 dev.py setup`")
    return [micropython, "-X", f"heapsize={args.heap}"]


def _faults_and_script(args, tmp, sends):
    """board_run.py's FAULTS words, its script's path and the pty (or None)."""
    faults = [f"p0={args.panel0}", f"p1={args.panel1}", f"data={args.data_port}"]
    script = os.path.abspath(args.script) if args.script else "-"
    pty = None
    if args.pty:
        from host_sim.pty_port import PtyPort

        if not args.script:
            script = os.path.join(tmp, "demo.txt")
            with open(script, "w") as f:
                f.write(demo_script())
        pty = PtyPort()
        say(pty.path)
        faults += [f"pty={pty.master}", f"speed={args.speed}"]
        if not args.no_wait:
            pty.wait_for_host()
    if args.power_cut_ms is not None:
        faults.append(f"cut={round(args.power_cut_ms * 1000)}")
    elif pty is None:  # (a power cut ends the run anyway; a pty's host may still ask)
        presses = load_script(script) if script != "-" else []
        faults.append(f"end={script_end_us(presses, sends, args.snap)}")
    if sends:
        sends_path = os.path.join(tmp, "sends.txt")
        with open(sends_path, "w") as f:
            f.writelines(f"{t_us} {data.hex()}\n" for t_us, data in sends)
        faults.append(f"send={sends_path}")
    return faults, script, pty


def _collect(args, paths):
    """What the run left in its temporary files: the data port's bytes, the log's lines
    and the tones; the nvm and the panel pictures go where the options say."""
    with open(paths["data.bin"], "rb") as f:
        data_bytes = f.read()
    logs = match_logs(data_bytes, args.matches)
    if args.nvm:
        with open(paths["nvm.bin"], "rb") as f:
            write_bytes_atomically(args.nvm, f.read())
    if args.screens or args.snap:
        traces = read_traces(paths["i2c.jsonl"], buses=2)
        render_snaps(traces, args.snap, args.screens or ".")
    tones = None
    if args.sounds:
        with open(paths["sounds.jsonl"]) as f:
            tones = f.read().splitlines()
    return data_bytes, logs, tones


def _report(args, stdout, data_bytes, logs, tones, sends):
    """The logs and the tones written, and the run's summary lines."""
    written = write_match_logs(args.log, logs) if args.log else []
    if args.sounds:
        write_atomically(args.sounds, tones)
    cut = f"; power cut at {args.power_cut_ms:g} ms" if "# power cut at " in stdout else ""
    say(summary("board", args, [line for lines in logs for line in lines]) + cut)
    if len(written) > 1:
        say(f"logs: one match per file: {', '.join(written)}")
    for line in stdout.splitlines():
        if line.startswith(PROFILE_LINES):  # SPEED_PROFILE = 1 (lib/speedduo/loop/profiling.py)
            say(f"board console: {line}")
    if sends:
        unsent = sum(
            int(line.split()[-1])
            for line in stdout.splitlines()
            if line.startswith("# host unsent ")
        )
        total = sum(len(d) for _, d in sends)
        say(
            "host: %d bytes sent on the data port, %d not taken by the board"
            % (total - unsent, unsent)
        )
        for line in host_requests.reply_lines(data_bytes):
            say(line)
    if args.nvm:
        for line in stdout.splitlines():
            if line.startswith("stats: "):  # what the board said on its console at boot
                print(f"board console: {line}")
            elif line.startswith("# nvm write "):
                t0, t1 = (int(word) / 1000 for word in line.split()[3:5])
                print(f"nvm: write at {t0:.3f}-{t1:.3f} ms")
        print(f"nvm: saved to {args.nvm}")


def say(text):
    print(text, flush=True)


def demo_script(seconds=1800, every_us=150000):
    """``--pty`` without ``--script``: PLAY at 1 s, then both players press 1-5 in
    turn every 150 ms (a fitting card is played, the rest are refused); between
    matches the same presses start the next one (PLAY is selected)."""
    lines = ["1000000 0 1"]
    t = 5000000
    i = 0
    while t < seconds * 1000000:
        lines.append("%d %d %d" % (t, i % 2, 1 + (i // 2) % 5))
        t += every_us
        i += 1
    return "\n".join(lines) + "\n"
