"""``python -m host_sim.window_main``: Speed Duo in a window (``python3 dev.py play`` opens it).

The board program runs here as on the board (menu first: either player's
``L``/``R`` move, ``1``-``5`` choose PLAY), two players on one keyboard; the
keys are in ``host_sim/keymap.toml`` (``--keymap FILE`` to change them).
Without a display it says so in one line, names the text view
(``python3 dev.py play --headless``) and exits 0; a bad option or keymap is one
line and exit status 2.
"""

import argparse
import os
import sys

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # before anything imports pygame

from host_sim.cli_options import add_rule_options, rules_from_args, seed_type  # sets sys.path
from host_sim.window_panel import OLED_COLOURS

HEADLESS_HINT = "python3 dev.py play --headless"


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.exit(2, f"play: error: {message}\n")


def build_parser():
    from speedduo.game.rules import BEST_OF

    p = _Parser(
        prog="python3 dev.py play",
        description=__doc__.split("\n\n")[0],
        epilog="python3 dev.py play --headless [--fast] [run's options]: a bot-vs-bot match "
        "as text, at real time unless --fast (no window needed).",
    )
    p.add_argument("--seed", type=seed_type, default=None, help="SPEED_SEED (default: random)")
    p.add_argument("--best-of", type=int, choices=BEST_OF, default=None)
    p.add_argument("--keymap", help="keymap file (TOML; default host_sim/keymap.toml)")
    p.add_argument("--scale", type=int, default=4, help="screen pixels per panel pixel (2..8)")
    p.add_argument("--oled", choices=sorted(OLED_COLOURS), default="white", help="panel colour")
    p.add_argument("--log", help="write each finished match's log here (FILE, FILE-2, ...)")
    p.add_argument("--fps", type=int, default=60, help="frames per second (10..240)")
    p.add_argument("--mute", action="store_true", help="no sound")
    p.add_argument("--screenshot", help="save the window as PNG here when it closes")
    add_rule_options(p)
    return p


def display_problem(environ=None, platform=None):
    """Why no window can open here (None: try it). Linux without DISPLAY/WAYLAND_DISPLAY."""
    environ = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    if environ.get("SDL_VIDEODRIVER"):
        return None  # the user chose a driver (dummy, x11, wayland, kmsdrm...)
    if platform.startswith("linux") and not (
        environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY")
    ):
        return "no display (DISPLAY and WAYLAND_DISPLAY are not set)"
    return None


def no_window(why, who="play", hint="for the text view run: " + HEADLESS_HINT):
    """The one line for a machine with no window."""
    return f"{who}: {why}; {hint}"


HIDDEN_DRIVERS = ("offscreen", "dummy")  # SDL's drivers that show nothing


def open_window(pygame, layout, environ=None):
    """pygame's display and a window of the layout's size; raises pygame.error.

    SDL falls back to its ``offscreen`` driver when no display answers (``DISPLAY``
    naming no X server): the game would run unseen, so that is no window either,
    unless ``SDL_VIDEODRIVER`` asked for it (the tests' ``dummy``)."""
    from host_sim.window_sound import quietly

    environ = os.environ if environ is None else environ
    quietly(pygame.display.init)
    driver = pygame.display.get_driver()
    if driver in HIDDEN_DRIVERS and environ.get("SDL_VIDEODRIVER") != driver:
        pygame.display.quit()
        raise pygame.error(f"no display answered; SDL fell back to its {driver} driver")
    pygame.font.init()
    screen = pygame.display.set_mode((layout.width, layout.height))
    pygame.display.set_caption("Speed Duo")
    return screen


def settings_from(args):
    """SPEED_* values for the board program (settings.toml's names, as ``board`` sets them)."""
    _, changed = rules_from_args(args)
    values = [
        ("SPEED_" + name.upper(), int(v) if v is True or v is False else v) for name, v in changed
    ]
    if args.best_of is not None:
        values.append(("SPEED_BEST_OF", args.best_of))
    if args.seed is not None:
        values.append(("SPEED_SEED", args.seed))
    return values


def main(argv):
    args = build_parser().parse_args(argv)
    if not 10 <= args.fps <= 240:
        print("play: error: --fps must be 10..240", file=sys.stderr)
        return 2
    from host_sim.logfile import check_out_paths
    from host_sim.window_keys import KeymapError, load_keymap
    from host_sim.window_layout import Layout

    try:
        layout = Layout(args.scale)
        settings = settings_from(args)
        check_out_paths(args)  # --log, --screenshot
    except ValueError as e:
        print(f"play: error: {e}", file=sys.stderr)
        return 2
    try:
        import pygame
    except ImportError:
        print("play: error: pygame-ce is not installed: run python3 dev.py setup", file=sys.stderr)
        return 2
    try:
        keymap = load_keymap(explicit=args.keymap)
    except KeymapError as e:
        print(f"play: error: {e}", file=sys.stderr)
        return 2
    why = display_problem()
    if why:
        print(no_window(why), file=sys.stderr)
        return 0
    try:
        screen = open_window(pygame, layout)
    except pygame.error as e:
        print(no_window(f"cannot open a window ({e})"), file=sys.stderr)
        return 0
    return play(pygame, screen, layout, keymap, args, settings)


def play(pygame, screen, layout, keymap, args, settings):
    from host_sim.window_draw import Painter
    from host_sim.window_loop import BoardWindow, legend_text
    from host_sim.window_sound import ToneSink

    painter = Painter(screen, layout, keymap.labels, args.oled, legend_text(keymap))
    tones = None if args.mute else ToneSink(pygame)
    window = BoardWindow(pygame, keymap, painter, tones, args.log, args.fps)
    try:
        log = window.run(settings)
    except KeyboardInterrupt:
        log = window.log
    except ValueError as e:  # LogError: the log's file, one line naming it
        print(f"play: error: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"play: error: cannot write the log: {e.strerror or e}", file=sys.stderr)
        return 2
    finally:
        if args.screenshot:
            pygame.image.save(screen, args.screenshot)
        if tones is not None:
            tones.close()
        pygame.quit()
    for path in log.saved:
        print(f"play: match log {path}")
    if log.status:
        print(f"play: {log.status.lower()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
