"""Settings from ``settings.toml`` (CircuitPython's ``os.getenv``), checked one by one.

Each rule option of ``rules.py`` may be set as ``SPEED_<NAME>``: whole numbers
for times, 0/1 for the switches (settings.toml holds only strings and
integers), a string for ``SPEED_CLAIM``. Besides those: ``SPEED_BEST_OF``
(3, 5 or 7), ``SPEED_OPPONENT`` (``off``: two players, or the board plays
Player 2: ``easy``, ``medium``, ``hard``; lib/speedduo/loop/opponent.py; the menu's
starting choice), ``SPEED_GAME`` (``speed``, ``spit``: V8, ``california``: V9;
the menu's starting game), ``SPEED_I2C_FREQUENCY`` (Hz), ``SPEED_SEED`` (tests),
``SPEED_PROFILE`` (0/1, docs/device.md), ``SPEED_VOLUME`` (0-3, 0 = mute;
docs/sound.md) and ``SPEED_KEYS`` (``pio``, the default: every press stamped to the µs
by a PIO state machine; ``keypad``: the keypad's ms; read by ``keys.wants_pio``).
``IDLE_OFF_MIN`` (0-240, default 5, 0 = never): minutes in the menu
with no key before both panels go dark and the board dozes (docs/device.md);
``IDLE_OFF_S`` (seconds, for tests) replaces it when set.

A bad value never stops the board: ``Settings`` notes it in ``problems`` as
(setting, what is allowed), keeps the default, and the board shows the list on
both panels before the menu. ``unknown`` names the ``SPEED_*`` settings the
game does not know (most likely a typo; a name of ours in lower case too: getenv
matches names byte for byte). Not on the play path.

Numbers are read by ``whole_number``, not ``int()``: CPython's ``int`` takes Unicode
digits, a no-break space and ``_`` where CircuitPython's differs, so the simulator
would take what the board refuses; ours takes ASCII blanks, a sign and ASCII digits
only, the same everywhere.

CircuitPython 10.2.1's getenv (``supervisor/shared/settings.c``: ``key_matches``,
``read_value``) stops at the first line whose key matches byte for byte (a key set
again is never read), reads nothing after a line starting with ``[``, and never
matches a quoted key: ``scan_settings`` names each such key of ours.

A bad file never stops it either. ``read_settings`` first reads the file itself in
small pieces (never a whole line: a 5 MB line costs 128 bytes of heap) and refuses
one that CircuitPython's ``os.getenv`` would misread: not UTF-8 (one stray byte,
UTF-16 as Windows Notepad saves it), a UTF-8 byte order mark (it hides the first
key's name from ``getenv``) or bigger than ``_SIZE_LIMIT``. Then every setting is
the default and the notice names the file. A line ``getenv`` cannot parse (it raises
``ValueError``, or ``MemoryError`` for a huge value) is that one setting's problem.
"""

from micropython import const  # on the host, Blinka provides this module

from speedduo.game.rng import SEED_LIMIT
from speedduo.game.rules import Rules, option_names
from speedduo.games import BOARD_GAMES
from speedduo.vocab.codes import VOLUME_DEFAULT, VOLUME_MAX

OTHER_SETTINGS = (
    "SPEED_BEST_OF",
    "SPEED_OPPONENT",
    "SPEED_GAME",
    "SPEED_I2C_FREQUENCY",
    "SPEED_SEED",
    "SPEED_PROFILE",
    "SPEED_VOLUME",
    "SPEED_KEYS",
    "SPEED_MAX_ROUNDS",  # Spit's and California's (the registry's options)
    "IDLE_OFF_MIN",
    "IDLE_OFF_S",
)
SETTINGS_PATH = "/settings.toml"  # CircuitPython's; the simulator points it at a drive's file
_SIZE_LIMIT = const(16384)  # bytes; ours is under 1 KB
_CHUNK = const(128)  # bytes read at a time
_NAME_LIMIT = const(40)  # a longer key is no setting of ours
IDLE_OFF_MIN_DEFAULT = 5
OPPONENTS = ("off", "easy", "medium", "hard")  # SPEED_OPPONENT: opponent.LEVEL_NAMES 0-3
GAMES = BOARD_GAMES  # SPEED_GAME: the registry's (games.py)


_DIGITS_KEPT = const(9)  # more digits than this: a number beyond every range of ours


