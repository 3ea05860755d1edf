"""Fairness of the input path: who wins when two players race for the same pile.

Two players each hold one card that fits centre pile 0 only (pile 0 shows 5H,
pile 1 shows KC; player 0 holds 4S in slot 0, player 1 holds 6D in slot 0; every
other card in play is a 9 or a 10, which fits nothing). Both press slot 0
(keys 1 and 8), one of them DELTA earlier, and we look at which card landed on
pile 0. The real board code decides: the ``keypad`` shim (scan on the
1/1024 s supervisor tick, timestamps from ``ticks_ms``), our ``Arbiter`` and the
rules core. Each race starts at a random virtual time, uniform over 320 ticks
(= 312.5 ms, a whole number of 1-tick and 20-tick scan periods), which
randomises the scan phase; which player is earlier is drawn 50/50.

Designs compared in the same run:
  ours   scan every tick (interval=0.001), debounce_threshold=1, the Arbiter
         (time order; same-timestamp conflicts alternate).
  naive  scan every 20 ms (interval=0.020, the keypad default), the first press
         in the queue wins (within one scan the queue is in key-number order).

Then debounce_threshold 1 / 3 / 5 with contact bounce (host_sim.buttons,
bounce up to 5 ms) on player 0's button only.

    PYTHONPATH=.:lib .venv/bin/python bench/bench_fairness.py [--races N] [--seed S]
"""

import argparse
import os
import random
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from host_sim import use_board_paths  # noqa: E402

use_board_paths()

import keypad  # noqa: E402  (the host_sim shim)
import vclock  # noqa: E402
from buttons import Buttons  # noqa: E402
from position import set_piles, set_player  # noqa: E402
from speedduo.game.match import PLAYING, Match  # noqa: E402
from speedduo.game.rng import Rng  # noqa: E402
from speedduo.game.rules import Rules  # noqa: E402
from speedduo.log.matchlog import MatchLog  # noqa: E402
from speedduo.loop.arbiter import Arbiter  # noqa: E402

DELTAS_MS = (0, 0.25, 0.5, 1, 2, 5, 10, 20)
BOUNCE_DELTAS_MS = (1, 2, 5)
THRESHOLDS = (1, 3, 5)
KEY_COUNT = 14
SLOT0_KEY = (1, 8)  # player 0 slot 0, player 1 slot 0
PILE0_TOP = 17  # 5H
PILE1_TOP = 51  # KC
RACE_CARD = (12, 22)  # 4S (player 0), 6D (player 1): both fit 5 only
FILLER = (32, 33, 36, 37, 34, 35, 38, 39)  # nines and tens: fit neither 5H nor KC
HOLD_US = 20000
SETTLE_US = 40000  # after the later press: every edge, bounce and debounce is over
RACE_SPACING_US = 500000
PHASE_SPAN_US = 312500  # 320 ticks = 16 scans of 20 ticks


def _discard(line):
    pass


class NaiveArbiter:
    """Baseline: the first press event in the queue plays first (no timestamps, no ties)."""

    def __init__(self, events, match, start_ticks, event):
        self.events = events
        self.match = match
        self._event = event
        self.clock_of = Arbiter(events, match, start_ticks, event)  # only for match_time()

    def service(self, now_ticks):
        match = self.match
        event = self._event
        while self.events.get_into(event):
            now = self.clock_of.match_time(event.timestamp)
            match.advance(now)
            match.pressed(now)
            if not event.pressed or match.phase != PLAYING:
                continue
            k = event.key_number
            p = 0 if k < 7 else 1
            slot = k - 7 * p - 1
            if 0 <= slot <= 4:
                match.hand.play(match.hand_time(now), p, slot)
        match.advance(self.clock_of.match_time(now_ticks) - 1)


class Table:
    """One match on a virtual clock, its hand rewritten into the race position before each race."""

    def __init__(self, design, threshold=1, bounce_us=0, seed=1):
        self.clock = vclock.install(vclock.VirtualClock(0, 0))
        interval = 0.001 if design == "ours" else 0.020
        self.keys = keypad.Keys(
            tuple("key%d" % k for k in range(KEY_COUNT)),
            value_when_pressed=False,
            pull=True,
            interval=interval,
            max_events=64,
            debounce_threshold=threshold,
        )
        self.log = MatchLog()
        self.match = Match(seed, Rules(), 3, self.log)
        cls = Arbiter if design == "ours" else NaiveArbiter
        self.arbiter = cls(self.keys.events, self.match, self.clock.ticks_ms(), keypad.Event())
        # bounce on player 0's button only
        self.buttons = (
            Buttons(self.keys, Rng((seed * 7 + 3) & 0x3FFFFFFF), bounce_us),
            Buttons(self.keys, Rng((seed * 7 + 4) & 0x3FFFFFFF), 0),
        )
        self.base_us = (self.match.countdown_ms + 1000) * 1000
        self.clock.advance_to(self.base_us)
        self.arbiter.service(self.clock.ticks_ms())  # the countdown ends: deal
        self.log.drain(_discard)
        if self.match.phase != PLAYING:
            raise RuntimeError("the first hand did not start")

    def _set_position(self):
        h = self.match.hand
        set_piles(h, bytes([PILE0_TOP]), bytes([PILE1_TOP]))
        for p in range(2):
            slots = bytes([RACE_CARD[p]] + list(FILLER[p * 4 : p * 4 + 4]))
            set_player(h, p, slots, bytes(FILLER[i % 8] for i in range(15)), bytes(FILLER[:5]))
            h.set_target(p, p)

    def race(self, offset_us, delta_us, earlier):
        """Player ``earlier`` closes its contact ``delta_us`` before the other: who won?"""
        self.base_us += RACE_SPACING_US
        self._set_position()
        start = self.base_us + offset_us
        later = 1 - earlier
        self.buttons[earlier].press(earlier, 1, start, HOLD_US)
        self.buttons[later].press(later, 1, start + delta_us, HOLD_US)
        self.clock.advance_to(start + delta_us + SETTLE_US)
        self.arbiter.service(self.clock.ticks_ms())
        self.log.drain(_discard)
        top = self.match.hand.top(0)
        if top == RACE_CARD[0]:
            return 0
        if top == RACE_CARD[1]:
            return 1
        raise RuntimeError("nobody won the race (pile 0 shows card %d)" % top)


