"""A panel's bus that may not be there yet (loop/panel_bus.py), on the strict busio shim."""

import busio
import vclock
from speedduo.display.ssd1306 import Panel
from speedduo.loop import pins
from speedduo.loop.panel_bus import PanelBus


def _bus(monkeypatch, plugged_us):
    vclock.install(vclock.VirtualClock())
    monkeypatch.setattr(busio, "sockets", [busio.Socket(plugged_us), busio.Socket()])
    return PanelBus(0, pins.PANEL_SCL[0], pins.PANEL_SDA[0], 400000)


def test_a_bus_open_at_power_on_is_handed_to_the_panel_as_soon_as_it_is_given(monkeypatch):
    bus = _bus(monkeypatch, 0)
    panel = Panel(bus)
    bus.panel = panel
    assert isinstance(panel.i2c, busio.I2C)
    assert panel.init()  # the set-up goes straight to busio


def test_a_panel_plugged_in_later_gets_its_bus_at_the_retry_that_finds_it(monkeypatch):
    bus = _bus(monkeypatch, -1)
    panel = Panel(bus)
    bus.panel = panel
    assert panel.i2c is bus
    assert not panel.init()  # no pull-ups: a NACK, the panel offline
    assert panel.last_errno == 19
    busio.sockets[0] = busio.Socket(0)
    assert panel.recover(panel.retry_ms + 1)
    assert isinstance(panel.i2c, busio.I2C)
