"""``device`` on a terminal: its progress on one line while the emulator runs (emulated
seconds, speed against real time, what it waits for), and nothing extra elsewhere."""

import io
import json
import os
import signal
import subprocess
import sys
import time

import pytest
from conftest import ROOT, gone_within

from host_sim import device_run
from host_sim.device_run import follow_progress, progress_text


def _report(t_us, wall_s, waiting, match=1, matches=1):
    return {"t_us": t_us, "wall_s": wall_s, "waiting": waiting, "match": match, "matches": matches}


def test_a_progress_line_gives_emulated_seconds_speed_and_what_it_waits_for():
    text = progress_text(_report(12_300_000, 30.0, "match", 2, 3))
    assert text == "device: 12.3 s emulated in 30 s (0.41x real time), waiting for match 2 of 3"


def test_each_stage_of_a_run_is_named():
    said = {w: progress_text(_report(1, 1.0, w)) for w in ("boot", "menu", "stats", "settle")}
    assert said["boot"].endswith("waiting for CircuitPython to boot")
    assert said["menu"].endswith("waiting for the menu (the script's PLAY press)")
    assert said["stats"].endswith("waiting for the stats to be saved")
    assert said["settle"].endswith("waiting for the panels to settle")


def test_progress_is_drawn_over_one_line_and_cleared_at_the_end():
    stream = io.StringIO(
        json.dumps(_report(1_000_000, 2.0, "boot"))
        + "\n"
        + json.dumps(_report(5_000_000, 4.0, "menu"))
        + "\n"
    )
    terminal = io.StringIO()
    assert follow_progress(stream, terminal) == ""
    shown = terminal.getvalue()
    assert "\n" not in shown  # one line, redrawn in place
    assert shown.count("\r\033[K") == 3 and shown.endswith("\r\033[K")
    assert "1.0 s emulated" in shown and "5.0 s emulated" in shown


def test_lines_that_are_not_progress_are_kept_for_the_error_message():
    stream = io.StringIO(json.dumps(_report(1, 1.0, "boot")) + "\nError: no bootrom\n")
    assert follow_progress(stream, io.StringIO()) == "Error: no bootrom\n"


_FAKE_NODE = """#!%s
import json, os, sys
config = json.load(open(sys.argv[2]))
if config["progress"]:
    print(json.dumps({"t_us": 2500000, "wall_s": 5.0, "waiting": "boot"}), file=sys.stderr)
with open(os.path.join(config["out"], "result.json"), "w") as f:
    json.dump({"reason": "matches"}, f)
"""


def _fake_harness(tmp_path, monkeypatch):
    """A stand-in for node + harness.mjs: one progress line when asked, then its result."""
    node = tmp_path / "node"
    node.write_text(_FAKE_NODE % sys.executable)
    node.chmod(0o755)
    monkeypatch.setattr(device_run, "node_binary", lambda: str(node))
    out = tmp_path / "out"
    out.mkdir()
    return {"out": str(out)}


def test_a_run_on_a_terminal_shows_the_harness_progress(tmp_path, monkeypatch):
    config = _fake_harness(tmp_path, monkeypatch)
    terminal = io.StringIO()
    assert device_run.run_harness(config, str(tmp_path), terminal) == {"reason": "matches"}
    assert "device: 2.5 s emulated in 5 s (0.50x real time)" in terminal.getvalue()


def test_a_run_not_on_a_terminal_asks_for_no_progress_and_shows_none(tmp_path, monkeypatch, capfd):
    config = _fake_harness(tmp_path, monkeypatch)
    assert not device_run._on_terminal()  # pytest captures stdout and stderr
    assert device_run.run_harness(config, str(tmp_path), None) == {"reason": "matches"}
    assert json.load(open(tmp_path / "config.json"))["progress"] is False
    assert capfd.readouterr() == ("", "")


_BLOCKING_NODE = """#!%s
import os, signal, sys
with open(sys.argv[2] + ".pid", "w") as f:
    f.write(str(os.getpid()))
signal.pause()  # an emulator still running
"""
_DRIVER = """
import sys
from host_sim import cli, device_run
cli.stop_on_signals()
device_run.node_binary = lambda: sys.argv[1]
device_run.run_harness({"out": sys.argv[2]}, sys.argv[2], None)
"""


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="needs Linux's /proc")
def test_a_sigterm_to_device_stops_the_emulator_too(tmp_path):
    node = tmp_path / "node"
    node.write_text(_BLOCKING_NODE % sys.executable)
    node.chmod(0o755)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.path.join(ROOT, "lib")]))
    driver = subprocess.Popen(
        [sys.executable, "-c", _DRIVER, str(node), str(tmp_path)], cwd=ROOT, env=env
    )
    pid_file = tmp_path / "config.json.pid"
    try:
        deadline = time.monotonic() + 60
        while not pid_file.exists() and driver.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)  # waiting for the stand-in to start, not timing the behaviour
        assert pid_file.exists(), "the stand-in emulator never started"
        driver.send_signal(signal.SIGTERM)
        assert driver.wait(timeout=60) == 128 + signal.SIGTERM
        assert gone_within([int(pid_file.read_text())], 10), "the emulator runs on"
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
        if pid_file.exists() and not gone_within([int(pid_file.read_text())], 0):
            os.kill(int(pid_file.read_text()), signal.SIGKILL)  # left by a failed run only
