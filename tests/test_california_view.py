"""California Speed's screens (docs/rules.md V9; lib/speedduo/display/california_view.py).

A seeded ``GameSession`` (seed 24 deals a grid with no pair: a stall at once)
is driven through the deal, the stall and the blocked round (V9.5), the next
round's covers and a refusal, and the match's end (V9.4); ``Screens.refresh(core,
match, now)`` draws both emulated panels as the board does. Goldens:
tests/golden/screens/california_*.png (SPEED_UPDATE_GOLDEN=1 to regenerate;
docs/img copies them: host_sim/tools/docs_screens.py).
"""

import os
import subprocess

import pytest
from game_screens import Table, check_refusal, golden_test, page_row, shows
from speedduo.display import game_view, glyphs
from speedduo.display.ssd1306 import ROW
from speedduo.vocab.codes import KEY_L, KEY_R, OVER, PLAYING, RESULT

from host_sim import ROOT

SEED = 24  # the first round's grid has no pair (V9.5)
BACK = game_view.BACK
COL_X = (12, 34, 56, 78, 100)
MICROPYTHON = os.path.join(ROOT, ".venv", "bin", "micropython")


def _tops(core):
    return bytes(pile[-1] if pile else 255 for pile in core.grid)


def _card_bytes(card):
    start = (card >> 2) * glyphs.MEDIUM_SIZE
    return glyphs.MEDIUM[start : start + glyphs.MEDIUM_W]


def _second_round():
    t = Table("california", SEED)
    t.start_round()
    t.until(lambda: t.match.phase == RESULT)
    t.at(t.match.hand_start)
    assert t.match.phase == PLAYING and t.core.hand_no == 2
    return t


def _refusable(core, p):
    """A column with nothing to cover in either row (V9.6), or -1."""
    for col in range(5):
        if core.pile_for(p, col) < 0:
            return col
    return -1


def _refusal_ready(p):
    """Round 2, played on until player p has a column with nothing to cover."""
    t = _second_round()
    assert t.until(lambda: _refusable(t.core, p) >= 0 and t.core.stall_due < 0)
    t.at(t.now + 700)  # any flash is over
    return t


def test_countdown_shows_face_down_rows_and_the_seconds_left():
    t = Table("california", SEED)
    t.at(1200)
    for v in t.views:
        assert v.moment == (game_view.M_COUNT, 2)  # R3
        assert bytes(v._grid) == bytes([BACK] * 10)


def test_each_player_sees_their_own_row_nearest_them():
    t = _second_round()
    core = t.core
    for p, v in enumerate(t.views):
        assert bytes(v._grid) == _tops(core)
        for col in range(5):
            own = core.grid[p * 5 + col][-1]
            other = core.grid[(1 - p) * 5 + col][-1]
            # own row on pages 4-5 (not the target: plain), the other's on 1-2 (inverted)
            x = COL_X[col]
            assert page_row(v.panel, 4)[x : x + 12] == _card_bytes(own)
            inverted = bytes(b ^ 0xFF for b in _card_bytes(other))
            assert page_row(v.panel, 1)[x : x + 12] == inverted
        assert shows(v.panel, 3, "1") and shows(v.panel, 0, "YOU %d" % len(core.stock[p]))


def test_l_and_r_move_the_inverted_target_row():
    t = _second_round()
    panel = t.views[0].panel

    def band(page):
        return panel.buf[page * ROW + 1 + 8]

    assert (band(1), band(4)) == (0xFF, 0)  # V9.6: each starts aiming at the other row
    t.press(0, KEY_L)
    assert (band(1), band(4)) == (0, 0xFF)
    t.press(0, KEY_R)
    assert (band(1), band(4)) == (0xFF, 0)


def test_a_cover_reaches_both_panels_and_the_stock_count():
    t = _second_round()
    core = t.core
    keys = core.bot_keys(0)
    assert keys
    left = len(core.stock[0])
    for b in t.buses:
        b.reset_counters()
    t.press(0, keys[0])
    cover = t.last("cover")
    assert cover is not None
    for v in t.views:
        assert bytes(v._grid) == _tops(core)
    assert shows(t.views[0].panel, 0, "YOU %d" % (left - 1))
    assert shows(t.views[1].panel, 0, "THEM %d" % (left - 1))
    assert all(b.bytes.get(0x3C, 0) < 512 for b in t.buses)  # a diff, not a frame


