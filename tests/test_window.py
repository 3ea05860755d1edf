"""The window (``python3 dev.py play``): the board program in-process, keys from pygame events.

SDL's dummy drivers stand in for the screen and the sound card; a fake wall
clock (every reading 100 µs later) makes the runs fast and the same every time.
"""

import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ["SDL_AUDIODRIVER"] = "dummy"

from host_sim.window_draw import Painter, pygame  # noqa: E402
from host_sim.window_keys import load_keymap  # noqa: E402
from host_sim.window_layout import Layout  # noqa: E402
from host_sim.window_loop import BoardWindow, LogCollector, legend_text  # noqa: E402
from host_sim.window_main import display_problem, open_window  # noqa: E402
from host_sim.window_panel import OLED_COLOURS, panel_pixels  # noqa: E402

SCALE = 4
# elsewhere a window opens without DISPLAY (macOS, Windows): the no-display runs are Linux's
LINUX_ONLY = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="DISPLAY is X11's")


class FakeWall:
    """µs on a wall clock that moves on ``step_us`` at every reading."""

    def __init__(self, step_us=100):
        self.t = 0
        self.step_us = step_us

    def __call__(self):
        self.t += self.step_us
        return self.t


@pytest.fixture
def window():
    layout = Layout(SCALE)
    screen = open_window(pygame, layout)
    keymap = load_keymap(environ={"XDG_CONFIG_HOME": "/nonexistent"})
    painter = Painter(screen, layout, keymap.labels, "white", legend_text(keymap))
    yield screen, layout, keymap, painter
    pygame.quit()


class Plan:
    """Keys to post at virtual times (ms after the first contact, the PLAY press); then quit."""

    def __init__(self, keymap, steps, quit_when):
        self.keymap = keymap
        self.steps = list(steps)  # (t_ms, key name, down)
        self.quit_when = quit_when
        self.frames = []

    def __call__(self, win):
        if not win.contacts:  # press PLAY (player 0's 1) as soon as the menu is up
            if win.clock.now_us > 300000:
                _post(pygame.KEYDOWN, "a")
                self.steps.insert(0, (50, "a", False))
            return
        t_ms = (win.clock.now_us - win.contacts[0][0]) / 1000
        while self.steps and self.steps[0][0] <= t_ms:
            _, name, down = self.steps.pop(0)
            _post(pygame.KEYDOWN if down else pygame.KEYUP, name)
        if self.quit_when(win):
            pygame.event.post(pygame.event.Event(pygame.QUIT))


def _post(kind, name):
    pygame.event.post(pygame.event.Event(kind, key=pygame.key.key_code(name)))


def _events(win, ev):
    return [json.loads(line) for line in win.log.lines if f'"ev":"{ev}"' in line]


def _run(window, steps, quit_when, settings=(("SPEED_SEED", 2), ("SPEED_IDLE_MS", 6000))):
    _, _, keymap, painter = window
    plan = Plan(keymap, steps, quit_when)
    # a frame (and the plan's turn) every virtual ms: keys go in at the times planned
    win = BoardWindow(pygame, keymap, painter, fps=1000, on_frame=plan, now=FakeWall())
    win.run(settings)
    return win


def _shown(surface, layout, player):
    """The panel's picture as drawn in the window: each pixel cell's centre, lit or not."""
    lit = OLED_COLOURS["white"][0]
    x0, y0, _, _ = layout.panel_rect(player)
    out = bytearray(128 * 64)
    for y in range(64):
        for x in range(128):
            colour = surface.get_at((x0 + x * SCALE + 1, y0 + y * SCALE + 1))
            out[y * 128 + x] = tuple(colour)[:3] == lit
    return bytes(out)


def _seen_by_player(emulator):
    """The emulator's own picture (PIL, pixel by pixel) as 0/1 bytes."""
    return bytes(1 if v else 0 for v in emulator.to_image().tobytes("raw", "L"))


def test_key_events_become_plays_and_the_earlier_of_two_presses_wins_the_race(window):
    # seed 2: player 0's slot 1 (QC) and player 1's slot 2 (QS) both fit pile 0 (R8)
    steps = [(3200, "k", True), (3205, "a", True), (3260, "k", False), (3265, "a", False)]
    win = _run(window, steps, lambda w: len(_events(w, "reject")) >= 1)
    plays, rejects = _events(win, "play"), _events(win, "reject")
    assert (plays[0]["p"], plays[0]["card"], plays[0]["pile"]) == (1, "QS", 0)
    assert (rejects[0]["p"], rejects[0]["card"], rejects[0]["why"]) == (0, "QC", "late")
    assert "tie" not in plays[0]  # 5 ms apart: not one instant
    # the press times reached the board as posted: key events 5 ms apart in the log (µs)
    keys = [k for e in win.log.lines for k in json.loads(e).get("keys_us", []) if k[2] == 1]
    assert keys[-2][1:] == [9, 1] and keys[-1][1:] == [1, 1]
    assert 4000 <= keys[-1][0] - keys[-2][0] <= 6000


