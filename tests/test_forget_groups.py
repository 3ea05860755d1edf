"""board_io's forget groups (POWER_ON, MENU, OTHER_GAMES, CLASSIC, STATS) name modules that
exist, forgetting one drops it from sys.modules and from its package, and the other games'
match loads none of classic Speed's (CLASSIC is what a V8/V9 match after it would hold)."""

import os
import subprocess
import sys

from conftest import ROOT
from speedduo.loop import board_io

GROUPS = (
    board_io.POWER_ON + board_io.MENU + board_io.OTHER_GAMES + board_io.CLASSIC + board_io.STATS
)


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


CLASSIC_OR_NOT = """
import sys
import speedduo.loop.board_io, speedduo.loop.game_app, speedduo.loop.game_opponent
from speedduo.games import BOARD_GAMES, core_class, view_class
for game in BOARD_GAMES:
    if game != "speed":  # the other games (V8, V9)
        core_class(game), view_class(game)
print(" ".join(sorted(m for m in sys.modules if m.startswith("speedduo."))))
"""


def test_the_board_and_the_other_games_match_import_nothing_of_classic_speeds():
    shims = os.path.join(ROOT, "host_sim", "shims")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "lib"), shims]))
    loaded = subprocess.run(
        [sys.executable, "-c", CLASSIC_OR_NOT], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    assert "speedduo.game.spit" in loaded
    assert [n for n in board_io.CLASSIC if "speedduo." + n in loaded] == []


def test_the_registry_is_never_forgotten():
    """A game that ``code.py`` registered (``games.register``) lives only in the registry's
    tables: forgetting ``games`` would bring it back without it (tests/test_toy_game.py)."""
    assert "games" not in GROUPS
