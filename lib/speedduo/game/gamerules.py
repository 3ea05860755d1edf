"""The rule options of the other games (docs/rules.md V8, V9, V10), by name.

Each game has its own list (the registry's ``options``, games.py); the match log's
``rules`` object holds every option of the game in this order (docs/match-log.md,
version 2). Values are checked where ``rules.Rules`` checks them (``rules.check_value``).
"""

from speedduo.game.rules import (
    CLAIM_OFF,
    HAND_SLOT_OPTIONS,
    HAND_SLOTS_MAX,
    HANDICAPS,
    Rules,
    check_value,
    set_handicap,
)
from speedduo.games import GAME_IDS, entry

GAMES = GAME_IDS  # the registry's (games.py)


def options_of(game: str):
    """The rule options of ``game`` and their defaults, in the log's order (the registry's
    ``options``); ValueError naming the games for an unknown one."""
    return entry(game).options


class GameRules:
    """Plain option holder for one game; attributes are named as in the log's ``rules``."""

    def __init__(self, game: str, **options) -> None:
        self.game = game
        for name in HANDICAPS:  # H1, every game's (rules.py): not in as_pairs
            setattr(self, name, 0)
        for name in HAND_SLOT_OPTIONS:  # H2: classic Speed's only, 5 here (set refuses)
            setattr(self, name, HAND_SLOTS_MAX)
        if game == "speed":  # V10: classic's core reads every classic option; those V10
            for name, value in Rules().as_pairs():  # does not play stay off (V10.4)
                setattr(self, name, value)
            self.claim_mode = CLAIM_OFF
        for name, default in options_of(game):
            setattr(self, name, default)
        for name in options:
            self.set(name, options[name])

    def set(self, name: str, value) -> None:
        if name in HAND_SLOT_OPTIONS and value != HAND_SLOTS_MAX:  # H2 (docs/rules.md)
            raise ValueError("%s: fewer cards (H2) is classic Speed's only (two players)" % name)
        if set_handicap(self, name, value):
            return
        default = None
        for option, option_default in options_of(self.game):
            if option == name:
                default = option_default
        if default is None:
            raise ValueError("rule option %s does not apply to %s" % (name, self.game))
        check_value(name, default, value)
        setattr(self, name, value)

    def as_pairs(self):
        return [(name, getattr(self, name)) for name, _ in options_of(self.game)]