def test_a_refused_press_flashes_invalid_on_that_players_panel_only():
    t = _refusal_ready(1)
    check_refusal(t, 1, 1 + _refusable(t.core, 1), 6)  # V9.6: nothing to cover there


def test_a_lost_race_flashes_late():
    """R8: a column whose pile was covered less than race_window_ms ago."""
    t = _second_round()
    core = t.core
    for _ in range(200):
        keys = core.bot_keys(0)
        if not keys or core.over:
            break
        t.press(0, keys[0], dt=200)
        col = t.last("cover")["col"]
        if core.pile_for(1, col) < 0:
            t.press(1, 1 + col, dt=10)
            assert t.last("reject")["why"] == "late"
            assert t.views[1].moment[0] == game_view.M_LATE
            assert shows(t.views[1].panel, 6, "LATE")
            return
    pytest.fail("no lost race found")


def test_no_pair_stalls_then_the_round_is_blocked_and_the_next_one_counts_down():
    t = Table("california", SEED)
    t.start_round()
    t.at(t.now + 10)
    assert t.core.stall_due >= 0  # V9.5
    for v in t.views:
        assert v.moment[0] == game_view.M_STALL
        assert shows(v.panel, 6, "STALL")
    t.at(t.match.hand_start + t.core.stall_due)
    assert t.last("hand_end")["why"] == "blocked" and t.match.phase == RESULT
    for v in t.views:
        assert v.moment[0] == game_view.M_BLOCKED
        assert shows(v.panel, 6, "BLOCKED") and shows(v.panel, 7, "NO PAIRS: NEW ROUND")
        assert bytes(v._grid) == bytes([255] * 10)  # the rows went under the stocks
    t.at(t.match.hand_start - 2500)
    assert [v.moment[0] for v in t.views] == [game_view.M_COUNT] * 2


def test_the_match_ends_with_who_won():
    t = _second_round()
    t.play_to_end()
    w = t.match.winner
    assert t.last("hand_end")["why"] == "out"  # V9.4
    for p, v in enumerate(t.views):
        assert shows(v.panel, 1, "MATCH OVER")
        assert shows(v.panel, 3, "YOU WIN!" if p == w else "YOU LOSE")
        assert shows(v.panel, 5, "NO CARDS LEFT!" if p == w else "THEY RAN OUT FIRST")


def test_the_press_that_ends_the_match_shows_its_pile_before_the_result():
    """The last play's table is drawn in the pass that ended the match (so its press's
    pixels are its pile's, as every play's: docs/device.md), MATCH OVER right after."""
    t = _second_round()
    screens = t.screens
    real = screens.refresh
    seen = []

    def refresh(core, match, now):
        real(core, match, now)
        seen.append((match.phase, shows(t.views[0].panel, 1, "MATCH OVER")))

    screens.refresh = refresh
    t.play_to_end()
    assert t.last("hand_end")["why"] == "out"
    over = [i for i, (phase, _) in enumerate(seen) if phase == OVER]
    # (the press's instant scores the match: Phases.step_group; its release's pass redraws)
    assert len(over) >= 2 and seen[over[0]][1] is False
    assert all(seen[i][1] for i in over[1:])


def test_the_how_to_play_pages_of_each_game_fit_and_use_the_screen_words():
    from speedduo.display import howto

    assert howto.pages("speed") is howto.PAGES
    for game, words in (
        ("spit", ("SPIT!", "SLAP!", "L OR R", "LATE", "INVALID", "STALL", "YOU", "THEM", "TOOK")),
        ("california", ("LATE", "INVALID", "STALL", "BLOCKED", "YOU", "THEM", "L:", "R:")),
    ):
        pages = howto.pages(game)
        text = " ".join(" ".join(lines) for _title, lines in pages)
        for title, lines in pages:
            assert len(title) <= 21 and len(lines) <= 6
            assert all(len(line) <= 21 for line in lines)
        for word in words:
            assert word in text, (game, word)


