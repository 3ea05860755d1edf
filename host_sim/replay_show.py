"""``python -m host_sim replay FILE --show``: a saved match played again on screen, at real speed.

The log's key events are fed, at their own match times, to the board's game
loop with both panels emulated (``screens_capture.sim_screens``, the pin map's
rotations), so what is drawn is what the board drew during that match; the
buttons light as the key events say. The loop is the board's for the log's
game (``board_loop``): classic Speed's ``speedduo.loop.app.App`` for a version 1 log,
``speedduo.loop.game_app.GameApp`` with the game's own views for a version 2 log of
Spit (V8) or California Speed (V9). Speed for three or four (V10) never runs on
the board and has no views: ``--show`` refuses it (``NoView``). Keys: space
pauses, right arrow (while paused) steps to the next press, ``+``/``-`` change
the speed (x1/8 .. x8), Escape or closing the window ends it. At the end of the
match the last screen stays until the window closes.
"""

from host_sim import use_board_paths
from host_sim.window_clock import wall_us

use_board_paths()

from runner import view_class  # noqa: E402
from speedduo.loop import pins  # noqa: E402
from speedduo.loop.app import App  # noqa: E402

from host_sim.replay import KeyEvent, KeyQueue, ReplayError, rules_from_log  # noqa: E402
from host_sim.window_panel import panel_pixels, panel_state  # noqa: E402

