#!/usr/bin/env python3
"""Generate the Speed Duo PCB (KiCad 6) and what a fab house needs, from hardware/pinmap.json.

Needs KiCad 6's pcbnew Python module, which Debian installs for its own Python:
run this with /usr/bin/python3 (apt-get install kicad kicad-footprints). Writes into
hardware/pcb/ (or --out DIR): speedduo.kicad_pcb and .kicad_pro, the Gerber and drill
files zipped (speedduo-gerbers.zip), speedduo-bom.csv and speedduo-cpl.csv; with
--pictures also docs/img/pcb-front.png and pcb-back.png. The design rule check must
find nothing (exit 1 otherwise). The output is byte-for-byte repeatable. --bom-only needs
no pcbnew: it rewrites only speedduo-bom.csv, from the committed board and bom.csv.
"""

import argparse
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

import pcb_layout as layout
import pico_board

OUT_DIR = os.path.join(pico_board.HARDWARE_DIR, "pcb")
IMG_DIR = os.path.join(pico_board.ROOT, "docs", "img")
NAME = "speedduo"
FOOTPRINTS = os.environ.get("KICAD6_FOOTPRINT_DIR", "/usr/share/kicad/footprints")
CENTRE = (148.5, 105.0)  # the board's centre on KiCad's A4 page
_FIXED_DATE = "2026-01-01T00:00:00+00:00"
_GERBER_LAYERS = (
    ("F_Cu", "F_Cu"),
    ("B_Cu", "B_Cu"),
    ("F_SilkS", "F_Silkscreen"),
    ("B_SilkS", "B_Silkscreen"),
    ("F_Mask", "F_Mask"),
    ("B_Mask", "B_Mask"),
    ("Edge_Cuts", "Edge_Cuts"),
)
# Where a fab house that prints its order number on the board puts it (JLCPCB replaces this
# text with the number), on the back, clear of pads; BUILD.md says how to order without it.
ORDER_NUMBER_MARK = "JLCJLCJLCJLC"
ORDER_NUMBER_XY = (40.0, 8.0)
JST_WARNING = (-50.0, -27.5)  # under J1 and SW15 (layout coordinates)
# Parts the assembly service fits (through-hole); the Pico, the displays and the chooser's
# header are soldered by hand (BUILD.md). Their numbers come from bom.csv.
ASSEMBLED = ("SW", "BZ", "D", "J")
# Rules the fab house's own tools settle: silk clipped from pads, silk text over silk.
IGNORED_RULES = ("silk_over_copper", "silk_overlap")


def _mm(pcbnew, xy):
    return pcbnew.wxPointMM(CENTRE[0] + xy[0], CENTRE[1] + xy[1])


def _key(xy) -> tuple:
    return (round(xy[0], 2), round(xy[1], 2))


