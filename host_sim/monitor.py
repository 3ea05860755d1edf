"""``python -m host_sim monitor``: watch the board's match log live, and save it.

Finds the board's data port (or takes ``--port``), prints one line per event as it
arrives, and with ``--save FILE`` writes each match's log (the first to FILE, the
next to FILE-2, ...) when it ends: exactly the match log (docs/match-log.md), so
``python -m host_sim replay FILE`` checks it. A match the monitor did not see
whole (it started late, lines were lost, the stream or Ctrl-C cut it) is saved
with ``{"ev":"lost","lines":N}`` where lines are missing, or without its
``match_end``: replay refuses both and says why. Exit status: 0 when every saved
match was complete, 1 when one was not, 2 for bad input (no port, unwritable file).
"""

import os

from host_sim.data_port import PortError, find_data_port, open_port  # noqa: F401 (re-exported)
from host_sim.logfile import check_out_paths, write_atomically
from host_sim.wire import Decoder, MatchAssembler


def read_chunks(port):
    """The port's bytes as they come, until the stream ends (the port went away)."""
    import serial

    while True:
        try:
            data = port.read(port.in_waiting or 1)
        except (serial.SerialException, OSError):
            return
        if data:
            yield data


def describe(item):
    """One line in words for a decoded item (None: nothing to show)."""
    import json

    kind = item.kind
    if kind == "lost":
        return f"!! {item.count} lines lost on the data port (the board counted them)"
    if kind == "gap":
        return (
            f"!! {item.count} lines not seen before seq {item.seq} (the board sent them: another"
            " program on the port read them, or they came before this monitor started)"
        )
    if kind == "restart":
        return "!! the board restarted (seq began again)"
    if kind == "garbled":
        return f"!! garbled line: {shown(item.text, 60)}"
    if kind == "reply":
        return shown(f"<< {item.name}: {json.dumps(item.obj, separators=(',', ':'))}")
    try:
        return shown(describe_event(item.obj))
    except (KeyError, TypeError, IndexError, AttributeError, ValueError):  # odd fields
        return "   " + shown(item.text)


SHOWN = 200  # characters of a line shown as it is


def shown(text, room=SHOWN):
    """``text`` as one line on the terminal: cut to ``room`` characters, control
    characters (a newline, an escape sequence in a field) shown as ``?``."""
    cut = "".join(c if c.isprintable() else "?" for c in text[:room])
    return cut if len(text) <= room else cut + f"... ({len(text)} characters)"


TIME_LIMIT = 1 << 53  # µs or ms beyond any match (a float still holds them exactly)


def _whole(e, key, limit=TIME_LIMIT):
    """Field ``key`` of event ``e``: a whole number 0 <= n < limit, else TypeError (the
    line is then shown as it is: a huge number or a wrong type is no traceback)."""
    value = e[key]
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < limit:
        raise TypeError(f"{key}: not a whole number below {limit}")
    return value


def _at(e):
    return f"{_whole(e, 't') / 1000:8.3f}s"


def _who(e, key):
    """``P1``/``P2`` for a player field (0, 1), ``nobody`` for null."""
    return "nobody" if e[key] is None else f"P{_whole(e, key, 2) + 1}"


def describe_event(e):
    ev = e["ev"]
    player = _who(e, "p") if "p" in e else ""
    if ev == "match":
        return f"== match: seed {e['seed']}, best of {e['best_of']}"
    if ev == "deal":
        return f"-- hand {e['hand_no']}: starters {e['piles'][0][0]} | {e['piles'][1][0]}"
    if ev == "play":
        tie = f" (tie {e['tie']})" if "tie" in e else ""
        return f"{_at(e)} {player} plays {e['card']} on pile {e['pile']}{tie}"
    if ev == "draw":
        return f"{_at(e)} {player} draws {e['card']} into slot {_whole(e, 'slot', 99) + 1}"
    if ev == "reject":
        return f"{_at(e)} {player} {e['card']} refused: {e['why']}"
    if ev == "penalty":
        return f"{_at(e)} {player} locked out until {_whole(e, 'until') / 1000:.3f}s"
    if ev == "stall":
        return f"{_at(e)} stall: nobody can play"
    if ev == "redeal":
        return f"{_at(e)} side piles dealt again"
    if ev == "flip":
        return f"{_at(e)} {player} flips {e['card']} onto pile {e['pile']}"
    if ev == "hand_end":
        who = _who(e, "winner")
        return f"{_at(e)} hand over: {who} wins ({e['why']}), cards left {e['left']}"
    if ev == "match_end":
        score = e["score"]
        if not isinstance(score, list) or len(score) != 2:
            raise TypeError("score: not two numbers")
        points = [_whole({"n": n}, "n", 1 << 30) for n in score]
        return f"== match over: {_who(e, 'winner')} wins, score {points[0]}-{points[1]}"
    if ev == "keys":
        return f"   ({len(e['keys'])} key events)"
    return f"   {ev}"


