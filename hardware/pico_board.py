"""Raspberry Pi Pico facts and the pin map loader shared by the generators and the tests.

Sources: Raspberry Pi Pico datasheet (pinout, section 2.1 / figure 2) and the
RP2040 datasheet, section 1.4.3 "GPIO Functions" (function F3 is I2C, F4 is PWM).
Host-side only (CPython): the board reads the generated lib/speedduo/loop/pins.py.
"""

import argparse
import json
import os
import sys

HARDWARE_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HARDWARE_DIR)
PINMAP_PATH = os.path.join(HARDWARE_DIR, "pinmap.json")

# The 40 header pins of a Raspberry Pi Pico, pin 1 first (USB end, left side
# looking at the top of the board), pins 21-40 come back up the other side.
HEADER = (
    "GP0", "GP1", "GND", "GP2", "GP3", "GP4", "GP5", "GND", "GP6", "GP7",
    "GP8", "GP9", "GND", "GP10", "GP11", "GP12", "GP13", "GND", "GP14", "GP15",
    "GP16", "GP17", "GND", "GP18", "GP19", "GP20", "GP21", "GND", "GP22", "RUN",
    "GP26", "GP27", "AGND", "GP28", "ADC_VREF", "3V3", "3V3_EN", "GND", "VSYS", "VBUS",
)  # fmt: skip

# GPIOs the Pico wires on the board itself (not on the header).
INTERNAL_GPIO = {
    "GP23": "SMPS power-save select (output)",
    "GP24": "VBUS sense (input)",
    "GP25": "on-board LED (output)",
    "GP29": "VSYS/3 ADC input",
}

# RP2040 datasheet 1.4.3, column F3 (I2C), GPIO0..GPIO29 in order.
# The pattern repeats every 4 GPIOs: I2C0 SDA, I2C0 SCL, I2C1 SDA, I2C1 SCL.
I2C_FUNCTION = (
    ("I2C0", "SDA"), ("I2C0", "SCL"), ("I2C1", "SDA"), ("I2C1", "SCL"),  # GPIO0-3
    ("I2C0", "SDA"), ("I2C0", "SCL"), ("I2C1", "SDA"), ("I2C1", "SCL"),  # GPIO4-7
    ("I2C0", "SDA"), ("I2C0", "SCL"), ("I2C1", "SDA"), ("I2C1", "SCL"),  # GPIO8-11
    ("I2C0", "SDA"), ("I2C0", "SCL"), ("I2C1", "SDA"), ("I2C1", "SCL"),  # GPIO12-15
    ("I2C0", "SDA"), ("I2C0", "SCL"), ("I2C1", "SDA"), ("I2C1", "SCL"),  # GPIO16-19
    ("I2C0", "SDA"), ("I2C0", "SCL"), ("I2C1", "SDA"), ("I2C1", "SCL"),  # GPIO20-23
    ("I2C0", "SDA"), ("I2C0", "SCL"), ("I2C1", "SDA"), ("I2C1", "SCL"),  # GPIO24-27
    ("I2C0", "SDA"), ("I2C0", "SCL"),  # GPIO28-29
)  # fmt: skip

# Limits from the I2C-bus specification (NXP UM10204, table 10): maximum rise time.
I2C_MAX_RISE_NS = {100_000: 1000, 400_000: 300, 1_000_000: 120}


def gpio_number(name: str) -> int:
    """'GP15' -> 15; ValueError for anything that is not a GPn name."""
    if not name.startswith("GP") or not name[2:].isdigit():
        raise ValueError(f"not a GPIO name: {name!r}")
    return int(name[2:])


def header_pin(name: str) -> int:
    """Physical header pin number (1-40) of a signal name that appears once on the header."""
    if HEADER.count(name) != 1:
        raise ValueError(f"{name!r} is not a single Pico header pin")
    return HEADER.index(name) + 1


def header_gpios() -> list:
    """GPIO names broken out on the Pico header (GP0-GP22, GP26-GP28)."""
    return [name for name in HEADER if name.startswith("GP")]


def i2c_function(name: str) -> tuple:
    """(peripheral, signal) that a GPIO carries when switched to I2C (function F3)."""
    return I2C_FUNCTION[gpio_number(name)]


def pwm_channel(name: str) -> tuple:
    """(slice, 'A' or 'B'): every RP2040 GPIO has a PWM output (function F4)."""
    n = gpio_number(name)
    return (n >> 1) & 7, "AB"[n & 1]


def wokwi_pin(header: int) -> str:
    """Name of a header pin on Wokwi's wokwi-pi-pico part ('GP4', 'GND.2', '3V3', ...)."""
    name = HEADER[header - 1]
    if name in ("GND", "AGND"):
        grounds = [i for i, n in enumerate(HEADER, 1) if n in ("GND", "AGND")]
        return f"GND.{grounds.index(header) + 1}"
    return name


BOM_PATH = os.path.join(HARDWARE_DIR, "bom.csv")


def expand_refs(refs: str) -> list:
    """'SW1-SW14' -> ['SW1', ..., 'SW14']; 'DS1,DS2' -> ['DS1', 'DS2']."""
    found = []
    for ref in refs.split(","):
        first, _dash, last = ref.strip().partition("-")
        prefix = first.rstrip("0123456789")
        if not last:
            found.append(first)
            continue
        start, end = int(first[len(prefix) :]), int(last[len(prefix) :])
        found += [f"{prefix}{n}" for n in range(start, end + 1)]
    return found