class BoardBuilder:
    """Adds nets, footprints, tracks and text to a pcbnew BOARD in layout coordinates."""

    def __init__(self, pcbnew):
        self.pcbnew = pcbnew
        self.board = pcbnew.BOARD()
        self.nets = {}

    def net(self, name):
        if name not in self.nets:
            item = self.pcbnew.NETINFO_ITEM(self.board, name)
            self.board.Add(item)
            self.nets[name] = item
        return self.nets[name]

    def place(self, fp, ref, value, origin, angle, pad_nets, bottom=False):
        """Put footprint fp at origin; give each pad the net pad_nets names for its position.

        Every pad must be listed (None: deliberately unconnected), so a footprint that
        lands differently from the layout fails here instead of on the board.
        """
        pcbnew = self.pcbnew
        self.board.Add(fp)  # before Flip, which needs the board
        fp.SetReference(ref)
        fp.SetValue(value)
        fp.SetPosition(_mm(pcbnew, origin))
        fp.SetOrientationDegrees(angle)
        if bottom:
            fp.Flip(fp.GetPosition(), False)  # mirrored top to bottom
        wanted = {_key(xy): net for xy, net in pad_nets.items()}
        for pad in fp.Pads():
            pos = pad.GetPosition()
            xy = _key((pcbnew.ToMM(pos.x) - CENTRE[0], pcbnew.ToMM(pos.y) - CENTRE[1]))
            if pad.GetNumber() == "" and xy not in wanted:
                continue  # a mounting lug
            if xy not in wanted:
                raise ValueError(f"{ref}: pad {pad.GetNumber()} at {xy} is not in the layout")
            if wanted[xy] is not None:
                pad.SetNet(self.net(wanted[xy]))
        return fp

    def library(self, lib, name):
        fp = self.pcbnew.FootprintLoad(os.path.join(FOOTPRINTS, lib + ".pretty"), name)
        if fp is None:
            raise ValueError(f"footprint {lib}:{name} not found in {FOOTPRINTS}")
        return fp

    def track(self, route):
        pcbnew = self.pcbnew
        layer = pcbnew.F_Cu if route["layer"] == "F.Cu" else pcbnew.B_Cu
        points = route["points"]
        for start, end in zip(points, points[1:], strict=False):
            if _key(start) == _key(end):
                continue
            item = pcbnew.PCB_TRACK(self.board)
            item.SetStart(_mm(pcbnew, start))
            item.SetEnd(_mm(pcbnew, end))
            item.SetWidth(pcbnew.FromMM(route["width"]))
            item.SetLayer(layer)
            item.SetNet(self.net(route["net"]))
            self.board.Add(item)

    def via(self, x, y, net):
        pcbnew = self.pcbnew
        item = pcbnew.PCB_VIA(self.board)
        item.SetPosition(_mm(pcbnew, (x, y)))
        item.SetWidth(pcbnew.FromMM(layout.VIA_SIZE))
        item.SetDrill(pcbnew.FromMM(layout.VIA_DRILL))
        item.SetNet(self.net(net))
        self.board.Add(item)

    def line(self, start, end, layer_name="F_SilkS", width=0.15):
        pcbnew = self.pcbnew
        item = pcbnew.PCB_SHAPE(self.board)
        item.SetShape(pcbnew.SHAPE_T_SEGMENT)
        item.SetStart(_mm(pcbnew, start))
        item.SetEnd(_mm(pcbnew, end))
        item.SetLayer(getattr(pcbnew, layer_name))
        item.SetWidth(pcbnew.FromMM(width))
        self.board.Add(item)

    def rect(self, centre, w, h, layer_name="F_SilkS", width=0.15):
        x0, y0, x1, y1 = centre[0] - w / 2, centre[1] - h / 2, centre[0] + w / 2, centre[1] + h / 2
        corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)]
        for start, end in zip(corners, corners[1:], strict=False):
            self.line(start, end, layer_name, width)

    def text(self, words, xy, size=1.0, upside_down=False, layer_name="F_SilkS", angle=0):
        pcbnew = self.pcbnew
        item = pcbnew.PCB_TEXT(self.board)
        item.SetText(words)
        item.SetPosition(_mm(pcbnew, xy))
        item.SetLayer(getattr(pcbnew, layer_name))
        item.SetTextSize(pcbnew.wxSizeMM(size, size))
        item.SetTextThickness(pcbnew.FromMM(size * 0.15))
        if upside_down or angle:
            item.SetTextAngle((1800 if upside_down else 0) + angle * 10)
        if layer_name.startswith("B_"):
            item.SetMirrored(True)
        self.board.Add(item)


def _pth_pad(pcbnew, fp, number, xy, size, drill):
    """A plated through-hole pad of a footprint built here: square for pad 1, else round."""
    pad = pcbnew.PAD(fp)
    pad.SetNumber(str(number))
    pad.SetAttribute(pcbnew.PAD_ATTRIB_PTH)
    pad.SetShape(pcbnew.PAD_SHAPE_RECT if number == 1 else pcbnew.PAD_SHAPE_CIRCLE)
    pad.SetSize(pcbnew.wxSizeMM(size, size))
    pad.SetDrillSize(pcbnew.wxSizeMM(drill, drill))
    pad.SetLayerSet(pad.PTHMask())
    pad.SetPosition(_mm(pcbnew, xy))
    pad.SetLocalCoord()
    fp.Add(pad)


