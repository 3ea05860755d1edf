"""The key record (docs/match-log.md "Key events"): KeyRecorder and its lines.

The recorder stands between the keypad queue and the arbiter: it offers what the
arbiter uses (get_into, a read-only ``overflowed``, len, clear), records each
event read, and marks a loss where the events were lost (reads so far + what
was queued when the flag was first seen) and where the queue was cleared (with
the hand that counted the loss).
Key entries are bounded per line: what does not fit goes out on a ``keys`` line.
"""

import json

import pytest
from speedduo.game.match import Match
from speedduo.game.rules import Rules
from speedduo.host.logport import SEQ_LIMIT, LogPort
from speedduo.log.keylog import KeyRecorder
from speedduo.log.matchlog import KEY_CLEARED, LINE_CAPACITY, ONE_DECK_LINE, MatchLog
from speedduo.vocab.cards import DECK_SIZE, PILE_CAP
from test_replay import _check, _mashing


class _Event:
    key_number = 0
    pressed = False
    timestamp = 0


class _Queue:
    """keypad.EventQueue as on the board: ``overflowed`` is read-only, clear() resets it."""

    def __init__(self, events):
        self.items = list(events)
        self._overflowed = False

    @property
    def overflowed(self):
        return self._overflowed

    def get_into(self, event):
        if not self.items:
            return False
        event.key_number, event.pressed, event.timestamp = self.items.pop(0)
        return True

    def __len__(self):
        return len(self.items)

    def clear(self):
        self.items = []
        self._overflowed = False


def _recorder(events):
    log = MatchLog()
    match = Match(1, Rules(), 3, log)
    log.drain(lambda line: None)
    queue = _Queue(events)
    return KeyRecorder(queue, log, 1000, match), queue, log, match


def _keys(log):
    lines = []
    log.drain(lines.append)
    entries = []
    for line in lines:
        entries.extend(json.loads(line).get("keys", []))
    return entries


def test_a_loss_is_marked_after_what_was_queued_when_the_flag_was_first_seen():
    recorder, queue, log, match = _recorder([(1, True, 1100), (1, False, 1150), (8, True, 1160)])
    event = _Event()
    assert recorder.get_into(event)  # one read before the loss is seen
    queue._overflowed = True  # the queue dropped its newest events
    assert recorder.overflowed and len(recorder) == 2
    while recorder.get_into(event):
        pass
    assert recorder.overflowed  # still up: read-only, only clear() resets it
    recorder.clear()
    assert not recorder.overflowed and not queue.overflowed
    log.match_end(2, (0, 0), None, b"")  # match_end carries the waiting keys
    hand = 0 if match.hand.over else match.hand.hand_no  # the hand the arbiter counts it against
    assert _keys(log) == [[100, 1, 1], [150, 1, 0], [160, 8, 1], [160, -1, 0], [160, -2, hand]]


def test_a_flag_seen_with_an_empty_queue_marks_the_loss_at_once():
    recorder, queue, log, _ = _recorder([(3, True, 1200)])
    event = _Event()
    assert recorder.get_into(event)
    queue._overflowed = True
    assert recorder.overflowed and not len(recorder)
    recorder.clear()
    log.match_end(2, (0, 0), None, b"")
    entries = _keys(log)
    assert [e[1] for e in entries] == [3, -1, -2]


def test_key_entries_beyond_one_line_go_out_on_keys_lines_of_their_own():
    log = MatchLog()
    log.keys_total = 0
    lines = []
    log.sink = lambda line: lines.append(bytes(line))  # the loop's: a full ring spills to it
    for i in range(300):
        log.put_key(268435455 - 300 + i, i % 14, (i // 14) & 1)
        if i % 100 == 99:
            log.put_key(268435455, KEY_CLEARED, 255)
            log.drain_into(log.sink)
    log.match_end(2, (0, 0), None, b"")  # match_end
    log.drain_into(log.sink)
    assert all(len(line) <= LINE_CAPACITY for line in lines)
    objs = [json.loads(line) for line in lines]
    assert [o["ev"] for o in objs[:-1]] == ["keys"] * (len(objs) - 1) and len(objs) > 10
    entries = [e for o in objs for e in o["keys"]]
    assert len(entries) == 303 and objs[-1]["keys_total"] == 303
    assert [o["keys_total"] for o in objs] == sorted(o["keys_total"] for o in objs)


def test_a_mashed_log_with_keys_lines_replays_and_a_moved_keys_line_does_not():
    lines = _mashing(11)
    assert any(line.startswith('{"ev":"keys"') for line in lines)
    assert all(len(line) <= LINE_CAPACITY for line in lines)
    assert _check(lines) is None
    k = next(i for i, line in enumerate(lines) if line.startswith('{"ev":"keys"'))
    swapped = lines[: k - 1] + [lines[k], lines[k - 1]] + lines[k + 1 :]
    assert _check(swapped) is not None
    merged = json.loads(lines[k])  # a keys line that was not full: refused
    merged["keys"] = merged["keys"][:3]
    shortened = lines[:k] + [json.dumps(merged, separators=(",", ":"))] + lines[k + 1 :]
    assert _check(shortened) is not None


class _Port:
    """usb_cdc.data as the log port sees it, keeping the longest write."""

    connected = True
    out_waiting = 0
    write_timeout = None

    def __init__(self):
        self.longest = 0

    def write(self, data):
        self.longest = max(self.longest, len(data))
        return len(data)


@pytest.mark.parametrize(
    "room, cards, longer_than",
    [(ONE_DECK_LINE, DECK_SIZE, 770), (LINE_CAPACITY, PILE_CAP, 1040)],
    ids=["one deck", "V3 and V4"],
)
def test_the_longest_line_fits_its_room_with_the_log_ports_tail(room, cards, longer_than):
    """A deal with a 10-digit hand number, the most key text a line carries (µs entries
    with 13-digit times) and the log port's tab, 9-digit seq and newline."""
    log = MatchLog(micro=True, line_room=room)
    log.keys_total = 999999000
    for i in range(17):  # 17 entries of 23 bytes: with an 18th the text might pass 400
        log.put_key(2147483000 + i, KEY_CLEARED, 255, 999)
    deck = bytes(range(cards))
    log.put_deal(2147483647, cards, [deck[k : k + 13] for k in range(0, cards, 13)])
    wire = _Port()
    port = LogPort(wire)
    port.seq = SEQ_LIMIT - 2  # the next line's seq has 9 digits
    lines = []
    log.drain_into(lambda line: (lines.append(bytes(line)), port.send(line)))
    deal = json.loads(lines[-1])
    assert len(lines) == 1 and deal["ev"] == "deal" and len(deal["keys_us"]) == 17
    assert len(lines[-1]) > longer_than and wire.longest == len(lines[-1]) + 11
    assert wire.longest <= room