def run_races(design, delta_ms, races, rnd, threshold=1, bounce_us=0):
    """Counts: earlier wins (by who was earlier), wins per player, ties, races."""
    table = Table(design, threshold, bounce_us)
    wins_by_player = [0, 0]
    earlier_won = [0, 0]  # indexed by the earlier player
    earlier_count = [0, 0]
    ties_before = table.match.hand.ties
    delta_us = int(round(delta_ms * 1000))
    for _ in range(races):
        earlier = rnd.randrange(2)
        winner = table.race(rnd.randrange(PHASE_SPAN_US), delta_us, earlier)
        wins_by_player[winner] += 1
        earlier_count[earlier] += 1
        if winner == earlier:
            earlier_won[earlier] += 1
    return {
        "wins": wins_by_player,
        "earlier_won": earlier_won,
        "earlier_count": earlier_count,
        "ties": table.match.hand.ties - ties_before,
        "races": races,
    }


def _pct(part, whole):
    return "%.2f%%" % (100.0 * part / whole) if whole else "-"


def print_design_table(title, results):
    print("### " + title)
    print()
    print(
        "| Δ (ms) | earlier press wins | when P1 earlier | when P2 earlier "
        "| P1 share | P2 share | tie rate |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for delta, r in results:
        n = r["races"]
        won = r["earlier_won"][0] + r["earlier_won"][1]
        earlier = "n/a (no earlier)" if delta == 0 else _pct(won, n)
        print(
            "| %s | %s | %s | %s | %s | %s | %s |"
            % (
                delta,
                earlier,
                "-" if delta == 0 else _pct(r["earlier_won"][0], r["earlier_count"][0]),
                "-" if delta == 0 else _pct(r["earlier_won"][1], r["earlier_count"][1]),
                _pct(r["wins"][0], n),
                _pct(r["wins"][1], n),
                _pct(r["ties"], n),
            )
        )
    print()


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--races", type=int, default=10000, help="races per row (default 10000)")
    parser.add_argument("--seed", type=int, default=2024, help="seed of the race randomness")
    args = parser.parse_args(argv)
    if args.races < 1:
        parser.exit(2, "bench_fairness: error: --races must be >= 1\n")
    started = time.perf_counter()
    rnd = random.Random(args.seed)
    print(
        "Fairness benchmark: %d races per row, seed %d, race start uniform over %d µs\n"
        % (args.races, args.seed, PHASE_SPAN_US)
    )
    verdicts = []
    for design, title in (
        ("ours", "Ours: 1 ms scan (interval=0.001), debounce_threshold=1, Arbiter"),
        ("naive", "Naive baseline: 20 ms scan (interval=0.020), first event in the queue wins"),
    ):
        results = []
        for delta in DELTAS_MS:
            results.append((delta, run_races(design, delta, args.races, rnd)))
        print_design_table(title, results)
        if design == "ours":
            for delta, r in results:
                won = r["earlier_won"][0] + r["earlier_won"][1]
                if delta >= 2:
                    ok = won == r["races"]
                    verdicts.append(
                        "Δ=%s ms: earlier wins %s (target 100%%): %s"
                        % (delta, _pct(won, r["races"]), "MET" if ok else "MISSED")
                    )
                if delta == 0:
                    share = 100.0 * r["wins"][0] / r["races"]
                    ok = abs(share - 50.0) <= 1.5
                    verdicts.append(
                        "Δ=0: P1 share %.2f%% (target 50%% ± 1.5%%): %s"
                        % (share, "MET" if ok else "MISSED")
                    )
    print("### Targets (ours)")
    print()
    for line in verdicts:
        print("- " + line)
    print()
    print("### Debounce with contact bounce (ours; bounce up to 5 ms on player 0 only)")
    print()
    print(
        "| debounce_threshold | Δ (ms) | earlier press wins | bouncy P1 earlier "
        "| clean P2 earlier | tie rate |"
    )
    print("|---:|---:|---:|---:|---:|---:|")
    for threshold in THRESHOLDS:
        for delta in BOUNCE_DELTAS_MS:
            r = run_races("ours", delta, args.races, rnd, threshold, 5000)
            won = r["earlier_won"][0] + r["earlier_won"][1]
            print(
                "| %d | %s | %s | %s | %s | %s |"
                % (
                    threshold,
                    delta,
                    _pct(won, r["races"]),
                    _pct(r["earlier_won"][0], r["earlier_count"][0]),
                    _pct(r["earlier_won"][1], r["earlier_count"][1]),
                    _pct(r["ties"], r["races"]),
                )
            )
    print()
    print("elapsed %.1f s" % (time.perf_counter() - started))
    return 0


if __name__ == "__main__":
    sys.exit(main())
