"""Replay: check a match log of any version against the rules by playing its key events
again (``replay_file``, the one entry point; the log's first line says its version).

A log holds every key event the board's loop read (the fields ``keys`` and
``keys_total``, see README "The match log"), so nothing has to be guessed:

1. every line is read and its fields type-checked (``read_entries``, through
   ``logfile.parse_lines``): anything malformed is a one-line ``LogError`` (exit
   status 2);
2. the key record is checked (``check_record``): time never runs backwards along
   it, no key event is missing or duplicated (``keys_total``), each key alternates
   press and release unless the keypad queue overflowed in between;
3. the key events are fed, at their timestamps, through the real rules, and every
   regenerated line must equal the file's (``compare``).

2 and 3 end in a named divergence (exit status 1): the first line that is not
what the rules produce at that instant.

What differs per version, and only that, is named where it lives: version 1 (classic
Speed, MATCH-LOG.md) has its fields in ``logfile.FIELDS``, its own record checks
(``_Hands``: hands in order, time forwards within a hand, the keypad's scans), its
regeneration through classic Speed's arbiter and match (``replay_events``, the key
fields put back by ``replay_lines``) and where each key event rides (``check_rides``);
version 2 (the other games, docs/match-log.md) has its fields and its regeneration
through ``GameSession`` in ``replay_games.py``.
"""

import json

from host_sim import use_board_paths
from host_sim.logfile import (
    clip,
    compact_json,
    decode_log,
    hand_slots_of,
    head_start_of,
    parse_log,
    read_bytes,
)

use_board_paths()

from speedduo.game.match import COUNTDOWN_MS, OVER, Match  # noqa: E402
from speedduo.game.rules import HAND_SLOT_OPTIONS, HANDICAPS, Rules  # noqa: E402
from speedduo.log.matchlog import (  # noqa: E402
    KEY_TEXT_MAX,
    KEY_US_TEXT_MAX,
    KEYS_CAPACITY,
    MatchLog,
)
from speedduo.loop.arbiter import Arbiter  # noqa: E402
from speedduo.vocab.codes import KEYS_PER_PLAYER  # noqa: E402

_TICKS_MASK = (1 << 29) - 1
_MAX_MATCH_MS = 1 << 28  # ticks_diff's range: longer than any match R17 lets run
# The longest pass of the board's loop: a key event rides on a line of an instant at most
# this long before it (check_rides). Measured: a few ms for a play (step_us_p99), 32 ms
# for a pass that answers the host's `stats` (docs/link.md); the simulator's tests run
# loops of up to 60 ms.
PASS_MAX_MS = 100
_OVERFLOW = -1  # key number of a "the keypad queue overflowed" entry
_CLEARED = -2  # ... of "the queue was cleared": the window of unseen losses ends


class KeyEvent:
    """A key event of a log's key record, as keypad.Event holds one."""

    def __init__(self, key_number, pressed, timestamp, sub_us=0):
        self.key_number = key_number
        self.pressed = pressed
        self.timestamp = timestamp
        self.sub_us = sub_us  # µs past the ms (a µs log's)


class KeyQueue:
    """Just enough of keypad.EventQueue for the arbiter and the App: the log's key
    events, appended to ``items`` as the replay's time comes to them."""

    def __init__(self):
        self.items = []
        self.overflowed = False

    def get_into(self, event):
        if not self.items:
            return False
        item = self.items.pop(0)
        event.key_number = item.key_number
        event.pressed = item.pressed
        event.timestamp = item.timestamp
        event.sub_us = item.sub_us
        return True

    def __len__(self):
        return len(self.items)

    def clear(self):
        self.items = []
        self.overflowed = False


class ReplayError(ValueError):
    """The log cannot be replayed at all (exit status 2)."""


class Divergence(Exception):
    """The log is not what the rules produce: ``line`` (1-based) and why."""

    def __init__(self, line, why, detail=""):
        super().__init__(f"line {line} diverges: {why}" + detail)
        self.line = line


