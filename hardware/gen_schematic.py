#!/usr/bin/env python3
"""Generate hardware/schematic.svg (the circuit, drawn around the Pico header) from pinmap.json.

Player 1's parts hang off the left header row (pins 1-20), Player 2's off the right
row (pins 21-40). Power and ground are drawn as net flags: every "+3V3" flag is
the Pico's 3V3(OUT), header pin 36, and every ground symbol is one GND net.
"""

import os
import sys
from xml.sax.saxutils import escape

from pico_board import HARDWARE_DIR, HEADER, WIRE_COLOUR, header_pin, run_generator

OUTPUT = os.path.join(HARDWARE_DIR, "schematic.svg")

_WIDTH, _HEIGHT = 1240, 860
_BOX_LEFT, _BOX_RIGHT = 520, 720  # the Pico's outline
_STUB = 30  # length of a header pin stub
_TOP, _PITCH = 170, 26  # y of header pins 1 and 40, and the pin spacing
_SIGNAL_INK, _IDLE_INK = "#000", "#999"


def _pin_y(pin: int) -> int:
    row = pin - 1 if pin <= 20 else 40 - pin
    return _TOP + row * _PITCH


def _pin_end(pin: int) -> int:
    """x where a wire meets the tip of a header pin stub."""
    return _BOX_LEFT - _STUB if pin <= 20 else _BOX_RIGHT + _STUB


class _Svg:
    def __init__(self):
        self.items = []

    def line(self, x1, y1, x2, y2, colour=_SIGNAL_INK, width=1.5):
        self.items.append(
            f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{colour}"'
            f' stroke-width="{width}"/>'
        )

    def text(self, x, y, words, size=11, anchor="start", weight="normal", colour="#000"):
        self.items.append(
            f'<text x="{x}" y="{y}" font-size="{size}" text-anchor="{anchor}"'
            f' font-weight="{weight}" fill="{colour}">{escape(str(words))}</text>'
        )

    def rect(self, x, y, w, h, fill="none", stroke="#000", width=1.5, rx=0):
        self.items.append(
            f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="{rx}" fill="{fill}"'
            f' stroke="{stroke}" stroke-width="{width}"/>'
        )

    def circle(self, x, y, r, fill="#fff", stroke="#000"):
        self.items.append(
            f'<circle cx="{x}" cy="{y}" r="{r}" fill="{fill}" stroke="{stroke}"'
            ' stroke-width="1.5"/>'
        )

    def ground(self, x, y):
        """Ground symbol hanging below (x, y)."""
        self.line(x, y, x, y + 8)
        for i, half in enumerate((8, 5, 2)):
            self.line(x - half, y + 8 + 3 * i, x + half, y + 8 + 3 * i)

    def supply(self, x, y, side):
        """+3V3 flag at the end of a horizontal wire; side -1 points left, +1 right."""
        self.line(x, y - 7, x, y + 7, width=2)
        self.text(x + side * 4, y + 4, "+3V3", size=10, anchor="end" if side < 0 else "start")

    def switch(self, x_pin, x_far, y):
        """Normally-open push switch between x_pin (Pico side) and x_far."""
        self.circle(x_pin, y, 3)
        self.circle(x_far, y, 3)
        lever_end = x_pin + (3 if x_far < x_pin else -3)
        self.line(x_far, y - 3, lever_end, y - 12)
        mid = (x_pin + x_far) / 2
        self.line(mid, y - 7, mid, y - 15)
        self.line(mid - 6, y - 15, mid + 6, y - 15)

    def piezo(self, x, y, side):
        """Piezo sounder: a small body with two plates, wire enters at (x, y)."""
        body = x + side * 14
        self.line(x, y, body, y)
        left = min(body, body + side * 16)
        self.rect(left, y - 9, 16, 18, fill="#fff")
        self.line(left + 5, y - 6, left + 5, y + 6, width=2)
        self.line(left + 11, y - 6, left + 11, y + 6, width=2)
        return body + side * 16

    def document(self) -> str:
        head = (
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{_WIDTH}" height="{_HEIGHT}"'
            f' viewBox="0 0 {_WIDTH} {_HEIGHT}" font-family="DejaVu Sans, Arial, sans-serif">\n'
        )
        return head + "\n".join(self.items) + "\n</svg>\n"


