"""Speed Duo's desktop simulator and host tools (CPython side)."""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHIMS = os.path.join(ROOT, "host_sim", "shims")
HOST_SIM = os.path.join(ROOT, "host_sim")
LIB = os.path.join(ROOT, "lib")


def use_board_paths():
    """Put the board's lib/, the CircuitPython shims and the MicroPython-safe
    simulator modules first on sys.path, as the VM sees them."""
    for path in (HOST_SIM, SHIMS, LIB):
        if path in sys.path:
            sys.path.remove(path)
        sys.path.insert(0, path)
