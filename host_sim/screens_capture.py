"""Screens in the simulator: build both panels on emulated buses, save them as PNGs.

Stable API for the simulator's run loop (``python -m host_sim run ... --screens DIR``):

``sim_screens(frequency=400000, log=None) -> (screens, emulators)``
    Two ``SSD1306Emulator`` panels (by default Player 2's mounted upside down;
    the device's own are in ``pins.PANEL_ROTATION``) behind two ``FakeI2C``
    buses, a ``speedduo.display.screens.Screens`` on them, started. Call
    ``screens.refresh(match.hand, match, now)`` after every event / loop pass,
    exactly as the board does.

``save_screens(screens_or_emulators, directory, stem, scale=4) -> [path0, path1]``
    Writes ``<directory>/<stem>_p0.png`` and ``<stem>_p1.png``: what each
    player sees on their own panel (upright for them). Accepts the ``Screens``
    from ``sim_screens``, or a pair of emulators. Creates ``directory``.
    Call it at every hand end and at every ``--snap T_MS``
    (e.g. ``stem="hand%02d_end" % n`` or ``"snap_%07d" % t``).
"""

import os

from ssd1306_emulator import FakeI2C, SSD1306Emulator

__all__ = ["emulators_of", "save_screens", "sim_screens"]


def sim_screens(frequency=400000, log=None, rotations=(0, 180)):
    """Two emulated panels on two fake buses and a started ``Screens`` driving them."""
    from speedduo.display import screens_setup

    emulators = (
        SSD1306Emulator(mounted_rotation=rotations[0], name="p0"),
        SSD1306Emulator(mounted_rotation=rotations[1], name="p1"),
    )
    buses = (
        FakeI2C({0x3C: emulators[0]}, frequency=frequency),
        FakeI2C({0x3C: emulators[1]}, frequency=frequency),
    )
    screens = screens_setup.build(buses[0], buses[1], rotations=rotations, log=log)
    screens_setup.start(screens)
    return screens, emulators


def emulators_of(screens_or_emulators):
    """The two emulators behind a ``Screens`` (found through its panels' buses), or the pair."""
    panels = getattr(screens_or_emulators, "panels", None)
    if panels is None:
        pair = tuple(screens_or_emulators)
    else:
        pair = tuple(panel.i2c.devices[panel.address] for panel in panels)
    if len(pair) != 2 or not all(isinstance(e, SSD1306Emulator) for e in pair):
        raise TypeError("save_screens needs a Screens on FakeI2C buses or two SSD1306Emulators")
    return pair


def save_screens(screens_or_emulators, directory, stem, scale=4):
    """Save both panels as ``<stem>_p0.png`` / ``<stem>_p1.png`` in ``directory``."""
    os.makedirs(directory, exist_ok=True)
    paths = []
    for player, emulator in enumerate(emulators_of(screens_or_emulators)):
        path = os.path.join(directory, "%s_p%d.png" % (stem, player))
        emulator.save_png(path, scale)
        paths.append(path)
    return paths