def _outline(pcbnew, fp, corners, layer_name, width):
    """A rectangle (x0, y0, x1, y1) drawn on one of a footprint's layers."""
    x0, y0, x1, y1 = corners
    points = [(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)]
    for start, end in zip(points, points[1:], strict=False):
        shape = pcbnew.FP_SHAPE(fp)
        shape.SetShape(pcbnew.SHAPE_T_SEGMENT)
        shape.SetStart(_mm(pcbnew, start))
        shape.SetEnd(_mm(pcbnew, end))
        shape.SetLayer(getattr(pcbnew, layer_name))
        shape.SetWidth(pcbnew.FromMM(width))
        shape.SetLocalCoord()
        fp.Add(shape)


def _pico_footprint(builder, nets):
    """The Pico as two 1x20 rows of 2.54 mm pads 17.78 mm apart in a 51 x 21 mm outline."""
    pcbnew = builder.pcbnew
    fp = pcbnew.FOOTPRINT(builder.board)
    fp.SetFPID(pcbnew.LIB_ID("SpeedDuo", "RaspberryPi_Pico_THT"))
    fp.SetPosition(_mm(pcbnew, (layout.PICO_X, layout.PICO_Y)))
    for pin in range(1, 41):
        _pth_pad(pcbnew, fp, pin, layout.pico_pin_xy(pin), 1.7, 1.0)
    half_l, half_w = layout.PICO_LEN / 2, layout.PICO_W / 2
    for layer_name, margin, width in (("F_SilkS", -0.15, 0.15), ("F_CrtYd", 0.25, 0.05)):
        x0 = layout.PICO_X - half_l - margin
        x1 = layout.PICO_X + half_l + margin
        y0, y1 = layout.PICO_Y - half_w - margin, layout.PICO_Y + half_w + margin
        _outline(pcbnew, fp, (x0, y0, x1, y1), layer_name, width)
    pads = {layout.pico_pin_xy(pin): nets.get(pin) for pin in range(1, 41)}
    placed = builder.place(fp, "U1", "Raspberry Pi Pico", (layout.PICO_X, layout.PICO_Y), 0, pads)
    placed.Reference().SetPosition(_mm(pcbnew, (layout.PICO_X, layout.PICO_Y - 4.0)))
    placed.Value().SetVisible(False)
    return placed


def _chooser_footprint(builder, player):
    """JP1 (Player 1) / JP2: a 2 x 2 pin header for two shunts that set the panel's pin order."""
    pcbnew = builder.pcbnew
    fp = pcbnew.FOOTPRINT(builder.board)
    fp.SetFPID(pcbnew.LIB_ID("SpeedDuo", "PinOrderChooser_2x02_P2.54mm"))
    pins = layout.chooser_pins(player)
    centre = tuple(sum(xy[i] for xy in pins.values()) / 4 for i in (0, 1))
    fp.SetPosition(_mm(pcbnew, centre))
    for number, role in enumerate(("3V3", "OLED2", "OLED1", "GND"), 1):
        size, drill = layout.CHOOSER_PAD, layout.CHOOSER_DRILL
        _pth_pad(pcbnew, fp, number, pins[role], size, drill)
    half = layout.PIN_PITCH / 2 + 1.0
    for layer_name, extra, width in (("F_SilkS", 0.0, 0.15), ("F_CrtYd", 0.25, 0.05)):
        x0, x1 = centre[0] - half - extra, centre[0] + half + extra
        y0, y1 = centre[1] - half - extra, centre[1] + half + extra
        _outline(pcbnew, fp, (x0, y0, x1, y1), layer_name, width)
    p = f"P{player + 1}_"
    nets = {"3V3": "+3V3", "GND": "GND", "OLED1": p + "OLED1", "OLED2": p + "OLED2"}
    pad_nets = {pins[role]: net for role, net in nets.items()}
    ref = f"JP{player + 1}"
    placed = builder.place(fp, ref, "Pin order (2 shunts)", centre, 0, pad_nets)
    sign = 1 if player == 0 else -1
    placed.Reference().SetPosition(_mm(pcbnew, (centre[0] + sign * 4.8, centre[1])))
    placed.Reference().SetTextAngle(0 if player == 0 else 1800)
    placed.Value().SetVisible(False)
    return placed


