"""Shim of CircuitPython's ``watchdog``: the modes (the timer is ``microcontroller.watchdog``)."""


class WatchDogMode:
    RAISE = "RAISE"
    RESET = "RESET"


class WatchDogTimeout(Exception):
    pass
