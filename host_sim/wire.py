"""The board's USB data port as the host reads it (docs/link.md).

Every line the board sends is ``BODY<TAB>SEQ``: BODY is a match-log line
(``{...}``, docs/match-log.md, byte for byte), a ``lost`` marker
(``{"ev":"lost","lines":N}``, SEQ then being the last lost line's), or a reply
frame ``$NAME JSON*CCCC``. SEQ counts the lines the board produced since power-on.
``Decoder`` turns the bytes into items; ``MatchAssembler`` turns the items into
match logs, each complete or marked incomplete with ``lost`` lines where lines
are missing, so ``replay`` refuses it and says why.
"""

import binascii
import json

SEQ_LIMIT = 1000000000  # lib/speedduo/host/logport.py
REQUESTS = ("stats", "version", "rules")
# the board's longest line is 1,072 bytes (docs/match-log.md); a longer one is dropped
# unread (its bytes are not kept: a stream with no newline costs this much, no more)
LINE_LIMIT = 16384
DEPTH_LIMIT = 32  # nesting of a JSON value: the board's go 3 deep


def load_json(data):
    """``json.loads(data)`` (bytes or str) for what comes over the wire: ValueError for text
    that is not UTF-8 or JSON, or JSON nested deeper than ``DEPTH_LIMIT`` (Python's parser
    recurses: a deep value would raise RecursionError or worse)."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    if data.count(b"[") + data.count(b"{") > DEPTH_LIMIT and _depth(data) > DEPTH_LIMIT:
        raise ValueError("JSON nested deeper than %d" % DEPTH_LIMIT)
    try:
        return json.loads(data)
    except RecursionError:  # (not reached with the check above; kept as a guard)
        raise ValueError("JSON nested too deep") from None


def _depth(data):
    """The deepest nesting of brackets in ``data`` outside strings (one pass)."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in data:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 92:  # backslash
                escaped = True
            elif byte == 34:  # quote
                in_string = False
        elif byte == 34:
            in_string = True
        elif byte in (91, 123):  # [ {
            depth += 1
            if depth > deepest:
                deepest = depth
        elif byte in (93, 125):  # ] }
            depth -= 1
    return deepest


def crc16(data):
    """CRC-16/CCITT-FALSE (lib/speedduo/host/crc.py ``crc16``)."""
    return binascii.crc_hqx(data, 0xFFFF)


def request(name):
    """The request frame for ``name`` (bytes, newline included)."""
    body = name.encode() if isinstance(name, str) else name
    return b"$%s*%04X\n" % (body, crc16(body))


def next_seq(seq):
    return seq % (SEQ_LIMIT - 1) + 1


class FrameError(ValueError):
    pass


def parse_frame(body):
    """(name, object) of a reply frame ``$NAME JSON*CCCC`` (bytes); FrameError if bad."""
    star = body.rfind(b"*")
    if not body.startswith(b"$") or star < 0 or len(body) - star != 5:
        raise FrameError("not a whole frame")
    payload = body[1:star]
    try:
        crc = int(body[star + 1 :], 16)
    except ValueError:
        raise FrameError("bad checksum digits") from None
    if crc16(payload) != crc:
        raise FrameError("checksum mismatch")
    name, _, text = payload.partition(b" ")
    try:
        return name.decode(), load_json(text)
    except ValueError:  # UnicodeDecodeError is one
        raise FrameError("the body is not JSON") from None


class Item:
    """One thing read from the port: ``kind`` is
    ``log`` (``text``: the match-log line, ``obj``: its JSON), ``reply`` (``name``, ``obj``),
    ``lost`` (the board's marker: ``count`` lines up to ``seq`` are gone),
    ``gap`` (``count`` lines before this seq never arrived and no marker said so),
    ``restart`` (seq began again: the board was reset), ``garbled`` (``text``:
    a line that is not whole, e.g. cut short by an outage, or that cannot be read;
    ``count`` 1 when it took a seq of the log: a line missing from the match)."""

    def __init__(self, kind, seq=None, text=None, count=0, name=None, obj=None):
        self.kind = kind
        self.seq = seq
        self.text = text
        self.count = count
        self.name = name
        self.obj = obj

    def __repr__(self):
        return f"Item({self.kind!r}, seq={self.seq}, count={self.count}, text={self.text!r})"


