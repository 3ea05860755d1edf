"""Where a press's loop pass spends its time, part by part (V8 Spit, V9 California Speed).

MicroPython only (the unix VM of the venv):

    micropython -X heapsize=1M bench/mp_press_path.py ROOT [GAME [PRESSES]]

The board's loop pass that applies a press does, in order: the session's step (key
record, arbitration, the core's press, the log's line), the views' and the sound's
notes, both views' table (what both players see but the centre's moment), sending it
(plan + writes, to a bus that takes the bytes at once), both views' moments (drawn and
sent), both views' private part and sending it, the log's lines to their sink. Both
players press keys that do something (the core's ``bot_mask``) until the match ends;
each part is timed with ``time.ticks_us`` and its median, 90th percentile and slowest
printed, in µs of this machine's VM (relative figures: the RP2040 runs the same bytecode
roughly 30-60 times slower; docs/device.md).
"""

import sys
import time

_root = sys.argv[1] if len(sys.argv) > 1 else "."
sys.path[:0] = [_root + "/lib", _root + "/host_sim/shims"]

from speedduo.display.screens import Screens  # noqa: E402
from speedduo.display.ssd1306 import Panel  # noqa: E402
from speedduo.game.gamematch import GameSession  # noqa: E402
from speedduo.game.gamerules import GameRules  # noqa: E402
from speedduo.log.gamelog import GameLog  # noqa: E402
from speedduo.vocab.codes import KEYS_PER_PLAYER, OVER, PLAYING  # noqa: E402

PARTS = (
    "session",
    "notes",
    "table",
    "send table",
    "moments",
    "private",
    "send private",
    "log out",
)


class NullBus:
    """An I2C bus that takes every transfer at once (the bytes are counted)."""

    def __init__(self):
        self.sent = 0

    def try_lock(self):
        return True

    def unlock(self):
        pass

    def writeto(self, address, buf, *, start=0, end=None):
        self.sent += end - start


def _sink(line):
    pass


def main():
    game = sys.argv[2] if len(sys.argv) > 2 else "spit"
    limit = int(sys.argv[3]) if len(sys.argv) > 3 else 300
    rules = GameRules(game)
    if game == "spit":
        from speedduo.display.spit_view import SpitView as View
        from speedduo.game.spit import Spit as Core
    else:
        from speedduo.display.california_view import CaliforniaView as View
        from speedduo.game.california import California as Core
    core = Core(rules)
    session = GameSession(core, 3, rules, 1, GameLog())
    match = session.match
    log = session.log
    log.notes_on = True
    panels = (Panel(NullBus(), rotation=0), Panel(NullBus(), rotation=180))
    for panel in panels:
        panel.init()
    views = (View(panels[0], 0), View(panels[1], 1))
    screens = Screens(panels, views)
    log.drain_into(_sink)
    times = [[] for _ in PARTS]
    now = 0
    presses = 0
    k = 0
    while match.phase != OVER and presses < limit:
        k += 1
        if match.phase != PLAYING or core.over:
            now = match.next_due() if match.next_due() > now else now + 1
            session.step(now, [])
            screens.refresh(core, match, now)
            log.take_notes()
            log.drain_into(_sink)
            continue
        p = k % 2
        mask = core.bot_mask(p) or core.bot_mask(1 - p)
        if not mask:
            due = match.next_due()
            now = due if due > now else now + 1
            session.step(now, [])
            log.take_notes()
            log.drain_into(_sink)
            continue
        if not core.bot_mask(p):
            p = 1 - p
        key = 0
        while not mask >> key & 1:
            key += 1
        now += 150
        stamps = [time.ticks_us()]
        match.group_key[0] = p * KEYS_PER_PLAYER + key
        match.group_down[0] = 1
        match.step_group(now, 1)
        stamps.append(time.ticks_us())
        log.observe(screens.event)
        stamps.append(time.ticks_us())
        shared0 = views[0].update_table(core, match, now)
        shared1 = views[1].update_table(core, match, now)
        stamps.append(time.ticks_us())
        first = screens._next_first
        screens.send_shared()
        stamps.append(time.ticks_us())
        if shared0:
            views[0].update_moment(core, match, now)
        if shared1:
            views[1].update_moment(core, match, now)
        screens.send_shared(first if screens._next_first != first else -1)
        stamps.append(time.ticks_us())
        if shared0:
            views[0].update_private(core, match)
        if shared1:
            views[1].update_private(core, match)
        stamps.append(time.ticks_us())
        screens.send_private()
        stamps.append(time.ticks_us())
        log.drain_into(_sink)
        stamps.append(time.ticks_us())
        for part in range(len(PARTS)):
            times[part].append(time.ticks_diff(stamps[part + 1], stamps[part]))
        presses += 1
        now += 1  # the release
        match.group_down[0] = 0
        match.step_group(now, 1)
        log.take_notes()
        screens.refresh(core, match, now)
        log.drain_into(_sink)
    print("%s: %d presses timed (µs of this VM)" % (game, presses))
    print("| part | p50 | p90 | max |")
    print("|---|---|---|---|")
    for part in range(len(PARTS)):
        values = sorted(times[part])
        n = len(values)
        row = (PARTS[part], values[n // 2], values[n * 9 // 10], values[-1])
        print("| %s | %d | %d | %d |" % row)


main()
