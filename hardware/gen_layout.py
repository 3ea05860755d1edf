#!/usr/bin/env python3
"""Generate hardware/layout.svg (a top view of the built handheld) from hardware/pinmap.json.

Two sides face each other: each has its panel above its button row (L, 1-5, R,
left to right as that player sees it); Player 2's side is Player 1's turned 180
degrees. The Pico and the piezo sit in the middle.
"""

import os
import sys
from xml.sax.saxutils import escape

from pico_board import HARDWARE_DIR, run_generator

OUTPUT = os.path.join(HARDWARE_DIR, "layout.svg")

_WIDTH, _HEIGHT = 560, 1080
_CX, _CY = _WIDTH // 2, 520  # centre of the case; Player 2's side turns about it
_CASE_HALF = 440  # half the case's height
_KEY_PITCH = 60

_DEFS = """<defs>
  <linearGradient id="case" x1="0" y1="0" x2="1" y2="1">
    <stop offset="0" stop-color="#4a4f57"/><stop offset="1" stop-color="#25282d"/>
  </linearGradient>
  <radialGradient id="cap-green" cx="0.35" cy="0.35" r="0.7">
    <stop offset="0" stop-color="#9be89b"/><stop offset="1" stop-color="#1d7a2a"/>
  </radialGradient>
  <radialGradient id="cap-purple" cx="0.35" cy="0.35" r="0.7">
    <stop offset="0" stop-color="#d8b4f0"/><stop offset="1" stop-color="#5b2a86"/>
  </radialGradient>
  <radialGradient id="cap-red" cx="0.35" cy="0.35" r="0.7">
    <stop offset="0" stop-color="#f5a0a0"/><stop offset="1" stop-color="#a11b1b"/>
  </radialGradient>
  <linearGradient id="glass" x1="0" y1="0" x2="1" y2="1">
    <stop offset="0" stop-color="#1b1e24"/><stop offset="1" stop-color="#050608"/>
  </linearGradient>
  <radialGradient id="piezo" cx="0.4" cy="0.4" r="0.7">
    <stop offset="0" stop-color="#555"/><stop offset="1" stop-color="#111"/>
  </radialGradient>
</defs>"""


def _text(x, y, words, size=12, fill="#eee", anchor="middle", weight="normal", family=None):
    font = f' font-family="{family}"' if family else ""
    return (
        f'<text x="{x}" y="{y}" font-size="{size}" fill="{fill}" text-anchor="{anchor}"'
        f' font-weight="{weight}"{font}>{escape(str(words))}</text>'
    )


def _side(pinmap: dict, player: int) -> list:
    """One player's half, drawn the right way up for Player 1 (below the centre)."""
    panel = next(p for p in pinmap["panels"] if p["player"] == player)
    keys = [k for k in pinmap["buttons"]["keys"] if k["player"] == player]
    i2c = panel["i2c"]
    items = [f'<g id="player{player}">']
    # OLED module: blue PCB, black glass, a few lit pixels.
    px, py, pw, ph = _CX - 110, _CY + 90, 220, 132
    items += [
        f'<rect x="{px + 3}" y="{py + 4}" width="{pw}" height="{ph}" rx="6" fill="#000"'
        ' opacity="0.35"/>',
        f'<rect x="{px}" y="{py}" width="{pw}" height="{ph}" rx="6" fill="#1f4fa8"'
        ' stroke="#10306a"/>',
        f'<rect x="{px + 12}" y="{py + 14}" width="{pw - 24}" height="{ph - 40}" rx="2"'
        ' fill="url(#glass)"/>',
        _text(_CX, py + 50, f"P{player + 1}", 15, "#bfe6ff", weight="bold", family="monospace"),
        _text(_CX, py + 72, "7  Q  K", 14, "#bfe6ff", family="monospace"),
        _text(
            _CX,
            py + ph - 10,
            f"SSD1306 {panel['width']}x{panel['height']}  {i2c['peripheral']}"
            f" SDA {i2c['sda']} SCL {i2c['scl']}",
            10,
            "#dbe7ff",
        ),
    ]
    # Button row: L, 1..5, R from this player's left to right.
    row_y = _CY + 330
    for column, key in enumerate(keys):
        x = _CX + (column - (len(keys) - 1) / 2) * _KEY_PITCH
        cap = "red" if key["name"] in ("L", "R") else ("green" if player == 0 else "purple")
        items += [
            f'<rect x="{x - 24}" y="{row_y - 24}" width="48" height="48" rx="4" fill="#15171a"'
            ' stroke="#000"/>',
            f'<circle cx="{x + 2}" cy="{row_y + 3}" r="17" fill="#000" opacity="0.5"/>',
            f'<circle cx="{x}" cy="{row_y}" r="17" fill="url(#cap-{cap})" stroke="#111"/>',
            _text(x, row_y + 5, key["name"], 15, "#fff", weight="bold"),
            _text(x, row_y + 42, key["pin"], 10, "#c8c8c8"),
        ]
    seat = f"Player {player + 1} sits here"
    items.append(_text(_CX, _CY + _CASE_HALF + 35, seat, 13, "#333", weight="bold"))
    items.append("</g>")
    return items


