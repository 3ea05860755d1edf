"""Idle power-off: both panels dark and the board napping until a key (docs/device.md).

``menu_loop.choose`` calls ``doze`` after ``IDLE_OFF_MIN`` minutes in the menu with no key.
"""

import time

import keypad

NAP_S = 0.1  # dozing: the keypad is read ten times a second, the CPU idles in between


def doze(keys, screens, feed, sound=None):
    """Idle power-off: both panels dark (SSD1306 display off, 0xAE), the board napping
    (``time.sleep``: CircuitPython idles the CPU until the next interrupt; the keypad
    keeps scanning from its tick) until any key goes down. Then both panels are set up
    again (ending in display on, 0xAF) and get their whole frame. The waking press
    (and whatever else was pressed meanwhile) is used up: it does nothing in the menu.
    The watchdog is fed and the host's requests answered at every nap."""
    print("idle: both screens off; any key wakes the board")
    if sound is not None:
        sound.stop()
    for panel in screens.panels:
        panel.display(False)
    event = getattr(keys.events, "Event", keypad.Event)()  # the PIO reader's, or keypad's
    awake = False
    while not awake:
        feed()
        while keys.events.get_into(event):
            awake = awake or event.pressed
        if not awake:
            time.sleep(NAP_S)
    keys.events.clear()  # the waking press: not a menu action (its release is ignored too)
    for panel in screens.panels:
        panel.init()  # a panel re-plugged meanwhile is set up again too
    print("idle: woken by a key")
