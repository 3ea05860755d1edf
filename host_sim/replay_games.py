"""Replay of the other games' logs (docs/match-log.md, version 2: V8, V9, V10).

As ``replay.py`` does for classic Speed: every line is read and its fields
type-checked (a bad one: ``LogError``, one line, exit status 2); the key
record is checked (time forwards, each key alternates press and release,
``keys_total`` counts them); then the key events, grouped by millisecond, are
fed through the same ``GameSession`` the runner drove, and the regenerated log
must equal the file byte for byte. The first line that differs is named
(exit status 1).
"""

import json

from host_sim import use_board_paths
from host_sim.logfile import LogError, _card, _cards, _short, _whole, clip, json_line, read_bytes

use_board_paths()

from speedduo.codes import KEYS_PER_PLAYER, OVER  # noqa: E402
from speedduo.gamelog import KEY_TEXT_MAX, KEYS_CAPACITY  # noqa: E402
from speedduo.gamerules import GAMES, GameRules  # noqa: E402

_TIME = (_whole, "a whole number of ms >= 0")
_TIE = (lambda v: v in ("won", "lost"), '"won" or "lost"')
_CARD = (_card, 'a card name such as "TH"')
_SLOT = (lambda v: _whole(v, 0, 5), "a place 0-4")


def _player(n, null=False):
    if null:
        return (lambda v: v is None or _whole(v, 0, n), "a player 0-%d or null" % (n - 1))
    return (lambda v: _whole(v, 0, n), "a player 0-%d" % (n - 1))


def _per_player(n, check, what):
    return (lambda v: isinstance(v, list) and len(v) == n and all(check(x) for x in v), what)


def _words(*words):
    return (lambda v: isinstance(v, str) and v in words, " or ".join(words))


def _fields(game, n):
    """ev -> {field: (check, expected)}; the required fields are the keys of each entry."""
    pile_count = n if game == "speed" else (10 if game == "california" else 2)
    pile = (lambda v: _whole(v, 0, pile_count), "a pile 0-%d" % (pile_count - 1))
    counts = _per_player(n, lambda v: _whole(v, 0, 53), "%d card counts" % n)
    hand_end = {
        "t": _TIME,
        "winner": _player(n, True),
        "sweep": (lambda v: isinstance(v, bool), "true or false"),
        "left": counts,
    }
    common = {
        "stall": {"t": _TIME, "due": _TIME},
        "match_end": {"winner": _player(n, True), "score": counts},
        "keys": {},
    }
    if game == "spit":
        took = _per_player(2, lambda v: v is None or _whole(v, 0, 2), "[pile or null, ...]")
        places = _per_player(5, _cards, "5 lists of card names")
        return dict(
            common,
            deal={
                "hand_no": (lambda v: _whole(v, 1, 100000), "a hand number >= 1"),
                "stock": _per_player(2, places[0], "two lists of 5 places"),
                "spit": _per_player(2, _cards, "two lists of card names"),
                "piles": _per_player(2, lambda v: _cards(v, 0, 1), "two lists of 0-1 card"),
            },
            turn={"t": _TIME, "p": _player(2), "slot": _SLOT, "card": _CARD},
            play={"t": _TIME, "p": _player(2), "slot": _SLOT, "card": _CARD, "pile": pile},
            move={"t": _TIME, "p": _player(2), "slot": _SLOT, "card": _CARD, "to": _SLOT},
            reject={
                "t": _TIME,
                "p": _player(2),
                "slot": _SLOT,
                "card": _CARD,
                "pile": pile,
                "why": _words("late", "invalid"),
            },
            spit={"t": _TIME, "p": _player(2), "card": _CARD, "pile": pile},
            stop={"t": _TIME, "why": _words("out", "blocked"), "p": _player(2, True)},
            slap={"t": _TIME, "p": _player(2), "pile": pile},
            hand_end=dict(hand_end, why=_words("out", "blocked", "abandoned"), took=took),
        )
    if game == "california":
        grid = _per_player(5, lambda v: _cards(v, 0, 1), "5 lists of 0-1 card")
        return dict(
            common,
            deal={
                "hand_no": (lambda v: _whole(v, 1, 100000), "a hand number >= 1"),
                "stock": _per_player(2, _cards, "two lists of card names"),
                "grid": _per_player(2, grid[0], "two rows of 5 places"),
            },
            cover={
                "t": _TIME,
                "p": _player(2),
                "row": _player(2),
                "col": _SLOT,
                "card": _CARD,
            },
            reject={
                "t": _TIME,
                "p": _player(2),
                "row": _player(2),
                "col": _SLOT,
                "why": _words("late", "invalid"),
            },
            hand_end=dict(hand_end, why=_words("out", "blocked", "abandoned")),
        )
    slot = (lambda v: _whole(v, 0, 5), "a hand slot 0-4")
    lists = _per_player(n, _cards, "%d lists of card names" % n)
    return dict(
        common,
        deal={
            "hand_no": (lambda v: _whole(v, 1, 256), "a hand number >= 1"),
            "hands": _per_player(n, lambda v: _cards(v, 5, 5), "%d lists of 5 cards" % n),
            "draw": lists,
            "side": lists,
            "piles": _per_player(n, lambda v: _cards(v, 1, 1), "%d lists of 1 card" % n),
            "reserve": (_cards, "a list of card names"),
        },
        play={"t": _TIME, "p": _player(n), "slot": slot, "card": _CARD, "pile": pile},
        draw={"t": _TIME, "p": _player(n), "slot": slot, "card": _CARD},
        reject={
            "t": _TIME,
            "p": _player(n),
            "slot": slot,
            "card": _CARD,
            "pile": pile,
            "why": _words("late", "invalid"),
        },
        redeal={"t": _TIME, "side": lists},
        flip={"t": _TIME, "p": _player(n), "card": _CARD, "pile": pile},
        hand_end=dict(hand_end, why=_words("out", "dead_stall", "photo_finish", "abandoned")),
    )


