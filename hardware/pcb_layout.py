"""Where every part and every track of the Speed Duo PCB goes, computed from the pin map.

Plain CPython (no KiCad): gen_pcb.py turns this into a KiCad board with pcbnew,
gen_case.py turns the same numbers into the OpenSCAD case, and the tests compare
both against it. Units are millimetres; x runs to the right and y *down* as Player 1
sees the board (KiCad's convention), with (0, 0) at the board's centre. Player 1
sits at the bottom edge (+y), Player 2 at the top edge (-y); Player 2's side is
Player 1's turned 180 degrees about the centre.

Routing is fixed and regular (no autorouter): signals run as Manhattan tracks on
F.Cu, with a short hop on B.Cu where two must cross; B.Cu is a ground pour, so
every ground pin (all through-hole) needs no track.
"""

import pico_board

BOARD_W = 124.0
BOARD_H = 124.0
KEY_PITCH = 16.5  # the switch footprint's courtyard is 16 mm wide
KEY_ROW_Y = 50.0  # Player 1's row of switches; Player 2's is at -KEY_ROW_Y
SWITCH_PAD_DX = 6.25  # SW_PUSH-12mm: pads 12.5 x 5 mm apart around the body centre
SWITCH_PAD_DY = 2.5

PICO_LEN = 51.0
PICO_W = 21.0
PICO_ROW_GAP = 17.78
PIN_PITCH = 2.54
PICO_X = -BOARD_W / 2 + PICO_LEN / 2  # USB end flush with the left edge
PICO_Y = 0.0
# BOOTSEL's centre, from the Pico's USB end and from its centre line (pins 1-20 side +).
# Raspberry Pi Pico Datasheet, chapter 2 "Mechanical Specification", Figure 3 ("The
# dimensions of the Raspberry Pi Pico Rev3 board"): the board is 51 x 21 mm, 1 mm thick,
# its 40 pins on a 2.54 mm grid in two rows 17.78 mm apart (1.37 mm from each short
# edge), mounting holes 2.1 mm at 2.0 mm from the short edges and 11.4 mm apart. The
# button (3.4 x 4.3 mm body) sits 14.5 mm from the USB end and 5.5 mm in from the long
# edge on the pin-1 side, so 21 / 2 - 5.5 = 5.0 mm off the centre line (the same figure
# as redrawn in public Pico models, e.g. Alan Reed's OpenSCAD Pico volume model).
BOOTSEL_FROM_USB_END = 14.5
BOOTSEL_FROM_CENTRE = PICO_W / 2 - 5.5

PANEL_HEADER_Y = 17.0  # Player 1's panel header row; Player 2's at -PANEL_HEADER_Y
MODULE_W = 27.3  # generic 0.96 in SSD1306 module
MODULE_H = 27.8
MODULE_HEADER_INSET = 1.8  # header pin centres from the module's top edge
WINDOW_W = 25.0  # visible area 21.7 x 10.9 mm plus a margin
WINDOW_H = 14.0
WINDOW_FROM_HEADER = 12.5  # window centre below the header row

# The pin-order chooser: a 2 x 2 pin header between the Pico and the panel header, set
# with two 2.54 mm shunts. Its corners, as that player sees it:
#   3V3    OLED2        shunts across (both rows):  OLED1 = GND, OLED2 = 3V3
#   OLED1  GND          shunts up-down (both columns): OLED1 = 3V3, OLED2 = GND
# 3V3 and GND sit on a diagonal, which no shunt can span and no two shunts can join
# (each would need a pin the other holds); its pads are 1.5 mm (gaps over 1 mm).
CHOOSER_X = (-8.89, -6.35)  # left and right column
CHOOSER_Y = (11.13, 13.67)  # row nearer the Pico, row nearer the panel header
CHOOSER_PAD = 1.5
CHOOSER_DRILL = 1.0
CHOOSER_HOP_Y = 9.3  # Player 1's 3V3 comes up on B.Cu to here, under their SDA/SCL

LANE_Y = {"SDA0": 2.0, "SCL0": 4.0, "3V3": 0.0, "SDA1": -4.0, "SCL1": -2.0}
CHANNEL_Y0 = 21.0  # first key channel below the panel header
CHANNEL_PITCH = 2.0
PIEZO_LANE_Y = 19.0
PIEZO_PAD = (17.5, 8.0)  # pad 1 (+); pad 2 (ground) is 5 mm to the right
PIEZO_PAD_PITCH = 5.0

