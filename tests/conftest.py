"""Shared test helpers: build hands in a chosen layout, drive matches, run the simulator."""

import json
import os
import subprocess
import sys

import pytest
from hypothesis import settings

# host_sim importable however pytest was started (`python -m pytest` already has the
# root first: the board's code.py there is inert when imported, see its docstring)
sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from host_sim import ROOT, use_board_paths  # noqa: E402

use_board_paths()

from position import set_piles, set_player, set_reserve  # noqa: E402
from speedduo.game.match import PLAYING, Match  # noqa: E402
from speedduo.game.rules import Rules  # noqa: E402
from speedduo.log.matchlog import MatchLog  # noqa: E402
from speedduo.vocab.cards import NO_CARD, card_from_name  # noqa: E402

SOAK = os.environ.get("SPEED_SOAK") == "1"

# The device scenarios (CircuitPython 10.2.1 on an emulated RP2040, docs/device.md) run
# where the firmware files are ($SPEEDDUO_DEVICE_DIR, else ~/.cache/speedduo/device: CI
# points the variable at its copy); the long ones also need SPEED_DEVICE_LONG=1.
from host_sim import device_run  # noqa: E402

HAVE_FIRMWARE = device_run.firmware_present()
DEVICE_LONG = os.environ.get("SPEED_DEVICE_LONG") == "1"
needs_firmware = pytest.mark.skipif(
    not HAVE_FIRMWARE, reason="no firmware.uf2/bootrom.bin (docs/device.md)"
)
needs_long = pytest.mark.skipif(
    not (HAVE_FIRMWARE and DEVICE_LONG), reason="the firmware files and SPEED_DEVICE_LONG=1"
)
# Speed Duo's own UF2 (python3 dev.py firmware; .ci/run builds it and sets the variable):
# its scenarios skip where it is absent, except where it must be there: in CI (CI=true)
# wherever the device scenarios run, or when $SPEEDDUO_FROZEN_UF2 names a missing file;
# there they fail (the `frozen_uf2` fixture says why)
FROZEN_UF2 = device_run.frozen_uf2()
FROZEN_REQUIRED = bool(FROZEN_UF2) or (os.environ.get("CI") == "true" and HAVE_FIRMWARE)
needs_frozen = pytest.mark.skipif(
    not HAVE_FIRMWARE or not (device_run.frozen_present() or FROZEN_REQUIRED),
    reason="no Speed Duo UF2: set $SPEEDDUO_FROZEN_UF2 (python3 dev.py firmware, docs/firmware.md)",
)


@pytest.fixture
def frozen_uf2():
    """The path of Speed Duo's own UF2; a failure (not a skip) where it must be there."""
    if not device_run.frozen_present():
        pytest.fail(
            "Speed Duo's UF2 is required here but missing: $SPEEDDUO_FROZEN_UF2=%r "
            "(build it with python3 dev.py firmware --kit DIR: docs/firmware.md)" % FROZEN_UF2
        )
    return device_run.frozen_uf2()


# The same examples on every machine: Hypothesis switches to fixed examples by
# itself when it sees a CI variable, so without this a developer's run and CI's
# run would try different matches. A soak explores fresh random examples.
settings.register_profile("repeatable", derandomize=True, database=None, print_blob=True)
settings.register_profile("soak", print_blob=True)
settings.load_profile("soak" if SOAK else "repeatable")
if SOAK:
    os.environ.setdefault("PYTEST_TIMEOUT", "0")  # long runs are the point of a soak


def new_hand(seed=1, **rules):
    """A match with a dealt first hand; returns (match, hand, lines)."""
    log = MatchLog()
    match = Match(seed, Rules(**rules), 3, log)
    match.pressed(match.hand_start)
    match.advance(match.hand_start)
    assert match.phase == PLAYING
    lines = []
    log.drain(lines.append)
    return match, match.hand, lines


def lay_out(hand, hands, piles, draw=((), ()), side=((), ()), reserve=()):
    """Put named cards where a test wants them. Piles and stacks are given bottom first."""

    def codes(names):
        return bytes(NO_CARD if name is None else card_from_name(name) for name in names)

    set_piles(hand, codes(piles[0]), codes(piles[1]))
    for p in range(2):
        slots = list(hands[p]) + [None] * (5 - len(hands[p]))
        set_player(hand, p, codes(slots), codes(draw[p]), codes(side[p]))
    set_reserve(hand, codes(reserve))


def drained(hand):
    lines = []
    hand.log.drain(lines.append)
    return lines


def run_cli(*args, check=True, timeout=600, cwd=ROOT, env=None):
    """``python -m host_sim ARGS`` in a subprocess; ``env``: extra variables."""
    lib_path = os.pathsep.join([ROOT, os.path.join(ROOT, "lib")])
    env = dict(os.environ, PYTHONPATH=lib_path, **(env or {}))
    result = subprocess.run(
        [sys.executable, "-m", "host_sim", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if check and result.returncode != 0:
        raise AssertionError(f"exit {result.returncode}: {result.stderr}")
    return result


def _running(pid):
    """Whether ``pid`` is a live process (not gone, not a zombie waiting to be reaped)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0] != "Z"
    except FileNotFoundError:
        return False


def gone_within(pids, seconds):
    """True once none of ``pids`` runs (Linux's /proc), False if one still does after
    ``seconds`` (a bound for a process being killed, not a timing under test)."""
    import time

    deadline = time.monotonic() + seconds
    while any(_running(pid) for pid in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.fixture
def cli():
    return run_cli


def run_board_program(tmp_path, script, faults="", matches=1, **settings):
    """code.py's program on the shims (host_sim/board_run.py) with a script of presses
    (µs since power-on); returns (the finished process, its I2C writes)."""
    env = dict(os.environ, SPEED_SEED="2", SPEED_IDLE_MS="1500")
    env.update({k: str(v) for k, v in settings.items()})
    command = [sys.executable, os.path.join(ROOT, "host_sim", "board_run.py"), ROOT]
    trace = tmp_path / "trace.jsonl"
    result = subprocess.run(
        [*command, "200", str(matches), os.path.join(ROOT, script), str(trace), faults],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    writes = [json.loads(line) for line in trace.read_text().splitlines()]
    return result, writes


def deal_game(core, seed=1):
    """A rules core of the other games (V8-V10) with a fresh log, its first round dealt."""
    from runner import make_log
    from speedduo.game.rng import Rng

    core.log = make_log(core)
    core.deal(Rng(seed), 1)
    return core


def game_lines(core):
    """The log lines the core wrote since the last call, as objects."""
    import json

    out = []
    core.log.drain(out.append)
    return [json.loads(line) for line in out]


def cards(*names):
    return [card_from_name(name) for name in names]


class EventQueue:
    """A keypad.EventQueue stand-in: (timestamp, key, pressed) items in scan order; a µs
    source's items (timestamp, key, pressed, sub_us) also say the µs past the ms."""

    def __init__(self, items=()):
        self.items = list(items)
        self.overflowed = False
        self.cleared = 0

    def get_into(self, event):
        if not self.items:
            return False
        item = self.items.pop(0)
        event.timestamp, event.key_number, event.pressed = item[:3]
        if len(item) > 3:
            event.sub_us = item[3]
        return True

    def __len__(self):
        return len(self.items)

    def clear(self):
        self.items = []
        self.overflowed = False
        self.cleared += 1
