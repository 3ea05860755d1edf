"""Shim of CircuitPython's ``busio``: I2C buses with an emulated SSD1306 on each.

Every ``busio.I2C`` the board code opens is the simulator's emulated bus
(``ssd1306_emulator.FakeI2C``) with one panel at the pin map's address,
mounted as the pin map says. ``buses`` lists them in the order they were made.

As strict as the board (CircuitPython's ports/raspberrypi common-hal busio):
- the SDA/SCL pull-ups sit on the panel module, so ``I2C()`` on the pins of a
  panel that is not plugged in raises ``RuntimeError`` ("No pull up found on
  SDA or SCL; check your wiring"), and the pins are free again;
- a panel that does not answer NACKs its address: ``OSError`` errno 19 (ENODEV).
``sockets[i]`` says when panel i is there, on the virtual clock: ``plugged_us``
(-1: never) and ``nack`` (pull-ups present, the controller silent). Tests and
``python -m host_sim board`` set it before the board program starts.
"""

import errno

from speedduo.loop import pins
from ssd1306_emulator import FakeI2C, SSD1306Emulator
from vclock import current

buses = []


class Socket:
    """Panel i's header: plugged in from ``plugged_us`` on (-1: never); ``nack``: it never ACKs."""

    def __init__(self, plugged_us=0, nack=False):
        self.plugged_us = plugged_us
        self.nack = nack

    def pulled_up(self):
        return 0 <= self.plugged_us <= current().now_us

    def answers(self):
        return self.pulled_up() and not self.nack


sockets = [Socket(), Socket()]


class I2C(FakeI2C):
    def __init__(self, scl, sda, *, frequency=100000, timeout=255):
        name = getattr(sda, "name", sda)
        if name not in pins.PANEL_SDA:
            raise ValueError("no panel on SDA %s in the pin map" % name)
        i = pins.PANEL_SDA.index(name)
        if getattr(scl, "name", scl) != pins.PANEL_SCL[i]:
            raise ValueError("SCL does not pair with SDA %s in the pin map" % name)
        if not sockets[i].pulled_up():
            raise RuntimeError("No pull up found on SDA or SCL; check your wiring")
        FakeI2C.__init__(self, frequency=frequency)
        self.socket = sockets[i]
        self.attach(
            pins.PANEL_ADDRESS[i],
            SSD1306Emulator(mounted_rotation=pins.PANEL_ROTATION[i], name="p%d" % i),
        )
        buses.append(self)

    def _device(self, address):
        if not self.socket.answers():
            self._count(address, 0)  # the address byte went out and got no ACK
            raise OSError(errno.ENODEV, "No such device")
        return FakeI2C._device(self, address)


class SPI:
    """Named for code that annotates with it (Blinka's displayio); no SPI device here."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError("the simulator has no SPI devices")


class UART(SPI):
    pass
