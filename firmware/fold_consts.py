"""Fold the board's imported constants into each module before ``mpy-cross`` compiles it.

``mpy-cross`` folds a ``const()`` only inside the module that defines it: a module that
does ``from speedduo.game.codes import EV_PLAY`` keeps ``EV_PLAY`` as a global (an entry
in its globals dict, held on the board's heap for the whole match) and looks it up by
name on every use. For the ``.mpy`` build only, this step rewrites each board module's
source so that such a name becomes a private constant of the module itself::

    from speedduo.game.codes import EV_PLAY, Hand      ->   from speedduo.game.codes import Hand
                                                             _EV_PLAY = const(3)
    if kind == EV_PLAY:                                ->   if kind == _EV_PLAY:

``_EV_PLAY`` is then folded by ``mpy-cross``: no global, no lookup (docs/deploy.md).

A name is folded only when that is safe to see from the sources: it resolves (through
modules that re-export it) to ``NAME = const(<int expression>)``; no board module imports
it from the module being rewritten (that module re-exports it) or reads it as an
attribute (``module.NAME``); the module never assigns it; and ``_NAME`` is free. Every
other name is left as it is. The ``.py`` deploy, the simulator and the tests run the
sources unchanged; the device tests run the folded ``.mpy``.
"""

import ast
import os
import re

if __package__:  # firmware.fold_consts (the tests)
    from . import short_names
else:  # fold_consts, beside deploy.py
    import short_names

_FOLD_OPS = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.LShift: lambda a, b: a << b,
    ast.RShift: lambda a, b: a >> b,
    ast.BitOr: lambda a, b: a | b,
    ast.BitAnd: lambda a, b: a & b,
    ast.BitXor: lambda a, b: a ^ b,
}
_PACKAGE = short_names.PACKAGE
# the files that run on the board beside lib/speedduo: the entry points, and the position
# helper bench/bench_fairness.py puts into lib/ (it reads the hand's piles by name)
_BESIDE = ("code.py", "boot.py", "host_sim/position.py")
# a file that runs code on the firmware (and so on the .mpy build) names one of these
_FIRMWARE_MARKS = ("device_run", "SPEEDDUO_DEVICE_DIR", "bench_device")
_IMPORT = re.compile(r"from\s+(speedduo[\w.]*)\s+import\s+(\([^)]*\)|[\w ,]+)")


