"""Auto-balance (docs/rules.md H3, issue 30): after each match, one step of handicap
toward the player who lost.

The handicap it moves is H1's head start (``rules.HANDICAPS``), in the menu's steps
(``HEAD_START_STEP_MS``). The winner's own lead shrinks first; only when the winner has
none does the loser's grow (up to ``HEAD_START_MAX_MS``). So at most one lead is ever
non-zero, and a match moves it by one step at most. A match without a winner (R17's
idle stop) moves nothing. Pure: the board keeps the leads in the stats record
(``host.stats``), the simulator and the benchmark in their own variables.
"""

from speedduo.game.rules import HEAD_START_MAX_MS, HEAD_START_STEP_MS


def step_toward_loser(p1_ms: int, p2_ms: int, winner: int):
    """H3: the head starts (p1, p2) in ms after a match won by ``winner`` (0, 1; any other
    value: no winner, unchanged)."""
    leads = [p1_ms, p2_ms]
    if winner != 0 and winner != 1:
        return p1_ms, p2_ms
    loser = 1 - winner
    if leads[winner] > 0:  # the winner had a lead: it goes first
        leads[winner] = max(0, leads[winner] - HEAD_START_STEP_MS)
    else:
        leads[loser] = min(HEAD_START_MAX_MS, leads[loser] + HEAD_START_STEP_MS)
    return leads[0], leads[1]