# ---- the board's VM: updates allocate nothing ----

_MPY_SCRIPT = r"""
import sys
sys.path[:0] = [ROOT + "/lib"]
import gc, micropython
from speedduo.game.gamerules import GameRules
from speedduo.game.gamematch import GameSession
from speedduo.log.gamelog import GameLog
from speedduo.display.screens import Screens
from speedduo.display.ssd1306 import Panel

class Bus:
    def try_lock(self): return True
    def unlock(self): pass
    def writeto(self, address, buf, start=0, end=None): pass

def run(game, seed):
    if game == "spit":
        from speedduo.game.spit import Spit as Core
        from speedduo.display.spit_view import SpitView as View
    else:
        from speedduo.game.california import California as Core
        from speedduo.display.california_view import CaliforniaView as View
    rules = GameRules(game)
    session = GameSession(Core(rules), seed, rules, 1, GameLog())
    core = session.core
    match = session.match
    panels = (Panel(Bus()), Panel(Bus(), rotation=180))
    screens = Screens(panels, (View(panels[0], 0), View(panels[1], 1)))
    from speedduo.display.screens_setup import start

    start(screens)
    counts = [0, 0]
    session.log.notes_on = True  # the views hear the log's notes, as on the board
    tell = screens.event  # (made once: making a bound method allocates)
    now = 0
    for k in range(4000):
        if match.phase == 3:
            break
        if match.phase == 1 and not core.over:
            p = k & 1
            keys = core.bot_keys(p) or core.bot_keys(1 - p)
            if keys:
                q = p if core.bot_keys(p) else 1 - p
                now += 40
                session.step(now, [(q * 7 + keys[0], 1)])
                session.step(now + 1, [(q * 7 + keys[0], 0)])
                now += 1
            else:
                due = match.next_due()
                now = due if due > now else now + 1
                session.step(now, [])
        else:
            due = match.next_due()
            now = due if due > now else now + 1
            session.step(now, [])
        session.log.drain(lambda line: None)
        gc.collect()
        micropython.heap_lock()
        try:
            counts[1] += session.log.observe(tell)
            screens.refresh(core, match, now)
            screens.views[0].show_overflow(now)
        finally:
            micropython.heap_unlock()
        counts[0] += 1
    print(game, "OK", counts[0], counts[1], match.phase)

run("spit", 3)
run("california", 24)
"""


@pytest.mark.skipif(not os.path.exists(MICROPYTHON), reason="no MicroPython VM in .venv")
def test_updates_and_events_allocate_nothing_under_micropython(tmp_path):
    """Both games' views, through whole matches, with the heap locked around every
    refresh and every event the views get (the cores' own logging stays outside)."""
    script = tmp_path / "heap.py"
    script.write_text("ROOT = %r\n" % ROOT + _MPY_SCRIPT)
    out = subprocess.run(
        [MICROPYTHON, "-X", "heapsize=1M", str(script)], capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.split("\n")
    for k, game in enumerate(("spit", "california")):
        words = lines[k].split()  # game OK refreshes events phase
        assert words[:2] == [game, "OK"] and int(words[2]) > 20 and words[4] == "3", lines[k]
        assert int(words[3]) > 20, lines[k]  # the views heard the events


# ---- goldens ----


def countdown():
    t = Table("california", SEED)
    t.at(1200)
    return t


def stall():
    t = Table("california", SEED)
    t.start_round()
    t.at(t.now + 300)
    return t


def blocked():
    t = Table("california", SEED)
    t.start_round()
    t.until(lambda: t.match.phase == RESULT)
    return t


def playing():
    t = _second_round()
    for k in range(4):
        t.play_one(k % 2)
    t.press(1, KEY_L)
    return t


def invalid():
    t = _refusal_ready(0)
    t.press(0, 1 + _refusable(t.core, 0))
    return t


def match_over():
    t = _second_round()
    return t.play_to_end()


test_golden_screens = golden_test(
    "california", (countdown, stall, blocked, playing, invalid, match_over)
)
