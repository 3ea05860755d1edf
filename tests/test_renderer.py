"""The two-panel renderer: panel driver, player views, fair flushing, faults, goldens, heap.

Golden images live in tests/golden/screens/. After an intended change of the
screens, regenerate them with

    SPEED_UPDATE_GOLDEN=1 .venv/bin/pytest tests/test_renderer.py -k golden

and look at the new PNGs before committing them.
"""

import errno
import os
import subprocess
import sys

import pytest
from PIL import Image
from speedduo.display import base_view, glyphs, large_ranks, piles, screens_setup, view
from speedduo.display.ssd1306 import PRIVATE, ROW, SHARED, Panel
from speedduo.game.match import COUNTDOWN, OVER, PLAYING, RESULT, Match
from speedduo.game.rules import Rules
from speedduo.log.matchlog import EV_REJECT, WHY_INVALID, WHY_LATE, MatchLog
from ssd1306_emulator import FakeI2C, SSD1306Emulator

from host_sim.screens_capture import save_screens, sim_screens

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = os.path.join(ROOT, "tests", "golden", "screens")
MICROPYTHON = os.path.join(ROOT, ".venv", "bin", "micropython")


# ---- a small game driver (no app, no bots module needed) ----


class Game:
    """A match on two emulated panels, played greedily by both players."""

    def __init__(self, seed=7, frequency=400000, interleave=True, **rules):
        self.clock = [0.0]
        self.log = []
        self.emulators = (SSD1306Emulator(0, "p0"), SSD1306Emulator(180, "p1"))
        self.buses = tuple(
            FakeI2C({0x3C: e}, frequency=frequency, tag=i, clock=self.clock)
            for i, e in enumerate(self.emulators)
        )
        self.messages = []
        self.screens = screens_setup.build(self.buses[0], self.buses[1], log=self.messages.append)
        self.screens.interleave = interleave
        screens_setup.start(self.screens)
        self.match = Match(seed, Rules(**rules), 3, MatchLog())
        self.match.pressed(0)
        self.now = 0
        self.refresh()

    @property
    def hand(self):
        return self.match.hand

    def refresh(self):
        self.match.log.observe(self.screens.event)  # as the App does: the screens see the records
        self.match.log.drain(lambda line: None)
        self.screens.refresh(self.hand, self.match, self.now)
        if self.match.phase == OVER:  # as App.step: the last play's table, then the result
            self.screens.refresh(self.hand, self.match, self.now)

    def refuse(self, p, why):
        """A refused press as the core records it (a reject line)."""
        self.screens.event(EV_REJECT, p, why, 0, self.now)

    def at(self, now):
        self.now = now
        self.match.advance(now)
        self.refresh()

    def start_hand(self):
        self.at(self.match.hand_start)
        assert self.match.phase == PLAYING

    def legal_slot(self, p):
        return self.hand.first_playable(p)

    def play(self, p, dt=150):
        """Player p plays a legal card dt ms from now; False when they have none."""
        slot = self.legal_slot(p)
        if slot < 0:
            return False
        self.now += dt
        self.match.pressed(self.now)
        self.hand.play(self.now - self.match.hand_start, p, slot)
        self.match.advance(self.now)
        self.refresh()
        return True

    def until_stall(self):
        while self.hand.stall_due < 0 and not self.hand.over:
            if not self.play(0) and not self.play(1):
                break
        return self.hand.stall_due >= 0

    def finish_hand(self):
        """Play greedily, flipping at stalls, until the hand is over."""
        p = 0
        while self.match.phase == PLAYING and not self.hand.over:
            if not self.play(p) and not self.play(1 - p):
                due = self.hand.stall_due
                assert due >= 0
                self.at(self.match.hand_start + due)
            p = 1 - p

    def counters(self):
        return [b.bytes.get(0x3C, 0) for b in self.buses]

    def reset_counters(self):
        for b in self.buses:
            b.reset_counters()
        self.log.clear()
        for b in self.buses:
            b.log = self.log


