"""Shim of CircuitPython's ``microcontroller``: Pin, the CPU's reset reason, the watchdog.

The watchdog is as strict as the board's in RESET mode: if the board program
goes longer than ``timeout`` seconds of virtual time between two ``feed()``
calls, the board would have reset, so the next ``feed()`` raises
``RuntimeError`` instead of passing silently.
"""

from vclock import current


class Pin:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "board." + self.name


class ResetReason:
    POWER_ON = "POWER_ON"
    BROWNOUT = "BROWNOUT"
    SOFTWARE = "SOFTWARE"
    DEEP_SLEEP_ALARM = "DEEP_SLEEP_ALARM"
    RESET_PIN = "RESET_PIN"
    WATCHDOG = "WATCHDOG"
    UNKNOWN = "UNKNOWN"
    RESCUE_DEBUG = "RESCUE_DEBUG"


class _Processor:
    reset_reason = ResetReason.POWER_ON


class _WatchDogTimer:
    def __init__(self):
        self.timeout = 0.0
        self.mode = None
        self.fed_us = -1
        self.longest_us = 0  # the longest gap between two feeds (for tests)

    def feed(self):
        if self.mode is None:
            raise ValueError("WatchDogTimer mode must be set before feed()")
        now = current().now_us
        if self.fed_us >= 0:
            gap = now - self.fed_us
            self.longest_us = max(self.longest_us, gap)
            if gap > self.timeout * 1000000:
                raise RuntimeError(
                    "watchdog: %.1f s without a feed; the board would have reset" % (gap / 1e6)
                )
        self.fed_us = now

    def deinit(self):
        self.mode = None


cpu = _Processor()
watchdog = _WatchDogTimer()
