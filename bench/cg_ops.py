"""One piece of set-up repeated N times, for callgrind to count (a benchmark, not a test).

    python bench/cg_ops.py ROOT OP N
    micropython -X heapsize=256K bench/cg_ops.py ROOT OP N

OP is ``hand`` (build a ``Hand``), ``tables`` (the R5 fits table the first
``Hand`` of a process builds, shared after that), ``deal`` (deal a hand into one reused ``Hand``,
the log emptied by ``MatchLog.discard``), ``rng`` (seed an ``Rng``) or ``match``
(a ``Match``: two ``Rng`` and a ``Hand``). bench_core.py runs it for two values
of N under callgrind; the difference divided by the difference of N is the
cost of one OP, with start-up and imports cancelled out.
"""

import sys


def run(op, n):
    from speedduo.game.core import Hand
    from speedduo.game.match import Match
    from speedduo.game.rng import Rng
    from speedduo.game.rules import Rules
    from speedduo.log.matchlog import MatchLog

    rules = Rules()
    log = MatchLog()
    Hand(rules, log)  # the first Hand builds the shared R5 tables: not counted per OP
    if op == "hand":
        for _ in range(n):
            Hand(rules, log)
    elif op == "deal":
        hand = Hand(rules, log)
        rng = Rng(1)
        for k in range(n):
            hand.deal(rng, k + 1)
            log.discard()
    elif op == "rng":
        for k in range(n):
            Rng(k)
    elif op == "tables":  # what the first Hand of a process adds: one variant's fits table
        from speedduo.game import core

        for _ in range(n):
            core._FITS[0] = None
            core._fits_table(False, False)
    elif op == "match":
        for k in range(n):
            Match(k, rules, 3, log)
            log.discard()
    else:
        raise ValueError("OP must be hand, tables, deal, rng or match")


def main(argv):
    root = argv[1]
    if root + "/lib" not in sys.path:
        sys.path.insert(0, root + "/lib")
    run(argv[2], int(argv[3]))
    print("done %s %s" % (argv[2], argv[3]))


if __name__ == "__main__":
    main(sys.argv)