def _window_commands(log):
    """(bus tag, page0, page1, col0, col1) of every window command, in bus order."""
    out = []
    for tag, _, payload, _ in log:
        if len(payload) == 7 and payload[0] == 0x00 and payload[1] == 0x21:
            out.append((tag, payload[5], payload[6], payload[2], payload[3]))
    return out


def _shows_framebuffer(emulator, panel):
    for page in range(8):
        row = panel.buf[page * ROW + 1 : page * ROW + 129]
        if emulator.gddram[page * 128 : page * 128 + 128] != row:
            return False
    return True


# ---- panel driver ----


def _panel(rotation=0):
    emu = SSD1306Emulator(mounted_rotation=rotation)
    bus = FakeI2C({0x3C: emu})
    panel = Panel(bus, rotation=rotation)
    panel.init()
    panel.flush()
    return emu, bus, panel


def test_init_sequence_sets_up_the_panel_as_the_datasheet_flow_says():
    emu, _, _ = _panel()
    assert emu.display_on and emu.charge_pump and emu.mode == 0
    assert emu.mux == 63 and emu.com_pins == 0x12 and emu.contrast == 0xCF
    assert emu.seg_remap and emu.com_reverse and not emu.unknown_commands


def test_rotated_panel_turns_in_hardware_with_segment_remap_and_com_scan():
    emu, _, panel = _panel(rotation=180)
    assert not emu.seg_remap and not emu.com_reverse
    panel.fill(0, 0, 1, 1, 0x01, PRIVATE)
    panel.flush()
    assert emu.to_image().getpixel((0, 0))  # upright for the viewer across the table
    assert emu.to_image(glass=True).getpixel((127, 63))


def test_after_init_the_whole_frame_is_sent_once_then_nothing():
    emu, bus, panel = _panel()
    bus.reset_counters()
    panel.flush()
    assert bus.bytes == {}


def test_flush_sends_only_the_changed_window():
    emu, bus, panel = _panel()
    bus.reset_counters()
    emu.reset_counters()
    panel.blit(large_ranks.LARGE, 0, 24, 24, 4, 30, 2, SHARED)
    panel.flush()
    assert emu.data_bytes < 24 * 4 + 1  # only columns whose bytes changed
    assert emu.gddram[2 * 128 + 30 : 2 * 128 + 54] == large_ranks.LARGE[0:24]
    assert _shows_framebuffer(emu, panel)


def test_redrawing_the_same_sprite_sends_nothing():
    _, bus, panel = _panel()
    panel.blit(glyphs.MEDIUM, 0, 12, 12, 2, 10, 6, PRIVATE)
    panel.flush()
    bus.reset_counters()
    panel.blit(glyphs.MEDIUM, 0, 12, 12, 2, 10, 6, PRIVATE)
    panel.flush()
    assert bus.bytes == {}


def test_window_start_byte_is_restored_after_the_control_byte_trick():
    emu, _, panel = _panel()
    panel.fill(0, 3, 5, 1, 0xFF, PRIVATE)
    panel.flush()
    panel.fill(6, 3, 2, 1, 0x81, PRIVATE)  # the byte before col 6 (col 5) held the 0x40
    panel.flush()
    assert panel.buf[3 * ROW + 1 + 5] == 0 and _shows_framebuffer(emu, panel)


def test_neighbouring_pages_merge_into_one_window_when_cheaper():
    _, bus, panel = _panel()
    bus.log = []
    panel.fill(20, 1, 10, 4, 0xFF, PRIVATE)
    panel.flush()
    assert len(_window_commands(bus.log)) == 1


def _draw_alike(panel):
    panel.fill(9, 1, 24, 4, 0x3C, SHARED)
    panel.fill(34, 1, 6, 1, 0x7E, SHARED)
    panel.fill(60, 6, 8, 1, 0x18, SHARED)


def test_a_panel_with_the_same_changes_takes_the_first_panels_windows():
    emu_a, bus_a, a = _panel()
    emu_b, bus_b, b = _panel()
    _draw_alike(a)
    _draw_alike(b)
    assert a.same_changes(b)
    bus_a.log = []
    bus_b.log = []
    n = a.plan(SHARED)
    assert b.plan_as(a, SHARED) == n == 2
    while a.send_next() | b.send_next():
        pass
    assert [payload for _, _, payload, _ in bus_b.log] == [p for _, _, p, _ in bus_a.log]
    assert _shows_framebuffer(emu_b, b) and b.plan(SHARED) == 0  # its spans were cleared too


