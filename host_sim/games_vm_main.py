"""Entry point inside the MicroPython VM for the other games (V8, V9, V10): play one match,
print the log to stdout.

Started by ``python -m host_sim run --game spit|california`` or ``--players 3|4`` with
``--vm micropython``, which passes ROOT GAME SEED BEST_OF and one kind per
player, then ``--`` and NAME=VALUE rule options, and which owns writing the file.
"""

import gc
import sys

_root = sys.argv[1]
sys.path[:0] = [_root + "/lib", _root + "/host_sim/shims", _root + "/host_sim"]

from vm_common import RULES_MODULES, option_value  # noqa: E402  (after the path)

_BOARD_MODULES = RULES_MODULES


def main(argv):
    game = argv[2]
    seed = int(argv[3])
    best_of = int(argv[4])
    split = argv.index("--")
    players = argv[5:split]
    from speedduo.gamerules import GameRules

    rules = GameRules(game)
    for option in argv[split + 1 :]:
        name, text = option.split("=")
        rules.set(name, option_value(text))
    # one module at a time, collecting between (vm_main.py: compiling leaves garbage); the
    # bots' reaction times come from bots.py, which brings in classic Speed's arbiter
    from speedduo.games import SPEED_N, entry

    core = SPEED_N[0] if game == "speed" else entry(game)[1]  # the registry's module
    for name in _BOARD_MODULES + ("gamelog", "gamematch", core):
        __import__("speedduo." + name)
        gc.collect()
    from games_runner import GameSimulation

    gc.collect()
    GameSimulation(game, seed, rules, best_of, players).run(print)


main(sys.argv)
