"""Greedy self-play of the rules core, with no simulated delays (a benchmark, not a test).

Both players press, in turn, the first hand slot whose card fits a pile; when
neither can, the stall is let run out (``hand.advance(hand.stall_due)``). Hands
follow one another through ``Match`` (best of 3, a new seed per match) until
HANDS hands have been dealt. Runs unchanged under CPython and MicroPython:

    micropython -X heapsize=256K bench/mp_selfplay.py ROOT [HANDS [MODE [SEED]]]
    python bench/mp_selfplay.py ROOT 20000 core

MODE says what happens to the match log ring after every loop pass:
``drain`` formats every record into the log's line buffer and hands it to a
no-op (``drain_into``: what the board's main loop pays), ``core`` drops the
records unformatted (``MatchLog.discard``: the rules core alone). ``match`` plays
one best-of-3 match with ``drain`` (the smallest-heap check).
Prints one line: ``plays P hands H matches M us U``.
"""

import sys

try:
    from time import ticks_diff, ticks_us  # MicroPython

    def _clock_us():
        return ticks_us()

    def _elapsed_us(start):
        return ticks_diff(ticks_us(), start)

except ImportError:  # CPython
    from time import perf_counter

    def _clock_us():
        return perf_counter()

    def _elapsed_us(start):
        return int((perf_counter() - start) * 1000000)


def _discard(line):
    pass


def _empty(log, drain):
    """Format the waiting log lines, or (drain False: the core alone) just drop them."""
    if drain:
        log.drain_into(_discard)
    else:
        log.discard()


def greedy_hand(h, drain):
    """Play one hand to its end with no delays: each player in turn plays the first
    slot that fits (``Hand.first_playable``), player 0 first; a stall flips at once.
    Returns the number of accepted plays."""
    plays = 0
    t = 0
    log = h.log
    while not h.over:
        moved = 0
        slot = h.first_playable(0)
        if slot >= 0:
            h.play(t, 0, slot)
            plays += 1
            moved = 1
        if not h.over:
            slot = h.first_playable(1)
            if slot >= 0:
                h.play(t, 1, slot)
                plays += 1
                moved = 1
        if not moved and not h.over:
            t = h.stall_due
            if t < 0:
                raise RuntimeError("nobody can play but no stall is due")
            h.advance(t)
        _empty(log, drain)
    return plays


def selfplay(hands_wanted, mode="core", seed=1, matches_wanted=0):
    """Play until ``hands_wanted`` hands (or ``matches_wanted`` matches) are done.

    Returns (plays, hands, matches, elapsed µs). Imports happen before the clock starts.
    """
    from speedduo.game.match import OVER, Match
    from speedduo.game.rules import Rules
    from speedduo.log.matchlog import MatchLog

    rules = Rules()
    log = MatchLog()
    drain = mode != "core"
    plays = 0
    hands = 0
    matches = 0
    start = _clock_us()
    while True:
        if matches_wanted and matches >= matches_wanted:
            break
        if not matches_wanted and hands >= hands_wanted:
            break
        m = Match(seed, rules, 3, log)
        seed = (seed + 1) & 0x3FFFFFFF
        matches += 1
        m.pressed(0)
        m.advance(m.hand_start)  # R3: the countdown ends, the first hand is dealt
        while m.phase != OVER:
            h = m.hand
            hands += 1
            plays += greedy_hand(h, drain)
            m.finish_hand()
            if m.phase != OVER:
                m.pressed(m.hand_start)  # R17: keep the match awake
                m.advance(m.hand_start)  # result screen, countdown, next deal
            _empty(log, drain)
            if not matches_wanted and hands >= hands_wanted:
                break
    return plays, hands, matches, _elapsed_us(start)


def main(argv):
    root = argv[1] if len(argv) > 1 else "."
    hands_wanted = int(argv[2]) if len(argv) > 2 else 2000
    mode = argv[3] if len(argv) > 3 else "core"
    seed = int(argv[4]) if len(argv) > 4 else 1
    if mode not in ("core", "drain", "match"):
        raise ValueError("mode must be core, drain or match")
    if root + "/lib" not in sys.path:
        sys.path.insert(0, root + "/lib")
    if mode == "match":
        result = selfplay(0, "drain", seed, 1)
    else:
        result = selfplay(hands_wanted, mode, seed)
    print("plays %d hands %d matches %d us %d" % result)


if __name__ == "__main__":
    main(sys.argv)
