"""Proof that the play path allocates nothing: each path runs under micropython.heap_lock().

MicroPython only (the unix VM of the venv):

    micropython -X heapsize=320K bench/mp_heap_lock.py ROOT

ROOT is the repository. Every path is set up with the heap unlocked, then run many times with the
heap locked: any allocation raises MemoryError, which is caught inside the
function that locked the heap (a module-level ``except`` would itself allocate).
Each path also runs once more unlocked, and ``micropython.mem_total()`` says
how many bytes the VM allocated meanwhile (on the unix port a call to a function
with more than 11 words of frame takes the frame from the heap when it can and
frees it on return; under heap_lock it falls back to the C stack. CircuitPython
takes frames from its separate pystack instead).

Prints one line per path: ``PASS|FAIL|WRONG name: detail``, then ``ALL PASS``
or ``SOME FAIL``.
"""

import gc
import sys

import micropython

_root = sys.argv[1] if len(sys.argv) > 1 else "."
sys.path[:0] = [_root + "/lib", _root + "/host_sim/shims", _root + "/host_sim"]

from array import array  # noqa: E402

from mp_fakes import FakeEvent, FakeQueue, control_and_verdict, locked  # noqa: E402  (this script's folder)
from mp_selfplay import greedy_hand  # noqa: E402
from null_bus import NullBus  # noqa: E402
from position import set_piles, set_player  # noqa: E402
from speedduo.game.core import INVALID, LATE, LOCKED, PLAYED  # noqa: E402
from speedduo.game.match import OVER, PLAYING, Match  # noqa: E402
from speedduo.game.rules import Rules  # noqa: E402
from speedduo.log.keylog import KeyRecorder  # noqa: E402
from speedduo.log.matchlog import (  # noqa: E402
    EV_DEAL,
    EV_FLIP,
    EV_HAND_END,
    EV_MATCH_END,
    EV_PLAY,
    EV_REDEAL,
    EV_REJECT,
    EV_STALL,
    KEY_CLEARED,
    MatchLog,
)
from speedduo.loop.app import App  # noqa: E402
from speedduo.loop.arbiter import Arbiter  # noqa: E402
from speedduo.loop.opponent import Opponent  # noqa: E402
from speedduo.loop.sound import Sound  # noqa: E402

REPEAT = 200
PILE0_TOP = 17  # 5H
PILE1_TOP = 51  # KC
CARD_P0 = 12  # 4S: fits 5 only
CARD_P1 = 22  # 6D: fits 5 only
FILLER = b"\x20\x21\x24\x25\x22\x23\x26\x27"  # nines and tens: fit neither pile top
PILE0 = bytes([PILE0_TOP])
PILE1 = bytes([PILE1_TOP])
SLOTS_P0 = bytes([CARD_P0]) + FILLER[0:4]
SLOTS_P1 = bytes([CARD_P1]) + FILLER[4:8]
DRAW = FILLER + FILLER[:7]  # 15
SIDE = FILLER[:5]


def new_match(rules, seed=1):
    """A match whose first hand is dealt (match time = hand_start); its log's ring holds
    what the paths record between two drains (up to 100 records; the board's spills
    instead: path_ring_spill)."""
    log = MatchLog(256)
    m = Match(seed, rules, 3, log)
    m.pressed(0)
    m.advance(m.hand_start)
    log.discard()
    return m


def race_position(h, draw_n):
    """Both players hold a card for pile 0 only (slot 0); everything else fits nothing."""
    set_piles(h, PILE0, PILE1)
    set_player(h, 0, SLOTS_P0, DRAW, SIDE, draw_n)
    set_player(h, 1, SLOTS_P1, DRAW, SIDE, draw_n)
    h.log.discard()


# ---- the paths: each returns True when every result was the expected one ----


def path_log_put(m):
    log = m.log
    for i in range(REPEAT):
        log.put_play(i * 1000, 1, 2, 12, 0, 0, 0)
        if i % 100 == 99:
            log.discard()
    log.discard()
    return True


def path_legal_query(m):
    """Hand.first_playable and playable_mask: what bots and screens ask at every step."""
    h = m.hand
    ok = True
    for _i in range(REPEAT):
        race_position(h, 15)
        ok = ok and h.first_playable(0) == 0 and h.playable_mask(1) == 1
    return ok


def path_play_refill(m):
    h = m.hand
    ok = True
    for i in range(REPEAT):
        race_position(h, 15)
        ok = ok and h.play(i, 0, 0) == PLAYED
        ok = ok and h.top(0) == CARD_P0 and h.slot_card(0, 0) != 255  # R7 refilled
    return ok


