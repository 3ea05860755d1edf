"""Both panels put on their buses and started: power-on's (``poweron``), the simulator's
screen capture and the tests'.

``build`` makes a ``screens.Screens`` of two ``ssd1306.Panel`` on two ``busio.I2C``
buses (Player 1 on ``i2c0``), each view upright for its player; ``start`` initialises
both panels (a missing one is retried by ``Screens.refresh``) and blanks them.
"""

from speedduo.display.screens import Screens
from speedduo.display.ssd1306 import ADDRESS, PRIVATE, Panel


def build(i2c0, i2c1, address=ADDRESS, rotations=(0, 180), retry_ms=1000, log=None, view=None):
    """The screens on two buses; ``view``: the views' class (None: classic Speed's), made
    again after each match (``Screens.release``)."""
    panels = (
        Panel(i2c0, address, rotations[0], retry_ms=retry_ms),
        Panel(i2c1, address, rotations[1], retry_ms=retry_ms),
    )
    views = None if view is None else (view(panels[0], 0), view(panels[1], 1))
    return Screens(panels, views, log=log, view=view)


def start(screens):
    """Initialise both panels and blank them; a panel that does not answer is reported
    through the screens' ``log`` (and retried by ``refresh``)."""
    for i in range(2):
        panel = screens.panels[i]
        panel.init()
        if not panel.online and screens.log is not None:
            screens.log("P%d screen: no answer at start (errno %d)" % (i + 1, panel.last_errno))
    for panel in screens.panels:
        panel.clear(PRIVATE)
        panel.flush()
