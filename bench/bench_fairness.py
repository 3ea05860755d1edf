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

``--device`` (issue 19): the same race on CircuitPython itself (the emulated Pico and
its firmware files, docs/device.md), the buttons stamped by the PIO (``edge_program.py``,
``edges.py``): one boot runs a ``code.py`` that sets the race position, lets the real
``Arbiter`` (µs order) and rules core settle each race and prints who won; the harness presses the
two buttons at the scheduled µs: Δ = 5, 20, 100 and 500 µs, each race at a random
phase within a millisecond, the earlier player drawn 50/50, and exact-µs ties (Δ = 0),
which alternate from ``tie_first``. About 2-4 minutes of wall time.

    SPEEDDUO_DEVICE_DIR=<firmware> PYTHONPATH=.:lib .venv/bin/python bench/bench_fairness.py \
        --device [--races N] [--seed S] [--deploy mpy|py]
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
    ties_before = table.match.ties
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
        "ties": table.match.ties - ties_before,
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


DEVICE_DELTAS_US = (5, 20, 100, 500, 0)
DEVICE_FIRST_US = 6_000_000  # the first race: code.py is up and waiting by then
DEVICE_SPACING_US = 300_000  # one race, its releases, the next position
SLOT0_GPIO = (7, 17)  # keys 1 and 8 (pins.BUTTON_PINS)

DEVICE_CODE = """import board
import supervisor
from speedduo.vocab.codes import PLAYING
from speedduo.game.match import Match
from speedduo.game.rules import Rules
from speedduo.log.matchlog import MatchLog
from speedduo.loop.arbiter import Arbiter
from speedduo.loop.edge_program import start
from position import set_piles, set_player

reader = start(board, supervisor.ticks_ms)
print("fair-device reader", reader is not None)
log = MatchLog(micro=True)
match = Match(1, Rules(), 3, log)
arbiter = Arbiter(reader, match, supervisor.ticks_ms(), reader.Event(), True)


def drain(line):
    pass


def step():
    arbiter.service(supervisor.ticks_ms())
    log.drain(drain)


while match.phase != PLAYING:
    step()
hand = match.hand
FILLER = bytes((32, 33, 36, 37, 34, 35, 38, 39))
SLOTS = (bytes((%(card0)d,)) + FILLER[0:4], bytes((%(card1)d,)) + FILLER[4:8])
DRAW = FILLER + FILLER[:7]
print("fair-device ready", match.tie_next, supervisor.ticks_ms())  # (no tie yet: tie_first)
for i in range(%(races)d):
    set_piles(hand, bytes((%(pile0)d,)), bytes((%(pile1)d,)))
    for p in range(2):
        set_player(hand, p, SLOTS[p], DRAW, FILLER[:5])
        hand.set_target(p, 0)
    while hand.top(0) == %(pile0)d:
        step()
    won = 0 if hand.top(0) == %(card0)d else 1 if hand.top(0) == %(card1)d else 9
    t = supervisor.ticks_ms()
    while (supervisor.ticks_ms() - t) & 0x1FFFFFFF < 120:  # the other press, the releases
        step()
    print("fair-device race", i, won, match.ties)
print("fair-device done")
"""


def device_schedule(races_per_case, rnd):
    """[(t_us, delta_us, earlier)] for every race, shuffled: ``races_per_case`` of each
    Δ of DEVICE_DELTAS_US and each order (Δ = 0: the same instant, ``earlier`` 0)."""
    cases = []
    for delta in DEVICE_DELTAS_US:
        for earlier in (0, 1) if delta else (0,):
            cases += [(delta, earlier)] * races_per_case * (1 if delta else 2)
    rnd.shuffle(cases)
    return [
        (DEVICE_FIRST_US + i * DEVICE_SPACING_US + rnd.randrange(1000), delta, earlier)
        for i, (delta, earlier) in enumerate(cases)
    ]