class Decoder:
    """Bytes from the data port -> ``Item``s, checking the seq of every line."""

    def __init__(self):
        self._partial = bytearray()  # the line being read (at most LINE_LIMIT bytes)
        self._dropped = 0  # bytes of an over-long line dropped so far (0: none)
        self.last_seq = None  # the last whole line's seq (None: none yet)

    def feed(self, data):
        """Items for the whole lines in ``data`` (a line cut by the read waits for the rest).

        Each byte is looked at once: a line with no newline grows the buffer up to
        ``LINE_LIMIT`` bytes and is then dropped (time and room stay linear)."""
        items = []
        start = 0
        while True:
            end = data.find(b"\n", start)
            stop = len(data) if end < 0 else end
            if self._dropped:
                self._dropped += stop - start
            elif len(self._partial) + stop - start > LINE_LIMIT:
                self._dropped = len(self._partial) + stop - start
                self._partial = bytearray()
            else:
                self._partial += memoryview(data)[start:stop]
            if end < 0:
                return items
            self._line_end(items)
            start = end + 1

    @property
    def buffered(self):
        """Bytes held of the line being read (never more than ``LINE_LIMIT``)."""
        return len(self._partial)

    def _line_end(self, items):
        if self._dropped:
            items.append(Item("garbled", text=self._too_long()))
            self._dropped = 0
            return
        raw = bytes(self._partial)
        self._partial = bytearray()
        self._line(raw.rstrip(b"\r"), items)

    def _too_long(self):
        return "a line of %d bytes (over %d): dropped unread" % (self._dropped, LINE_LIMIT)

    def end(self):
        """The stream ended: a line without its newline is garbled."""
        if self._dropped:
            text, self._dropped = self._too_long(), 0
            return [Item("garbled", text=text)]
        partial, self._partial = bytes(self._partial), bytearray()
        return [Item("garbled", text=partial.decode("utf-8", "replace"))] if partial else []

    def _line(self, raw, items):
        if not raw:
            return
        body, tab, seq_text = raw.rpartition(b"\t")
        if not tab or not seq_text.isdigit() or len(seq_text) > 10 or not body:
            items.append(Item("garbled", text=raw.decode("utf-8", "replace")))
            return
        seq = int(seq_text)
        if body.startswith(b'{"ev":"lost"'):
            try:
                count = load_json(body)["lines"]
            except (ValueError, KeyError, TypeError):
                count = None
            if isinstance(count, bool) or not isinstance(count, int) or not 0 < count < SEQ_LIMIT:
                items.append(Item("garbled", text=raw.decode("utf-8", "replace")))
                return
            last = self.last_seq or 0  # None: the host saw no line before
            if 0 < seq - count - last < SEQ_LIMIT // 2:
                # lines this host never saw before those the board counted as lost
                # (sent before it opened the port, or dropped on the way)
                items.append(Item("gap", seq=seq - count, count=seq - count - last))
            items.append(Item("lost", seq=seq, count=count))
            self.last_seq = seq
            return
        last = self.last_seq
        if last is None:
            if seq > 1:  # the stream began before this host read it
                items.append(Item("gap", seq=seq, count=seq - 1))
        elif seq != next_seq(last):
            if seq == 1:
                items.append(Item("restart", seq=seq))
            elif seq > last:
                items.append(Item("gap", seq=seq, count=seq - next_seq(last)))
            else:  # a seq cut short (its line was lost; the marker follows)
                items.append(Item("garbled", seq=seq, text=raw.decode("utf-8", "replace")))
                return
        self.last_seq = seq
        if body.startswith(b"$"):
            try:
                name, obj = parse_frame(body)
            except FrameError as e:
                items.append(Item("garbled", seq=seq, text=f"{body!r} ({e})"))
                return
            items.append(Item("reply", seq=seq, name=name, obj=obj))
        elif body.startswith(b"{"):
            try:
                text = body.decode("utf-8")
                obj = load_json(body)
            except ValueError:  # not UTF-8, not JSON, or nested too deep
                text = body.decode("utf-8", "replace")
                obj = None
            if isinstance(obj, dict) and isinstance(obj.get("ev"), str):
                items.append(Item("log", seq=seq, text=text, obj=obj))
            else:  # a line of the log that cannot be read: missing from it (count 1)
                items.append(Item("garbled", seq=seq, text=text, count=1))
        else:
            items.append(Item("garbled", seq=seq, text=body.decode("utf-8", "replace"), count=1))