def test_panels_with_different_changes_are_planned_each_on_its_own():
    _, _, a = _panel()
    _, _, b = _panel()
    _draw_alike(a)
    _draw_alike(b)
    b.fill(100, 2, 4, 1, 0xFF, SHARED)
    assert not a.same_changes(b)


def test_text_and_numbers_land_in_the_framebuffer():
    emu, _, panel = _panel()
    x = panel.text(glyphs.SMALL, glyphs.SMALL_INDEX, b"AB", 0, 0, PRIVATE)
    panel.number(glyphs.SMALL, glyphs.SMALL_INDEX, 42, x, 0, 3, PRIVATE)
    panel.flush()
    a = glyphs.SMALL_INDEX[ord("A")] * 5
    assert emu.gddram[0:5] == glyphs.SMALL[a : a + 5]
    four = glyphs.SMALL_INDEX[ord("4")] * 5
    assert emu.gddram[x + 6 : x + 11] == glyphs.SMALL[four : four + 5]


def test_unplugged_panel_goes_offline_and_comes_back_with_its_whole_frame():
    emu, bus, panel = _panel()
    bus.unplug(0x3C)
    panel.fill(0, 0, 10, 1, 0xFF, PRIVATE)
    panel.flush()
    assert not panel.online and panel.faults == 1 and panel.last_errno == errno.ENODEV
    panel.fill(0, 4, 10, 1, 0xFF, PRIVATE)  # drawing goes on into the framebuffer
    assert not panel.recover(0)  # still unplugged
    assert panel.faults == 1  # a failed retry is not a new fault
    bus.replug(0x3C)
    assert not panel.recover(500)  # not before retry_ms
    assert panel.recover(1000) and panel.recoveries == 1
    panel.flush()
    assert _shows_framebuffer(emu, panel)


# ---- views ----


def test_countdown_shows_face_down_cards_and_the_seconds_left():
    g = Game()
    g.at(1200)
    assert g.match.phase == COUNTDOWN
    img = g.emulators[0].to_image()
    assert img.getbbox() is not None
    assert g.screens.views[0].moment[0] == base_view._M_COUNT and g.screens.views[0].moment[1] == 2


def test_each_player_sees_their_own_hand_above_buttons_1_to_5():
    g = Game()
    g.start_hand()
    for p in range(2):
        v = g.screens.views[p]
        assert list(v.drawn_slots()) == [g.hand.slot_card(p, s) for s in range(5)]
        x = 22 + 18 * 2  # slot 3 over button 3 (of L,1..5,R in 18 px columns)
        rank = g.hand.slot_card(p, 2) >> 2
        sprite = glyphs.MEDIUM[rank * glyphs.MEDIUM_SIZE : rank * glyphs.MEDIUM_SIZE + 12]
        assert g.screens.panels[p].buf[6 * ROW + 1 + x : 6 * ROW + 13 + x] == sprite


def _pile_row(panel, x, page=1):
    return bytes(panel.buf[page * ROW + 1 + x : page * ROW + 25 + x])


def test_both_pile_tops_are_drawn_large_on_both_panels_the_target_inverted():
    g = Game()
    g.start_hand()
    for p in range(2):  # at a deal each player aims at their own pile
        panel = g.screens.panels[p]
        for side, x in enumerate(piles._PILE_X):
            rank = g.hand.top(side) >> 2
            sprite = large_ranks.LARGE[rank * large_ranks.LARGE_SIZE :][:24]
            want = bytes(b ^ 0xFF for b in sprite) if side == p else sprite
            assert _pile_row(panel, x) == want


