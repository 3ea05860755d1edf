"""The PCB and the case agree with the pin map and with each other.

The committed board file (hardware/pcb/speedduo.kicad_pcb) is read back as text, so
the net and case checks run everywhere; the regeneration checks need KiCad 6's
pcbnew (Debian's /usr/bin/python3 after `apt-get install kicad kicad-footprints`) or
OpenSCAD, and are skipped with the reason where those are missing
(.ci/install-hardware-tools installs them).
"""

import copy
import math
import os
import re
import shutil
import subprocess
import sys
import zipfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HARDWARE = os.path.join(ROOT, "hardware")
sys.path.insert(0, HARDWARE)

import gen_case  # noqa: E402
import pcb_layout  # noqa: E402
import pico_board  # noqa: E402

PINMAP = pico_board.load_pinmap()
PCB_DIR = os.path.join(HARDWARE, "pcb")
BOARD_FILE = os.path.join(PCB_DIR, "speedduo.kicad_pcb")
CENTRE = (148.5, 105.0)  # gen_pcb.CENTRE: where the board's centre sits on KiCad's page
KICAD_PYTHON = os.environ.get("SPEEDDUO_KICAD_PYTHON", "/usr/bin/python3")
CLEARANCE = 0.2
GND_PIN = pico_board.HEADER.index("GND") + 1


def _kicad_python_has_pcbnew() -> bool:
    if not os.path.exists(KICAD_PYTHON):
        return False
    probe = subprocess.run([KICAD_PYTHON, "-c", "import pcbnew"], capture_output=True)
    return probe.returncode == 0


# --- Reading the board file back -----------------------------------------------------------


def _parse(text: str) -> list:
    """A KiCad S-expression as nested lists of strings."""
    stack = [[]]
    for token in re.findall(r'\(|\)|"(?:[^"\\]|\\.)*"|[^\s()]+', text):
        if token == "(":
            stack.append([])
        elif token == ")":
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(token[1:-1] if token.startswith('"') else token)
    return stack[0][0]


def _children(node: list, name: str) -> list:
    return [child for child in node if isinstance(child, list) and child and child[0] == name]


def _footprints() -> dict:
    """ref -> {'name', 'at': (x, y, angle) in board coordinates, 'pads': [(number, net)]}."""
    with open(BOARD_FILE, encoding="utf-8") as f:
        board = _parse(f.read())
    found = {}
    for fp in _children(board, "footprint"):
        ref = next(t[2] for t in _children(fp, "fp_text") if t[1] == "reference")
        at = _children(fp, "at")[0]
        angle = float(at[3]) if len(at) > 3 else 0.0
        pads = []
        for pad in _children(fp, "pad"):
            net = _children(pad, "net")
            pads.append((pad[1], net[0][2] if net else None))
        position = (float(at[1]) - CENTRE[0], float(at[2]) - CENTRE[1], angle)
        found[ref] = {"name": fp[1], "at": position, "pads": pads}
    return found


FOOTPRINTS = _footprints()


def _net(ref: str, number: str) -> str:
    nets = {net for n, net in FOOTPRINTS[ref]["pads"] if n == number}
    assert len(nets) == 1, (ref, number, nets)
    return nets.pop()


def _pico(header_pin: int) -> str:
    return _net("U1", str(header_pin))


def _local_to_board(ref: str, dx: float, dy: float) -> tuple:
    """A point given in a footprint's own frame, on the board (KiCad: y down, angle CCW)."""
    x, y, angle = FOOTPRINTS[ref]["at"]
    a = math.radians(angle)
    return (x + dx * math.cos(a) + dy * math.sin(a), y - dx * math.sin(a) + dy * math.cos(a))


# --- Nets against the pin map ---------------------------------------------------------------


def test_every_key_switch_joins_its_gpio_pin_and_ground():
    ground = _pico(GND_PIN)
    for key in PINMAP["buttons"]["keys"]:
        ref = f"SW{key['key'] + 1}"
        nets = sorted(net for _n, net in FOOTPRINTS[ref]["pads"])
        gpio = _pico(key["header_pin"])
        assert nets == sorted([gpio, gpio, ground, ground]), (ref, key)


def test_each_key_has_a_gpio_net_of_its_own():
    nets = [_pico(key["header_pin"]) for key in PINMAP["buttons"]["keys"]]
    assert len(set(nets)) == len(nets)


def test_each_panel_header_reaches_its_i2c_pins_and_power_through_the_jumpers():
    ground = _pico(PINMAP["panels"][0]["header_pins"]["gnd"])
    supply = _pico(PINMAP["panels"][0]["header_pins"]["vcc"])
    assert pico_board.HEADER[PINMAP["panels"][0]["header_pins"]["vcc"] - 1] == "3V3"
    for panel in PINMAP["panels"]:
        player = panel["player"]
        header = f"DS{player + 1}"
        assert _net(header, "3") == _pico(panel["header_pins"]["scl"])
        assert _net(header, "4") == _pico(panel["header_pins"]["sda"])
        assert _pico(panel["header_pins"]["gnd"]) == ground
        for which, (x_side, y_side) in enumerate(((ground, supply), (supply, ground))):
            jumper = f"JP{2 * player + which + 1}"
            assert _net(jumper, "2") == _net(header, str(which + 1)), jumper
            assert (_net(jumper, "1"), _net(jumper, "3")) == (x_side, y_side), jumper


