"""The hardware package agrees with itself: pin map, Pico pinout, Wokwi, BOM, generated files.

hardware/pinmap.json is the single source of truth; everything else in hardware/
and lib/speedduo/loop/pins.py is generated from it or checked against it here.
"""

import ast
import collections
import copy
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HARDWARE = os.path.join(ROOT, "hardware")
sys.path.insert(0, HARDWARE)

import gen_case  # noqa: E402
import gen_layout  # noqa: E402
import gen_pins  # noqa: E402
import gen_schematic  # noqa: E402
import gen_wiring  # noqa: E402
import gen_wokwi  # noqa: E402
import pico_board  # noqa: E402

PINMAP = pico_board.load_pinmap()
GENERATORS = (gen_pins, gen_wokwi, gen_schematic, gen_layout, gen_wiring, gen_case)

# Pin names of the Wokwi parts we use (docs.wokwi.com/parts/<type>).
WOKWI_PART_PINS = {
    "wokwi-pi-pico": {pico_board.wokwi_pin(pin) for pin in range(1, 41)},
    "board-ssd1306": {"GND", "VCC", "SCL", "SDA"},
    "wokwi-pushbutton": {"1.l", "2.l", "1.r", "2.r"},
    "wokwi-buzzer": {"1", "2"},
}


def _diagram() -> dict:
    with open(os.path.join(HARDWARE, "wokwi", "diagram.json"), encoding="utf-8") as f:
        return json.load(f)


