"""Spit's screens (docs/rules.md V8; lib/speedduo/display/spit_view.py) on two emulated panels.

A seeded ``GameSession`` is driven through a deal, plays, refusals, a stall,
the stop and slap of a round and the match's end; ``Screens.refresh(core,
match, now)`` draws both panels as the board does. Golden images live in
tests/golden/screens/spit_*.png (regenerate: SPEED_UPDATE_GOLDEN=1 .venv/bin/pytest
tests/test_spit_view.py -k golden; docs/img copies them: host_sim/tools/docs_screens.py).
"""

import os
import subprocess
import sys

import pytest
from game_screens import Table, check_refusal, golden_test, page_row, shows
from speedduo.display import game_view
from speedduo.display.ssd1306 import ROW
from speedduo.game.spit import fits
from speedduo.vocab.codes import EV_REJECT, INVALID, KEY_L, KEY_R, PLAYING, RESULT

from host_sim import ROOT

SEED = 3
BACK = game_view.BACK


def _top(pile):
    return pile[-1] if pile else 255


def _column(panel, page, x):
    return panel.buf[page * ROW + 1 + x]


def _place_tops(core, p):
    return bytes(
        (place[-1] if core.up[p][s] else BACK) if place else 255
        for s, place in enumerate(core.stock[p])
    )


def _fits_a_pile(core, p, s):
    return core.pile_for(p, core.stock[p][s][-1]) >= 0


def _refusable(core, p):
    """A place whose face-up top fits neither spit pile and cannot move (V8.10), or -1."""
    places = core.stock[p]
    gap = any(not place for place in places)
    for s, place in enumerate(places):
        if place and core.up[p][s] and core.pile_for(p, place[-1]) < 0:
            if not (gap and len(place) > 1):
                return s
    return -1


def test_countdown_shows_face_down_cards_and_the_seconds_left():
    t = Table("spit", SEED)
    t.at(1200)
    for v in t.views:
        assert v.moment == (game_view.M_COUNT, 2)  # R3
        assert v.drawn_slots() == bytes([BACK] * 5)
        assert shows(v.panel, 0, "YOU") and shows(v.panel, 0, "THEM")


def test_the_deal_shows_both_spit_piles_the_places_and_spit():
    t = Table("spit", SEED)
    t.start_round()
    core = t.core
    for p, v in enumerate(t.views):
        assert bytes(v._tops) == bytes([_top(core.piles[0]), _top(core.piles[1])])  # V8.2
        assert v.drawn_slots() == _place_tops(core, p)  # V8.1: every top face up
        assert v.moment[0] == game_view.M_SPIT
        assert shows(v.panel, 2, "SPIT!")
        # V8.1: 11 spit cards, one turned onto the pile (V8.2); 26 cards, one on the pile
        assert shows(v.panel, 4, "SPIT 10")
        assert shows(v.panel, 0, "YOU 25") and shows(v.panel, 0, "THEM 25")
    t.at(t.now + 900)
    assert [v.moment[0] for v in t.views] == [game_view.M_NONE] * 2


def test_the_target_pile_is_inverted_and_l_r_move_it():
    t = Table("spit", SEED)
    t.start_round()
    p0, p1 = (v.panel for v in t.views)
    # each player starts aiming at their own spit pile (V8.2): p0 left, p1 right
    assert (_column(p0, 1, 8), _column(p0, 1, 88)) == (0xFF, 0)
    assert (_column(p1, 1, 8), _column(p1, 1, 88)) == (0, 0xFF)
    t.press(0, KEY_R)
    t.press(1, KEY_L)
    assert (_column(p0, 1, 8), _column(p0, 1, 88)) == (0, 0xFF)
    assert (_column(p1, 1, 8), _column(p1, 1, 88)) == (0xFF, 0)


def test_a_play_shows_the_new_pile_top_on_both_panels_and_a_face_down_place():
    t = Table("spit", SEED)
    t.start_round()
    core = t.core
    for s in range(4, 0, -1):  # a place with cards under its top
        card = core.stock[0][s][-1]
        if core.pile_for(0, card) >= 0:
            break
    else:
        pytest.fail("seed %d: no place 2-5 to play from" % SEED)
    for b in t.buses:
        b.reset_counters()
    t.press(0, 1 + s)
    assert t.last("play")["slot"] == s
    for v in t.views:
        assert card in bytes(v._tops)
    assert t.views[0].drawn_slots()[s] == BACK  # V8.4: the card under is face down
    assert all(b.bytes.get(0x3C, 0) < 512 for b in t.buses)  # a diff, not a frame
    t.press(0, 1 + s)  # turn it up
    assert t.last("turn")["slot"] == s
    assert t.views[0].drawn_slots()[s] == core.stock[0][s][-1]


