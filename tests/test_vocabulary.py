"""One vocabulary (speedduo.vocab.codes): every shared number is declared once, nowhere else."""

import os
import re

from conftest import ROOT
from speedduo.loop import pins
from speedduo.vocab import codes

LIB = os.path.join(ROOT, "lib", "speedduo")


def _shared_names():
    return [name for name in dir(codes) if name.isupper() and not name.startswith("_")]


def test_no_board_module_declares_a_shared_name_again():
    for folder, _, names in sorted(os.walk(LIB)):
        for filename in sorted(names):
            if not filename.endswith(".py") or filename in ("codes.py", "pins.py"):
                continue  # pins.py is generated from the pin map: checked against codes below
            with open(os.path.join(folder, filename)) as f:
                source = f.read()
            for name in _shared_names():
                again = re.search(r"^_?%s\s*=\s*(const\()?\d" % name, source, re.M)
                assert again is None, f"{filename} declares {name} by value: import it from codes"


def test_the_key_layout_is_the_pin_maps():
    assert codes.KEYS_PER_PLAYER == pins.KEYS_PER_PLAYER
    assert pins.BUTTON_NAMES[codes.KEY_L] == "L" and pins.BUTTON_NAMES[codes.KEY_R] == "R"


def test_the_logs_reject_reasons_are_the_cores_results():
    from speedduo.game import core
    from speedduo.log import matchlog

    assert (matchlog.WHY_LATE, matchlog.WHY_INVALID, matchlog.WHY_LOCKED) == (
        core.LATE,
        core.INVALID,
        core.LOCKED,
    )
    assert matchlog.REJECT_WHY[codes.LATE] == b"late"
    assert matchlog.END_WHY[codes.END_ABANDONED] == b"abandoned"


def test_no_player_is_one_value_in_every_game():
    """A match stopped idle (R17) has no winner: codes.NULL_PLAYER, as classic Speed's."""
    from speedduo.game import gamematch
    from speedduo.game.gamematch import GameSession
    from speedduo.game.gamerules import GameRules
    from speedduo.game.spit import Spit
    from speedduo.log.gamelog import GameLog

    rules = GameRules("spit", idle_ms=1000)
    session = GameSession(Spit(rules), 3, rules, 1, GameLog())
    session.finish()
    assert session.match.winner == codes.NULL_PLAYER
    assert not hasattr(gamematch, "NO_PLAYER")
