"""Speed Duo: CircuitPython runs this at power-on. Everything is in lib/speedduo.

CircuitPython runs it as ``__main__``. The guard keeps it inert when CPython
imports it by its name: ``python -m pytest`` puts the repository root first
on ``sys.path``, where this file stands in for the standard library's
``code`` module that ``pdb`` imports (pdb only needs it for ``interact``).
"""

if __name__ == "__main__":
    import gc

    gc.collect()
    _free_at_boot = gc.mem_free() if hasattr(gc, "mem_free") else -1  # for SPEED_PROFILE

    # the buttons before the rest of the game's code loads (seconds, on the board): a
    # press meanwhile is queued with its own timestamp, not lost
    import os
    import sys

    on_drive = os.getcwd() == "/" and "lib" in os.listdir("/")  # (frozen in: no /lib)
    if sys.implementation.name == "circuitpython" and on_drive:
        # every module's file path is a name on the heap until power-off (the import
        # interns it): from /lib ("" heads sys.path) it is "speedduo/loop/app.mpy", not
        # "/lib/speedduo/loop/app.mpy" (deploy's code.py changes to its version's folder)
        os.chdir("/lib")

    import board
    from speedduo.loop.keys import SELF_TEST_KEY, held, make_keys, wants_pio

    _testing = held(board, SELF_TEST_KEY)  # Player 1's L held at power-on: the self-test
    _keys = make_keys(board, wants_pio(os.getenv))  # the PIO's µs stamps, or the keypad
    del held, make_keys, wants_pio  # (board_io forgets the module after power-on)

    from speedduo.loop.board_io import main

    main(free_at_boot=_free_at_boot, keys=_keys, testing=_testing)