SPEEDS = (0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
LEGEND = "SPACE: PAUSE   RIGHT ARROW: STEP (PAUSED)   + / -: SPEED   ESC: QUIT"
_TICKS_MASK = (1 << 29) - 1
_MAX_FRAME_MS = 100  # a longer gap between frames (a stopped process) is not replayed at once


def key_events(entries):
    """[(t_ms, key, pressed, sub_us)] from the log's key record (loss marks left out; a µs
    log's times split into the ms and the µs past it)."""
    unit = 1000 if entries[0][1].get("stamped_by") == "pio" else 1
    out = []
    for _, obj in entries:
        for t, key, pressed in obj.get("keys", ()):
            if key >= 0:
                out.append((t // unit, key, pressed == 1, t % unit))
    return out


class NoView(ReplayError):
    """The log's game has no screens to show it on (exit status 2)."""


def no_view(header):
    """Why a log's game cannot be shown (V10: no views), or None when it can."""
    if header["v"] == 1 or view_class(header["game"], header["players"]):
        return None
    return (
        f"{header['game'].capitalize()} for {header['players']} players (V10) has no screens"
        " to show it on (it never runs on the board); replay without --show checks it"
    )


def board_loop(header, events, ticks_ms, send_line, screens, event):
    """The board's loop for the match a log's first line describes, started at ticks 0:
    ``App`` for classic Speed (version 1), ``GameApp`` with the game's views on
    ``screens`` for Spit and California Speed (version 2); NoView for a game without."""
    if header["v"] == 1:
        rules = rules_from_log(header)
        return App(
            events,
            ticks_ms,
            header["seed"],
            rules,
            header["best_of"],
            send_line,
            screens,
            start_ticks=0,
            event=event,
            micro=header.get("stamped_by") == "pio",
        )
    from speedduo.loop.game_app import GameApp

    from host_sim.replay_games import session_of

    view = view_class(header["game"], header["players"])
    if view is None:
        raise NoView(no_view(header))
    views = (view(screens.panels[0], 0), view(screens.panels[1], 1))
    for player_view in views:
        player_view.forget()  # everything is drawn at the first refresh (as game_app.board_match)
    screens.views = views
    session = session_of(header)
    return GameApp(events, ticks_ms, session, send_line, screens, start_ticks=0, event=event)


class ReplayShow:
    """One saved match, driven frame by frame (``advance``) from the wall clock or a test's."""

    def __init__(self, entries, now=wall_us):
        from host_sim.screens_capture import sim_screens

        self.keys = key_events(entries)
        self.queue = KeyQueue()
        self.screens, self.emulators = sim_screens(rotations=pins.PANEL_ROTATION)
        self.t_ms = 0.0  # match time shown
        self.lines = []
        self.app = board_loop(
            entries[0][1],
            self.queue,
            self._ticks,
            lambda line: self.lines.append(bytes(line).decode()),
            self.screens,
            KeyEvent(0, False, 0),  # what the arbiter reads the queue into
        )
        self.next_key = 0
        self.pressed = [False] * 14
        self.paused = False
        self.speed = SPEEDS.index(1.0)
        self.now = now
        self._wall = now()
        self._pixels = [None, None]
        self.step()

    def _ticks(self):
        return int(self.t_ms) & _TICKS_MASK

    @property
    def over(self):
        return self.app.over

    def advance(self):
        """Move the shown time on by the wall time since the last call (x speed), unless paused."""
        wall = self.now()
        elapsed_ms = min((wall - self._wall) / 1000, _MAX_FRAME_MS)
        self._wall = wall
        if not self.paused and not self.over:
            self.go_to(self.t_ms + elapsed_ms * SPEEDS[self.speed])

    def step_to_next_press(self):
        """Paused: jump just past the next key press (its play shows), or to the end."""
        i = self.next_key
        while i < len(self.keys) and not self.keys[i][2]:
            i += 1
        if i < len(self.keys):
            self.go_to(self.keys[i][0] + 1)
        elif not self.over:
            due = self.app.match.next_due()
            self.go_to(max(self.t_ms + 1, due + 1))

    def go_to(self, t_ms):
        """Feed the key events up to ``t_ms`` and run the game loop there."""
        keys = self.keys
        while self.next_key < len(keys) and keys[self.next_key][0] <= t_ms:
            t, key, pressed, sub = keys[self.next_key]
            self.queue.items.append(KeyEvent(key, pressed, t & _TICKS_MASK, sub))
            self.pressed[key] = pressed
            self.next_key += 1
        self.t_ms = t_ms
        self.step()
        if self.over:  # releases after the match's end are not in the log
            self.pressed = [False] * 14

    def step(self):
        for _ in range(8):  # the arbiter takes a batch of events per pass
            self.app.step()
            if not self.queue.items:
                break
        self.app.step()

    def faster(self, by):
        self.speed = max(0, min(len(SPEEDS) - 1, self.speed + by))

    def status(self):
        seconds = self.t_ms / 1000
        if self.over:
            return "MATCH OVER (%d:%02d)" % (seconds // 60, seconds % 60)
        state = "PAUSED" if self.paused else "x%g" % SPEEDS[self.speed]
        return "%s  %d:%04.1f" % (state, seconds // 60, seconds % 60)

    def pixels(self):
        """Both panels' pictures (made again only when a panel's state changed)."""
        for i, emulator in enumerate(self.emulators):
            state = panel_state(emulator)
            if self._pixels[i] is None or self._pixels[i][0] != state:
                self._pixels[i] = (state, panel_pixels(emulator))
        return [self._pixels[0][1], self._pixels[1][1]]


def handle(show, pygame, event):
    """One pygame event; False when the window should close."""
    if event.type == pygame.QUIT:
        return False
    if event.type != pygame.KEYDOWN:
        return True
    key = event.key
    if key == pygame.K_ESCAPE:
        return False
    if key == pygame.K_SPACE:
        show.paused = not show.paused
    elif key == pygame.K_RIGHT and show.paused:
        show.step_to_next_press()
    elif key in (pygame.K_PLUS, pygame.K_EQUALS, pygame.K_KP_PLUS):
        show.faster(1)
    elif key in (pygame.K_MINUS, pygame.K_KP_MINUS):
        show.faster(-1)
    return True


def run_show(show, pygame, painter, title, fps=60, on_frame=None):
    """The window's loop until it is closed; ``on_frame(show)`` after each frame (tests)."""
    clock = pygame.time.Clock()
    while True:
        for event in pygame.event.get():
            if not handle(show, pygame, event):
                return show
        show.advance()
        painter.frame(show.pixels(), show.pressed, title, show.status())
        pygame.display.flip()
        if on_frame is not None:
            on_frame(show)
        clock.tick(fps)


def show_file(path, scale=4, oled="white"):
    """The ``--show`` command: check the log as ``replay`` does, say so, then show it."""
    import os
    import sys

    from host_sim.window_main import display_problem, no_window, open_window

    entries, check = read_any_log(path)  # a bad file: LogError, one line, exit 2 (cli.main)
    why = no_view(entries[0][1])
    if why:
        raise NoView(f"{path}: {why}")
    ok, message = check()
    print(message, file=sys.stdout if ok else sys.stderr)
    why = display_problem()
    if why:
        hint = "the check above is the whole replay without --show"
        print(no_window(why, "replay", hint), file=sys.stderr)
        return 0 if ok else 1
    from host_sim.window_draw import Painter, pygame
    from host_sim.window_layout import Layout

    layout = Layout(scale)
    try:
        screen = open_window(pygame, layout)
    except pygame.error as e:
        print(no_window(f"cannot open a window ({e})", "replay", "no --show"), file=sys.stderr)
        return 0 if ok else 1
    pygame.display.set_caption("Speed Duo replay: " + os.path.basename(path))
    painter = Painter(screen, layout, None, oled, LEGEND)
    try:
        run_show(ReplayShow(entries), pygame, painter, title(entries[0][1]))
    except KeyboardInterrupt:
        pass
    finally:
        pygame.quit()
    return 0 if ok else 1


def read_any_log(path):
    """(entries, check) of a log of either version: ``check()`` is ``replay``'s
    (ok, message) for it. LogError when the file cannot be read."""
    from host_sim.logfile import read_bytes
    from host_sim.replay import read_entries, replay_file

    data = read_bytes(path)
    return read_entries(path, data), lambda: replay_file(path, data)


def title(header):
    """The window's title line: the game (when not classic Speed) and the seed."""
    if header["v"] == 1:
        return "REPLAY: SEED %d" % header["seed"]
    return "REPLAY: %s, SEED %d" % (header["game"].upper(), header["seed"])
