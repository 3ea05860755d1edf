"""Entry point inside the MicroPython VM: play one match, print the log to stdout.

Started by ``python -m host_sim run --vm micropython``, which passes
ROOT SEED BEST_OF P1 P2 BOUNCE_US PHASE_US MS_OFFSET SCRIPT_FILE|- and then
NAME=VALUE rule options, and which owns writing the file. Only the board
modules, the shims and the simulator's MicroPython-safe modules are imported.
"""

import gc
import sys

_root = sys.argv[1]
sys.path[:0] = [_root + "/lib", _root + "/host_sim/shims", _root + "/host_sim"]

from vm_common import RULES_MODULES, option_value  # noqa: E402  (after the path)

_BOARD_MODULES = RULES_MODULES + ("keylog", "app", "opponent")


def main(argv):
    seed = int(argv[2])
    best_of = int(argv[3])
    players = [argv[4], argv[5]]
    bounce_us = int(argv[6])
    phase_us = int(argv[7])
    ms_offset = int(argv[8])
    script_path = argv[9]
    gc.collect()
    from speedduo.rules import Rules

    rules = Rules()
    for option in argv[10:]:
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
    for name in _BOARD_MODULES:
        __import__("speedduo." + name)
        gc.collect()
    from runner import Simulation

    gc.collect()
    sim = Simulation(seed, rules, best_of, players, script, bounce_us, phase_us, ms_offset)
    gc.collect()
    sim.run(print)


main(sys.argv)
