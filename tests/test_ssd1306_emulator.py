"""The SSD1306 emulator and the fake busio.I2C: datasheet behaviour decoded from bus bytes."""

import errno

import pytest
from ssd1306_emulator import FakeI2C, SSD1306Emulator

ON = bytes([0x00, 0x8D, 0x14, 0xA1, 0xC8, 0xAF])  # charge pump, upright, display on


def _panel(mounted=0):
    emu = SSD1306Emulator(mounted_rotation=mounted)
    bus = FakeI2C({0x3C: emu})
    bus.try_lock()
    bus.writeto(0x3C, ON)
    return emu, bus


def _px(emu, x, y, glass=False):
    return emu.to_image(glass=glass).getpixel((x, y)) != 0


def test_reset_state_is_page_addressing_display_off():
    emu = SSD1306Emulator()
    assert emu.mode == 2 and not emu.display_on and emu.contrast == 0x7F
    assert emu.to_image().getbbox() is None


def test_page_mode_writes_at_page_and_column_pointers_and_wraps_in_the_page():
    emu, bus = _panel()
    bus.writeto(0x3C, bytes([0x00, 0xB3, 0x0E, 0x17]))  # page 3, column 0x7E
    bus.writeto(0x3C, bytes([0x40, 0x01, 0x02, 0x04]))
    assert emu.gddram[3 * 128 + 126] == 0x01
    assert emu.gddram[3 * 128 + 127] == 0x02
    assert emu.gddram[3 * 128 + 0] == 0x04  # wrapped to column 0, same page
    assert emu.page == 3


def test_horizontal_mode_window_wraps_to_the_next_page_then_back():
    emu, bus = _panel()
    bus.writeto(0x3C, bytes([0x00, 0x20, 0x00, 0x21, 10, 11, 0x22, 2, 3]))
    bus.writeto(0x3C, bytes([0x40, 1, 2, 3, 4]))
    assert emu.gddram[2 * 128 + 10 : 2 * 128 + 12] == bytes([1, 2])
    assert emu.gddram[3 * 128 + 10 : 3 * 128 + 12] == bytes([3, 4])
    assert (emu.page, emu.col) == (2, 10)  # back at the window start


def test_fifth_byte_of_a_2x2_window_overwrites_the_window_start():
    emu, bus = _panel()
    bus.writeto(0x3C, bytes([0x00, 0x20, 0x00, 0x21, 10, 11, 0x22, 2, 3]))
    bus.writeto(0x3C, bytes([0x40, 1, 2, 3, 4, 5]))
    assert emu.gddram[2 * 128 + 10] == 5


def test_vertical_mode_fills_columns_top_to_bottom():
    emu, bus = _panel()
    bus.writeto(0x3C, bytes([0x00, 0x20, 0x01, 0x21, 0, 127, 0x22, 0, 1]))
    bus.writeto(0x3C, bytes([0x40, 1, 2, 3]))
    assert emu.gddram[0] == 1 and emu.gddram[128] == 2 and emu.gddram[1] == 3


def test_single_byte_control_bytes_mix_commands_and_data_in_one_transfer():
    emu, bus = _panel()
    bus.writeto(0x3C, bytes([0x80, 0xB5, 0x80, 0x02, 0x80, 0x10, 0xC0, 0xAA, 0x40, 0x55, 0x66]))
    assert emu.gddram[5 * 128 + 2 : 5 * 128 + 5] == bytes([0xAA, 0x55, 0x66])


def test_command_parameters_may_arrive_as_separate_single_commands():
    emu, bus = _panel()
    bus.writeto(0x3C, bytes([0x80, 0x81, 0x80, 0x42]))
    assert emu.contrast == 0x42


def test_scroll_commands_are_parsed_without_eating_later_commands():
    emu, bus = _panel()
    bus.writeto(0x3C, bytes([0x00, 0x26, 0, 0, 0, 7, 0, 0xFF, 0x2F, 0x2E, 0xA7]))
    assert emu.scroll_setup[0] == 0x26 and not emu.scrolling and emu.inverse
    assert emu.unknown_commands == []


def test_upright_setting_puts_column0_left_and_page0_bit0_on_top():
    emu, bus = _panel()
    bus.writeto(0x3C, bytes([0x00, 0x20, 0x00, 0x21, 0, 0, 0x22, 0, 0]))
    bus.writeto(0x3C, bytes([0x40, 0x01]))
    assert _px(emu, 0, 0) and not _px(emu, 127, 63)


def test_segment_remap_and_com_scan_turn_the_picture_by_180_degrees():
    emu, bus = _panel()
    bus.writeto(0x3C, bytes([0x00, 0xA0, 0xC0, 0x20, 0x00, 0x21, 0, 0, 0x22, 0, 0]))
    bus.writeto(0x3C, bytes([0x40, 0x01]))
    assert _px(emu, 127, 63) and not _px(emu, 0, 0)