_OPTIONAL = {"tie": _TIE}


def is_games_log(data):
    """Does this log's first line say version 2 (the other games)?"""
    first = data.split(b"\n", 1)[0]
    try:
        obj = json.loads(first)
    except (ValueError, RecursionError):
        return False
    return isinstance(obj, dict) and obj.get("ev") == "match" and obj.get("v") == 2


def parse_games_log(text, path="log"):
    """(header, [(line, obj)]) of a version 2 log; LogError naming the first bad line."""
    if not text.endswith("\n"):
        raise LogError(f"{path}: line {text.count(chr(10)) + 1} is truncated (no newline)")
    entries = []
    fields = None
    n = 2
    for number, line in enumerate(text.split("\n")[:-1], 1):
        obj = json_line(line, path, number)
        if not isinstance(obj, dict) or not isinstance(obj.get("ev"), str):
            raise LogError(f"{path}: line {number} is not an event object")
        ev = obj["ev"]
        if number == 1:
            fields, n = _header_fields(obj, path)
            entries.append((line, obj))
            continue
        if ev not in fields:
            raise LogError(f"{path}: line {number} has unknown event {_short(ev)} for this game")
        missing = [name for name in fields[ev] if name not in obj]
        if missing:
            raise LogError(f"{path}: line {number} ({ev}) lacks {', '.join(missing)}")
        for name, value in obj.items():
            check = fields[ev].get(name) or _OPTIONAL.get(name)
            if name == "keys":
                check = _keys_check(n)
            elif name == "keys_total":
                check = (_whole, "a whole number >= 0")
            if check and not check[0](value):
                raise LogError(f"{path}: line {number} ({ev}): field {name} must be {check[1]}")
        entries.append((line, obj))
    if len(entries) < 2 or entries[-1][1]["ev"] != "match_end":
        raise LogError(f"{path}: line {len(entries)} is not match_end: the log is truncated")
    return entries


def _keys_check(n):
    def entry(e):
        return (
            isinstance(e, list)
            and len(e) == 3
            and _whole(e[0])
            and _whole(e[1], 0, KEYS_PER_PLAYER * n)
            and _whole(e[2], 0, 2)
        )

    return (
        lambda v: isinstance(v, list) and len(v) > 0 and all(entry(e) for e in v),
        "a list of [t, key 0-%d, pressed 0|1]" % (KEYS_PER_PLAYER * n - 1),
    )


def _header_fields(obj, path):
    if obj.get("ev") != "match":
        raise LogError(f"{path}: line 1 must be the match event")
    game = obj.get("game")
    if game not in GAMES:
        raise LogError(f"{path}: line 1: field game must be one of {', '.join(GAMES)}")
    n = obj.get("players")
    allowed = (3, 4) if game == "speed" else (2,)
    if not _whole(n) or n not in allowed:
        raise LogError(f"{path}: line 1: field players must be {' or '.join(map(str, allowed))}")
    for name in ("seed", "rules", "best_of", "tie_first"):
        if name not in obj:
            raise LogError(f"{path}: line 1 (match) lacks {name}")
    if not _whole(obj["seed"], 0, 1 << 30):
        raise LogError(f"{path}: line 1: field seed must be a whole number 0 <= seed < 2**30")
    if not isinstance(obj["rules"], dict):
        raise LogError(f"{path}: line 1: field rules must be an object of rule options")
    best = (3, 5, 7) if game == "speed" else (1,)
    if not _whole(obj["best_of"]) or obj["best_of"] not in best:
        raise LogError(f"{path}: line 1: field best_of must be {' or '.join(map(str, best))}")
    if not _whole(obj["tie_first"], 0, n):
        raise LogError(f"{path}: line 1: field tie_first must be a player 0-{n - 1}")
    return _fields(game, n), n


