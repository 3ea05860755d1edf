"""The registry of games: every game the project plays, named once (docs/architecture.md).

Each entry: the game's id (the log's ``game`` field, ``SPEED_GAME``, ``--game``), its
rules core (module under ``speedduo`` and class), its view (module and class; None: no
screen of its own), and whether the board offers it in the menu. The menu, the settings,
the rule options, the board's loop, the simulator's runner, replay and the window read
this table; adding a game is a rules core, a view, its options (``gamerules.OPTIONS``),
its how-to pages (``howto.pages``) and one entry here.

Classic Speed (R1-R17) runs through ``match.Match`` around ``core.Hand``, with the
version 1 log; every other game through ``gamematch.GameSession`` (version 2 log).
Speed for 3-4 players (V10) shares classic's id in the log (``"game":"speed"`` with
``players`` 3 or 4) and never runs on the board (two rows of keys).

Modules are imported only when a game is played (``core_class``, ``view_class``): V10's
core is the simulator's only, and nothing of a game is imported before it is asked for.
"""

# id, rules core (module, class), view (module, class), offered by the board, its name in
# the menu, the menu's rule items it takes by option name (None: every one)
ENTRIES = (
    ("speed", "game.core", "Hand", "display.view", "PlayerView", True, "SPEED", None),  # R1-R17
    ("spit", "game.spit", "Spit", "display.spit_view", "SpitView", True, "SPIT",
     ("no_wrap",)),  # V8
    ("california", "game.california", "California", "display.california_view",
     "CaliforniaView", True, "CALIFORNIA", ()),  # V9
)  # fmt: skip
SPEED_N = ("game.speed_n", "SpeedN")  # V10, Speed for 3-4 players: the simulator's only

GAME_IDS = tuple(entry[0] for entry in ENTRIES)  # in the menu's order
BOARD_GAMES = tuple(entry[0] for entry in ENTRIES if entry[5])
MENU_NAMES = tuple(entry[6] for entry in ENTRIES if entry[5])  # as BOARD_GAMES
MENU_OPTIONS = tuple(entry[7] for entry in ENTRIES if entry[5])  # as BOARD_GAMES


def entry(game):
    """The registry's entry of ``game`` (ValueError naming the ids for an unknown one)."""
    for found in ENTRIES:
        if found[0] == game:
            return found
    raise ValueError("unknown game %r: %s" % (game, ", ".join(GAME_IDS)))


def _load(module, name):
    found = __import__("speedduo." + module)  # (the package: the module is its attribute)
    for part in module.split("."):
        found = getattr(found, part)
    return getattr(found, name)


def core_class(game, players=2):
    """The rules core's class of ``game`` (V10's for classic Speed with 3-4 players)."""
    if game == "speed" and players > 2:
        return _load(*SPEED_N)
    found = entry(game)
    return _load(found[1], found[2])


def view_class(game):
    """The class of one player's screen of ``game`` (None: the game has none)."""
    found = entry(game)
    return None if found[3] is None else _load(found[3], found[4])
