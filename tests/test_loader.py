"""speedduo.loader: every module the board loads or forgets by name is a module that exists
(a misspelt or stale name is a silent no-op on the board: the module would stay on the heap)."""

import ast
import os

from conftest import ROOT

LIB = os.path.join(ROOT, "lib", "speedduo")


def _exists(name):
    return os.path.isfile(os.path.join(LIB, *name.split(".")) + ".py")


def _strings(node):
    return [
        n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    ]


def _named_by_loader(tree):
    """Every string given to load/unload: as an argument, through a loop's tuple, or in a
    ``*MODULES`` tuple."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("load", "unload"):
            found += _strings(node)
        elif isinstance(node, ast.For) and any(
            isinstance(n, ast.Call) and getattr(n.func, "id", "") in ("load", "unload")
            for n in ast.walk(node)
        ):
            found += _strings(node.iter)
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id.endswith("MODULES") for t in node.targets
        ):
            found += _strings(node.value)
    return found


def test_every_module_the_board_loads_or_forgets_by_name_exists():
    wrong = []
    for folder, _, names in os.walk(LIB):
        for name in sorted(names):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as f:
                    tree = ast.parse(f.read())
                wrong += [
                    "%s: %s" % (os.path.relpath(path, ROOT), module)
                    for module in _named_by_loader(tree)
                    if not _exists(module)
                ]
    assert wrong == []


def test_the_registry_names_modules_that_exist():
    from speedduo.games import ENTRIES, SPEED_N

    names = [SPEED_N[0]] + [e[1] for e in ENTRIES] + [e[3] for e in ENTRIES if e[3]]
    assert [n for n in names if not _exists(n)] == []