def whole_number(value):
    """``value`` (a str from getenv) as an int, read the same on the board, the simulator
    and the PC: ASCII blanks around it, an optional sign and ASCII digits, nothing else
    (no Unicode digits, no ``_``, no no-break space). ValueError otherwise. A number of
    more than ``_DIGITS_KEPT`` digits reads as +-999999999 (out of every range)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if not isinstance(value, str):
        raise ValueError("a whole number")
    start = 0
    end = len(value)
    while start < end and value[start] in " \t\r\n\v\f":
        start += 1
    while end > start and value[end - 1] in " \t\r\n\v\f":
        end -= 1
    sign = 1
    if start < end and value[start] in "+-":
        sign = -1 if value[start] == "-" else 1
        start += 1
    if start == end:
        raise ValueError("a whole number")
    number = 0
    digits = 0
    for i in range(start, end):
        c = value[i]
        if not "0" <= c <= "9":
            raise ValueError("a whole number")
        if number or c != "0":
            digits += 1
        if digits <= _DIGITS_KEPT:
            number = number * 10 + ord(c) - 48
    if digits > _DIGITS_KEPT:
        number = 999999999
    return sign * number


def _flag(value):
    if value in (0, 1, "0", "1", "true", "false"):
        return value in (1, "1", "true")
    raise ValueError("0 or 1")


class Settings:
    """Every SPEED_* setting read once through ``getenv``; ``names``: the keys present."""

    def __init__(self, getenv, names=(), frequency=400000, max_frequency=1000000) -> None:
        self.problems = []  # (setting, what is allowed), in the order read
        self._getenv = getenv
        self.rules = self._rules()
        self.best_of = 3
        best_of = self.get("SPEED_BEST_OF")
        if best_of is not None:
            try:
                self.best_of = whole_number(best_of)
            except ValueError:
                self.best_of = 0
            if self.best_of not in (3, 5, 7):
                self.problems.append(("SPEED_BEST_OF", "3, 5 or 7"))
                self.best_of = 3
        # V8.11, V9.7: Spit's and California's own option (game_app takes it from the rules)
        max_rounds = self.whole("SPEED_MAX_ROUNDS", 0, 1, 3600000)
        if max_rounds:
            self.rules.max_rounds = max_rounds
        self.opponent = 0  # no opponent: two players
        opponent = self.get("SPEED_OPPONENT")
        if opponent is not None:
            if opponent in OPPONENTS:
                self.opponent = OPPONENTS.index(opponent)
            else:
                self.problems.append(("SPEED_OPPONENT", "off, easy, medium or hard"))
        self.game = 0  # classic Speed
        game = self.get("SPEED_GAME")
        if game is not None:
            if game in GAMES:
                self.game = GAMES.index(game)
            else:
                self.problems.append(("SPEED_GAME", "speed, spit or california"))
        self.i2c_frequency = self.whole("SPEED_I2C_FREQUENCY", frequency, 100000, max_frequency)
        self.seed = self.whole("SPEED_SEED", -1, 0, SEED_LIMIT - 1)
        self.profile = self.whole("SPEED_PROFILE", 0, 0, 1)
        self.volume = self.whole("SPEED_VOLUME", VOLUME_DEFAULT, 0, VOLUME_MAX)
        keys = self.get("SPEED_KEYS")  # (read at power-on by keys.wants_pio: checked here)
        if keys is not None and keys not in ("pio", "keypad"):
            self.problems.append(("SPEED_KEYS", "pio or keypad"))
        idle_off_s = self.whole("IDLE_OFF_MIN", IDLE_OFF_MIN_DEFAULT, 0, 240) * 60
        self.idle_off_ms = self.whole("IDLE_OFF_S", idle_off_s, 0, 14400) * 1000  # 0: never
        known = ["SPEED_" + name.upper() for name in option_names()]
        known.extend(OTHER_SETTINGS)
        # a name of ours in lower case is one getenv never finds: unknown too
        self.unknown = [n for n in names if _ours(n) and n not in known]

    def get(self, name):
        """``getenv(name)``; None, and a problem noted, when its line cannot be read
        (CircuitPython's getenv raises ValueError for a malformed line, UnicodeError
        (a ValueError) for bytes that are not UTF-8, MemoryError for a huge value)."""
        try:
            return self._getenv(name)
        except (ValueError, MemoryError, RuntimeError):
            self.problems.append((name, "unreadable line"))
            return None

    def _rules(self):
        rules = Rules()
        for name in option_names():
            setting = "SPEED_" + name.upper()
            value = self.get(setting)
            if value is None:
                continue
            default = getattr(rules, name)
            try:
                if isinstance(default, bool):
                    value = _flag(value)
                elif isinstance(default, int):
                    value = whole_number(value)
                rules.set(name, value)
            except ValueError as error:
                allowed = str(error)
                if allowed.startswith(name + " "):  # "idle_ms must be ..." -> "must be ..."
                    allowed = allowed[len(name) + 1 :]
                elif not isinstance(default, (bool, str)):
                    allowed = "a whole number"
                self.problems.append((setting, allowed))
        return rules

    def whole(self, name, default, low, high):
        """A whole-number setting in [low, high]; a bad one is noted and ``default`` used."""
        value = self.get(name)
        if value is None:
            return default
        try:
            value = whole_number(value)
        except ValueError:
            value = low - 1
        if not low <= value <= high:
            self.problems.append((name, "%d..%d" % (low, high)))
            return default
        return value

    def ignored(self):
        """(setting, why) of every problem and unknown name: what the notice says."""
        return self.problems + [(name, "unknown") for name in self.unknown]

    def report_lines(self, width=21):
        """The problems as short lines for a 128-pixel panel (``width`` characters)."""
        lines = []
        for name, allowed in self.problems:
            lines.append(name[:width])
            lines.extend(wrap(allowed, width, "  "))
        for name in self.unknown:
            lines.append(name[:width])
            lines.append("  unknown: ignored")
        return lines


def wrap(text, width, indent=""):
    """Words of ``text`` on lines of at most ``width`` characters, each after ``indent``."""
    lines = []
    line = indent
    for word in text.split():
        if len(line) > len(indent) and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = indent
        line = line + (" " if len(line) > len(indent) else "") + word
    if len(line) > len(indent):
        lines.append(line)
    return lines


def _none(name):
    return None


def _skipping(getenv, skip):
    """``getenv``, but None for the names in ``skip`` (their lines are broken)."""

    def get(name):
        return None if name in skip else getenv(name)

    return get


def read_settings(getenv, environ=None, frequency=400000, max_frequency=1000000, path=None):
    """The board's Settings from ``path`` (``SETTINGS_PATH``) through ``getenv``; never raises.

    A file ``scan_settings`` refuses gives every default and one problem naming the
    file; a broken line is its setting's problem (its default used), whatever getenv
    would make of it. No file: the names are ``environ``'s SPEED_* keys (the
    simulator's)."""
    names, trouble, broken = scan_settings(path or SETTINGS_PATH)
    if names is None:
        names = [name for name in environ if name.startswith("SPEED_")] if environ else []
    if trouble is not None:
        settings = Settings(_none, (), frequency, max_frequency)
        settings.problems.insert(0, ("settings.toml", trouble))
        return settings
    skip = [name for name, why in broken if why in UNREADABLE]
    if skip:
        getenv = _skipping(getenv, skip)
    settings = Settings(getenv, names, frequency, max_frequency)
    settings.problems[:0] = broken
    return settings


