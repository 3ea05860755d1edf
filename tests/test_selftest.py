"""The bring-up self-test (issue 18, item 4) on the shims: from the menu and at power-on.

What the panels got is read from the I2C trace through our SSD1306 emulator and compared
with the self-test's own drawing of the lines it must show.
"""

from conftest import run_board_program
from null_bus import NullBus
from speedduo.display.menu import HOW_TO_PLAY, PLAY, SELF_TEST, SHOW_SELF_TEST, Menu
from speedduo.display.ssd1306 import Panel
from speedduo.game.rules import Rules
from speedduo.loop import selftest
from ssd1306_emulator import SSD1306Emulator

MENU_SCRIPT = "tests/scripts/board_self_test.txt"
POWER_ON_SCRIPT = "tests/scripts/board_self_test_power_on.txt"


def _expected_frame(lines):
    panel = Panel(NullBus())
    panel.online = True
    selftest.draw(panel, lines)
    return bytes(panel.buf[1 + page * 129 + col] for page in range(8) for col in range(128))


def panels_at(writes, until_us):
    """Both panels' emulators fed every acknowledged write that ended by ``until_us``."""
    panels = [SSD1306Emulator(name="p0"), SSD1306Emulator(name="p1")]
    for w in writes:
        if w["ack"] and w["t1"] <= until_us:
            panels[w["bus"]].receive(bytes.fromhex(w["data"]))
    return panels


def _frames(writes, until_us):
    return [bytes(p.gddram) for p in panels_at(writes, until_us)]


def test_self_test_is_two_l_presses_up_from_play_in_the_menu():
    menu = Menu(Rules(), 3)
    assert menu.lines()[SELF_TEST] == "SELF TEST" and HOW_TO_PLAY == len(menu.lines()) - 1
    menu.selected = PLAY
    menu.press(0)
    menu.press(0)
    assert menu.selected == SELF_TEST and menu.press(1) == SHOW_SELF_TEST


def test_each_panel_names_its_player_bus_and_address():
    assert selftest.panel_name(0) == "P1 I2C0 0x3C"
    assert selftest.panel_name(1) == "P2 I2C1 0x3C"


def test_a_held_key_is_named_on_its_players_panel_only():
    held = bytearray(14)
    held[7 + 3] = 1  # Player 2's 3
    held[7 + 6] = 1  # and R
    assert selftest.lines_for(1, held, [True, True], "x")[1] == "HELD: 3 R"
    assert selftest.lines_for(0, held, [True, True], "x")[1] == "HELD: -"


def test_a_missing_panel_is_named_on_the_other_panel():
    assert selftest.lines_for(0, bytearray(14), [True, False], "x")[3] == "P2 SCREEN MISSING"
    assert selftest.lines_for(1, bytearray(14), [False, True], "x")[3] == "P1 SCREEN MISSING"


def test_every_line_fits_the_panel():
    held = bytearray(b"\x01" * 14)
    for i in (0, 1):
        for line in selftest.lines_for(i, held, [False, False], "1-5: A CLICK EACH"):
            assert len(line) * 6 + 3 <= 127, line


def test_the_menus_self_test_shows_pattern_address_and_held_key_then_returns(tmp_path):
    result, writes = run_board_program(tmp_path, MENU_SCRIPT, "cut=8000000")
    assert result.returncode == 0, result.stderr
    held = bytearray(14)
    held[7 + 3] = 1
    shown = _frames(writes, 3800000)  # Player 2 holds 3; the scale is over
    for i in (0, 1):
        lines = selftest.lines_for(i, held, [True, True], "1-5: A CLICK EACH")
        assert shown[i] == _expected_frame(lines), i
    out = result.stdout
    assert "self test: P1 I2C0 0x3C answers" in out and "self test: P2 3 down" in out
    assert "self test: piezo (GP15) plays a scale C7-C8" in out
    # L+R held from 4.5 s: the menu is back 2 s later
    assert out.index("self test: P1 R down") < out.index("self test: done")
    assert _frames(writes, 7000000) != shown


def test_a_missing_panel_is_named_on_the_console_and_the_other_panel(tmp_path):
    result, writes = run_board_program(tmp_path, MENU_SCRIPT, "p1=absent,cut=4000000")
    assert result.returncode == 0, result.stderr
    assert "self test: P2 SCREEN MISSING: P2 I2C1 0x3C (SDA GP26, SCL GP27)" in result.stdout
    lines = selftest.lines_for(0, bytearray(14), [True, False], "1-5: A CLICK EACH")
    assert _frames(writes, 3800000)[0] == _expected_frame(lines)


def test_holding_player_1s_l_at_power_on_starts_the_self_test_before_the_menu(tmp_path):
    result, writes = run_board_program(tmp_path, POWER_ON_SCRIPT, "cut=6000000")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "self test: P2 L down" in out and "self test: done" in out
    lines = selftest.lines_for(0, bytearray(14), [True, True], "SCALE C7-C8")
    assert _frames(writes, 1000000)[0] == _expected_frame(lines)


def test_without_a_key_at_power_on_the_menu_comes_first(tmp_path):
    result, _ = run_board_program(tmp_path, "tests/scripts/board_idle_off.txt", "cut=2000000")
    assert result.returncode == 0, result.stderr
    assert "self test" not in result.stdout