def run_device(races_per_case, rnd, deploy):
    """The races on the firmware: [(delta, earlier, winner, ties)] and the tie_first."""
    import tempfile

    from host_sim import device_run

    races = device_schedule(races_per_case, rnd)
    buttons = []
    for t, delta, earlier in races:
        first, second = SLOT0_GPIO[earlier], SLOT0_GPIO[1 - earlier]
        buttons += [[t, first, True], [t + delta, second, True]]
        buttons += [[t + 50_000, first, False], [t + 50_000 + delta, second, False]]
    buttons.sort(key=lambda edge: edge[0])
    code = DEVICE_CODE % {
        "races": len(races),
        "card0": RACE_CARD[0],
        "card1": RACE_CARD[1],
        "pile0": PILE0_TOP,
        "pile1": PILE1_TOP,
    }
    firmware = device_run.find_firmware(need_mpy_cross=deploy == "mpy")
    with tempfile.TemporaryDirectory() as work:
        files = device_run.drive_files(
            "SPEED_PROFILE = 0\n", deploy, firmware.get("mpy-cross"), os.path.join(work, "b")
        )
        with open(os.path.join(ROOT, "host_sim", "position.py"), "rb") as f:
            files = [f for f in files if f[0] != "code.py"] + [
                ("lib/position.py", f.read()),
                ("code.py", code.encode()),
            ]
        gpios = [6, 7, 8, 9, 10, 11, 12, 16, 17, 18, 19, 20, 21, 22]
        try:
            device_run.run_drive(
                firmware,
                files,
                work,
                buttons=buttons,
                button_gpios=gpios,
                min_us=0,
                settle_us=0,
                limit_us=races[-1][0] + 600_000,
            )
        except RuntimeError:
            pass  # the limit: the console holds what was printed
        console = device_run.read_recordings(os.path.join(work, "out"))[0]
    problem = device_run.traceback_in(console)
    if problem:
        raise SystemExit("bench_fairness: the board failed: %s" % problem)
    tie_first = -1
    results = []
    ties_before = 0
    for line in console.replace("\r", "").split("\n"):
        words = line.split()
        if line.startswith("fair-device ready"):
            tie_first = int(words[2])
            if int(words[3]) < 0:
                raise SystemExit("bench_fairness: no ready time")
        elif line.startswith("fair-device race"):
            i, won, ties = int(words[2]), int(words[3]), int(words[4])
            results.append((races[i][1], races[i][2], won, ties - ties_before))  # this race's
            ties_before = ties
    if len(results) != len(races):
        raise SystemExit(
            "bench_fairness: %d of %d races reported (console: %s)"
            % (len(results), len(races), console[-300:])
        )
    return results, tie_first


def print_device(results, tie_first, deploy):
    print("### On the firmware: PIO edge stamps, the Arbiter's µs order (%s)" % deploy)
    print()
    print("| Δ (µs) | races | earlier press wins | when P1 earlier | when P2 earlier | ties |")
    print("|---:|---:|---:|---:|---:|---:|")
    verdicts = []
    for delta in DEVICE_DELTAS_US:
        rows = [r for r in results if r[0] == delta]
        if delta == 0:
            winners = [won for _, _, won, _ in rows]
            want = [(tie_first + k) % 2 for k in range(len(winners))]
            ties = sum(r[3] for r in rows)
            print("| 0 (same µs) | %d | - | - | - | %d |" % (len(rows), ties))
            ok = winners == want and ties == len(rows)
            verdicts.append(
                "Δ=0: %d ties, winners alternate from tie_first %d: %s"
                % (len(rows), tie_first, "MET" if ok else "MISSED (%s)" % winners)
            )
            continue
        won = sum(1 for _, earlier, w, _ in rows if w == earlier)
        by = [[r for r in rows if r[1] == p] for p in (0, 1)]
        print(
            "| %d | %d | %s | %s | %s | %d |"
            % (
                delta,
                len(rows),
                _pct(won, len(rows)),
                _pct(sum(1 for r in by[0] if r[2] == 0), len(by[0])),
                _pct(sum(1 for r in by[1] if r[2] == 1), len(by[1])),
                sum(r[3] for r in rows),
            )
        )
        verdicts.append(
            "Δ=%d µs: earlier wins %s (target 100%%): %s"
            % (delta, _pct(won, len(rows)), "MET" if won == len(rows) else "MISSED")
        )
    print()
    for line in verdicts:
        print("- " + line)
    print()


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--races", type=int, default=10000, help="races per row (default 10000)")
    parser.add_argument("--seed", type=int, default=2024, help="seed of the race randomness")
    parser.add_argument("--device", action="store_true", help="on the firmware (PIO stamps)")
    parser.add_argument("--deploy", choices=("mpy", "py"), default="mpy", help="with --device")
    args = parser.parse_args(argv)
    if args.races < 1:
        parser.exit(2, "bench_fairness: error: --races must be >= 1\n")
    started = time.perf_counter()
    rnd = random.Random(args.seed)
    if args.device:
        per_case = args.races if args.races != 10000 else 6  # (the default: 6 of each)
        results, tie_first = run_device(per_case, rnd, args.deploy)
        print_device(results, tie_first, args.deploy)
        print("elapsed %.1f s" % (time.perf_counter() - started))
        return 0
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
