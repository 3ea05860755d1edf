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


def _loads(node):
    return isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("load", "unload")


def _named_by_loader(tree):
    """Every string given to load/unload: as an argument, through a loop's tuple, or in a
    module's tuple that such an argument or loop names (``*MODULES``, ``CLASSIC_VIEW``...)."""
    tuples = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    tuples[target.id] = node.value
    found = []
    named = set()
    for node in ast.walk(tree):
        if _loads(node):
            found += _strings(node)
            named |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.For) and any(_loads(n) for n in ast.walk(node)):
            found += _strings(node.iter)
            named |= {n.id for n in ast.walk(node.iter) if isinstance(n, ast.Name)}
    while named:  # the tuples named there, and the tuples those are made of
        name = named.pop()
        if name in tuples:
            found += _strings(tuples[name])
            named |= {n.id for n in ast.walk(tuples.pop(name)) if isinstance(n, ast.Name)}
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
