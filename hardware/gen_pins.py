#!/usr/bin/env python3
"""Generate lib/speedduo/loop/pins.py (board-side pin names) from hardware/pinmap.json.

The output is plain CircuitPython/MicroPython: tuples, ints and strings of pin
NAMES ("GP4"); code.py turns a name into a pin with getattr(board, name).
"""

import json
import os
import sys

from pico_board import ROOT, header_pin, run_generator

OUTPUT = os.path.join(ROOT, "lib", "speedduo", "loop", "pins.py")


_LINE = 100  # pyproject.toml's line-length: the output is already ruff-formatted


def _literal(value) -> str:
    if isinstance(value, str):
        return json.dumps(value)  # double quotes, as ruff format writes them
    return repr(value)


def _assign(name: str, values, literal=_literal) -> str:
    """`NAME = (a, b)`, one item a line when too long (the way ruff format lays it out)."""
    items = [literal(v) for v in values]
    inline = f"{name} = ({', '.join(items)}{',' if len(items) == 1 else ''})"
    if len(inline) <= _LINE:
        return inline
    return f"{name} = (\n" + "".join(f"    {item},\n" for item in items) + ")"


def render(pinmap: dict) -> str:
    panels = sorted(pinmap["panels"], key=lambda panel: panel["player"])
    keys = pinmap["buttons"]["keys"]
    players = sorted({key["player"] for key in keys})
    per_player = len(keys) // len(players)
    key_comments = "\n".join(
        f"#   {key['key']:2d}  Player {key['player'] + 1}  {key['name']}  "
        f"{key['pin']:<4} (header pin {header_pin(key['pin'])})"
        for key in keys
    )
    lines = [
        '"""Speed Duo pin map for the board: GENERATED, do not edit.',
        "",
        "Made from hardware/pinmap.json by hardware/gen_pins.py; tests/test_hardware.py",
        "checks that it is in sync. Pin NAMES only: code.py does getattr(board, name).",
        '"""',
        "",
        f"BOARD = {_literal(pinmap['board'])}",
        "",
        "# One keypad.Keys over BUTTON_PINS; its key numbers are the indexes here:",
        key_comments,
        _assign("BUTTON_PINS", [key["pin"] for key in keys]),
        _assign("BUTTON_PLAYERS", [key["player"] for key in keys]),
        _assign("BUTTON_NAMES", [key["name"] for key in keys]),
        f"KEYS_PER_PLAYER = {per_player}",
        f"KEYS_PULL = {pinmap['buttons']['pull'] == 'up'!r}",
        f"KEYS_VALUE_WHEN_PRESSED = {pinmap['buttons']['value_when_pressed']!r}",
        "",
        "# Panels, indexed by player; each on its own I2C peripheral (own SDA/SCL pair).",
        f"PANEL_COUNT = {len(panels)}",
        _assign("PANEL_I2C", [panel["i2c"]["peripheral"] for panel in panels]),
        _assign("PANEL_SDA", [panel["i2c"]["sda"] for panel in panels]),
        _assign("PANEL_SCL", [panel["i2c"]["scl"] for panel in panels]),
        _assign("PANEL_ADDRESS", [p["i2c"]["address"] for p in panels], "0x{:02X}".format),
        _assign("PANEL_FREQUENCY", [panel["i2c"]["frequency"] for panel in panels]),
        _assign("PANEL_MAX_FREQUENCY", [panel["i2c"]["max_frequency"] for panel in panels]),
        _assign("PANEL_WIDTH", [panel["width"] for panel in panels]),
        _assign("PANEL_HEIGHT", [panel["height"] for panel in panels]),
        _assign("PANEL_ROTATION", [panel["rotation"] for panel in panels]),
        "",
        "# Passive piezo, driven by pwmio.PWMOut (every RP2040 GPIO has PWM).",
        f"PIEZO_PIN = {_literal(pinmap['piezo']['pin'])}",
        "",
        "# Status LED" + (" (the Pico's on-board LED)." if pinmap["led"].get("onboard") else "."),
        f"LED_PIN = {_literal(pinmap['led']['pin'])}",
        "",
    ]
    return "\n".join(lines)


def main(argv=None) -> int:
    return run_generator(argv, __doc__.splitlines()[0], OUTPUT, render)


if __name__ == "__main__":
    sys.exit(main())