# Battery path, upper left: JST-PH socket -> slide switch -> Schottky -> VSYS (pin 39).
DIODE_Y = -14.0
DIODE_PITCH = 12.7
SWITCH_Y = -19.0  # pin 1; the switch stands with its pins in a column, pin 3 furthest up
SWITCH_PITCH = 2.0
SWITCH_FROM_CATHODE = 10.16  # left of the anode: its feed comes down beside the switch
JST_X = -53.0  # pin 2 (+); pin 1 (-) 2 mm to its left, in line with the switch's common
JST_PITCH = 2.0

HOLE_XY = (57.0, 35.0)  # mounting holes at (+-x, +-y)
HOLE_DRILL = 3.2

SIGNAL_W = 0.3
POWER_W = 0.5
VIA_SIZE = 0.8
VIA_DRILL = 0.4

KEY_NAMES_IN_ROW = ("L", "1", "2", "3", "4", "5", "R")


def pico_pin_xy(pin: int) -> tuple:
    """Board position of Pico header pin 1-40 (USB end to the left, pins 1-20 along the bottom)."""
    first = PICO_X - 19 * PIN_PITCH / 2
    if pin <= 20:
        return (first + (pin - 1) * PIN_PITCH, PICO_Y + PICO_ROW_GAP / 2)
    return (first + (40 - pin) * PIN_PITCH, PICO_Y - PICO_ROW_GAP / 2)


def _turn(player: int, x: float, y: float) -> tuple:
    """Player 1's side as given; Player 2's is the same point turned 180 degrees."""
    return (x, y) if player == 0 else (-x, -y)


def switch_centre(player: int, slot: int) -> tuple:
    """Body centre of the switch in position slot 0-6 (L..R from that player's left)."""
    return _turn(player, (slot - 3) * KEY_PITCH, KEY_ROW_Y)


def switch_pads(player: int, slot: int) -> dict:
    """{'gpio': [two pads nearer the Pico], 'gnd': [two pads nearer the edge]}."""
    cx, cy = switch_centre(player, slot)
    inward = -1 if player == 0 else 1
    gpio = [(cx - SWITCH_PAD_DX, cy + inward * SWITCH_PAD_DY)]
    gpio.append((cx + SWITCH_PAD_DX, cy + inward * SWITCH_PAD_DY))
    gnd = [(cx - SWITCH_PAD_DX, cy - inward * SWITCH_PAD_DY)]
    gnd.append((cx + SWITCH_PAD_DX, cy - inward * SWITCH_PAD_DY))
    return {"gpio": gpio, "gnd": gnd}


def header_pin_xy(player: int, pin: int) -> tuple:
    """Panel header pin 1-4 (pin 1 on that player's left)."""
    return _turn(player, (pin - 2.5) * PIN_PITCH, PANEL_HEADER_Y)


def module_centre(player: int) -> tuple:
    return _turn(player, 0.0, PANEL_HEADER_Y - MODULE_HEADER_INSET + MODULE_H / 2)


def window_centre(player: int) -> tuple:
    return _turn(player, 0.0, PANEL_HEADER_Y + WINDOW_FROM_HEADER)


def chooser_pins(player: int) -> dict:
    """{net role: position} of the chooser's four pins: '3V3', 'OLED1', 'OLED2', 'GND'."""
    (left, right), (near, far) = CHOOSER_X, CHOOSER_Y
    corners = {"3V3": (left, near), "OLED2": (right, near), "OLED1": (left, far)}
    corners["GND"] = (right, far)
    return {role: _turn(player, x, y) for role, (x, y) in corners.items()}


SHUNT_ORDERS = {  # the module's printed pin order -> the shunts' pairs of pins
    "GND VCC SCL SDA": (("OLED1", "GND"), ("3V3", "OLED2")),
    "VCC GND SCL SDA": (("OLED1", "3V3"), ("OLED2", "GND")),
}


def bootsel_xy() -> tuple:
    return (PICO_X - PICO_LEN / 2 + BOOTSEL_FROM_USB_END, PICO_Y + BOOTSEL_FROM_CENTRE)


def hole_positions() -> list:
    x, y = HOLE_XY
    return [(-x, -y), (x, -y), (-x, y), (x, y)]


