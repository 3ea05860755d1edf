"""H3 auto-balance on the board (issue 30): switched on from the menu, one step toward the
match's loser after it, said on both panels, kept in the stats record across power-on.

The match is seed 2's hard-vs-easy one of tests/test_stats_board.py (Player 1 wins 2-0), its
keys moved to after the menu presses that switch AUTO BALANCE on."""

import json
import os
import subprocess
import sys

from conftest import ROOT
from microcontroller import ByteArray
from speedduo.display.menu import AUTO_BALANCE, Menu
from speedduo.game.rules import Rules
from speedduo.host.stats import Stats
from test_stats_board import match_script  # noqa: F401  (the fixture)

SHIFT_US = 4000000  # the match's keys, after the menu's presses


def _stats(path):
    nvm = ByteArray()
    nvm.load(path.read_bytes())
    return Stats(nvm)


def _switch_on_then(match_script_path, tmp_path):  # noqa: F811
    """R to AUTO BALANCE, 1 (on), L back to PLAY, then the match (PLAY at 1 s + SHIFT)."""
    t = 1000000
    menu = []
    for key in ["R"] * AUTO_BALANCE + ["1"] + ["L"] * AUTO_BALANCE:
        menu.append(f"{t} 0 {key}")
        t += 100000
    assert t < SHIFT_US
    moved = []
    for line in open(match_script_path).read().splitlines():
        at, rest = line.split(" ", 1)
        moved.append(f"{int(at) + SHIFT_US} {rest}")
    script = tmp_path / "balance_then_match.txt"
    script.write_text("\n".join(menu + moved) + "\n")
    return str(script)


def _board_run(script, nvm, matches=1):
    """code.py's program on the shims (host_sim/board_run.py) with ``nvm``'s bytes: its
    whole console (the notice's line too: menu_loop.notice prints what both panels show)."""
    runner = os.path.join(ROOT, "host_sim", "board_run.py")
    argv = [ROOT, "200", str(matches), script, "-", "", "-", str(nvm)]
    env = dict(os.environ, SPEED_SEED="2")
    return subprocess.run(
        [sys.executable, runner, *argv], capture_output=True, text=True, env=env, timeout=300
    )


def _match_lines(output):
    """The log's match lines in a board_run console."""
    return [
        json.loads(line.split("\t")[0])
        for line in output.splitlines()
        if line.startswith('{"ev":"match",')
    ]


def test_the_menu_switches_it_on_and_starting_even_is_its_reset():
    rules = Rules(head_start_p1_ms=150)
    menu = Menu(rules, 3)
    assert menu.lines()[AUTO_BALANCE] == "AUTO BALANCE OFF"
    menu.selected = AUTO_BALANCE
    menu.press(1)
    assert menu.lines()[AUTO_BALANCE] == "AUTO BALANCE ON" and rules.head_start_p1_ms == 0
    menu.press(1)
    assert not menu.auto_balance and rules.head_start_p1_ms == 0


def test_a_match_moves_the_head_start_to_its_loser_says_it_and_the_next_boot_keeps_it(
    tmp_path,
    match_script,  # noqa: F811
):
    nvm = tmp_path / "stats.nvm"
    first = _board_run(_switch_on_then(match_script, tmp_path), nvm)
    assert first.returncode == 0, first.stderr
    assert '"ev":"match_end","winner":0,"score":[2,0]' in first.stdout  # 0/0: the same match
    notice = "AUTO BALANCE: P1 HEAD START OFF / P2 HEAD START 50MS"
    assert notice in first.stdout  # on both panels (menu_loop.notice), and the console
    kept = _stats(nvm)
    assert kept.balance() == (True, 0, 50) and kept.totals(0) == (1, 2)
    assert kept.summary()["balance"] == {"on": True, "head_start_ms": [0, 50]}

    # power on again: the menu has it on, P2's 50 ms; PLAY at 1 s starts a match with it
    again = _board_run(match_script, nvm)
    assert again.returncode == 0, again.stderr
    (match,) = _match_lines(again.stdout)
    assert match["head_start_ms"] == [0, 50]
    assert "AUTO BALANCE: " in again.stdout  # (and its next step, whoever won)


def test_a_stats_reset_keeps_the_switch_and_the_leads():
    stats = Stats()
    stats.set_balance(True, 0, 200)
    stats.data[0] = 7  # a mode's count
    stats.reset()
    assert stats.data[0] == 0 and stats.balance() == (True, 0, 200)
