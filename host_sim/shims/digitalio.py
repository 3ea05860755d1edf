"""Shim of CircuitPython's ``digitalio`` (outputs only): the level of each pin over time.

``DigitalInOut(pin)`` records ``(t_us, value)`` on every change in ``edges`` on
the virtual clock, so a test can time what the board program marks with a
pin (the profiler's LED probe).
"""

from vclock import current


class Direction:
    INPUT = 0
    OUTPUT = 1


class DigitalInOut:
    def __init__(self, pin):
        self.pin = pin
        self.direction = Direction.INPUT
        self._value = False
        self.edges = []

    def switch_to_output(self, value=False, drive_mode=None):
        self.direction = Direction.OUTPUT
        self.value = value

    @property
    def value(self):
        return self._value

    @value.setter
    def value(self, value):
        value = bool(value)
        if value != self._value:
            self.edges.append((current().now_us, value))
        self._value = value

    def deinit(self):
        pass
