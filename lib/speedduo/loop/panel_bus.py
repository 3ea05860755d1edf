"""A panel's I2C bus that may not be there yet (board_io.py: an unplugged panel module).

A panel module unplugged at power-on takes its SDA/SCL pull-ups with it, and
``busio.I2C()`` raises ``RuntimeError``: that panel waits behind a ``PanelBus`` that
opens the bus when the panel is plugged in.
"""

import busio

try:
    from typing import Optional  # noqa: F401  (type comments only; the board has no typing)
except ImportError:
    pass

_NO_DEVICE = OSError(19)  # ENODEV, what an unanswered address raises; preallocated


class PanelBus:
    """Panel ``index``'s busio.I2C on the board's pins ``scl`` and ``sda``, opened once
    something pulls SDA and SCL up.

    Until then every write fails as a NACK does (``OSError`` 19), so the panel
    is offline and retried like any unplugged panel (``Panel.recover``, every
    ``retry_ms``); the retry that finds the pull-ups opens the bus and hands it
    to the panel, so from then on the panel talks to busio directly. A bus open
    already is handed over as soon as the panel is given (``panel``): then
    nothing refers to the ``PanelBus`` any more and every transfer skips it.
    """

    def __init__(self, index: int, scl, sda, frequency: int) -> None:
        self.index = index
        self.scl = scl
        self.sda = sda
        self.frequency = frequency
        self.bus = None  # type: Optional[busio.I2C]
        self._panel = None
        self.open()

    @property
    def panel(self):
        """The Panel to hand the bus to (given once it is made: ``screens_setup.build``)."""
        return self._panel

    @panel.setter
    def panel(self, panel):
        self._panel = panel
        if self.bus is not None:
            panel.i2c = self.bus

    def open(self):
        """Try to open the bus; None while no panel (no pull-ups) is there."""
        try:
            bus = busio.I2C(self.scl, self.sda, frequency=self.frequency)
        except RuntimeError:  # "No pull up found on SDA or SCL": no panel module
            return None
        self.bus = bus
        if self._panel is not None:
            self._panel.i2c = bus
        return bus

    def try_lock(self) -> bool:
        bus = self.bus
        if bus is None:
            bus = self.open()
            if bus is None:
                return True  # writeto answers for the missing panel
        return bus.try_lock()

    def writeto(self, address, buffer, *, start, end) -> None:
        if self.bus is None:
            raise _NO_DEVICE
        self.bus.writeto(address, buffer, start=start, end=end)

    def unlock(self) -> None:
        if self.bus is not None:
            self.bus.unlock()