def build(pinmap):
    """The whole board, unfilled (fill needs a board loaded from a file: see main)."""
    import pcbnew

    pcbnew.KIID.SeedGenerator(2026)  # the same UUIDs every run: KiCad sorts items by them
    builder = BoardBuilder(pcbnew)
    board = builder.board
    settings = board.GetDesignSettings()
    settings.SetCopperLayerCount(2)
    # KiCad's default net class stands: 0.2 mm clearance, 0.8/0.4 mm vias
    half_w, half_h = layout.BOARD_W / 2, layout.BOARD_H / 2
    settings.SetAuxOrigin(_mm(pcbnew, (-half_w, half_h)))

    nets = layout.net_names(pinmap)
    _pico_footprint(builder, nets)

    for key in pinmap["buttons"]["keys"]:
        player = key["player"]
        slot = layout.KEY_NAMES_IN_ROW.index(key["name"])
        pads = layout.switch_pads(player, slot)
        pad_nets = {xy: layout.key_net(key) for xy in pads["gpio"]}
        pad_nets.update({xy: "GND" for xy in pads["gnd"]})
        origin = min(pads["gpio"]) if player == 0 else max(pads["gpio"])
        fp = builder.library("Button_Switch_THT", "SW_PUSH-12mm")
        value = f"Player {player + 1} {key['name']}"
        builder.place(fp, f"SW{key['key'] + 1}", value, origin, 0 if player == 0 else 180, pad_nets)
        cx, cy = layout.switch_centre(player, slot)
        builder.text(key["name"], (cx, cy), size=2.0, upside_down=player == 1)

    for panel in pinmap["panels"]:
        player = panel["player"]
        header = {layout.header_pin_xy(player, n): f"P{player + 1}_OLED{n}" for n in (1, 2)}
        header[layout.header_pin_xy(player, 3)] = f"P{player + 1}_SCL"
        header[layout.header_pin_xy(player, 4)] = f"P{player + 1}_SDA"
        fp = builder.library("Connector_PinHeader_2.54mm", "PinHeader_1x04_P2.54mm_Vertical")
        for pad in fp.Pads():  # 1.5 mm, not 1.7: over 1 mm between GND and VCC (no blob)
            pad.SetSize(pcbnew.wxSizeMM(layout.CHOOSER_PAD, layout.CHOOSER_PAD))
        builder.place(
            fp,
            f"DS{player + 1}",
            f"Player {player + 1} OLED (SSD1306 0.96in)",
            layout.header_pin_xy(player, 1),
            90 if player == 0 else 270,
            header,
        )
        _chooser_footprint(builder, player)
        _panel_silk(builder, player)

    piezo, piezo_gnd = layout.piezo_pads()
    fp = builder.library("Buzzer_Beeper", "Buzzer_TDK_PS1240P02BT_D12.2mm_H6.5mm")
    builder.place(fp, "BZ1", "PS1240P02BT", piezo, 0, {piezo: "PIEZO", piezo_gnd: "GND"})

    cathode, anode = layout.diode_pads()
    fp = builder.library("Diode_THT", "D_DO-41_SOD81_P12.70mm_Horizontal")
    builder.place(fp, "D1", "1N5817", cathode, 0, {cathode: "VSYS", anode: "VBAT_SW"})
    on, common, off = layout.power_switch_pads()
    fp = builder.library("Button_Switch_THT", "SW_Slide_1P2T_CK_OS102011MS2Q")
    builder.place(
        fp, "SW15", "Power (OS102011MS2Q)", on, 90, {on: "VBAT_SW", common: "VBAT", off: None}
    )
    minus, plus = layout.jst_pads()
    fp = builder.library("Connector_JST", "JST_PH_B2B-PH-K_1x02_P2.00mm_Vertical")
    pads = {minus: "GND", plus: "VBAT"}
    builder.place(fp, "J1", "Battery (JST-PH)", minus, 0, pads, bottom=True)  # lead stays under
    for sign, xy in (("+", plus), ("-", minus)):
        builder.text(sign, (xy[0], xy[1] - 3.2), 1.5, False, "B_SilkS")
        builder.text(sign, (xy[0], xy[1] - 2.2), 1.0)
    # J1 takes 3 x AA only: a LiPo would be drained far below its safe 3.0 V (VSYS runs to 1.8 V)
    builder.text("3 x AA ONLY: NO LiPo", (JST_WARNING[0], JST_WARNING[1]), size=1.0)
    builder.text("3 x AA ONLY: NO LiPo", JST_WARNING, 1.2, False, "B_SilkS")
    builder.text("ON", (on[0] + 3.8, on[1]), size=1.0)
    builder.text("OFF", (off[0] + 4.2, off[1]), size=1.0)

    for n, xy in enumerate(layout.hole_positions(), 1):
        fp = builder.library("MountingHole", "MountingHole_3.2mm_M3")
        builder.place(fp, f"H{n}", "M3", xy, 0, {})

    for route in layout.routes(pinmap):
        builder.track(route)
    for x, y, net in layout.vias():
        builder.via(x, y, net)

    corners = [(-half_w, -half_h), (half_w, -half_h), (half_w, half_h), (-half_w, half_h)]
    for start, end in zip(corners, corners[1:] + corners[:1], strict=True):
        builder.line(start, end, "Edge_Cuts", 0.1)
    zone = pcbnew.ZONE(board)
    zone.SetLayer(pcbnew.B_Cu)
    zone.SetNetCode(builder.net("GND").GetNetCode())
    zone.SetLocalClearance(pcbnew.FromMM(0.3))
    zone.SetMinThickness(pcbnew.FromMM(0.25))
    zone.SetIslandRemovalMode(pcbnew.ISLAND_REMOVAL_MODE_ALWAYS)
    outline = zone.Outline()
    outline.NewOutline()
    for x, y in corners:
        point = _mm(pcbnew, (x, y))
        outline.Append(point.x, point.y)
    board.Add(zone)

    builder.text("Speed Duo", (layout.PICO_X, layout.PICO_Y + 14.5), size=1.5)
    builder.text("USB", (-half_w + 3.0, layout.PICO_Y), size=1.0)
    builder.text("Player 1", (-36.0, half_h - 3.0), size=1.5)
    builder.text("Player 2", (36.0, -half_h + 3.0), size=1.5, upside_down=True)
    builder.text("Speed Duo - pin map: hardware/pinmap.json", (0, 0), 1.5, False, "B_SilkS")
    builder.text(ORDER_NUMBER_MARK, ORDER_NUMBER_XY, 1.0, False, "B_SilkS")
    return board


