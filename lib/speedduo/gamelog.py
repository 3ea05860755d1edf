"""The match log of the other games (docs/match-log.md, version 2: V8 Spit, V9 California
Speed, V10 Speed for three or four players).

Version 2 is version 1 with documented additions: a ``game`` and a ``players``
field on the ``match`` line, the events of each game, and lists with one entry
per player. The key record (``keys``, ``keys_total``, a ``keys`` line of its own
when the waiting entries' text passes 374 bytes) is version 1's, to the letter.
Classic two-player Speed keeps writing version 1 (``matchlog.py``); nothing here
touches it.

Lines are built as strings (these games are not held to classic Speed's
allocation-free play path): each event is a list of (name, value) pairs,
written compact and in that order. On the board (``game_app.py``) an
``observer(ev, fields)`` is shown every event as it is put, for the screens
and the sound.
Values are ints, strings without quotes or backslashes (card names, words),
True/False, None (null) and lists of these.
"""

from micropython import const  # on the host, Blinka provides this module

LOG_VERSION = const(2)
KEYS_CAPACITY = const(400)  # as matchlog.KEYS_CAPACITY (docs/match-log.md "Key events")
KEY_TEXT_MAX = const(26)  # the longest key entry


def value_text(value) -> str:
    """A value as compact JSON."""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return '"' + value + '"'
    return "[" + ",".join([value_text(item) for item in value]) + "]"


class GameLog:
    """Formats events as JSON Lines and carries the key record onto them."""

    def __init__(self) -> None:
        self._lines = []  # formatted lines not yet drained
        self._keys = ""  # formatted key entries waiting for the next line
        self.keys_total = 0
        self.observer = None  # observer(ev, fields): each event put (the board's GameApp)

    def header(self, game, players, seed, rules, best_of, tie_first) -> None:
        """The ``match`` line (version 2): ``rules`` as (name, value) pairs in log order."""
        options = ",".join(['"' + name + '":' + value_text(value) for name, value in rules])
        self._lines.append(
            '{"ev":"match","v":%d,"game":"%s","players":%d,"seed":%d,"rules":{%s},'
            '"best_of":%d,"tie_break":"rotate","tie_first":%d}'
            % (LOG_VERSION, game, players, seed, options, best_of, tie_first)
        )

    def key(self, t: int, key: int, pressed: int) -> None:
        """A key event read (``[t, key, pressed]``, t in ms since the match began)."""
        if len(self._keys) + KEY_TEXT_MAX > KEYS_CAPACITY:  # no room: the waiting ones go now
            self._lines.append('{"ev":"keys"' + self._key_fields() + "}")
        entry = "[%d,%d,%d]" % (t, key, pressed)
        self._keys = self._keys + "," + entry if self._keys else entry
        self.keys_total += 1

    def _key_fields(self) -> str:
        text = ""
        if self._keys:
            text = ',"keys":[' + self._keys + "]"
            self._keys = ""
        return text + ',"keys_total":%d' % self.keys_total

    def put(self, ev: str, fields) -> None:
        """One event: ``fields`` is a list of (name, value) pairs, in log order."""
        text = '{"ev":"' + ev + '"'
        for name, value in fields:
            text += ',"' + name + '":' + value_text(value)
        if self._keys or ev == "match_end":
            text += self._key_fields()
        self._lines.append(text + "}")
        if self.observer is not None:
            self.observer(ev, fields)

    def drain(self, write) -> int:
        """Hand every waiting line to ``write`` (a str each, no newline); returns how many."""
        if not self._lines:
            return 0  # (the board's loop asks every pass: no new list when there is nothing)
        lines = self._lines
        self._lines = []
        for line in lines:
            write(line)
        return len(lines)