def test_the_other_order_gives_the_pile_to_the_other_player(window):
    steps = [(3200, "a", True), (3205, "k", True), (3260, "a", False), (3265, "k", False)]
    win = _run(window, steps, lambda w: len(_events(w, "reject")) >= 1)
    assert (_events(win, "play")[0]["p"], _events(win, "reject")[0]["p"]) == (0, 1)


def test_the_frame_shows_the_play_pixel_for_pixel(window):
    screen, layout, _, painter = window
    pictures = {}

    def snap(win, name):
        emulators = win.emulators()
        pictures[name] = (
            [_shown(screen, layout, p) for p in range(2)],
            [_seen_by_player(e) for e in emulators],
        )

    def quit_when(win):
        if not win.contacts:
            return False
        t_ms = (win.clock.now_us - win.contacts[0][0]) / 1000
        if "before" not in pictures and t_ms > 3150:
            snap(win, "before")
        if _events(win, "play") and t_ms > 3400:
            snap(win, "after")
            return True
        return False

    _run(window, [(3200, "a", True), (3250, "a", False)], quit_when)
    for moment in ("before", "after"):
        shown, emulated = pictures[moment]
        assert shown == emulated  # the window draws exactly what each player's panel shows
    assert pictures["before"][0][0] != pictures["after"][0][0]  # and the play changed it
    assert pictures["before"][0][1] != pictures["after"][0][1]  # on both panels (pile top)


def test_buttons_light_while_held(window):
    screen, layout, _, _ = window
    seen = {}

    def quit_when(win):
        t_ms = (win.clock.now_us - win.contacts[0][0]) / 1000
        centre = layout.button_centre(13)  # player 1's R
        if 1000 < t_ms < 1100:
            seen["held"] = tuple(screen.get_at(centre))[:3]
        if t_ms > 1300:
            seen["released"] = tuple(screen.get_at(centre))[:3]
            return True
        return False

    _run(window, [(900, "[", True), (1200, "[", False)], quit_when)
    assert seen["held"] == (255, 196, 40) and seen["released"] != seen["held"]


def test_losing_focus_releases_every_held_key(window):
    def quit_when(win):
        t_ms = (win.clock.now_us - win.contacts[0][0]) / 1000
        if 1000 < t_ms and not getattr(win, "_focus_posted", False):
            win._focus_posted = True
            pygame.event.post(pygame.event.Event(pygame.WINDOWFOCUSLOST))
        return t_ms > 1200

    win = _run(window, [(900, "t", True), (900, "j", True)], quit_when)
    assert win.closed == [False] * 14
    assert [c[1:] for c in win.contacts[-2:]] == [(6, False), (8, False)] or [
        c[1:] for c in win.contacts[-2:]
    ] == [(8, False), (6, False)]


def test_a_whole_match_in_the_window_ends_with_the_result_and_its_log(window, tmp_path):
    """Player 0 mashes every key; player 1 does nothing: the match ends (R14/R17) and is saved."""
    mash = []
    for i in range(400):
        for k in "asdfg":
            t = 3100 + i * 180
            mash.append((t, k, True))
            mash.append((t + 60, k, False))
    mash.sort(key=lambda s: s[0])
    _, _, keymap, painter = window
    plan = Plan(keymap, mash, lambda w: w.log.matches >= 1)
    path = tmp_path / "m.jsonl"
    win = BoardWindow(pygame, keymap, painter, log_path=str(path), on_frame=plan, now=FakeWall())
    win.run((("SPEED_SEED", 5), ("SPEED_IDLE_MS", 4000)))
    assert win.log.saved == [str(path)] and win.log.status.startswith(("PLAYER", "MATCH"))
    result = subprocess.run(
        [sys.executable, "-m", "host_sim", "replay", str(path)],
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.path.join(ROOT, "lib")])),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0 and "replayed identically" in result.stdout, result.stderr


def test_the_log_collector_names_each_match_and_keeps_the_score(tmp_path):
    log = LogCollector(str(tmp_path / "m.jsonl"))
    for n in (0, 4):  # on the data port each line ends with a tab and its seq (docs/link.md)
        log.write(
            b'{"ev":"match","best_of":3}\t%d\n{"ev":"deal","hand_no":1}\t%d\n' % (n + 1, n + 2)
        )
        assert log.status == "HAND 1: 0-0"
        log.write(
            b'{"ev":"hand_end","t":5,"winner":1}\t%d\n{"ev":"match_end","winner":1,' % (n + 3)
        )
        log.write(b'"score":[0,2]}\t%d\n' % (n + 4))
        assert log.status == "PLAYER 2 WINS 2-0"
    assert log.saved == [str(tmp_path / "m.jsonl"), str(tmp_path / "m-2.jsonl")]
    assert len((tmp_path / "m-2.jsonl").read_text().splitlines()) == 4


