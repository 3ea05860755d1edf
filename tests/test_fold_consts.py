"""The .mpy build folds the constants a board module imports (firmware/fold_consts.py)."""

import ast
import os

from conftest import ROOT

from firmware import deploy, fold_consts

LIB = os.path.join(ROOT, "lib", "speedduo")

CODES = """from micropython import const
EV_PLAY = const(3)
EV_FLIP = const(EV_PLAY + 6)
MASK = const((1 << 14) - 1)
NOT_A_CONST = 5
"""
LOG = """from speedduo.a.codes import EV_PLAY, EV_FLIP  # re-exported
"""


def _fold(user, **more):
    texts = {"a/codes.py": CODES, "a/log.py": LOG, "a/user.py": user}
    texts.update(more)
    return fold_consts.Sources(texts).folded("a/user.py")


def test_an_imported_const_becomes_a_private_const_of_the_module():
    text, names = _fold(
        "from micropython import const\n"
        "from speedduo.a.codes import EV_PLAY, MASK, NOT_A_CONST\n"
        "def f(kind):\n"
        "    return kind == EV_PLAY and kind & MASK and NOT_A_CONST\n"
    )
    assert names == ["EV_PLAY", "MASK"]
    assert (
        "from speedduo.a.codes import NOT_A_CONST\n_EV_PLAY = const(3)\n_MASK = const(16383)"
        in text
    )
    assert "return kind == _EV_PLAY and kind & _MASK and NOT_A_CONST" in text
    compile(text, "user.py", "exec")


def test_a_const_reached_through_a_re_export_folds_to_its_value():
    text, names = _fold("from speedduo.a.log import EV_FLIP\nx = EV_FLIP\n")
    assert names == ["EV_FLIP"]
    assert "_EV_FLIP = const(9)\nx = _EV_FLIP" in text


def test_a_name_another_module_imports_from_this_one_is_kept():
    """user.py imports EV_PLAY from log.py inside a function (such imports never fold), so
    log.py keeps that name; EV_FLIP, which nobody imports from log.py, folds there."""
    user = "def f():\n    from speedduo.a.log import EV_PLAY\n    return EV_PLAY\n"
    sources = fold_consts.Sources({"a/codes.py": CODES, "a/log.py": LOG, "a/user.py": user})
    text, names = sources.folded("a/log.py")
    assert names == ["EV_FLIP"]
    assert text.startswith("from speedduo.a.codes import EV_PLAY\n")
    assert sources.folded("a/user.py") == (user, [])


def test_a_re_export_folds_once_every_import_of_it_has_folded():
    sources = fold_consts.Sources(
        {"a/codes.py": CODES, "a/log.py": LOG, "a/user.py": "from speedduo.a.log import EV_PLAY\n"}
    )
    assert sources.folded("a/user.py")[1] == ["EV_PLAY"]
    assert sources.folded("a/log.py")[1] == ["EV_FLIP", "EV_PLAY"]


def test_a_const_nothing_imports_becomes_private_where_it_is_defined():
    sources = fold_consts.Sources(
        {"a/codes.py": CODES, "a/user.py": "from speedduo.a.codes import MASK\n"}
    )
    text, names = sources.folded("a/codes.py")
    assert names == ["EV_FLIP", "EV_PLAY", "MASK"]
    assert "_EV_FLIP = const(_EV_PLAY + 6)" in text and "NOT_A_CONST = 5" in text


def test_a_name_a_board_script_imports_is_kept():
    sources = fold_consts.Sources(
        {"a/codes.py": CODES, "a/log.py": LOG}, ["from speedduo.a.log import EV_FLIP\n"]
    )
    text, names = sources.folded("a/log.py")
    assert names == ["EV_PLAY"] and "EV_FLIP" in text.split("\n")[0]


def test_names_read_as_attributes_assigned_or_private_are_not_folded():
    user = (
        "from speedduo.a.codes import EV_PLAY, EV_FLIP, MASK\n"
        "import sys\n"
        "y = sys.modules['x'].EV_PLAY\n"
        "def f(EV_FLIP):\n"
        "    return EV_FLIP\n"
        "_MASK = 1\n"
    )
    text, names = _fold(user)
    assert names == [] and text == user


def test_a_module_without_a_fold_is_left_byte_for_byte():
    user = "from speedduo.a.codes import NOT_A_CONST\nprint(NOT_A_CONST)\n"
    assert _fold(user) == (user, [])


def test_every_board_module_folds_to_source_that_compiles():
    sources = fold_consts.read_sources(LIB, deploy.board_modules(LIB), ROOT)
    folded = 0
    for rel in sources.texts:
        text, names = sources.folded(rel)
        tree = ast.parse(text)  # (the .mpy build compiles exactly this)
        folded += len(names)
        for name in names:  # no folded name is left as a global read
            assert not any(
                isinstance(node, ast.Name) and node.id == name for node in ast.walk(tree)
            ), (rel, name)
    assert folded > 200  # classic Speed's core, log and views among them


def test_the_const_import_goes_when_every_const_folds():
    """mpy-cross folds NAME = const(...) without it; the import would keep ``const`` among
    the module's globals on the board."""
    sources = fold_consts.Sources({"a/codes.py": CODES})
    text = sources.folded("a/codes.py")[0]
    assert "import const" not in text and "_EV_PLAY = const(3)" in text
    other = "from micropython import const\nX = const(1)\nf = const\n"
    assert (
        fold_consts.Sources({"a/b.py": other})
        .folded("a/b.py")[0]
        .startswith("from micropython import const")
    )


def test_a_script_s_parenthesised_import_over_lines_is_read(tmp_path):
    """A device test's code.py string importing names over several lines keeps them."""
    (tmp_path / "tests").mkdir()
    code = (
        'CODE = """import gc\nfrom speedduo.a.log import (\n'
        '    EV_PLAY,\n    EV_FLIP as F,\n)\n"""\n'
    )
    (tmp_path / "tests" / "test_x.py").write_text(code)
    imports, strings = fold_consts._script_imports(str(tmp_path / "tests" / "test_x.py"))
    assert imports == ["from speedduo.a.log import EV_PLAY, EV_FLIP as F"]
    assert strings == []  # a script the sources run (not the firmware): its words are free
    (tmp_path / "tests" / "test_x.py").write_text("from host_sim import device_run\n" + code)
    imports, strings = fold_consts._script_imports(str(tmp_path / "tests" / "test_x.py"))
    assert strings and "EV_FLIP as F" in strings[0]  # on the firmware: its words keep names
