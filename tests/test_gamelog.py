"""The version 2 log's key record: noted during the press, its text written at the drain
(gamelog.GameLog.key / end), byte for byte what writing it at once gave."""

from speedduo.log.gamelog import GameLog
from speedduo.log.logtext import KEY_TEXT_MAX, KEYS_CAPACITY, key_into, keys_into
from speedduo.vocab.codes import EV_MATCH_END, EV_PLAY


def _lines(log):
    out = []
    log.drain(out.append)
    return out


def _written_at_once(events, line_head):
    """The lines the key events give when each one's text is written as it is read
    (the overflow rule: a ``keys`` line when the next entry might not fit), then one
    event line that starts with ``line_head``."""
    keys = bytearray()
    total = 0
    lines = []
    for t, key, down in events:
        if len(keys) + KEY_TEXT_MAX > KEYS_CAPACITY:
            line = bytearray(b'{"ev":"keys"')
            keys_into(line, keys, total)
            lines.append(bytes(line).decode() + "}")
        key_into(keys, t, key, down)
        total += 1
    line = bytearray(line_head)
    keys_into(line, keys, total)
    lines.append(bytes(line).decode() + "}")
    return lines


def test_many_key_events_give_the_keys_lines_and_the_record_written_at_once():
    events = [(100000 + 7 * i, i % 14, i % 2) for i in range(100)]
    log = GameLog()
    for t, key, down in events:
        log.key(t, key, down)
    log.begin(EV_PLAY, 5)
    log.end()
    assert _lines(log) == _written_at_once(events, b'{"ev":"play","t":5')


def test_a_key_event_after_a_line_ended_rides_on_the_next_line():
    log = GameLog()
    log.key(10, 3, 1)
    log.begin(EV_PLAY, 10)
    log.end()
    log.key(11, 3, 0)  # read before the drain: not the ended line's
    log.begin(EV_PLAY, 11)
    log.end()
    assert _lines(log) == [
        '{"ev":"play","t":10,"keys":[[10,3,1]],"keys_total":1}',
        '{"ev":"play","t":11,"keys":[[11,3,0]],"keys_total":2}',
    ]


def test_a_line_without_key_events_gets_no_key_fields_but_the_match_end_does():
    log = GameLog()
    log.begin(EV_PLAY, 4)
    log.end()
    log.begin(EV_MATCH_END, -1)
    log.end()
    assert _lines(log) == ['{"ev":"play","t":4}', '{"ev":"match_end","keys_total":0}']