def test_a_module_mounted_upside_down_shows_the_rotated_glass():
    emu, bus = _panel(mounted=180)
    bus.writeto(0x3C, bytes([0x00, 0xA0, 0xC0, 0x20, 0x00, 0x21, 0, 0, 0x22, 0, 0]))
    bus.writeto(0x3C, bytes([0x40, 0x01]))
    assert _px(emu, 0, 0)  # upright again for the viewer across the table
    assert _px(emu, 127, 63, glass=True)


def test_inverse_entire_on_and_display_off():
    emu, bus = _panel()
    bus.writeto(0x3C, bytes([0x00, 0xA7]))
    assert _px(emu, 50, 30)
    bus.writeto(0x3C, bytes([0x00, 0xA6, 0xA5]))
    assert _px(emu, 50, 30)
    bus.writeto(0x3C, bytes([0x00, 0xA4, 0xAE, 0xA7]))
    assert not _px(emu, 50, 30)


def test_multiplex_ratio_darkens_lines_beyond_it():
    emu, bus = _panel()
    bus.writeto(0x3C, bytes([0x00, 0xA5, 0xA8, 31]))
    img = emu.to_image()
    lit = [y for y in range(64) if img.getpixel((5, y))]
    assert len(lit) == 32  # only COM0..COM31 are driven


def test_start_line_scrolls_the_ram_rows():
    emu, bus = _panel()
    bus.writeto(0x3C, bytes([0x00, 0x20, 0x00, 0x21, 0, 0, 0x22, 1, 1]))
    bus.writeto(0x3C, bytes([0x40, 0x01]))  # RAM row 8
    bus.writeto(0x3C, bytes([0x00, 0x48]))  # start line 8
    assert _px(emu, 0, 0)


def test_without_charge_pump_the_panel_stays_dark():
    emu = SSD1306Emulator()
    bus = FakeI2C({0x3C: emu})
    bus.try_lock()
    bus.writeto(0x3C, bytes([0x00, 0xA5, 0xAF]))
    assert emu.to_image().getbbox() is None


def test_sequential_com_pins_on_this_glass_interleave_rows():
    emu, bus = _panel()
    bus.writeto(0x3C, bytes([0x00, 0xDA, 0x02, 0x20, 0x00, 0x21, 0, 0, 0x22, 0, 0]))
    bus.writeto(0x3C, bytes([0x40, 0x02]))  # RAM row 1
    assert _px(emu, 0, 2) and not _px(emu, 0, 1)


def test_bus_counts_bytes_transfers_and_bus_time():
    emu = SSD1306Emulator()
    bus = FakeI2C({0x3C: emu}, frequency=1000000)
    bus.try_lock()
    bus.writeto(0x3C, bytearray(b"\x40\x00\x00\x00"), start=0, end=3)
    assert bus.bytes[0x3C] == 3 and bus.transfers[0x3C] == 1
    assert bus.bus_us[0x3C] == pytest.approx((4 * 9 + 2) / 1.0)
    assert emu.data_bytes == 2


def test_writeto_honours_start_and_end():
    emu, bus = _panel()
    bus.writeto(0x3C, bytes([0x00, 0xB0, 0x00, 0x10]))
    bus.writeto(0x3C, bytes([0xEE, 0x40, 7, 8, 0xEE]), start=1, end=4)
    assert emu.gddram[0:3] == bytes([7, 8, 0])


def test_writeto_without_the_lock_raises_like_circuitpython():
    bus = FakeI2C({0x3C: SSD1306Emulator()})
    with pytest.raises(RuntimeError):
        bus.writeto(0x3C, b"\x00\xaf")


def test_try_lock_fails_while_locked():
    bus = FakeI2C()
    assert bus.try_lock() and not bus.try_lock()
    bus.unlock()
    assert bus.try_lock()


def test_unplugged_panel_nacks_with_enodev_and_answers_after_replug():
    emu, bus = _panel()
    bus.unplug(0x3C)
    with pytest.raises(OSError) as info:
        bus.writeto(0x3C, b"\x00\xa7")
    assert info.value.errno == errno.ENODEV and not emu.inverse
    assert bus.scan() == []
    bus.replug(0x3C)
    bus.writeto(0x3C, b"\x00\xa7")
    assert emu.inverse and bus.scan() == [0x3C]


def test_loose_wire_fails_with_eio():
    _, bus = _panel()
    bus.unplug(0x3C, errno.EIO)
    with pytest.raises(OSError) as info:
        bus.writeto(0x3C, b"\x00\xa7")
    assert info.value.errno == errno.EIO


def test_writes_route_by_address():
    a, b = SSD1306Emulator(), SSD1306Emulator()
    bus = FakeI2C({0x3C: a, 0x3D: b})
    bus.try_lock()
    bus.writeto(0x3D, b"\x00\xa7")
    assert b.inverse and not a.inverse


def test_save_png_scales(tmp_path):
    from PIL import Image

    emu, _ = _panel()
    path = emu.save_png(str(tmp_path / "p.png"), scale=3)
    assert Image.open(path).size == (384, 192)
