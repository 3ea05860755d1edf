"""The match log's ring (matchlog.py): it holds what may wait after a redraw and what one
loop pass adds, and a ring that fills raises, so its size and what a pass adds are pinned.

A pass starts with at most LOG_PATIENCE - 1 records waiting (app.App.step drains unless
fewer wait); it adds one KEY record per key event it reads (at most keybatch.BATCH) and
the records of the presses it applies and of the match's clock.
"""

import pytest
from conftest import EventQueue, lay_out
from speedduo.game.match import PLAYING, Match
from speedduo.game.rules import Rules
from speedduo.log.keylog import KeyRecorder
from speedduo.log.matchlog import LOG_PATIENCE, PASS_ROOM, RING_RECORDS, MatchLog
from speedduo.loop.arbiter import Arbiter
from speedduo.loop.keybatch import BATCH
from speedduo.loop.opponent import KeyEvent

_START = 5000  # ticks_ms at the match's time 0
_SLOT_KEYS = (1, 2, 3, 4, 5, 8, 9, 10, 11, 12)  # both players' hand slots (7p + 1..5)


def test_the_ring_is_what_may_wait_and_a_pass_of_room():
    log = MatchLog()
    assert RING_RECORDS == LOG_PATIENCE - 1 + PASS_ROOM
    for _ in range(RING_RECORDS):
        log.put_key(0, 1, 1)
    with pytest.raises(RuntimeError):
        log.put_key(0, 1, 0)


def test_the_log_waits_after_a_redraw_only_while_fewer_than_its_patience_wait():
    log = MatchLog()
    for _ in range(LOG_PATIENCE - 1):
        log.put_key(0, 1, 1)
    assert log.may_wait()
    log.put_key(0, 1, 0)
    assert not log.may_wait()


def _refused_batch(hand_start):
    """A full key batch with as many slot presses as keys allow (a key's presses and
    releases take turns): the ten slot keys pressed, then each released and pressed again,
    every event 30 ms after the one before (longer than the rebounce guard)."""
    items = []
    t = _START + hand_start + 10
    for key in _SLOT_KEYS:
        items.append((t, key, True))
        t += 30
    k = 0
    while len(items) < BATCH:
        key = _SLOT_KEYS[k % len(_SLOT_KEYS)]
        items.append((t, key, False))
        t += 30
        if len(items) < BATCH:
            items.append((t, key, True))
            t += 30
        k += 1
    return items, t


def test_a_pass_of_a_full_key_batch_of_refused_presses_fits_after_what_may_wait():
    """R16 with no lock-out time: every press is refused and earns a penalty, two records a
    press, besides the key record's; the table stalls meanwhile (R9: stall and flips)."""
    log = MatchLog()
    match = Match(2, Rules(penalty=True, penalty_ms=0, stall_countdown_ms=0), 3, log)
    match.pressed(match.hand_start)
    match.advance(match.hand_start)
    assert match.phase == PLAYING
    lay_out(
        match.hand,
        (("9C", "9D", "9H", "9S", "TC"), ("TD", "TH", "TS", "9C", "9D")),
        (("5H",), ("5S",)),
        side=(("2C", "3C", "2D"), ("3D", "2H", "3H")),
    )
    log.drain(lambda line: None)
    items, last = _refused_batch(match.hand_start)
    assert sum(1 for item in items if item[2]) == 37
    queue = EventQueue(items)
    arbiter = Arbiter(KeyRecorder(queue, log, _START, match), match, _START, KeyEvent())
    for _ in range(LOG_PATIENCE - 1):  # the most that may wait when the pass starts
        log.put_key(0, 1, 1)
    arbiter.service(last + 1)
    assert len(queue) == 0  # the whole batch was read and applied
    added = log._count - (LOG_PATIENCE - 1)  # the records waiting
    assert added >= BATCH + 2 * 37  # the worst this test means to play
    assert added <= PASS_ROOM
    lines = []
    log.drain(lines.append)
    assert sum('"ev":"penalty"' in line for line in lines) == 37


def _deal_line(log, deck):
    log.put_deal(1, len(deck), [deck[k : k + 13] for k in range(0, len(deck), 13)])
    lines = []
    log.drain(lines.append)
    return lines


@pytest.mark.parametrize("cards", [52, 106], ids=["one deck", "V3 and V4"])
def test_a_deal_read_across_the_rings_end_is_the_deal_read_in_one_piece(cards):
    """The deal's line is written from its CARDS records where they wait in the ring."""
    deck = bytes((7 * d + 3) % cards for d in range(cards))
    whole = _deal_line(MatchLog(), deck)
    log = MatchLog()
    for _ in range(RING_RECORDS - 2):  # the deal's record and its first card record fit
        log.put_key(0, 1, 1)
    log.drain(lambda line: None)  # (their key entries ride on the next line)
    (line,) = _deal_line(log, deck)
    assert line.startswith(whole[0][:-1] + ',"keys":[')
    assert whole[0].startswith('{"ev":"deal","hand_no":1,"hands":[[') and len(whole) == 1
