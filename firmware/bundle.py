"""A zip of exactly what goes on the CIRCUITPY drive, for a parent without Python.

    python3 dev.py bundle                        # speedduo-bundle.zip here
    python3 dev.py bundle --out game.zip --mpy-cross ~/mpy-cross
    python3 dev.py bundle --uf2 speedduo-0.11.0.uf2   # the firmware with the game frozen in
    python3 firmware/bundle.py ...               # the same, standard library only

Inside: ``COPY-ME.txt`` (how to put it on the board, in a few lines) and a folder
``CIRCUITPY/`` holding the drive's files: ``code.py``, ``boot.py``, ``settings.toml`` and
``lib/speedduo/`` as CircuitPython ``.mpy`` files when CircuitPython's own ``mpy-cross``
is at hand (as deploy finds it: ``--mpy-cross``, ``$SPEEDDUO_MPY_CROSS``,
``~/.cache/speedduo/device/mpy-cross``), else as ``.py`` source. The game needs nothing
else on the board (no library from Adafruit's bundle). With ``--uf2 FILE`` (a Speed Duo
firmware: CircuitPython with the game frozen in, ``python3 dev.py firmware``) the zip holds
that file as ``speedduo.uf2`` and the drive's folder no ``lib/``: one drag onto the Pico's
RPI-RP2 drive puts the game on it. The same files give the same zip, byte for byte (fixed
dates and order).
"""

import argparse
import os
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:  # `python3 -I firmware/bundle.py` leaves the script's folder off
    sys.path.insert(0, HERE)

import deploy  # noqa: E402  (after the path)

DRIVE_FOLDER = "CIRCUITPY"
HOW_TO = "COPY-ME.txt"
DEFAULT_OUT = "speedduo-bundle.zip"
UF2_NAME = "speedduo.uf2"
UF2_MAGIC = b"UF2\nWQ]\x9e"  # a UF2 block's first two magic words (little-endian)
_DATE = (2020, 1, 1, 0, 0, 0)  # every entry's date: the same files give the same zip

INSTRUCTIONS = """\
Speed Duo {version} for a Raspberry Pi Pico running CircuitPython {circuitpython}
(the game as {form}). No program is needed on your computer: only copying.

1. CircuitPython, once: hold the BOOTSEL button on the Pico while you plug it in.
   A drive named RPI-RP2 appears. Download CircuitPython {circuitpython} for the
   Raspberry Pi Pico (a .uf2 file) from {page}
   and drag it onto RPI-RP2. That is all it takes: the Pico restarts and comes back as
   a drive named CIRCUITPY.
2. The game: open the CIRCUITPY folder of this zip and copy everything in it onto the
   CIRCUITPY drive (code.py, boot.py, settings.toml, the lib folder), replacing what is
   there. If the drive already has a lib/speedduo folder, delete it first: an old file
   left beside a new one could be used instead of it. Keep your own settings.toml (do
   not copy ours over it) if you changed it.
3. Eject the drive, unplug the Pico and plug it in again. The menu shows on both screens.

Hardware, buttons and settings: the project's README.md and hardware/BUILD.md.
"""

FROZEN_INSTRUCTIONS = """\
Speed Duo {version} for a Raspberry Pi Pico: CircuitPython {circuitpython} with the game
built in ({uf2}). No program is needed on your computer: only copying.

1. Hold the BOOTSEL button on the Pico while you plug it in. A drive named RPI-RP2
   appears. Drag {uf2} onto it. The Pico restarts and comes back as a drive named
   CIRCUITPY (your settings.toml and stats are kept when you do this again later).
2. Open the CIRCUITPY folder of this zip and copy code.py and boot.py onto the CIRCUITPY
   drive, and settings.toml unless the drive has your own. If the drive has a
   lib/speedduo folder (an older game), delete it: it would be used instead.
3. Eject the drive, unplug the Pico and plug it in again. The menu shows on both screens.

Hardware, buttons and settings: the project's README.md and hardware/BUILD.md.
"""