def path_play_last_cards(m):
    h = m.hand
    ok = True
    for i in range(REPEAT):
        race_position(h, 0)  # no draw pile: the slot empties (R7 has nothing to give)
        ok = ok and h.play(i, 1, 0) == PLAYED and h.slot_card(1, 0) == 255
    return ok


def path_refused_late(m):
    h = m.hand
    ok = True
    for _i in range(REPEAT):
        race_position(h, 15)
        ok = ok and h.play(1000, 0, 0) == PLAYED
        ok = ok and h.play(1010, 1, 0) == LATE  # R8: 5H was covered 10 ms ago
    return ok


def path_refused_invalid(m):
    h = m.hand
    ok = True
    for i in range(REPEAT):
        race_position(h, 15)
        ok = ok and h.play(i, 1, 1) == INVALID  # a nine on 5H / KC
    return ok


def path_penalty(m):
    h = m.hand
    ok = True
    for _i in range(REPEAT):
        race_position(h, 15)
        ok = ok and h.play(1000, 1, 1) == INVALID  # R16: locked out for penalty_ms
        ok = ok and h.play(1500, 1, 0) == LOCKED
        ok = ok and h.play(1600, 0, 0) == PLAYED
    return ok


def path_stall_flip(m):
    h = m.hand
    ok = True
    for _i in range(REPEAT):
        race_position(h, 15)
        h.hand[0] = FILLER[0]
        h.hand[5] = FILLER[1]
        h._update_mask(0)
        h._update_mask(1)
        h.stall_due = 2000
        h.advance(2000)  # R9: both side piles flip
        ok = ok and h.centre_n[0] == 2 and h.centre_n[1] == 2 and h.side_n[0] == 4
    return ok


def path_greedy_hand(m):
    """Whole hands greedily: plays, refills, stalls, flips, redeals (R10), hand end."""
    return greedy_hand(m.hand, False) > 0


def _to_next_deal(m):
    """Finish the hand and advance through result and countdown; False: the match is over."""
    m.finish_hand()
    if m.phase == OVER:
        return False
    m.pressed(m.hand_start)
    m.advance(m.hand_start)
    return True


def path_next_hand(m):
    """Match.finish_hand and Match.advance through result and countdown to the next deal."""
    if not _to_next_deal(m):
        return True
    m.log.discard()
    return m.phase == PLAYING and not m.hand.over


def path_greedy_hand_formatted(m):
    """Whole hands with every line formatted (MatchLog.drain_into), as the board streams them."""
    return greedy_hand(m.hand, True) > 0


def path_next_deal_formatted(m):
    """The next hand's deal line (52 cards in 8 lists) formatted by drain_into."""
    if not _to_next_deal(m):
        return True
    lines = m.log.drain_into(_discard)
    return m.phase == PLAYING and lines >= 1  # the deal line at least


def path_arbiter_tie(arb):
    m = arb.match
    h = m.hand
    ok = True
    now = m.hand_start + 1000
    wins0 = 0
    for _i in range(REPEAT):
        race_position(h, 15)
        now += 100
        batch = arb.batch
        batch.key[0] = 1  # player 0 slot 0
        batch.key[1] = 8  # player 1 slot 0
        batch.down[0] = 1
        batch.down[1] = 1
        batch.at[0] = now
        batch.at[1] = now
        batch.count = 2
        arb._apply_group(0, 2)
        batch.count = 0
        top = h.top(0)
        ok = ok and (top == CARD_P0 or top == CARD_P1)
        if top == CARD_P0:
            wins0 += 1
    return ok and wins0 * 2 == REPEAT  # ties alternate


def path_arbiter_service(arb):
    m = arb.match
    h = m.hand
    q = arb.events
    ok = True
    now = m.hand_start + 1000  # R17: well inside idle_ms of the deal
    for i in range(REPEAT):
        race_position(h, 15)
        now += 100
        first = i & 1  # the earlier player alternates
        q.load(0, 1 + 7 * first, 1, now)
        q.load(1, 8 - 7 * first, 1, now + 2)
        q.load(2, 1 + 7 * first, 0, now + 40)
        q.load(3, 8 - 7 * first, 0, now + 41)
        q.load(4, 1 + 7 * first, 1, now + 45)  # bounce: < REBOUNCE_MS after release
        q.n = 5
        q.i = 0
        arb.service(now + 60)
        want = CARD_P1 if first else CARD_P0
        ok = ok and h.top(0) == want
        h.log.discard()
    return ok