def _panel_silk(builder, player):
    """The module's outline, which shunts each printed pin order takes, what the pins carry."""
    cx, cy = layout.module_centre(player)
    builder.rect((cx, cy), layout.MODULE_W, layout.MODULE_H)
    flip = player == 1
    sign = 1 if player == 0 else -1
    lines = (
        f"DS{player + 1}: Player {player + 1} OLED",
        f"JP{player + 1}: 2 shunts, by the module's print:",
        "GND VCC SCL SDA: shunts across",
        "VCC GND SCL SDA: shunts up-down",
    )
    for n, words in enumerate(lines):
        builder.text(words, (cx, cy + sign * (-2.0 + 2.0 * n)), size=1.0, upside_down=flip)
    # under each header pin, along the board (1 mm text does not fit across 2.54 mm)
    for pin, name in enumerate(("PIN1", "PIN2", "SCL", "SDA"), 1):
        x, y = layout.header_pin_xy(player, pin)
        builder.text(name, (x, y + sign * 3.6), size=1.0, upside_down=flip, angle=90)


def _project_text() -> str:
    """A .kicad_pro beside the board: its rule severities are what the DRC runs with."""
    project = {
        "board": {"design_settings": {"rule_severities": dict.fromkeys(IGNORED_RULES, "ignore")}},
        "meta": {"filename": f"{NAME}.kicad_pro", "version": 1},
    }
    return json.dumps(project, indent=2, sort_keys=True) + "\n"


def _fixed_dates(text: str) -> str:
    text = re.sub(r"CreationDate,[^*%\n]*", "CreationDate," + _FIXED_DATE, text)
    return re.sub(r"( date )[^*\n]*", r"\g<1>" + _FIXED_DATE, text)


def _drc(pcbnew, board, workdir) -> tuple:
    """(violations, unconnected pads, report text) from KiCad's design rule check."""
    report = os.path.join(workdir, "drc.rpt")
    pcbnew.WriteDRCReport(board, report, pcbnew.EDA_UNITS_MILLIMETRES, True)
    with open(report, encoding="utf-8") as f:
        text = f.read()
    violations = int(re.search(r"Found (\d+) DRC violations", text).group(1))
    unconnected = int(re.search(r"Found (\d+) unconnected pads", text).group(1))
    return violations, unconnected, text