def test_a_refused_press_flashes_the_log_word_on_that_players_panel_only():
    t = Table("spit", SEED)
    t.start_round()
    t.at(t.now + 900)  # SPIT! is over
    s = _refusable(t.core, 0)
    assert s >= 0
    check_refusal(t, 0, 1 + s, 2)  # V8.10: it fits no pile and cannot move


def test_a_press_that_lost_a_race_flashes_late():
    """R8: a card that fitted the pile top just covered is refused as late."""
    t = Table("spit", SEED)
    t.start_round()
    core = t.core
    for _ in range(400):
        if t.match.phase != PLAYING or core.over:
            break
        keys = core.bot_keys(0)
        plays = [k for k in keys if core.up[0][k - 1] and _fits_a_pile(core, 0, k - 1)]
        if not plays:
            if not t.play_one(1) and not t.play_one(0):
                t.at(max(t.match.next_due(), t.now + 1))
            continue
        card = core.stock[0][plays[0] - 1][-1]
        pile = core.pile_for(0, card)
        old = core.piles[pile][-1]
        t.press(0, plays[0], dt=100)
        if t.views[1].moment[0] != game_view.M_NONE:  # SPIT! or STALL would hide LATE
            continue
        # player 1: a face-up top that fitted the old top and now fits nothing
        for s in range(5):
            place = core.stock[1][s]
            if place and core.up[1][s] and fits(place[-1], old, False):
                if core.pile_for(1, place[-1]) < 0:
                    t.press(1, 1 + s, dt=20)
                    assert t.last("reject")["why"] == "late"
                    assert t.views[1].moment[0] == game_view.M_LATE
                    assert shows(t.views[1].panel, 2, "LATE")
                    assert t.views[0].moment[0] != game_view.M_LATE
                    return
    pytest.fail("no lost race found")


def test_a_stall_shows_on_both_panels_then_spit():
    t = Table("spit", SEED)
    t.start_round()
    t.at(t.now + 900)
    assert t.until(lambda: t.core.stall_due >= 0)  # V8.6
    t.at(t.now + 10)
    for v in t.views:
        assert v.moment[0] == game_view.M_STALL
        assert shows(v.panel, 2, "STALL")
    left = [len(t.core.spit[p]) for p in range(2)]
    t.at(t.match.hand_start + t.core.stall_due)
    assert t.last("spit") is not None
    for p, v in enumerate(t.views):
        assert v.moment[0] == game_view.M_SPIT
        assert shows(v.panel, 4, "SPIT%3d" % (left[p] - 1))


def test_the_round_stops_both_slap_and_the_result_says_who_took_what():
    t = Table("spit", SEED)
    t.start_round()
    core = t.core
    assert t.until(lambda: core.stopped)  # V8.8
    sizes = (len(core.piles[0]), len(core.piles[1]))
    for v in t.views:
        assert v.moment == (game_view.M_SLAP, sizes[0] << 6 | sizes[1])
        assert shows(v.panel, 1, "SLAP!") and shows(v.panel, 2, "L OR R")
    winner = core.stop_p
    t.slap(1 - winner, 1)  # the one still holding cards slaps the right pile first
    end = t.last("hand_end")
    assert end["took"][1 - winner] == 1 and end["took"][winner] == 0  # V8.8
    assert t.match.phase == RESULT
    for p, v in enumerate(t.views):
        took = len(core.piles[end["took"][p]])
        assert v.moment == (game_view.M_WIN if p == winner else game_view.M_LOSE, took)
        assert shows(v.panel, 2, "YOU WIN" if p == winner else "YOU LOSE")
        assert shows(v.panel, 3, "TOOK%3d" % took)
        assert shows(v.panel, 0, "YOU %d" % core.cards_left(p))


def test_the_match_ends_with_who_won_and_the_cards_left():
    t = Table("spit", SEED)
    t.start_round()
    t.play_to_end()
    w = t.match.winner
    assert t.core.cards_left(w) == 0  # V8.9
    for p, v in enumerate(t.views):
        assert shows(v.panel, 1, "MATCH OVER")
        assert shows(v.panel, 3, "YOU WIN!" if p == w else "YOU LOSE")
        assert shows(v.panel, 5, "CARDS LEFT")
        mine, theirs = t.core.cards_left(p), t.core.cards_left(1 - p)
        assert shows(v.panel, 6, "YOU%3d   THEM%3d" % (mine, theirs))


