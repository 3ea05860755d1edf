"""Settings from ``settings.toml`` (CircuitPython's ``os.getenv``), checked one by one.

Each rule option of ``rules.py`` may be set as ``SPEED_<NAME>``: whole numbers
for times, 0/1 for the switches (settings.toml holds only strings and
integers), a string for ``SPEED_CLAIM``. Besides those: ``SPEED_BEST_OF``
(3, 5 or 7), ``SPEED_OPPONENT`` (``off``: two players, or the board plays
Player 2: ``easy``, ``medium``, ``hard``; lib/speedduo/opponent.py; the menu's
starting choice), ``SPEED_GAME`` (``speed``, ``spit``: V8, ``california``: V9;
the menu's starting game), ``SPEED_I2C_FREQUENCY`` (Hz), ``SPEED_SEED`` (tests),
``SPEED_PROFILE`` (0/1, docs/device.md) and ``SPEED_VOLUME`` (0-3, 0 = mute;
docs/sound.md). ``IDLE_OFF_MIN`` (0-240, default 5, 0 = never): minutes in the menu
with no key before both panels go dark and the board dozes (docs/device.md);
``IDLE_OFF_S`` (seconds, for tests) replaces it when set.

A bad value never stops the board: ``Settings`` notes it in ``problems`` as
(setting, what is allowed), keeps the default, and the board shows the list on
both panels before the menu. ``unknown`` names the ``SPEED_*`` settings the
game does not know (most likely a typo). Not on the play path.
"""

from speedduo.codes import VOLUME_DEFAULT, VOLUME_MAX
from speedduo.rng import SEED_LIMIT
from speedduo.rules import Rules, option_names

OTHER_SETTINGS = (
    "SPEED_BEST_OF",
    "SPEED_OPPONENT",
    "SPEED_GAME",
    "SPEED_I2C_FREQUENCY",
    "SPEED_SEED",
    "SPEED_PROFILE",
    "SPEED_VOLUME",
)
IDLE_OFF_MIN_DEFAULT = 5
OPPONENTS = ("off", "easy", "medium", "hard")  # SPEED_OPPONENT: opponent.LEVEL_NAMES 0-3
GAMES = ("speed", "spit", "california")  # SPEED_GAME: menu.GAME_IDS, gamerules.GAMES


def _flag(value):
    if value in (0, 1, "0", "1", "true", "false"):
        return value in (1, "1", "true")
    raise ValueError("0 or 1")


class Settings:
    """Every SPEED_* setting read once through ``getenv``; ``names``: the keys present."""

    def __init__(self, getenv, names=(), frequency=400000, max_frequency=1000000) -> None:
        self.problems = []  # (setting, what is allowed), in the order read
        self.rules = self._rules(getenv)
        self.best_of = self.whole(getenv, "SPEED_BEST_OF", 3, 3, 7)
        if self.best_of not in (3, 5, 7):
            self.problems.append(("SPEED_BEST_OF", "3, 5 or 7"))
            self.best_of = 3
        self.opponent = 0  # no opponent: two players
        opponent = getenv("SPEED_OPPONENT")
        if opponent is not None:
            if opponent in OPPONENTS:
                self.opponent = OPPONENTS.index(opponent)
            else:
                self.problems.append(("SPEED_OPPONENT", "off, easy, medium or hard"))
        self.game = 0  # classic Speed
        game = getenv("SPEED_GAME")
        if game is not None:
            if game in GAMES:
                self.game = GAMES.index(game)
            else:
                self.problems.append(("SPEED_GAME", "speed, spit or california"))
        self.i2c_frequency = self.whole(
            getenv, "SPEED_I2C_FREQUENCY", frequency, 100000, max_frequency
        )
        self.seed = self.whole(getenv, "SPEED_SEED", -1, 0, SEED_LIMIT - 1)
        self.profile = self.whole(getenv, "SPEED_PROFILE", 0, 0, 1)
        self.volume = self.whole(getenv, "SPEED_VOLUME", VOLUME_DEFAULT, 0, VOLUME_MAX)
        idle_off_s = self.whole(getenv, "IDLE_OFF_MIN", IDLE_OFF_MIN_DEFAULT, 0, 240) * 60
        self.idle_off_ms = self.whole(getenv, "IDLE_OFF_S", idle_off_s, 0, 14400) * 1000  # 0: never
        known = ["SPEED_" + name.upper() for name in option_names()]
        known.extend(OTHER_SETTINGS)
        self.unknown = [n for n in names if n.startswith("SPEED_") and n not in known]

    def _rules(self, getenv):
        rules = Rules()
        for name in option_names():
            setting = "SPEED_" + name.upper()
            value = getenv(setting)
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

    def whole(self, getenv, name, default, low, high):
        """A whole-number setting in [low, high]; a bad one is noted and ``default`` used."""
        value = getenv(name)
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


def settings_names(path="/settings.toml", environ=None):
    """The keys settings.toml sets (CircuitPython has no os.environ to list them)."""
    names = []
    try:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line.startswith("["):
                    break  # CircuitPython reads only the top-level keys
                if line and not line.startswith("#") and "=" in line:
                    names.append(line.split("=", 1)[0].strip())
    except OSError:
        if environ is not None:  # the simulator: settings come from the environment
            names = [name for name in environ if name.startswith("SPEED_")]
    return names
