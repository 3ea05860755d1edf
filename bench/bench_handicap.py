"""The handicaps (docs/rules.md H1, H2, issue 30): how much does each even a match?

H1 (``--kind head_start``, the default): for each pairing of bots (hard against medium,
hard against easy; or those given with ``--pairing``, e.g. the simulator's age6 against
age10) and each head start of the weaker bot (0, 50, ..., 400 ms), whole matches are
played in the headless simulator
(``host_sim/runner.py``: the board's loop, key reader and arbiter on the virtual clock,
the PIO's µs stamps), one per seed; the weaker bot sits as Player 1 on even seeds and as
Player 2 on odd ones (the head start goes with it), so neither seat is favoured. Printed:
the share of matches the weaker bot won, and of hands. A script that prints figures, not
a timed test.

H2 (``--kind hand_slots``, classic Speed only): the same, for each number of hand slots
the stronger bot plays with (5, 4, 3; the seat goes with the bot).

    PYTHONPATH=.:lib .venv/bin/python bench/bench_handicap.py [--seeds N] [--game GAME]
    PYTHONPATH=.:lib .venv/bin/python bench/bench_handicap.py --kind hand_slots
        [--pairing WEAK:STRONG ...]

(--seeds 40 with classic Speed: under a minute on one core; docs/benchmarks.md.)
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from host_sim import use_board_paths  # noqa: E402

use_board_paths()

from bench_balance import pairing_type  # noqa: E402  (this script's folder: WEAK:STRONG)
from runner import Simulation, best_of_for  # noqa: E402
from speedduo.game.gamerules import GameRules  # noqa: E402
from speedduo.game.rules import (  # noqa: E402
    HAND_SLOTS_MAX,
    HAND_SLOTS_MIN,
    HEAD_START_MAX_MS,
    HEAD_START_STEP_MS,
    Rules,
)

PAIRINGS = (("hard", "medium"), ("hard", "easy"))  # (stronger, weaker)


def play(game, seed, strong, weak, lead, kind="head_start"):
    """One match: (the weaker bot won it, hands it won, hands decided). ``lead``: the weaker
    bot's head start (H1), or with ``kind`` "hand_slots" the stronger bot's slots (H2)."""
    weak_seat = seed % 2  # even seeds: Player 1 (0); odd: Player 2
    players = ["bot:" + strong, "bot:" + strong]
    players[weak_seat] = "bot:" + weak
    rules = Rules() if game == "speed" else GameRules(game)
    if kind == "hand_slots":
        rules.set("hand_slots_p%d" % (2 - weak_seat), lead)  # the stronger bot's seat
    else:
        rules.set("head_start_p%d_ms" % (weak_seat + 1), lead)
    lines = []
    Simulation(seed, rules, best_of_for(game, 3), players, game=game).run(lines.append)
    end = json.loads(lines[-1])
    score = end["score"]
    return end["winner"] == weak_seat, score[weak_seat], sum(score)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=40, help="matches per setting (default 40)")
    parser.add_argument("--game", default="speed", choices=("speed", "spit", "california"))
    parser.add_argument("--kind", default="head_start", choices=("head_start", "hand_slots"))
    parser.add_argument(
        "--pairing",
        type=pairing_type,
        action="append",
        help="WEAK:STRONG bot levels (repeatable; default medium:hard and easy:hard)",
    )
    args = parser.parse_args()
    if args.kind == "hand_slots" and args.game != "speed":
        parser.error("--kind hand_slots: fewer cards (H2) is classic Speed's only")
    leads = range(0, HEAD_START_MAX_MS + 1, HEAD_START_STEP_MS)
    what, unit = "the %s bot's head start", "ms"
    if args.kind == "hand_slots":
        leads = range(HAND_SLOTS_MAX, HAND_SLOTS_MIN - 1, -1)
        what, unit = "the %s bot's hand slots", "  "
    started = time.time()
    print(
        "game %s, %d matches per setting (seeds 1-%d), the weaker bot in both seats"
        % (args.game, args.seeds, args.seeds)
    )
    pairings = [(strong, weak) for weak, strong in args.pairing] if args.pairing else PAIRINGS
    for strong, weak in pairings:
        handicapped = strong if args.kind == "hand_slots" else weak
        print("\n%s vs %s: %s -> the %s bot's share of matches won (of hands)"
              % (strong, weak, what % handicapped, weak))  # fmt: skip
        for lead in leads:
            won = hands = decided = 0
            for seed in range(1, args.seeds + 1):
                match_won, hands_won, hands_decided = play(
                    args.game, seed, strong, weak, lead, args.kind
                )
                won += match_won
                hands += hands_won
                decided += hands_decided
            share = 100 * hands / max(decided, 1)
            print(
                "  %3d %s  %5.1f%% of matches (%d/%d)  %5.1f%% of hands"
                % (lead, unit, 100 * won / args.seeds, won, args.seeds, share)
            )
            sys.stdout.flush()
    print("\n%.0f s" % (time.time() - started))


if __name__ == "__main__":
    main()