def bom_by_ref(path: str = BOM_PATH) -> dict:
    """bom.csv's row of every reference designator: {'SW3': row, ...}."""
    import csv

    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return {ref: row for row in rows for ref in expand_refs(row["ref"])}


def load_pinmap(path: str = PINMAP_PATH) -> dict:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def signal_pins(pinmap: dict) -> list:
    """Every (GPIO name, what uses it) in the pin map, including the on-board LED."""
    used = []
    for panel in pinmap["panels"]:
        i2c = panel["i2c"]
        used.append((i2c["sda"], f"Player {panel['player'] + 1} panel SDA"))
        used.append((i2c["scl"], f"Player {panel['player'] + 1} panel SCL"))
    for key in pinmap["buttons"]["keys"]:
        used.append((key["pin"], f"key {key['key']} (Player {key['player'] + 1} {key['name']})"))
    used.append((pinmap["piezo"]["pin"], "piezo"))
    used.append((pinmap["led"]["pin"], "LED"))
    return used


def problems(pinmap: dict) -> list:
    """What is wrong with a pin map, as one sentence each (empty when it is sound)."""
    found = []
    if pinmap.get("board") != "raspberry_pi_pico":
        found.append(f"board is {pinmap.get('board')!r}, expected 'raspberry_pi_pico'")
    seen = {}
    for name, user in signal_pins(pinmap):
        onboard = name == pinmap["led"]["pin"] and pinmap["led"].get("onboard")
        if name not in header_gpios() and not (onboard and name in INTERNAL_GPIO):
            found.append(f"{user}: {name} is not a GPIO on the Pico header")
        if name in seen:
            found.append(f"{name} is used twice: {seen[name]} and {user}")
        seen[name] = user
    for panel in pinmap["panels"]:
        i2c, where = panel["i2c"], f"Player {panel['player'] + 1}'s panel"
        for signal in ("sda", "scl"):
            if i2c[signal] in header_gpios():
                wanted = (i2c["peripheral"], signal.upper())
                if i2c_function(i2c[signal]) != wanted:
                    found.append(f"{where}: {i2c[signal]} cannot be {wanted[0]} {wanted[1]}")
                if panel["header_pins"][signal] != header_pin(i2c[signal]):
                    found.append(
                        f"{where}: {i2c[signal]} is header pin {header_pin(i2c[signal])},"
                        f" not {panel['header_pins'][signal]}"
                    )
        if HEADER[panel["header_pins"]["vcc"] - 1] != "3V3":
            found.append(f"{where}: VCC must come from 3V3(OUT) (pin 36), never 5 V")
        if HEADER[panel["header_pins"]["gnd"] - 1] not in ("GND", "AGND"):
            found.append(f"{where}: header pin {panel['header_pins']['gnd']} is not a ground")
    peripherals = [panel["i2c"]["peripheral"] for panel in pinmap["panels"]]
    if len(set(peripherals)) != len(peripherals):
        found.append("two panels share an I2C peripheral (this design gives each its own)")
    keys = pinmap["buttons"]["keys"]
    if [key["key"] for key in keys] != list(range(len(keys))):
        found.append("buttons are not listed in key-number order 0, 1, 2, ...")
    for key in keys:
        if key["pin"] in header_gpios() and key["header_pin"] != header_pin(key["pin"]):
            found.append(f"key {key['key']}: {key['pin']} is not header pin {key['header_pin']}")
    for gnd in pinmap["buttons"]["gnd_header_pins"] + [pinmap["piezo"]["gnd_header_pin"]]:
        if HEADER[gnd - 1] not in ("GND", "AGND"):
            found.append(f"header pin {gnd} is not a ground")
    piezo = pinmap["piezo"]
    if piezo["pin"] in header_gpios() and piezo["header_pin"] != header_pin(piezo["pin"]):
        found.append(f"piezo: {piezo['pin']} is not header pin {piezo['header_pin']}")
    return found


def run_generator(argv, description: str, output: str, render) -> int:
    """Shared command line of the gen_*.py scripts: write OUTPUT, or --check it."""
    relative = os.path.relpath(output, ROOT)
    parser = argparse.ArgumentParser(
        description=description,
        epilog=f"example: python {os.path.relpath(sys.argv[0], ROOT)} --check",
    )
    parser.add_argument(
        "--check", action="store_true", help=f"exit 1 if {relative} is not up to date"
    )
    parser.add_argument("--pinmap", default=PINMAP_PATH, help="pin map to read (JSON)")
    args = parser.parse_args(argv)
    try:
        pinmap = load_pinmap(args.pinmap)
    except (OSError, ValueError) as err:
        print(f"error: cannot read {args.pinmap}: {err}", file=sys.stderr)
        return 1
    wrong = problems(pinmap)
    if wrong:
        print(f"error: {args.pinmap}: " + "; ".join(wrong), file=sys.stderr)
        return 1
    text = render(pinmap)
    if args.check:
        try:
            with open(output, encoding="utf-8") as f:
                current = f.read()
        except OSError:
            current = None
        if current != text:
            print(f"error: {relative} is out of date: run {sys.argv[0]}", file=sys.stderr)
            return 1
        return 0
    os.makedirs(os.path.dirname(output), exist_ok=True)
    with open(output, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    print(f"wrote {relative}")
    return 0


# Suggested wire colours (wiring.md, the Wokwi diagram and the schematic use these).
WIRE_COLOUR = {
    "3V3": "red",
    "GND": "black",
    "SDA": "blue",
    "SCL": "yellow",
    "button0": "green",
    "button1": "purple",
    "piezo": "orange",
}