def piezo_pads() -> tuple:
    x, y = PIEZO_PAD
    return ((x, y), (x + PIEZO_PAD_PITCH, y))


def diode_pads() -> tuple:
    """(cathode to VSYS, anode): the cathode sits straight above VSYS."""
    kx = pico_pin_xy(pico_board.header_pin("VSYS"))[0]
    return ((kx, DIODE_Y), (kx + DIODE_PITCH, DIODE_Y))


def power_switch_pads() -> tuple:
    """Pins 1 (to the diode), 2 (common, battery +), 3 (off) of the slide switch."""
    x = diode_pads()[0][0] + SWITCH_FROM_CATHODE
    return tuple((x, SWITCH_Y - n * SWITCH_PITCH) for n in range(3))


def jst_pads() -> tuple:
    """Pins 1 (battery -) and 2 (battery +): level with the switch's common."""
    y = power_switch_pads()[1][1]
    return ((JST_X - JST_PITCH, y), (JST_X, y))


def net_names(pinmap: dict) -> dict:
    """Net of every Pico header pin the design uses: {pin: net name}."""
    nets = {}
    for pin, name in enumerate(pico_board.HEADER, 1):
        if name in ("GND", "AGND"):
            nets[pin] = "GND"
    nets[pico_board.header_pin("3V3")] = "+3V3"
    nets[pico_board.header_pin("VSYS")] = "VSYS"
    for panel in pinmap["panels"]:
        p, i2c = panel["player"], panel["i2c"]
        nets[pico_board.header_pin(i2c["sda"])] = f"P{p + 1}_SDA"
        nets[pico_board.header_pin(i2c["scl"])] = f"P{p + 1}_SCL"
    for key in pinmap["buttons"]["keys"]:
        nets[key["header_pin"]] = key_net(key)
    nets[pinmap["piezo"]["header_pin"]] = "PIEZO"
    return nets


def key_net(key: dict) -> str:
    return f"P{key['player'] + 1}_KEY_{key['name']}"


def _path(net: str, width: float, layer: str, points: list) -> dict:
    return {"net": net, "width": width, "layer": layer, "points": [tuple(p) for p in points]}


def _key_routes(pinmap: dict, player: int) -> list:
    """Each key's GPIO pin to its switch: down to a channel, across, down to the pad.

    Pins and switches come in the same left-to-right order, so traces heading right
    take deeper channels the further left they start (and leftward ones mirror that):
    no two cross.
    """
    keys = [k for k in pinmap["buttons"]["keys"] if k["player"] == player]
    inward = 1 if player == 0 else -1  # from the Pico towards this player's edge
    ends = []
    for key in keys:
        pin = pico_pin_xy(key["header_pin"])
        pads = switch_pads(player, KEY_NAMES_IN_ROW.index(key["name"]))["gpio"]
        pad = min(pads, key=lambda xy: abs(xy[0] - pin[0]))
        ends.append((key, pin, pad, pads))
    ends.sort(key=lambda end: end[1][0])
    routes = []
    for key, pin, pad, pads in ends:
        east = pad[0] > pin[0]
        same_way = [e for e in ends if (e[2][0] > e[1][0]) == east]
        if east:
            level = sum(1 for e in same_way if e[1][0] > pin[0])
        else:
            level = sum(1 for e in same_way if e[1][0] < pin[0])
        channel = inward * (CHANNEL_Y0 + level * CHANNEL_PITCH)
        other = next(xy for xy in pads if xy != pad)  # joined inside the switch; KiCad
        points = [pin, (pin[0], channel), (pad[0], channel), pad, other]  # wants copper too
        routes.append(_path(key_net(key), SIGNAL_W, "F.Cu", points))
    return routes


def _panel_routes(pinmap: dict, player: int) -> list:
    """SDA/SCL under the Pico to the header; the chooser to header pins 1 and 2.

    The chooser's GND pin needs no track: it is a through-hole pad in the B.Cu pour.
    """
    panel = next(p for p in pinmap["panels"] if p["player"] == player)
    routes = []
    for signal, header in (("sda", 4), ("scl", 3)):
        pin = pico_pin_xy(pico_board.header_pin(panel["i2c"][signal]))
        lane = LANE_Y[signal.upper() + str(player)]
        end = header_pin_xy(player, header)
        points = [pin, (pin[0], lane), (end[0], lane), end]
        routes.append(_path(f"P{player + 1}_{signal.upper()}", SIGNAL_W, "F.Cu", points))
    chooser = chooser_pins(player)
    pin1, pin2 = header_pin_xy(player, 1), header_pin_xy(player, 2)
    oled1, oled2 = chooser["OLED1"], chooser["OLED2"]
    routes.append(
        _path(f"P{player + 1}_OLED1", POWER_W, "F.Cu", [oled1, (oled1[0], pin1[1]), pin1])
    )
    routes.append(
        _path(f"P{player + 1}_OLED2", POWER_W, "F.Cu", [oled2, (pin2[0], oled2[1]), pin2])
    )
    return routes


