"""H3 auto-balance (docs/rules.md, issue 30): one step toward the loser per match."""

import pytest
from speedduo.game.balance import step_toward_loser
from speedduo.game.rules import HEAD_START_MAX_MS, HEAD_START_STEP_MS


def test_the_loser_gains_a_step_when_the_winner_has_no_lead():
    assert step_toward_loser(0, 0, 0) == (0, HEAD_START_STEP_MS)
    assert step_toward_loser(0, 0, 1) == (HEAD_START_STEP_MS, 0)


def test_the_winners_own_lead_shrinks_first():
    assert step_toward_loser(100, 0, 0) == (50, 0)
    assert step_toward_loser(0, 50, 1) == (0, 0)


def test_no_winner_moves_nothing():
    assert step_toward_loser(0, 150, -1) == (0, 150)
    assert step_toward_loser(0, 150, 255) == (0, 150)


def test_the_lead_stops_at_the_menus_largest():
    assert step_toward_loser(HEAD_START_MAX_MS, 0, 1) == (HEAD_START_MAX_MS, 0)


@pytest.mark.parametrize("winner", [0, 1])
def test_never_more_than_one_step_and_never_two_leads(winner):
    leads = (0, 0)
    for i in range(40):
        new = step_toward_loser(leads[0], leads[1], (winner + i // 7) % 2)
        assert abs((new[0] - new[1]) - (leads[0] - leads[1])) <= HEAD_START_STEP_MS
        assert min(new) == 0
        leads = new
