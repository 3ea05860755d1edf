"""The self-test and the idle power-off on CircuitPython itself (rp2040js; docs/device.md).

One run of ``python -m host_sim device`` (~80 s wall), read by each test: Player 1's L held
at power-on starts the self-test, L+R leaves it, the menu then goes dark after IDLE_OFF_S
and a press wakes it. Needs the firmware files (tests/test_device.py).
"""

import json

import pytest
from conftest import run_cli
from speedduo.loop import selftest
from speedduo.loop.sound import TUNE_SCALE
from test_device import needs_firmware, slow
from test_selftest import _expected_frame, _frames
from test_sound_board import _pitches

SCRIPT = "tests/scripts/device_self_test_idle.txt"
WAKE_US = 13000000
DISPLAY_OFF = "00ae"
DISPLAY_ON_LAST = "af"  # the set-up sequence's last command: display on


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    keep = tmp_path_factory.mktemp("device_idle")
    sounds = keep / "sounds.jsonl"
    result = run_cli(
        "device", "--idle-off-s", "2", "--script", SCRIPT, "--matches", "0",
        "--limit-ms", "14000", "--keep", str(keep), "--sounds", str(sounds),
        check=False, timeout=1800,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    writes = []
    for bus in (0, 1):
        for line in (keep / f"i2c{bus}.jsonl").read_text().splitlines():
            t = json.loads(line)
            writes.append(dict(t, bus=bus))
    console = (keep / "console.bin").read_bytes().decode("utf-8", "replace")
    waits = {}
    for line in (keep / "cpu_wait.txt").read_text().splitlines():
        t_ms, wait_us = line.split()
        waits[int(t_ms)] = int(wait_us)
    tones = [json.loads(line) for line in sounds.read_text().splitlines()]
    return console, writes, waits, tones


def _off_times(writes, bus):
    return [w["t1"] for w in writes if w["bus"] == bus and w["ack"] and w["data"] == DISPLAY_OFF]


@needs_firmware
@slow
def test_on_the_firmware_l_held_at_power_on_starts_the_self_test(run):
    console, writes, _, _ = run
    assert "self test: P1 I2C0 0x3C answers" in console
    assert "self test: P2 I2C1 0x3C answers" in console
    assert console.index("self test: P1 R down") < console.index("self test: done")
    expected = [
        _expected_frame(selftest.lines_for(i, bytearray(14), [True, True], "SCALE C7-C8"))
        for i in (0, 1)
    ]
    # while the scale plays (as soon as the board is up: ~1.5 s on the frozen build, later
    # on a slower boot), both panels show the self-test's screen
    shown = [t for t in range(0, 9000000, 100000) if _frames(writes, t) == expected]
    assert shown, "the self-test's screen with the scale's line never showed on both panels"


@needs_firmware
@slow
def test_on_the_firmware_the_self_test_plays_the_scale_on_the_piezo(run):
    _, _, _, tones = run
    assert [t["hz"] for t in tones[:8]] == _pitches(TUNE_SCALE)


@needs_firmware
@slow
def test_on_the_firmware_both_buses_get_display_off_after_the_idle_time(run):
    console, writes, _, _ = run
    assert "idle: both screens off" in console
    offs = [_off_times(writes, bus) for bus in (0, 1)]
    assert [len(times) for times in offs] == [1, 1]
    assert 11000000 <= offs[0][0] < WAKE_US and abs(offs[0][0] - offs[1][0]) < 5000
    for bus in (0, 1):  # dark until the key: nothing else goes to the panel meanwhile
        assert not [w for w in writes if w["bus"] == bus and offs[bus][0] < w["t0"] < WAKE_US]


@needs_firmware
@slow
def test_on_the_firmware_the_cpu_waits_for_interrupts_while_the_board_dozes(run):
    _, writes, waits, _ = run
    off_ms = _off_times(writes, 0)[0] // 1000
    dozing = [waits.get(t, 0) for t in range(int(off_ms) // 100 * 100 + 100, 12900, 100)]
    awake = [waits.get(t, 0) for t in range(6000, 6900, 100)]  # the self-test's loop
    assert dozing and min(dozing) > 80000  # > 80 % of every 100 ms
    assert max(awake) < 10000


@needs_firmware
@slow
def test_on_the_firmware_a_press_wakes_both_panels_to_the_same_menu(run):
    console, writes, _, _ = run
    assert "idle: woken by a key" in console
    for bus in (0, 1):
        ons = [
            w["t1"]
            for w in writes
            if w["bus"] == bus and w["t0"] >= WAKE_US and w["data"].endswith(DISPLAY_ON_LAST)
        ]
        assert ons and ons[0] < WAKE_US + 150000
    before = _frames(writes, WAKE_US - 1000000)
    woken = _frames(writes, WAKE_US + 900000)
    assert woken == before  # the waking press did nothing in the menu