def settings_names(path=None):
    """The keys settings.toml sets before any [table] (CircuitPython has no os.environ
    to list them); [] when there is no file or ``scan_settings`` refuses it."""
    names, trouble, _ = scan_settings(path or SETTINGS_PATH)
    return names if names and trouble is None else []


def scan_settings(path):
    """(names, trouble, broken) of the file at ``path``, read ``_CHUNK`` bytes at a time.

    ``names``: the keys CircuitPython's getenv can find (before any [table]; the first
    of a key set twice; None: no file). ``trouble``: why the file is not settings
    CircuitPython reads as written (None: it is). ``broken``: (setting, why) of what
    getenv ignores: a line it cannot read (a value that is empty, an unfinished string,
    text after one: CircuitPython 10 quietly gives the default, 9 raised ValueError; the
    setting's default is used), a key set again (getenv takes the first), a key of ours
    in quotes or under a [table] (getenv never finds it), and the first line with no ``=``."""
    try:
        f = open(path, "rb")
    except OSError:
        return None, None, []
    try:
        return _scan(f)
    except (OSError, MemoryError):
        return [], "cannot be read", []
    finally:
        f.close()


# _Scan's states: where in a line the last byte was
_START = const(0)  # before the key (blanks)
_KEY = const(1)
_SKIP = const(2)  # a comment, or a line already judged
_BEFORE_VALUE = const(4)  # after "="
_STRING = const(5)
_ESCAPE = const(6)  # after a backslash in a string
_AFTER_STRING = const(7)
_BARE = const(8)  # a value without quotes
_BLANKS = (32, 9, 11, 12, 13)  # getenv's spaces (unichar_isspace) but the newline
# why getenv gives the default for a key's first line: the setting is not asked for
UNREADABLE = ("no closing quote", "text after the quotes", "no value")


def _ours(name):
    """A key meant for this game (any case): SPEED_*, IDLE_OFF_*."""
    name = name.upper()
    return name.startswith("SPEED_") or name.startswith("IDLE_OFF_")


def _key_name(key):
    """The key's text: blanks around it dropped, bytes beyond ASCII shown as ``?``, a
    key over ``_NAME_LIMIT`` cut there and marked with ``...`` (no setting of ours)."""
    text = "".join(chr(b) if 32 <= b < 127 else "?" for b in bytes(key).strip())
    return text + "..." if len(key) > _NAME_LIMIT else text


