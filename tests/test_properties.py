"""Property tests: random seeds, rule options and players; the referee checks every event.

The referee (tests/referee.py) rebuilds all piles from the log alone: after
every event all 52 cards are present exactly once, every accepted play was
legal, every refusal was right (late vs invalid vs locked), a stall comes only
when nobody can play, and every hand ends. SPEED_SOAK=1 runs many more examples.
"""

import os

from conftest import SOAK
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from referee import Referee
from runner import Simulation
from speedduo.game.rules import Rules

from host_sim.logfile import parse_log
from host_sim.replay import check_entries, replay_lines

EXAMPLES = int(os.environ.get("SPEED_SOAK_EXAMPLES", "2000")) if SOAK else 150

players = st.sampled_from(["bot:easy", "bot:medium", "bot:hard", "bot:perfect", "none"])
rule_sets = st.fixed_dictionaries(
    {},
    optional={
        "no_wrap": st.booleans(),
        "same_rank": st.booleans(),
        "claim": st.sampled_from(["off", "simple", "race"]),
        "end_on_exhaustion": st.booleans(),
        "pile_redeal": st.booleans(),
        "points": st.booleans(),
        "penalty": st.booleans(),
        "stall_countdown_ms": st.integers(0, 3000),
        "race_window_ms": st.integers(0, 1000),
        "hand_slots_p1": st.integers(3, 5),  # H2, fewer cards
        "hand_slots_p2": st.integers(3, 5),
    },
)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, (1 << 30) - 1),
    rules=rule_sets,
    p1=players,
    p2=players,
    best_of=st.sampled_from([3, 5]),
    bounce=st.sampled_from([0, 0, 3000]),
)
def test_every_event_of_random_matches_is_legal_and_conserves_cards(
    seed, rules, p1, p2, best_of, bounce
):
    lines = []
    sim = Simulation(
        seed, Rules(**rules), best_of, [p1, p2], bounce_max_us=bounce, phase_us=seed % 977
    )
    sim.run(lines.append)
    Referee().check_log(lines)
    assert lines[-1].startswith('{"ev":"match_end"')
    # and the log alone re-plays to itself, and passes the whole replay check
    entries = parse_log("\n".join(lines) + "\n")  # (a µs log's keys_us read as its keys)
    assert replay_lines(entries) == lines
    check_entries(entries)


@settings(max_examples=EXAMPLES * 5, deadline=None)
@given(seed=st.integers(0, (1 << 30) - 1), rules=rule_sets)
def test_core_greedy_hands_always_end_within_bounds(seed, rules):
    """Every hand ends (no deadlock): a greedy loop with stalls flipping at once."""
    from speedduo.game.match import OVER, PLAYING, Match
    from speedduo.log.matchlog import MatchLog

    rules.pop("claim", None)
    log = MatchLog()
    match = Match(seed, Rules(**rules), 3, log)
    lines = []
    log.sink = lambda line: lines.append(bytes(line).decode())  # a full ring's, as the board's
    steps = 0
    now = 0
    while match.phase != OVER:
        steps += 1
        assert steps < 20000
        match.pressed(now)
        due = match.next_due()
        if match.phase == PLAYING:
            hand = match.hand
            t = now - match.hand_start
            played = False
            for p in (0, 1):
                s = hand.first_playable(p)
                if s >= 0:
                    hand.play(t, p, s)
                    played = True
            if not played and hand.stall_due >= 0:
                now = match.hand_start + hand.stall_due
            now += 1
        else:
            now = max(now + 1, due)
        match.advance(now)
        log.drain(lines.append)
    Referee().check_log(lines)
