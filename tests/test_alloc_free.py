"""The play path allocates nothing (STYLE.md "Prove it"): bench/mp_heap_lock.py under the VM.

The script runs every path of a press (plays with and without refill, late and
invalid refusals, the R16 lock-out, stall flips, redeals, hand ends, the next
deal, the arbiter's tie and service paths, whole matches of the board's loop against
its own opponent) under ``micropython.heap_lock()``.
The piezo's tune sequencer (speedduo/loop/sound.py) runs there too: every tune's record,
the countdown and note changes, and App.step with the sound attached. It also runs a
control that does allocate (log formatting), so a lock that caught nothing would fail
this test too.
"""

import os
import subprocess
import sys

from host_sim import ROOT

SCRIPT = os.path.join(ROOT, "bench", "mp_heap_lock.py")


def _micropython():
    here = os.path.join(os.path.dirname(sys.executable), "micropython")
    venv = os.path.join(ROOT, ".venv", "bin", "micropython")
    for path in (here, venv):
        if os.path.exists(path):
            return path
    raise AssertionError("micropython is not installed: run `python3 dev.py setup`")


def _run_heap_lock_script():
    command = [_micropython(), "-X", "heapsize=320K", SCRIPT, ROOT]  # (64-bit VM, from source)
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def test_every_play_path_runs_with_the_heap_locked():
    lines = _run_heap_lock_script()
    paths = [line for line in lines if line.split(" ", 1)[0] in ("PASS", "FAIL", "WRONG")]
    assert len(paths) >= 18, lines
    assert any(line.startswith("PASS Sound:") for line in paths)
    assert any(line.startswith("PASS App.step with sound") for line in paths)
    assert sum(1 for line in paths if "against the opponent" in line) == 2, lines
    failed = [line for line in paths if not line.startswith("PASS ")]
    assert not failed, "\n".join(failed)
    assert any(line.startswith("CONTROL MatchLog.drain allocates and was caught") for line in lines)
    assert lines[-1] == "ALL PASS"


GAMES_SCRIPT = os.path.join(ROOT, "bench", "mp_heap_lock_games.py")


def test_spit_and_california_board_loops_run_whole_matches_with_the_heap_locked():
    """V8, V9: GameApp.step against the board's opponent, every press of whole matches
    (deals, rounds' ends, stalls, slaps, refusals, ties; one each with head starts, H1)
    under heap_lock."""
    command = [_micropython(), "-X", "heapsize=256K", GAMES_SCRIPT, ROOT]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    matches = [line for line in lines if line.split(" ", 1)[0] in ("PASS", "FAIL", "WRONG")]
    assert sum(1 for line in matches if " spit " in line) == 4, lines
    assert sum(1 for line in matches if " california " in line) == 4, lines
    assert sum(1 for line in matches if "H1 head starts" in line) == 2, lines  # (issue 30)
    failed = [line for line in matches if not line.startswith("PASS ")]
    assert not failed, "\n".join(failed)
    assert any(line.startswith("CONTROL GameLog.drain allocates and was caught") for line in lines)
    assert lines[-1] == "ALL PASS"
