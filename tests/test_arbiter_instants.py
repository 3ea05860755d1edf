"""The one arbiter's instants (arbiter.Arbiter._apply_group): what reaches a match's
step_group, for classic Speed's key record (every event read) and version 2's (paired)."""

from conftest import EventQueue
from speedduo.loop.arbiter import REBOUNCE_MS, Arbiter
from speedduo.loop.opponent import KeyEvent
from speedduo.vocab.codes import PLAYING


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


def instants(paired, events, passes):
    """The instants a match gets from ``events`` read in passes at ``passes`` (ms)."""
    match = Match(paired)
    queue = EventQueue(events)
    arbiter = Arbiter(queue, match, 0, KeyEvent())
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
