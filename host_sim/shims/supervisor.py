"""Shim of CircuitPython's ``supervisor`` for the simulator: ticks_ms on the virtual clock."""

from vclock import current


def ticks_ms():
    """Milliseconds on the 1/1024 s tick, wrapping at 2**29 like the board's."""
    return current().ticks_ms()
