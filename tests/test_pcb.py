"""The PCB and the case agree with the pin map and with each other.

The committed board file (hardware/pcb/speedduo.kicad_pcb) is read back as text, so
the net and case checks run everywhere; the regeneration checks need KiCad 6's
pcbnew (Debian's /usr/bin/python3 after `apt-get install kicad kicad-footprints`) or
OpenSCAD, and are skipped with the reason where those are missing
(.ci/install-hardware-tools installs them).
"""

import copy
import csv
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
import gen_pcb  # noqa: E402
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
        pads, shapes = [], []
        for pad in _children(fp, "pad"):
            net = _children(pad, "net")
            pads.append((pad[1], net[0][2] if net else None))
            pad_at, size = _children(pad, "at")[0], _children(pad, "size")[0]
            local = (float(pad_at[1]), float(pad_at[2]))
            shapes.append((pad[1], net[0][2] if net else None, local, float(size[1])))
        courtyard = []
        for kind in ("fp_line", "fp_circle"):
            for item in _children(fp, kind):
                if _children(item, "layer")[0][1] not in ("F.CrtYd", "B.CrtYd"):
                    continue
                if kind == "fp_line":
                    for end in ("start", "end"):
                        point = _children(item, end)[0]
                        courtyard.append((float(point[1]), float(point[2])))
                else:
                    (cx, cy), (ex, ey) = [
                        (float(_children(item, n)[0][1]), float(_children(item, n)[0][2]))
                        for n in ("center", "end")
                    ]
                    r = math.dist((cx, cy), (ex, ey))
                    courtyard += [(cx - r, cy), (cx + r, cy), (cx, cy - r), (cx, cy + r)]
        position = (float(at[1]) - CENTRE[0], float(at[2]) - CENTRE[1], angle)
        found[ref] = {
            "name": fp[1],
            "at": position,
            "pads": pads,
            "pad_shapes": shapes,
            "courtyard": courtyard,
        }
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


def _pads_on_board(refs) -> list:
    """(ref, number, net, (x, y) on the board, size) of every pad of the footprints refs."""
    found = []
    for ref in refs:
        for number, net, local, size in FOOTPRINTS[ref]["pad_shapes"]:
            found.append((ref, number, net, _local_to_board(ref, *local), size))
    return found


def _joined(links) -> callable:
    """find(net) over the board's nets joined by links (pairs of nets): a shunt, a blob."""
    parent = {}

    def find(net):
        parent.setdefault(net, net)
        while parent[net] != net:
            net = parent[net]
        return net

    for a, b in links:
        parent[find(a)] = find(b)
    return find


def _chooser_pins(player: int) -> dict:
    """{net of the pin: its position} of chooser JP1 (Player 1) or JP2, read from the board."""
    return {net: xy for _r, _n, net, xy, _s in _pads_on_board([f"JP{player + 1}"])}


def _shunt_places(player: int) -> list:
    """Every pair of the chooser's pins a 2.54 mm shunt fits on (as a pair of nets)."""
    pins = list(_chooser_pins(player).items())
    return [
        (a, b)
        for i, (a, xy_a) in enumerate(pins)
        for b, xy_b in pins[i + 1 :]
        if abs(math.dist(xy_a, xy_b) - 2.54) < 0.01
    ]


def _shunt_settings(player: int) -> list:
    """Every way to put shunts on the chooser: sets of its places that share no pin."""
    places = _shunt_places(player)
    settings = [[]]
    for place in places:
        settings += [s + [place] for s in settings if not {p for q in s for p in q} & set(place)]
    return settings


def test_each_panel_header_reaches_its_i2c_pins_and_power_through_the_chooser():
    for panel in PINMAP["panels"]:
        player = panel["player"]
        header = f"DS{player + 1}"
        assert _net(header, "3") == _pico(panel["header_pins"]["scl"])
        assert _net(header, "4") == _pico(panel["header_pins"]["sda"])
        nets = set(_chooser_pins(player))
        assert nets == {"+3V3", "GND", _net(header, "1"), _net(header, "2")}, nets


def test_each_printed_pin_order_has_a_shunt_setting_that_powers_the_module_the_right_way():
    ground, supply = _pico(38), _pico(36)
    assert pico_board.HEADER[35] == "3V3" and pico_board.HEADER[37] == "GND"
    for player in (0, 1):
        header = f"DS{player + 1}"
        pin1, pin2 = _net(header, "1"), _net(header, "2")
        role = {"OLED1": pin1, "OLED2": pin2, "3V3": "+3V3", "GND": "GND"}
        places = set(map(frozenset, _shunt_places(player)))
        for order, shunts in pcb_layout.SHUNT_ORDERS.items():
            links = [(role[a], role[b]) for a, b in shunts]
            assert {frozenset(link) for link in links} <= places, (order, links)
            find = _joined(links)
            wanted = {"GND": ground, "VCC": supply}
            first, second = order.split()[:2]
            assert find(pin1) == find(wanted[first]) and find(pin2) == find(wanted[second])


