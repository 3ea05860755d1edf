"""Issue 10's whole promise in one run of code.py's program on the shims: one player
against the board's own opponent, to the end, with the piezo's tones recorded, the stats
written to flash, a power cut during the next save, and the boot after it reading them."""

import json
import os

from conftest import ROOT, run_cli
from microcontroller import ByteArray
from speedduo.host.stats import Stats

SCRIPT = os.path.join(ROOT, "tests", "scripts", "opponent_mash.txt")


def _board(tmp_path, nvm, *extra):
    log = tmp_path / "m.jsonl"
    sounds = tmp_path / "tones.jsonl"
    command = ["board", "--seed", "2", "--idle-ms", "4000", "--opponent", "hard"]
    command += ["--script", SCRIPT, "--nvm", str(nvm), "--log", str(log), "--sounds", str(sounds)]
    result = run_cli(*command, *extra, check=False)
    assert result.returncode == 0, result.stderr
    return result, log, sounds


def _stats(nvm):
    flash = ByteArray()
    flash.load(nvm.read_bytes())
    return Stats(flash)


def test_one_player_against_the_board_with_tones_and_stats_that_survive_a_power_cut(tmp_path):
    nvm = tmp_path / "stats.nvm"
    first, log, sounds = _board(tmp_path, nvm)
    events = [json.loads(line) for line in log.read_text().splitlines()]
    plays = [e for e in events if e["ev"] == "play"]
    assert {e["p"] for e in plays} == {0, 1}  # the human and the board's opponent both played
    assert events[-1]["ev"] == "match_end"  # to the end
    replay = run_cli("replay", str(log), check=False)
    assert replay.returncode == 0, replay.stdout  # the opponent's presses are in the key record
    tones = [json.loads(line) for line in sounds.read_text().splitlines()]
    assert len(tones) > len(plays) and {"t", "hz", "ms"} <= set(tones[0])  # a click a play, more
    saved = _stats(nvm)
    assert saved.store.seq == 1 and saved.totals(0)[0] == 1  # one match in classic mode

    # the next match's save is cut by a power cut half way: the boot after it reads record 1
    write = [line for line in first.stdout.splitlines() if line.startswith("nvm: write at ")]
    t0, t1 = (float(x) for x in write[0].split()[3].split("-"))
    cut, _, _ = _board(tmp_path, nvm, "--power-cut-ms", "%.3f" % ((t0 + t1) / 2))
    assert "power cut at" in cut.stdout
    assert _stats(nvm).summary() == saved.summary()  # the old record, never garbage
    again, _, _ = _board(tmp_path, nvm)
    assert "board console: stats: record 1 read from nvm" in again.stdout
    assert _stats(nvm).totals(0)[0] == 2  # read back after the cut, and the new match added
