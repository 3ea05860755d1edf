"""Proof that the board loop of V8 Spit and V9 California Speed allocates nothing per press:
whole matches of ``game_app.GameApp`` under micropython.heap_lock().

MicroPython only (the unix VM of the venv):

    micropython -X heapsize=256K bench/mp_heap_lock_games.py ROOT

ROOT is the repository (as for bench/mp_heap_lock.py, whose method this follows). Each
match is made with the heap unlocked (the rules, the cores' lists, the log's lines, the
match line), then played to its end with the heap locked: player 0 (a fake keypad queue)
presses its keys in turn, L and R among them, the board's opponent plays player 1
through its merged event stream, the piezo hears every event, every line is handed to
the sink. That is every path a press takes: turns, plays, moves, late and invalid
refusals, ties, stalls and spits, stops and slaps, covers, round ends, the next rounds'
deals, the match's end. Then the same match once more unlocked, for the bytes it
allocated (``micropython.mem_total()``: on the unix port a call with a large frame takes
it from the heap when it can).

Prints one line per match: ``PASS|FAIL|WRONG name: detail``, then ``ALL PASS`` or
``SOME FAIL``.
"""

import sys

import micropython

_root = sys.argv[1] if len(sys.argv) > 1 else "."
sys.path[:0] = [_root + "/lib", _root + "/host_sim/shims", _root + "/host_sim"]

from mp_fakes import FakeEvent, FakeQueue, control_and_verdict, locked  # noqa: E402  (this script's folder)
from speedduo.game.california import California  # noqa: E402
from speedduo.game.gamematch import GameSession  # noqa: E402
from speedduo.game.gamerules import GameRules  # noqa: E402
from speedduo.game.spit import Spit  # noqa: E402
from speedduo.log.gamelog import GameLog  # noqa: E402
from speedduo.loop.game_app import GameApp  # noqa: E402
from speedduo.loop.game_opponent import GameOpponent  # noqa: E402
from speedduo.loop.sound import Sound  # noqa: E402

_TICKS_MASK = 0x1FFFFFFF
_KEYS = b"\x01\x02\x03\x04\x05\x00\x01\x02\x03\x04\x05\x06"  # player 0's presses, in turn


class FakePWM:
    """A pwmio.PWMOut stand-in: the two registers the sound sets, as plain attributes."""

    def __init__(self):
        self.frequency = 1
        self.duty_cycle = 0


class Ticks:
    """supervisor.ticks_ms for the GameApp: a number the match moves on (it wraps)."""

    def __init__(self, start):
        self.now = start

    def ticks_ms(self):
        return self.now


class Sink:
    """The log's way out: counts the lines (LogPort.send appends to the line; so does this)."""

    def __init__(self):
        self.lines = 0

    def send(self, line):
        line.append(10)
        self.lines += 1


def _match(game, seed, level, head_start=0):
    """A GameApp of ``game`` against the opponent at ``level``, 5 s before the ticks wrap;
    ``head_start``: player 0's (H1; the opponent gets half of it)."""
    rules = GameRules(game, head_start_p1_ms=head_start, head_start_p2_ms=head_start // 100 * 50)
    core = Spit(rules) if game == "spit" else California(rules)
    session = GameSession(core, seed, rules, 1, GameLog())
    start = _TICKS_MASK - 5000
    ticks = Ticks(start)
    sink = Sink()
    app = GameApp(
        FakeQueue(),
        ticks.ticks_ms,
        session,
        sink.send,
        None,
        start_ticks=start,
        opponent=GameOpponent(level, seed),
        event=FakeEvent(),
        sound=Sound(FakePWM(), 3),
    )
    return app, ticks, sink


def play(made):
    """The whole match, 2 ms a pass; player 0 presses every 70 ms, holding 30 ms."""
    app, ticks, sink = made
    q = app.opponent.events
    start = app.start_ticks
    k = 0
    passes = 0
    ms = 0
    while not app.over and passes < 400000:
        passes += 1
        ms += 2
        ticks.now = (start + ms) & _TICKS_MASK
        if ms > 3500 and ms % 70 == 0:
            key = _KEYS[k % len(_KEYS)]
            q.load(0, key, 1, (start + ms - 1) & _TICKS_MASK)
            q.load(1, key, 0, (start + ms + 29) & _TICKS_MASK)
            q.n = 1
            q.i = 0
            k += 1
        elif ms % 70 == 32 and q.i == 1:
            q.n = 2
        app.step()
    return app.over and app.presses > 20 and app.opponent.presses > 0 and sink.lines > 20


def control(made):
    """Something that allocates (a str per line), so a lock that caught nothing fails."""
    app = made[0]
    app.log.begin(3, 1000, 0)
    app.log.end()
    app.log.drain(_discard)
    return True


def _discard(line):
    pass


def main():
    failures = 0
    for game in ("spit", "california"):
        for seed, level, head_start in ((3, 3, 0), (5, 1, 0), (8, 2, 0), (4, 3, 200)):
            result = locked(play, _match(game, seed, level, head_start))
            made = _match(game, seed, level, head_start)
            before = micropython.mem_total()
            play(made)
            total = micropython.mem_total() - before
            app = made[0]
            verdict = "PASS" if result == 1 else ("FAIL" if result < 0 else "WRONG")
            if result != 1:
                failures += 1
            print(
                "%s GameApp.step %s seed %d against the opponent (level %d%s), whole match: "
                "%d presses, %d rounds, %d lines; %d bytes allocated when run unlocked"
                % (
                    verdict,
                    game,
                    seed,
                    level,
                    ", H1 head starts %d/%d ms" % (head_start, head_start // 2)
                    if head_start
                    else "",
                    app.presses,
                    app.match.hands_played,
                    made[2].lines,
                    total,
                )
            )
    caught = locked(control, _match("spit", 1, 1)) == -1
    control_and_verdict(caught, "GameLog.drain", failures)


main()
