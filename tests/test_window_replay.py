"""``replay FILE --show``: a saved match played again in the window (SDL's dummy video driver)."""

import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ["SDL_AUDIODRIVER"] = "dummy"

from host_sim.logfile import read_log  # noqa: E402
from host_sim.replay_show import LEGEND, ReplayShow, handle, run_show  # noqa: E402
from host_sim.window_draw import Painter, pygame  # noqa: E402
from host_sim.window_layout import Layout  # noqa: E402
from host_sim.window_main import open_window  # noqa: E402

GOLDEN = os.path.join(ROOT, "tests", "golden", "logs", "seed1_hard_vs_easy.jsonl")


class FakeWall:
    def __init__(self):
        self.t = 0

    def __call__(self):
        return self.t


def _without_keys(line):
    obj = json.loads(line)
    obj.pop("keys", None)
    obj.pop("keys_total", None)
    return obj


def test_the_show_runs_the_game_loop_on_the_logs_key_events_and_gets_the_log_again():
    entries = read_log(GOLDEN)
    wall = FakeWall()
    show = ReplayShow(entries, wall)
    while not show.over:
        wall.t += 50000  # frames 50 ms apart
        show.advance()
    wanted = [_without_keys(line) for line, obj in entries if obj["ev"] != "keys"]
    assert [_without_keys(line) for line in show.lines] == wanted
    assert show.status().startswith("MATCH OVER") and show.pressed == [False] * 14


def test_pause_step_and_speed():
    entries = read_log(GOLDEN)
    wall = FakeWall()
    show = ReplayShow(entries, wall)
    wall.t += 1000000
    show.advance()
    assert show.t_ms == 100  # one frame never moves more than 100 ms (a stopped process)
    show.faster(1)  # x2
    wall.t += 50000
    show.advance()
    assert show.t_ms == 200
    show.faster(-2)  # x0.5
    wall.t += 50000
    show.advance()
    assert show.t_ms == 225
    show.paused = True
    wall.t += 50000
    show.advance()
    assert show.t_ms == 225 and show.status().startswith("PAUSED")
    plays = sum('"ev":"play"' in line for line in show.lines)
    show.step_to_next_press()
    first_press = next(t for t, _, down in show.keys if down)
    assert show.t_ms == first_press + 1
    show.step_to_next_press()
    assert sum('"ev":"play"' in line for line in show.lines) <= plays + 2
    show.faster(-10)
    assert show.status().startswith("PAUSED")
    show.paused = False
    assert show.status().startswith("x0.125")


def _key(key):
    return pygame.event.Event(pygame.KEYDOWN, key=key)


def test_keys_pause_step_and_change_speed():
    show = ReplayShow(read_log(GOLDEN), FakeWall())
    assert handle(show, pygame, _key(pygame.K_SPACE)) and show.paused
    t = show.t_ms
    assert handle(show, pygame, _key(pygame.K_RIGHT)) and show.t_ms > t
    handle(show, pygame, _key(pygame.K_PLUS))
    assert show.status() == "PAUSED" + show.status()[6:] and show.speed == 4
    handle(show, pygame, _key(pygame.K_MINUS))
    handle(show, pygame, _key(pygame.K_MINUS))
    assert show.speed == 2
    assert not handle(show, pygame, _key(pygame.K_ESCAPE))
    assert not handle(show, pygame, pygame.event.Event(pygame.QUIT))


@pytest.fixture
def screen():
    layout = Layout(4)
    yield open_window(pygame, layout), layout
    pygame.quit()


def test_the_window_shows_the_replayed_panels(screen):
    surface, layout = screen
    painter = Painter(surface, layout, None, "blue", LEGEND)
    wall = FakeWall()
    show = ReplayShow(read_log(GOLDEN), wall)
    frames = []

    def on_frame(s):
        wall.t += 40000
        frames.append(s.t_ms)
        if s.t_ms > 8000:
            pygame.event.post(pygame.event.Event(pygame.QUIT))

    run_show(show, pygame, painter, "REPLAY", fps=1000, on_frame=on_frame)
    lit = (96, 186, 255)
    x0, y0, _, _ = layout.panel_rect(0)
    shown = bytes(
        tuple(surface.get_at((x0 + x * 4 + 1, y0 + y * 4 + 1)))[:3] == lit
        for y in range(64)
        for x in range(128)
    )
    picture = show.emulators[0].to_image().tobytes("raw", "L")
    assert shown == bytes(1 if v else 0 for v in picture) and any(shown)


def test_replay_show_on_the_command_line_checks_then_shows(screen, capsys):
    from host_sim.cli import main

    pygame.event.post(pygame.event.Event(pygame.QUIT))  # close it at once
    assert main(["replay", GOLDEN, "--show"]) == 0
    assert "replayed identically" in capsys.readouterr().out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="DISPLAY is X11's")
def test_replay_show_without_a_display_still_checks_and_says_why_no_window():
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")
    }
    env["PYTHONPATH"] = os.pathsep.join([ROOT, os.path.join(ROOT, "lib")])
    result = subprocess.run(
        [sys.executable, "-m", "host_sim", "replay", GOLDEN, "--show"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("\n") == 1 and "replayed identically" in result.stdout
    assert result.stderr.count("\n") == 1 and "no display" in result.stderr
