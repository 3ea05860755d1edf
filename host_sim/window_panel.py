"""What an emulated SSD1306 shows, as 128x64 bytes (1 lit, 0 dark), fast enough for 60 frames/s.

``SSD1306Emulator.to_image()`` builds a PIL image pixel by pixel (tens of ms);
this reads the same registers and GDDRAM with whole-row byte operations
(``bytes.translate`` per bit of a page) and gives the same picture: the test
``test_panel_pixels_equal_the_emulator_image`` holds the two together.
"""

WIDTH = 128
HEIGHT = 64
OLED_COLOURS = {
    # lit, dark (a powered OLED's black is not quite black), the gaps between pixels
    "white": ((236, 242, 255), (14, 16, 20), (4, 5, 7)),
    "blue": ((96, 186, 255), (10, 16, 28), (3, 6, 12)),
    "yellow": ((255, 214, 90), (20, 16, 8), (7, 5, 3)),
}

# _BIT[b]: a translation table, GDDRAM byte -> 1 if its bit b is set else 0
_BIT = [bytes((v >> b) & 1 for v in range(256)) for b in range(8)]
_INVERT = bytes((1, 0)) + bytes(254)
_DARK = bytes(WIDTH * HEIGHT)
_LIT_ROW = bytes([1]) * WIDTH


def ram_rows(gddram):
    """GDDRAM as 64 rows of 128 bytes (0/1), page 0 bit 0 first, column 0 first."""
    rows = []
    for page in range(HEIGHT // 8):
        data = bytes(gddram[page * WIDTH : (page + 1) * WIDTH])
        for bit in range(8):
            rows.append(data.translate(_BIT[bit]))
    return rows


def panel_pixels(emulator, glass=False):
    """The viewer's picture (mounted rotation applied unless ``glass``): 8192 bytes, rows first."""
    if not (emulator.display_on and emulator.charge_pump):
        return _DARK
    rows = ram_rows(emulator.gddram)
    dark = bytes(WIDTH)
    out = []
    for y in range(HEIGHT):
        r = emulator._row_for_glass_line(y)
        if r is None:
            out.append(dark)
            continue
        row = _LIT_ROW if emulator.entire_on else rows[r]
        if not emulator.seg_remap:
            row = row[::-1]
        if emulator.inverse:
            row = row.translate(_INVERT)
        out.append(row)
    if emulator.mounted_rotation == 180 and not glass:
        out = [row[::-1] for row in reversed(out)]
    return b"".join(out)


def panel_state(emulator):
    """Everything the picture depends on, to tell whether a redraw is needed."""
    e = emulator
    return (
        bytes(e.gddram),
        e.display_on,
        e.charge_pump,
        e.entire_on,
        e.inverse,
        e.seg_remap,
        e.com_reverse,
        e.com_pins,
        e.mux,
        e.start_line,
        e.offset,
        e.contrast,
    )