def _plot_gerbers(pcbnew, board, workdir) -> list:
    plotter = pcbnew.PLOT_CONTROLLER(board)
    options = plotter.GetPlotOptions()
    options.SetOutputDirectory(workdir)
    options.SetPlotFrameRef(False)
    options.SetUseGerberProtelExtensions(True)
    options.SetUseGerberX2format(True)
    options.SetIncludeGerberNetlistInfo(True)
    options.SetCreateGerberJobFile(False)
    options.SetSubtractMaskFromSilk(True)
    options.SetUseAuxOrigin(True)
    options.SetExcludeEdgeLayer(True)
    options.SetDrillMarksType(pcbnew.PCB_PLOT_PARAMS.NO_DRILL_SHAPE)
    for layer, suffix in _GERBER_LAYERS:
        plotter.SetLayer(getattr(pcbnew, layer))
        plotter.OpenPlotfile(suffix, pcbnew.PLOT_FORMAT_GERBER, suffix)
        plotter.PlotLayer()
    plotter.ClosePlot()
    drill = pcbnew.EXCELLON_WRITER(board)
    drill.SetOptions(False, True, board.GetDesignSettings().GetAuxOrigin(), False)
    drill.SetFormat(True)
    drill.CreateDrillandMapFilesSet(workdir, True, False)
    return sorted(name for name in os.listdir(workdir) if re.search(r"\.(g[a-z0-9]+|drl)$", name))


def _zip_fab_files(workdir, names, path):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in names:
            with open(os.path.join(workdir, name), encoding="utf-8") as f:
                text = _fixed_dates(f.read())
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, text)


def _centre(pcbnew, fp) -> tuple:
    """The part's centre on the board: the middle of its courtyard (the body and its leads)."""
    box = None
    for item in fp.GraphicalItems():
        if item.GetLayer() in (pcbnew.F_CrtYd, pcbnew.B_CrtYd):
            if box is None:
                box = item.GetBoundingBox()
            else:
                box.Merge(item.GetBoundingBox())
    centre = box.GetCenter()
    return (pcbnew.ToMM(centre.x) - CENTRE[0], pcbnew.ToMM(centre.y) - CENTRE[1])


def _bom_and_placement(pcbnew, board) -> tuple:
    """(BOM csv text, placement csv text) in the columns JLCPCB's assembly service reads.

    Only the parts the service fits (ASSEMBLED). Placement: each part's centre (its
    courtyard's middle), in mm from the board's lower left corner, x right and y up, as
    seen from the top; Layer Top or Bottom; Rotation in degrees counter-clockwise seen
    from the top, 0 being the footprint as KiCad's library draws it (KiCad's own .pos
    convention; a bottom part is seen through the board). JLCPCB reads these columns and
    shows each part placed before the order, where a part drawn otherwise is turned.
    """
    half_w, half_h = layout.BOARD_W / 2, layout.BOARD_H / 2
    parts = pico_board.bom_by_ref()
    rows = []
    for fp in board.GetFootprints():
        ref = fp.GetReference()
        if re.sub(r"\d", "", ref) not in ASSEMBLED:
            continue
        cx, cy = _centre(pcbnew, fp)
        name = fp.GetFPID().GetLibItemName().wx_str()
        side = "Bottom" if fp.GetLayer() == pcbnew.B_Cu else "Top"
        angle = fp.GetOrientationDegrees() % 360
        rows.append((ref, name, cx + half_w, half_h - cy, angle, side))
    rows.sort(key=lambda row: _ref_order(row[0]))
    bom = assembly_bom([(ref, name) for ref, name, *_rest in rows], parts)
    cpl = io.StringIO()
    writer = csv.writer(cpl, lineterminator="\n")
    writer.writerow(["Designator", "Mid X", "Mid Y", "Layer", "Rotation"])
    for ref, _name, x, y, angle, side in rows:
        writer.writerow([ref, f"{x:.2f}mm", f"{y:.2f}mm", side, f"{angle:.0f}"])
    return bom, cpl.getvalue()


def _ref_order(ref: str) -> tuple:
    return (re.sub(r"\d", "", ref), int(re.sub(r"\D", "", ref)))


