"""What a run of the board program reads and writes, for ``board`` (the shims) and
``device`` (the firmware) alike: the settings its options become, a drive's
``--drive``/``--settings``, the script of presses, the nvm image, the tones' lines, the
summary line, and the I2C traces with the panel pictures made from them.
"""

import json
import os

from host_sim.logfile import SCRIPT_LIMIT, read_bytes, read_text, write_atomically


def check_game(args, changed):
    """The other games (V8, V9) take only their own rule options and play one game of
    rounds (no --best-of): anything else is refused before the run (one line, exit 2)."""
    game = getattr(args, "game", None)
    if game in (None, "speed"):
        return
    from speedduo.game.gamerules import options_of
    from speedduo.game.rules import HANDICAPS

    names = [name for name, _ in options_of(game)] + list(HANDICAPS)  # H1: every game's
    for name, _ in changed:
        if name not in names:
            raise ValueError(f"--{name.replace('_', '-')} does not apply to --game {game}")
    if args.best_of is not None:
        raise ValueError(f"--best-of: {game} is one game played in rounds (V8/V9)")


def settings_values(args, changed):
    """[(SETTING, value)] for settings.toml / the environment, from the options."""
    check_game(args, changed)
    values = []
    for name, value in changed:
        if isinstance(value, bool):
            value = int(value)
        values.append(("SPEED_" + name.upper(), value))
    if args.best_of is not None:
        values.append(("SPEED_BEST_OF", args.best_of))
    if args.opponent is not None:
        values.append(("SPEED_OPPONENT", args.opponent))
    if getattr(args, "game", None) is not None:
        values.append(("SPEED_GAME", args.game))
    if args.seed is not None:
        values.append(("SPEED_SEED", args.seed))
    if args.i2c_frequency is not None:
        values.append(("SPEED_I2C_FREQUENCY", args.i2c_frequency))
    if args.volume is not None:
        values.append(("SPEED_VOLUME", args.volume))
    if getattr(args, "keys", None) is not None:
        values.append(("SPEED_KEYS", args.keys))
    if args.idle_off_s is not None:
        values.append(("IDLE_OFF_S", args.idle_off_s))
    return values


SETTINGS_FILE_LIMIT = 16 << 20  # bytes: a drive holds 1 MiB; room for files far too big


def drive_sources(args, values):
    """(CIRCUITPY folder or None, settings.toml path or None) of ``--drive``/``--settings``,
    checked before the run: the settings are then the drive's file as it is, so options
    that would write settings are refused (one line, exit 2)."""
    drive, settings = args.drive, args.settings
    for option, given in (("--drive", drive), ("--settings", settings)):
        if given is not None and not given.strip():
            raise ValueError(option + ": empty path (name a file, or leave the option out)")
    if not drive and not settings:
        return None, None
    if values:
        raise ValueError(
            "--settings/--drive: the settings are the drive's settings.toml as it is; "
            "put %s in it instead of the option" % values[0][0]
        )
    if drive:
        if not os.path.isfile(os.path.join(drive, "code.py")):
            raise ValueError(f"--drive {drive}: no code.py in it (a CIRCUITPY folder has one)")
        drive = os.path.abspath(drive)
    if settings:
        if not os.path.isfile(settings):
            raise ValueError(f"--settings {settings}: not a file")
        if os.path.getsize(settings) > SETTINGS_FILE_LIMIT:
            raise ValueError(f"--settings {settings}: over {SETTINGS_FILE_LIMIT >> 20} MB")
        settings = os.path.abspath(settings)
    elif drive:
        settings = os.path.join(drive, "settings.toml")  # none there: every default
    return drive, settings


def tone_line(t_ms, hz, ms):
    """One tone as the --sounds file holds it."""
    return '{"t":%d,"hz":%d,"ms":%d}' % (t_ms, hz, ms)


def load_script(path):
    from script import parse_script

    return parse_script(read_text(path, "script", SCRIPT_LIMIT)) if path else []


NVM_SIZE = 4096  # microcontroller.nvm on the RP2040 (CircuitPython)


def read_nvm(path):
    """The bytes of an nvm FILE (None when it does not exist yet: erased flash)."""
    if not os.path.lexists(path):
        return None
    data = read_bytes(path, "nvm", NVM_SIZE, regular=True)  # LogError: one line naming it
    if len(data) != NVM_SIZE:
        raise ValueError(f"--nvm {path}: {len(data)} bytes, an nvm image has {NVM_SIZE}")
    return data


def match_logs(data, matches=0):
    """The data port's bytes as match logs, one per match (``[lines]``): seqs stripped,
    replies left out, a ``lost`` line where lines are missing (as ``monitor`` saves them,
    host_sim/wire.py); the first ``matches`` (0: all), the last perhaps cut short."""
    from host_sim.wire import Decoder, MatchAssembler

    decoder = Decoder()
    assembler = MatchAssembler()
    logs = []
    for item in decoder.feed(data) + decoder.end():
        logs += [lines for lines, _ in assembler.take(item)]
    logs += [lines for lines, _ in assembler.finish()]
    return logs[:matches] if matches else logs


def write_match_logs(path, logs):
    """Each match's log to its own file, as ``monitor --save`` and the window's ``--log``
    do: the first to ``path``, the next to ``path``-2, -3, ... (before the extension), so
    that ``replay`` reads each (a match log holds one match, docs/match-log.md). No match:
    ``path`` is written empty. Returns the paths written."""
    from host_sim.monitor import save_name

    logs = logs or [[]]
    paths = [save_name(path, i) for i in range(1, len(logs) + 1)]
    for name, lines in zip(paths, logs, strict=True):
        write_atomically(name, lines)
    return paths


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
    from speedduo.loop import pins
    from ssd1306_emulator import SSD1306Emulator

    return [
        SSD1306Emulator(mounted_rotation=pins.PANEL_ROTATION[i], name="p%d" % i)
        for i in range(pins.PANEL_COUNT)
    ]


def render_snaps(traces, snaps_ms, directory, address=None):
    """Feed each bus's writes (those finished by the snap time) to an emulator; save PNGs."""
    from speedduo.loop import pins

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