def missing_words(lines):
    """What a saved match lacks, in words: its ``lost`` markers, or its end."""
    import json

    from host_sim.logfile import lost_why

    parts = []
    for line in lines:
        if line.startswith('{"ev":"lost"'):
            marker = json.loads(line)
            parts.append(f"{marker['lines']} lines missing: {lost_why(marker)}")
    if not lines[-1].startswith('{"ev":"match_end"'):
        parts.append("no match_end: the stream ended mid-match")
    return "; ".join(parts)


def save_name(path, index):
    """FILE for the first match saved, FILE-2.ext, FILE-3.ext, ... for the next ones."""
    if index == 1:
        return path
    stem, ext = os.path.splitext(path)
    return f"{stem}-{index}{ext}"


class Monitor:
    def __init__(self, save=None, say=print, matches=0):
        self.decoder = Decoder()
        self.assembler = MatchAssembler()
        self.save = save
        self.say = say
        self.matches = matches  # stop after this many matches saved (0: never)
        self.saved = []  # (path, complete)

    def feed(self, data):
        """Show and keep what ``data`` holds; True once ``matches`` matches are done."""
        return self._items(self.decoder.feed(data))

    def end(self):
        """The stream ended (or Ctrl-C): what is left is shown, a running match saved cut."""
        self._items(self.decoder.end())
        for lines, complete in self.assembler.finish():
            self._save(lines, complete)

    def _items(self, items):
        for item in items:
            text = describe(item)
            if text:
                self.say(text)
            for lines, complete in self.assembler.take(item):
                self._save(lines, complete)
        return bool(self.matches) and len(self.saved) >= self.matches

    def _save(self, lines, complete):
        if not self.save:
            self.saved.append((None, complete))
            return
        path = save_name(self.save, len(self.saved) + 1)
        write_atomically(path, lines)
        self.saved.append((path, complete))
        if complete:
            self.say(f"saved {path}: {len(lines)} lines, a whole match")
        else:
            self.say(
                f"saved {path}: {len(lines)} lines, INCOMPLETE ({missing_words(lines)};"
                " replay will refuse it)"
            )


def run_monitor(args, say):
    check_out_paths(args)
    path = args.port or find_data_port()
    port = open_port(path)
    say(f"monitoring {path} (Ctrl-C to stop)")
    monitor = Monitor(args.save, say, args.matches)
    try:
        for data in read_chunks(port):
            if monitor.feed(data):
                break
        else:
            say("-- the data port closed")
    except KeyboardInterrupt:
        say("-- stopped")
    finally:
        port.close()
        monitor.end()
    return 0 if all(complete for _, complete in monitor.saved) else 1


def add_parsers(sub):
    mon = sub.add_parser("monitor", help="watch the board's match log live (USB data port)")
    mon.add_argument("--port", help="the data port (default: found by USB ids)")
    mon.add_argument("--save", metavar="FILE", help="save each match's log (FILE, FILE-2, ...)")
    mon.add_argument(
        "--matches", type=count_type, default=0, help="stop after N matches (0: never)"
    )


def count_type(text):
    """A count for an option: a whole number 0 <= N < 2**30 (one clear line otherwise)."""
    import argparse

    if not text.strip().isascii() or not text.strip().isdigit() or len(text.strip()) > 9:
        raise argparse.ArgumentTypeError(f"bad count {text!r}: a whole number >= 0")
    return int(text)