def placed_on_board_file(text: str) -> list:
    """[(ref, footprint name)] of the assembled parts in a saved .kicad_pcb, in BOM order."""
    found = re.findall(r'\(footprint "([^"]+)".*?\(fp_text reference "([^"]+)"', text, flags=re.S)
    placed = [(ref, name) for name, ref in found if re.sub(r"\d", "", ref) in ASSEMBLED]
    return sorted(placed, key=lambda item: _ref_order(item[0]))


def assembly_bom(placed, parts) -> str:
    """The assembly BOM's text: placed is [(ref, footprint name)] in order, parts bom.csv's rows.

    Parts of one MPN on one footprint share a row. Notes: bom.csv's LCSC note, then the other
    distributor's number where bom.csv has one. Needs no pcbnew, so the tests rebuild the
    committed file from the board's footprints and bom.csv and compare it byte for byte.
    """
    bom = io.StringIO()
    writer = csv.writer(bom, lineterminator="\n")
    writer.writerow(
        ["Comment", "Designator", "Footprint", "LCSC Part #", "Manufacturer", "MPN", "Notes"]
    )
    groups = {}
    for ref, name in placed:
        groups.setdefault((parts[ref]["part_number"], name), []).append(ref)
    for (_mpn, name), refs in groups.items():
        part = parts[refs[0]]
        comment = f"{part['part']} {part['value']}"
        note = part["lcsc_note"]
        if part["other_distributor"]:
            note += f"; also {part['other_distributor']}"
        writer.writerow(
            [
                comment,
                ",".join(refs),
                name,
                part["lcsc_part"],
                part["manufacturer"],
                part["part_number"],
                note,
            ]
        )
    return bom.getvalue()


