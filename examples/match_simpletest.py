"""A whole match of Speed through the rules core's public API, in twenty lines.

Two greedy players: every 300 ms each plays the first card of their hand that
fits a centre pile (R5); when neither can, the stall flips come (R9). The
match log goes to the console, one JSON line per event (docs/match-log.md).

    PYTHONPATH=lib .venv/bin/python examples/match_simpletest.py
    MICROPYPATH=lib .venv/bin/micropython examples/match_simpletest.py
"""

from speedduo.game.match import OVER, PLAYING, Match
from speedduo.game.rules import Rules
from speedduo.log.matchlog import MatchLog

log = MatchLog()
match = Match(seed=7, rules=Rules(), best_of=3, log=log)
now = 0
while match.phase != OVER:
    match.advance(now)  # countdowns, stall flips, hand ends, the match's end
    if match.phase == PLAYING:
        hand = match.hand
        for player in (0, 1):
            slot = hand.first_playable(player)
            if slot >= 0:
                match.pressed(now)  # a button: the device stays awake (R17)
                hand.play(match.hand_time(now), player, slot)
    log.drain(print)
    now += 300
