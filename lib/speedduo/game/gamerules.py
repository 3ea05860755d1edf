"""The rule options of the other games (docs/rules.md V8, V9, V10), by name.

Each game has its own list; the match log's ``rules`` object holds every
option of the game in this order (docs/match-log.md, version 2). Values are
checked where ``rules.Rules`` checks them (``rules.check_value``).
"""

from speedduo.game.rules import check_value
from speedduo.games import GAME_IDS

_COMMON = (
    ("stall_countdown_ms", 1000),  # R9 (V8.6, V9.5): visible countdown before a stall resolves
    ("race_window_ms", 400),  # R8: a miss this soon after a pile changed is "late"
    ("idle_ms", 60000),  # R17: no press for this long abandons the hand and stops the match
)
OPTIONS = {
    "speed": (("no_wrap", False), ("same_rank", False), ("points", False))  # V10 with V1, V2, R15
    + _COMMON
    + (("sweep_cards", 10),),
    "spit": (("no_wrap", False),) + _COMMON + (("max_rounds", 100),),  # V8 (V8.11: max_rounds)
    "california": _COMMON + (("max_rounds", 100),),  # V9 (V9.7: max_rounds)
}
GAMES = GAME_IDS  # the registry's (games.py)


class GameRules:
    """Plain option holder for one game; attributes are named as in the log's ``rules``."""

    def __init__(self, game: str, **options) -> None:
        if game not in OPTIONS:
            raise ValueError("unknown game: " + str(game))
        self.game = game
        for name, default in OPTIONS[game]:
            setattr(self, name, default)
        for name in options:
            self.set(name, options[name])

    def set(self, name: str, value) -> None:
        default = None
        for option, option_default in OPTIONS[self.game]:
            if option == name:
                default = option_default
        if default is None:
            raise ValueError("rule option %s does not apply to %s" % (name, self.game))
        check_value(name, default, value)
        setattr(self, name, value)

    def as_pairs(self):
        return [(name, getattr(self, name)) for name, _ in OPTIONS[self.game]]
