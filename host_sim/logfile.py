"""Reading and writing match log files (MATCH-LOG.md v1) on the host, safely.

Writing is all or nothing: lines go to a temporary file beside the target,
which replaces the target only when the match finished. Reading checks each
line is a JSON object with a known ``ev`` and the required fields, and names
the first bad line.
"""

import errno
import json
import os
import stat
import tempfile

REQUIRED = {
    "match": ("v", "seed", "rules", "best_of"),
    "deal": ("hand_no", "hands", "draw", "side", "piles"),
    "play": ("t", "p", "slot", "card", "pile"),
    "draw": ("t", "p", "slot", "card"),
    "reject": ("t", "p", "slot", "card", "pile", "why"),
    "penalty": ("t", "p", "until"),
    "stall": ("t",),
    "redeal": ("t", "side"),
    "flip": ("t", "p", "card", "pile"),
    "hand_end": ("t", "winner", "why", "left", "sweep"),
    "match_end": ("winner", "score"),
    "keys": ("keys", "keys_total"),
}


class LogError(ValueError):
    """A log that cannot be read; the message names the line."""


# The most each kind of input file may hold (a file larger than that is refused, and no
# more than one byte over it is read): a best-of-7 match's log with its key events is
# well under 1 MB, a script of presses for an hour of play under 2 MB.
LOG_LIMIT = 32 << 20
SCRIPT_LIMIT = 16 << 20


# The output files of every command: (option's dest, what the messages call it).
OUT_OPTIONS = (
    ("log", "log"),
    ("save", "log"),
    ("sounds", "sounds"),
    ("nvm", "nvm"),
    ("report", "report"),
    ("screenshot", "screenshot"),
)


def check_out_paths(args):
    """``check_out_path`` for each output option given on the command line."""
    for dest, what in OUT_OPTIONS:
        path = getattr(args, dest, None)
        if path is not None:
            check_out_path(path, what, "--" + dest)


def check_out_path(path, what="log", option="--log"):
    """Refuse an output file that cannot be written, before the run (LogError, one line).

    A path that is a device or a pipe (``/dev/null``, a FIFO) is written through, a
    symlink through to its target; neither is replaced (``write_atomically``)."""
    if path == "":
        raise LogError(f"cannot write {what}: {option} names no file (an empty path)")
    target = os.path.realpath(path)
    try:
        mode = os.stat(target).st_mode
    except OSError:
        mode = None
    if mode is not None and stat.S_ISDIR(mode):
        raise LogError(f"cannot write {what} {path}: it is a folder")
    if mode is not None and not stat.S_ISREG(mode):
        if stat.S_ISSOCK(mode) or not os.access(target, os.W_OK):
            raise LogError(f"cannot write {what} {path}: not a writable file or device")
        return
    folder = os.path.dirname(target)
    if not os.path.isdir(folder):
        raise LogError(f"cannot write {what} {path}: no folder {os.path.dirname(path) or '.'}")
    if not os.access(folder, os.W_OK):
        raise LogError(
            f"cannot write {what} {path}: folder {os.path.dirname(path) or '.'} is not writable"
        )


def write_atomically(path, lines, what="log"):
    """Write all lines, or leave ``path`` as it was (LogError, one line naming ``path``)."""
    chunks = []
    for line in lines:
        chunks.append(line)
        chunks.append("\n")
    write_bytes_atomically(path, "".join(chunks).encode("utf-8"), what)


def write_bytes_atomically(path, data, what="log"):
    """Write all of ``data`` to ``path``, or leave a file there as it was.

    A regular file (or none yet) is replaced whole through a temporary file beside it,
    which gets the mode the file had, or for a new file the user's umask. A symlink is
    followed: its target is written, the link stays. A device or a pipe is written
    through, never replaced (``/dev/null`` takes it, ``/dev/full`` refuses it, a pipe
    with no reader is refused). Errors are LogError naming ``path``, never a temporary
    file."""
    target = os.path.realpath(path)
    try:
        mode = os.stat(target).st_mode
    except OSError:
        mode = None
    try:
        if mode is not None and stat.S_ISDIR(mode):
            raise LogError(f"cannot write {what} {path}: it is a folder")
        if mode is not None and not stat.S_ISREG(mode):
            _write_through(target, data, path, what)
            return
        _replace(target, data, stat.S_IMODE(mode) if mode is not None else _new_file_mode())
    except OSError as e:
        raise LogError(f"cannot write {what} {path}: {e.strerror or e}") from None