def test_no_shunt_setting_joins_3v3_and_ground():
    """Walk the copper: every way the shunts fit, 3V3 and GND stay apart (issue 31)."""
    for player in (0, 1):
        settings = _shunt_settings(player)
        assert len(settings) == 7  # none, 4 single shunts, the two orders
        for setting in settings:
            find = _joined(setting)
            assert find("+3V3") != find("GND"), (player, setting)


BLOB_REACH = 1.0  # mm of bare board a blob or a slip of the iron may bridge (a solder
# jumper's gap, made for one blob to bridge, is 0.3 mm)


def test_no_blob_joins_3v3_and_ground_at_the_chooser_and_the_display_header():
    """No setting plus one blob: every pad pair within BLOB_REACH, and every pad within
    reach of two others (a blob over three pads), leaves 3V3 and GND apart."""
    for player in (0, 1):
        pads = _pads_on_board([f"JP{player + 1}", f"DS{player + 1}"])
        near = []
        for i, (_r, _n, net_a, xy_a, size_a) in enumerate(pads):
            for _r2, _n2, net_b, xy_b, size_b in pads[i + 1 :]:
                # pads as squares (conservative): the gap along the nearer axis
                gap = max(abs(xy_a[0] - xy_b[0]), abs(xy_a[1] - xy_b[1])) - (size_a + size_b) / 2
                if gap <= BLOB_REACH:
                    near.append((net_a, net_b))
        blobs = near + [(a, c) for a, b in near for b2, c in near if b == b2 and a != c]
        for setting in _shunt_settings(player):
            for blob in blobs:
                find = _joined(setting + [blob])
                assert find("+3V3") != find("GND"), (player, setting, blob)


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
@pytest.mark.parametrize("part", gen_case.PARTS)
def test_case_stl_regenerates_identically(tmp_path, part):
    stl = tmp_path / "part.stl"
    assert gen_case.write_stl(gen_case.OUTPUT, str(stl), part) == 0
    with open(gen_case.stl_path(part), "rb") as f:
        assert stl.read_bytes() == f.read(), f"case-{part}.stl is stale: run gen_case.py --stl"


# --- Silkscreen ------------------------------------------------------------------------------


def _silk_texts() -> list:
    """(text, layer, height, stroke, (x, y)) of every visible text on a silkscreen layer."""
    with open(BOARD_FILE, encoding="utf-8") as f:
        board = _parse(f.read())
    items = [(text, None) for text in _children(board, "gr_text")]
    for fp in _children(board, "footprint"):
        ref = next(t[2] for t in _children(fp, "fp_text") if t[1] == "reference")
        items += [(text, ref) for text in _children(fp, "fp_text")]
    found = []
    for text, ref in items:
        layer = _children(text, "layer")[0][1]
        if not layer.endswith("SilkS") or "hide" in text:
            continue
        font = _children(_children(text, "effects")[0], "font")[0]
        size, thickness = _children(font, "size")[0], _children(font, "thickness")[0]
        at = _children(text, "at")[0]
        words = text[2] if ref else text[1]
        xy = (float(at[1]) - CENTRE[0], float(at[2]) - CENTRE[1])
        if ref:
            xy = _local_to_board(ref, float(at[1]), float(at[2]))
        found.append((words, layer, float(size[1]), float(thickness[1]), xy))
    return found


def test_every_silkscreen_text_is_at_least_1_mm_high_with_a_0_15_mm_stroke():
    """Fabs print silkscreen text down to 1.0 mm height and 0.15 mm stroke (issue 31)."""
    texts = _silk_texts()
    assert len(texts) > 40
    small = [(w, h, t) for w, _layer, h, t, _xy in texts if h < 1.0 or t < 0.15]
    assert small == []


def test_the_battery_socket_says_3_aa_only_no_lipo_on_both_sides():
    jst = FOOTPRINTS["J1"]["at"][:2]
    for layer in ("F.SilkS", "B.SilkS"):
        near = [
            w for w, lay, _h, _t, xy in _silk_texts() if lay == layer and math.dist(xy, jst) < 12
        ]
        assert any("LiPo" in w and "AA" in w for w in near), (layer, near)


# --- BOOTSEL -------------------------------------------------------------------------------

# Raspberry Pi Pico Datasheet, Figure 3 (the Pico's dimensions): BOOTSEL's centre 14.5 mm
# from the USB end, 5.5 mm in from the long edge on the pin-1 side (21 mm wide board).
DATASHEET_BOOTSEL_FROM_USB_END = 14.5
DATASHEET_BOOTSEL_FROM_EDGE = 5.5