def test_l_and_r_move_the_inverted_target_pile():
    g = Game()
    g.start_hand()
    x0, x1 = piles._PILE_X
    panel = g.screens.panels[0]
    assert panel.buf[ROW + x0] == 0xFF and panel.buf[ROW + x1] == 0  # frame: left pile aimed
    g.hand.set_target(0, 1)  # R
    g.refresh()
    assert panel.buf[ROW + x0] == 0 and panel.buf[ROW + x1] == 0xFF
    rank = g.hand.top(1) >> 2
    sprite = large_ranks.LARGE[rank * large_ranks.LARGE_SIZE :][:24]
    assert _pile_row(panel, x1) == bytes(b ^ 0xFF for b in sprite)
    top = (g.hand.top(0) >> 2) * large_ranks.LARGE_SIZE
    assert _pile_row(panel, x0) == large_ranks.LARGE[top:][:24]


def test_player1_panel_reads_upright_to_player1():
    g = Game()
    g.start_hand()
    g.hand.set_target(1, 0)  # both aim at the left pile: the pile rows are then alike
    g.refresh()
    a = g.emulators[0].to_image()
    b = g.emulators[1].to_image()
    # the pile row is the same for both players and upright for each
    assert a.crop((0, 8, 128, 40)).tobytes() == b.crop((0, 8, 128, 40)).tobytes()
    assert g.emulators[1].to_image(glass=True).crop((0, 24, 128, 56)).tobytes() == (
        a.crop((0, 8, 128, 40)).rotate(180).tobytes()
    )


def test_refused_late_play_flashes_late_then_clears():
    g = Game()
    g.start_hand()
    g.refuse(0, WHY_LATE)
    g.refresh()
    assert g.screens.views[0].moment[0] == base_view._M_LATE
    assert g.screens.views[1].moment[0] == base_view._M_NONE
    g.at(g.now + 800)
    assert g.screens.views[0].moment[0] == base_view._M_NONE


def test_penalty_lockout_shows_lock_with_seconds():
    g = Game(penalty=True)
    g.start_hand()
    hand = g.hand
    for s in range(5):
        card = hand.slot_card(0, s)
        if hand.pile_for(0, card) < 0:
            hand.play(g.now - g.match.hand_start + 10, 0, s)
            break
    else:
        pytest.skip("no misfit card in this deal")
    g.at(g.now + 1000)  # after the refusal flash
    v = g.screens.views[0]
    assert v.moment[0] == base_view._M_LOCKOUT and v.moment[1] in (1, 2)


def test_stall_countdown_then_flip_are_shown_on_both_panels():
    g = Game()
    g.start_hand()
    assert g.until_stall()
    g.at(g.now + 10)
    assert [v.moment[0] for v in g.screens.views] == [base_view._M_STALL] * 2
    g.at(g.match.hand_start + g.hand.stall_due)
    assert [v.moment[0] for v in g.screens.views] in (
        [base_view._M_FLIP] * 2,
        [base_view._M_REDEAL] * 2,
    )


def test_hand_result_then_match_result():
    g = Game()
    g.start_hand()
    g.finish_hand()
    assert g.hand.over
    msgs = [v.moment[0] for v in g.screens.views]
    assert sorted(msgs) in ([base_view._M_WIN, base_view._M_LOSE], [base_view._M_REPLAY] * 2)
    while g.match.phase != OVER:
        if g.match.phase in (COUNTDOWN, RESULT):
            g.at(g.match.next_due())
        else:
            g.finish_hand()
    assert g.screens.views[0].screen == base_view._SCREEN_OVER


def test_menu_is_drawn_full_screen_and_the_game_screen_comes_back():
    g = Game()
    g.screens.show_menu(-1, ["BEST OF 3", "PENALTY OFF", "START"], 1, title="SPEED DUO")
    assert g.screens.views[0].screen == base_view._SCREEN_MENU
    g.screens.hide_menu()
    g.start_hand()
    assert g.screens.views[0].screen == base_view._SCREEN_PLAY


# ---- fair flushing and bytes ----


