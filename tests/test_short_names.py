"""The .mpy build shortens the names only board code sees (firmware/short_names.py), and
keeps every name the firmware or other code answers to (firmware/rom_names.py)."""

import ast
import os
import struct
import types

import pytest
from conftest import ROOT

from firmware import deploy, fold_consts, rom_names, short_names

LIB = os.path.join(ROOT, "lib", "speedduo")


def _run(texts, outside=()):
    """Each module run as the build leaves it, in order (``from speedduo.a.b import X``
    served from the modules run before it): {rel: its globals}."""
    out, renames = short_names.shorten(texts, ["RESULT", *outside])  # code.py reads it
    done = {}
    for rel, text in out.items():
        space = {}
        for node in ast.parse(text).body:
            if isinstance(node, ast.ImportFrom) and node.module.startswith("speedduo."):
                folder = node.module[len("speedduo.") :].replace(".", "/")
                for alias in node.names:
                    if folder + "/" + alias.name + ".py" in done:  # a module
                        value = types.SimpleNamespace(**done[folder + "/" + alias.name + ".py"])
                    else:
                        value = done[folder + ".py"][alias.name]
                    space[alias.asname or alias.name] = value
        body = "\n".join(line for line in text.splitlines() if not line.startswith("from speedduo"))
        exec(compile(body, rel, "exec"), space)
        done[rel] = space
    return out, renames, done


def test_names_one_module_alone_sees_take_the_same_short_names_in_every_module():
    first = "def helper(value):\n    total = value + 1\n    return total\n\nRESULT = helper(2)\n"
    second = "def other(count):\n    return count * 2\n\nRESULT = other(4)\n"
    out, renames, done = _run({"a/first.py": first, "a/second.py": second})
    assert "helper" not in out["a/first.py"] and "other" not in out["a/second.py"]
    assert done["a/first.py"]["RESULT"] == 3 and done["a/second.py"]["RESULT"] == 8
    assert set(renames["a/first.py"]) & set(renames["a/second.py"])  # the same short names
    assert renames["a/first.py"]["_a"] == "helper" and renames["a/second.py"]["_a"] == "other"


def test_an_attribute_one_module_sets_and_another_reads_meets_under_one_name():
    maker = "class Box:\n    def __init__(self, girth):\n        self.girth = girth\n"
    reader = (
        "from speedduo.a.maker import Box\n\n"
        "def area(box):\n    return box.girth * box.girth\n\nRESULT = area(Box(girth=3))\n"
    )
    out, renames, done = _run({"a/maker.py": maker, "a/reader.py": reader})
    assert done["a/reader.py"]["RESULT"] == 9
    assert ".girth" not in out["a/reader.py"] and "girth=" not in out["a/reader.py"]
    short = {v: k for k, v in renames["a/maker.py"].items()}["girth"]
    assert renames["a/reader.py"][short] == "girth"  # one name in both, the keyword's too


def test_a_subclass_in_another_module_keeps_its_members_apart_from_its_base_s():
    base = "class Base:\n    def __init__(self):\n        self.tally = 1\n"
    sub = (
        "from speedduo.a.base import Base\n\n"
        "class Sub(Base):\n    def __init__(self):\n        super().__init__()\n"
        "        self.grand = 2\n\n"
        "    def both(self):\n        return (self.tally, self.grand)\n\n"
        "RESULT = Sub().both()\n"
    )
    apart = "class Other:\n    def __init__(self):\n        self.thing = 5\n"
    out, renames, done = _run({"a/base.py": base, "a/sub.py": sub, "a/apart.py": apart})
    assert done["a/sub.py"]["RESULT"] == (1, 2)
    family = {v: k for k, v in renames["a/sub.py"].items()}
    assert family["tally"] != family["grand"]
    # a class of no kin to them reuses their names
    assert {v: k for k, v in renames["a/apart.py"].items()}["thing"] in family.values()


def test_a_name_one_module_alone_defines_is_that_module_s_wherever_it_is_read():
    pins = "LED_GPIO = 25\nBUZZER_GPIO = 15\n"
    user = (
        "from speedduo.a import pins\nfrom speedduo.a.pins import BUZZER_GPIO\n\n"
        "RESULT = (pins.LED_GPIO, BUZZER_GPIO)\n"
    )
    other = "class Lamp:\n    def __init__(self):\n        self.glow = 3\n\nRESULT = Lamp().glow\n"
    out, renames, done = _run({"a/pins.py": pins, "a/user.py": user, "a/other.py": other})
    assert done["a/user.py"]["RESULT"] == (25, 15) and done["a/other.py"]["RESULT"] == 3
    assert "LED_GPIO" not in out["a/user.py"] and "BUZZER_GPIO" not in out["a/pins.py"]
    mine = {v: k for k, v in renames["a/pins.py"].items()}
    assert mine["LED_GPIO"] != mine["BUZZER_GPIO"]
    # the module's names and an unrelated class's members take the same short names
    assert {v: k for k, v in renames["a/other.py"].items()}["glow"] in mine.values()


