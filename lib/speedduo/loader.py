"""Modules loaded for a while and forgotten after: the board's heap holds only what the
screen on show needs (docs/device.md: the heap a match holds).

On the board an import compiles or loads a module's code into the heap, and the code
stays as long as the module is in ``sys.modules`` or anything made from it (a function,
a class, an object) is still referenced. ``load`` imports, collecting first;
``unload`` forgets, so the code leaves at the next collection once nothing refers to it.
"""

import gc
import sys


def unload(name):
    """Forget ``speedduo.<name>`` (``name`` as ``package.module``), a module seldom used: its
    code (KBs) goes back to the heap once nothing refers to it (the next import reads it
    again). Its package keeps it as an attribute too: that goes as well."""
    sys.modules.pop("speedduo." + name, None)
    dot = name.rfind(".")
    package = sys.modules.get("speedduo." + name[:dot] if dot > 0 else "speedduo")
    leaf = name[dot + 1 :]
    if package is not None and hasattr(package, leaf):
        delattr(package, leaf)


def load(names):
    """Import ``speedduo.<name>`` for each of ``names`` that is not loaded, collecting
    before each (compiling needs room on the board: less fragmentation)."""
    for name in names:
        if "speedduo." + name not in sys.modules:
            gc.collect()
            __import__("speedduo." + name)