def _view_head_start():
    """Classic Speed's view of a match with H1's leads (0 / 300 ms) on its panel."""
    from speedduo.display.ssd1306 import Panel
    from speedduo.display.view import PlayerView

    panel = Panel(NullBus())
    panel.online = True
    return PlayerView(panel, 1), new_match(Rules(head_start_p2_ms=300), 4)


def path_view_head_start(made):
    """H1: the countdown's leads on page 0, drawn once; the labels and counts back at the
    deal (base_view.View._head_start, PlayerView.update_private)."""
    view, m = made
    h = m.hand
    counts = view._counts
    ok = True
    for _ in range(REPEAT):
        counts[0] = 252  # nothing known: the countdown draws the leads
        ok = ok and view._head_start(m, False) and counts[0] == 251
        ok = ok and view._head_start(m, False)  # (on show: nothing drawn)
        view.update_private(h, m)  # dealt: labels, counts, score
        ok = ok and counts[0] == h.cards_left(1)
    return ok


def path_arbiter_head_start(arb):
    """H1: player 1 has a 150 ms head start; its press 2 ms after player 0's counts first,
    and the match's clock lags the keys' by 150 ms."""
    m = arb.match
    h = m.hand
    q = arb.events
    ok = arb.lag == 150
    now = m.hand_start + 1000  # R17: well inside idle_ms of the deal
    for _ in range(REPEAT):
        race_position(h, 15)
        now += 300
        q.load(0, 1, 1, now)
        q.load(1, 8, 1, now + 2)
        q.load(2, 1, 0, now + 40)
        q.load(3, 8, 0, now + 41)
        q.n = 4
        q.i = 0
        arb.service(now + 60)  # nothing is complete yet: the lag
        arb.service(now + 60 + 150)
        ok = ok and h.top(0) == CARD_P1
        h.log.discard()
    return ok


def path_recorded_service(arb):
    """The board's input path: the arbiter reads through the log's KeyRecorder; overflows."""
    m = arb.match
    h = m.hand
    recorder = arb.events
    q = recorder.events
    ok = True
    now = m.hand_start + 1000
    for i in range(REPEAT):
        race_position(h, 15)
        now += 100
        q.load(0, 1, 1, now)
        q.load(1, 1, 0, now + 40)
        q.load(2, 8, 1, now + 50)
        q.n = 3
        q.i = 0
        q.overflowed = (i & 1) == 1  # every other pass: events were lost
        arb.service(now + 60)
        ok = ok and h.top(0) == CARD_P0 and not q.overflowed
        ok = ok and h.log._count >= 5  # three key records, a play, a draw (and a loss mark)
        ok = ok and h.log.drain_into(_discard) >= 2  # play (with the keys), draw, ...
    return ok


def path_keys_line(m):
    """More key entries than one line carries: a "keys" line of their own, formatted."""
    log = m.log
    log.keys_total = 0
    lines = 0
    for i in range(REPEAT):
        log.put_key(100000000 + i, i % 14, i & 1)
        log.put_key(100000000 + i, KEY_CLEARED, 1)
        if i % 50 == 49:
            lines += log.drain_into(_discard)
    return lines >= 10 and log.keys_total == 2 * REPEAT


def _observed(kind, p, why, t, now):
    pass


def path_ring_spill(m):
    """A pass that records more than the log's ring holds: the ring spills, its records
    observed and their lines formatted to the sink mid-pass (matchlog._spill)."""
    log = m.log
    log.sink = _discard
    log.observer = _observed
    log.keys_total = 0
    for i in range(REPEAT):
        log.put_key(1000 + i, i % 14, i & 1)
        log.put_flip(1000 + i, i & 1, 5)
    log.drain_into(_discard)
    ok = log._count == 0 and log.keys_total == REPEAT
    log.sink = None
    log.observer = None
    return ok


class FakePWM:
    """A pwmio.PWMOut stand-in: the two registers the sound sets, as plain attributes."""

    def __init__(self):
        self.frequency = 1
        self.duty_cycle = 0


# every kind of record that has a tune: (kind, player, why) triples (hand_end: 1 = out;
# player 255: codes.NULL_PLAYER, no player)
_SOUND_EVENTS = bytes(
    (
        EV_DEAL, 0, 0, EV_PLAY, 0, 0, EV_PLAY, 1, 0, EV_REJECT, 1, LATE, EV_REJECT, 0, INVALID,
        EV_STALL, 0, 0, EV_FLIP, 0, 0, EV_REDEAL, 0, 0, EV_HAND_END, 0, 1, EV_HAND_END, 1, 2,
        EV_HAND_END, 255, 3, EV_MATCH_END, 0, 0, EV_MATCH_END, 255, 0,
    )
)  # fmt: skip