def test_the_piezo_sits_between_its_pwm_pin_and_ground():
    piezo = PINMAP["piezo"]
    assert _net("BZ1", "1") == _pico(piezo["header_pin"])
    assert _net("BZ1", "2") == _pico(piezo["gnd_header_pin"])


def test_the_battery_reaches_vsys_only_through_the_switch_and_the_diode():
    vsys = _pico(pico_board.header_pin("VSYS"))
    assert _net("D1", "1") == vsys  # cathode
    assert _net("SW15", "1") == _net("D1", "2")  # switch "on" side to the anode
    assert _net("SW15", "2") == _net("J1", "2")  # common to battery +
    assert _net("J1", "1") == _pico(GND_PIN)
    assert vsys not in (_net("J1", "2"), _net("SW15", "1"))


def test_no_pico_pin_outside_the_pin_map_is_connected():
    used = set(pcb_layout.net_names(PINMAP))
    for number, net in FOOTPRINTS["U1"]["pads"]:
        if int(number) not in used:
            assert net is None, (number, net)


# --- The layout itself ----------------------------------------------------------------------


def _segments(pinmap):
    for route in pcb_layout.routes(pinmap):
        points = route["points"]
        for start, end in zip(points, points[1:], strict=False):
            yield route, start, end


def _gap(a_start, a_end, b_start, b_end) -> float:
    """Distance between two axis-aligned segments."""
    ax0, ax1 = sorted((a_start[0], a_end[0]))
    ay0, ay1 = sorted((a_start[1], a_end[1]))
    bx0, bx1 = sorted((b_start[0], b_end[0]))
    by0, by1 = sorted((b_start[1], b_end[1]))
    dx = max(0.0, max(ax0, bx0) - min(ax1, bx1))
    dy = max(0.0, max(ay0, by0) - min(ay1, by1))
    return math.hypot(dx, dy)


def _tracks_too_close(pinmap) -> list:
    """(net, net) of every two tracks of different nets on one layer nearer than the rules."""
    segments = list(_segments(pinmap))
    found = []
    for i, (route_a, a0, a1) in enumerate(segments):
        for route_b, b0, b1 in segments[i + 1 :]:
            if route_a["net"] == route_b["net"] or route_a["layer"] != route_b["layer"]:
                continue
            room = (route_a["width"] + route_b["width"]) / 2 + CLEARANCE
            if _gap(a0, a1, b0, b1) < room:
                found.append((route_a["net"], route_b["net"]))
    return found


def test_every_track_runs_straight_across_or_along_the_board():
    for route, start, end in _segments(PINMAP):
        assert start[0] == end[0] or start[1] == end[1], (route["net"], start, end)


def test_no_two_tracks_of_different_nets_come_closer_than_the_clearance():
    assert _tracks_too_close(PINMAP) == []


def test_a_key_moved_to_the_other_players_side_makes_tracks_meet():
    """The routes are computed, not searched: a pin map they do not suit is caught here."""
    moved = copy.deepcopy(PINMAP)
    keys = moved["buttons"]["keys"]
    for field in ("pin", "header_pin"):
        keys[0][field], keys[7][field] = keys[7][field], keys[0][field]
    assert _tracks_too_close(moved)


def test_seven_switches_fit_across_the_board_with_room_for_the_edge():
    span = 6 * pcb_layout.KEY_PITCH + 16.0  # the switch footprint's courtyard is 16 mm wide
    assert span <= pcb_layout.BOARD_W - 2 * 2.0


# --- The case against the board -------------------------------------------------------------


def _scad_value(name: str):
    with open(gen_case.OUTPUT, encoding="utf-8") as f:
        text = f.read()
    found = re.search(rf"^{name} = (.*);$", text, re.M)
    assert found, name
    numbers = [float(n) for n in re.findall(r"-?\d+\.?\d*", found.group(1))]
    if found.group(1).startswith("[["):
        return [(numbers[i], -numbers[i + 1]) for i in range(0, len(numbers), 2)]
    return (numbers[0], -numbers[1]) if len(numbers) == 2 else numbers[0]


def _near(a, b, tolerance=0.01) -> bool:
    return math.dist(a, b) <= tolerance


def test_each_key_hole_is_on_its_switch_centre():
    holes = _scad_value("keys")
    assert len(holes) == len(PINMAP["buttons"]["keys"])
    for key in PINMAP["buttons"]["keys"]:
        ref = f"SW{key['key'] + 1}"
        centre = _local_to_board(ref, 6.25, 2.5)  # SW_PUSH-12mm: body centre from pad 1
        assert _near(holes[key["key"]], centre), (ref, holes[key["key"]], centre)


