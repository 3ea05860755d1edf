"""What ``replay`` (``replay.py``, the one entry point) does differently for a version 2
log (docs/match-log.md: V8 Spit, V9 California Speed, V10 Speed for 3-4): its fields
(which depend on the game and the players, named in its first line: ``parse_games_log``)
and its regeneration (``regenerate_lines``: the key events, grouped by millisecond, fed
through the ``GameSession`` the board's loop and the runner drive; the session writes
the key fields itself). Reading, the key record's checks and naming the first line that
differs are ``replay.py``'s, for every version.
"""

from host_sim import use_board_paths
from host_sim.logfile import (
    HEAD_START,
    LATE_US,
    LogError,
    _card,
    _cards,
    _short,
    _whole,
    check_line_fields,
    head_start_of,
    parse_lines,
)

use_board_paths()

from speedduo import games  # noqa: E402
from speedduo.game.gamerules import GameRules  # noqa: E402
from speedduo.game.rules import HANDICAPS  # noqa: E402
from speedduo.log.gamelog import EV_WORDS  # noqa: E402
from speedduo.vocab.codes import KEYS_PER_PLAYER, OVER  # noqa: E402

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


def _common(n):
    """The lines every version 2 game writes alike, and its hand_end's shared fields."""
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
    return common, hand_end


def _pile(count):
    return (lambda v: _whole(v, 0, count), "a pile 0-%d" % (count - 1))


def _spit_fields(n):
    """V8 (docs/match-log.md): the stockpiles' places, the spit cards, two spit piles."""
    common, hand_end = _common(n)
    pile = _pile(2)
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


def _california_fields(n):
    """V9 (docs/match-log.md): two stocks and a grid of two rows of five places."""
    common, hand_end = _common(n)
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


def _speed_n_fields(n):
    """V10 (docs/match-log.md): classic Speed's lines for ``n`` players."""
    common, hand_end = _common(n)
    pile = _pile(n)
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


def _any_fields(n):
    """A game registered without a table here: the lines every game shares are checked, its
    own only by being re-played (every line the session writes again, byte for byte)."""
    common, hand_end = _common(n)
    fields = {word.decode(): {} for word in EV_WORDS if word and word != b"match"}
    fields.update(common, hand_end=hand_end)
    return fields


# the fields of each game's own lines, by the log's game id (V10: "speed")
_GAME_FIELDS = {"speed": _speed_n_fields, "spit": _spit_fields, "california": _california_fields}


def _fields(game, n):
    """ev -> {field: (check, expected)}; the required fields are the keys of each entry."""
    return _GAME_FIELDS.get(game, _any_fields)(n)


_OPTIONAL = {"tie": _TIE, "late_us": LATE_US}


def parse_games_log(text, path="log"):
    """The [(line, obj)] of a version 2 log; LogError naming the first bad line."""
    table = {}  # the game's fields, from line 1

    def check_line(number, obj):
        ev = obj["ev"]
        if number == 1:
            fields, n = _header_fields(obj, path)
            table.update(fields=fields, keys=_keys_check(n))
            return
        fields = table["fields"]
        if ev not in fields:
            raise LogError(f"{path}: line {number} has unknown event {_short(ev)} for this game")
        known = dict(_OPTIONAL, **fields[ev])
        check_line_fields(path, number, obj, fields[ev], known, table["keys"])

    return parse_lines(text, path, check_line)


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
    if game not in games.GAME_IDS:  # (the registry as it is now: games.register)
        raise LogError(f"{path}: line 1: field game must be one of {', '.join(games.GAME_IDS)}")
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
    if "head_start_ms" in obj:  # H1, the two-player games'
        check, expected = HEAD_START
        if n != 2:
            raise LogError(f"{path}: line 1: field head_start_ms is for two players (not V10)")
        if not check(obj["head_start_ms"]):
            raise LogError(
                f"{path}: line 1: field head_start_ms must be {expected},"
                f" not {_short(obj['head_start_ms'])}"
            )
    if "hand_slots" in obj:  # H2 is classic Speed's (version 1): these games' deal is theirs
        raise LogError(f"{path}: line 1: field hand_slots is classic Speed's only (version 1)")
    return _fields(game, n), n


def session_of(header, path="log"):
    """A fresh ``GameSession`` for the match a version 2 log's first line describes (its
    game's rules core, seed, rules and best_of); LogError naming ``path`` when its rules
    are refused."""
    from runner import best_of_for, make_core, make_log
    from speedduo.game.gamematch import GameSession

    game = header["game"]
    try:
        rules = GameRules(game, **header["rules"])
    except (ValueError, TypeError) as e:
        raise LogError(f"{path}: line 1: rules: {e}") from None
    if header["rules"].keys() & set(HANDICAPS):
        raise LogError(f"{path}: line 1: rules: the head start is the field head_start_ms")
    rules.head_start_p1_ms, rules.head_start_p2_ms = head_start_of(header)  # H1
    core = make_core(game, rules, header["players"])
    best_of = best_of_for(game, header["best_of"])
    return GameSession(
        core, header["seed"], rules, best_of, make_log(core, header.get("stamped_by") == "pio")
    )


class _Late:
    """What the board's reader said of its stamps (``late_us``), for the match_end line."""

    def __init__(self, late_us):
        self.late_us = late_us


def regenerate_lines(header, keys, path="log", end=None):
    """The lines the rules produce for the key events ``keys`` [(t, key, pressed)] (the
    record ``replay.check_record`` checked), grouped by millisecond as the board's loop
    hands them to the session: the key fields included (the session writes them)."""
    session = session_of(header, path)
    unit = 1000 if session.log.micro else 1  # the key times' (µs or ms)
    session.log.late_of = _Late(
        (end or {}).get("late_us", 0)
    )  # the board reader's, as the log says
    out = []
    session.log.drain(out.append)
    leads = head_start_of(header)  # H1: a key's instant is its time less its player's lead
    instants = [
        t - leads[key // KEYS_PER_PLAYER] * unit if key < 2 * KEYS_PER_PLAYER else t
        for t, key, _ in keys
    ]
    i = 0
    while i < len(keys):
        t = instants[i]
        events = []
        while i < len(keys) and instants[i] == t:
            events.append(keys[i][1:])
            i += 1
        if unit > 1:  # one instant is one µs: its µs past the ms go into the key record
            session.match.group_sub = t % unit
        session.step(t // unit, events)
        session.log.drain(out.append)
        if session.match.phase == OVER:  # key events after the match's end are not replayed
            break
    session.finish()
    session.log.drain(out.append)
    return out