def test_bootsel_hole_is_within_half_a_millimetre_of_the_datasheet_position():
    pads = {number: xy for _r, number, _net, xy, _s in _pads_on_board(["U1"])}
    centre = tuple(sum(xy[i] for xy in pads.values()) / 40 for i in (0, 1))
    usb_end = centre[0] - pcb_layout.PICO_LEN / 2  # the USB end is the board's left edge
    assert pads["1"][0] < centre[0] and pads["1"][1] > centre[1]  # pin 1: USB end, +y side
    expected = (
        usb_end + DATASHEET_BOOTSEL_FROM_USB_END,
        centre[1] + pcb_layout.PICO_W / 2 - DATASHEET_BOOTSEL_FROM_EDGE,
    )
    assert math.dist(_scad_value("bootsel"), expected) <= 0.5, (_scad_value("bootsel"), expected)


# --- Assembly files ------------------------------------------------------------------------


def _csv(name: str) -> list:
    with open(os.path.join(PCB_DIR, name), newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_placement_gives_each_parts_centre_side_and_rotation_in_jlcpcb_columns():
    rows = _csv("speedduo-cpl.csv")
    assert list(rows[0]) == ["Designator", "Mid X", "Mid Y", "Layer", "Rotation"]
    half_w, half_h = pcb_layout.BOARD_W / 2, pcb_layout.BOARD_H / 2
    for row in rows:
        fp = FOOTPRINTS[row["Designator"]]
        corners = [_local_to_board(row["Designator"], *xy) for xy in fp["courtyard"]]
        assert corners, row
        cx = (min(x for x, _y in corners) + max(x for x, _y in corners)) / 2
        cy = (min(y for _x, y in corners) + max(y for _x, y in corners)) / 2
        placed = (float(row["Mid X"].removesuffix("mm")), float(row["Mid Y"].removesuffix("mm")))
        assert math.dist(placed, (cx + half_w, half_h - cy)) < 0.011, (row, cx, cy)
        assert float(row["Rotation"]) == fp["at"][2] % 360
        assert row["Layer"] == ("Bottom" if row["Designator"] == "J1" else "Top")


def test_assembly_bom_lists_every_placed_part_with_its_distributor_numbers():
    bom = _csv("speedduo-bom.csv")
    assert list(bom[0])[:4] == ["Comment", "Designator", "Footprint", "LCSC Part #"]
    listed = [ref for row in bom for ref in row["Designator"].split(",")]
    placed = [row["Designator"] for row in _csv("speedduo-cpl.csv")]
    assert sorted(listed) == sorted(placed)
    wanted = {f"SW{n}" for n in range(1, 16)} | {"BZ1", "D1", "J1"}
    assert set(placed) == wanted  # the Pico, the displays and the chooser are hand-fitted
    for row in bom:
        assert row["MPN"] and row["Manufacturer"], row
        # an LCSC number, or a note saying it could not be checked
        assert re.fullmatch(r"C\d+", row["LCSC Part #"]) or "not verified" in row["Notes"], row
        # and a distributor's own number for every part: LCSC's, else Mouser's or Digi-Key's
        assert re.fullmatch(r"C\d+", row["LCSC Part #"]) or re.search(
            r"also (Mouser|Digi-Key) \S+", row["Notes"]
        ), row


def test_assembly_bom_is_rebuilt_byte_for_byte_from_the_board_and_the_hand_bom():
    """bom.csv edits reach speedduo-bom.csv without KiCad: gen_pcb.py --bom-only."""
    with open(BOARD_FILE, encoding="utf-8") as f:
        placed = gen_pcb.placed_on_board_file(f.read())
    assert [ref for ref, _name in placed] == [row["Designator"] for row in _csv("speedduo-cpl.csv")]
    assert all(name == FOOTPRINTS[ref]["name"] for ref, name in placed)
    with open(os.path.join(PCB_DIR, "speedduo-bom.csv"), encoding="utf-8") as f:
        committed = f.read()
    rebuilt = gen_pcb.assembly_bom(placed, pico_board.bom_by_ref())
    assert rebuilt == committed, "run: python3 hardware/gen_pcb.py --bom-only"


def test_every_placed_part_is_in_the_hand_bom_with_the_same_part_number():
    parts = pico_board.bom_by_ref()
    for row in _csv("speedduo-bom.csv"):
        for ref in row["Designator"].split(","):
            assert parts[ref]["part_number"] == row["MPN"], ref
            assert parts[ref]["lcsc_part"] == row["LCSC Part #"], ref


# --- The printed parts ---------------------------------------------------------------------


def _stl(part: str) -> tuple:
    """(normals, triangles) of a committed case STL."""
    with open(gen_case.stl_path(part), encoding="utf-8") as f:
        text = f.read()
    number = r"(\S+)\s+(\S+)\s+(\S+)"
    normals = [tuple(map(float, n)) for n in re.findall(r"facet normal\s+" + number, text)]
    vertices = [tuple(map(float, v)) for v in re.findall(r"vertex\s+" + number, text)]
    return normals, [vertices[i : i + 3] for i in range(0, len(vertices), 3)]


@pytest.mark.parametrize("part", gen_case.PARTS)
def test_each_printed_part_fits_a_220_mm_bed(part):
    _normals, triangles = _stl(part)
    points = [p for tri in triangles for p in tri]
    width = max(p[0] for p in points) - min(p[0] for p in points)
    depth = max(p[1] for p in points) - min(p[1] for p in points)
    assert min(p[2] for p in points) == 0.0  # lying on the bed
    assert width <= gen_case.BED and depth <= gen_case.BED, (part, width, depth)


def _overhangs(part: str) -> list:
    """Triangles above the bed that face down more steeply than 45 degrees."""
    normals, triangles = _stl(part)
    return [
        tri
        for normal, tri in zip(normals, triangles, strict=True)
        if normal[2] < -math.cos(math.radians(45)) + 1e-6 and min(p[2] for p in tri) > 1e-3
    ]


@pytest.mark.parametrize("part", ["door", "lid", "keys"])
def test_the_door_lid_and_keys_print_without_supports(part):
    assert _overhangs(part) == []


def test_the_tray_prints_without_supports_its_one_bridge_under_50_mm():
    """The door's slot through the wall is bridged: flat, both ends standing, 48.7 mm."""
    overhangs = _overhangs("tray")
    assert overhangs
    points = [p for tri in overhangs for p in tri]
    assert {round(p[2], 2) for p in points} == {round(gen_case.STACK["floor_t"] + 0.49, 2)}
    span = max(p[1] for p in points) - min(p[1] for p in points)
    assert span < 50.0
    outer = pcb_layout.BOARD_W / 2 + gen_case.STACK["board_gap"] + gen_case.STACK["wall"]
    assert all(-outer - 0.01 <= p[0] <= -outer + gen_case.STACK["wall"] + 0.01 for p in points)


def test_the_battery_door_closes_the_bay_and_slides_out_through_the_wall():
    """The door, printed as it sits in the tray, reaches from the wall past the bay's end."""
    _normals, triangles = _stl("door")
    points = [p for tri in triangles for p in tri]
    stack = gen_case.STACK
    outer = pcb_layout.BOARD_W / 2 + stack["board_gap"] + stack["wall"]
    bay_x, _bay_y = stack["battery_bay_xy"]
    assert min(p[0] for p in points) == -outer - stack["door_pull"]  # its pull, outside
    assert (
        bay_x - stack["battery_bay"][0] / 2 < max(p[0] for p in points) <= stack["door_inner_end"]
    )
    assert stack["door_w"] + 2 * stack["floor_t"] < stack["battery_bay"][1]


def test_the_battery_doors_catch_stands_behind_the_wall_above_the_slot():
    """Shut, the catch's upright face is just inside the wall and higher than the slot
    it rode under (the tongue springs back): pulled, it goes back the same way."""
    _normals, triangles = _stl("door")
    stack = gen_case.STACK
    outer = pcb_layout.BOARD_W / 2 + stack["board_gap"] + stack["wall"]
    slot_top = stack["floor_t"] + 0.5  # the wall slot: 0.5 mm over the door's inside face
    catch = [p for tri in triangles for p in tri if p[2] > slot_top + 0.01]
    assert catch and max(p[2] for p in catch) - slot_top >= 0.3
    assert min(p[0] for p in catch) > -outer + stack["wall"]  # behind the wall's inner face
    assert max(abs(p[1] - stack["battery_bay_xy"][1]) for p in catch) <= stack["door_tongue"][0] / 2
    assert max(p[0] for p in catch) < -outer + stack["door_tongue"][1]  # on the free tongue


def test_the_bom_gives_the_power_switch_the_pitch_of_its_footprint():
    pads = {number: xy for _r, number, _net, xy, _s in _pads_on_board(["SW15"]) if number}
    pitch = round(math.dist(pads["1"], pads["2"]), 2)
    assert pitch == 2.0
    assert f"{pitch:.1f} mm pitch" in pico_board.bom_by_ref()["SW15"]["value"]


def test_the_order_number_mark_on_the_back_is_the_one_the_guide_names():
    marks = [w for w, layer, *_rest in _silk_texts() if w == "JLCJLCJLCJLC"]
    assert [layer for w, layer, *_rest in _silk_texts() if w == "JLCJLCJLCJLC"] == ["B.SilkS"]
    assert marks
    with open(os.path.join(HARDWARE, "BUILD.md"), encoding="utf-8") as f:
        assert "`JLCJLCJLCJLC`" in f.read()
