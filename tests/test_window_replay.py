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
from host_sim.replay_show import LEGEND, ReplayShow, handle, read_any_log, run_show  # noqa: E402
from host_sim.window_draw import Painter, pygame  # noqa: E402
from host_sim.window_layout import Layout  # noqa: E402
from host_sim.window_main import open_window  # noqa: E402

LOGS = os.path.join(ROOT, "tests", "golden", "logs")
GOLDEN = os.path.join(LOGS, "seed1_hard_vs_easy.jsonl")
# version 2 logs the board's loop wrote (test_golden_logs.py: player 0 mashing, HARD opponent)
BOARD_LOGS = {
    "spit": ("board_spit_seed3_mash_vs_hard.jsonl", 3),
    "california": ("board_california_seed5_mash_vs_hard.jsonl", 5),
}


class FakeWall:
    def __init__(self):
        self.t = 0

    def __call__(self):
        return self.t


def _without_keys(line):
    obj = json.loads(line)
    obj.pop("keys", None)
    obj.pop("keys_us", None)  # (the golden run logs are the PIO's, µs)
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


def _played_to_the_end(path):
    wall = FakeWall()
    show = ReplayShow(read_any_log(path)[0], wall)
    while not show.over:
        wall.t += 50000  # frames 50 ms apart
        show.advance()
    return show


@pytest.mark.parametrize(
    "name",
    [
        "board_spit_seed3_mash_vs_hard",
        "game_spit_seed3_hard_vs_medium",
        "board_california_seed5_mash_vs_hard",
        "game_california_seed3_hard_vs_medium",
    ],
)
def test_the_show_runs_the_boards_game_loop_on_a_version_2_log_and_gets_it_again(name):
    """V8/V9: GameApp (the board's loop) fed the log's key events writes the log, byte for byte."""
    from speedduo.loop.game_app import GameApp

    path = os.path.join(LOGS, name + ".jsonl")
    show = _played_to_the_end(path)
    with open(path) as f:
        assert show.lines == f.read().splitlines()
    assert isinstance(show.app, GameApp)
    assert show.status().startswith("MATCH OVER") and show.pressed == [False] * 14


@pytest.mark.parametrize("game", sorted(BOARD_LOGS))
def test_a_version_2_show_ends_on_the_picture_the_boards_loop_drew(game):
    """Both panels at the end equal those of the board's loop (GameApp, ms by ms, the
    game's views on emulated panels) playing the match the log was written from."""
    from board_loop import MASK, mash_presses, play_board_loop
    from runner import view_class
    from speedduo.loop import pins

    from host_sim.screens_capture import sim_screens
    from host_sim.window_panel import panel_pixels

    name, seed = BOARD_LOGS[game]
    screens, emulators = sim_screens(rotations=pins.PANEL_ROTATION)
    view = view_class(game, 2)
    screens.views = (view(screens.panels[0], 0), view(screens.panels[1], 1))
    board = play_board_loop(game, MASK - 5000, mash_presses(), 3, seed, 600000, screens=screens)
    show = _played_to_the_end(os.path.join(LOGS, name))
    assert show.lines == board[1]
    for drawn, shown in zip(emulators, show.emulators, strict=True):
        assert panel_pixels(shown) == panel_pixels(drawn)


def test_a_spit_show_draws_the_round_result_as_the_spit_view_does():
    """Between rounds (RESULT) both panels show Spit's own screens, as a SpitView drawn
    afresh from the replayed table shows them (not classic Speed's)."""
    from speedduo.display.spit_view import SpitView
    from speedduo.loop import pins
    from speedduo.vocab.codes import RESULT

    from host_sim.screens_capture import sim_screens
    from host_sim.window_panel import panel_pixels

    wall = FakeWall()
    show = ReplayShow(
        read_any_log(os.path.join(LOGS, "game_spit_seed3_hard_vs_medium.jsonl"))[0], wall
    )
    while show.app.match.phase != RESULT:
        wall.t += 50000
        show.advance()
    screens, emulators = sim_screens(rotations=pins.PANEL_ROTATION)
    screens.views = (SpitView(screens.panels[0], 0), SpitView(screens.panels[1], 1))
    screens.refresh(show.app.core, show.app.match, show.app.arbiter.match_time(show._ticks()))
    for fresh, shown in zip(emulators, show.emulators, strict=True):
        assert panel_pixels(shown) == panel_pixels(fresh)
    assert all(isinstance(v, SpitView) for v in show.screens.views)


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
    first_press = next(t for t, _, down, _ in show.keys if down)
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


