"""Auto-balance (docs/rules.md H3, issue 30): does it even a long evening of play?

Sixty whole matches in a row (classic Speed, best of 3) between a weaker and a stronger
bot, by default the simulator's ``age6`` and ``age10`` (a 6- and a 10-year-old's reaction
times: docs/opponent.md), played in the headless simulator (``host_sim/runner.py``: the
board's loop, key reader and arbiter on the virtual clock, the PIO's µs stamps). Both
start without a head start; after each match ``balance.step_toward_loser`` moves one H1
step toward its loser, and the next match is played with the new head starts. The
players swap seats every match (the weaker one is Player 1 in the series' first match);
a head start goes with its player, not the seat. Match k of a series has seed
``base + k``; series s has base ``1000 * s``, so the series are independent.

Printed per match: the weaker player's lead (its head start minus the stronger one's, ms)
and who won (``w``: the weaker, ``S``: the stronger, ``-``: no winner); per series the
weaker player's share of matches won over all 60 and over the last 30; and the mean of
the last-30 shares over the series. A script that prints figures, not a timed test.

    PYTHONPATH=.:lib .venv/bin/python bench/bench_balance.py [--series N] [--matches N]
        [--pairing WEAK:STRONG ...]

(--series 5, the default pairing: about a minute on one core; docs/benchmarks.md.)
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from host_sim import use_board_paths  # noqa: E402

use_board_paths()

from runner import Simulation  # noqa: E402
from speedduo.game.balance import step_toward_loser  # noqa: E402
from speedduo.game.rules import Rules  # noqa: E402
from speedduo.loop.opponent import LEVEL_NAMES  # noqa: E402

WEAK = 0  # the players, not the seats: the weaker one is 0, the stronger 1
STRONG = 1
MARKS = {WEAK: "w", STRONG: "S", None: "-"}


def play(seed, levels, leads, weak_seat):
    """One best-of-3 match: the winning player (WEAK, STRONG) or None (no winner).
    ``levels`` and ``leads`` by player; the weaker player sits in ``weak_seat``."""
    seats = [STRONG, STRONG]
    seats[weak_seat] = WEAK
    rules = Rules()
    for seat in (0, 1):
        rules.set("head_start_p%d_ms" % (seat + 1), leads[seats[seat]])
    lines = []
    players = ["bot:" + levels[seats[0]], "bot:" + levels[seats[1]]]
    Simulation(seed, rules, 3, players).run(lines.append)
    winner = json.loads(lines[-1])["winner"]
    if winner not in (0, 1):
        return None
    return seats[winner]


def series(base, levels, matches):
    """One series: the winners (WEAK, STRONG, None) and the weaker player's lead before
    each match."""
    leads = [0, 0]
    winners = []
    weak_leads = []
    for k in range(matches):
        weak_leads.append(leads[WEAK] - leads[STRONG])
        winner = play(base + k, levels, leads, k % 2)
        winners.append(winner)
        if winner is not None:  # H3: one step toward the loser (the function is seat-blind)
            leads[WEAK], leads[STRONG] = step_toward_loser(leads[WEAK], leads[STRONG], winner)
    return winners, weak_leads


def share(winners):
    return 100 * sum(1 for w in winners if w == WEAK) / max(len(winners), 1)


def pairing_type(text):
    weak, _, strong = text.partition(":")
    if weak not in LEVEL_NAMES[1:] or strong not in LEVEL_NAMES[1:]:
        raise argparse.ArgumentTypeError(
            "bad pairing %r: WEAK:STRONG, levels %s" % (text, "|".join(LEVEL_NAMES[1:]))
        )
    return weak, strong


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--series", type=int, default=5, help="independent series (default 5)")
    parser.add_argument("--matches", type=int, default=60, help="matches a series (default 60)")
    parser.add_argument(
        "--pairing",
        type=pairing_type,
        action="append",
        help="WEAK:STRONG bot levels (repeatable; default age6:age10)",
    )
    args = parser.parse_args()
    pairings = args.pairing or [("age6", "age10")]
    tail = min(30, args.matches)
    started = time.time()
    for weak, strong in pairings:
        print(
            "\n%s (weaker) vs %s: %d series of %d matches, auto-balance (H3) on from 0/0;"
            " per match: the %s bot's lead (ms) and the winner (w: %s, S: %s)"
            % (weak, strong, args.series, args.matches, weak, weak, strong)
        )
        lasts = []
        for s in range(1, args.series + 1):
            base = 1000 * s
            winners, weak_leads = series(base, (weak, strong), args.matches)
            print("series %d (seeds %d-%d)" % (s, base, base + args.matches - 1))
            for row in range(0, args.matches, 10):
                cells = [
                    "%+4d%s" % (weak_leads[k], MARKS[winners[k]])
                    for k in range(row, min(row + 10, args.matches))
                ]
                print("  %2d-%2d %s" % (row + 1, row + len(cells), " ".join(cells)))
            last = share(winners[-tail:])
            lasts.append(last)
            print(
                "  %s's share of matches won: %.1f%% of all %d, %.1f%% of the last %d"
                % (weak, share(winners), args.matches, last, tail)
            )
            sys.stdout.flush()
        print(
            "%s vs %s: last-%d shares %s; mean %.1f%%"
            % (weak, strong, tail, ", ".join("%.1f%%" % x for x in lasts), sum(lasts) / len(lasts))
        )
    print("\n%.0f s" % (time.time() - started))


if __name__ == "__main__":
    main()
