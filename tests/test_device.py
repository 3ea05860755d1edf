"""code.py on CircuitPython itself (rp2040js): the device runner, its FAT writer and its report.

The scenarios on the emulated firmware run when the firmware files are there
(``python -m host_sim device`` looks in $SPEEDDUO_DEVICE_DIR, else
~/.cache/speedduo/device; docs/device.md). The long ones (panel faults, the stalled
log port) also need ``SPEED_DEVICE_LONG=1``.
"""

import json
import os

import pytest
from conftest import ROOT, needs_firmware, needs_long, run_cli
from PIL import Image

from host_sim import device_run
from host_sim.fatimage import FatError, fat12_image, read_fat12
from host_sim.logfile import parse_log
from host_sim.replay import check_entries

# the emulator runs at ~0.2x real time: a device test takes minutes, not the suite's 120 s
slow = pytest.mark.timeout(1800)

SMOKE_SCRIPT = "tests/scripts/device_smoke.txt"
BURST_SCRIPT = "tests/scripts/device_burst.txt"


def _host_sim(*args, env=None, timeout=1800):
    return run_cli(*args, check=False, timeout=timeout, env=env)


# ---- pure parts ----


def test_fat_image_round_trips_what_deploy_copies():
    files = device_run.drive_files("SPEED_SEED = 2\n")
    image = fat12_image(files)
    assert len(image) == 1 << 20
    assert image[510:512] == b"\x55\xaa" and image[54:62] == b"FAT12   "
    assert read_fat12(image) == dict(files)
    names = {rel for rel, _ in files}
    assert {"code.py", "boot.py", "settings.toml", "lib/speedduo/loop/board_io.py"} <= names


def test_fat_image_long_names_short_names_and_limits():
    files = [
        ("A.TXT", b"upper"),
        ("lower.py", b"lower"),
        ("Mixed.Py", b"mixed"),
        ("a_very_long_file_name.toml", b"x" * 1500),
        ("a_very_long_file_name2.toml", b""),
        ("d/e/f.txt", b"deep"),
    ]
    image = fat12_image(files)
    assert read_fat12(image) == dict(files)
    assert fat12_image(files) == image  # the same files, the same bytes
    with pytest.raises(FatError):
        fat12_image([("big.bin", b"\0" * (1 << 20))])
    with pytest.raises(FatError):
        fat12_image([("x", b"1"), ("x", b"2")])


def test_settings_toml_and_button_gpios():
    text = device_run.settings_toml([("SPEED_SEED", 2), ("SPEED_CLAIM", "race"), ("SPEED_X", True)])
    assert text.splitlines()[1:] == ["SPEED_SEED = 2", 'SPEED_CLAIM = "race"', "SPEED_X = 1"]
    edges = device_run.button_edges([(100, 0, 1, True), (200, 1, 6, False)])
    assert edges == [[100, 7, True], [200, 22, False]]  # at their µs: the PIO stamps them
    assert device_run.button_edges([(5000000, 0, 0, True)]) == [[5000000, 6, True]]


def test_device_without_firmware_says_which_file_and_exits_2(tmp_path):
    result = _host_sim("device", "--seed", "2", "--firmware-dir", str(tmp_path))
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "firmware.uf2" in lines[0] and str(tmp_path) in lines[0]
    assert result.stdout == ""