def test_the_window_shows_a_spit_replay_on_both_panels(screen):
    surface, layout = screen
    painter = Painter(surface, layout, None, "blue", LEGEND)
    wall = FakeWall()
    show = ReplayShow(read_any_log(os.path.join(LOGS, BOARD_LOGS["spit"][0]))[0], wall)

    def on_frame(s):
        wall.t += 40000
        if s.t_ms > 6000:
            pygame.event.post(pygame.event.Event(pygame.QUIT))

    run_show(show, pygame, painter, "REPLAY", fps=1000, on_frame=on_frame)
    lit = (96, 186, 255)
    for panel in (0, 1):
        x0, y0, _, _ = layout.panel_rect(panel)
        shown = bytes(
            tuple(surface.get_at((x0 + x * 4 + 1, y0 + y * 4 + 1)))[:3] == lit
            for y in range(64)
            for x in range(128)
        )
        picture = show.emulators[panel].to_image().tobytes("raw", "L")
        assert shown == bytes(1 if v else 0 for v in picture) and any(shown)


@pytest.mark.parametrize("log", [GOLDEN] + [os.path.join(LOGS, n) for n, _ in BOARD_LOGS.values()])
def test_replay_show_on_the_command_line_checks_then_shows(screen, capsys, log):
    from host_sim.cli import main

    pygame.event.post(pygame.event.Event(pygame.QUIT))  # close it at once
    assert main(["replay", log, "--show"]) == 0
    assert "replayed identically" in capsys.readouterr().out


def test_replay_show_refuses_a_three_player_log_in_one_line_saying_why(capsys):
    """V10 never runs on the board: there are no screens to show it on (exit 2, bad usage)."""
    from host_sim.cli import main

    log = os.path.join(LOGS, "game_speed3_seed5_hard_medium_easy.jsonl")
    assert main(["replay", log, "--show"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert "3 players (V10) has no screens" in err and "without --show" in err
    assert main(["replay", log]) == 0  # the check alone plays it


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


def test_replay_show_refuses_a_spit_log_with_an_unknown_rule_in_one_line_naming_it(
    tmp_path, capsys
):
    from host_sim.cli import main

    with open(os.path.join(LOGS, BOARD_LOGS["spit"][0])) as f:
        text = f.read()
    path = tmp_path / "m.jsonl"
    bad = text.replace('"rules":{', '"rules":{"bogus":1,', 1)
    path.write_text(bad)
    assert main(["replay", str(path), "--show"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{path}: line 1: rules: rule option bogus" in err
    assert path.read_text() == bad  # the file is left as it was


def test_stepping_press_by_press_plays_a_spit_log_to_its_end_and_writes_it_again():
    path = os.path.join(LOGS, "game_spit_seed3_hard_vs_medium.jsonl")
    show = ReplayShow(read_any_log(path)[0], FakeWall())
    show.paused = True
    steps = 0
    while not show.over and steps < 10000:
        t = show.t_ms
        show.step_to_next_press()
        assert show.t_ms > t
        steps += 1
    with open(path) as f:
        assert show.lines == f.read().splitlines()


def test_a_show_of_a_spit_log_with_a_head_start_gets_it_again(tmp_path):
    """H1: the version 2 key record holds each press's own time; fed back in that order,
    the board's loop with the log's head starts writes the log again, byte for byte."""
    from conftest import run_cli

    path = tmp_path / "h1.jsonl"
    run_cli(
        "run", "--game", "spit", "--seed", "1", "--p1", "bot:hard", "--p2", "bot:medium",
        "--head-start-p1-ms", "50", "--head-start-p2-ms", "300", "--log", str(path),
    )  # fmt: skip
    show = _played_to_the_end(str(path))
    assert show.lines == path.read_text().splitlines()


def test_a_show_of_a_classic_log_with_fewer_cards_gets_it_again(tmp_path):
    """H2: the window's replay deals with the log's hand_slots and writes it again (the key
    fields aside, as for every classic log: they ride on the lines the loop passes make)."""
    from conftest import run_cli

    path = tmp_path / "h2.jsonl"
    run_cli(
        "run", "--seed", "2", "--p1", "bot:hard", "--p2", "bot:medium",
        "--hand-slots-p1", "3", "--hand-slots-p2", "4", "--log", str(path),
    )  # fmt: skip
    show = _played_to_the_end(str(path))
    wanted = [_without_keys(line) for line, obj in read_log(str(path)) if obj["ev"] != "keys"]
    assert [_without_keys(line) for line in show.lines] == wanted
    assert '"hand_slots":[3,4]' in show.lines[0]