def test_what_the_firmware_strings_and_outside_code_name_keeps_its_name():
    text = (
        "from micropython import const\n"
        "from supervisor import ticks_ms\n"
        "_LIMIT = const(5)\n"
        "def tally_up(event, queue, board_code):\n"
        "    queue.get_into(event)\n"  # the firmware's names
        "    late = getattr(event, 'not_yet', 0)\n"  # a string names it
        "    return event.key_number + late + _LIMIT + ticks_ms() + board_code\n"
        "def main(free_at_boot):\n    return free_at_boot\n"
    )
    out = short_names.shorten({"a/io.py": text}, ["main(free_at_boot=1)"])[0]["a/io.py"]
    for kept in ("get_into", "key_number", "not_yet", "_LIMIT", "ticks_ms", "const", "main"):
        assert kept in out, kept
    assert "free_at_boot" in out  # code.py calls main with it as a keyword
    assert "board_code" not in out and "def tally_up" not in out  # only this module sees them


def test_the_module_names_are_kept():
    text = "from speedduo.game import core\n\ndef game(core_module):\n    return core.X\n"
    out = short_names.shorten({"game/core.py": "X = 1\n", "game/user.py": text})[0]
    assert "from speedduo.game import core" in out["game/user.py"]


def test_every_board_module_shortens_to_source_that_compiles_one_to_one():
    sources = fold_consts.read_sources(LIB, deploy.board_modules(LIB), ROOT)
    texts, renames = sources.board_texts()
    rom = rom_names.read(os.path.join(ROOT, "firmware", short_names.ROM_NAMES))
    shortened = 0
    for rel, text in texts.items():
        compile(text, rel, "exec")
        mapping = renames[rel]
        assert len(set(mapping.values())) == len(mapping), rel  # one-to-one in a module
        assert not rom & set(mapping.values()), rel  # no firmware name renamed
        shortened += len(mapping)
    assert shortened > 1000
    # what code.py imports from the board program stays as it is
    assert "def main(" in texts["loop/board_io.py"]
    assert "def make_keys(" in texts["loop/keys.py"]


def _fake_firmware(names):
    """A flash image holding one name pool (py/qstr.h's shape) and its .uf2."""
    base = 0x10000000
    strings_at = 0x200 + 24 + 4 * len(names)
    pointers, blob = [], b""
    for name in names:
        pointers.append(base + strings_at + len(blob))
        blob += name.encode() + b"\0"
    header = struct.pack("<6I", 0, 0, 10, len(names), 0, 0)
    image = b"\xff" * 0x200 + header + struct.pack("<%dI" % len(names), *pointers) + blob
    image += b"\0" * (-len(image) % 256)
    uf2 = b""
    for i in range(0, len(image), 256):
        head = struct.pack("<8I", 0x0A324655, 0x9E5D5157, 0, base + i, 256, i // 256, 0, 0)
        uf2 += head + image[i : i + 256] + b"\0" * (476 - 256) + struct.pack("<I", 0x0AB16F30)
    return uf2


def test_the_firmware_s_names_are_read_from_its_name_pool():
    names = ["key_number", "writeto"] + ["name%d" % i for i in range(120)] + ["%d items"]
    found = rom_names.pool_names(*rom_names.flash_image(_fake_firmware(names)))
    assert "key_number" in found and "name119" in found and "%d items" not in found
    with pytest.raises(ValueError, match="no name pool"):
        rom_names.pool_names(*rom_names.flash_image(_fake_firmware(["few"])))


def test_the_names_list_is_the_measured_firmware_s():
    folder = os.environ.get("SPEEDDUO_DEVICE_DIR")
    uf2 = os.path.join(folder or "", "firmware.uf2")
    if not folder or not os.path.isfile(uf2):
        pytest.skip("needs the firmware (SPEEDDUO_DEVICE_DIR; .ci/run sets it)")
    with open(uf2, "rb") as f:
        found = rom_names.pool_names(*rom_names.flash_image(f.read()))
    listed = rom_names.read(os.path.join(ROOT, "firmware", short_names.ROM_NAMES))
    assert set(found) == listed  # python3 firmware/rom_names.py FIRMWARE.uf2 > ... again


def test_a_board_traceback_s_short_names_are_told_back(capsys):
    assert short_names.main(["_a", "_not_one"]) == 0
    out = capsys.readouterr().out
    assert "_a  speedduo." in out and "_not_one  (not a short name of this build)" in out