def path_sound(sound):
    """Sound.event for every tune, the countdown (a phase change), and update through the
    notes (ticks wrap too)."""
    pwm = sound.pwm
    now = (1 << 29) - 2000  # supervisor.ticks_ms wraps at 2**29 during the run
    sets = 0
    for _i in range(REPEAT // 10):
        for k in range(0, len(_SOUND_EVENTS), 3):
            sound.phase(k & 3)  # COUNTDOWN, PLAYING, RESULT, OVER
            sound.event(_SOUND_EVENTS[k], _SOUND_EVENTS[k + 1], _SOUND_EVENTS[k + 2])
            for _n in range(12):
                sound.update(now)
                if pwm.duty_cycle:
                    sets += 1
                now = (now + 10) & 0x1FFFFFFF
    return sets > REPEAT


def _sound():
    return Sound(FakePWM(), 3)


_clock = array("i", [0])


def _ticks():
    return _clock[0]


def path_app_with_sound(app):
    """App.step on the board's path with the piezo: presses, a play and a late refusal
    (their records observed by the sound), tunes advanced, log lines formatted."""
    m = app.match
    h = m.hand
    q = app.arbiter.events.events
    pwm = app.sound.pwm
    ok = True
    now = m.hand_start + 1000
    for _i in range(REPEAT):
        race_position(h, 15)
        now += 200
        q.load(0, 1, 1, now)  # player 0 plays slot 0 on pile 0
        q.load(1, 8, 1, now + 5)  # player 1 too, 5 ms later: late (R8)
        q.load(2, 1, 0, now + 40)
        q.load(3, 8, 0, now + 45)
        q.n = 4
        q.i = 0
        _clock[0] = now + 60
        app.step()
        ok = ok and h.top(0) == CARD_P0 and pwm.duty_cycle != 0  # the refusal's buzz
        for t in range(80, 200, 20):
            _clock[0] = now + t
            app.step()
    return ok


def _app_with_sound():
    _clock[0] = 0
    app = App(
        FakeQueue(), _ticks, 6, Rules(), 3, _discard, None, 0, event=FakeEvent(), sound=_sound()
    )
    for t in range(0, app.match.hand_start + 100, 20):
        _clock[0] = t
        app.step()  # the countdown, then the deal
    return app


class Ticks:
    """supervisor.ticks_ms for the App: a number the path moves on."""

    def __init__(self):
        self.now = 0

    def ticks_ms(self):
        return self.now


def path_opponent_match(app_ticks):
    """The board's loop (App.step) against the opponent: a whole match to its end.

    Player 0 (the fake queue) presses 1-5 in turn every 200 ms, held 50 ms; the
    opponent plays player 1 through its merged event stream, the key record and
    the arbiter; every line is formatted (drain_into), deals and hand ends too."""
    app, ticks = app_ticks
    q = app.opponent.events
    k = 0
    passes = 0
    while not app.over and passes < 100000:
        passes += 1
        ticks.now += 3
        now = ticks.now
        if now % 200 < 3 and now > 3000:
            q.load(0, 1 + k % 5, 1, now - 1)
            q.load(1, 1 + k % 5, 0, now + 49)
            q.n = 1
            q.i = 0
            k += 1
        elif now % 200 >= 51 and now % 200 < 54 and q.i == 1:
            q.n = 2
        app.step()
    return app.over and app.opponent.presses > 10


def _opponent_app(level, claim="off"):
    ticks = Ticks()
    rules = Rules(claim=claim)
    opponent = Opponent(level, 2, rules.claim_mode)
    # the event the opponent reads the fake queue into (the board glue gives a keypad.Event)
    app = App(
        FakeQueue(), ticks.ticks_ms, 2, rules, 3, _discard, None, 0, opponent, event=FakeEvent()
    )
    return app, ticks


def _recording_arbiter():
    m = new_match(Rules(), 5)
    return Arbiter(KeyRecorder(FakeQueue(), m.log, 0, m), m, 0, FakeEvent())


def _discard(line):
    pass


def control_drain(m):
    """The host's form of draining (each line as a str) allocates, so this must be caught."""
    m.log.put_play(1000, 1, 2, 12, 0, 0, 0)
    m.log.drain(_discard)
    return True


def _bytes_unlocked(work, arg):
    before = micropython.mem_total()
    work(arg)
    return micropython.mem_total() - before


def main():
    classic = Rules()
    penalty = Rules(penalty=True)
    wild = Rules(jokers=True, double_deck=True)  # V3 + V4: 106 cards, the general deal line
    fewer = Rules(hand_slots_p1=3, hand_slots_p2=4)  # H2: the deal moves the missing slots' cards
    arb_match = new_match(classic, 3)
    service_match = new_match(classic, 4)
    paths = (
        ("MatchLog.put_play", path_log_put, lambda: new_match(classic)),
        ("Hand.first_playable + playable_mask", path_legal_query, lambda: new_match(classic)),
        ("Hand.play accepted + refill (R5-R7)", path_play_refill, lambda: new_match(classic)),
        ("Hand.play accepted, no draw left", path_play_last_cards, lambda: new_match(classic)),
        ("Hand.play refused late (R8)", path_refused_late, lambda: new_match(classic)),
        ("Hand.play refused invalid", path_refused_invalid, lambda: new_match(classic)),
        ("Hand.play invalid + locked (R16 on)", path_penalty, lambda: new_match(penalty)),
        ("Hand.advance stall flip (R9)", path_stall_flip, lambda: new_match(classic)),
        ("greedy whole hand (plays, stalls, redeals, end)", path_greedy_hand, classic),
        ("Match.finish_hand + advance to next deal", path_next_hand, classic),
        (
            "greedy whole hand, every line formatted (drain_into)",
            path_greedy_hand_formatted,
            classic,
        ),
        ("next deal line formatted (drain_into)", path_next_deal_formatted, classic),
        ("V3+V4 greedy whole hand, every line formatted", path_greedy_hand_formatted, wild),
        ("V3+V4 next deal line formatted (106 cards)", path_next_deal_formatted, wild),
        ("H2 (3 and 4 hand slots) greedy whole hand (plays, refills)", path_greedy_hand, fewer),
        ("H2 (3 and 4 hand slots) finish_hand + next deal", path_next_hand, fewer),
        (
            "Arbiter._apply_group tie",
            path_arbiter_tie,
            lambda: Arbiter(None, arb_match, 0, FakeEvent()),
        ),
        (
            "Arbiter.service (fake EventQueue)",
            path_arbiter_service,
            lambda: Arbiter(FakeQueue(), service_match, 0, FakeEvent()),
        ),
        (
            "Arbiter.service with a head start (H1: 150 ms)",
            path_arbiter_head_start,
            lambda: Arbiter(FakeQueue(), new_match(Rules(head_start_p2_ms=150), 4), 0, FakeEvent()),
        ),
        (
            "View: H1's leads in the countdown, labels at the deal",
            path_view_head_start,
            _view_head_start,
        ),
        ("Arbiter.service through KeyRecorder, drained", path_recorded_service, _recording_arbiter),
        (
            "App.step against the opponent (hard), whole match",
            path_opponent_match,
            lambda: _opponent_app(3),
        ),
        (
            "App.step against the opponent (easy, V5 race claims), whole match",
            path_opponent_match,
            lambda: _opponent_app(1, "race"),
        ),
        (
            "key entries beyond a line's room (keys lines)",
            path_keys_line,
            lambda: new_match(classic),
        ),
        ("MatchLog ring spilling mid-pass (observed, formatted)", path_ring_spill, classic),
        ("Sound: every tune's event, phase, update", path_sound, _sound),
        ("App.step with sound: presses, play, late, tunes", path_app_with_sound, _app_with_sound),
    )
    failures = 0
    for name, work, make in paths:
        gc.collect()  # each path's match made on a collected heap (a 4 KiB ring needs room)
        if isinstance(make, Rules):  # the match-level paths: several hands of fresh matches
            results = []
            total = 0
            for seed in range(1, 9):
                m = new_match(make, seed)
                if work in (path_next_hand, path_next_deal_formatted):
                    path_greedy_hand(m)
                results.append(locked(work, m))
                m = new_match(make, seed)
                if work in (path_next_hand, path_next_deal_formatted):
                    path_greedy_hand(m)
                total += _bytes_unlocked(work, m)
            result = min(results)
            detail = "8 hands; %d bytes allocated when run unlocked" % total
        else:
            result = locked(work, make())
            detail = "%s; %d bytes allocated when run unlocked" % (
                "a whole match" if work is path_opponent_match else "%d repeats" % REPEAT,
                _bytes_unlocked(work, make()),
            )
        verdict = "PASS" if result == 1 else ("FAIL" if result < 0 else "WRONG")
        if result != 1:
            failures += 1
        print("%s %s: %s" % (verdict, name, detail))
    # the harness must be able to fail: a path known to allocate has to be caught
    caught = locked(control_drain, new_match(classic)) == -1
    control_and_verdict(caught, "MatchLog.drain", failures)


main()