def _bom() -> list:
    with open(os.path.join(HARDWARE, "bom.csv"), newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _signals() -> list:
    return [name for name, _user in pico_board.signal_pins(PINMAP)]


# --- The Pico and RP2040 tables the other tests rely on -------------------------------------


def test_pico_header_table_is_the_pico_pinout():
    header = pico_board.HEADER
    assert len(header) == 40
    assert header[0] == "GP0" and header[39] == "VBUS" and header[35] == "3V3"
    assert [i + 1 for i, n in enumerate(header) if n == "GND"] == [3, 8, 13, 18, 23, 28, 38]
    assert header.index("AGND") + 1 == 33
    gpios = pico_board.header_gpios()
    assert gpios == [f"GP{n}" for n in (*range(23), 26, 27, 28)]


def test_i2c_function_table_follows_the_rp2040_datasheet_rule():
    """RP2040 datasheet 1.4.3: GPIOn, n%4 == 0..3, is I2C0 SDA, I2C0 SCL, I2C1 SDA, I2C1 SCL."""
    rule = (("I2C0", "SDA"), ("I2C0", "SCL"), ("I2C1", "SDA"), ("I2C1", "SCL"))
    assert len(pico_board.I2C_FUNCTION) == 30
    for n, function in enumerate(pico_board.I2C_FUNCTION):
        assert function == rule[n % 4], f"GPIO{n}"


def test_wokwi_pico_ground_names_follow_header_order():
    assert pico_board.wokwi_pin(3) == "GND.1"
    assert pico_board.wokwi_pin(33) == "GND.7"
    assert pico_board.wokwi_pin(38) == "GND.8"
    assert pico_board.wokwi_pin(36) == "3V3"


# --- The pin map -------------------------------------------------------------------------------


def test_pin_map_is_for_a_raspberry_pi_pico():
    assert PINMAP["board"] == "raspberry_pi_pico"


def test_every_signal_pin_exists_on_a_pico():
    for name in _signals():
        on_header = name in pico_board.header_gpios()
        onboard_led = name == PINMAP["led"]["pin"] and PINMAP["led"]["onboard"]
        assert on_header or (onboard_led and name in pico_board.INTERNAL_GPIO), name


def test_every_signal_pin_is_used_exactly_once():
    counts = collections.Counter(_signals())
    assert {name: n for name, n in counts.items() if n > 1} == {}


def test_recorded_header_pin_numbers_match_the_pico_pinout():
    for panel in PINMAP["panels"]:
        for signal in ("sda", "scl"):
            gpio = panel["i2c"][signal]
            assert panel["header_pins"][signal] == pico_board.header_pin(gpio)
    for key in PINMAP["buttons"]["keys"]:
        assert key["header_pin"] == pico_board.header_pin(key["pin"]), key
    piezo = PINMAP["piezo"]
    assert piezo["header_pin"] == pico_board.header_pin(piezo["pin"])


def test_each_panel_sda_scl_pair_belongs_to_the_i2c_peripheral_it_claims():
    for panel in PINMAP["panels"]:
        i2c = panel["i2c"]
        assert pico_board.i2c_function(i2c["sda"]) == (i2c["peripheral"], "SDA"), panel
        assert pico_board.i2c_function(i2c["scl"]) == (i2c["peripheral"], "SCL"), panel


def test_each_panel_has_its_own_i2c_peripheral():
    """Design choice: one bus per panel, so both can share address 0x3C and run at 1 MHz."""
    peripherals = [panel["i2c"]["peripheral"] for panel in PINMAP["panels"]]
    assert sorted(peripherals) == ["I2C0", "I2C1"]
    assert sorted(panel["player"] for panel in PINMAP["panels"]) == [0, 1]


def test_panel_addresses_and_bus_speeds_are_within_ssd1306_and_rp2040_limits():
    for panel in PINMAP["panels"]:
        i2c = panel["i2c"]
        assert i2c["address"] in (0x3C, 0x3D)
        assert i2c["frequency"] == 400_000
        assert i2c["max_frequency"] == 1_000_000  # RP2040 I2C is Fast-mode Plus capable
        assert i2c["frequency"] <= i2c["max_frequency"]
        assert i2c["max_frequency"] in pico_board.I2C_MAX_RISE_NS


def test_panels_are_powered_from_3v3_and_grounded():
    for panel in PINMAP["panels"]:
        assert pico_board.HEADER[panel["header_pins"]["vcc"] - 1] == "3V3"
        assert pico_board.HEADER[panel["header_pins"]["gnd"] - 1] in ("GND", "AGND")


def test_buttons_are_two_rows_of_l_1_to_5_r_in_key_number_order():
    keys = PINMAP["buttons"]["keys"]
    assert [key["key"] for key in keys] == list(range(14))
    assert [key["player"] for key in keys] == [0] * 7 + [1] * 7
    assert [key["name"] for key in keys] == ["L", "1", "2", "3", "4", "5", "R"] * 2


def test_buttons_pull_up_and_read_low_when_pressed():
    buttons = PINMAP["buttons"]
    assert buttons["pull"] == "up" and buttons["value_when_pressed"] is False
    for gnd in buttons["gnd_header_pins"]:
        assert pico_board.HEADER[gnd - 1] in ("GND", "AGND")


def test_piezo_pin_is_pwm_capable():
    """Every RP2040 GPIO (0-29) has a PWM output; the piezo must be one of them."""
    piezo = PINMAP["piezo"]
    assert piezo["drive"] == "pwm"
    slice_number, channel = pico_board.pwm_channel(piezo["pin"])
    assert 0 <= slice_number < 8 and channel in ("A", "B")
    assert pico_board.HEADER[piezo["gnd_header_pin"] - 1] in ("GND", "AGND")


def test_status_led_is_the_onboard_led():
    assert PINMAP["led"] == {"pin": "GP25", "onboard": True}


def test_pin_map_checker_finds_nothing_wrong():
    assert pico_board.problems(PINMAP) == []


def test_pin_map_checker_reports_swapped_i2c_pins():
    broken = copy.deepcopy(PINMAP)
    i2c = broken["panels"][0]["i2c"]
    i2c["sda"], i2c["scl"] = i2c["scl"], i2c["sda"]
    assert any("cannot be" in problem for problem in pico_board.problems(broken))


def test_pin_map_checker_reports_a_pin_used_twice():
    broken = copy.deepcopy(PINMAP)
    broken["buttons"]["keys"][1]["pin"] = broken["buttons"]["keys"][0]["pin"]
    assert any("used twice" in problem for problem in pico_board.problems(broken))


def test_pin_map_checker_reports_a_pin_the_pico_does_not_break_out():
    broken = copy.deepcopy(PINMAP)
    broken["piezo"]["pin"] = "GP23"
    assert any("not a GPIO on the Pico header" in p for p in pico_board.problems(broken))


# --- Wokwi diagram -----------------------------------------------------------------------------


def _nets(connections) -> dict:
    """part:pin -> the set of every part:pin on the same net (wires joined transitively)."""
    parent = {}

    def find(node):
        parent.setdefault(node, node)
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for start, end, *_route in connections:
        parent[find(start)] = find(end)
    groups = collections.defaultdict(set)
    for node in list(parent):
        groups[find(node)].add(node)
    return {node: groups[find(node)] for node in parent}


def _expected_wokwi_wiring() -> dict:
    """part:pin -> the Pico pins it must reach, read from the pin map alone."""

    def pico(header):
        return {f"pico:{pico_board.wokwi_pin(header)}"}

    expected = {}
    for panel in PINMAP["panels"]:
        oled, i2c, pins = f"oled{panel['player']}", panel["i2c"], panel["header_pins"]
        expected[f"{oled}:SDA"] = pico(pico_board.header_pin(i2c["sda"]))
        expected[f"{oled}:SCL"] = pico(pico_board.header_pin(i2c["scl"]))
        expected[f"{oled}:VCC"] = pico(pins["vcc"])
        expected[f"{oled}:GND"] = pico(pins["gnd"])
    gnd = PINMAP["buttons"]["gnd_header_pins"]
    for key in PINMAP["buttons"]["keys"]:
        expected[f"key{key['key']}:1.l"] = pico(pico_board.header_pin(key["pin"]))
        expected[f"key{key['key']}:2.l"] = pico(gnd[key["player"]])
    expected["piezo:2"] = pico(pico_board.header_pin(PINMAP["piezo"]["pin"]))
    expected["piezo:1"] = pico(PINMAP["piezo"]["gnd_header_pin"])
    return expected


def test_wokwi_diagram_is_a_version_1_diagram():
    diagram = _diagram()
    assert diagram["version"] == 1
    ids = [part["id"] for part in diagram["parts"]]
    assert len(ids) == len(set(ids))


def test_wokwi_diagram_has_the_parts_the_pin_map_needs():
    types = {part["id"]: part["type"] for part in _diagram()["parts"]}
    expected = {"pico": "wokwi-pi-pico", "oled0": "board-ssd1306", "oled1": "board-ssd1306"}
    expected.update({f"key{n}": "wokwi-pushbutton" for n in range(14)})
    expected["piezo"] = "wokwi-buzzer"
    assert types == expected


def test_wokwi_connections_equal_the_pin_map():
    nets = _nets(_diagram()["connections"])
    wired = {
        node: {other for other in net if other.startswith("pico:")}
        for node, net in nets.items()
        if not node.startswith("pico:")
    }
    assert wired == _expected_wokwi_wiring()


def test_wokwi_connections_use_real_part_pin_names():
    types = {part["id"]: part["type"] for part in _diagram()["parts"]}
    for connection in _diagram()["connections"]:
        for end in connection[:2]:
            part_id, pin = end.split(":", 1)
            assert pin in WOKWI_PART_PINS[types[part_id]], end


def test_wokwi_panels_use_the_pin_map_address():
    parts = {part["id"]: part for part in _diagram()["parts"]}
    for panel in PINMAP["panels"]:
        address = parts[f"oled{panel['player']}"]["attrs"]["i2cAddress"]
        assert int(address, 16) == panel["i2c"]["address"]


# --- Bill of materials -------------------------------------------------------------------------


def _ref_count(refs: str) -> int:
    """'SW1-SW14' -> 14, 'DS1,DS2' -> 2, 'U1' -> 1."""
    total = 0
    for ref in refs.split(","):
        found = re.fullmatch(r"([A-Z]+)(\d+)(?:-([A-Z]+)(\d+))?", ref.strip())
        assert found, refs
        prefix, first, last_prefix, last = found.groups()
        total += 1 if last is None else int(last) - int(first) + 1
        assert last_prefix in (None, prefix), refs
    return total


def test_bom_rows_name_a_part_number_and_price():
    rows = _bom()
    needed = {"ref", "part", "value", "package", "quantity", "part_number", "unit_price_usd"}
    assert needed | {"wokwi_type"} <= set(rows[0])
    for row in rows:
        assert all(row[column].strip() for column in needed), row
        assert int(row["quantity"]) == _ref_count(row["ref"]), row
        assert float(row["unit_price_usd"]) > 0, row


def test_every_distributor_number_says_where_it_was_checked():
    """bom.csv's catalogue_check: where each number was confirmed, or that it was not."""
    for row in _bom():
        check = row["catalogue_check"]
        has_number = row["lcsc_part"] or row["other_distributor"]
        if has_number:
            assert re.match(r"(confirmed|partly confirmed|not confirmed): \S", check), row
        else:
            assert check.startswith(("no distributor number: ", "partly confirmed: ")), row
    with open(os.path.join(HARDWARE, "BUILD.md"), encoding="utf-8") as f:
        assert "catalogue_check" in f.read()  # the guide says how the numbers were checked


def test_every_diagram_part_is_in_the_bom_and_vice_versa():
    """bom.csv's wokwi_type column names the Wokwi part type; "none" marks unsimulated rows."""
    in_diagram = collections.Counter(part["type"] for part in _diagram()["parts"])
    in_bom = collections.Counter()
    for row in _bom():
        if row["wokwi_type"] != "none":
            in_bom[row["wokwi_type"]] += int(row["quantity"])
    assert in_bom == in_diagram


# --- Generated files ---------------------------------------------------------------------------


@pytest.mark.parametrize("generator", GENERATORS, ids=lambda g: g.__name__)
def test_generated_file_is_in_sync_with_the_pin_map(generator):
    with open(generator.OUTPUT, encoding="utf-8") as f:
        on_disk = f.read()
    assert on_disk == generator.render(PINMAP), (
        f"{os.path.relpath(generator.OUTPUT, ROOT)} is stale: run python hardware/gen_all.py"
    )


def test_generator_check_fails_when_the_pin_map_changed(tmp_path, capsys):
    changed = copy.deepcopy(PINMAP)
    keys = changed["buttons"]["keys"]
    keys[0]["pin"], keys[1]["pin"] = keys[1]["pin"], keys[0]["pin"]
    keys[0]["header_pin"], keys[1]["header_pin"] = keys[1]["header_pin"], keys[0]["header_pin"]
    path = tmp_path / "pinmap.json"
    path.write_text(json.dumps(changed))
    assert gen_pins.main(["--check", "--pinmap", str(path)]) == 1
    assert "out of date" in capsys.readouterr().err


def _pins_module() -> dict:
    namespace = {}
    with open(gen_pins.OUTPUT, encoding="utf-8") as f:
        exec(compile(f.read(), gen_pins.OUTPUT, "exec"), namespace)
    return namespace


def test_pins_module_lists_the_pin_map_in_key_order():
    pins = _pins_module()
    keys = PINMAP["buttons"]["keys"]
    assert pins["BUTTON_PINS"] == tuple(key["pin"] for key in keys)
    assert pins["BUTTON_PLAYERS"] == tuple(key["player"] for key in keys)
    assert pins["BUTTON_NAMES"] == tuple(key["name"] for key in keys)
    assert pins["KEYS_PULL"] is True and pins["KEYS_VALUE_WHEN_PRESSED"] is False
    assert pins["PANEL_SDA"] == ("GP4", "GP26") and pins["PANEL_SCL"] == ("GP5", "GP27")
    assert pins["PANEL_ADDRESS"] == (0x3C, 0x3C)
    assert pins["PIEZO_PIN"] == PINMAP["piezo"]["pin"]
    assert pins["LED_PIN"] == PINMAP["led"]["pin"]


def test_pins_module_is_plain_constants_the_board_can_load():
    """No imports, no calls: only names bound to tuples, ints, strings and bools."""
    with open(gen_pins.OUTPUT, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # the docstring
        assert isinstance(node, ast.Assign), ast.dump(node)
        for inner in ast.walk(node.value):
            assert isinstance(inner, (ast.Constant, ast.Tuple, ast.Load)), ast.dump(node)


def test_pins_module_is_already_ruff_formatted():
    ruff = os.path.join(ROOT, ".venv", "bin", "ruff")
    ruff = ruff if os.path.exists(ruff) else shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed")
    result = subprocess.run(
        [ruff, "format", "--check", "--quiet", gen_pins.OUTPUT],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("name", ["schematic.svg", "layout.svg"])
def test_svg_is_well_formed_xml(name):
    root = ET.parse(os.path.join(HARDWARE, name)).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"


def test_schematic_labels_every_pin_in_the_pin_map():
    root = ET.parse(os.path.join(HARDWARE, "schematic.svg")).getroot()
    labels = {element.text for element in root.iter("{http://www.w3.org/2000/svg}text")}
    text = " ".join(label for label in labels if label)
    for name in _signals():
        if name in pico_board.header_gpios():
            assert name in labels, name
            assert str(pico_board.header_pin(name)) in labels, name
    assert PINMAP["led"]["pin"] in text
    for key in PINMAP["buttons"]["keys"]:
        assert f"SW{key['key'] + 1} " in text, key


def test_pins_module_loads_under_micropython(tmp_path):
    micropython = os.path.join(ROOT, ".venv", "bin", "micropython")
    micropython = micropython if os.path.exists(micropython) else shutil.which("micropython")
    if micropython is None:
        pytest.skip("micropython is not installed")
    script = tmp_path / "load_pins.py"
    script.write_text(
        f"exec(open({gen_pins.OUTPUT!r}).read())\n"
        "print(len(BUTTON_PINS), PANEL_ADDRESS[0], PIEZO_PIN)\n"
    )
    result = subprocess.run([micropython, str(script)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["14", "60", PINMAP["piezo"]["pin"]]


# --- The build guide and the notes a parent reads (issue 31) --------------------------------


def _doc(name: str) -> str:
    with open(os.path.join(HARDWARE, name), encoding="utf-8") as f:
        return f.read()


def _shopping_list() -> list:
    """BUILD.md's shopping list: (part, needed, buy) rows."""
    text = _doc("BUILD.md")
    table = text[text.index("| Part | Needed | Buy |") :].split("\n\n")[0].splitlines()[2:]
    return [tuple(cell.strip() for cell in row.strip("|").split("|")[:3]) for row in table]


def test_the_shopping_list_has_the_cells_and_a_spare_of_the_parts_easy_to_lose():
    rows = {part: (needed, buy) for part, needed, buy in _shopping_list()}
    assert rows["AA cells"][0] == "3"
    for part in ("OLED display", "Tactile switch", "Jumper shunts", "Screws"):
        needed, buy = rows[part]
        assert int(buy.split()[0]) > int(needed.split()[0]), part


def test_the_guide_names_every_printed_part_with_its_print_settings():
    text = _doc("BUILD.md")
    for part in gen_case.PARTS:
        assert f"case/case-{part}.stl" in text, part
    for setting in ("0.2 mm layers", "3 perimeters", "20 %", "no supports", "220 x 220 mm"):
        assert setting in text, setting


def test_the_guide_shunt_table_is_the_boards_two_pin_orders():
    import pcb_layout

    text = _doc("BUILD.md")
    for order in pcb_layout.SHUNT_ORDERS:
        assert f"| {order} | **" in text, order
    assert "DS hole 1 beeps to Pico pin 38" in text  # the meter check before the module


def test_the_guide_covers_lipo_leads_order_number_headers_the_door_and_the_release():
    text = _doc("BUILD.md")
    for words in (
        "**Never a LiPo**",
        "Trim every lead on the underside",
        "`JLCJLCJLCJLC`",
        "Surface finish",
        "loose in the\n  bag",
        "Changing the cells",
        "holder's own switch",
        "(../../../releases/latest)",
    ):
        assert words in text, words
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        assert "(../../releases/latest)" in f.read()


def test_fresh_alkaline_cells_are_given_as_about_4_6_to_4_8_volts():
    assert "about 4.6-4.8 V fresh alkaline" in _doc("ELECTRICAL.md")
    assert "+4.6 to +4.8 V with fresh alkaline cells" in _doc("BUILD.md")
    assert "4.5 V fresh" not in _doc("ELECTRICAL.md") + _doc("BUILD.md")
