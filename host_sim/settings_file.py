"""CircuitPython's ``os.getenv`` over a settings.toml file, for the board program on the shims.

On the board ``os.getenv(key)`` reads ``/settings.toml`` itself, a byte at a time, each
call from the start. CircuitPython 10 (``supervisor/shared/settings.c``, what
``os.getenv`` calls there): only lines before the first ``[table]``; a key is matched
byte for byte after leading blanks; a quoted value takes the escapes ``\\b \\r \\n \\t
\\v \\f \\uXXXX \\UXXXXXXXX``, a bare value runs to ``#`` or the line's end (blanks and
``\\r`` trimmed); either way the answer is a **str** (``"5"``, not 5). A line it cannot
read (an empty value, an unfinished string, text after the closing quote, a bad escape)
gives the default, quietly; a NUL byte reads as the end of the file. A value that is not
UTF-8 raises UnicodeError (MicroPython checks every new str), a huge one MemoryError.
(CircuitPython 9 raised ValueError for a line it could not read, and gave ints.)

``board --settings FILE`` and ``--drive DIR`` give the board program this ``getenv``,
so a file the board would misread is misread here too. Runs in the MicroPython VM.
"""

_SPACE = (32, 9, 10, 11, 12, 13)
_ESCAPES = {98: 8, 114: 13, 110: 10, 116: 9, 118: 11, 102: 12}  # b r n t v f


class _Reader:
    """The file's bytes, read one at a time as getenv.c does (0 at the end)."""

    def __init__(self, data):
        self.data = data
        self.at = 0

    def next(self):
        if self.at >= len(self.data):
            self.at += 1
            return 0
        byte = self.data[self.at]
        self.at += 1
        return byte

    def done(self):
        return self.at >= len(self.data)

    def skip_blanks(self):
        """The next byte that is not a blank (a newline is not skipped)."""
        byte = self.next()
        while byte not in (10, 0) and byte in _SPACE:
            byte = self.next()
        return byte

    def next_line(self):
        byte = self.next()
        while byte not in (0, 10):
            byte = self.next()


def _key_matches(reader, key):
    byte = reader.skip_blanks()
    if byte in (91, 0):  # "[" or the end: no key after it counts
        reader.at = len(reader.data)
        return False
    for want in key:
        if byte != want:
            if byte != 10:
                reader.next_line()
            return False
        byte = reader.next()
    if byte in _SPACE:
        byte = reader.skip_blanks()
    if byte != 61:  # "="
        if byte != 10:
            reader.next_line()
        return False
    return True


def _string(reader):
    """The quoted value's bytes, or None when the line cannot be read."""
    out = bytearray()
    while True:
        byte = reader.next()
        if byte in (0, 10):
            return None
        if byte == 34:  # the closing quote: then only blanks or a comment
            byte = reader.skip_blanks()
            if byte == 35:
                reader.next_line()
            elif byte not in (0, 10):
                return None
            return out
        if byte == 92:  # a backslash
            byte = reader.next()
            if byte in (0, 10):
                return None
            if byte in (117, 85):  # u, U
                code = _hex_escape(bytes(reader.next() for _ in range(4 if byte == 117 else 8)))
                if code is None or code >= 0x110000:
                    return None
                out.extend(chr(code).encode("utf-8"))
                continue
            byte = _ESCAPES.get(byte, byte)
        out.append(byte)


_HEX = b"0123456789abcdefABCDEF"


def _hex_escape(digits):
    """The code of a ``\\u``/``\\U`` escape's bytes as C's ``strtoul(digits, &end, 16)``
    reads them, or None unless it reads them all (getenv.c): blanks, a sign and ``0x`` may
    lead; no ``_``, no blank after; a minus wraps around 32 bits (out of Unicode's range)."""
    at = 0
    while at < len(digits) and digits[at] in _SPACE:
        at += 1
    negative = at < len(digits) and digits[at] == 45  # "-"
    if at < len(digits) and digits[at] in (43, 45):  # "+", "-"
        at += 1
    if digits[at : at + 2] in (b"0x", b"0X") and at + 2 < len(digits) and digits[at + 2] in _HEX:
        at += 2
    if at == len(digits) or any(byte not in _HEX for byte in digits[at:]):
        return None
    code = int(digits[at:].decode(), 16)
    return (-code) & 0xFFFFFFFF if negative else code


def _bare(reader, byte):
    """The bare value's bytes (trailing blanks and \\r trimmed), or None when empty."""
    if byte in (0, 10):
        return None
    out = bytearray()
    while byte not in (0, 10):
        if byte == 35:
            reader.next_line()
            break
        out.append(byte)
        byte = reader.next()
    while out and out[-1] in (32, 9, 13):
        out = out[:-1]
    return out


def lookup(data, key, default=None):
    """``os.getenv(key, default)`` as CircuitPython 10 answers it for a file holding ``data``."""
    reader = _Reader(data)
    want = key.encode()
    while not reader.done():
        if _key_matches(reader, want):
            byte = reader.skip_blanks()
            value = _string(reader) if byte == 34 else _bare(reader, byte)
            if value is None:
                return default
            return bytes(value).decode("utf-8")  # not UTF-8: UnicodeError, as on the board
    return default


class DriveOS:
    """What the board program uses of CircuitPython's ``os``, with the drive's settings.toml.

    Put in place of board_io's ``os`` (the VM's own ``os`` cannot be changed)."""

    def __init__(self, path, real_os):
        self.path = path
        self.urandom = real_os.urandom
        self.environ = None  # CircuitPython has none

    def getenv(self, key, default=None):
        try:
            with open(self.path, "rb") as f:
                data = f.read()
        except OSError:
            return default
        return lookup(data, key, default)
