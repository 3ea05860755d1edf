"""host_sim imports each of its files one way only, so no file is loaded as two modules.

The simulator's board-side files (the shims, ``runner``, ``bots``, ``buttons``,
``script``) also run inside the MicroPython VM, where they are imported by their
bare names from ``host_sim/`` and ``host_sim/shims/`` on ``sys.path``; the
host-only tools are imported as ``host_sim.NAME``. A file imported both ways
would load twice (two classes of one name: ``isinstance`` across them fails).
"""

import os
import re

from conftest import ROOT

HOST_SIM = os.path.join(ROOT, "host_sim")
SHIMS = os.path.join(HOST_SIM, "shims")
SOURCES = ("host_sim", "tests", "bench", "examples", "lib")


def _names(folder):
    return {name[:-3] for name in os.listdir(folder) if name.endswith(".py")} - {"__init__"}


def _imports():
    """(path, bare module names, host_sim.NAME names) of every Python file that imports."""
    bare = re.compile(r"^\s*(?:from\s+(\w+)\s+import|import\s+(\w+))", re.M)
    dotted = re.compile(r"^\s*(?:from\s+host_sim\.(\w+)\s+import|import\s+host_sim\.(\w+))", re.M)
    for top in SOURCES:
        for folder, _dirs, files in os.walk(os.path.join(ROOT, top)):
            if "node_modules" in folder:
                continue
            for name in files:
                if not name.endswith(".py"):
                    continue
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                found_bare = {a or b for a, b in bare.findall(text)}
                found_dotted = {a or b for a, b in dotted.findall(text)}
                yield os.path.relpath(path, ROOT), found_bare, found_dotted


def test_each_host_sim_file_is_imported_one_way_only():
    modules = _names(HOST_SIM) | _names(SHIMS)
    bare_users = {}
    dotted_users = {}
    for path, bare, dotted in _imports():
        for name in bare & modules:
            bare_users.setdefault(name, path)
        for name in dotted & modules:
            dotted_users.setdefault(name, path)
    both = {
        name: (bare_users[name], dotted_users[name]) for name in set(bare_users) & set(dotted_users)
    }
    assert not both, "imported both bare and as host_sim.NAME: %r" % both


def test_shims_are_only_imported_bare():
    """A shim stands in for a CircuitPython module: it has only the board's name."""
    for path, _bare, dotted in _imports():
        assert not dotted & _names(SHIMS), path


def _circles(graph):
    """Every import circle, each as the list of modules around it (smallest first)."""
    found = []

    def walk(start, node, path):
        for dep in sorted(graph.get(node, ())):
            if dep == start:
                found.append(path + [dep])
            elif dep not in path and dep > start:  # each circle once, from its least name
                walk(start, dep, path + [dep])

    for module in sorted(graph):
        walk(module, module, [module])
    return found


def test_host_sim_has_no_import_circle():
    """Each tool imports what it uses and nothing imports back (issue 21: cli, monitor,
    stats_tool and window_main went round in two circles)."""
    assert _circles(_imports_between(os.path.join(ROOT, "host_sim"), "host_sim")) == []


def _imports_between(folder, package):
    """{module: {modules of ``package`` it imports}} for every module under ``folder``
    (``package``'s folder), each named as its dotted path below ``package``."""
    import ast

    graph = {}
    for inside, _, names in os.walk(folder):
        prefix = os.path.relpath(inside, folder).replace(os.sep, ".")
        for name in names:
            if not name.endswith(".py") or name == "__init__.py":
                continue
            with open(os.path.join(inside, name), encoding="utf-8") as f:
                tree = ast.parse(f.read())
            found = set()
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.module:
                    if node.module.startswith(package + "."):
                        parts = node.module.split(".")[1:]
                        if len(parts) == 1:  # from package.sub import module, ...
                            found.update(parts[0] + "." + a.name for a in node.names)
                        found.add(".".join(parts))
                    elif node.module == package:
                        found.update(a.name for a in node.names)
            graph[name[:-3] if prefix == "." else prefix + "." + name[:-3]] = found
    for module in graph:
        graph[module] &= set(graph)
    return graph


def _board_imports():
    """The same for every module of lib/speedduo (``games`` for the registry at the top)."""
    return _imports_between(os.path.join(ROOT, "lib", "speedduo"), "speedduo")


def test_the_board_code_has_no_import_circle():
    assert _circles(_board_imports()) == []


# what each package of lib/speedduo may import (README "Layout"): the vocabulary (codes,
# cards, ticks) nothing of ours; the rules (``game``) and the log only it, so neither imports
# the other (issue 29.5: the match is handed its log); the host's link and stats the rules'
# handicap options (H1, H3) and the log; the loop, at the top, anything; every package the
# modules at the top (the registry)
LAYERS = {
    "vocab": {"vocab"},
    "game": {"game", "vocab"},
    "log": {"log", "vocab"},
    "host": {"host", "game", "log", "vocab"},
    "display": {"display", "game", "log", "host", "vocab"},
    "loop": {"loop", "game", "log", "display", "host", "vocab"},
}


def _package_pairs():
    """{(package, package it imports)} between two different packages of lib/speedduo."""
    pairs = set()
    for module, imports in _board_imports().items():
        if "." not in module:
            continue
        for imported in imports:
            if "." in imported and imported.split(".")[0] != module.split(".")[0]:
                pairs.add((module.split(".")[0], imported.split(".")[0]))
    return pairs


def test_no_two_board_packages_import_each_other():
    pairs = _package_pairs()
    assert sorted((a, b) for a, b in pairs if (b, a) in pairs) == []


def test_the_rules_and_the_log_import_only_the_vocabulary_below_them():
    pairs = _package_pairs()
    assert {b for a, b in pairs if a == "game"} == {"vocab"}
    assert {b for a, b in pairs if a == "log"} == {"vocab"}
    assert {b for a, b in pairs if a == "vocab"} == set()


def test_the_board_packages_import_downwards_only():
    wrong = []
    for module, imports in sorted(_board_imports().items()):
        package = module.split(".")[0]
        for imported in sorted(imports):
            if "." in imported and imported.split(".")[0] not in LAYERS.get(package, LAYERS):
                wrong.append(module + " -> " + imported)
    assert wrong == []
