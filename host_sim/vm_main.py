"""Entry point inside the MicroPython VM: play one match of any game, print the log to stdout.

Started by ``python -m host_sim run --vm micropython``, which passes
ROOT GAME SEED BEST_OF BOUNCE_US PHASE_US MS_OFFSET SCRIPT_FILE|- KEYS and one kind
per player, then ``--`` and NAME=VALUE rule options, and which owns writing the file.
Every game runs ``runner.Simulation``: classic Speed (GAME ``speed``, two players) with
the classic rules, the other games (V8, V9; V10 for three or four players) with the
game's. Only the board modules, the shims and the simulator's MicroPython-safe modules
are imported.
"""

import gc
import sys

_root = sys.argv[1]
sys.path[:0] = [_root + "/lib", _root + "/host_sim/shims", _root + "/host_sim"]

from vm_common import RULES_MODULES, option_value  # noqa: E402  (after the path)

# what classic Speed brings in besides the rules modules; what the other games bring in
# (their rules core, the registry's, last): none of classic Speed's own match, core or log
_KEY_MODULES = ("loop.pins", "loop.keys", "loop.edges", "loop.edge_program")  # the readers
_CLASSIC_MODULES = RULES_MODULES + ("log.keylog", "loop.app", "loop.opponent")
_CLASSIC_MODULES += ("loop.game_opponent",) + _KEY_MODULES
_GAMES_MODULES = (
    "vocab.codes",
    "vocab.cards",
    "game.rng",
    "log.logtext",
    "vocab.ticks",
    "loop.keybatch",
    "loop.arbiter",
    "loop.app",
)
_GAMES_MODULES += (
    "game.phases",
    "log.gamelog",
    "game.gamematch",
    "loop.game_app",
    "game.seat",
    "loop.opponent",
)
_GAMES_MODULES += ("loop.game_opponent",) + _KEY_MODULES


def main(argv):
    game = argv[2]
    seed = int(argv[3])
    best_of = int(argv[4])
    bounce_us = int(argv[5])
    phase_us = int(argv[6])
    ms_offset = int(argv[7])
    script_path = argv[8]
    keys = argv[9]
    split = argv.index("--")
    players = argv[10:split]
    classic = game == "speed" and len(players) == 2
    gc.collect()
    if classic:
        from speedduo.game.rules import Rules

        rules = Rules()
    else:
        from speedduo.game.gamerules import GameRules

        rules = GameRules(game)
    for option in argv[split + 1 :]:
        name, text = option.split("=")
        rules.set(name, option_value(text))
    script = ()
    if script_path != "-":
        from script import parse_script

        with open(script_path) as f:
            script = parse_script(f.read())
    # Import the board modules one at a time, collecting between: compiling a
    # source file leaves its parse tree behind as garbage, and a heap this size
    # has no room for several of them at once.
    if classic:
        modules = _CLASSIC_MODULES
    else:
        from speedduo.games import entry

        core = entry(game).core[0]  # the registry's module (V10: classic Speed's core)
        modules = _GAMES_MODULES + (core[len("speedduo.") :],)
        if game == "speed":
            modules += ("log.v10log",)
    for name in modules:
        __import__("speedduo." + name)
        gc.collect()
    import runner

    gc.collect()
    sim = runner.Simulation(
        seed, rules, best_of, players, script, bounce_us, phase_us, ms_offset, game=game, keys=keys
    )
    gc.collect()
    sim.run(print)


main(sys.argv)