def test_pile_tops_reach_both_panels_before_any_private_region():
    g = Game()
    g.start_hand()
    g.reset_counters()
    assert g.play(0)
    windows = _window_commands(g.log)
    pile = [i for i, w in enumerate(windows) if w[1] <= 4 and w[2] >= 1 and w[3] < 44]
    pile += [i for i, w in enumerate(windows) if w[1] <= 4 and w[2] >= 1 and w[3] >= 94]
    private = [i for i, w in enumerate(windows) if w[2] >= 5 or w[1] == 0]
    assert {windows[i][0] for i in pile} == {0, 1}
    assert max(pile) < min(private)


def test_the_first_served_panel_alternates():
    g = Game()
    g.start_hand()
    firsts = []
    for k in range(6):
        g.reset_counters()
        assert g.play(k % 2)
        firsts.append(g.screens.first_served)
        assert g.log[0][0] == g.screens.first_served  # its window command went out first
    assert firsts in ([0, 1] * 3, [1, 0] * 3)


def test_shared_transfers_interleave_between_the_panels():
    g = Game()
    g.start_hand()
    g.reset_counters()
    g.play(0)
    tags = [tag for tag, _, _, _ in g.log[:6]]
    assert tags[0] != tags[1] and tags[1] != tags[2]


def test_a_typical_play_sends_at_most_200_bytes_per_panel_and_never_a_full_frame():
    g = Game()
    g.start_hand()
    worst = [0, 0]
    plays = 0
    p = 0
    while not g.hand.over and plays < 40:
        g.reset_counters()
        stalled = g.hand.stall_due >= 0
        if not g.play(p) and not g.play(1 - p):
            g.at(g.match.hand_start + g.hand.stall_due)
            continue
        p = 1 - p
        if stalled or g.hand.stall_due >= 0 or g.hand.over:
            continue  # a stall/flip moment, measured by the bench as the worst case
        plays += 1
        worst = [max(a, b) for a, b in zip(worst, g.counters(), strict=True)]
    assert plays >= 10
    assert max(worst) <= 200, worst


def test_skew_between_panels_for_a_new_pile_top_is_one_page_transfer():
    g = Game(frequency=1000000)
    g.start_hand()
    g.reset_counters()
    g.screens.render(g.hand, g.match, g.now)  # nothing changed: nothing sent
    g.hand.play(g.now - g.match.hand_start + 100, 0, g.legal_slot(0))
    g.screens.render(g.hand, g.match, g.now + 100)
    g.screens.send_shared()
    ends = {}
    for tag, _, _, end in g.log:
        ends[tag] = end
    assert abs(ends[0] - ends[1]) <= 3000  # us, the target at 1 MHz
    assert abs(ends[0] - ends[1]) <= 400  # in fact about one page row


def test_playing_never_redraws_the_full_screen():
    g = Game()
    g.start_hand()
    g.reset_counters()
    g.finish_hand()
    assert all(len(payload) < 129 for _, _, payload, _ in g.log)
    assert all((w[2] - w[1] + 1) * (w[4] - w[3] + 1) < 1024 for w in _window_commands(g.log))


# ---- faults ----


def test_game_continues_on_one_panel_when_the_other_is_unplugged():
    g = Game()
    g.start_hand()
    g.buses[1].unplug(0x3C)
    g.play(0)
    g.play(1)
    assert not g.screens.panels[1].online and g.screens.panels[0].online
    assert _shows_framebuffer(g.emulators[0], g.screens.panels[0])
    assert any("offline" in m for m in g.messages)
    g.buses[1].replug(0x3C)
    g.at(g.now + 1000)
    assert g.screens.panels[1].online
    assert _shows_framebuffer(g.emulators[1], g.screens.panels[1])
    assert any("back online" in m for m in g.messages)


def test_loose_wire_eio_is_handled_like_a_nack():
    g = Game()
    g.start_hand()
    g.buses[0].unplug(0x3C, errno.EIO)
    g.play(1)
    assert g.screens.panels[0].last_errno == errno.EIO and g.screens.panels[1].online


def test_panel_missing_at_start_is_picked_up_later():
    bus0 = FakeI2C({0x3C: SSD1306Emulator()})
    emu1 = SSD1306Emulator(180)
    bus1 = FakeI2C({0x3C: emu1})
    bus1.unplug(0x3C)
    messages = []
    screens = screens_setup.build(bus0, bus1, log=messages.append)
    screens_setup.start(screens)
    assert not screens.panels[1].online and messages
    bus1.replug(0x3C)
    m = Match(3, Rules(), 3, MatchLog())
    screens.refresh(m.hand, m, 1000)
    assert screens.panels[1].online and emu1.display_on


