"""The registry of games: every game the project plays, named once (docs/architecture.md).

Each entry is a ``Game`` with named fields: ``id`` (the log's ``game`` field,
``SPEED_GAME``, ``--game``), ``core`` and ``view`` (module and class of its rules core and
of one player's screen; ``view`` None: no screen), ``board`` (offered in the board's
menu), ``menu_name``, ``menu_options`` (the menu's rule items it takes, by option name;
None: every one), ``options`` (its rule options and their defaults, in the log's order:
``gamerules.GameRules``; classic Speed's with two players are ``rules.Rules``) and
``howto`` (module and name of its HOW TO PLAY pages). The menu, the settings, the rule
options, the board's loop, the simulator's runner, replay and the window read this table;
adding a game is its rules core, its view, its section in docs/rules.md and one entry here
(``register`` adds one from outside the package, as an example game in tests/ does).

Classic Speed (R1-R17) runs through ``match.Match`` around ``core.Hand``, with the
version 1 log; every other game through ``gamematch.GameSession`` (version 2 log).
Speed for 3-4 players (V10) shares classic's id in the log (``"game":"speed"`` with
``players`` 3 or 4) and never runs on the board (two rows of keys).

Modules are imported only when a game is played (``core_class``, ``view_class``): nothing
of a game is imported before it is asked for. V10's core is classic Speed's (``core.Hand``
with 3 or 4 players), its log the simulator's ``log/v10log.py``.
"""

from collections import namedtuple

Game = namedtuple(
    "Game", ("id", "core", "view", "board", "menu_name", "menu_options", "options", "howto")
)

# every game's rule options share these (R9, R8, R17); V8 and V9 add V8.11/V9.7's round limit
_COMMON = (
    ("stall_countdown_ms", 1000),  # R9 (V8.6, V9.5): visible countdown before a stall resolves
    ("race_window_ms", 400),  # R8: a miss this soon after a pile changed is "late"
    ("idle_ms", 60000),  # R17: no press for this long abandons the hand and stops the match
)
_HOWTO = "speedduo.display.howto"

ENTRIES = [
    Game(  # R1-R17 (V10: 3-4 players); its options here are V10's (V1, V2, R15): two players
        # take rules.Rules
        id="speed",
        core=("speedduo.game.core", "Hand"),
        view=("speedduo.display.view", "PlayerView"),
        board=True,
        menu_name="SPEED",
        menu_options=None,
        options=(("no_wrap", False), ("same_rank", False), ("points", False))
        + _COMMON
        + (("sweep_cards", 10),),
        howto=(_HOWTO, "PAGES"),
    ),
    Game(  # V8
        id="spit",
        core=("speedduo.game.spit", "Spit"),
        view=("speedduo.display.spit_view", "SpitView"),
        board=True,
        menu_name="SPIT",
        menu_options=("no_wrap",),
        options=(("no_wrap", False),) + _COMMON + (("max_rounds", 100),),
        howto=(_HOWTO, "SPIT_PAGES"),
    ),
    Game(  # V9
        id="california",
        core=("speedduo.game.california", "California"),
        view=("speedduo.display.california_view", "CaliforniaView"),
        board=True,
        menu_name="CALIFORNIA",
        menu_options=(),
        options=_COMMON + (("max_rounds", 100),),
        howto=(_HOWTO, "CALIFORNIA_PAGES"),
    ),
]


def _derived():
    """The tables the menu and the settings read (each in the menu's order)."""
    ids = tuple(game.id for game in ENTRIES)
    board = [game for game in ENTRIES if game.board]
    return (
        ids,
        tuple(game.id for game in board),
        tuple(game.menu_name for game in board),
        tuple(game.menu_options for game in board),
    )


GAME_IDS, BOARD_GAMES, MENU_NAMES, MENU_OPTIONS = _derived()


def register(game):
    """Add ``game`` (a ``Game``) to the registry, before the modules that read the tables
    above are imported (the menu, the settings): ValueError for an id already taken."""
    global GAME_IDS, BOARD_GAMES, MENU_NAMES, MENU_OPTIONS
    if game.id in GAME_IDS:
        raise ValueError("game %r is already registered" % game.id)
    ENTRIES.append(game)
    GAME_IDS, BOARD_GAMES, MENU_NAMES, MENU_OPTIONS = _derived()


def entry(game):
    """The registry's entry of ``game`` (ValueError naming the ids for an unknown one)."""
    for found in ENTRIES:
        if found.id == game:
            return found
    raise ValueError("unknown game %r: %s" % (game, ", ".join(GAME_IDS)))


def load(where):
    """The object a (module, name) pair names, its module imported."""
    module, name = where
    found = __import__(module)  # (the top package: each part is an attribute)
    for part in module.split(".")[1:]:
        found = getattr(found, part)
    return getattr(found, name)


def core_class(game):
    """The rules core's class of ``game`` (classic Speed's serves V10 too: 3-4 players)."""
    return load(entry(game).core)


def view_class(game):
    """The class of one player's screen of ``game`` (None: the game has none)."""
    found = entry(game).view
    return None if found is None else load(found)