def _draw_pico(svg: _Svg, used: dict) -> None:
    bottom = _pin_y(20) + 20
    svg.rect(_BOX_LEFT, _TOP - 24, _BOX_RIGHT - _BOX_LEFT, bottom - _TOP + 24, fill="#f4faf4")
    svg.text((_BOX_LEFT + _BOX_RIGHT) / 2, _TOP - 36, "U1 Raspberry Pi Pico", 13, "middle", "bold")
    svg.text((_BOX_LEFT + _BOX_RIGHT) / 2, _TOP - 6, "USB", 10, "middle", colour="#666")
    for pin, name in enumerate(HEADER, 1):
        y = _pin_y(pin)
        ink = _SIGNAL_INK if pin in used else _IDLE_INK
        left = pin <= 20
        edge = _BOX_LEFT if left else _BOX_RIGHT
        svg.line(edge, y, _pin_end(pin), y, colour=ink)
        svg.text(
            edge + (6 if left else -6), y + 4, name, 11, "start" if left else "end", colour=ink
        )
        number_x = edge - 4 if left else edge + 4
        svg.text(number_x, y - 3, pin, 9, "end" if left else "start", colour="#666")
        if pin in used:
            svg.text(
                _pin_end(pin) + (-4 if left else 4),
                y - 3,
                used[pin],
                9,
                "end" if left else "start",
                colour="#0050a0",
            )


def _draw_panel(svg: _Svg, panel: dict, ref: str) -> None:
    """An OLED module whose SDA/SCL pins face the Pico on the panel's header rows."""
    i2c, pins = panel["i2c"], panel["header_pins"]
    sda, scl = header_pin(i2c["sda"]), header_pin(i2c["scl"])
    left_side = sda <= 20
    y_sda, y_scl = _pin_y(sda), _pin_y(scl)
    top, bottom = min(y_sda, y_scl) - 32, max(y_sda, y_scl) + 32
    box_w = 130
    box_x = 240 if left_side else _WIDTH - 240 - box_w
    facing = box_x + box_w if left_side else box_x  # edge towards the Pico
    away = box_x if left_side else box_x + box_w
    side = -1 if left_side else 1
    svg.rect(box_x, top, box_w, bottom - top, fill="#eef3ff")
    title = f"{ref} SSD1306 128x64"
    svg.text(box_x + box_w / 2, top - 31, title, 11, "middle", "bold")
    bus = f"{i2c['peripheral']} @ 0x{i2c['address']:02X}, {i2c['frequency'] // 1000} kHz"
    svg.text(box_x + box_w / 2, top - 18, bus, 10, "middle")
    for y, signal, gpio in ((y_sda, "SDA", i2c["sda"]), (y_scl, "SCL", i2c["scl"])):
        svg.line(facing, y, _pin_end(sda if signal == "SDA" else scl), y, WIRE_COLOUR[signal], 2)
        svg.text(facing + side * 5, y + 4, signal, 10, "end" if left_side else "start")
        svg.text((facing + _pin_end(sda)) / 2, y - 3, gpio, 9, "middle", colour="#0050a0")
    for y, signal in ((y_sda, "VCC"), (y_scl, "GND")):
        svg.text(away - side * 5, y + 4, signal, 10, "start" if left_side else "end")
        svg.line(away, y, away + side * 20, y)
        if signal == "VCC":
            svg.supply(away + side * 20, y, side)
        else:
            svg.ground(away + side * 20, y)
    svg.text(
        box_x + box_w / 2,
        top - 5,
        f"VCC: pin {pins['vcc']} 3V3(OUT), GND: pin {pins['gnd']}",
        9,
        "middle",
        colour="#666",
    )


def _draw_battery(svg):
    """VSYS <- D1 (Schottky, cathode to VSYS) <- SW15 (power switch) <- J1 + (battery)."""
    pin = header_pin("VSYS")
    y, end = _pin_y(pin) - 40, _pin_end(pin)
    side = -1 if pin <= 20 else 1
    svg.line(end, _pin_y(pin), end + side * 20, _pin_y(pin), width=2)
    svg.line(end + side * 20, _pin_y(pin), end + side * 20, y, width=2)
    bar, tip = end + side * 40, end + side * 40  # the diode points at VSYS
    svg.line(end + side * 20, y, bar, y, width=2)
    svg.line(bar, y - 8, bar, y + 8, width=2)
    base = tip + side * 14
    svg.items.append(
        f'<polygon points="{tip},{y} {base},{y - 8} {base},{y + 8}" fill="#fff"'
        ' stroke="#000" stroke-width="1.5"/>'
    )
    svg.text((tip + base) / 2, y - 12, "D1 1N5817", 9, "middle")
    near, far = base + side * 30, base + side * 70
    svg.line(base, y, near, y, width=2)
    svg.switch(near, far, y)
    svg.text((near + far) / 2, y + 18, "SW15 power", 9, "middle")
    svg.line(far, y, far + side * 20, y, width=2)
    svg.text(far + side * 24, y + 4, "J1 + (3 x AA, JST-PH); J1 - to GND", 10,
             "end" if side < 0 else "start")  # fmt: skip


