"""The match log's ring (matchlog.py): it holds what waits for the loop's drain, and a pass
that records more than it holds spills: the waiting records are observed and go out to the
log's sink at once, the same lines the drain would have written (so no ring size is pinned
to a worst case, and none loses a line). Without a sink a full ring raises.
"""

import pytest
from conftest import EventQueue, lay_out
from runner import Simulation
from speedduo.game.match import PLAYING, Match
from speedduo.game.rules import Rules
from speedduo.log.keylog import KeyRecorder
from speedduo.log.matchlog import LINE_CAPACITY, LOG_PATIENCE, RING_RECORDS, MatchLog
from speedduo.loop.arbiter import Arbiter
from speedduo.loop.keybatch import BATCH
from speedduo.loop.opponent import KeyEvent
from test_golden_logs import CASES, HERE

_START = 5000  # ticks_ms at the match's time 0
_SLOT_KEYS = (1, 2, 3, 4, 5, 8, 9, 10, 11, 12)  # both players' hand slots (7p + 1..5)
_SMALLEST = 10  # the most records one event writes: a deal of two decks and jokers (1 + 9)


def test_without_a_sink_a_full_ring_raises():
    log = MatchLog()
    assert LOG_PATIENCE < RING_RECORDS
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


def _refused_pass(capacity, sink, observer):
    """R16 with no lock-out time: every press of a full key batch is refused and earns a
    penalty, two records a press besides the key record's, in one loop pass (a ring of
    ``capacity`` records, spilling to ``sink``). Returns what the pass left waiting."""
    log = MatchLog(capacity)
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
    log.sink = sink
    log.observer = observer
    items, last = _refused_batch(match.hand_start)
    assert sum(1 for item in items if item[2]) == 37
    queue = EventQueue(items)
    arbiter = Arbiter(KeyRecorder(queue, log, _START, match), match, _START, KeyEvent())
    for _ in range(LOG_PATIENCE - 1):  # the most that may wait when the pass starts
        log.put_key(0, 1, 1)
    arbiter.service(last + 1)
    assert len(queue) == 0  # the whole batch was read and applied
    return log


def test_a_pass_that_records_more_than_the_ring_holds_spills_the_same_lines():
    """A full key batch of refused presses records 138 records in one pass: the ring
    spills them to the sink, observed first, and the lines are those of a ring that held
    them all."""
    whole = []
    big = _refused_pass(1000, None, None)
    assert big._count - (LOG_PATIENCE - 1) == BATCH + 2 * 37 > RING_RECORDS
    big.drain_into(lambda line: whole.append(bytes(line)))
    spilled = []
    log = _refused_pass(RING_RECORDS, lambda line: spilled.append(bytes(line)), None)
    assert spilled  # it spilled during the pass
    log.drain_into(lambda line: spilled.append(bytes(line)))  # the loop's drain
    assert spilled == whole
    assert sum(1 for line in whole if b'"ev":"penalty"' in line) == 37


def test_a_spill_shows_the_observer_every_record_once():
    seen = []
    log = _refused_pass(RING_RECORDS, lambda line: None, lambda *event: seen.append(event))
    log.observe(lambda *event: seen.append(event))  # the loop's observe, after the pass
    kinds = [event[0] for event in seen]
    assert len(kinds) == 2 * 37  # a reject and a penalty a press; key records are not shown


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_ring_that_spills_at_every_chance_writes_each_golden_log(name, monkeypatch):
    """Each classic golden match with the smallest ring an event fits in: it spills
    whenever a pass records more than 10 records, and the log is the golden one."""
    defaults = MatchLog.__init__.__defaults__
    monkeypatch.setattr(MatchLog.__init__, "__defaults__", (_SMALLEST,) + defaults[1:])
    seed, rules, players, best_of = CASES[name]
    lines = []
    Simulation(seed, Rules(**rules), best_of, players).run(lines.append)
    with open("%s/%s.jsonl" % (HERE, name)) as f:
        assert lines == f.read().splitlines()


def test_two_decks_and_jokers_deal_through_the_smallest_ring():
    """V3/V4: a deal of 106 cards is 10 records, written together: it spills what waits
    first rather than splitting (its line is read from its records in the ring)."""
    deck = bytes((7 * d + 3) % 106 for d in range(106))
    whole = _deal_line(MatchLog(line_room=LINE_CAPACITY), deck)
    log = MatchLog(_SMALLEST, line_room=LINE_CAPACITY)
    lines = []
    log.sink = lambda line: lines.append(line.decode())
    for _ in range(_SMALLEST - 2):
        log.put_flip(0, 0, 0)
    lines.clear()
    log.put_deal(1, len(deck), [deck[k : k + 13] for k in range(0, len(deck), 13)])
    assert len(lines) == _SMALLEST - 2  # the flips went out first
    log.drain(lines.append)
    assert lines[-1] == whole[0]


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