def test_panel_pixels_equal_the_emulator_image():
    from ssd1306_emulator import SSD1306Emulator  # bare, as the busio shim imports it

    for rotation in (0, 180):
        emulator = SSD1306Emulator(mounted_rotation=rotation)
        assert panel_pixels(emulator) == bytes(8192)  # off: dark
        emulator.receive(bytes([0x00, 0x8D, 0x14, 0xA1, 0xC8, 0xDA, 0x12, 0x20, 0x00, 0xAF]))
        emulator.receive(bytes([0x40]) + bytes((i * 37 + 11) & 0xFF for i in range(1024)))
        for extra in (b"", b"\x00\xa7", b"\x00\xa0\xc0", b"\x00\x42\xd3\x05", b"\x00\xa5"):
            if extra:
                emulator.receive(extra)
            assert panel_pixels(emulator) == _seen_by_player(emulator), (rotation, extra)


@LINUX_ONLY
def test_no_display_is_one_line_that_names_the_headless_command_and_exits_0():
    assert display_problem({}, "linux").startswith("no display")
    assert display_problem({"DISPLAY": ":0"}, "linux") is None
    assert display_problem({"WAYLAND_DISPLAY": "wayland-0"}, "linux") is None
    assert display_problem({}, "darwin") is None
    assert display_problem({"SDL_VIDEODRIVER": "dummy"}, "linux") is None
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")
    }
    env["PYTHONPATH"] = os.pathsep.join([ROOT, os.path.join(ROOT, "lib")])
    result = subprocess.run(
        [sys.executable, "-m", "host_sim.window_main"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0 and result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert "no display" in result.stderr and "python3 dev.py play --headless" in result.stderr


@LINUX_ONLY
def test_a_display_that_does_not_answer_is_one_line_too_not_an_unseen_game():
    """DISPLAY naming no X server: SDL falls back to drawing offscreen; play must not run unseen."""
    env = {k: v for k, v in os.environ.items() if k not in ("WAYLAND_DISPLAY", "SDL_VIDEODRIVER")}
    env["DISPLAY"] = ":4242"
    env["PYTHONPATH"] = os.pathsep.join([ROOT, os.path.join(ROOT, "lib")])
    result = subprocess.run(
        [sys.executable, "-m", "host_sim.window_main"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0 and result.stderr.count("\n") == 1, result.stderr
    assert "cannot open a window" in result.stderr and "--headless" in result.stderr


@pytest.mark.parametrize(
    "args,expected",
    [(["--scale", "9"], "--scale must be 2..8"), (["--fps", "1"], "--fps must be 10..240")],
)
def test_bad_window_options_are_one_line_and_exit_2(args, expected):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.path.join(ROOT, "lib")]))
    result = subprocess.run(
        [sys.executable, "-m", "host_sim.window_main", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2 and expected in result.stderr
    assert result.stderr.count("\n") == 1


def test_options_become_the_boards_settings():
    from host_sim.window_main import build_parser, settings_from

    args = build_parser().parse_args(["--seed", "7", "--best-of", "5", "--penalty", "--no-wrap"])
    assert sorted(settings_from(args)) == [
        ("SPEED_BEST_OF", 5),
        ("SPEED_NO_WRAP", 1),
        ("SPEED_PENALTY", 1),
        ("SPEED_SEED", 7),
    ]


def test_a_press_and_release_taken_in_one_batch_still_reach_the_keypad(window):
    """A stalled loop (or a very fast tap) delivers key down and up together: the press counts."""
    posted = []

    def quit_when(win):
        t_ms = (win.clock.now_us - win.contacts[0][0]) / 1000
        if t_ms > 3200 and not posted:
            posted.append(t_ms)
            _post(pygame.KEYDOWN, "a")
            _post(pygame.KEYUP, "a")
        return bool(_events(win, "play"))

    win = _run(window, [], quit_when)
    down, up = win.contacts[-2], win.contacts[-1]
    assert (down[1:], up[1:]) == ((1, True), (1, False)) and up[0] - down[0] == 2000
    assert _events(win, "play")[0]["card"] == "QC"


def test_the_headless_view_is_paced_at_real_time_unless_fast(monkeypatch):
    import time

    from host_sim import cli

    slept = []
    monkeypatch.setattr(time, "sleep", slept.append)
    monkeypatch.setattr(time, "monotonic", lambda: 100.0)  # the wall clock stands still
    watcher = cli._Watcher(classic=True)
    watcher.pace(5000000, fast=False)  # 5 s of match time at once: wait for the wall clock
    watcher.pace(5000000, fast=True)
    assert slept == [5.0]


def test_the_headless_view_fast_is_todays_text_view():
    result = subprocess.run(
        [sys.executable, "-m", "host_sim", "play", "--seed", "1", "--fast"],
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.path.join(ROOT, "lib")])),
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = result.stdout.splitlines()
    assert result.returncode == 0 and lines[0] == "Speed Duo: seed 1, best of 3"
    assert lines[-2].startswith("== match over") and "Player 1 (bot:hard)" in lines[-1]