def _pictures(pcbnew, board, workdir, img_dir):
    """Plot each side's layers to SVG, then colour and stack them into one PNG per side."""
    if not (shutil.which("rsvg-convert") and shutil.which("convert")):
        raise RuntimeError("pictures need rsvg-convert (librsvg2-bin) and convert (imagemagick)")
    plotter = pcbnew.PLOT_CONTROLLER(board)
    options = plotter.GetPlotOptions()
    options.SetOutputDirectory(workdir)
    options.SetPlotFrameRef(False)
    options.SetDrillMarksType(pcbnew.PCB_PLOT_PARAMS.FULL_DRILL_SHAPE)
    options.SetUseAuxOrigin(False)
    sides = {
        # copper under the mask a lighter green, the mask's openings (pads) gold
        "front": (("F_Cu", "#3f9456"), ("F_Mask", "#c8a048"), ("F_SilkS", "#f4f4f4")),
        "back": (("B_Cu", "#3f9456"), ("B_Mask", "#c8a048"), ("B_SilkS", "#f4f4f4")),
    }
    half_w, half_h = layout.BOARD_W / 2, layout.BOARD_H / 2
    dpi = 8  # pixels per mm
    crop = (
        f"{layout.BOARD_W * dpi:.0f}x{layout.BOARD_H * dpi:.0f}"
        f"+{(CENTRE[0] - half_w) * dpi:.0f}+{(CENTRE[1] - half_h) * dpi:.0f}"
    )
    for side, layers in sides.items():
        pngs = []
        for layer, colour in layers + (("Edge_Cuts", "#000000"),):
            plotter.SetLayer(getattr(pcbnew, layer))
            plotter.OpenPlotfile(f"{side}-{layer}", pcbnew.PLOT_FORMAT_SVG, layer)
            plotter.PlotLayer()
            plotter.ClosePlot()
            svg = os.path.join(workdir, f"{NAME}-{side}-{layer}.svg")
            png = svg[:-4] + ".png"
            with open(svg, encoding="utf-8") as f:  # KiCad draws text as strokes and adds
                drawing = re.sub(r"<text.*?</text>", "", f.read(), flags=re.S)  # hidden
            with open(svg, "w", encoding="utf-8") as f:  # copies that rsvg-convert trips on
                f.write(drawing)
            subprocess.run(
                ["rsvg-convert", "--width", str(297 * dpi), "-o", png, svg],
                check=True,
                capture_output=True,
            )
            pngs.append((png, colour))
        command = ["convert", "-size", f"{297 * dpi}x{210 * dpi}", "xc:#2d7a43"]
        for png, colour in pngs:
            command += ["(", png, "-fill", colour, "-colorize", "100", ")", "-composite"]
        out = os.path.join(img_dir, f"pcb-{side}.png")
        if side == "back":
            command += ["-crop", crop, "+repage", "-flop", out]
        else:
            command += ["-crop", crop, "+repage", out]
        subprocess.run(command, check=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="example: /usr/bin/python3 hardware/gen_pcb.py --pictures",
    )
    parser.add_argument("--out", default=OUT_DIR, help="folder for the board and fab files")
    parser.add_argument("--pinmap", default=pico_board.PINMAP_PATH, help="pin map to read (JSON)")
    parser.add_argument("--pictures", action="store_true", help="also draw docs/img/pcb-*.png")
    parser.add_argument(
        "--bom-only",
        action="store_true",
        help="only rewrite the assembly BOM from the committed board and bom.csv (no pcbnew)",
    )
    args = parser.parse_args(argv)
    if args.bom_only:
        board_file = os.path.join(args.out, NAME + ".kicad_pcb")
        try:
            with open(board_file, encoding="utf-8") as f:
                bom = assembly_bom(placed_on_board_file(f.read()), pico_board.bom_by_ref())
        except (OSError, KeyError) as err:  # no board yet, or a part missing from bom.csv
            print(f"error: cannot build the assembly BOM: {err!r}", file=sys.stderr)
            return 1
        with open(os.path.join(args.out, NAME + "-bom.csv"), "w", encoding="utf-8") as f:
            f.write(bom)
        print(f"wrote {os.path.join(args.out, NAME + '-bom.csv')}")
        return 0
    try:
        pinmap = pico_board.load_pinmap(args.pinmap)
    except (OSError, ValueError) as err:
        print(f"error: cannot read {args.pinmap}: {err}", file=sys.stderr)
        return 1
    wrong = pico_board.problems(pinmap)
    if wrong:
        print(f"error: {args.pinmap}: " + "; ".join(wrong), file=sys.stderr)
        return 1
    try:
        import pcbnew
    except ImportError:
        print(
            "error: no pcbnew module: install kicad and run this with /usr/bin/python3",
            file=sys.stderr,
        )
        return 1
    with tempfile.TemporaryDirectory() as workdir:
        path = os.path.join(workdir, NAME + ".kicad_pcb")
        try:
            board = build(pinmap)
        except ValueError as err:  # a footprint that does not land where the layout says
            print(f"error: {err}", file=sys.stderr)
            return 1
        pcbnew.SaveBoard(path, board, True)  # True: no project in memory
        with open(os.path.join(workdir, NAME + ".kicad_pro"), "w", encoding="utf-8") as f:
            f.write(_project_text())  # LoadBoard reads the rule severities from it
        pcbnew.KIID.SeedGenerator(2027)
        board = pcbnew.LoadBoard(path)  # the zone filler needs a board read from a file
        pcbnew.ZONE_FILLER(board).Fill(board.Zones())
        pcbnew.SaveBoard(path, board)
        violations, unconnected, report = _drc(pcbnew, board, workdir)
        print(f"DRC: {violations} violations, {unconnected} unconnected pads")
        if violations or unconnected:
            print(report, file=sys.stderr)
            print("error: the design rule check found problems (above); nothing written",
                  file=sys.stderr)  # fmt: skip
            return 1
        os.makedirs(args.out, exist_ok=True)
        names = _plot_gerbers(pcbnew, board, workdir)
        _zip_fab_files(workdir, names, os.path.join(args.out, NAME + "-gerbers.zip"))
        bom, cpl = _bom_and_placement(pcbnew, board)
        with open(path, encoding="utf-8") as f:
            outputs = {NAME + ".kicad_pcb": f.read(), NAME + ".kicad_pro": _project_text()}
        outputs.update({NAME + "-bom.csv": bom, NAME + "-cpl.csv": cpl})
        for name, text in outputs.items():
            with open(os.path.join(args.out, name), "w", encoding="utf-8") as f:
                f.write(text)
        if args.pictures:
            _pictures(pcbnew, board, workdir, IMG_DIR)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