def render(pinmap: dict) -> str:
    items = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_WIDTH}" height="{_HEIGHT}"'
        f' viewBox="0 0 {_WIDTH} {_HEIGHT}" font-family="DejaVu Sans, Arial, sans-serif">',
        _DEFS,
        f'<rect width="{_WIDTH}" height="{_HEIGHT}" fill="#f3efe6"/>',
        # Case with a soft shadow.
        f'<rect x="46" y="{_CY - _CASE_HALF + 8}" width="{_WIDTH - 80}" height="{2 * _CASE_HALF}"'
        ' rx="38" fill="#000" opacity="0.25"/>',
        f'<rect x="40" y="{_CY - _CASE_HALF}" width="{_WIDTH - 80}" height="{2 * _CASE_HALF}"'
        ' rx="38" fill="url(#case)" stroke="#15171a" stroke-width="2"/>',
    ]
    items += _side(pinmap, 0)
    items.append(f'<g transform="rotate(180 {_CX} {_CY})">')
    items += _side(pinmap, 1)
    items.append("</g>")
    # The Pico across the middle, USB towards the left edge, and the piezo beside it.
    bx, by, bw, bh = _CX - 150, _CY - 42, 204, 84
    items += [
        f'<rect x="{bx + 3}" y="{by + 4}" width="{bw}" height="{bh}" rx="4" fill="#000"'
        ' opacity="0.35"/>',
        f'<rect x="{bx}" y="{by}" width="{bw}" height="{bh}" rx="4" fill="#1e7b3c"'
        ' stroke="#0d4a22"/>',
        f'<rect x="{bx - 10}" y="{_CY - 15}" width="22" height="30" rx="3" fill="#c9ccd1"'
        ' stroke="#777"/>',
        f'<rect x="{bx + 86}" y="{_CY - 18}" width="36" height="36" fill="#16181b"/>',
        _text(bx + 104, _CY + 4, "RP2040", 8, "#bbb"),
        _text(bx + 165, _CY - 22, "Raspberry Pi Pico", 9, "#e8f5e8"),
        f'<circle cx="{bx + 40}" cy="{_CY - 24}" r="4" fill="#7cff7c"/>',
        _text(bx + 40, _CY - 8, f"LED {pinmap['led']['pin']}", 8, "#e8f5e8"),
    ]
    for i in range(20):  # header pads along both long edges
        x = bx + 8 + i * (bw - 16) / 19
        items.append(f'<circle cx="{x:.1f}" cy="{by + 6}" r="2.6" fill="#d9b44a"/>')
        items.append(f'<circle cx="{x:.1f}" cy="{by + bh - 6}" r="2.6" fill="#d9b44a"/>')
    items += [
        f'<circle cx="{_CX + 130}" cy="{_CY}" r="24" fill="url(#piezo)" stroke="#000"/>',
        f'<circle cx="{_CX + 130}" cy="{_CY}" r="4" fill="#000"/>',
        _text(_CX + 130, _CY + 40, f"piezo {pinmap['piezo']['pin']}", 10, "#ddd"),
        _text(
            _CX,
            _HEIGHT - 36,
            "Speed Duo: layout, top view (not to scale)",
            15,
            "#222",
            "middle",
            "bold",
        ),  # fmt: skip
        _text(
            _CX,
            _HEIGHT - 14,
            "Generated from hardware/pinmap.json by hardware/gen_layout.py",
            10,
            "#666",
        ),
        "</svg>",
    ]
    return "\n".join(items) + "\n"


def main(argv=None) -> int:
    return run_generator(argv, __doc__.splitlines()[0], OUTPUT, render)


if __name__ == "__main__":
    sys.exit(main())