def test_the_screens_load_only_the_base_view_until_a_game_is_chosen():
    """The board's menu needs base_view alone; classic's view and its pile tops, like the
    other games' views, are a match's (board_play, game_app)."""
    code = (
        "import sys; import speedduo.display.screens, speedduo.loop.app, "
        "speedduo.display.base_view; "
        "print(sorted(m for m in sys.modules if m.startswith('speedduo.')"
        " and (m.endswith('view') or m.endswith('piles'))))"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.path.join(ROOT, "lib")]))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "['speedduo.display.base_view']"


# ---- goldens ----


def countdown():
    t = Table("spit", SEED)
    t.at(1200)
    return t


def spit():
    t = Table("spit", SEED)
    t.start_round()
    return t


def playing():
    t = spit()
    for k in range(6):
        t.play_one(k % 2)
    t.at(t.now + 900)
    return t


def invalid():
    t = spit()
    t.at(t.now + 900)
    t.press(0, 1 + _refusable(t.core, 0))
    t.press(1, KEY_L)
    return t


def stall():
    t = spit()
    t.until(lambda: t.core.stall_due >= 0)
    t.at(t.now + 10)
    return t


def slap():
    t = spit()
    t.until(lambda: t.core.stopped)
    return t


def result():
    t = slap()
    t.slap(1 - t.core.stop_p, 1)
    return t


def match_over():
    t = spit()
    return t.play_to_end()


test_golden_screens = golden_test(
    "spit", (countdown, spit, playing, invalid, stall, slap, result, match_over)
)


def test_the_right_key_slaps_the_right_pile():
    t = Table("spit", SEED)
    t.start_round()
    t.until(lambda: t.core.stopped)
    t.press(t.core.stop_p, KEY_R, dt=30)
    assert t.last("slap")["pile"] == 1


def test_a_round_with_one_spit_pile_shows_the_other_empty():
    """V8.9: a player with 15 cards or fewer cannot spit: only one pile opens."""
    t = Table("spit", SEED)
    t.start_round()
    assert t.until(lambda: t.match.phase == PLAYING and not t.core.two_piles)
    empty = 0 if not t.core.piles[0] else 1
    for v in t.views:
        assert v._tops[empty] == 255
        x = (9, 89)[empty]
        row = page_row(v.panel, 3)[x + 4 : x + 20]
        assert set(row) <= {0x18, 0xE7} and len(set(row)) == 1  # a dash, inverted if aimed


def test_too_fast_forget_and_a_menu_in_between():
    t = Table("spit", SEED)
    t.start_round()
    t.at(t.now + 900)
    t.views[1].show_overflow(t.now)  # the keypad lost presses
    t.refresh()
    assert shows(t.views[1].panel, 2, "TOO FAST") and not shows(t.views[0].panel, 2, "TOO FAST")
    before = bytes(t.views[0].panel.buf)
    t.screens.show_menu(0, ["PLAY", "HOW TO PLAY"], 0, "MENU")
    t.refresh()
    assert shows(t.views[0].panel, 0, "MENU")  # a menu stays until hidden
    t.screens.hide_menu()
    t.at(t.now + 1)
    assert bytes(t.views[0].panel.buf) == before
    t.views[0].panel.clear()
    t.views[0].forget()
    t.at(t.now + 1)
    assert bytes(t.views[0].panel.buf) == before


def test_the_message_ids_and_card_codes_are_the_base_views():
    from speedduo.display import base_view

    assert (game_view.M_NONE, game_view.M_COUNT, game_view.M_STALL) == (
        base_view._M_NONE,
        base_view._M_COUNT,
        base_view._M_STALL,
    )
    assert (game_view.M_LATE, game_view.M_INVALID, game_view.M_WIN, game_view.M_LOSE) == (
        base_view._M_LATE,
        base_view._M_INVALID,
        base_view._M_WIN,
        base_view._M_LOSE,
    )
    assert min(game_view.M_BLOCKED, game_view.M_SPIT, game_view.M_SLAP) > base_view._M_REPLAY
    assert (game_view.BACK, game_view.NOT_AIMED, game_view.FORCE) == (
        base_view._BACK,
        base_view._UNKNOWN,
        base_view._FORCE,
    )
    assert base_view._SCREEN_OVER == 2


def test_a_second_match_on_the_same_views_starts_clean():
    """The board keeps its views from one match to the next; match time restarts at 0."""
    first = Table("spit", SEED)
    first.start_round()
    first.play_to_end()
    views = first.views
    views[0].event(EV_REJECT, 0, INVALID, 0, first.now)  # late on
    second = Table("spit", SEED + 1)
    second.screens.views = views  # (they draw on their own panels: only moments are checked)
    second.start_round()
    second.at(second.now + 900)
    assert [v.moment[0] for v in views] == [game_view.M_NONE] * 2
