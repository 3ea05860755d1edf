"""board_io's forget groups (POWER_ON, MENU, OTHER_GAMES, STATS) name modules that exist, and
forgetting one drops it from sys.modules and from its package."""

import os
import sys

from conftest import ROOT
from speedduo.loop import board_io

GROUPS = board_io.POWER_ON + board_io.MENU + board_io.OTHER_GAMES + board_io.STATS


def test_every_module_the_board_forgets_exists():
    lib = os.path.join(ROOT, "lib", "speedduo")
    missing = [n for n in GROUPS if not os.path.isfile(os.path.join(lib, *n.split(".")) + ".py")]
    assert missing == []


def test_a_forgotten_module_leaves_sys_modules_and_its_package():
    import speedduo.display
    import speedduo.display.howto  # noqa: F401

    board_io.forget(("display.howto",))
    assert "speedduo.display.howto" not in sys.modules
    assert not hasattr(speedduo.display, "howto")
