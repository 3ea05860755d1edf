"""The window's keymap: keyboard keys -> the board's 14 buttons (keys 0-6 Player 1, 7-13 Player 2).

The defaults are ``host_sim/keymap.toml``; a user file (``--keymap FILE``, else
``$SPEEDDUO_KEYMAP``, else ``~/.config/speedduo/keymap.toml`` when it exists)
overrides the buttons it names. Format (TOML)::

    [player1]
    L = "q"          # a pygame key name ...
    1 = ["a", "z"]   # ... or a list of them
    [player2]
    R = "keypad 9"

Anything wrong (unreadable file, not a regular file, over 64 KB, not UTF-8, bad
TOML or nested too deeply, unknown table or button, unknown key
name, one key on two buttons, Escape, a button left without a key) is a
``KeymapError`` whose text is one line naming the file and what is wrong.
"""

import os
import tomllib

from host_sim import HOST_SIM
from host_sim.logfile import LogError, read_bytes

BUTTONS = ("L", "1", "2", "3", "4", "5", "R")  # a player's row, key numbers 7p + index
PLAYERS = ("player1", "player2")  # Player 1 (left panel), Player 2
DEFAULT_PATH = os.path.join(HOST_SIM, "keymap.toml")
RESERVED = ("escape",)  # closes the window
KEYMAP_LIMIT = 64 << 10  # a keymap names 14 buttons: a few hundred bytes


class KeymapError(ValueError):
    pass


def user_keymap_path(explicit=None, environ=None):
    """The user's keymap file, or None: --keymap, else $SPEEDDUO_KEYMAP, else ~/.config's."""
    environ = os.environ if environ is None else environ
    if explicit:
        return explicit
    if environ.get("SPEEDDUO_KEYMAP"):
        return environ["SPEEDDUO_KEYMAP"]
    home = environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    path = os.path.join(home, "speedduo", "keymap.toml")
    return path if os.path.exists(path) else None


def read_table(path):
    """{(player, button): [key names]} from one keymap file."""
    try:  # a file only (a FIFO would hang), at most KEYMAP_LIMIT bytes
        raw = read_bytes(path, "keymap", KEYMAP_LIMIT, regular=True)
    except LogError as e:
        raise KeymapError(str(e)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise KeymapError(
            f"keymap {path}: line {line} is not UTF-8 text (save it as UTF-8)"
        ) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise KeymapError(f"keymap {path}: not TOML: {e}") from None
    except RecursionError:
        raise KeymapError(
            f"keymap {path}: not a keymap: arrays or tables nested too deeply"
        ) from None
    table = {}
    for section, buttons in data.items():
        if section not in PLAYERS:
            why = " (players are numbered from 1)" if section == "player0" else ""
            raise KeymapError(f"keymap {path}: unknown table [{section}] (player1, player2){why}")
        if not isinstance(buttons, dict):
            raise KeymapError(f"keymap {path}: {section} must be a table [{section}]")
        for button, names in buttons.items():
            if button not in BUTTONS:
                raise KeymapError(
                    f"keymap {path}: [{section}] unknown button {button!r} ({' '.join(BUTTONS)})"
                )
            if isinstance(names, str):
                names = [names]
            if (
                not isinstance(names, list)
                or not names
                or not all(isinstance(n, str) and n for n in names)
            ):
                raise KeymapError(
                    f"keymap {path}: [{section}] {button}: a key name or a list of key names"
                )
            table[(PLAYERS.index(section), button)] = [n.lower() for n in names]
    return table


class Keymap:
    """``buttons[code]`` -> key number; ``labels[key number]`` -> the key names, for the legend."""

    def __init__(self, table, key_code, where=DEFAULT_PATH):
        self.buttons = {}
        self.labels = [[] for _ in range(len(PLAYERS) * len(BUTTONS))]
        for (player, button), names in sorted(table.items()):
            number = player * len(BUTTONS) + BUTTONS.index(button)
            for name in names:
                if name in RESERVED:
                    raise KeymapError(f"keymap {where}: {name!r} is taken (it closes the window)")
                try:
                    code = key_code(name)
                except ValueError:
                    raise KeymapError(
                        f"keymap {where}: [{PLAYERS[player]}] {button}: unknown key name {name!r}"
                    ) from None
                if code in self.buttons and self.buttons[code] != number:
                    other = self.buttons[code]
                    raise KeymapError(
                        f"keymap {where}: key {name!r} is on two buttons: "
                        f"{_button_name(other)} and {_button_name(number)}"
                    )
                self.buttons[code] = number
                self.labels[number].append(name)
        for number, names in enumerate(self.labels):
            if not names:
                raise KeymapError(f"keymap {where}: no key for {_button_name(number)}")


def _button_name(number):
    return "%s %s" % (PLAYERS[number // len(BUTTONS)], BUTTONS[number % len(BUTTONS)])


def pygame_key_code(name):
    """``pygame.key.key_code``, without its warning before ``pygame.init()`` (key names are
    SDL's fixed table: the answer is the same before and after)."""
    import warnings

    import pygame

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pygame.key.key_code(name)


def load_keymap(key_code=pygame_key_code, explicit=None, environ=None):
    """The defaults with the user's file (if any) over them. ``key_code``: name -> code
    (``pygame.key.key_code``; raises ValueError for an unknown name)."""
    table = read_table(DEFAULT_PATH)
    path = user_keymap_path(explicit, environ)
    where = DEFAULT_PATH
    if path is not None:
        table.update(read_table(path))
        where = path
    return Keymap(table, key_code, where)
