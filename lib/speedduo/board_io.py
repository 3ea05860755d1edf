"""The board's glue: pins, buses and scanner from the pin map, and the loop of matches.

Everything hardware-specific lives here; ``code.py`` only calls ``main()``.
The same module runs in the simulator, whose shims stand in for ``board``,
``busio``, ``keypad``, ``supervisor`` and ``usb_cdc``.
"""

import os

import board
import busio
import keypad
import supervisor

from speedduo import pins
from speedduo.app import App
from speedduo.keys import make_keys
from speedduo.menu import TITLE, Menu
from speedduo.rng import SEED_LIMIT
from speedduo.screens import Screens
from speedduo.settings import best_of_from_settings, int_setting, rules_from_settings


def make_panel_buses():
    """One busio.I2C per panel, at the pin map's frequency (400 kHz; 1 MHz selectable)."""
    buses = []
    for i in range(pins.PANEL_COUNT):
        frequency = int_setting(
            os.getenv,
            "SPEED_I2C_FREQUENCY",
            pins.PANEL_FREQUENCY[i],
            100000,
            pins.PANEL_MAX_FREQUENCY[i],
        )
        scl = getattr(board, pins.PANEL_SCL[i])
        sda = getattr(board, pins.PANEL_SDA[i])
        buses.append(busio.I2C(scl, sda, frequency=frequency))
    return buses


def log_sink():
    """Where the match log goes: the USB data port when a host listens (boot.py enables it)."""
    try:
        import usb_cdc
    except ImportError:
        return _discard
    port = usb_cdc.data
    if port is None:
        return _discard

    def write(line):
        if port.connected:
            port.write(line.encode())
            port.write(b"\n")

    return write


def _discard(line):
    pass


def new_seed():
    value = 0
    for byte in os.urandom(4):
        value = (value << 8) | byte
    return value % SEED_LIMIT


def choose(keys, screens, menu):
    """Show the menu on both panels until someone presses PLAY (L/R move, 1-5 choose)."""
    event = keypad.Event()
    screens.show_menu(-1, menu.lines(), menu.selected, TITLE)
    while True:
        while keys.events.get_into(event):
            if not event.pressed:
                continue
            if menu.press(event.key_number):
                keys.events.clear()  # the PLAY press is not a play
                screens.hide_menu()
                return
            screens.show_menu(-1, menu.lines(), menu.selected, TITLE)


def main(matches=0):
    """Play matches forever (or ``matches`` of them): the device's whole life."""
    getenv = os.getenv
    rules = rules_from_settings(getenv)
    best_of = best_of_from_settings(getenv)
    keys = make_keys(board)
    buses = make_panel_buses()
    screens = Screens.build(
        buses[0], buses[1], address=pins.PANEL_ADDRESS[0], rotations=pins.PANEL_ROTATION, log=print
    )
    screens.start()
    write = log_sink()
    fixed_seed = int_setting(getenv, "SPEED_SEED", -1, 0, SEED_LIMIT - 1)  # for tests
    menu = Menu(rules, best_of)
    played = 0
    while True:
        choose(keys, screens, menu)
        seed = fixed_seed if fixed_seed >= 0 else new_seed()
        app = App(keys.events, supervisor.ticks_ms, seed, rules, menu.best_of, write, screens)
        app.run()
        if fixed_seed >= 0:
            fixed_seed = (fixed_seed + 1) % SEED_LIMIT
        played += 1
        if matches and played >= matches:
            return app
