"""Scripted presses: ``T_US PLAYER KEY [down|up]`` per line (issue: scripted input).

T_US is µs on the virtual clock since the first hand's start signal (R3),
PLAYER 0 (Player 1) or 1 (Player 2), KEY one of ``L 1 2 3 4 5 R``. A ``down`` with no later ``up``
of the same key is released 50 ms after it. ``#`` starts a comment.
Runs under CPython and MicroPython.
"""

KEY_NAMES = "L12345R"
AUTO_RELEASE_US = 50000


class ScriptError(ValueError):
    pass


def parse_script(text):
    """A list of (t_us, player, key_index, closed) contact changes, time-ordered."""
    edges = []
    open_downs = {}
    number = 0
    for raw in text.split("\n"):
        number += 1
        line = raw.split("#")[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) not in (3, 4):
            raise ScriptError("script line %d: expected 'T_US PLAYER KEY [down|up]'" % number)
        try:
            t_us = int(parts[0])
        except ValueError:
            raise ScriptError(
                "script line %d: time %r is not a whole number of µs" % (number, parts[0])
            ) from None
        if t_us < 0:
            raise ScriptError("script line %d: time must be >= 0" % number)
        if parts[1] not in ("0", "1"):
            raise ScriptError("script line %d: player must be 0 or 1" % number)
        player = int(parts[1])
        if len(parts[2]) != 1 or parts[2] not in KEY_NAMES:
            raise ScriptError("script line %d: key must be one of L 1 2 3 4 5 R" % number)
        key = KEY_NAMES.index(parts[2])
        kind = parts[3] if len(parts) == 4 else "down"
        if kind not in ("down", "up"):
            raise ScriptError("script line %d: last field must be down or up" % number)
        closed = kind == "down"
        if closed and (player, key) in open_downs:
            # the earlier down had no up: it is released 50 ms after it (or now)
            before = open_downs[(player, key)]
            edges.append([min(before + AUTO_RELEASE_US, t_us), player, key, False, 0])
        edges.append([t_us, player, key, closed, number])
        if closed:
            open_downs[(player, key)] = t_us
        else:
            open_downs.pop((player, key), None)
    for (player, key), t_us in open_downs.items():
        edges.append([t_us + AUTO_RELEASE_US, player, key, False, 0])
    edges.sort(key=lambda e: (e[0], e[4] == 0))
    return [(e[0], e[1], e[2], e[3]) for e in edges]