def _new_file_mode():
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def _replace(target, data, mode):
    fd, tmp = tempfile.mkstemp(prefix=".speedlog-", dir=os.path.dirname(target))
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), mode)
            f.write(data)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _write_through(target, data, path, what):
    """A device or a pipe: opened without creating or truncating, written, left in place."""
    try:
        fd = os.open(target, os.O_WRONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError as e:
        if e.errno == errno.ENXIO:
            raise LogError(f"cannot write {what} {path}: a pipe with no reader") from None
        raise
    try:
        os.set_blocking(fd, True)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def read_text(path, what="log", limit=LOG_LIMIT):
    """A whole UTF-8 file; LogError (one line) when it cannot be read."""
    data = read_bytes(path, what, limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise LogError(f"{what} {path} is not UTF-8 text") from None


def read_bytes(path, what="log", limit=LOG_LIMIT, regular=False):
    """A whole file's bytes, at most ``limit`` of them (one byte more is read to know).

    A pipe is read (one without a writer reads as empty instead of blocking) unless
    ``regular``; a device (``/dev/zero``), a socket or a folder is refused."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        raise LogError(f"cannot read {what} {path}: {e.strerror}") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise LogError(f"cannot read {what} {path}: it is a directory")
        fifo = stat.S_ISFIFO(mode)
        if not stat.S_ISREG(mode) and (regular or not fifo):
            kind = "a pipe" if fifo else "a device" if stat.S_ISCHR(mode) else "not a file"
            raise LogError(f"cannot read {what} {path}: {kind}, not a regular file")
        too_big = f"{what} {path} is larger than {_size(limit)}: refused"
        if os.fstat(fd).st_size > limit:
            raise LogError(too_big)
        try:
            first = os.read(fd, min(65536, limit + 1))  # b"": empty, or a pipe nobody writes
        except BlockingIOError:
            first = b""  # a writer that has not written yet: wait for it below
        else:
            if not first and fifo:
                raise LogError(f"cannot read {what} {path}: a pipe with no writer")
            if not first:
                return b""
        os.set_blocking(fd, True)
        chunks = [first]
        size = len(first)
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            size += len(chunk)
        raise LogError(too_big)
    except OSError as e:
        raise LogError(f"cannot read {what} {path}: {e.strerror}") from None
    finally:
        os.close(fd)


def _size(limit):
    return f"{limit >> 20} MB" if limit >= 1 << 20 else f"{limit >> 10} KB"


def read_log(path):
    """The log's lines as (text, object) pairs; LogError for anything malformed.

    Every line's fields are checked for type and range (``check_line_fields``), so a
    consumer may use them without further checks.
    """
    return parse_log_bytes(read_bytes(path), path)


def parse_log_bytes(data, path="log"):
    """``read_log`` for the bytes of a file."""
    return parse_log(decode_log(data, path), path)


def decode_log(data, path="log"):
    """A log file's bytes as text (every version); LogError when empty or not UTF-8."""
    if not data:
        raise LogError(f"{path} is empty")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise LogError(f"{path}: line {line} is not UTF-8 text") from None


def lost_why(marker):
    """Why a ``lost`` marker's lines are missing, in words (docs/link.md)."""
    lines = marker.get("lines")
    unseen = marker.get("unseen", 0)
    if not _whole(unseen) or not _whole(lines) or unseen == 0:
        return "lost on the board's data port"
    seen_elsewhere = (
        "sent by the board but read by another program on its data port (stats, ask)"
        " or before this log's reader started"
    )
    if unseen >= lines:
        return seen_elsewhere
    return f"{lines - unseen} lost on the board's data port, {unseen} {seen_elsewhere}"


def json_line(line, path, number):
    """One line's JSON value; LogError naming the line when it is not JSON, nests too
    deeply, or holds a number too long for Python to convert (over 4300 digits)."""
    try:
        return json.loads(line)
    except RecursionError:
        raise LogError(f"{path}: line {number} is not valid JSON (nested too deeply)") from None
    except ValueError as e:
        msg = getattr(e, "msg", None) or str(e).split(";")[0]
        raise LogError(f"{path}: line {number} is not valid JSON ({msg})") from None


def parse_lines(text, path, check_line):
    """The [(line, obj)] of a log of any version, read the same way: whole lines of JSON
    event objects, no gap marker, ending in match_end. ``check_line(number, obj)`` is the
    version's check of one line's event and fields (it raises LogError)."""
    if not text.endswith("\n"):
        raise LogError(f"{path}: line {text.count(chr(10)) + 1} is truncated (no newline)")
    entries = []
    for number, line in enumerate(text.split("\n")[:-1], 1):
        if line.endswith("\r"):  # a CRLF line end (a copy through Windows): the same line
            line = line[:-1]
        obj = json_line(line, path, number)
        if not isinstance(obj, dict) or not isinstance(obj.get("ev"), str):
            raise LogError(f"{path}: line {number} is not an event object")
        if number > 1 and obj["ev"] == "match":
            raise LogError(
                f"{path}: line {number}: a second match begins here: a match log holds one"
                " match (board, device, monitor and the window write each match to its own"
                " file: FILE, FILE-2, ...)"
            )
        if obj["ev"] == "lost":  # the data port's gap marker (docs/match-log.md)
            raise LogError(
                f"{path}: line {number}: {_short(obj.get('lines'))} lines are missing here"
                f" ({lost_why(obj)}): the log is incomplete and cannot be checked"
            )
        check_line(number, obj)
        entries.append((line, obj))
    if len(entries) < 2 or entries[-1][1]["ev"] != "match_end":
        raise LogError(f"{path}: line {len(entries)} is not match_end: the log is truncated")
    _read_micro(entries, path)
    return entries


def _read_micro(entries, path):
    """A µs log's ``keys_us`` become its entries' ``keys`` (times in µs; ``KEY_FIELD``
    names the field again where a line is rebuilt); LogError for a log that mixes them."""
    header = entries[0][1]
    if "stamped_by" in header and header["stamped_by"] != "pio":
        raise LogError(
            f'{path}: line 1: stamped_by must be "pio" (or absent: the keypad\'s), not'
            f" {json.dumps(header['stamped_by'])[:40]}"
        )
    micro = entries[0][1].get("stamped_by") == "pio"
    for number, (_, obj) in enumerate(entries, 1):
        if ("keys" in obj and micro) or ("keys_us" in obj and not micro):
            field, stamps = ("keys", "µs") if micro else ("keys_us", "ms")
            raise LogError(f"{path}: line {number}: {field} in a log whose key times are {stamps}")
        if "keys_us" in obj:
            obj["keys"] = obj.pop("keys_us")
            lost = next((e for e in obj["keys"] if e[1] < 0), None)
            if lost is not None:  # (the keypad's loss marks: -1 lost, -2 cleared)
                raise LogError(
                    f"{path}: line {number}: a loss mark {compact_json(lost)} in a log whose keys"
                    " the PIO stamped: it delays a press (late_us), it never loses one"
                )
        if "late_us" in obj and not micro:
            raise LogError(
                f"{path}: line {number}: late_us in a log whose keys the keypad stamped: only"
                ' the PIO\'s reader is ever late ("stamped_by":"pio")'
            )


def check_line_fields(path, number, obj, required, fields, keys_check=None):
    """One line's event has its ``required`` fields and each known field its type
    (``fields``: name -> (check, expected); ``keys_check`` the same for ``keys``); else
    LogError naming the line and the field. Other fields are allowed (MATCH-LOG.md)."""
    ev = obj["ev"]
    # (a µs log's key record is keys_us: docs/match-log.md)
    missing = [f for f in required if f not in obj and not (f == "keys" and "keys_us" in obj)]
    if missing:
        raise LogError(f"{path}: line {number} ({ev}) lacks {', '.join(missing)}")
    for name, value in obj.items():
        if name in fields:
            check, expected = fields[name]
        elif name in ("keys", "keys_us"):
            check, expected = keys_check or _KEYS
        elif name == "keys_total":
            check, expected = _KEYS_TOTAL
        else:
            continue
        if not check(value):
            raise LogError(
                f"{path}: line {number} ({ev}): field {name} must be {expected},"
                f" not {_short(value)}"
            )


def parse_log(text, path="log"):
    """``read_log`` for text already read (version 1)."""

    def check_line(number, obj):
        ev = obj["ev"]
        if ev not in REQUIRED:
            raise LogError(f"{path}: line {number} has unknown event {_short(ev)}")
        if number == 1:
            if ev != "match":
                raise LogError(f"{path}: line 1 must be the match event")
            if obj.get("v") != 1 or isinstance(obj.get("v"), bool):
                raise LogError(
                    f"{path}: unknown log version {_short(obj.get('v'))}"
                    " (replay reads versions 1 and 2)"
                )
        elif ev == "match":
            raise LogError(f"{path}: line {number} is a second match event")
        check_line_fields(path, number, obj, REQUIRED[ev], FIELDS[ev])

    return parse_lines(text, path, check_line)


# ---- field types (MATCH-LOG.md v1 and the extra fields in README "The match log") ----

_RANKS = "A23456789TJQK"
_SUITS = "SHDC"
_MAX_TIME = 1 << 32  # the board's log records times in 32 bits


def _whole(value, low=0, high=_MAX_TIME):
    return isinstance(value, int) and not isinstance(value, bool) and low <= value < high


def _card(value):
    return isinstance(value, str) and (
        (len(value) == 2 and value[0] in _RANKS and value[1] in _SUITS) or value in ("X1", "X2")
    )


def _cards(value, low=0, high=106):  # 106: two decks and the jokers (V3, V4)
    return (
        isinstance(value, list) and low <= len(value) <= high and all(_card(card) for card in value)
    )


def _pair(check):
    return lambda v: isinstance(v, list) and len(v) == 2 and all(check(x) for x in v)


def _key_event(value):
    if not (isinstance(value, list) and len(value) == 3):
        return False
    t, key, pressed = value
    if key == -1:  # events lost here: [t, -1, 0]
        return _whole(t) and pressed == 0 and not isinstance(pressed, bool)
    if key == -2:  # the keypad queue cleared here: [t, -2, hand_no that counted the loss, or 0]
        return _whole(t) and _whole(pressed, 0, 256)
    return _whole(t) and _whole(key, 0, 14) and _whole(pressed, 0, 2)


def _one_of(*choices):
    return lambda v: isinstance(v, str) and v in choices


_TIME = (_whole, "a whole number of ms >= 0")
# match_end's late_us: the PIO reader's bound, whole ms in µs (lib/speedduo/loop/edges.py)
LATE_US = (
    lambda v: _whole(v, 1, 1_000_000_000) and v % 1000 == 0,
    "a whole number of ms in µs (a multiple of 1000), 1000 <= late_us < 10**9",
)
_PLAYER = (lambda v: _whole(v, 0, 2), "0 or 1")
_SLOT = (lambda v: _whole(v, 0, 5), "a hand slot 0-4")
_CARD = (_card, 'a card name such as "TH"')
_PILE = (lambda v: _whole(v, 0, 2), "a centre pile 0 or 1")
_WINNER = (lambda v: v is None or _whole(v, 0, 2), "0, 1 or null")
_TIE = (_one_of("won", "lost"), '"won" or "lost"')
_TWO_COUNTS = (_pair(lambda v: _whole(v, 0, 1000)), "two whole numbers [a, b]")
_TWO_LISTS = (_pair(_cards), "two lists of card names")


def _head_start(value):
    """H1's ``head_start_ms`` (docs/match-log.md): two leads, each 0-400 ms in steps of
    50 (rules.py's), not both 0 (then the field is absent)."""
    from host_sim import use_board_paths

    use_board_paths()
    from speedduo.game.rules import HEAD_START_MAX_MS, HEAD_START_STEP_MS

    return _pair(lambda v: _whole(v, 0, HEAD_START_MAX_MS + 1) and v % HEAD_START_STEP_MS == 0)(
        value
    ) and any(value)


# the match line's H1 field, both versions'
HEAD_START = (
    _head_start,
    "two head starts [p1, p2], each 0-400 ms in steps of 50, not both 0",
)


def _hand_slots(value):
    """H2's ``hand_slots`` (docs/match-log.md): two counts of hand slots, each 3-5 (rules.py's),
    not both 5 (then the field is absent)."""
    from host_sim import use_board_paths

    use_board_paths()
    from speedduo.game.rules import HAND_SLOTS_MAX, HAND_SLOTS_MIN

    return _pair(lambda v: _whole(v, HAND_SLOTS_MIN, HAND_SLOTS_MAX + 1))(value) and value != [
        HAND_SLOTS_MAX,
        HAND_SLOTS_MAX,
    ]


# the match line's H2 field (classic Speed's, version 1)
HAND_SLOTS = (_hand_slots, "two counts of hand slots [p1, p2], each 3-5, not both 5")


def hand_slots_of(header):
    """H2: the hand slots (player 0's, player 1's) a match line names; (5, 5) without it."""
    slots = header.get("hand_slots") or (5, 5)
    return slots[0], slots[1]


def head_start_of(header):
    """H1: the leads (player 0's, player 1's) a match line names; (0, 0) without the field."""
    leads = header.get("head_start_ms") or (0, 0)
    return leads[0], leads[1]


FIELDS = {
    "match": {
        "v": (lambda v: _whole(v, 1, 2), "1"),
        "seed": (lambda v: _whole(v, 0, 1 << 30), "a whole number 0 <= seed < 2**30"),
        "rules": (lambda v: isinstance(v, dict), "an object of rule options"),
        "best_of": (lambda v: _whole(v) and v in (3, 5, 7), "3, 5 or 7"),
        "tie_break": (_one_of("alternate"), '"alternate"'),
        "tie_first": _PLAYER,
        "head_start_ms": HEAD_START,
        "hand_slots": HAND_SLOTS,
    },
    "deal": {
        "hand_no": (lambda v: _whole(v, 1, 256), "a hand number >= 1"),
        "hands": (_pair(lambda v: _cards(v, 5, 5)), "two lists of 5 card names"),
        "draw": _TWO_LISTS,
        "side": _TWO_LISTS,
        "piles": (_pair(lambda v: _cards(v, 1, 1)), "two lists of 1 card name"),
    },
    "play": {"t": _TIME, "p": _PLAYER, "slot": _SLOT, "card": _CARD, "pile": _PILE, "tie": _TIE},
    "draw": {"t": _TIME, "p": _PLAYER, "slot": _SLOT, "card": _CARD},
    "reject": {
        "t": _TIME,
        "p": _PLAYER,
        "slot": _SLOT,
        "card": _CARD,
        "pile": _PILE,
        "why": (
            _one_of("late", "invalid", "locked", "joker_last"),
            "late, invalid, locked or joker_last",
        ),
        "tie": _TIE,
    },
    "penalty": {"t": _TIME, "p": _PLAYER, "until": _TIME},
    "stall": {"t": _TIME, "due": _TIME},
    "redeal": {"t": _TIME, "side": _TWO_LISTS},
    "flip": {"t": _TIME, "p": _PLAYER, "card": _CARD, "pile": _PILE},
    "hand_end": {
        "t": _TIME,
        "winner": _WINNER,
        "why": (
            _one_of("out", "dead_stall", "photo_finish", "claim", "abandoned"),
            "out, dead_stall, photo_finish, claim or abandoned",
        ),
        "left": _TWO_COUNTS,
        "sweep": (lambda v: isinstance(v, bool), "true or false"),
        "overflows": (lambda v: _whole(v, 1, 256), "a whole number 1-255"),
    },
    "match_end": {
        "winner": _WINNER,
        "score": _TWO_COUNTS,
        "points": _TWO_COUNTS,
        "late_us": LATE_US,
    },
    "keys": {},  # key events only (docs/match-log.md "Key events"): checked below
}
_KEYS = (
    lambda v: isinstance(v, list) and len(v) > 0 and all(_key_event(e) for e in v),
    "a list of [t, key 0-13, pressed 0|1], [t, -1, 0] or [t, -2, hand_no] entries",
)
_KEYS_TOTAL = (_whole, "a whole number >= 0")


def clip(line, width=200):
    """A line for a message: whole when short, else its start and its length."""
    if len(line) <= width:
        return line
    return f"{line[:width]}... ({len(line):,} characters)"


def compact_json(value):
    """``value`` as the board writes it: JSON with no spaces."""
    return json.dumps(value, separators=(",", ":"))


def _short(value):
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."