# ---- capture API ----


def test_save_screens_writes_both_panels(tmp_path):
    screens, emulators = sim_screens()
    m = Match(5, Rules(), 3, MatchLog())
    m.pressed(0)
    m.advance(3000)
    screens.refresh(m.hand, m, 3000)
    paths = save_screens(screens, str(tmp_path / "shots"), "hand01_end")
    assert [os.path.basename(p) for p in paths] == ["hand01_end_p0.png", "hand01_end_p1.png"]
    assert Image.open(paths[1]).size == (512, 256)
    assert save_screens(emulators, str(tmp_path), "x", scale=1)


# ---- goldens ----


def _scenes():
    """name -> Game at that moment (built lazily)."""

    def countdown():
        g = Game()
        g.at(1200)
        return g

    def playing():
        g = Game()
        g.start_hand()
        for k in range(6):
            g.play(k % 2)
        return g

    def late():
        g = playing()
        g.refuse(0, WHY_LATE)
        g.refuse(1, WHY_INVALID)
        g.refresh()
        return g

    def stall():
        g = Game()
        g.start_hand()
        g.until_stall()
        g.at(g.now + 10)
        return g

    def hand_end():
        g = Game()
        g.start_hand()
        g.finish_hand()
        return g

    def match_over():
        g = Game(points=True)
        while g.match.phase != OVER:
            if g.match.phase in (COUNTDOWN, RESULT):
                g.at(g.match.next_due())
            else:
                g.finish_hand()
        return g

    def menu():
        g = Game()
        from speedduo.display.menu import TITLE, Menu

        menu = Menu(Rules(), 3)
        g.screens.show_menu(-1, menu.lines(), menu.selected, TITLE)  # the board's own menu
        return g

    return {
        "countdown": countdown,
        "playing": playing,
        "late": late,
        "stall": stall,
        "hand_end": hand_end,
        "match_over": match_over,
        "menu": menu,
    }


@pytest.mark.parametrize("scene", list(_scenes()))
def test_golden_screens(scene, tmp_path):
    from game_screens import check_golden

    check_golden(_scenes()[scene]().emulators, scene, GOLDEN, tmp_path)


# ---- generated glyphs, MicroPython ----


def test_glyph_files_are_in_sync_with_their_generator():
    sys.path.insert(0, os.path.join(ROOT, "host_sim", "tools"))
    try:
        import make_glyphs
    finally:
        sys.path.pop(0)
    if not os.path.exists(make_glyphs.FONT):
        pytest.skip("DejaVu Sans Mono Bold not installed")
    paths = (make_glyphs.OUT, make_glyphs.RANKS_OUT)
    for path, source in zip(paths, make_glyphs.build(), strict=True):
        with open(path) as f:
            assert f.read() == source, "run python host_sim/tools/make_glyphs.py"


_MPY_SCRIPT = r"""
import sys
sys.path[:0] = [ROOT + "/lib"]
import gc, micropython
from speedduo.game.rules import Rules
from speedduo.log.matchlog import MatchLog
from speedduo.game.match import Match
from speedduo.display import screens_setup

class Bus:
    def __init__(self): self.n = 0
    def try_lock(self): return True
    def unlock(self): pass
    def writeto(self, address, buf, start=0, end=None): self.n += end - start

b0 = Bus(); b1 = Bus()
screens = screens_setup.build(b0, b1)
screens_setup.start(screens)
m = Match(11, Rules(), 3, MatchLog())
m.pressed(0)
m.advance(3000)
h = m.hand
now = 3000
screens.refresh(h, m, now)
played = 0
for k in range(200):
    p = k & 1
    s = h.first_playable(p)
    if s >= 0:
        now += 50
        h.play(now - m.hand_start, p, s)
        m.log.drain(lambda line: None)
        if h.over:
            break
        micropython.heap_lock()
        try:
            screens.refresh(h, m, now)
        finally:
            micropython.heap_unlock()
        played += 1
    if h.over:
        break
print("OK", played)
"""


