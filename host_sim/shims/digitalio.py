"""Shim of CircuitPython's ``digitalio``: the level of each output pin over time, and inputs.

``DigitalInOut(pin)`` records ``(t_us, value)`` on every change in ``edges`` on
the virtual clock, so a test can time what the board program marks with a
pin (the profiler's LED probe). An input reads its pull; a button's pin (the pin
map's ``BUTTON_PINS``, the board's wiring) reads pressed while the clock's scripted
contact (``VirtualClock.contacts``, the keypad's key numbers) is closed.
"""

from vclock import current


class Direction:
    INPUT = 0
    OUTPUT = 1


class Pull:
    UP = 1
    DOWN = 2


EDGES_KEPT = 4096  # an output's first edges kept (SPEED_PROFILE's LED: 2 per loop pass)


class DigitalInOut:
    def __init__(self, pin):
        self.pin = pin
        self.direction = Direction.INPUT
        self.pull = None
        self._value = False
        self.edges = []  # (t_us, level) of the first EDGES_KEPT changes of an output

    def switch_to_input(self, pull=None):
        self.direction = Direction.INPUT
        self.pull = pull

    def switch_to_output(self, value=False, drive_mode=None):
        self.direction = Direction.OUTPUT
        self.value = value

    @property
    def value(self):
        if self.direction == Direction.INPUT:
            return self._input()
        return self._value

    def _input(self):
        from speedduo.loop import pins

        level = self.pull == Pull.UP
        name = getattr(self.pin, "name", None)
        if name in pins.BUTTON_PINS:
            key = pins.BUTTON_PINS.index(name)
            clock = current()
            closed = False
            latest = -1
            for t_us, k, is_closed in clock.contacts:
                if k == key and latest <= t_us <= clock.now_us:
                    latest = t_us
                    closed = is_closed
            if closed:
                level = pins.KEYS_VALUE_WHEN_PRESSED
        return level

    @value.setter
    def value(self, value):
        value = bool(value)
        if value != self._value and len(self.edges) < EDGES_KEPT:
            self.edges.append((current().now_us, value))
        self._value = value

    def deinit(self):
        pass
