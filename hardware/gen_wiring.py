#!/usr/bin/env python3
"""Generate hardware/wiring.md (the connection table) from hardware/pinmap.json."""

import os
import sys

from pico_board import HARDWARE_DIR, HEADER, WIRE_COLOUR, header_pin, run_generator

OUTPUT = os.path.join(HARDWARE_DIR, "wiring.md")


def wires(pinmap: dict) -> list:
    """(Pico header pin, Pico pin name, to, colour, note) for every wire, in build order."""
    rows = []
    for panel in sorted(pinmap["panels"], key=lambda p: p["player"]):
        i2c, pins, ref = panel["i2c"], panel["header_pins"], f"DS{panel['player'] + 1}"
        who = f"Player {panel['player'] + 1} panel {ref}"
        bus = i2c["peripheral"]
        rows += [
            (pins["vcc"], "3V3", f"{who} VCC", WIRE_COLOUR["3V3"], "3V3(OUT); never VBUS/5 V"),
            (pins["gnd"], "GND", f"{who} GND", WIRE_COLOUR["GND"], ""),
            (header_pin(i2c["sda"]), i2c["sda"], f"{who} SDA", WIRE_COLOUR["SDA"], f"{bus} SDA"),
            (header_pin(i2c["scl"]), i2c["scl"], f"{who} SCL", WIRE_COLOUR["SCL"], f"{bus} SCL"),
        ]
    for player, gnd in enumerate(pinmap["buttons"]["gnd_header_pins"]):
        keys = [k for k in pinmap["buttons"]["keys"] if k["player"] == player]
        first, last = keys[0]["key"] + 1, keys[-1]["key"] + 1
        rows.append(
            (
                gnd,
                "GND",
                f"Player {player + 1} button ground (one leg pair of SW{first}-SW{last})",
                WIRE_COLOUR["GND"],
                "on the PCB: the ground pour (B.Cu)",
            )
        )
        for key in keys:
            rows.append(
                (
                    key["header_pin"],
                    key["pin"],
                    f"SW{key['key'] + 1}, Player {player + 1} {key['name']} (other leg)",
                    WIRE_COLOUR[f"button{player}"],
                    f"key {key['key']}",
                )
            )
    piezo = pinmap["piezo"]
    rows += [
        (piezo["header_pin"], piezo["pin"], "BZ1 piezo +", WIRE_COLOUR["piezo"], "PWM"),
        (piezo["gnd_header_pin"], "GND", "BZ1 piezo -", WIRE_COLOUR["GND"], ""),
    ]
    return rows


def render(pinmap: dict) -> str:
    lines = [
        "# Connections",
        "",
        "<!-- GENERATED from hardware/pinmap.json by hardware/gen_wiring.py: do not edit. -->",
        "",
        "Every connection from the Raspberry Pi Pico to a part. On the PCB they are",
        "tracks (check one with the meter's beeper: Pico pin to part pin); the colours",
        "are the Wokwi diagram's. Header pins are numbered as on the Pico's",
        "silkscreen: pin 1 is GP0 next to the USB socket, pins 1-20 run down one side",
        "and 21-40 come back up the other (pin 40 is VBUS, opposite pin 1). On the PCB",
        "the displays' VCC and GND pass through the shunts on JP1 and JP2 (BUILD.md).",
        "Switch and panel references (SW1-SW14, DS1, DS2, BZ1) match `bom.csv` and",
        "`schematic.svg`. The status LED is the Pico's own LED on "
        f"{pinmap['led']['pin']}: no wire.",
        "",
        "| # | Pico pin | Pico signal | To | Wire colour | Note |",
        "|---|---|---|---|---|---|",
    ]
    for number, (pin, name, to, colour, note) in enumerate(wires(pinmap), 1):
        assert HEADER[pin - 1] in (name, "AGND"), (pin, name)
        lines.append(f"| {number} | {pin} | {name} | {to} | {colour} | {note} |")
    lines += [
        "",
        "## Pico header pins in use",
        "",
        "| Pin | Signal | Used for |",
        "|---|---|---|",
    ]
    uses = {}
    for pin, _name, to, _colour, _note in wires(pinmap):
        uses.setdefault(pin, []).append(to)
    for pin in sorted(uses):
        what = "; ".join(dict.fromkeys(uses[pin]))
        lines.append(f"| {pin} | {HEADER[pin - 1]} | {what} |")
    free = [
        f"{name} (pin {pin})"
        for pin, name in enumerate(HEADER, 1)
        if name.startswith("GP") and pin not in uses
    ]
    lines += [
        "",
        "Free GPIOs for later: " + ", ".join(free) + ".",
        "",
    ]
    return "\n".join(lines)


def main(argv=None) -> int:
    return run_generator(argv, __doc__.splitlines()[0], OUTPUT, render)


if __name__ == "__main__":
    sys.exit(main())