def render(pinmap: dict) -> str:
    svg = _Svg()
    svg.rect(0, 0, _WIDTH, _HEIGHT, fill="#fff", stroke="none")
    svg.text(20, 30, "Speed Duo: schematic", 18, weight="bold")
    svg.text(
        20,
        50,
        "Generated from hardware/pinmap.json by hardware/gen_schematic.py: do not edit.",
        11,
        colour="#666",
    )
    svg.text(20, 90, "Player 1 (header pins 1-20)", 13, weight="bold")
    svg.text(_WIDTH - 20, 90, "Player 2 (header pins 21-40)", 13, "end", "bold")

    used = {}
    panels = sorted(pinmap["panels"], key=lambda p: p["player"])
    for panel in panels:
        used[header_pin(panel["i2c"]["sda"])] = ""
        used[header_pin(panel["i2c"]["scl"])] = ""
    grounds = set(pinmap["buttons"]["gnd_header_pins"]) | {pinmap["piezo"]["gnd_header_pin"]}
    grounds |= {panel["header_pins"]["gnd"] for panel in panels}
    for pin in grounds:
        used[pin] = ""
    used[header_pin("3V3")] = ""
    used[header_pin("VSYS")] = ""
    keys = pinmap["buttons"]["keys"]
    for key in keys:
        used[header_pin(key["pin"])] = ""
    used[header_pin(pinmap["piezo"]["pin"])] = ""
    _draw_pico(svg, used)

    for panel in panels:
        _draw_panel(svg, panel, f"DS{panel['player'] + 1}")

    for key in keys:
        pin = header_pin(key["pin"])
        y, end = _pin_y(pin), _pin_end(pin)
        side = -1 if pin <= 20 else 1
        near, far = end + side * 60, end + side * 100
        svg.line(end, y, near, y, WIRE_COLOUR[f"button{key['player']}"], 2)
        svg.switch(near, far, y)
        svg.line(far, y, far + side * 30, y)
        svg.ground(far + side * 30, y)
        label = f"SW{key['key'] + 1}  P{key['player'] + 1} {key['name']}  ({key['pin']})"
        svg.text(far + side * 40, y + 4, label, 10, "end" if side < 0 else "start")

    piezo = pinmap["piezo"]
    pin = header_pin(piezo["pin"])
    y, end = _pin_y(pin), _pin_end(pin)
    side = -1 if pin <= 20 else 1
    svg.line(end, y, end + side * 60, y, WIRE_COLOUR["piezo"], 2)
    after = svg.piezo(end + side * 60, y, side)
    svg.line(after, y, after + side * 20, y)
    svg.ground(after + side * 20, y)
    svg.text(after + side * 30, y + 4, f"BZ1 piezo ({piezo['pin']}, PWM)", 10,
             "end" if side < 0 else "start")  # fmt: skip

    _draw_battery(svg)
    for pin in sorted(grounds):
        svg.ground(_pin_end(pin), _pin_y(pin))
    supply_pin = header_pin("3V3")
    svg.supply(_pin_end(supply_pin), _pin_y(supply_pin), 1 if supply_pin > 20 else -1)

    notes = [
        "Buttons: GPIO to GND through the switch; internal pull-ups (~50-80 kOhm),"
        " keypad.Keys(pull=True, value_when_pressed=False).",
        "Panels: each on its own I2C peripheral, both at the same address; the I2C pull-ups"
        " are the ones on the OLED modules (to their VCC = 3V3).",
        "Panels take 3V3(OUT), header pin 36, never 5 V: the modules' pull-ups go to their"
        " VCC and RP2040 pins are not 5 V tolerant.",
        f"Status LED: the Pico's on-board LED on {pinmap['led']['pin']} (not on the header)."
        " Unused header pins are grey.",
        "On the PCB each panel's first two pins reach 3V3 and GND through a 2x2 header with"
        " two shunts (JP1, JP2), to take either pin order (GND VCC or VCC GND).",
        "Battery: J1 + through SW15 and the Schottky D1 to VSYS, so USB (through the Pico's"
        " own diode) and battery can both be connected.",
    ]
    for i, note in enumerate(notes):
        svg.text(20, _HEIGHT - 102 + i * 16, note, 11)
    return svg.document()


def main(argv=None) -> int:
    return run_generator(argv, __doc__.splitlines()[0], OUTPUT, render)


if __name__ == "__main__":
    sys.exit(main())