def lost_line(count, unseen=0):
    """A ``lost`` marker for a saved log: ``count`` lines are missing, ``unseen`` of them
    sent by the board but never read by this host (another program on the port, such as
    ``stats`` or ``ask``, read them, or they came before it began reading); the rest the
    board itself counted lost (its own marker)."""
    if unseen:
        return '{"ev":"lost","lines":%d,"unseen":%d}' % (count, unseen)
    return '{"ev":"lost","lines":%d}' % count


class MatchAssembler:
    """``Item``s -> match logs: ``take(item)`` returns the logs it finished, each
    ``(lines, complete)``. A log is complete when it holds a whole match (``match``
    ... ``match_end``) with nothing missing; otherwise a ``lost`` line stands where
    lines are missing (at its top when the match began before the host read), and
    ``finish()`` gives a match still running when the stream ended, cut there."""

    def __init__(self):
        self._lines = None  # [(seq, text)] of the match being read
        self._complete = True
        self._missing = 0  # lines missing since the last match ended (before the next began)
        self._unseen = 0  # ... of them sent by the board, but not read by this host

    @property
    def running(self):
        return self._lines is not None

    def take(self, item):
        done = []
        kind = item.kind
        if kind in ("lost", "gap") or (kind == "garbled" and item.count):
            count = item.count  # (a garbled line with a seq: one line of the log unreadable)
            unseen = count if kind == "gap" else 0
            if self._lines is not None:
                if kind == "lost":  # lines the board counted lost, though (part of) one arrived
                    first = item.seq - count + 1
                    self._lines = [(s, t) for s, t in self._lines if s is None or s < first]
                self._lines.append((None, lost_line(count, unseen)))
                self._complete = False
            else:
                self._missing += count
                self._unseen += unseen
        elif kind == "restart":
            done += self.finish()
        elif kind == "log":
            text = item.text
            if text.startswith('{"ev":"match",'):
                done += self.finish()
                self._lines = [(item.seq, text)]
                self._complete = True
                self._missing = 0
                self._unseen = 0
            else:
                if self._lines is None:  # the match began before the host read the port
                    self._lines = [(None, lost_line(self._missing, self._unseen))]
                    self._complete = False
                    self._missing = 0
                    self._unseen = 0
                self._lines.append((item.seq, text))
                if text.startswith('{"ev":"match_end"'):
                    done += self.finish()
        return done

    def finish(self):
        if self._lines is None:
            return []
        lines = [text for _, text in self._lines]
        complete = self._complete and lines[-1].startswith('{"ev":"match_end"')
        self._lines = None
        self._complete = True
        return [(lines, complete)]


def log_lines(data, matches=0):
    """The data port's bytes as the match log (``board``/``device --log``): the lines
    without their seq, ``lost`` markers kept, replies left out; up to the
    ``matches``-th ``match_end`` (0: all)."""
    decoder = Decoder()
    out = []
    ends = 0
    for item in decoder.feed(data) + decoder.end():
        if item.kind == "lost":
            out.append(lost_line(item.count))
        elif item.kind == "log":
            out.append(item.text)
            if item.text.startswith('{"ev":"match_end"'):
                ends += 1
                if matches and ends >= matches:
                    break
    return out
