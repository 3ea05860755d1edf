"""Reading and writing match log files (MATCH-LOG.md v1) on the host, safely.

Writing is all or nothing: lines go to a temporary file beside the target,
which replaces the target only when the match finished. Reading checks each
line is a JSON object with a known ``ev`` and the required fields, and names
the first bad line.
"""

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
}


class LogError(ValueError):
    """A log that cannot be read; the message names the line."""


def write_atomically(path, lines):
    """Write all lines, or leave ``path`` as it was."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".speedlog-", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            for line in lines:
                f.write(line)
                f.write("\n")
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def read_text(path, what="log"):
    """A whole UTF-8 file; LogError (one line) when it cannot be read."""
    data = read_bytes(path, what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise LogError(f"{what} {path} is not UTF-8 text") from None


def read_bytes(path, what="log"):
    """A whole file's bytes; a FIFO without a writer reads as empty instead of blocking."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        raise LogError(f"cannot read {what} {path}: {e.strerror}") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise LogError(f"cannot read {what} {path}: it is a directory")
        try:
            first = os.read(fd, 65536)  # b"": an empty file, or a pipe nobody writes to
        except BlockingIOError:
            first = b""  # a writer that has not written yet: wait for it below
        else:
            if not first and stat.S_ISFIFO(mode):
                raise LogError(f"cannot read {what} {path}: a pipe with no writer")
            if not first:
                return b""
        os.set_blocking(fd, True)
        chunks = [first]
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
    except OSError as e:
        raise LogError(f"cannot read {what} {path}: {e.strerror}") from None
    finally:
        os.close(fd)


def read_log(path):
    """The log's lines as (text, object) pairs; LogError for anything malformed."""
    text = read_text(path)
    if not text:
        raise LogError(f"{path} is empty")
    if not text.endswith("\n"):
        raise LogError(f"{path}: line {text.count(chr(10)) + 1} is truncated (no newline)")
    entries = []
    for number, line in enumerate(text.split("\n")[:-1], 1):
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise LogError(f"{path}: line {number} is not valid JSON ({e.msg})") from None
        if not isinstance(obj, dict) or "ev" not in obj:
            raise LogError(f"{path}: line {number} is not an event object")
        ev = obj["ev"]
        if ev not in REQUIRED:
            raise LogError(f"{path}: line {number} has unknown event {ev!r}")
        if number == 1:
            if ev != "match":
                raise LogError(f"{path}: line 1 must be the match event")
            if obj.get("v") != 1:
                raise LogError(
                    f"{path}: unknown log version {obj.get('v')!r} (this tool reads v 1)"
                )
        missing = [field for field in REQUIRED[ev] if field not in obj]
        if missing:
            raise LogError(f"{path}: line {number} ({ev}) lacks {', '.join(missing)}")
        entries.append((line, obj))
    if entries[-1][1]["ev"] != "match_end":
        raise LogError(f"{path}: line {len(entries)} is not match_end: the log is truncated")
    return entries