@pytest.mark.skipif(not os.path.exists(MICROPYTHON), reason="no MicroPython VM in .venv")
def test_refresh_during_play_allocates_nothing_under_micropython(tmp_path):
    script = tmp_path / "heap.py"
    script.write_text("ROOT = %r\n" % ROOT + _MPY_SCRIPT)
    out = subprocess.run(
        [MICROPYTHON, "-X", "heapsize=1M", str(script)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.startswith("OK") and int(out.stdout.split()[1]) >= 10


def test_the_docs_show_the_real_screens():
    """docs/img/screen_*.png are the goldens, scaled (host_sim/tools/docs_screens.py)."""
    sys.path.insert(0, os.path.join(ROOT, "host_sim", "tools"))
    try:
        import docs_screens
    finally:
        sys.path.pop(0)
    shown = [n for n in os.listdir(docs_screens.DOCS_IMG) if n.startswith("screen_")]
    assert sorted(shown) == sorted("screen_" + n for n in os.listdir(GOLDEN))
    for name in shown:
        want = docs_screens.docs_image(os.path.join(GOLDEN, name[len("screen_") :]))
        got = Image.open(os.path.join(docs_screens.DOCS_IMG, name)).convert("1")
        assert got.tobytes() == want.tobytes(), "run host_sim/tools/docs_screens.py"


def test_the_hand_result_says_plainly_who_won_and_speed_only_to_the_winner():
    g = Game()
    g.start_hand()
    g.finish_hand()
    winner = g.hand.winner
    loser = 1 - winner
    centre = slice(base_view._CENTRE_X, base_view._CENTRE_X + base_view._CENTRE_W)
    assert [v.moment[0] for v in g.screens.views] == [
        base_view._M_WIN if p == winner else base_view._M_LOSE for p in range(2)
    ]

    def page1(p):
        row = g.screens.panels[p].buf[ROW + 1 :][: view.WIDTH]
        return bytes(row[centre])

    assert any(page1(winner)) and not any(page1(loser))  # "SPEED!" above YOU WIN only


def test_classic_views_numbers_are_the_base_views():
    """view.py and piles.py keep base_view's numbers as consts of their own (folded on the
    board): the same values."""
    for name in dir(view):
        if name.startswith(("_M_", "_SCREEN_")) or name in ("_BACK", "_UNKNOWN", "_SLOT_X0"):
            assert getattr(view, name) == getattr(base_view, name), name
    for name in ("_BACK", "_CENTRE_X", "_CENTRE_W"):
        assert getattr(piles, name) == getattr(base_view, name), name


def test_the_board_screens_show_a_matchs_views_then_make_their_own_again():
    """Screens built with a view class (the board: base_view.View) let their own views go
    while a match's show (Screens.play) and make new ones at the match's end (release)."""
    buses = [FakeI2C({0x3C: SSD1306Emulator(r)}) for r in (0, 180)]
    screens = screens_setup.build(buses[0], buses[1], view=base_view.View)
    menu_views = screens.views
    assert [type(v) for v in menu_views] == [base_view.View] * 2
    match_views = (view.PlayerView(screens.panels[0], 0), view.PlayerView(screens.panels[1], 1))
    screens.play(match_views)
    assert screens.views is match_views and screens._own is None
    screens.release()
    assert [type(v) for v in screens.views] == [base_view.View] * 2
    assert screens.views is not menu_views
    assert [v.panel for v in screens.views] == list(screens.panels)


def test_the_simulators_screens_keep_their_classic_views_across_matches():
    buses = [FakeI2C({0x3C: SSD1306Emulator(r)}) for r in (0, 180)]
    screens = screens_setup.build(buses[0], buses[1])
    own = screens.views
    assert [type(v) for v in own] == [view.PlayerView] * 2
    screens.play((base_view.View(screens.panels[0], 0), base_view.View(screens.panels[1], 1)))
    screens.release()
    assert screens.views is own