def _int_value(node, known):
    """The int an expression of int literals and ``known`` names gives, or None."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.Name):
        return known.get(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.Invert)):
        value = _int_value(node.operand, known)
        if value is None:
            return None
        return -value if isinstance(node.op, ast.USub) else ~value
    if isinstance(node, ast.BinOp) and type(node.op) in _FOLD_OPS:
        left = _int_value(node.left, known)
        right = _int_value(node.right, known)
        if left is None or right is None:
            return None
        return _FOLD_OPS[type(node.op)](left, right)
    return None


module_name = short_names.module_name  # game/codes.py -> speedduo.game.codes


class Sources:
    """The board modules' sources (``{rel: text}``, rel as ``game/codes.py``), parsed, and
    what folds in each."""

    def __init__(self, texts, importers=(), script_strings=()):
        """``importers``: the sources of other code that runs on the board (the device
        tests' and benchmarks' ``code.py`` scripts): what they import stays importable.
        ``script_strings``: ``code.py``, ``boot.py``, ``host_sim/position.py`` (``_BESIDE``)
        and the strings of the code that holds those scripts: a word in them keeps its name
        (``short_names``)."""
        self.texts = texts
        self._script_strings = script_strings
        self._board = None  # ({rel: text as compiled}, {rel: {short: name}}), once made
        self.trees = {rel: ast.parse(text) for rel, text in texts.items()}
        self.by_module = {module_name(rel): rel for rel in texts}
        self._used = {rel: _names_used(tree) for rel, tree in self.trees.items()}
        self._consts = {}  # module -> {name: int} of its own const() definitions
        for rel, tree in self.trees.items():
            known = {}
            for node in tree.body:
                target = _const_target(node)
                if target is not None:
                    value = _int_value(node.value.args[0], known)
                    if value is not None:
                        known[target] = value
            self._consts[module_name(rel)] = known
        self._attributes = set()  # names read as an attribute anywhere (module.NAME)
        scripts = set()  # (module, name) the scripts import
        for tree in self.trees.values():
            for node in ast.walk(tree):
                if isinstance(node, ast.Attribute):
                    self._attributes.add(node.attr)
        for text in importers:
            scripts |= _imports(_parsed(text), top_only=False)
        # what stays imported once the imports have folded: a module keeps a name it
        # re-exports only while some import of it from there stays, so fold until stable
        kept = scripts | {pair for tree in self.trees.values() for pair in _imports(tree)}
        while True:
            self._kept = kept
            self._folds = {rel: self._import_folds(rel) for rel in self.trees}
            now = set(scripts)
            for rel, tree in self.trees.items():
                # every import stays whole but those that fold (only top-level ones do)
                keeps = {node: keep for node, keep, _ in self._folds[rel]}
                for node in ast.walk(tree):
                    if _is_ours(node):
                        now |= {(node.module, a.name) for a in keeps.get(node, node.names)}
            if now == kept:
                break
            kept = now

    def value(self, module, name, depth=0):
        """The int ``module.name`` is, following re-exports, or None if not a constant."""
        if depth > 8 or module not in self.by_module:
            return None
        own = self._consts[module].get(name)
        if own is not None:
            return own
        for node in self.trees[self.by_module[module]].body:  # a re-export
            if _is_ours(node):
                for alias in node.names:
                    if (alias.asname or alias.name) == name:
                        return self.value(node.module, alias.name, depth + 1)
        return None

    def _import_folds(self, rel):
        """[(ImportFrom node, aliases kept, [(name, value)] folded)] of ``rel``'s top-level
        imports that fold something."""
        this = module_name(rel)
        stored, _, bound = self._used[rel]
        found = []
        for node in self.trees[rel].body:
            if not _is_ours(node):
                continue
            keep, here = [], []
            for alias in node.names:
                name = alias.asname or alias.name
                value = self.value(node.module, alias.name)
                if (
                    value is None
                    or (this, name) in self._kept  # re-exported from here
                    or name in self._attributes
                    or name in stored
                    or "_" + name in bound
                    or name.startswith("_")
                ):
                    keep.append(alias)
                else:
                    here.append((name, value))
            if here:
                found.append((node, keep, here))
        return found

    def _own_folds(self, rel):
        """{name: its definition} of ``rel``'s own public ``const()`` names that no module
        imports once the imports have folded: they become private (``_NAME``) there too."""
        this = module_name(rel)
        bound = self._used[rel][2]
        own = {}
        for node in self.trees[rel].body:
            name = _const_target(node)
            if (
                name is not None
                and not name.startswith("_")
                and name in self._consts[this]
                and (this, name) not in self._kept
                and name not in self._attributes
                and "_" + name not in bound
                and len(list(_stores(self.trees[rel], name))) == 1
            ):
                own[name] = node
        return own

    def board_text(self, rel):
        """``rel``'s source as ``mpy-cross`` compiles it: constants folded (``folded``),
        then the names of every module shortened together (``short_names``)."""
        return self.board_texts()[0][rel]

    def board_texts(self):
        """({rel: source as compiled}, {rel: {short name: the name it stands for}})."""
        if self._board is None:
            folded = {rel: self.folded(rel)[0] for rel in self.texts}
            self._board = short_names.shorten(folded, self._script_strings)
        return self._board

    def folded(self, rel):
        """``rel``'s source with its imported constants folded and its own constants that
        nothing imports made private (the text as it is when nothing folds), and the names
        folded."""
        text = self.texts[rel]
        _, loads, _ = self._used[rel]
        edits = []  # (start offset, end offset, new text)
        renamed = []
        lines = text.splitlines(keepends=True)
        starts = [0]
        for line in lines:
            starts.append(starts[-1] + len(line))
        for node in _const_imports(self.trees[rel]):  # mpy-cross needs no import of it
            start = starts[node.lineno - 1] + node.col_offset
            end = starts[node.end_lineno - 1] + node.end_col_offset
            edits.append((start, end, "pass"))
        for node, keep, here in self._folds[rel]:
            new = []
            if keep:
                new.append(ast.unparse(ast.ImportFrom(module=node.module, names=keep, level=0)))
            for name, value in here:
                new.append("_%s = const(%d)" % (name, value))
                renamed.append(name)
            start = starts[node.lineno - 1] + node.col_offset
            end = starts[node.end_lineno - 1] + node.end_col_offset
            edits.append((start, end, "\n".join(new)))
        for name, node in self._own_folds(rel).items():
            target = node.targets[0]
            at = starts[target.lineno - 1] + target.col_offset
            edits.append((at, at + len(name), "_" + name))
            renamed.append(name)
        for name in renamed:
            for line, col in loads.get(name, ()):
                at = starts[line - 1] + col
                edits.append((at, at + len(name), "_" + name))
        for start, end, new in sorted(edits, reverse=True):
            text = text[:start] + new + text[end:]
        return text, sorted(renamed)


def _const_imports(tree):
    """The module's top-level ``from micropython import const`` when every use of ``const``
    is a top-level ``NAME = const(...)``, which ``mpy-cross`` folds without the import
    (the import would keep ``const`` in the module's globals on the board); else none."""
    imports = [
        node
        for node in tree.body
        if isinstance(node, ast.ImportFrom)
        and node.module == "micropython"
        and [(a.name, a.asname) for a in node.names] == [("const", None)]
    ]
    folded = {id(node.value.func) for node in tree.body if _const_target(node) is not None}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == "const" and id(node) not in folded:
            return []
    return imports


def _is_ours(node):
    return isinstance(node, ast.ImportFrom) and (node.module or "").startswith(_PACKAGE)


def _imports(tree, top_only=True):
    """{(module, name)} a tree imports from our package (at its top level, or anywhere)."""
    nodes = tree.body if top_only else ast.walk(tree)
    return {(node.module, alias.name) for node in nodes if _is_ours(node) for alias in node.names}


def _stores(tree, name):
    """Every assignment or declaration of ``name`` in ``tree``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
            yield node
        elif isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            yield node
        elif isinstance(node, ast.arg) and node.arg == name:
            yield node


def _const_target(node):
    """``NAME`` of a top-level ``NAME = const(...)``, else None."""
    if (
        isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Name)
        and node.value.func.id == "const"
        and len(node.value.args) == 1
    ):
        return node.targets[0].id
    return None


def _names_used(tree):
    """(names assigned or declared global, {name: [(line, col)] of each read}, every name
    bound or read) of a module's tree. A read inside an f-string is counted as a store:
    its position is not trusted, so that name is never folded."""
    stored, loads, bound = set(), {}, set()
    in_fstring = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Name):
                    in_fstring.add(inner.id)
        if isinstance(node, ast.Name):
            bound.add(node.id)
            if isinstance(node.ctx, ast.Load):
                loads.setdefault(node.id, []).append((node.lineno, node.col_offset))
            else:
                stored.add(node.id)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            stored.update(node.names)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
            stored.add(node.arg)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
    return stored | in_fstring, loads, bound


def _parsed(text):
    try:
        return ast.parse(text)
    except SyntaxError:  # (not Python: nothing it imports)
        return ast.Module(body=[], type_ignores=[])


def _script_files(root):
    """Every ``.py`` file under ``root``'s tests, bench and host_sim: the code that puts
    scripts onto the board (their ``code.py`` strings import board modules; the files
    themselves run on the host, on the sources)."""
    paths = []
    for top in ("tests", "bench", "host_sim"):
        for folder, dirs, names in os.walk(os.path.join(root, top)):
            dirs[:] = [d for d in dirs if not d.startswith((".", "__pycache__", "node_modules"))]
            paths += [os.path.join(folder, name) for name in names if name.endswith(".py")]
    return sorted(paths)


def _script_imports(path):
    """``from speedduo... import ...`` lines of the board scripts held in ``path``'s
    strings, and, when the file runs code on the firmware (the compiled build), those of
    its strings that import or name board code (a word in them keeps its name:
    ``short_names``)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    found, strings = [], []
    on_firmware = any(mark in text for mark in _FIRMWARE_MARKS)  # (else: on the sources)
    tree = _parsed(text)
    docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) in docstrings:
                continue
            if on_firmware and ("import" in node.value or _PACKAGE in node.value):
                strings.append(node.value)  # board code, or names it
            for module, names in _IMPORT.findall(node.value):
                names = [name.strip() for name in re.sub(r"[()\s]", " ", names).split(",")]
                found.append("from %s import %s" % (module, ", ".join(n for n in names if n)))
    return found, strings


