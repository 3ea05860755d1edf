"""Helpers for the other games' tests (V8-V10): bot matches, and altered logs for replay.

``altered_logs`` changes one thing in a genuine version 2 log (a field's value, a
field dropped, a line doubled); replay must refuse every one (a LogError or a
named divergence) or, when the text is unchanged, accept it; it must never
crash. ``SPEED_SOAK=1`` tries many more.
"""

import json
import os
import random

from runner import Simulation
from speedduo.game.gamerules import GameRules

SOAK = os.environ.get("SPEED_SOAK") == "1"
LEVELS = ("bot:perfect", "bot:hard", "bot:medium", "bot:easy")
_VALUES = [0, 1, -1, 2, 5, 9, 100, 10**12, None, True, "AS", "X1", "zz", [], [0], {}, 3.5]


def bot_match(game, seed, players, **rules):
    lines = []
    kinds = [LEVELS[(seed + k) % 4] for k in range(players)]
    Simulation(seed, GameRules(game, **rules), 3, kinds, game=game).run(lines.append)
    return lines


def altered_logs(lines, seed, count):
    """``count`` texts, each the log with one change."""
    rnd = random.Random(seed)
    for _ in range(count):
        objs = [json.loads(line) for line in lines]
        i = rnd.randrange(len(objs))
        obj = objs[i]
        key = rnd.choice(list(obj))
        kind = rnd.randrange(4)
        if kind == 0:
            obj[key] = rnd.choice(_VALUES)
        elif kind == 1 and isinstance(obj[key], int) and not isinstance(obj[key], bool):
            obj[key] += rnd.choice([-1, 1, 7])
        elif kind == 2:
            del obj[key]
        else:
            objs.insert(rnd.randrange(1, len(objs)), dict(obj))
        yield "\n".join(json.dumps(o, separators=(",", ":")) for o in objs) + "\n"


def check_altered(tmp_path, lines, seed):
    """Replay every altered log: refused, or accepted only when nothing changed."""
    from host_sim.logfile import LogError
    from host_sim.replay import ReplayError, replay_file

    original = "\n".join(lines) + "\n"
    path = tmp_path / "altered.jsonl"
    refused = 0
    for text in altered_logs(lines, seed, 300 if SOAK else 60):
        path.write_text(text)
        try:
            ok, message = replay_file(str(path))
        except (LogError, ReplayError):
            ok = False
        if ok:
            assert text == original, "an altered log replayed: " + message
        else:
            refused += 1
    return refused
