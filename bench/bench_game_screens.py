"""Figures for the screens of Spit and California Speed (spit_view.py, california_view.py).

    .venv/bin/python bench/bench_game_screens.py       # both parts (runs the VM part too)

CPython part: seeded matches played by greedy presses (tests/game_screens.py's
``Table``) on two emulated panels; the bytes each panel receives per refresh
during play, and the match-over screen. MicroPython part (the unix VM on this
host, not an RP2040): the heap the views' modules and objects take once
classic Speed's renderer is loaded (as on the board, where ``screens`` and
``view`` are always imported), and the time of one ``Screens.refresh``.
"""

import sys

MPY = sys.implementation.name == "micropython"
GAMES = (("spit", 3), ("california", 24))


def _mpy_part(root):
    import gc
    import time

    sys.path.insert(0, root + "/lib")
    from bench_screens import NullBus as Bus
    from speedduo.display import screens, ssd1306, view  # noqa: F401  (the board has these)
    from speedduo.game.gamematch import GameSession
    from speedduo.game.gamerules import GameRules
    from speedduo.log.gamelog import GameLog

    for game, seed in GAMES:
        gc.collect()
        free0 = gc.mem_free()
        if game == "spit":
            from speedduo.display.spit_view import SpitView as View
        else:
            from speedduo.display.california_view import CaliforniaView as View
        gc.collect()
        free1 = gc.mem_free()
        panels = (ssd1306.Panel(Bus()), ssd1306.Panel(Bus(), rotation=180))
        gc.collect()
        free2 = gc.mem_free()
        views = (View(panels[0], 0), View(panels[1], 1))
        gc.collect()
        free3 = gc.mem_free()
        if game == "spit":
            from speedduo.game.spit import Spit as Core
        else:
            from speedduo.game.california import California as Core
        rules = GameRules(game)
        session = GameSession(Core(rules), seed, rules, 1, GameLog())
        s = screens.Screens(panels, views)
        s.start()
        core = session.core
        match = session.match
        now = 0
        total = 0
        n = 0
        for k in range(5000):
            if match.phase == 3:
                break
            p = k & 1
            keys = None
            if match.phase == 1 and not core.over:
                keys = core.bot_keys(p)
                if not keys:
                    p = 1 - p
                    keys = core.bot_keys(p)
            if not keys:
                due = match.next_due()
                now = due if due > now else now + 1
                session.step(now, [])
                s.refresh(core, match, now)
                continue
            now += 50
            session.step(now, [(p * 7 + keys[0], 1)])
            session.log.drain(lambda line: None)
            t0 = time.ticks_us()
            s.render(core, match, now)  # the views' drawing (CPU), as bench_screens.py times it
            total += time.ticks_diff(time.ticks_us(), t0)
            n += 1
            s.send_shared()
            s.send_private()
            now += 1
            session.step(now, [(p * 7 + keys[0], 0)])
        print(
            "micropython %s: view modules %d B, two views %d B, render %.0f us per press (%d)"
            % (game, free0 - free1, free2 - free3, total / n if n else 0, n)
        )


def _cpython_part():
    import os

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path[:0] = [root, os.path.join(root, "lib"), os.path.join(root, "tests")]
    from host_sim import use_board_paths

    use_board_paths()
    from game_screens import Table
    from speedduo.vocab.codes import OVER

    for game, seed in GAMES:
        t = Table(game, seed)
        t.start_round()
        sizes = []
        presses = 0
        while t.match.phase != OVER and presses < 20000:
            before = [b.bytes.get(0x3C, 0) for b in t.buses]
            p = presses % 2
            if t.match.phase == 1 and not t.core.over and (t.play_one(p) or t.play_one(1 - p)):
                after = [b.bytes.get(0x3C, 0) for b in t.buses]
                if t.match.phase == 1:  # (not the press that ended the match: a full screen)
                    sizes.append(max(a - b for a, b in zip(after, before, strict=True)))
            else:
                due = t.match.next_due()
                t.at(due if due > t.now else t.now + 1)
            presses += 1
        sizes.sort()
        print(
            "%s (seed %d): bytes per panel per press (press + release refreshes): "
            "median %d, mean %.0f, max %d over %d presses (a full frame: 1024)"
            % (game, seed, sizes[len(sizes) // 2], sum(sizes) / len(sizes), sizes[-1], len(sizes))
        )
    from bench_screens import run_micropython_part

    run_micropython_part(root, __file__)


if __name__ == "__main__":
    if MPY:
        _here = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
        _mpy_part(_here + "/..")
    else:
        _cpython_part()
