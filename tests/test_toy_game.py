"""Adding a game is its rules core, its view and one registry entry (issue 29.4): the toy
game of ``toy_game.py``, defined only in tests/ and registered by them, plays through
``run``, the simulated ``board``, ``replay`` and the window's replay with no module of
the project changed."""

import json
import os
import re
import shutil
import subprocess
import sys

from conftest import ROOT, run_cli

TESTS = os.path.join(ROOT, "tests")
HOST = os.path.join(TESTS, "toy_host.py")


def _toy(*args, check=True):
    """``toy_host.py ARGS``: host_sim with the toy registered; (exit code, stdout, stderr)."""
    result = subprocess.run(
        [sys.executable, HOST, *args], capture_output=True, text=True, timeout=600, cwd=ROOT
    )
    if check and result.returncode != 0:
        raise AssertionError(f"exit {result.returncode}: {result.stderr}")
    return result.returncode, result.stdout, result.stderr


def _objects(path):
    with open(path) as f:
        return [json.loads(line) for line in f.read().splitlines()]


def test_no_module_of_the_project_knows_the_toy():
    for top in ("lib", "host_sim", "firmware", "code.py", "boot.py"):
        path = os.path.join(ROOT, top)
        files = [path] if os.path.isfile(path) else []
        for folder, _, names in os.walk(path):
            files += [os.path.join(folder, n) for n in names if n.endswith(".py")]
        for name in files:
            with open(name, encoding="utf-8") as f:
                assert not re.search(r"toy_game|\"toy\"|ToyView", f.read()), name


def test_the_toy_plays_through_run_and_replays_identically(tmp_path):
    log = tmp_path / "toy.jsonl"
    _toy("run", "--game", "toy", "--seed", "3", "--p2", "bot:easy", "--log", str(log))
    events = _objects(log)
    assert events[0]["game"] == "toy" and events[0]["stamped_by"] == "pio"
    assert sum(1 for e in events if e["ev"] == "play") >= 26  # one stock emptied
    assert events[-1]["ev"] == "match_end" and events[-1]["winner"] in (0, 1)
    code, out, _ = _toy("replay", str(log))
    assert code == 0 and "replayed identically" in out


def test_replay_refuses_an_altered_toy_log(tmp_path):
    log = tmp_path / "toy.jsonl"
    _toy("run", "--game", "toy", "--seed", "4", "--log", str(log))
    lines = log.read_text().splitlines()
    k = next(i for i, line in enumerate(lines) if line.startswith('{"ev":"play"'))
    play = json.loads(lines[k])
    play["card"] = "KS" if play["card"] != "KS" else "QS"
    lines[k] = json.dumps(play, separators=(",", ":"))
    log.write_text("\n".join(lines) + "\n")
    code, out, err = _toy("replay", str(log), check=False)
    assert code != 0 and f"line {k + 1}" in out + err


def test_the_windows_replay_plays_the_toy_log_again(tmp_path):
    log = tmp_path / "toy.jsonl"
    _toy("run", "--game", "toy", "--seed", "5", "--log", str(log))
    _, out, _ = _toy("--show-replay", str(log))
    shown = [json.loads(line) for line in out.splitlines()]
    wanted = [e for e in _objects(log) if e["ev"] != "keys"]
    for e in shown + wanted:
        for key in ("keys", "keys_us", "keys_total"):
            e.pop(key, None)
    assert shown == wanted


def _toy_drive(path):
    """A CIRCUITPY folder with the game's library, the toy beside it and a code.py that
    registers the toy first (a game added outside the package, as a user would)."""
    lib = path / "lib"
    shutil.copytree(os.path.join(ROOT, "lib", "speedduo"), lib / "speedduo")
    shutil.copy(os.path.join(TESTS, "toy_game.py"), lib / "toy_game.py")
    with open(os.path.join(ROOT, "code.py")) as f:
        code = f.read()
    (path / "code.py").write_text("import toy_game\n\ntoy_game.register()\n" + code)
    (path / "boot.py").write_bytes(open(os.path.join(ROOT, "boot.py"), "rb").read())
    (path / "settings.toml").write_text(
        'SPEED_GAME = "toy"\nSPEED_SEED = 3\nSPEED_OPPONENT = "hard"\nSPEED_IDLE_MS = 4000\n'
    )
    return path


def test_the_toy_plays_on_the_simulated_board_against_its_opponent_and_replays(tmp_path):
    drive = _toy_drive(tmp_path / "drive")
    script = tmp_path / "mash.txt"
    # PLAY, then player 0 presses 1 every 150 ms; the board's opponent plays player 1
    script.write_text("5000000 0 1\n" + "".join(f"{6000000 + i * 150000} 0 1\n" for i in range(40)))
    log = tmp_path / "b.jsonl"
    result = run_cli("board", "--drive", str(drive), "--script", str(script), "--log", str(log))
    assert "1 match(es)" in result.stdout
    events = _objects(log)
    assert events[0]["game"] == "toy"
    assert {e["p"] for e in events if e["ev"] == "play"} == {0, 1}  # both sides played
    code, out, _ = _toy("replay", str(log))
    assert code == 0 and "replayed identically" in out
