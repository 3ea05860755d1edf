"""Speed Duo: CircuitPython runs this at power-on. Everything is in lib/speedduo."""

import gc

gc.collect()
_free_at_boot = gc.mem_free() if hasattr(gc, "mem_free") else -1  # for SPEED_PROFILE

from speedduo.board_io import main  # noqa: E402  (after the free-memory reading)

main(free_at_boot=_free_at_boot)
