"""Idle power-off (issue 18, item 5): IDLE_OFF_MIN / IDLE_OFF_S, both panels dark, any key wakes.

The board program runs on the shims (host_sim/board_run.py); what the panels got is read
from the I2C trace through our SSD1306 emulator. The same on CircuitPython itself:
tests/test_device_idle.py.
"""

from conftest import run_board_program, run_cli
from speedduo.loop.settings import Settings
from test_selftest import panels_at

IDLE_SCRIPT = "tests/scripts/board_idle_off.txt"
DISPLAY_OFF = "00ae"  # control byte 0x00 (commands), then SSD1306 "display off"
LAST_KEY_US = 1100000  # the script's last key event before the board dozes
WAKE_US = 5000000
SECOND_PRESS_US = 6000000


def _settings(**values):
    return Settings(values.get)


def test_idle_off_is_five_minutes_by_default_and_zero_means_never():
    assert _settings().idle_off_ms == 5 * 60 * 1000
    assert _settings(IDLE_OFF_MIN=0).idle_off_ms == 0
    assert _settings(IDLE_OFF_MIN=12).idle_off_ms == 12 * 60 * 1000


def test_idle_off_s_replaces_the_minutes_for_tests():
    assert _settings(IDLE_OFF_MIN=12, IDLE_OFF_S=3).idle_off_ms == 3000


def test_a_bad_idle_off_min_is_reported_and_the_default_kept():
    settings = _settings(IDLE_OFF_MIN="soon")
    assert settings.idle_off_ms == 5 * 60 * 1000
    assert settings.problems == [("IDLE_OFF_MIN", "0..240")]
    assert _settings(IDLE_OFF_MIN=241).problems == [("IDLE_OFF_MIN", "0..240")]


def _idle_run(tmp_path, **settings):
    result, writes = run_board_program(tmp_path, IDLE_SCRIPT, "cut=7000000", **settings)
    assert result.returncode == 0, result.stderr
    return result, writes


def test_both_panels_get_display_off_after_the_idle_time_in_the_menu(tmp_path):
    result, writes = _idle_run(tmp_path, IDLE_OFF_S="2")
    for bus in (0, 1):
        offs = [w["t1"] for w in writes if w["bus"] == bus and w["data"] == DISPLAY_OFF]
        assert len(offs) == 1, offs
        assert LAST_KEY_US + 2000000 <= offs[0] < LAST_KEY_US + 2100000
        # dark until the key: nothing else goes to the panel meanwhile
        between = [w for w in writes if w["bus"] == bus and offs[0] < w["t0"] < WAKE_US]
        assert between == []
    assert [p.display_on for p in panels_at(writes, WAKE_US)] == [False, False]
    assert "idle: both screens off; any key wakes the board" in result.stdout


def test_any_key_wakes_both_panels_to_the_menu_as_it_was(tmp_path):
    _, writes = _idle_run(tmp_path, IDLE_OFF_S="2")
    before = panels_at(writes, LAST_KEY_US + 1900000)
    woken = panels_at(writes, WAKE_US + 150000)  # a nap is 0.1 s
    assert [p.display_on for p in woken] == [True, True]
    # the waking press (Player 2's 1 on BEST OF) did nothing: the same menu on both panels
    assert [bytes(p.gddram) for p in woken] == [bytes(p.gddram) for p in before]
    later = panels_at(writes, SECOND_PRESS_US + 200000)
    assert [bytes(p.gddram) for p in later] != [bytes(p.gddram) for p in woken]


def test_idle_off_zero_never_turns_the_panels_off(tmp_path):
    result, writes = _idle_run(tmp_path, IDLE_OFF_S="0", IDLE_OFF_MIN="0")
    assert not [w for w in writes if w["data"] == DISPLAY_OFF]
    assert "idle:" not in result.stdout


def test_a_bad_idle_off_s_option_is_one_line_and_exit_2():
    result = run_cli("board", "--idle-off-s", "soon", check=False)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1].endswith("bad idle time 'soon': 0..14400 seconds")