class GamesDivergence(Exception):
    pass


def check_keys(entries):
    """The key record: time forwards, alternation, full keys lines, keys_total; the events."""
    groups = []
    state = {}
    total = 0
    last = -1
    for number, (_, obj) in enumerate(entries, 1):
        if obj["ev"] == "keys":
            if number == len(entries) or "keys" not in entries[number][1]:
                raise GamesDivergence(f"line {number} diverges: a keys line not followed by keys")
            text = json.dumps(obj["keys"], separators=(",", ":"))
            if len(text) - 2 + KEY_TEXT_MAX <= KEYS_CAPACITY:
                raise GamesDivergence(f"line {number} diverges: a keys line with room for more")
        for t, key, pressed in obj.get("keys", ()):
            if t < last:
                raise GamesDivergence(f"line {number} diverges: key time {t} after {last}")
            if state.get(key, 0) == pressed:
                what = "pressed" if pressed else "released"
                raise GamesDivergence(f"line {number} diverges: key {key} {what} twice at {t}")
            state[key] = pressed
            total += 1
            if t != last:
                groups.append((t, []))
            groups[-1][1].append((key, pressed))
            last = t
        if "keys_total" in obj and obj["keys_total"] != total:
            raise GamesDivergence(
                f"line {number} diverges: keys_total is {obj['keys_total']} but the log lists"
                f" {total} key events so far"
            )
    if "keys_total" not in entries[-1][1]:
        raise GamesDivergence(f"line {len(entries)} diverges: match_end has no keys_total")
    return groups


def session_of(header, path="log"):
    """A fresh ``GameSession`` for the match a version 2 log's first line describes (its
    game's rules core, seed, rules and best_of); LogError naming ``path`` when its rules
    are refused."""
    from runner import best_of_for, make_core
    from speedduo.gamematch import GameSession

    game = header["game"]
    try:
        rules = GameRules(game, **header["rules"])
    except (ValueError, TypeError) as e:
        raise LogError(f"{path}: line 1: rules: {e}") from None
    core = make_core(game, rules, header["players"])
    return GameSession(core, header["seed"], rules, best_of_for(game, header["best_of"]))


def regenerate(entries, path="log"):
    """The lines the rules produce for the log's key events (``path``: the file's, for errors)."""
    session = session_of(entries[0][1], path)
    groups = check_keys(entries)
    out = []
    session.log.drain(out.append)
    for t, events in groups:
        session.step(t, events)
        session.log.drain(out.append)
        if session.match.phase == OVER:  # key events after the match's end are not replayed
            break
    session.finish()
    session.log.drain(out.append)
    return out


def read_games_log(path, data=None):
    """The [(line, obj)] of a version 2 log file (``data``: its bytes, when read already);
    LogError when it cannot be read."""
    if data is None:
        data = read_bytes(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise LogError(f"{path} is not UTF-8 text") from None
    return parse_games_log(text, path)


def replay_games_file(path, data=None):
    """(ok, message) for a version 2 log; LogError when it cannot be read."""
    entries = read_games_log(path, data)
    try:
        lines = regenerate(entries, path)
    except GamesDivergence as e:
        return False, f"{path}: {e}"
    for number, (line, _) in enumerate(entries, 1):
        if number > len(lines):
            return False, f"{path}: line {number} diverges: the replay ended before it"
        if lines[number - 1] != line:
            return False, (
                f"{path}: line {number} diverges: the rules produce another event here"
                f"\n  log:    {clip(line)}\n  replay: {clip(lines[number - 1])}"
            )
    if len(lines) > len(entries):
        return False, f"{path}: line {len(entries)} diverges: the log ends before the replay"
    return True, f"{path}: {len(entries)} lines replayed identically"


def replay_any_file(path, data):
    """``replay``'s (ok, message) for a log of either version, from its bytes: version 2
    (the other games) here, version 1 (classic Speed) by ``replay.replay_file``."""
    if is_games_log(data):
        return replay_games_file(path, data)
    from host_sim.replay import replay_file

    return replay_file(path, data)
