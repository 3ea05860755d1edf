"""Wrap-safe arithmetic on ``supervisor.ticks_ms()`` values, the board's one clock.

``supervisor.ticks_ms()`` (and ``keypad.Event.timestamp``) count milliseconds modulo
2**29: the count starts 65 s before its first wrap and wraps every ~6.2 days after.
Two readings are compared through their difference taken modulo 2**29 and read as
a signed number in -2**28 .. 2**28 - 1 (about +-3.1 days), so the order of two
instants holds across a wrap. Every value here is a small int on the board (under
2**30): no call allocates, so the play path may use them.

This is the arithmetic of Adafruit's ``adafruit_ticks`` (the same results; the
tests check it against that library), kept in the project so that the board needs
nothing but CircuitPython itself.
"""

from micropython import const  # on the host, Blinka provides this module

_TICKS_MASK = const(0x1FFFFFFF)  # ticks_ms() counts modulo 2**29
_TICKS_HALF = const(0x10000000)


def ticks_diff(ticks1: int, ticks2: int) -> int:
    """``ticks1 - ticks2`` in ms, wrap-safe: negative when ``ticks1`` is earlier."""
    return ((ticks1 - ticks2 + _TICKS_HALF) & _TICKS_MASK) - _TICKS_HALF


def ticks_add(ticks: int, delta: int) -> int:
    """The ticks value ``delta`` ms after ``ticks`` (``|delta|`` under 2**28)."""
    return (ticks + delta) & _TICKS_MASK


def ticks_less(ticks1: int, ticks2: int) -> bool:
    """Whether ``ticks1`` is earlier than ``ticks2``."""
    return ticks_diff(ticks1, ticks2) < 0


# supervisor.ticks_ms() is (raw * 125 // 128 + 0x1FFF0000) % 2**29 for the 1/1024 s tick raw
# (CircuitPython's supervisor/shared/tick.c): adding _TICKS_FROM_RAW undoes the offset
_TICKS_FROM_RAW = const(0x10000)


def one_tick_ms(ticks: int) -> bool:
    """Does the ``ticks_ms()`` value ``ticks`` span one 1/1024 s tick (976 of each 1,000 ms;
    the others span two)? The millisecond m = raw * 125 // 128 spans the ticks from
    ceil(128 m / 125) to ceil(128 (m + 1) / 125) - 1, a pattern that repeats every 125 ms.
    (Exact for the first 2**29 ms, 6.2 days, of a power-on; past that a millisecond may be
    taken for the other kind, and a tie across its two scans be split: never a crash.)"""
    q = ((ticks + _TICKS_FROM_RAW) & _TICKS_MASK) % 125
    return (128 * q + 252) // 125 - (128 * q + 124) // 125 == 1
