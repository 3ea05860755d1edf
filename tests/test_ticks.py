"""speedduo.vocab.ticks: the board's wrap-safe ms arithmetic, and the board needing nothing else.

``supervisor.ticks_ms()`` wraps at 2**29. The project keeps the arithmetic in one
board module; Adafruit's ``adafruit_ticks`` (installed on the host only) is the
reference it must agree with.
"""

import ast
import os

import adafruit_ticks
import pytest
from speedduo.vocab.ticks import ticks_add, ticks_diff, ticks_less

from host_sim import ROOT

PERIOD = 1 << 29
HALF = 1 << 28
# readings around 0, the half period and the wrap, and deltas up to just under half
READINGS = [0, 1, 2, 999, HALF - 1, HALF, HALF + 1, PERIOD - 1000, PERIOD - 2, PERIOD - 1]
DELTAS = [0, 1, -1, 25, -25, 65_000, -65_000, HALF - 1, -(HALF - 1)]


@pytest.mark.parametrize("a", READINGS)
@pytest.mark.parametrize("b", READINGS)
def test_ticks_diff_and_less_agree_with_adafruit_ticks(a, b):
    assert ticks_diff(a, b) == adafruit_ticks.ticks_diff(a, b)
    assert ticks_less(a, b) == adafruit_ticks.ticks_less(a, b)


@pytest.mark.parametrize("t", READINGS)
@pytest.mark.parametrize("delta", DELTAS)
def test_ticks_add_agrees_with_adafruit_ticks_and_diff_undoes_it(t, delta):
    later = ticks_add(t, delta)
    assert later == adafruit_ticks.ticks_add(t, delta)
    assert 0 <= later < PERIOD
    assert ticks_diff(later, t) == delta


def test_an_instant_just_after_the_wrap_is_later_than_one_just_before():
    before, after = PERIOD - 3, 4  # 7 ms apart, across the wrap
    assert ticks_diff(after, before) == 7
    assert ticks_diff(before, after) == -7
    assert ticks_less(before, after) and not ticks_less(after, before)


def test_every_result_is_a_small_int_on_the_board():
    """MicroPython's small ints hold -2**30 .. 2**30 - 1: nothing here allocates."""
    for a in READINGS:
        for b in READINGS:
            assert -(1 << 30) <= a - b + HALF < 1 << 30
            assert -HALF <= ticks_diff(a, b) < HALF


def _board_sources():
    yield os.path.join(ROOT, "code.py")
    yield os.path.join(ROOT, "boot.py")
    for folder, _, names in sorted(os.walk(os.path.join(ROOT, "lib", "speedduo"))):
        for name in sorted(names):
            if name.endswith(".py"):
                yield os.path.join(folder, name)


def test_the_board_program_imports_nothing_but_circuitpython_and_its_own_modules():
    """No adafruit_ticks (nor any other library from the bundle) on the board."""
    circuitpython = {
        "array", "board", "busio", "digitalio", "gc", "json", "keypad", "microcontroller",
        "micropython", "os", "pwmio", "storage", "struct", "supervisor", "sys", "time",
        "usb_cdc", "watchdog", "typing", "i2cdisplaybus", "displayio", "math", "io", "errno",
        "traceback", "rp2pio", "collections",
    }  # fmt: skip
    foreign = []
    for path in _board_sources():
        with open(path) as f:
            tree = ast.parse(f.read(), path)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top != "speedduo" and top not in circuitpython:
                    foreign.append("%s: %s" % (os.path.relpath(path, ROOT), name))
    assert foreign == []


def test_no_board_module_repeats_the_wrap_arithmetic():
    """The 2**29 mask and half period live in speedduo/vocab/ticks.py only."""
    repeats = []
    for path in _board_sources():
        if path.endswith(os.path.join("speedduo", "vocab", "ticks.py")):
            continue
        with open(path) as f:
            text = f.read()
        for marker in ("0x1FFFFFFF", "0x10000000", "_TICKS_MASK", "_TICKS_HALF"):
            if marker.lower() in text.lower():
                repeats.append("%s: %s" % (os.path.relpath(path, ROOT), marker))
    assert repeats == []