def test_the_lid_screw_holes_are_on_the_mounting_holes():
    holes = sorted(_scad_value("holes"))
    mounts = sorted(FOOTPRINTS[f"H{n}"]["at"][:2] for n in range(1, 5))
    assert len(holes) == 4
    for hole, mount in zip(holes, mounts, strict=True):
        assert _near(hole, mount), (hole, mount)


def test_each_window_is_over_its_panel_header():
    windows = _scad_value("windows")
    for player, window in enumerate(windows):
        ref = f"DS{player + 1}"
        first, last = _local_to_board(ref, 0, 0), _local_to_board(ref, 0, 3 * 2.54)
        header_x = (first[0] + last[0]) / 2
        inward = 1 if player == 0 else -1  # the module hangs from its header towards its player
        assert abs(window[0] - header_x) < 0.01
        assert 8.0 < inward * (window[1] - first[1]) < 20.0


def test_usb_bootsel_and_power_switch_openings_are_over_their_parts():
    x, y, _angle = FOOTPRINTS["U1"]["at"]
    usb = _scad_value("usb")
    assert _near(usb, (x - pcb_layout.PICO_LEN / 2, y))
    assert usb[0] == -pcb_layout.BOARD_W / 2  # the plug goes in through the wall
    bootsel = _scad_value("bootsel")
    assert abs(bootsel[0] - x) < pcb_layout.PICO_LEN / 2
    assert abs(bootsel[1] - y) < pcb_layout.PICO_W / 2
    switch = _scad_value("power_switch")
    assert _near(switch, _local_to_board("SW15", 2.0, 0))  # the common pin, mid-travel


def test_the_lid_clears_the_tallest_part_under_it():
    # Pico H soldered on its headers: 2.5 mm spacer + 1 mm board + 2.8 mm micro-USB socket;
    # PS1240 piezo 6.5 mm; a key's flange rests on the 7.3 mm plunger.
    tallest = max(2.5 + 1.0 + 2.8, 6.5, gen_case.STACK["plunger_top"] + 1.0)
    assert gen_case.STACK["lid_gap"] > tallest


# --- The fab files -------------------------------------------------------------------------


def test_gerber_zip_holds_every_layer_a_fab_house_needs_and_the_drill_files():
    with zipfile.ZipFile(os.path.join(PCB_DIR, "speedduo-gerbers.zip")) as archive:
        names = {name.rsplit(".", 1)[1] for name in archive.namelist()}
    assert {"gtl", "gbl", "gts", "gbs", "gto", "gbo", "gm1"} <= names
    assert "drl" in names


def test_gerber_outline_is_the_board_size():
    with zipfile.ZipFile(os.path.join(PCB_DIR, "speedduo-gerbers.zip")) as archive:
        outline = archive.read("speedduo-Edge_Cuts.gm1").decode()
    assert "%MOMM*%" in outline and "%FSLAX46Y46*%" in outline  # mm, 6 decimals
    points = [(int(x), int(y)) for x, y in re.findall(r"X(-?\d+)Y(-?\d+)D0[12]", outline)]
    width = (max(p[0] for p in points) - min(p[0] for p in points)) / 1e6
    height = (max(p[1] for p in points) - min(p[1] for p in points)) / 1e6
    assert (width, height) == (pcb_layout.BOARD_W, pcb_layout.BOARD_H)


# --- Regenerating ---------------------------------------------------------------------------


def test_pcb_generator_refuses_a_broken_pin_map_in_one_line(tmp_path):
    broken = tmp_path / "pinmap.json"
    broken.write_text('{"board": "raspberry_pi_pico"')
    result = subprocess.run(
        [sys.executable, os.path.join(HARDWARE, "gen_pcb.py"), "--pinmap", str(broken)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1
    assert result.stderr.startswith("error: cannot read") and result.stderr.count("\n") == 1


@pytest.mark.skipif(not _kicad_python_has_pcbnew(), reason="KiCad 6 pcbnew is not installed")
def test_pcb_regenerates_identically_with_a_clean_design_rule_check(tmp_path):
    result = subprocess.run(
        [KICAD_PYTHON, os.path.join(HARDWARE, "gen_pcb.py"), "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "DRC: 0 violations, 0 unconnected pads\n" in result.stdout
    for name in sorted(os.listdir(PCB_DIR)):
        with open(os.path.join(PCB_DIR, name), "rb") as f:
            committed = f.read()
        assert (tmp_path / name).read_bytes() == committed, (
            f"hardware/pcb/{name} is stale: run /usr/bin/python3 hardware/gen_pcb.py --pictures"
        )


@pytest.mark.skipif(shutil.which("openscad") is None, reason="OpenSCAD is not installed")
def test_case_stl_regenerates_identically(tmp_path):
    stl = tmp_path / "case.stl"
    assert gen_case.write_stl(gen_case.OUTPUT, str(stl)) == 0
    with open(gen_case.STL, "rb") as f:
        assert stl.read_bytes() == f.read(), "case.stl is stale: run gen_case.py --stl"