def rules_from_log(match_obj):
    rules = Rules()
    for name, value in match_obj["rules"].items():
        if name in HANDICAPS:  # (not in the rules object: its own field)
            raise ReplayError(f"line 1: rule {name}: the head start is the field head_start_ms")
        if name in HAND_SLOT_OPTIONS:  # H2, the same
            raise ReplayError(f"line 1: rule {name}: the hand slots are the field hand_slots")
        try:
            rules.set(name, value)
        except (ValueError, TypeError) as e:
            raise ReplayError(f"line 1: rule {name}: {e}") from None
    rules.head_start_p1_ms, rules.head_start_p2_ms = head_start_of(match_obj)  # H1
    rules.hand_slots_p1, rules.hand_slots_p2 = hand_slots_of(match_obj)  # H2
    return rules


def check_record(entries, hands=None, leads=(0, 0)):
    """Step 2, the key record (every version): time runs forwards along it, no key event
    is missing or duplicated (``keys_total``), each key alternates press and release
    unless the keypad queue lost events in between (version 1's loss marks), a ``keys``
    line (the events that did not fit on the next line) is full and followed by more.
    ``hands``: a version's own check of each line, made before its key events' (version
    1: ``_Hands``, hands in order and time forwards within each). ``leads``: H1's, ms by
    player, when the record is in the order of the instants (version 2): each event's
    time less its player's lead runs forwards.

    Returns (key events [(t, key, pressed)], overflows counted per hand_no).
    """
    unit = 1000 if is_micro(entries) else 1  # the key times' (µs or ms)
    room = KEY_US_TEXT_MAX if unit > 1 else KEY_TEXT_MAX
    keys = []
    overflows = {}
    total = 0
    state = {}  # key -> last pressed flag, while no overflow intervened
    lossy = False  # between a loss mark and the queue's clearing: more may be lost unseen
    key_t = 0
    hand_no = 0
    # version 1 may begin a key's record with its release; version 2's loop records a
    # release only of a key it saw pressed
    first = None if hands is not None else 0
    for number, (_, obj) in enumerate(entries, 1):
        ev = obj["ev"]
        if hands is not None:
            hand_no = hands.line(number, obj, len(entries))
        if ev == "keys":
            if number < len(entries) and "keys" not in entries[number][1]:
                raise Divergence(number, "a keys line not followed by more key events")
            if len(compact_json(obj["keys"])) - 2 + room <= KEYS_CAPACITY:
                raise Divergence(number, "a keys line with room for more key events")
        elif ev == "match" and ("keys" in obj or "keys_total" in obj):
            raise Divergence(number, "key events before the match began")
        for t, key, pressed in obj.get("keys", ()):
            at = t
            if 0 <= key < 2 * KEYS_PER_PLAYER:
                at -= leads[key // KEYS_PER_PLAYER] * unit  # H1: its instant's time
            if at < key_t:
                raise Divergence(number, f"key time runs backwards: {at} after {key_t}")
            key_t = at
            total += 1
            if key == _OVERFLOW:  # [t, -1, 0]: events were lost here
                if lossy:
                    raise Divergence(number, f"a second loss at {t} before the queue cleared")
                lossy = True
                state.clear()  # lost events: any key may be up or down now
                continue
            if key == _CLEARED:  # [t, -2, hand that counted the loss (0: none)]
                if not lossy:
                    raise Divergence(number, f"the keypad queue cleared at {t} with no loss")
                lossy = False
                state.clear()
                if pressed > hand_no:
                    raise Divergence(number, f"events lost in hand {pressed}, not dealt yet")
                if pressed:
                    overflows[pressed] = overflows.get(pressed, 0) + 1
                continue
            if not lossy and state.get(key, first) == pressed:
                what = "pressed" if pressed else "released"
                raise Divergence(number, f"key {key} {what} twice in a row at {t}")
            state[key] = pressed
            keys.append((t, key, pressed))
            if hands is not None and unit == 1:  # (the keypad's scans; not the PIO's)
                hands.scans.note(t, key, number)
        if "keys_total" in obj and obj["keys_total"] != total:
            raise Divergence(
                number,
                f"keys_total is {obj['keys_total']} but the log lists {total} key events so far"
                " (key events are missing or duplicated)",
            )
        if "keys" in obj and "keys_total" not in obj:
            raise Divergence(number, "keys without keys_total")
        if "keys_total" in obj and "keys" not in obj and ev != "match_end":
            raise Divergence(number, "keys_total without key events (only match_end has one)")
    if key_t >= _MAX_MATCH_MS * unit:
        raise Divergence(len(entries), f"a key time of {key_t // unit} ms is beyond any match")
    if hands is not None:
        hands.scans.check()
    if "keys_total" not in entries[-1][1]:
        raise ReplayError(
            f"line {len(entries)}: match_end has no keys_total: a log written without its"
            " key events cannot be checked"
        )
    return keys, overflows


class _Hands:
    """Version 1's own record checks: hands numbered 1, 2, ..., each ``deal`` ...
    ``hand_end``, time forwards within a hand, no key event on a draw line (it rides
    on its play line), and the keypad's scans (``_Scans``)."""

    def __init__(self):
        self.hand_no = 0
        self.in_hand = False
        self.last_t = None
        self.scans = _Scans()

    def line(self, number, obj, count):
        """Check line ``number`` (of ``count``); the hand it is in."""
        ev = obj["ev"]
        if ev == "deal":
            if self.in_hand:
                raise Divergence(number, f"hand {self.hand_no} has no hand_end before this deal")
            if obj["hand_no"] != self.hand_no + 1:
                raise Divergence(number, f"hand {obj['hand_no']} dealt after hand {self.hand_no}")
            self.hand_no = obj["hand_no"]
            self.in_hand = True
            self.last_t = None
        elif ev == "match_end":
            if number != count:
                raise Divergence(number, "match_end before the last line")
            if self.in_hand:
                raise Divergence(number, f"the match ends inside hand {self.hand_no}")
        elif ev not in ("match", "keys"):
            if not self.in_hand:
                raise Divergence(number, f"{ev} outside a hand (no deal before it)")
            t = obj["t"]
            if self.last_t is not None and t < self.last_t:
                raise Divergence(number, f"time runs backwards: t={t} after t={self.last_t}")
            self.last_t = t
            if ev == "hand_end":
                self.in_hand = False
        if ev == "draw" and ("keys" in obj or "keys_total" in obj):
            raise Divergence(number, "key events on a draw line (they go on its play line)")
        return self.hand_no


def _first_tick(ms):
    """The first 1/1024 s tick whose ticks_ms is ``ms`` (ticks_ms = tick * 1000 // 1024)."""
    return (ms * 1024 + 999) // 1000


class _Scans:
    """The keypad's timing: can each key event have had a scan of its own?

    A key changes at most once per scan and the events of one scan come in
    key-number order, all stamped with that scan's ticks_ms. On the board
    (docs/device.md "Timing") the scans come every ~990 µs from the tick
    interrupt, each stamped with the ms of the 1/1024 s tick it falls in, and
    never two in one tick (989.6-993 µs apart > 976.6 µs); the simulator scans
    on every tick. Either way two scans share a millisecond only when it holds
    two ticks (24 in every 1000), and which ones do depends only on the tick
    the match started at (128 possibilities, the pattern repeats every 125 ms;
    match times are tick differences, so the 2**29 wrap of ticks_ms does not
    move it). Events that need two scans in one millisecond must all fall on
    two-tick milliseconds of one of them; none needs three.
    """

    def __init__(self):
        self.ms = -1
        self.last_key = -1
        self.scans = 0
        self.doubles = []  # (ms, line) needing two scans

    def note(self, t, key, line):
        if t != self.ms:
            self.ms, self.last_key, self.scans = t, key, 1
            return
        if key <= self.last_key:  # the same key again, or out of key order: a later scan
            self.scans += 1
            if self.scans > 2 and t > 0:  # ms 0 also holds events from before the start
                raise Divergence(line, f"key events at {t} ms need {self.scans} keypad scans")
            if self.scans == 2 and t > 0:
                self.doubles.append((t, line))
        self.last_key = key

    def check(self):
        starts = list(range(128))  # the board's tick at the match's start, modulo 128
        for ms, line in self.doubles:
            starts = [a for a in starts if _two_ticks(ms + a * 1000 // 1024)]
            if not starts:
                raise Divergence(
                    line,
                    f"key events at {ms} ms need two keypad scans in that millisecond, which"
                    " has one (with every other such millisecond of this log)",
                )


def _two_ticks(ms):
    return _first_tick(ms + 1) - _first_tick(ms) == 2


def replay_events(entries, spans=None):
    """Step 3: the lines the rules produce for the log's key events (without key fields).

    ``spans``: a list that gets, for each key event in order, the (first, last) index
    into those lines of the lines it may ride on (``check_rides``)."""
    header = entries[0][1]
    rules = rules_from_log(header)
    keys, overflows = check_record(entries, _Hands())
    out = []
    unit = 1000 if is_micro(entries) else 1  # the key times' (µs or ms)
    log = MatchLog(micro=unit > 1)
    log.sink = lambda line: out.append(bytes(line).decode())  # a full ring's, as the board's
    match = Match(header["seed"], rules, header["best_of"], log)
    hand = match.hand
    deal = hand.deal

    def deal_counting_overflows(rng, hand_no):
        deal(rng, hand_no)
        hand.overflows = overflows.get(hand_no, 0)  # lost key events, as the board counted

    hand.deal = deal_counting_overflows
    queue = KeyQueue()
    arbiter = Arbiter(queue, match, 0, KeyEvent(0, False, 0), unit > 1)
    # Loop passes at each key event's time (every instant before it is complete: nothing
    # before it is held back; with µs stamps, at its µs: an event of the same ms but a
    # later µs may be read by a later pass than an earlier one's), and with ``spans``
    # also PASS_MAX_MS + 1 before each: any pass may come between two events, and the
    # lines are the same. Pass times are in the key times' unit.
    times = [t for t, _, _ in keys]
    passes = set(times)
    back = (PASS_MAX_MS + 1) * unit
    if spans is not None:
        passes.update(t // unit * unit - back for t in times if t // unit > PASS_MAX_MS)
    if times:  # (H1: the match's clock lags the keys' by the largest lead)
        passes.add((times[-1] // unit + 1 + arbiter.lag) * unit)
    written = {}  # pass time -> lines written by then (every instant before it)
    i = 0
    for at in sorted(passes):
        ms = at // unit
        arbiter.service(ms & _TICKS_MASK)
        log.drain(out.append)
        written[at] = len(out)
        while i < len(keys) and times[i] == at:
            t, key, pressed = keys[i]
            queue.items.append(KeyEvent(key, pressed == 1, ms & _TICKS_MASK, t - ms * unit))
            i += 1
    if spans is not None:
        spans.extend((written.get(t // unit * unit - back, 0), written[t]) for t in times)
    while match.phase != OVER:
        match.advance(match.next_due())
        log.drain(out.append)
    log.drain(out.append)
    return out


def check_rides(entries, spans):
    """Each key event rides on the first line written after the loop pass that read it.

    A pass reads every event stamped before it began, so the line is no later than
    the first line of an instant at or after the event's time (the rules write that
    line in a pass that began after it). A pass lasts at most PASS_MAX_MS, and the
    line is the first the reading pass wrote, so it is of an instant no earlier than
    PASS_MAX_MS before the event (the rules write the lines in a fixed order, so an
    index into them stands for an instant). Raises Divergence for the first event
    that rides elsewhere."""
    numbers = [n for n, (_, obj) in enumerate(entries, 1) if obj["ev"] != "keys"]
    unit = "µs" if is_micro(entries) else "ms"  # the key times'

    index = 0  # the key event's place in the record (loss marks are not events)
    position = 0  # the rules' line the event rides on (a keys line's: the next line's)
    for number, (_, obj) in enumerate(entries, 1):
        for t, key, pressed in obj.get("keys", ()):
            if key < 0:
                continue
            first, last = spans[index]
            index += 1
            event = compact_json([t, key, pressed])
            if position > last:
                raise Divergence(
                    number,
                    f"key event {event} rides here, but the first line written after it"
                    f" (at {t} {unit}) is line {numbers[min(last, len(numbers) - 1)]}",
                )
            if position < first:
                raise Divergence(
                    number,
                    f"key event {event} rides here, more than one loop pass"
                    f" ({PASS_MAX_MS} ms) before it happened (at {t} {unit})",
                )
        if obj["ev"] != "keys":
            position += 1


def _with_keys(line, obj, field="keys"):
    """A regenerated line with the key fields the file gives for it (compact, at the end;
    ``field``: ``keys_us`` in a µs log)."""
    if obj["ev"] == "match_end" and "late_us" in obj:  # the board's reader's, not the rules'
        line = line[:-1] + ',"late_us":%d}' % obj["late_us"]
    if "keys_total" not in obj:
        return line
    extra = ""
    if "keys" in obj:
        extra += ',"%s":' % field + compact_json(obj["keys"])
    return line[:-1] + extra + ',"keys_total":%d}' % obj["keys_total"]


def replay_lines(entries, spans=None):
    """The regenerated log: each line with the key fields of the file's line at its place,
    and the file's ``keys`` lines (key events only) where the file has them. ``spans``:
    as for ``replay_events``."""
    out = iter(replay_events(entries, spans))
    field = "keys_us" if is_micro(entries) else "keys"
    lines = []
    for _, obj in entries:
        if obj["ev"] == "keys":  # key events only: its fields are the file's, checked
            lines.append(_with_keys('{"ev":"keys"}', obj, field))  # (nothing else on it)
            continue
        regenerated = next(out, None)
        if regenerated is None:
            return lines
        lines.append(_with_keys(regenerated, obj, field))
    lines.extend(out)  # what the rules produce after the file's end
    return lines


def version(entries):
    """The log's version (its first line's ``v``: 1 classic Speed, 2 the other games)."""
    return entries[0][1]["v"]


def check_entries(entries, path="log"):
    """Raise Divergence naming the first line the rules do not produce; else return None
    (``path``: the file's, for a LogError about its first line).
    What differs per version: how the lines are made again (version 1: classic Speed's
    arbiter and match, the key fields put back, then where each key event rides,
    ``check_rides``; version 2: ``replay_games.regenerate_lines``)."""
    if version(entries) == 1:
        spans = []
        compare(entries, replay_lines(entries, spans))
        check_rides(entries, spans)
        return
    from host_sim.replay_games import regenerate_lines

    keys, _ = check_record(entries, leads=head_start_of(entries[0][1]))
    compare(entries, regenerate_lines(entries[0][1], keys, path, entries[-1][1]))


def compare(entries, regenerated):
    """Raise Divergence at the first line of the file that is not the regenerated one's."""
    for number, (line, _) in enumerate(entries, 1):
        if number > len(regenerated):
            raise Divergence(number, "the replay ended before it", f"\n  log:    {clip(line)}")
        if regenerated[number - 1] != line:
            raise Divergence(
                number,
                "the rules produce another event here",
                f"\n  log:    {clip(line)}\n  replay: {clip(regenerated[number - 1])}",
            )
    if len(regenerated) > len(entries):
        raise Divergence(
            len(entries),
            "the log ends before the replay",
            f"\n  replay: {clip(regenerated[len(entries)])}",
        )


def is_version_2(data):
    """Does this log's first line say version 2 (the other games)?"""
    first = data.split(b"\n", 1)[0]
    try:
        obj = json.loads(first)
    except (ValueError, RecursionError):
        return False
    return isinstance(obj, dict) and obj.get("ev") == "match" and obj.get("v") == 2


def read_entries(path, data=None):
    """The [(line, obj)] of a log of either version, every field type-checked (version 1:
    ``logfile.parse_log``; version 2: ``replay_games.parse_games_log``, whose fields
    depend on the game); ``data``: the file's bytes, when read already (a FIFO reads
    once). LogError when it cannot be read."""
    if data is None:
        data = read_bytes(path)
    text = decode_log(data, path)
    if is_version_2(data):
        from host_sim.replay_games import parse_games_log

        return parse_games_log(text, path)
    return parse_log(text, path)


def is_micro(entries):
    """Are the log's key events stamped in µs (the PIO's edge stamps, issue 19)? Its match
    line says ``"stamped_by":"pio"`` and its key record is ``keys_us`` (docs/match-log.md)."""
    return entries[0][1].get("stamped_by") == "pio"


def rides_ahead(entries):
    """Does a key event of a version 1 log with no ``head_start_ms`` ride on a line of hand
    1 more than one loop pass before it happened? Only a match's clock lagging the keys'
    (H1) makes that: the hint that the field was removed (``check_rides`` would refuse the
    line too, but the presses' order diverges first)."""
    if "head_start_ms" in entries[0][1]:
        return False
    unit = 1000 if is_micro(entries) else 1
    for _, obj in entries[1:]:
        if obj["ev"] == "hand_end":
            return False
        if "t" not in obj:
            continue
        for t, key, _ in obj.get("keys", ()):
            if key >= 0 and t // unit - (COUNTDOWN_MS + obj["t"]) > PASS_MAX_MS:
                return True
    return False


def draws_from_hands(entries):
    """Does a version 1 log with no ``hand_slots`` draw into a slot a card its deal line put
    in that player's hand? Only fewer hand slots (H2) make that (the missing slots' cards
    lie on the draw pile): the hint that the field was removed."""
    if "hand_slots" in entries[0][1]:
        return False
    hands = None
    for _, obj in entries[1:]:
        if obj["ev"] == "deal":
            hands = obj["hands"]
        elif obj["ev"] == "draw" and hands is not None and obj["card"] in hands[obj["p"]]:
            return True
    return False


def replay_file(path, data=None):
    """(ok, message): a log of either version checked against the rules; LogError or
    ReplayError when it cannot be read or replayed at all."""
    entries = read_entries(path, data)
    try:
        check_entries(entries, path)
    except Divergence as e:
        slots = entries[0][1].get("hand_slots")
        if slots:  # H2: how many cards each hand holds comes from the field
            return False, (
                f"{path}: {e}\n  (the hands hold line 1's hand_slots {compact_json(slots)}"
                " cards: a log whose hand slots were altered diverges)"
            )
        if version(entries) == 1 and draws_from_hands(entries):
            return False, (
                f"{path}: {e}\n  (a card the deal put in a hand slot is drawn from the draw"
                " pile, as only fewer hand slots make it: a match with fewer cards says so"
                " in line 1's hand_slots: was it removed?)"
            )
        leads = entries[0][1].get("head_start_ms")
        if leads:  # H1: the order the log's presses were applied in comes from the field
            return False, (
                f"{path}: {e}\n  (the presses are ordered by line 1's head_start_ms"
                f" {compact_json(leads)}: a log whose head start was altered diverges)"
            )
        if version(entries) == 1 and rides_ahead(entries):  # H1, as version 2's below
            return False, (
                f"{path}: {e}\n  (key events ride on lines of hand 1 more than one loop pass"
                f" ({PASS_MAX_MS} ms) before they happened, as only a head start makes them:"
                " a match with a head start says so in line 1's head_start_ms: was it removed?)"
            )
        if version(entries) == 2 and "key time runs backwards" in str(e):
            return False, (  # (only a head start puts a later press's instant first)
                f"{path}: {e}\n  (a match with a head start says so in line 1's"
                " head_start_ms: was it removed?)"
            )
        return False, f"{path}: {e}"
    return True, f"{path}: {len(entries)} lines replayed identically"
