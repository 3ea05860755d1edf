"""The emulator checked against the reference: Adafruit's SSD1306 driver through Blinka's displayio.

adafruit_displayio_ssd1306 (3.0.6) and Blinka's displayio (2.7.1) drive a FakeI2C
that feeds our SSD1306Emulator. For every scene and rotation the image the
emulator decodes from the bus bytes must equal the scene as composed here pixel
by pixel, so the emulator's command decoding (init sequence, 0x21/0x22 windows,
horizontal addressing, 0xA1/0xC8 orientation) agrees with the real driver.
"""

import os
import random

import pytest
from PIL import Image

os.environ.setdefault("BLINKA_OS_AGNOSTIC", "1")

displayio = pytest.importorskip("displayio")
i2cdisplaybus = pytest.importorskip("i2cdisplaybus")
adafruit_displayio_ssd1306 = pytest.importorskip("adafruit_displayio_ssd1306")

from ssd1306_emulator import FakeI2C, SSD1306Emulator  # noqa: E402

W, H = 128, 64


@pytest.fixture(autouse=True)
def _no_init_delays(monkeypatch):
    """BusDisplay sleeps 10 ms after every init command; the emulator needs no settling."""
    import busdisplay

    monkeypatch.setattr(busdisplay.time, "sleep", lambda s: None)
    displayio.release_displays()
    yield
    displayio.release_displays()


def _palette():
    palette = displayio.Palette(2)
    palette[0] = 0x000000
    palette[1] = 0xFFFFFF
    return palette


def _random_bitmap(w, h, seed):
    rnd = random.Random(seed)
    bitmap = displayio.Bitmap(w, h, 2)
    for y in range(h):
        for x in range(w):
            bitmap[x, y] = rnd.randrange(2)
    return bitmap


def _compose(layers, scale=1):
    """The expected picture: (bitmap, x, y, transparent_zero) layers drawn in order."""
    img = Image.new("1", (W, H))
    px = img.load()
    for bitmap, x0, y0, transparent in layers:
        for y in range(bitmap.height):
            for x in range(bitmap.width):
                v = bitmap[x, y]
                if transparent and v == 0:
                    continue
                for dy in range(scale):
                    for dx in range(scale):
                        X = (x0 + x) * scale + dx
                        Y = (y0 + y) * scale + dy
                        if 0 <= X < W and 0 <= Y < H:
                            px[X, Y] = 255 if v else 0
    return img


def scene_full_random():
    bitmap = _random_bitmap(W, H, 1)
    group = displayio.Group()
    group.append(displayio.TileGrid(bitmap, pixel_shader=_palette()))
    return group, [(bitmap, 0, 0, False)], 1


def scene_overlapping_tiles():
    back = displayio.Bitmap(40, 20, 2)
    back.fill(1)
    sprite = _random_bitmap(23, 29, 2)  # odd sizes: not page aligned
    palette = _palette()
    see_through = _palette()
    see_through.make_transparent(0)
    group = displayio.Group()
    group.append(displayio.TileGrid(back, pixel_shader=palette, x=10, y=5))
    group.append(displayio.TileGrid(sprite, pixel_shader=see_through, x=33, y=13))
    group.append(displayio.TileGrid(sprite, pixel_shader=palette, x=100, y=41))  # clipped
    layers = [(back, 10, 5, False), (sprite, 33, 13, True), (sprite, 100, 41, False)]
    return group, layers, 1


def scene_scaled_text_like():
    glyphs = _random_bitmap(30, 11, 3)
    group = displayio.Group(scale=2)
    group.append(displayio.TileGrid(glyphs, pixel_shader=_palette(), x=7, y=9))
    return group, [(glyphs, 7, 9, False)], 2


SCENES = [scene_full_random, scene_overlapping_tiles, scene_scaled_text_like]


def _adafruit_display(emulator, rotation):
    bus = FakeI2C({0x3C: emulator})
    display_bus = i2cdisplaybus.I2CDisplayBus(bus, device_address=0x3C)
    display = adafruit_displayio_ssd1306.SSD1306(
        display_bus, width=W, height=H, rotation=rotation, auto_refresh=False
    )
    return bus, display


def _diff(a, b):
    a, b = a.tobytes(), b.tobytes()
    return sum(bin(p ^ q).count("1") for p, q in zip(a, b, strict=True))


@pytest.mark.parametrize("rotation", [0, 180])
@pytest.mark.parametrize("make_scene", SCENES, ids=lambda f: f.__name__)
def test_emulator_decodes_adafruit_driver_like_displayio_renders(make_scene, rotation):
    emulator = SSD1306Emulator(mounted_rotation=rotation)
    _, display = _adafruit_display(emulator, rotation)
    group, layers, scale = make_scene()
    display.root_group = group
    display.refresh()
    expected = _compose(layers, scale)
    assert not emulator.unknown_commands
    # the viewer of a module mounted at `rotation` sees the scene upright ...
    assert _diff(emulator.to_image(), expected) == 0
    # ... because displayio turned it in software: the glass holds it rotated
    glass = expected.rotate(180) if rotation == 180 else expected
    assert _diff(emulator.to_image(glass=True), glass) == 0


@pytest.mark.parametrize("rotation", [0, 180])
def test_partial_refresh_windows_land_where_displayio_meant(rotation):
    emulator = SSD1306Emulator(mounted_rotation=rotation)
    bus, display = _adafruit_display(emulator, rotation)
    bitmap = _random_bitmap(W, H, 4)
    group = displayio.Group()
    group.append(displayio.TileGrid(bitmap, pixel_shader=_palette()))
    display.root_group = group
    display.refresh()
    display.refresh()  # Blinka clears the bitmap's initial dirty area on the second pass
    emulator.reset_counters()
    for x, y in ((37, 21), (38, 21), (44, 30), (50, 33)):  # one dirty rectangle
        bitmap[x, y] = 1 - bitmap[x, y]
    display.refresh()
    assert _diff(emulator.to_image(), _compose([(bitmap, 0, 0, False)])) == 0
    assert 0 < emulator.data_bytes < W * H // 8  # a window, not the whole frame


def test_adafruit_init_sequence_sets_the_registers_the_datasheet_names():
    emulator = SSD1306Emulator()
    _adafruit_display(emulator, 0)
    assert emulator.display_on and emulator.charge_pump
    assert emulator.mode == 0  # horizontal addressing
    assert emulator.seg_remap and emulator.com_reverse
    assert emulator.mux == 63 and emulator.com_pins == 0x12
    assert emulator.contrast == 0xFF  # brightness=1.0 after the init's 0xCF
