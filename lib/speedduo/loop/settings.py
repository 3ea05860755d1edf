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
game does not know (most likely a typo). Not on the play path.

A bad file never stops it either. ``read_settings`` first reads the file itself in
small pieces (never a whole line: a 5 MB line costs 128 bytes of heap) and refuses
one that CircuitPython's ``os.getenv`` would misread: not UTF-8 (one stray byte,
UTF-16 as Windows Notepad saves it), a UTF-8 byte order mark (it hides the first
key's name from ``getenv``) or bigger than ``_SIZE_LIMIT``. Then every setting is
the default and the notice names the file. A line ``getenv`` cannot parse (it raises
``ValueError``, or ``MemoryError`` for a huge value) is that one setting's problem.
"""

from micropython import const  # on the host, Blinka provides this module

from speedduo.game.codes import VOLUME_DEFAULT, VOLUME_MAX
from speedduo.game.rng import SEED_LIMIT
from speedduo.game.rules import Rules, option_names
from speedduo.games import BOARD_GAMES

OTHER_SETTINGS = (
    "SPEED_BEST_OF",
    "SPEED_OPPONENT",
    "SPEED_GAME",
    "SPEED_I2C_FREQUENCY",
    "SPEED_SEED",
    "SPEED_PROFILE",
    "SPEED_VOLUME",
    "SPEED_KEYS",
)
SETTINGS_PATH = "/settings.toml"  # CircuitPython's; the simulator points it at a drive's file
_SIZE_LIMIT = const(16384)  # bytes; ours is under 1 KB
_CHUNK = const(128)  # bytes read at a time
_NAME_LIMIT = const(40)  # a longer key is no setting of ours
IDLE_OFF_MIN_DEFAULT = 5
OPPONENTS = ("off", "easy", "medium", "hard")  # SPEED_OPPONENT: opponent.LEVEL_NAMES 0-3
GAMES = BOARD_GAMES  # SPEED_GAME: the registry's (games.py)


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
        self.best_of = self.whole("SPEED_BEST_OF", 3, 3, 7)
        if self.best_of not in (3, 5, 7):
            self.problems.append(("SPEED_BEST_OF", "3, 5 or 7"))
            self.best_of = 3
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
        self.unknown = [n for n in names if n.startswith("SPEED_") and n not in known]

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
                    value = int(value)
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
            value = int(value)
        except ValueError:
            value = low - 1
        if not low <= value <= high:
            self.problems.append((name, "%d..%d" % (low, high)))
            return default
        return value

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


def read_settings(getenv, environ=None, frequency=400000, max_frequency=1000000):
    """The board's Settings from ``SETTINGS_PATH`` through ``getenv``; never raises.

    A file ``scan_settings`` refuses gives every default and one problem naming the
    file; a broken line is its setting's problem (its default used), whatever getenv
    would make of it. No file: the names are ``environ``'s SPEED_* keys (the
    simulator's)."""
    names, trouble, broken = scan_settings(SETTINGS_PATH)
    if names is None:
        names = [name for name in environ if name.startswith("SPEED_")] if environ else []
    if trouble is not None:
        settings = Settings(_none, (), frequency, max_frequency)
        settings.problems.insert(0, ("settings.toml", trouble))
        return settings
    if broken:
        getenv = _skipping(getenv, [name for name, _ in broken])
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

    ``names``: the keys set before any [table] (None: no file). ``trouble``: why the
    file is not settings CircuitPython reads as written (None: it is). ``broken``:
    (setting, why) of lines CircuitPython cannot read: a value that is empty, an
    unfinished string or text after one (CircuitPython 10 quietly gives the default,
    9 raises ValueError), and the first line with no ``=`` (it is ignored)."""
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


# _scan's states: where in a line the last byte was
_START = const(0)  # before the key (blanks)
_KEY = const(1)
_SKIP = const(2)  # a comment, or a line already judged
_TABLE = const(3)  # after a [table]: nothing more is read
_BEFORE_VALUE = const(4)  # after "="
_STRING = const(5)
_ESCAPE = const(6)  # after a backslash in a string
_AFTER_STRING = const(7)
_BARE = const(8)  # a value without quotes


def _scan(f):
    names = []  # type: list[str]
    broken = []  # type: list[tuple[str, str]]
    name = ""
    key = bytearray()
    chunk = bytearray(_CHUNK)
    size = 0
    line = 1
    follow = 0  # continuation bytes the current UTF-8 character still needs
    state = _START
    while True:
        n = f.readinto(chunk)
        if not n:
            break
        if size == 0:
            if chunk[0] in (0xFE, 0xFF):
                return names, "UTF-16 text: save it as UTF-8", broken
            if chunk[0] == 0xEF and n > 2 and chunk[1] == 0xBB and chunk[2] == 0xBF:
                return names, "starts with a byte order mark: save it as UTF-8 without one", broken
        size += n
        if size > _SIZE_LIMIT:
            return names, "over %d KB: not read" % (_SIZE_LIMIT // 1024), broken
        for i in range(n):
            byte = chunk[i]
            if follow:
                if byte & 0xC0 != 0x80:
                    return names, "not UTF-8 text: save it as UTF-8", broken
                follow -= 1
            elif byte >= 0x80:
                if 0xC2 <= byte <= 0xDF:
                    follow = 1
                elif 0xE0 <= byte <= 0xEF:
                    follow = 2
                elif 0xF0 <= byte <= 0xF4:
                    follow = 3
                else:
                    return names, "not UTF-8 text: save it as UTF-8", broken
            elif byte == 0:
                return names, "NUL bytes (UTF-16?): save it as UTF-8", broken
            if byte == 10:  # the line's end
                _line_end(state, name, key, line, broken)
                line += 1
                if state != _TABLE:
                    state = _START
                if key:
                    key = bytearray()
            else:
                state, name = _step(state, byte, name, key, names, broken)
    _line_end(state, name, key, line, broken)
    if follow:
        return names, "not UTF-8 text: save it as UTF-8", broken
    return names, None, broken


def _step(state, byte, name, key, names, broken):
    """One byte of a line that is not its end: (the new state, the line's setting)."""
    blank = byte in (32, 9, 13)
    if state == _START:
        if byte == 91:  # "[": CircuitPython reads no key after a table starts
            return _TABLE, name
        if byte == 35:  # "#"
            return _SKIP, name
        if not blank:
            key.append(byte)
            return _KEY, name
    elif state == _KEY:
        if byte == 61:  # "="
            name = "settings.toml"  # a key too long to be ours: the file is named
            if len(key) <= _NAME_LIMIT:
                name = bytes(key).strip().decode()
                names.append(name)
            return _BEFORE_VALUE, name
        if len(key) <= _NAME_LIMIT:
            key.append(byte)
    elif state == _BEFORE_VALUE:
        if byte == 34:  # a quote
            return _STRING, name
        if byte == 35:  # a comment where the value should be
            broken.append((name, "no value"))
            return _SKIP, name
        if not blank:
            return _BARE, name
    elif state == _STRING:
        if byte == 92:  # a backslash
            return _ESCAPE, name
        if byte == 34:
            return _AFTER_STRING, name
    elif state == _ESCAPE:
        return _STRING, name
    elif state == _AFTER_STRING:
        if byte == 35:
            return _SKIP, name
        if not blank:
            broken.append((name, "text after the quotes"))
            return _SKIP, name
    return state, name


def _line_end(state, name, key, line, broken):
    """Judge a line at its end (or the file's)."""
    if state in (_STRING, _ESCAPE):
        broken.append((name, "no closing quote"))
    elif state == _BEFORE_VALUE:
        broken.append((name, "no value"))
    elif state == _KEY and bytes(key).strip() and not any(p[0] == "settings.toml" for p in broken):
        broken.append(("settings.toml", "line %d has no =" % line))
