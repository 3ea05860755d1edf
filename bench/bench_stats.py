"""Stats figures: heap the modules take in the MicroPython VM, flash time per save.

    PYTHONPATH=.:lib .venv/bin/python bench/bench_stats.py

Heap: ``gc.mem_free()`` before and after each import in the MicroPython VM (the board
loads ``.py`` bytecode into its heap the same way; docs/device.md has the board's own
figures). Flash time: what the nvm shim charges a save on the virtual clock (the
W25Q16JV's typical times), for a save into an erased slot and for the one save in 32
that rewrites the sector.
"""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, p) for p in ("lib", "host_sim/shims", "host_sim")]

_VM_SCRIPT = """
import sys, gc
sys.path[:0] = [ROOT + "/lib", ROOT + "/host_sim/shims"]
import keypad, supervisor, microcontroller
import speedduo.vocab.ticks
from speedduo.display import glyphs, ssd1306
from speedduo.vocab import codes
from speedduo.log import matchlog
def free():
    gc.collect()
    return gc.mem_free()
a = free()
from speedduo.host import stats_store
b = free()
from speedduo.host import stats
c = free()
s = stats.Stats(microcontroller.nvm)
d = free()
from speedduo.display.stats_screen import show_stats
e = free()
print(a - b, b - c, c - d, d - e)
"""


def vm_heap():
    micropython = os.path.join(os.path.dirname(sys.executable), "micropython")
    script = "ROOT = %r\n" % ROOT + _VM_SCRIPT
    out = subprocess.run(
        [micropython, "-X", "heapsize=256K", "-c", script],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return [int(v) for v in out]


def flash_times():
    from microcontroller import ByteArray
    from speedduo.host.stats_store import PAYLOAD, Store
    from vclock import VirtualClock, install

    clock = install(VirtualClock())
    nvm = ByteArray()
    store = Store(nvm)
    times = []
    for _ in range(33):
        t0 = clock.now_us
        store.save(bytearray(PAYLOAD))
        times.append(clock.now_us - t0)
    install(None)
    return times[0], times[-1], nvm.erases


def main():
    store, stats, instance, screen = vm_heap()
    print("MicroPython VM heap (bytes): stats_store %d, stats %d, a Stats %d" % (
        store, stats, instance))  # fmt: skip
    print("  stats_screen imported %d" % screen)
    append_us, sector_us, erases = flash_times()
    print("flash time of a save: erased slot %d us, sector (1 in 32) %d us; %d erase in 33 saves"
          % (append_us, sector_us, erases))  # fmt: skip


if __name__ == "__main__":
    main()