def _power_routes() -> list:
    """3V3 from pin 36 to both panels' choosers; the battery path to VSYS; the piezo."""
    pin_3v3 = pico_pin_xy(pico_board.header_pin("3V3"))
    lane = LANE_Y["3V3"]
    p1 = chooser_pins(0)["3V3"]
    p2 = chooser_pins(1)["3V3"]
    routes = [
        _path("+3V3", POWER_W, "F.Cu", [pin_3v3, (pin_3v3[0], lane), (p2[0], lane), p2]),
        # Player 1's feed crosses their own SDA/SCL lanes underneath, on B.Cu
        _path("+3V3", POWER_W, "B.Cu", [(p1[0], lane), (p1[0], CHOOSER_HOP_Y)]),
        _path("+3V3", POWER_W, "F.Cu", [(p1[0], CHOOSER_HOP_Y), p1]),
    ]
    cathode, anode = diode_pads()
    vsys = pico_pin_xy(pico_board.header_pin("VSYS"))
    switch = power_switch_pads()
    jst = jst_pads()
    routes += [
        _path("VSYS", POWER_W, "F.Cu", [vsys, cathode]),
        # past the switch's mounting lug, into pin 1 from the side
        _path("VBAT_SW", POWER_W, "F.Cu", [anode, (anode[0], switch[0][1]), switch[0]]),
        _path("VBAT", POWER_W, "F.Cu", [switch[1], jst[1]]),
    ]
    return routes


def _piezo_route(pinmap: dict) -> dict:
    """Down past the panel header (not through Player 1's I2C lines), across, up to the piezo."""
    pin = pico_pin_xy(pinmap["piezo"]["header_pin"])
    pad = piezo_pads()[0]
    points = [pin, (pin[0], PIEZO_LANE_Y), (pad[0], PIEZO_LANE_Y), pad]
    return _path("PIEZO", SIGNAL_W, "F.Cu", points)


def routes(pinmap: dict) -> list:
    """Every track: {'net', 'width', 'layer', 'points'}; a via where a net changes layer."""
    found = []
    for player in (0, 1):
        found += _key_routes(pinmap, player)
        found += _panel_routes(pinmap, player)
    found += _power_routes()
    found.append(_piezo_route(pinmap))
    return found


def vias() -> list:
    """(x, y, net) of every via."""
    x = chooser_pins(0)["3V3"][0]
    found = [(x, LANE_Y["3V3"], "+3V3"), (x, CHOOSER_HOP_Y, "+3V3")]
    return found


def _xy(point: tuple) -> dict:
    return {"x": point[0], "y": point[1]}


def case_dimensions(pinmap: dict) -> dict:
    """What the case needs from the board, in board coordinates (mm)."""
    keys = []
    for key in pinmap["buttons"]["keys"]:
        x, y = switch_centre(key["player"], KEY_NAMES_IN_ROW.index(key["name"]))
        keys.append({"key": key["key"], "x": x, "y": y})
    usb_x = PICO_X - PICO_LEN / 2
    return {
        "board": {"w": BOARD_W, "h": BOARD_H},
        "keys": keys,
        "windows": [
            {"player": p, "x": window_centre(p)[0], "y": window_centre(p)[1]} for p in (0, 1)
        ],
        "window_size": [WINDOW_W, WINDOW_H],
        "usb": {"x": usb_x, "y": PICO_Y},
        "bootsel": _xy(bootsel_xy()),
        "power_switch": _xy(power_switch_pads()[1]),
        "piezo": {"x": PIEZO_PAD[0] + PIEZO_PAD_PITCH / 2, "y": PIEZO_PAD[1]},
        "holes": [_xy(xy) for xy in hole_positions()],
    }
