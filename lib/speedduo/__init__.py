"""Speed Duo: the game and its board glue (CircuitPython, CPython, MicroPython)."""

__version__ = "0.11.0"  # the game's version, answered to the host's `version` request (link.py)
