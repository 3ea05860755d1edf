"""The one arbiter's instants (arbiter.Arbiter._apply_group): what reaches a match's
step_group, for classic Speed's key record (every event read) and version 2's (paired)."""

from conftest import EventQueue
from speedduo.loop.arbiter import REBOUNCE_MS, Arbiter
from speedduo.loop.opponent import KeyEvent
from speedduo.vocab.codes import PLAYING
from speedduo.vocab.ticks import one_tick_ms


class Hand:
    def keys_lost(self):
        pass


class Match:
    """A match that records each instant handed to it: (t, [(key, down), ...])."""

    def __init__(self, paired):
        self.KEYS_PAIRED = paired
        self.held = bytearray(14)
        self.group_key = bytearray(64)
        self.group_down = bytearray(64)
        self.phase = PLAYING
        self.hand = Hand()
        self.instants = []
        self.clock = []

    def step_group(self, t, n):
        pairs = [(self.group_key[i], self.group_down[i]) for i in range(n)]
        self.instants.append((t, pairs))

    def advance(self, now):
        self.clock.append(now)


def instants(paired, events, passes, scans=False):
    """The instants a match gets from ``events`` read in passes at ``passes`` (ms)."""
    match = Match(paired)
    queue = EventQueue(events)
    arbiter = Arbiter(queue, match, 0, KeyEvent(), scans=scans)
    for now in passes:
        arbiter.service(now)
    return match.instants


def test_a_release_of_a_key_not_down_reaches_classic_but_not_the_paired_record():
    events = [(100, 3, False)]
    assert instants(False, events, [200]) == [(100, [(3, 0)])]
    assert instants(True, events, [200]) == []


def test_chatter_alone_still_keeps_a_classic_match_awake_but_is_not_recorded_in_version_2():
    chatter = 100 + REBOUNCE_MS - 1
    events = [(50, 3, True), (100, 3, False), (chatter, 3, True)]
    classic = instants(False, events, [300])
    assert classic[-1] == (chatter, [])  # R17: the match hears it, nothing to apply
    assert instants(True, events, [300]) == [(50, [(3, 1)]), (100, [(3, 0)])]


def test_classic_starts_the_rebounce_window_at_a_release_of_a_key_not_down():
    # the chatter's release (key not down) restarts the window: the press after it is chatter
    events = [(50, 3, True), (100, 3, False), (110, 3, True), (115, 3, False), (130, 3, True)]
    classic = instants(False, events, [300])
    assert [pairs for _, pairs in classic if (3, 1) in pairs] == [[(3, 1)]]
    paired = instants(True, events, [300])
    assert paired[-1] == (130, [(3, 1)])  # 30 ms after the last recorded release: a press


def test_a_press_of_a_key_already_down_follows_a_release_of_it_in_both_records():
    events = [(50, 3, True), (400, 3, True)]
    for paired in (False, True):
        assert instants(paired, events, [500])[-1] == (400, [(3, 0), (3, 1)])


def test_an_instant_the_clock_has_passed_goes_to_the_next_millisecond_in_version_2_only():
    late = [(100, 3, True)]
    queue_first = [(300, 4, True)]
    for paired, want in ((False, 100), (True, 302)):
        match = Match(paired)
        queue = EventQueue(queue_first)
        arbiter = Arbiter(queue, match, 0, KeyEvent())
        arbiter.service(302)  # the clock moves on to 301
        queue.items = list(late)  # an event stamped long before, read late
        arbiter.service(400)
        assert match.instants[-1][0] == want


def test_keys_past_the_players_rows_are_not_the_matchs():
    assert instants(False, [(100, 14, True)], [200]) == [(100, [])]
    assert instants(True, [(100, 14, True)], [200]) == []


POWER_ON_TICKS = 0x1FFF0000  # CircuitPython's ticks_ms() at power-on (docs/device.md, Timing)


def ticks_ms_of(raw):
    """CircuitPython's supervisor.ticks_ms() in the 1/1024 s tick ``raw`` since power-on."""
    return (raw * 1000 // 1024 + POWER_ON_TICKS) % (1 << 29)


def test_one_tick_ms_says_which_ticks_ms_values_a_single_1024th_second_tick_carries():
    ticks_per_ms = {}
    for raw in range(70 * 1024):  # past the first wrap of ticks_ms (65.5 s after power-on)
        ms = ticks_ms_of(raw)
        ticks_per_ms[ms] = ticks_per_ms.get(ms, 0) + 1
    del ticks_per_ms[ticks_ms_of(70 * 1024 - 1)]  # the last ms may go on past the range
    assert sorted(set(ticks_per_ms.values())) == [1, 2]
    assert sum(1 for n in ticks_per_ms.values() if n == 2) == 24 * 70  # 24 a second
    assert all(one_tick_ms(ms) == (n == 1) for ms, n in ticks_per_ms.items())


def _stamp(ticks_in_it):
    """A ticks_ms value after the wrap that this many 1/1024 s ticks carry."""
    raw = 66 * 1024
    while True:
        ms = ticks_ms_of(raw)
        if ticks_ms_of(raw + ticks_in_it) != ms and ticks_ms_of(raw - 1) != ms:
            return ms
        raw += 1


def test_with_scans_an_instant_of_a_one_tick_ms_is_played_in_the_pass_that_reads_it():
    t = _stamp(1)
    events = [(t, 3, True), (t, 10, True)]
    assert instants(False, events, [t], scans=True) == [(t, [(3, 1), (10, 1)])]
    assert instants(False, events, [t]) == []  # without: it waits for the next ms
    assert instants(False, events, [t, t + 1]) == [(t, [(3, 1), (10, 1)])]


def test_with_scans_an_instant_of_a_two_tick_ms_still_waits_for_the_next_ms():
    # its second tick's scan may still add a press to the tie
    t = _stamp(2)
    events = [(t, 3, True)]
    assert instants(False, events, [t], scans=True) == []
    assert instants(False, events, [t, t + 1], scans=True) == [(t, [(3, 1)])]
