"""Shim of CircuitPython's ``busio``: I2C buses with an emulated SSD1306 on each.

Every ``busio.I2C`` the board code opens is the simulator's emulated bus
(``ssd1306_emulator.FakeI2C``) with one panel at the pin map's address,
mounted as the pin map says. ``buses`` lists them in the order they were made.
"""

from speedduo import pins
from ssd1306_emulator import FakeI2C, SSD1306Emulator

buses = []


class I2C(FakeI2C):
    def __init__(self, scl, sda, *, frequency=100000, timeout=255):
        FakeI2C.__init__(self, frequency=frequency)
        name = getattr(sda, "name", sda)
        if name not in pins.PANEL_SDA:
            raise ValueError("no panel on SDA %s in the pin map" % name)
        i = pins.PANEL_SDA.index(name)
        if getattr(scl, "name", scl) != pins.PANEL_SCL[i]:
            raise ValueError("SCL does not pair with SDA %s in the pin map" % name)
        self.attach(
            pins.PANEL_ADDRESS[i],
            SSD1306Emulator(mounted_rotation=pins.PANEL_ROTATION[i], name="p%d" % i),
        )
        buses.append(self)


class SPI:
    """Named for code that annotates with it (Blinka's displayio); no SPI device here."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError("the simulator has no SPI devices")


class UART(SPI):
    pass
