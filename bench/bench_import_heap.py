"""What each board module holds on the heap once imported, on CircuitPython itself.

    PYTHONPATH=.:lib .venv/bin/python bench/bench_import_heap.py [--deploy mpy|py]
        [--modules speedduo.loop.board_io,speedduo.game.spit,...]

Names (qstrs) a module brings in stay interned when it is forgotten, and they are kept
in pools, each twice as large as the one before: the import that fills a pool pays for
the next one (7.7 KB for the pool after the first 1,260 names). ``--qstr-room`` interns
that many names first, so every module's figure is its own.

Boots the emulated Pico (rp2040js, the firmware files of docs/device.md) with a
``code.py`` that imports the named modules' whole import closure one module at a
time, dependencies first (the order CPython finishes loading them in), and prints
``gc.mem_free()`` after a collection before and after each: the bytes each module's
code and module-level objects keep. Prints one row per module, largest first, and the
total. Needs the firmware files; about 1-2 minutes of wall time.
"""

import argparse
import ast
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "lib")]

from host_sim import device_run  # noqa: E402

DEFAULT = (
    "speedduo.loop.board_io,speedduo.loop.opponent,speedduo.host.stats,"
    "speedduo.display.stats_screen,speedduo.display.howto"
)


def _top_imports(path):
    """The speedduo modules a source file imports at its top level."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    found = []
    for node in tree.body:
        nodes = [node]
        if isinstance(node, ast.Try):
            nodes = node.body
        for item in nodes:
            if isinstance(item, ast.ImportFrom) and (item.module or "").startswith("speedduo"):
                # `from speedduo.display import glyphs` imports the package and the
                # submodule glyphs; `from speedduo.vocab.cards import NO_CARD` the module
                found.append(item.module)
                for alias in item.names:
                    name = item.module + "." + alias.name
                    if os.path.isfile(os.path.join(ROOT, "lib", *name.split(".")) + ".py"):
                        found.append(name)
            elif isinstance(item, ast.Import):
                found += [a.name for a in item.names if a.name.startswith("speedduo.")]
    return found


def import_order(names):
    """The speedduo modules ``names`` pull in at import, each after the ones it imports."""
    placed = []

    def place(name):
        if name in placed:
            return
        path = os.path.join(ROOT, "lib", *name.split(".")) + ".py"
        if not os.path.isfile(path):
            return  # a name, not a module (``from speedduo import __version__``)
        for dep in _top_imports(path):
            place(dep)
        placed.append(name)

    for name in names:
        place(name)
    return placed


CODE = """import gc
class _Names:
    pass
_names = _Names()
for i in range(QSTR_ROOM):  # new names: the qstr pools grow now, not during an import
    getattr(_names, "room%d" % i, None)
_names = None
gc.collect()
print("heap-bench start free=%d" % gc.mem_free())
for name in NAMES:
    gc.collect()
    before = gc.mem_free()
    __import__(name)
    gc.collect()
    print("heap-bench %s %d" % (name, before - gc.mem_free()))
gc.collect()
print("heap-bench end free=%d" % gc.mem_free())
"""


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deploy", choices=("mpy", "py"), default="mpy")
    parser.add_argument("--modules", default=DEFAULT)
    parser.add_argument(
        "--qstr-room",
        type=int,
        default=1300,
        metavar="N",
        help="names interned before the imports (default 1300; 0: none): the qstr pools "
        "are then grown first, so no module's figure holds a new pool (a pool holds "
        "twice the one before: 7.7 KB for the 1,280 names after the first 1,260)",
    )
    args = parser.parse_args(argv)
    names = import_order(args.modules.split(","))
    firmware = device_run.find_firmware(need_mpy_cross=args.deploy == "mpy")
    with tempfile.TemporaryDirectory() as work:
        files = device_run.drive_files(
            "SPEED_PROFILE = 0\n", args.deploy, firmware.get("mpy-cross"), os.path.join(work, "b")
        )
        code = ("NAMES = %r\nQSTR_ROOM = %d\n" % (names, args.qstr_room) + CODE).encode()
        files = [(rel, data) for rel, data in files if rel != "code.py"] + [("code.py", code)]
        panels = [device_run._panel_config("present", 0), device_run._panel_config("present", 1)]
        nvm = {"offset": device_run.NVM_OFFSET, "size": device_run.NVM_SIZE, "load": None}
        try:
            device_run.run_drive(
                firmware,
                files,
                work,
                panels=panels,
                min_us=0,
                settle_us=0,
                limit_us=12000000,
                nvm=nvm,
            )
        except RuntimeError:
            pass  # the limit: the console holds what was printed
        out = os.path.join(work, "out")
        console = device_run.read_recordings(out)[0]
    rows = []
    for line in console.replace("\r", "").split("\n"):
        if line.startswith("heap-bench "):
            parts = line.split()
            if len(parts) == 3 and parts[2].lstrip("-").isdigit():
                rows.append((int(parts[2]), parts[1]))
            else:
                print(line)
    problem = device_run.traceback_in(console)
    if problem:
        print("traceback:", problem)
    for held, name in sorted(rows, reverse=True):
        print("%7d  %s" % (held, name))
    print("%7d  total (%d modules, %s)" % (sum(h for h, _ in rows), len(rows), args.deploy))


if __name__ == "__main__":
    main()
