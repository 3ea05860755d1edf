"""The piezo in the whole board program: ``board --sounds`` (CPython and the MicroPython VM),
the menu's SOUND item, and the same tunes on CircuitPython itself (``device --sounds``)."""

import json
import os

import pytest
from conftest import ROOT, needs_long, run_cli
from pwmio import actual_frequency
from speedduo.loop import sound as sound_module
from speedduo.loop.sound import (
    TUNE_COUNTDOWN,
    TUNE_LATE,
    TUNE_MATCH_OVER,
    TUNE_MENU,
    TUNE_NO_RESULT,
    TUNE_PLAY,
    TUNE_START,
)

from host_sim import device_run

SMOKE = os.path.join(ROOT, "tests", "scripts", "device_smoke.txt")
MUTE = os.path.join(ROOT, "tests", "scripts", "board_menu_mute.txt")
DEVICE_SOUND = os.path.join(ROOT, "tests", "scripts", "device_sound.txt")
DEVICE_SOUND_PLAY_MS = 7000
PLAY_PRESS_MS = 5000  # device_smoke.txt presses TUNE_PLAY at 5 s; the hand starts 3 s later (R3)


def _pitches(tune):
    at = sound_module._STARTS[tune]
    out = []
    while sound_module._NOTES[at + 1]:
        if sound_module._NOTES[at]:
            out.append(actual_frequency(sound_module._HZ[sound_module._NOTES[at]]))
        at += 2
    return out


def _tones(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def _board(tmp_path, *extra, script=SMOKE, name="s.jsonl"):
    sounds = tmp_path / name
    common = ["--seed", "2", "--idle-ms", "4000", "--script", script, "--sounds", str(sounds)]
    run_cli("board", *common, "--log", str(tmp_path / (name + ".log")), *extra)
    return _tones(sounds), (tmp_path / (name + ".log")).read_text()


# the smoke match: countdown (R3), start, player 0's play, player 1's late press (R8),
# then nobody presses: the hand is abandoned (R17) and the match stops without a winner
SMOKE_TUNES = [TUNE_COUNTDOWN] + [
    TUNE_START,
    TUNE_PLAY,
    TUNE_LATE,
    TUNE_NO_RESULT,
    TUNE_MATCH_OVER,
]


def test_a_scripted_match_makes_its_tones(tmp_path):
    tones, log = _board(tmp_path)
    assert [t["hz"] for t in tones] == [hz for tune in SMOKE_TUNES for hz in _pitches(tune)]
    beeps = [t["t"] for t in tones[:3]]
    # the first as soon as the loop sees the PLAY press, the next two a second apart
    assert beeps[0] - PLAY_PRESS_MS <= 5 and beeps[2] - beeps[1] == 1000
    assert 995 <= beeps[1] - beeps[0] <= 1000
    assert abs(tones[3]["t"] - (PLAY_PRESS_MS + 3000)) <= 5  # the start signal
    play = json.loads(next(line for line in log.splitlines() if '"ev":"play"' in line))
    assert abs(tones[4]["t"] - (PLAY_PRESS_MS + 3000 + play["t"])) <= 5
    assert all(set(t) == {"t", "hz", "ms"} and t["ms"] > 0 for t in tones)
    assert [t["t"] for t in tones] == sorted(t["t"] for t in tones)


def test_the_micropython_vm_makes_the_same_tones(tmp_path):
    cpython, log = _board(tmp_path)
    micropython, vm_log = _board(tmp_path, "--vm", "micropython", name="vm.jsonl")
    assert cpython == micropython and log == vm_log


def test_volume_0_mutes_the_match_and_changes_nothing_else(tmp_path):
    tones, log = _board(tmp_path)
    muted, muted_log = _board(tmp_path, "--volume", "0", name="mute.jsonl")
    assert tones and muted == [] and muted_log == log


def test_the_menu_sound_item_turns_the_piezo_off(tmp_path):
    tones, log = _board(tmp_path, script=MUTE)
    clicks = [t for t in tones if t["hz"] == _pitches(TUNE_MENU)[0]]
    assert len(clicks) == len(tones) == 5  # the presses before OFF click; nothing after
    assert all(t["t"] < 5600 for t in tones) and '"ev":"match_end"' in log


def test_a_sounds_file_that_cannot_be_written_is_one_line_and_exit_2(tmp_path):
    for where in (tmp_path, tmp_path / "no" / "such.jsonl"):
        result = run_cli("board", "--seed", "2", "--sounds", str(where), check=False)
        assert result.returncode == 2
        assert len(result.stderr.strip().splitlines()) == 1 and "sounds" in result.stderr


def test_device_tones_are_read_from_the_pwm_registers():
    """pwm.txt (harness.mjs): slice 7's writes; channel B's level is CC's high half."""
    text = "\n".join(
        [
            "100 4 16",  # DIV 1.0
            "101 16 62499",  # TOP: 2000 Hz
            "102 12 0",
            "103 0 1",  # enabled, level 0: silent
            "5000000 4 16",
            "5000000 16 53213",  # 2349 Hz
            "5000020 12 %d" % (8192 << 16),  # channel B on
            "5061000 12 0",
            "6000000 12 %d" % (100 << 16),
            "6000000 4 58",  # a frequency change while sounding: DIV 3.625, TOP 65534
            "6000010 16 65534",
            "6030000 12 %d" % 7,  # channel A only: B is silent
        ]
    )
    assert device_run.pwm_tones(text, 9000000) == [
        (5000, 2349, 61),
        (6000, 526, 30),
    ]
    assert device_run.pwm_tones("10 0 1\n20 16 62499\n30 12 %d\n" % (1 << 16), 2000) == [
        (0, 2000, 2)
    ]


@needs_long
@pytest.mark.timeout(1800)
def test_long_device_plays_the_same_tunes_as_board(tmp_path):
    """CircuitPython on rp2040js: GP15's PWM registers give the board's tones, within 60 ms.

    PLAY is pressed once the firmware's menu is up (7 s: the first beep waits for the menu
    loop to read the press, which boot delays past the smoke script's 5 s)."""
    board, log = _board(tmp_path, script=DEVICE_SOUND)
    sounds = tmp_path / "d.jsonl"
    result = run_cli(
        "device", "--seed", "2", "--idle-ms", "4000", "--script", DEVICE_SOUND,
        "--sounds", str(sounds), check=False, timeout=1800,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    device = _tones(sounds)
    assert [t["hz"] for t in device] == [t["hz"] for t in board]
    # after the hand ends the device redraws the menu on both panels, ~0.1 s in which no
    # note starts: the tunes of the end keep their notes but not their times
    end = json.loads(next(line for line in log.splitlines() if '"ev":"hand_end"' in line))
    end_ms = DEVICE_SOUND_PLAY_MS + 3000 + end["t"]
    for b, d in zip(board, device, strict=True):
        assert b["t"] > end_ms or abs(b["t"] - d["t"]) <= 60, (b, d)
