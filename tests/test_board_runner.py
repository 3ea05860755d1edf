"""``python -m host_sim board``, the board program's runner (issue 27, point 2): SPEED_PROFILE
on the shims, a script that ends before the matches asked for, a log of several matches,
and a drive that deploy wrote."""

import os

from conftest import run_cli
from test_deploy import dp, make_drive, quiet

from host_sim.replay import replay_file

PLAY_ONCE = "1000000 0 1\n"  # Player 1 presses 1 on PLAY at 1 s; nobody plays after
PLAY_TWICE = "1000000 0 1\n90000000 0 1\n"  # ... and again at 90 s, the first match over


def _script(tmp_path, text):
    path = tmp_path / "presses.txt"
    path.write_text(text)
    return str(path)


def test_speed_profile_runs_on_cpython_and_says_the_heap_is_not_measured(tmp_path):
    settings = tmp_path / "settings.toml"
    settings.write_text("SPEED_PROFILE = 1\nSPEED_SEED = 1\n")
    args = ("board", "--settings", str(settings), "--script", _script(tmp_path, PLAY_ONCE))
    cpython = run_cli(*args, timeout=120).stdout.splitlines()
    assert "board console: profile: this Python has no gc.mem_free/gc.mem_alloc" in cpython[1]
    match = [line for line in cpython if "speedduo-profile match " in line]
    assert len(match) == 1 and "live_min=-1 alloc=-1 " in match[0] and "steps=" in match[0]
    # the MicroPython VM has gc.mem_free: the same lines, measured
    micropython = run_cli(*args, "--vm", "micropython", timeout=120).stdout
    assert "heap figures -1" not in micropython
    assert "speedduo-profile match live_min=-1" not in micropython
    assert "speedduo-profile import free=" in micropython


def test_more_matches_than_the_script_plays_stop_in_the_menu_with_one_line(tmp_path):
    log = tmp_path / "m.jsonl"
    script = _script(tmp_path, PLAY_ONCE)
    result = run_cli(
        "board", "--seed", "1", "--script", script, "--matches", "3", "--log", str(log),
        check=False, timeout=120,
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1
    assert "--matches 3: the board played 1 and waits in its menu" in result.stderr
    assert replay_file(str(log))[0]  # what was played is kept
    assert not os.path.exists(tmp_path / "m-2.jsonl")
    # no script at all: nothing can ever start
    result = run_cli("board", "--seed", "1", check=False, timeout=60)
    assert result.returncode == 2 and "the board played 0 and waits" in result.stderr


def test_a_run_of_several_matches_writes_one_log_per_match_each_replaying(tmp_path):
    log = tmp_path / "m.jsonl"
    script = _script(tmp_path, PLAY_TWICE)
    result = run_cli(
        "board", "--seed", "1", "--script", script, "--matches", "2", "--log", str(log),
        timeout=120,
    )  # fmt: skip
    second = tmp_path / "m-2.jsonl"
    assert f"one match per file: {log}, {second}" in result.stdout
    for path in (log, second):
        ok, message = replay_file(str(path))
        assert ok, message
    assert log.read_text().count('"ev":"match"') == 1


def test_board_drive_runs_exactly_the_drive_deploy_wrote(tmp_path):
    drive = make_drive(tmp_path / "CIRCUITPY")
    dp.deploy(str(drive), say=quiet, mpy_cross="")  # a version folder and its code.py
    # a lib/speedduo an earlier copy left: CircuitPython never imports it (docs/deploy.md)
    stale = drive / "lib" / "speedduo"
    stale.mkdir(parents=True)
    (stale / "__init__.py").write_text("raise ImportError('the stale lib/ was imported')\n")
    with open(drive / "settings.toml", "a") as f:
        f.write("SPEED_SEED = 7\n")
    log = tmp_path / "drive.jsonl"
    script = _script(tmp_path, PLAY_ONCE)
    result = run_cli("board", "--drive", str(drive), "--script", script, "--log", str(log))
    assert "board: 1 match(es)" in result.stdout
    assert '"seed":7' in log.read_text().splitlines()[0]  # the drive's settings.toml
    assert replay_file(str(log))[0]


def test_a_drive_of_circuitpython_bytecode_is_refused_with_one_line(tmp_path):
    drive = make_drive(tmp_path / "CIRCUITPY")
    (drive / "code.py").write_text("import speedduo\n")
    (drive / "lib" / "speedduo").mkdir(parents=True)
    (drive / "lib" / "speedduo" / "__init__.mpy").write_bytes(b"C\x06")
    result = run_cli("board", "--drive", str(drive), check=False)
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert "CircuitPython bytecode (.mpy)" in result.stderr