def drive_files(mpy_cross, build_dir, say):
    """(form, [(path on the drive, bytes)]): what deploy's plain layout puts on a drive,
    plus the default settings.toml."""
    release = deploy.build_release(mpy_cross, build_dir, say)
    files = [("code.py", release.code_text.encode())]
    files += sorted(release.top.items())
    files += [("lib/" + rel, data) for rel, data in sorted(release.game.items())]
    with open(os.path.join(deploy.ROOT, "settings.toml"), "rb") as f:
        files.append(("settings.toml", f.read()))
    return release.form, release.name, files


def read_uf2(path):
    """The bytes of the UF2 at ``path``; ValueError (one line) when it is not one."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 512 or len(data) % 512 or data[:8] != UF2_MAGIC:
        raise ValueError("not a UF2 firmware file")
    return data


def write_bundle(out, mpy_cross=None, say=print, uf2=None):
    """Write the zip at ``out`` (whole or not at all). Returns its [(name, bytes)].
    ``uf2``: the firmware's bytes (the game frozen in): the zip holds it and no ``lib/``."""
    with tempfile.TemporaryDirectory() as build_dir:
        form, version, files = drive_files(None if uf2 else mpy_cross, build_dir, say)
    if uf2 is None:
        text = INSTRUCTIONS.format(
            version=version,
            circuitpython=deploy.TESTED_VERSION,
            form="CircuitPython .mpy files" if form == "mpy" else ".py source",
            page=deploy.CIRCUITPYTHON_PAGE,
        )
        entries = [(HOW_TO, text.encode())]
    else:
        text = FROZEN_INSTRUCTIONS.format(
            version=version, circuitpython=deploy.TESTED_VERSION, uf2=UF2_NAME
        )
        entries = [(HOW_TO, text.encode()), (UF2_NAME, uf2)]
        files = [(rel, data) for rel, data in files if not rel.startswith("lib/")]
    entries += [(DRIVE_FOLDER + "/" + rel, data) for rel, data in files]
    part = out + ".part"
    try:
        with zipfile.ZipFile(part, "w", zipfile.ZIP_DEFLATED) as bundle:
            for name, data in entries:
                info = zipfile.ZipInfo(name, _DATE)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                bundle.writestr(info, data)
        os.replace(part, out)
    finally:
        if os.path.exists(part):
            os.remove(part)
    return entries


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="bundle", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--out", default=DEFAULT_OUT, help="the zip to write (default: %(default)s)"
    )
    parser.add_argument(
        "--mpy-cross",
        help="CircuitPython's mpy-cross (default: as deploy); --mpy-cross '' ships .py source",
    )
    parser.add_argument(
        "--uf2", help="a Speed Duo firmware (the game frozen in): in the zip, and no lib/"
    )
    args = parser.parse_args(argv)
    folder = os.path.dirname(os.path.abspath(args.out))
    if os.path.isdir(args.out) or not os.path.isdir(folder):
        print(
            "bundle: cannot write %s: not a file in an existing folder" % args.out, file=sys.stderr
        )
        return 2
    uf2 = None
    if args.uf2 is not None:
        try:
            uf2 = read_uf2(args.uf2)
        except (OSError, ValueError) as error:
            why = error if isinstance(error, ValueError) else error.strerror or error
            print("bundle: --uf2 %s: %s" % (args.uf2, why), file=sys.stderr)
            return 2
    try:
        entries = write_bundle(args.out, args.mpy_cross, say=_say, uf2=uf2)
    except OSError as error:
        print("bundle: cannot write %s: %s" % (args.out, error.strerror or error), file=sys.stderr)
        return 1
    kb = sum(len(data) for _, data in entries) // 1024
    drive = [name for name, _ in entries if name.startswith(DRIVE_FOLDER + "/")]
    print(
        "bundle: %s: %d files for CIRCUITPY (%d KB), %s%s"
        % (args.out, len(drive), kb, UF2_NAME + ", " if uf2 else "", HOW_TO)
    )
    return 0


def _say(text):
    print(text.replace("deploy: ", "bundle: ", 1), flush=True)


if __name__ == "__main__":
    sys.exit(main())
