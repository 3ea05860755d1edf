"""H1 on the board (issue 30): each player's head start set from the menu (P1 HEAD START,
P2 HEAD START) reaches the match's log, and the countdown shows both leads on both panels.

Script (tests/scripts/board_menu_head_start.txt): player 0 moves R ten times to P2 HEAD
START, presses 1 six times (300 ms), moves L ten times back to PLAY and presses 1 at 3.6 s;
settings.toml's SPEED_HEAD_START_P1_MS (100) is where P1 HEAD START starts.
"""

import json

import pytest
from conftest import run_board_program
from game_screens import Table, shows
from null_bus import NullBus
from speedduo.display.base_view import FONT, INDEX
from speedduo.display.menu import HEAD_START_P2
from speedduo.display.ssd1306 import PRIVATE, WIDTH, Panel
from test_selftest import _frames

SCRIPT = "tests/scripts/board_menu_head_start.txt"
PLAY_US = 3600000
PLAYING_US = 3500000  # after PLAY: the countdown is over, the hand not yet abandoned (R17)


def _page0(text, x=4):
    """Page 0 with ``text`` from column ``x`` (the countdown's leads: x 4, base_view.View)."""
    panel = Panel(NullBus())
    panel.online = True
    panel.text(FONT, INDEX, text, x, 0, PRIVATE, False)
    return bytes(panel.buf[1 + col] for col in range(WIDTH))


def test_head_start_from_the_menu_is_logged_and_shown_in_the_countdown(tmp_path):
    assert HEAD_START_P2 == 10  # the script's ten R presses
    result, writes = run_board_program(tmp_path, SCRIPT, SPEED_HEAD_START_P1_MS=100)
    assert result.returncode == 0, result.stderr
    match = [line for line in result.stdout.splitlines() if line.startswith('{"ev":"match"')]
    assert json.loads(match[0].split("\t")[0])["head_start_ms"] == [100, 300]
    want = _page0(b"P1 +100MS  P2 +300MS")
    counting = _frames(writes, PLAY_US + 1500000)  # the countdown (R3)
    for frame in counting:
        assert frame[:WIDTH] == want
    for frame in _frames(writes, PLAY_US + PLAYING_US):  # dealt: YOU 20 ... THEM 20 again
        assert frame[:18] == _page0(b"YOU", 0)[:18] and frame[86:110] == _page0(b"THEM", 86)[86:110]


@pytest.mark.parametrize("game", ["spit", "california"])
def test_the_other_games_countdown_shows_both_leads_then_the_counts(game):
    """V8, V9: the same line in the countdown (game_view.GameView), YOU / THEM at the deal;
    without a head start the countdown's top line is YOU / THEM as before."""
    t = Table(game, 3, head_start_p1_ms=250)
    t.at(1200)
    for v in t.views:
        assert shows(v.panel, 0, "P1 +250MS  P2 +0MS") and not shows(v.panel, 0, "YOU")
    t.start_round()
    for v in t.views:
        assert shows(v.panel, 0, "YOU") and shows(v.panel, 0, "THEM")
        assert not shows(v.panel, 0, "P1 +250MS")
    plain = Table(game, 3)
    plain.at(1200)
    for v in plain.views:
        assert shows(v.panel, 0, "YOU") and not shows(v.panel, 0, "P1 +")
