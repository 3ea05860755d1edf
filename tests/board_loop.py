"""The board's loop for V8 Spit and V9 California Speed driven on a fake clock, for the tests
(test_board_games.py, test_golden_logs.py): a GameApp, a keypad queue stand-in, and
screens that record what the views are told."""

from conftest import EventQueue
from speedduo.game.gamematch import GameSession
from speedduo.game.gamerules import GameRules
from speedduo.log.gamelog import EV_WORDS, GameLog
from speedduo.loop.game_app import GameApp
from speedduo.loop.game_opponent import GameOpponent
from speedduo.loop.opponent import KeyEvent

MASK = (1 << 29) - 1  # supervisor.ticks_ms wraps at 2**29


def make_core(game, rules):
    from speedduo.games import core_class

    return core_class(game)(rules)  # the registry's


class RecordingView:
    """A view with the games' views' interface, recording what it is told."""

    def __init__(self):
        self.events = []
        self.refreshes = 0
        self.overflows = 0

    def forget(self):
        pass

    def event(self, kind, p, why, t, now):
        self.events.append((EV_WORDS[kind].decode(), p, now))

    def update_shared(self, core, match, now):
        self.refreshes += 1
        return True

    def update_private(self, core, match):
        pass

    def show_overflow(self, now):
        self.overflows += 1


class RecordingScreens:
    def __init__(self):
        self.views = (RecordingView(), RecordingView())

    def refresh(self, core, match, now):
        for view in self.views:
            if view.update_shared(core, match, now):
                view.update_private(core, match)

    def show_overflow(self, now):
        for view in self.views:
            view.show_overflow(now)

    def event(self, kind, p, why, t, now):
        for view in self.views:
            view.event(kind, p, why, t, now)


def mash_presses(until_ms=600000):
    """Player 0 pressing its keys in turn every 70 ms (L and R among them), each held 30 ms:
    (match ms, key, down) for ``play_board_loop``."""
    keys = (1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6)
    presses = []
    for i, ms in enumerate(range(3500, until_ms, 70)):
        presses += [(ms, keys[i % len(keys)], 1), (ms + 30, keys[i % len(keys)], 0)]
    return presses


def play_board_loop(
    game, start, presses, opponent=0, seed=3, limit_ms=400000, screens=None, **options
):
    """A GameApp driven ms by ms on a fake clock starting at ticks ``start``; ``presses``:
    (match ms, key, down) key events the keypad scans; ``screens``: the screens to draw
    on (a RecordingScreens when None); returns (app, lines, screens)."""
    rules = GameRules(game, **options)
    session = GameSession(make_core(game, rules), seed, rules, 1, GameLog())
    queue = EventQueue()
    clock = [start]
    lines = []
    if screens is None:
        screens = RecordingScreens()
    player = GameOpponent(opponent, seed) if opponent else None
    app = GameApp(
        queue,
        lambda: clock[0],
        session,
        lambda line: lines.append(bytes(line).decode()),
        screens,
        start_ticks=start,
        opponent=player,
        event=KeyEvent(),
    )
    todo = sorted(presses)
    ms = 0
    while not app.over and ms < limit_ms:
        while todo and todo[0][0] <= ms:
            t, key, down = todo.pop(0)
            queue.items.append(((start + t) & MASK, key, bool(down)))
        clock[0] = (start + ms) & MASK
        app.step()
        ms += 1
    app.run()
    return app, lines, screens