_MADE = {}  # (lib, rels, root) -> (the files' sizes and times, Sources): one build's reading


def read_sources(lib, rels, root=None):
    """``Sources`` of the board modules ``rels`` (paths under ``lib``, lib/speedduo); with
    ``root`` (the repository), what the board scripts under it and its ``code.py`` and
    ``boot.py`` name is kept as it is.
    Read again only when a file changed (a test session builds many drives)."""
    paths = [os.path.join(lib, *rel.split("/")) for rel in rels]
    scripts = _script_files(root) if root else []
    # what runs on the board beside the library: what it names is kept (short_names)
    entries = [os.path.join(root, *name.split("/")) for name in _BESIDE] if root else []
    stamp = []
    for path in paths + scripts + entries:
        info = os.stat(path)
        stamp.append((path, info.st_mtime_ns, info.st_size))
    key = (lib, tuple(rels), root)
    made = _MADE.get(key)
    if made is not None and made[0] == stamp:
        return made[1]
    texts = {}
    for rel, path in zip(rels, paths, strict=True):
        with open(path, encoding="utf-8") as f:
            texts[rel] = f.read()
    imports, strings = [], []
    for path in scripts:
        found, more = _script_imports(path)
        imports += found
        strings += more
    for path in entries:
        with open(path, encoding="utf-8") as f:
            strings.append(f.read())
    sources = Sources(texts, imports, strings)
    _MADE[key] = (stamp, sources)
    return sources