class _Scan:
    """One pass over a file's bytes: the keys, and what getenv would ignore."""

    def __init__(self):
        self.names = []  # type: list[str]
        self.broken = []  # type: list[tuple[str, str]]
        self.name = ""  # the current line's key, once its "=" is seen
        self.judge = False  # its value is what getenv reads for it
        self.key = bytearray()
        self.line = 1
        self.table = 0  # the line of the first [table] (0: none yet)
        self.no_equals = False  # a line with no "=" was named
        self.state = _START

    def step(self, byte):
        """One byte of a line that is not its end."""
        state = self.state
        if state == _START:
            if byte == 91 and not self.table:  # "[": getenv reads no key after a table
                self.table = self.line
                self.state = _SKIP
            elif byte == 35 or byte == 91:  # "#", or another table
                self.state = _SKIP
            elif byte not in _BLANKS:
                self.key.append(byte)
                self.state = _KEY
        elif state == _KEY:
            if byte == 61:  # "="
                self.state = _BEFORE_VALUE
                self._named(_key_name(self.key))
            elif len(self.key) <= _NAME_LIMIT:
                self.key.append(byte)
        elif state == _BEFORE_VALUE:
            if byte == 34:  # a quote
                self.state = _STRING
            elif byte == 35:  # a comment where the value should be
                self._unreadable("no value")
            elif byte not in _BLANKS:
                self.state = _BARE
        elif state == _STRING:
            if byte == 92:  # a backslash
                self.state = _ESCAPE
            elif byte == 34:
                self.state = _AFTER_STRING
        elif state == _ESCAPE:
            self.state = _STRING
        elif state == _AFTER_STRING:
            if byte == 35:
                self.state = _SKIP
            elif byte not in _BLANKS:
                self._unreadable("text after the quotes")

    def _named(self, name):
        """The line's key is ``name``: is it one getenv finds, and first?"""
        self.name = name
        self.judge = False
        quoted = name[:1] in ("'", '"')
        if quoted:
            name = name.strip("'\"")
        if not _ours(name):
            if not self.table and not quoted:
                self.names.append(name)
            return
        if self.table:
            self.broken.append((name, "under the [table] of line %d: ignored" % self.table))
        elif quoted:
            self.broken.append((name, "in quotes: ignored (no quotes around a name)"))
        elif name in self.names:
            self.broken.append((name, "again on line %d: ignored" % self.line))
        else:
            self.names.append(name)
            self.judge = True

    def _unreadable(self, why):
        if self.judge:
            self.broken.append((self.name, why))
        self.state = _SKIP

    def end_line(self):
        """Judge a line at its end (or the file's)."""
        state = self.state
        if state in (_STRING, _ESCAPE):
            self._unreadable("no closing quote")
        elif state == _BEFORE_VALUE:
            self._unreadable("no value")
        elif state == _KEY and bytes(self.key).strip() and not self.no_equals:
            if not self.table:
                self.broken.append(("settings.toml", "line %d has no =" % self.line))
                self.no_equals = True
        self.line += 1
        self.state = _START
        if self.key:
            self.key = bytearray()


def _scan(f):
    scan = _Scan()
    chunk = bytearray(_CHUNK)
    size = 0
    follow = 0  # continuation bytes the current UTF-8 character still needs
    while True:
        n = f.readinto(chunk)
        if not n:
            break
        if size == 0:
            if chunk[0] in (0xFE, 0xFF):
                return scan.names, "UTF-16 text: save it as UTF-8", scan.broken
            if chunk[0] == 0xEF and n > 2 and chunk[1] == 0xBB and chunk[2] == 0xBF:
                why = "starts with a byte order mark: save it as UTF-8 without one"
                return scan.names, why, scan.broken
        size += n
        if size > _SIZE_LIMIT:
            return scan.names, "over %d KB: not read" % (_SIZE_LIMIT // 1024), scan.broken
        for i in range(n):
            byte = chunk[i]
            if follow:
                if byte & 0xC0 != 0x80:
                    return scan.names, "not UTF-8 text: save it as UTF-8", scan.broken
                follow -= 1
            elif byte >= 0x80:
                if 0xC2 <= byte <= 0xDF:
                    follow = 1
                elif 0xE0 <= byte <= 0xEF:
                    follow = 2
                elif 0xF0 <= byte <= 0xF4:
                    follow = 3
                else:
                    return scan.names, "not UTF-8 text: save it as UTF-8", scan.broken
            elif byte == 0:
                return scan.names, "NUL bytes (UTF-16?): save it as UTF-8", scan.broken
            if byte == 10:  # the line's end
                scan.end_line()
            else:
                scan.step(byte)
    scan.end_line()
    if follow:
        return scan.names, "not UTF-8 text: save it as UTF-8", scan.broken
    return scan.names, None, scan.broken