def _fake_firmware(folder, listed=None):
    """firmware.uf2 and bootrom.bin in ``folder`` with a PROVENANCE.json of their sha256."""
    import hashlib

    files = {"firmware.uf2": b"uf2 stand-in", "bootrom.bin": b"rom stand-in"}
    for name, data in files.items():
        (folder / name).write_bytes(data)
    record = {
        name: {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
        for name, data in (listed or files).items()
    }
    (folder / "PROVENANCE.json").write_text(json.dumps({"files": record}))


def test_firmware_files_that_match_their_provenance_are_found(tmp_path):
    _fake_firmware(tmp_path)
    assert device_run.provenance_problems(str(tmp_path)) == []
    assert set(device_run.find_firmware(str(tmp_path))) == {"firmware.uf2", "bootrom.bin"}


def test_a_firmware_file_that_differs_from_its_provenance_is_refused_by_name(tmp_path):
    _fake_firmware(tmp_path)
    (tmp_path / "bootrom.bin").write_bytes(b"another rom")
    with pytest.raises(device_run.DeviceError, match="bootrom.bin: sha256 .* is not the"):
        device_run.find_firmware(str(tmp_path))


def test_a_file_the_provenance_lists_but_the_folder_lacks_is_named(tmp_path):
    _fake_firmware(tmp_path, {"mpy-cross": b"x"})
    assert device_run.provenance_problems(str(tmp_path)) == [
        "mpy-cross: listed in PROVENANCE.json but missing"
    ]


def test_a_firmware_folder_without_provenance_is_taken_as_it_is(tmp_path):
    _fake_firmware(tmp_path)
    (tmp_path / "PROVENANCE.json").unlink()
    assert device_run.provenance_problems(str(tmp_path)) == []


@pytest.mark.skipif(
    not os.environ.get("SPEEDDUO_DEVICE_DIR"), reason="$SPEEDDUO_DEVICE_DIR not set (CI sets it)"
)
def test_the_firmware_folder_named_for_this_run_is_complete_and_as_built():
    """Where $SPEEDDUO_DEVICE_DIR is set (CI's .ci/run sets it to its firmware copy), the
    device scenarios must run, not skip: the files are there and match PROVENANCE.json."""
    directory = os.environ["SPEEDDUO_DEVICE_DIR"]
    assert device_run.firmware_present(), f"no firmware.uf2/bootrom.bin in {directory}"
    assert os.path.isfile(os.path.join(directory, "PROVENANCE.json"))
    assert device_run.provenance_problems(directory) == []


def test_report_figures_from_recordings():
    console = (
        "\x1b]0;code.py | 10.2.1\x1b\\speedduo-profile boot free=170000\r\n"
        "speedduo-profile import free=120000\r\n"
        "speedduo-profile match live_min=100000 alloc=1200 presses=4 steps=50"
        " link_polls=2 link_alloc=3000 link_ms_max=31\r\n"
    )
    led = [(1000, 1), (3000, 0), (5000, 1), (12000, 0)]
    # pile 0 changes on both panels: 20 ms and 22 ms after the press at 3.5 s
    report = device_run.measure(console, [], [[], []], led, [])
    assert report["mem_free_boot"] == 170000 and report["mem_free_after_import"] == 120000
    assert report["heap_held"] == 70000 and report["alloc_per_press"] == 300
    assert report["step_us_p50"] == 2000 and report["step_us_p99"] == 7000
    # polls that answered the host are not a press's (profiling.py)
    assert (report["link_polls"], report["link_alloc"], report["link_ms_max"]) == (2, 3000, 31)


class _Writes:
    """PixelWrites' answer from a table: per panel, (t1, region) of each change."""

    def __init__(self, changes):
        self.changes = changes

    def first_change(self, bus, region, at_us, until_us=None):
        late = until_us if until_us is not None else 1 << 62
        return next((t for t, r in self.changes[bus] if r == region and at_us <= t < late), None)


def test_press_to_pixel_waits_for_each_panels_write_of_the_plays_own_pile():
    """Issue 29.6: a change elsewhere on a panel (the other pile, a count) is not the play's
    pixels: each panel's first write of that play's own pile region counts."""
    pile0, pile1 = (9, 40, 8, 40), (89, 120, 8, 40)
    writes = _Writes([[(3510000, pile1), (3520000, pile0)], [(3522000, pile0)]])
    presses = [(3500000, (pile0, pile0))]
    assert device_run.press_to_pixel(presses, writes) == [(22000, 2000)]
    # a play that changed no pixel of its pile is left out: the next play's write is not its
    presses = [(3400000, (pile0, pile0)), (3500000, (pile0, pile0))]
    writes = _Writes([[(3520000, pile0)], [(3522000, pile0)]])
    assert device_run.press_to_pixel(presses, writes) == [(22000, 2000)]


def test_with_a_head_start_a_play_is_timed_from_when_the_rule_lets_it_count():
    """H1: a play's ``t`` is its press less its player's lead, and the match's clock runs
    the larger lead behind: the press is found at ``t`` + its lead, and press->pixel counts
    from the press + (the larger lead - its player's), the board's time, not H1's wait."""
    play_us = 5000000
    script = [(play_us, 0, 1, True), (play_us + 4000000, 0, 1, True)]  # PLAY, P1 slot 1
    script.append((play_us + 4500000, 1, 2, True))  # P2 (200 ms lead) slot 2
    lines = [
        '{"ev":"match","v":1,"seed":1,"head_start_ms":[0,200]}',
        '{"ev":"play","t":1000,"p":0,"slot":0,"card":"4C","pile":1}',  # 3000 + 1000
        '{"ev":"play","t":1300,"p":1,"slot":1,"card":"5C","pile":1}',  # 3000 + 1300 + 200
    ]
    found = device_run.play_presses(lines, script)
    assert [t for t, _ in found] == [play_us + 4000000 + 200000, play_us + 4500000]


def test_every_games_view_says_where_a_play_shows_on_each_panel():
    from speedduo.games import view_class

    play = {"ev": "play", "t": 5, "p": 0, "slot": 2, "card": "4C", "pile": 1}
    for game in ("speed", "spit"):
        seen = [view_class(game).played(play, viewer) for viewer in (0, 1)]
        assert seen[0] == seen[1] and seen[0][0] == 3  # key 3; pile 1 right on both
        assert seen[0][1] > 64
    cover = {"ev": "cover", "t": 5, "p": 1, "row": 0, "col": 3, "card": "4C"}
    own, other = (view_class("california").played(cover, viewer) for viewer in (0, 1))
    assert own[0] == other[0] == 4 and own[1:3] == other[1:3]
    assert own[3] > other[3]  # row 0 is player 0's own row (nearest them), player 1's far one
    assert view_class("california").played(play, 0) is None


def test_the_log_stops_at_the_last_match_asked_for():
    data = '{"ev":"match"}\t1\n{"ev":"match_end"}\t2\n{"ev":"match"}\t3\n{"ev":"deal"}\t4\n'
    assert device_run.log_lines(data, 1) == ['{"ev":"match"}', '{"ev":"match_end"}']
    assert len(device_run.log_lines(data)) == 4


def test_traceback_is_found_on_the_console():
    console = (
        "code.py output:\r\nTraceback (most recent call last):\r\n"
        '  File "code.py", line 3, in <module>\r\n'
        "RuntimeError: No pull up found on SDA or SCL; check your wiring\r\n"
    )
    assert device_run.traceback_in(console).startswith("RuntimeError: No pull up")
    assert device_run.traceback_in("all fine\r\n") is None


# ---- on the emulated firmware ----


def _board_and_device(tmp_path, script, *extra, device_extra=()):
    board_log = tmp_path / "b.jsonl"
    device_log = tmp_path / "d.jsonl"
    common = ["--seed", "2", "--script", os.path.join(ROOT, script), *extra]
    board = _host_sim("board", *common, "--log", str(board_log), "--screens", str(tmp_path / "b"))
    assert board.returncode == 0, board.stderr
    device = _host_sim(
        "device", *common, "--log", str(device_log), "--report", str(tmp_path / "r.json"),
        "--screens", str(tmp_path / "d"), *device_extra,
    )  # fmt: skip
    assert device.returncode == 0, device.stderr
    return board_log.read_text(), device_log.read_text(), tmp_path / "r.json"


@needs_firmware
@slow
def test_smoke_menu_play_and_a_short_match_log_equal_to_board(tmp_path):
    board, device, report_path = _board_and_device(
        tmp_path, SMOKE_SCRIPT, "--idle-ms", "4000", "--snap", "8300"
    )
    # byte-identical: the PIO stamps every edge at the script's µs on both (issue 19)
    assert device == board and '"stamped_by":"pio"' in device
    assert '"ev":"play"' in device and '"ev":"match_end"' in device
    check_entries(parse_log(device))  # the board's log, key record and all, replays
    for panel in ("p0", "p1"):  # the same pictures on both panels, 200 ms after the race
        pictures = [Image.open(tmp_path / side / f"snap_8300_{panel}.png") for side in "bd"]
        assert pictures[0].tobytes() == pictures[1].tobytes()
    report = json.loads(report_path.read_text())
    assert report["mem_free_boot"] > 100000 or report["mem_free_boot"] == -1


def _events(log_text):
    """A log's events without its key record (the key fields, ``keys`` lines): what a
    loop pass reads at once may differ between board and device, the events do not."""
    events = []
    for line in log_text.splitlines():
        entry = json.loads(line)
        if entry["ev"] != "keys":
            for field in ("keys", "keys_us", "keys_total"):
                entry.pop(field, None)
            events.append(entry)
    return events


@needs_firmware
@slow
def test_a_burst_of_key_events_spills_the_log_ring_on_the_firmware(tmp_path):
    """More records in one loop pass than the log's ring holds (matchlog._spill): on the
    firmware the ring spills mid-pass, nothing is allocated, the game goes on and the log
    holds every event (the board's, and its key record replays)."""
    board, device, report_path = _board_and_device(tmp_path, BURST_SCRIPT, "--idle-ms", "4000")
    report = json.loads(report_path.read_text())
    assert report["log_spills"] >= 1
    assert report["alloc_per_press"] == 0
    assert _events(device) == _events(board)
    assert '"ev":"play"' in device and '"ev":"match_end"' in device
    check_entries(parse_log(device))


@needs_firmware
@slow
def test_requests_answered_on_the_firmware_and_the_match_plays_on(tmp_path):
    """issue 11 on CircuitPython 10.2.1: the host writes to the data port (USB CDC OUT);
    stats, version and rules answered in frames with a good CRC, each bad frame with its
    error frame (the same replies, at the same seqs, as the simulator's), and a request
    during the match leaves the log as the board's without requests and allocates
    nothing on the play's path (docs/link.md)."""
    from test_host_requests import EXPECTED, parsed_replies, request_options

    log, report = tmp_path / "d.jsonl", tmp_path / "r.json"
    from test_host_requests import SCRIPT

    common = ["--seed", "2", "--idle-ms", "4000", "--script", SCRIPT]
    device = _host_sim(
        "device", *common, *request_options(), "--log", str(log), "--report", str(report)
    )
    assert device.returncode == 0, device.stderr
    assert parsed_replies(device.stdout) == EXPECTED
    assert "0 not taken by the board" in device.stdout
    figures = json.loads(report.read_text())
    version = next(r["body"] for r in figures["replies"] if r.get("name") == "version")
    assert (version["impl"], version["impl_version"]) == ("circuitpython", "10.2.1")
    board = _host_sim("board", *common, *request_options())
    assert board.returncode == 0, board.stderr
    # the same replies at the same seqs (the bodies differ in version's interpreter)
    assert _reply_heads(device.stdout) == _reply_heads(board.stdout)
    quiet = _host_sim("board", *common, "--log", str(tmp_path / "b.jsonl"))
    assert quiet.returncode == 0, quiet.stderr
    assert log.read_text() == (tmp_path / "b.jsonl").read_text()
    check_entries(parse_log(log.read_text()))  # replays identically
    assert figures["alloc_per_press"] == 0  # answering is measured apart: link_*
    assert figures["link_polls"] >= 7 and figures["link_alloc"] > 0


def _reply_heads(stdout):
    """``reply seq N: $NAME`` of each reply line a run printed."""
    return [line.split(" (crc ok)")[0] for line in stdout.splitlines() if line.startswith("reply")]


def _mash_script(path, seconds=8, every_us=150000):
    """PLAY at 5 s, then both players press slots 1-5 in turn (bench/bench_device.py)."""
    lines = ["5000000 0 1"]
    t, i = 8400000, 0
    while t < 8400000 + seconds * 1000000:
        lines.append("%d %d %s" % (t, i % 2, "12345"[(i // 2) % 5]))
        t += every_us
        i += 1
    path.write_text("\n".join(lines) + "\n")
    return str(path)


@needs_long
@slow
def test_long_a_mashed_match_byte_identical_to_board(tmp_path):
    script = _mash_script(tmp_path / "mash.txt")
    board, device, report = _board_and_device(tmp_path, script, "--idle-ms", "4000")
    assert device == board
    check_entries(parse_log(device))
    assert json.loads(report.read_text())["plays_measured"] > 3


@needs_long
@slow
def test_long_a_panel_plugged_in_late_then_the_match(tmp_path):
    board, device, _ = _board_and_device(
        tmp_path, "tests/scripts/device_late_panel.txt", "--idle-ms", "4000", "--panel1=late:6000"
    )
    assert device == board and '"ev":"play"' in device


@needs_long
@slow
@pytest.mark.parametrize("fault", ["--panel1=absent", "--panel1=nack"])
def test_long_a_missing_panel_leaves_the_other_showing_the_menu(tmp_path, fault):
    result = _host_sim(
        "device", "--seed", "2", "--matches", "0", "--limit-ms", "7000", fault,
        "--screens", str(tmp_path), "--snap", "6500",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr  # no traceback on the console
    assert (tmp_path / "snap_6500_p0.png").exists()


@needs_long
@slow
def test_long_a_stalled_log_port_does_not_stop_the_game(tmp_path):
    report = tmp_path / "r.json"
    result = _host_sim(
        "device", "--seed", "2", "--idle-ms", "4000", "--script", os.path.join(ROOT, SMOKE_SCRIPT),
        "--data-port", "stop:6000", "--matches", "0", "--limit-ms", "13000",
        "--report", str(report), "--log", str(tmp_path / "d.jsonl"),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    figures = json.loads(report.read_text())
    assert figures["steps_measured"] > 500  # the loop ran on after the host stopped reading


@needs_firmware
@slow
def test_one_player_against_the_boards_opponent_byte_identical_to_board(tmp_path):
    """Issue 27.1: the opponent's presses carry µs and its reaction counts from the change
    it saw, not from a loop pass, so the firmware's log equals the simulator's byte for
    byte (before: the firmware's opponent played at 3701 ms, the shims' at 3722)."""
    board, device, report = _board_and_device(
        tmp_path, "tests/scripts/opponent_race.txt", "--opponent", "hard", "--idle-ms", "5000"
    )
    assert device == board
    entries = parse_log(device)
    check_entries(entries)
    assert {obj["p"] for _, obj in entries if obj["ev"] == "play"} == {0, 1}
    assert json.loads(report.read_text())["alloc_per_press"] == 0


@needs_long
@slow
def test_long_one_player_against_the_boards_opponent_replays(tmp_path):
    """The opponent on the firmware against a mashing child: its presses in the key record,
    the whole match replays, and the log equals ``board``'s."""
    board, device, report = _board_and_device(
        tmp_path, "tests/scripts/opponent_mash.txt", "--opponent", "medium", "--idle-ms", "4000"
    )
    entries = parse_log(device)
    check_entries(entries)
    plays = [obj for _, obj in entries if obj["ev"] == "play"]
    assert {e["p"] for e in plays} == {0, 1} and entries[-1][1]["ev"] == "match_end"
    assert json.loads(report.read_text())["alloc_per_press"] == 0
    assert _events(device) == _events(board)  # (a burst may ride other lines: README)
