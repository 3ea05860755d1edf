"""One or more tests per rule id of docs/rules.md, on the rules core directly."""

import json

import pytest
from conftest import drained, lay_out, new_hand
from speedduo.game.core import EMPTY_SLOT, INVALID, LATE, LOCKED, NOT_PLAYING, PLAYED
from speedduo.game.match import OVER, RESULT, Match
from speedduo.game.rng import Rng
from speedduo.game.rules import Rules
from speedduo.game.seat import Seat
from speedduo.log.matchlog import MatchLog
from speedduo.vocab.cards import NO_CARD, card_from_name, card_name
from speedduo.vocab.codes import END_CLAIM, NULL_PLAYER

FILLER0 = ["9S", "9H", "9D", "9C"]  # fit nothing on the piles used below
FILLER1 = ["TS", "TH", "TD", "TC"]


def events(lines):
    return [json.loads(line) for line in lines]


def test_r1_deck_has_52_cards_and_ranks_wrap_ace_on_king_and_two():
    _, hand, _ = new_hand()
    lay_out(hand, [["AS"] + FILLER0, FILLER1], [["KH"], ["5C"]])
    assert hand.fits(card_from_name("AS"), 0)  # A on K
    lay_out(hand, [["KS"] + FILLER0, FILLER1], [["AH"], ["5C"]])
    assert hand.fits(card_from_name("KS"), 0)  # K on A
    lay_out(hand, [["AS"] + FILLER0, FILLER1], [["2H"], ["5C"]])
    assert hand.fits(card_from_name("AS"), 0)


def test_v1_no_wrap_keeps_ace_and_king_apart():
    _, hand, _ = new_hand(no_wrap=True)
    lay_out(hand, [["AS"] + FILLER0, FILLER1], [["KH"], ["5C"]])
    assert not hand.fits(card_from_name("AS"), 0)
    assert hand.fits(card_from_name("QS"), 0)


def test_r2_deal_gives_15_draw_5_hand_1_starter_5_side_each():
    _, hand, lines = new_hand(seed=42)
    deal = events(lines)[1]
    assert deal["ev"] == "deal"
    for p in range(2):
        assert len(deal["hands"][p]) == 5
        assert len(deal["draw"][p]) == 15
        assert len(deal["side"][p]) == 5
        assert len(deal["piles"][p]) == 1
    everything = [c for key in ("hands", "draw", "side", "piles") for pl in deal[key] for c in pl]
    assert sorted(everything) == sorted(card_name(c) for c in range(52))


def test_r2_same_seed_same_deal_other_seed_other_deal():
    a = new_hand(seed=5)[2][1]
    b = new_hand(seed=5)[2][1]
    c = new_hand(seed=6)[2][1]
    assert a == b and a != c


def test_r3_player_starters_begin_their_own_piles():
    _, hand, lines = new_hand(seed=3)
    deal = events(lines)[1]
    assert card_name(hand.top(0)) == deal["piles"][0][0]
    assert card_name(hand.top(1)) == deal["piles"][1][0]


def test_r4_either_player_may_play_at_any_moment():
    _, hand, _ = new_hand()
    lay_out(hand, [["4S"] + FILLER0, ["JS"] + FILLER1], [["5H"], ["QC"]])
    assert hand.play(10, 1, 0) == PLAYED
    assert hand.play(11, 0, 0) == PLAYED


def test_r5_card_goes_to_the_one_pile_it_fits():
    _, hand, _ = new_hand()
    lay_out(hand, [["4S"] + FILLER0, FILLER1], [["5H"], ["QC"]])
    assert hand.play(100, 0, 0) == PLAYED
    assert card_name(hand.top(0)) == "4S"


def test_r5_card_that_fits_both_goes_to_the_target_pile():
    _, hand, _ = new_hand()
    lay_out(hand, [["4S", "4H"] + FILLER0[:3], FILLER1], [["5H"], ["3C"]])
    hand.set_target(0, 1)
    assert hand.play(100, 0, 0) == PLAYED
    assert card_name(hand.top(1)) == "4S"
    hand.set_target(0, 0)
    assert hand.play(900, 0, 1) == PLAYED
    assert card_name(hand.top(0)) == "4H"


def test_r5_card_that_fits_neither_is_refused_invalid_and_stays():
    _, hand, _ = new_hand()
    lay_out(hand, [["8S"] + FILLER0, ["4S"] + FILLER1[:3]], [["5H"], ["QC"]])
    assert hand.play(5000, 0, 0) == INVALID
    assert card_name(hand.slot_card(0, 0)) == "8S"
    assert events(drained(hand))[-1]["why"] == "invalid"


def test_r6_one_press_moves_one_card():
    _, hand, _ = new_hand()
    lay_out(hand, [["4S", "4H"] + FILLER0[:3], FILLER1], [["5H"], ["QC"]])
    before = hand.centre_n[0]
    hand.play(100, 0, 0)
    assert hand.centre_n[0] == before + 1


def test_r7_refill_takes_the_emptied_slot_and_others_stay():
    _, hand, _ = new_hand()
    lay_out(
        hand, [["9S", "4S", "9H", "9D", "9C"], FILLER1], [["5H"], ["QC"]], draw=(["2D", "JD"], [])
    )
    hand.play(100, 0, 1)
    seat = Seat(hand, 0)  # what player 0 sees
    assert card_name(seat.card(1)) == "JD"  # the top of the draw pile
    assert [card_name(seat.card(s)) for s in (0, 2, 3, 4)] == ["9S", "9H", "9D", "9C"]
    assert seat.draw_count() == 1
    lines = events(drained(hand))
    assert lines[-1] == {"ev": "draw", "t": 100, "p": 0, "slot": 1, "card": "JD"}


def test_r7_no_refill_when_draw_pile_is_empty():
    _, hand, _ = new_hand()
    lay_out(hand, [["4S"] + FILLER0, FILLER1], [["5H"], ["QC"]])
    hand.play(100, 0, 0)
    seat = Seat(hand, 0)
    assert seat.card(0) == NO_CARD
    assert seat.cards_left() == 4  # four in hand, none to draw
    assert hand.play(200, 0, 0) == EMPTY_SLOT


def test_r8_play_refused_late_when_the_top_changed_within_the_race_window():
    _, hand, _ = new_hand()
    lay_out(hand, [["4S"] + FILLER0, ["6D"] + FILLER1[:3]], [["5H"], ["QC"]])
    assert hand.play(1000, 1, 0) == PLAYED  # 6 on 5: now the top is 6
    assert hand.play(1100, 0, 0) == LATE  # 4 fitted the 5 that was covered 100 ms ago
    assert card_name(hand.slot_card(0, 0)) == "4S"
    reject = events(drained(hand))[-1]
    assert reject["why"] == "late" and reject["pile"] == 0


def test_r8_late_is_never_penalised_even_with_r16():
    _, hand, _ = new_hand(penalty=True)
    lay_out(hand, [["4S"] + FILLER0, ["6D"] + FILLER1[:3]], [["5H"], ["QC"]])
    hand.play(1000, 1, 0)
    assert hand.play(1100, 0, 0) == LATE
    assert hand.locked_until[0] == 0
    assert all(e["ev"] != "penalty" for e in events(drained(hand)))


def test_r8_after_the_race_window_the_miss_is_invalid():
    _, hand, _ = new_hand()
    lay_out(hand, [["4S"] + FILLER0, ["6D"] + FILLER1[:3]], [["5H"], ["QC"]])
    hand.play(1000, 1, 0)
    assert hand.play(1400, 0, 0) == INVALID  # race_window_ms is 400


def test_r9_stall_is_declared_only_when_nobody_can_play_and_flips_after_countdown():
    _, hand, _ = new_hand()
    lay_out(hand, [FILLER0, FILLER1], [["5H"], ["QC"]], side=(["2S", "4D"], ["3S", "JH"]))
    hand._check_stall(700)
    assert hand.stall_due == 1700  # default countdown 1000 ms
    hand.advance(1699)
    assert card_name(hand.top(0)) == "5H"
    hand.advance(1700)
    assert card_name(hand.top(0)) == "4D" and card_name(hand.top(1)) == "JH"
    lines = events(drained(hand))
    assert [e["ev"] for e in lines] == ["stall", "flip", "flip"]
    assert lines[0] == {"ev": "stall", "t": 700, "due": 1700}
    assert lines[1]["t"] == 1700 and lines[1]["p"] == 0 and lines[1]["pile"] == 0


def test_r9_no_stall_while_someone_can_play():
    _, hand, _ = new_hand()
    lay_out(hand, [["4S"] + FILLER0, FILLER1], [["5H"], ["QC"]], side=(["2S"], ["3S"]))
    hand._check_stall(700)
    assert hand.stall_due == -1


def test_r9_stall_countdown_length_is_a_rule_option():
    _, hand, _ = new_hand(stall_countdown_ms=2500)
    lay_out(hand, [FILLER0, FILLER1], [["5H"], ["QC"]], side=(["2S"], ["3S"]))
    hand._check_stall(100)
    assert hand.stall_due == 2600


def test_r10_redeal_gathers_centre_side_and_reserve_at_most_five_each():
    _, hand, _ = new_hand()
    centre0 = ["2C", "3C", "4C", "5C", "6C", "7C", "8C"]
    centre1 = ["2D", "3D", "4D", "5D", "6D", "7D", "KD"]
    lay_out(hand, [FILLER0, FILLER1], [centre0 + ["5H"], centre1 + ["QC"]], side=([], ["AS"]))
    hand.plays_since_redeal = 3
    hand._check_stall(0)
    hand.advance(1000)
    lines = events(drained(hand))
    kinds = [e["ev"] for e in lines]
    assert kinds[:2] == ["stall", "redeal"]
    redeal = lines[1]
    assert [len(s) for s in redeal["side"]] == [5, 5]
    assert hand.reserve_n == 15 - 10
    assert kinds[2:4] == ["flip", "flip"]
    # every card still there exactly once
    gathered = set(centre0 + centre1 + ["AS"])
    after = {card_name(hand.reserve[k]) for k in range(hand.reserve_n)}
    after |= {c for s in redeal["side"] for c in s}
    assert after == gathered


def test_r10_side_pile_that_received_nothing_does_not_flip():
    _, hand, _ = new_hand()
    lay_out(hand, [FILLER0, FILLER1], [["2C", "5H"], ["QC"]])
    hand.plays_since_redeal = 1
    hand._check_stall(0)
    hand.advance(1000)
    lines = events(drained(hand))
    flips = [e for e in lines if e["ev"] == "flip"]
    assert len(flips) == 1 and flips[0]["p"] == 0


def test_r11_dead_stall_when_nothing_to_redeal_fewer_cards_wins():
    _, hand, _ = new_hand()
    lay_out(hand, [FILLER0, FILLER1[:3]], [["5H"], ["QC"]])
    hand._check_stall(0)
    hand.advance(1000)
    assert hand.over and hand.winner == 1
    end = events(drained(hand))[-1]
    assert end == {
        "ev": "hand_end",
        "t": 1000,
        "winner": 1,
        "why": "dead_stall",
        "left": [4, 3],
        "sweep": False,
    }


def test_r11_dead_stall_with_equal_counts_is_replayed():
    _, hand, _ = new_hand()
    lay_out(hand, [FILLER0, FILLER1], [["5H"], ["QC"]])
    hand._check_stall(0)
    hand.advance(1000)
    assert hand.over and hand.winner == NULL_PLAYER
    assert events(drained(hand))[-1]["winner"] is None


def test_r11_redeal_due_without_a_play_since_the_last_one_ends_the_hand():
    _, hand, _ = new_hand()
    lay_out(hand, [FILLER0, FILLER1[:3]], [["2C", "5H"], ["QC"]])
    hand.redeals = 1
    hand.plays_since_redeal = 0
    hand._check_stall(0)
    hand.advance(1000)
    assert hand.over and hand.end_why == 2  # dead_stall


def test_v6_stall_with_empty_side_pile_ends_the_hand():
    _, hand, _ = new_hand(end_on_exhaustion=True)
    lay_out(hand, [FILLER0[:2], FILLER1], [["2C", "5H"], ["QC"]], side=([], ["AS"]))
    hand._check_stall(0)
    hand.advance(1000)
    assert hand.over and hand.winner == 0
    assert events(drained(hand))[-1]["why"] == "dead_stall"


def test_v7_pile_redeal_turns_each_centre_pile_into_a_side_pile():
    _, hand, _ = new_hand(pile_redeal=True)
    lay_out(hand, [FILLER0, FILLER1], [["2C", "3C", "5H"], ["2D", "QC"]], side=([], ["AS"]))
    hand.plays_since_redeal = 2
    hand._check_stall(0)
    hand.advance(1000)
    lines = events(drained(hand))
    redeal = next(e for e in lines if e["ev"] == "redeal")
    assert sorted(redeal["side"][0]) == ["2C", "3C"]
    assert redeal["side"][1][0] == "AS" and sorted(redeal["side"][1]) == ["2D", "AS"]


def test_r12_empty_hand_and_draw_wins_at_once():
    _, hand, _ = new_hand()
    lay_out(hand, [["4S"], FILLER1], [["5H"], ["QC"]])
    assert hand.play(2500, 0, 0) == PLAYED
    assert hand.over and hand.winner == 0
    end = events(drained(hand))[-1]
    assert end["why"] == "out" and end["left"] == [0, 4]


def test_r13_earlier_of_two_last_cards_wins():
    _, hand, _ = new_hand()
    lay_out(hand, [["4S"], ["JD"]], [["5H"], ["QC"]])
    hand.play(2500, 1, 0)
    assert hand.over and hand.winner == 1
    assert hand.play(2500, 0, 0) == NOT_PLAYING  # the later last card comes after the end


def test_r13_same_timestamp_photo_finish_is_replayed_without_score():
    log = MatchLog()
    match = Match(9, Rules(), 3, log)
    match.pressed(3000)
    match.advance(3000)
    hand = match.hand
    lay_out(hand, [["4S"], ["JD"]], [["5H"], ["QC"]])
    hand.photo_finish(100)
    match.advance(3100)
    assert match.phase == RESULT and list(match.wins) == [0, 0]
    lines = []
    log.drain(lines.append)
    assert events(lines)[-1]["why"] == "photo_finish"


def _play_out(match, winner, t=100):
    hand = match.hand
    lay_out(
        hand,
        [["4S"] if winner == 0 else FILLER0, ["4S"] if winner == 1 else FILLER1],
        [["5H"], ["QC"]],
    )
    hand.play(t, winner, 0)
    match.advance(match.hand_start + t)


def _next_hand(match):
    match.pressed(match.hand_start)
    match.advance(match.hand_start)


@pytest.mark.parametrize("best_of,needed", [(3, 2), (5, 3), (7, 4)])
def test_r14_match_is_first_to_a_majority_of_hand_wins(best_of, needed):
    log = MatchLog()
    match = Match(1, Rules(), best_of, log)
    _next_hand(match)
    for k in range(needed):
        _play_out(match, 1)
        log.drain(lambda line: None)
        if k < needed - 1:
            assert match.phase == RESULT
            _next_hand(match)
    assert match.phase == OVER and match.winner == 1
    assert list(match.wins) == [0, needed]


def test_r14_best_of_must_be_3_5_or_7():
    with pytest.raises(ValueError):
        Match(1, Rules(), 4, MatchLog())


def test_r15_clean_sweep_scores_a_bonus_point():
    log = MatchLog()
    match = Match(1, Rules(points=True), 3, log)
    _next_hand(match)
    _play_out(match, 0)  # the loser holds 4 cards: no sweep
    _next_hand(match)
    hand = match.hand
    lay_out(hand, [["4S"], FILLER1], [["5H"], ["QC"]], draw=([], ["2C"] * 6))
    hand.play(100, 0, 0)  # the loser holds 4 + 6 = 10: sweep
    match.advance(match.hand_start + 100)
    lines = []
    log.drain(lines.append)
    parsed = events(lines)
    ends = [e for e in parsed if e["ev"] == "hand_end"]
    assert [e["sweep"] for e in ends] == [False, True]
    assert parsed[-1] == {"ev": "match_end", "winner": 0, "score": [2, 0], "points": [3, 0]}


def test_r16_invalid_play_locks_out_for_two_seconds():
    _, hand, _ = new_hand(penalty=True)
    lay_out(hand, [["8S", "4S"] + FILLER0[:3], FILLER1], [["5H"], ["QC"]])
    assert hand.play(1000, 0, 0) == INVALID
    assert hand.play(2999, 0, 1) == LOCKED
    assert hand.play(3000, 0, 1) == PLAYED
    lines = events(drained(hand))
    assert {"ev": "penalty", "t": 1000, "p": 0, "until": 3000} in lines
    assert any(e["ev"] == "reject" and e["why"] == "locked" for e in lines)


def test_r16_off_by_default_invalid_play_costs_nothing():
    _, hand, _ = new_hand()
    lay_out(hand, [["8S", "4S"] + FILLER0[:3], FILLER1], [["5H"], ["QC"]])
    assert hand.play(1000, 0, 0) == INVALID
    assert hand.play(1001, 0, 1) == PLAYED


def test_r17_idle_abandons_the_hand_and_stops_the_match():
    log = MatchLog()
    match = Match(1, Rules(idle_ms=5000), 3, log)
    _next_hand(match)
    match.advance(match.hand_start + 60000)
    assert match.phase == OVER and match.winner == NULL_PLAYER
    lines = []
    log.drain(lines.append)
    parsed = events(lines)
    assert parsed[-2]["why"] == "abandoned" and parsed[-2]["winner"] is None
    assert parsed[-1] == {"ev": "match_end", "winner": None, "score": [0, 0]}


def test_r17_a_long_jump_still_flips_the_stalls_due_before_the_idle_instant():
    """advance() in one jump writes what advancing 1 ms at a time writes (R9, then R17)."""

    def played(step_ms):
        log = MatchLog()
        match = Match(525667908, Rules(idle_ms=5000), 3, log)  # a stall at t=0 (nobody can play)
        _next_hand(match)
        now = match.hand_start
        while match.phase != OVER:
            now += step_ms
            match.advance(now)
        lines = []
        log.drain(lines.append)
        return lines

    jumped = played(60000)
    assert jumped == played(1)
    assert any('"ev":"flip"' in line for line in jumped)


def test_v2_same_rank_may_be_played():
    _, hand, _ = new_hand(same_rank=True)
    lay_out(hand, [["5S"] + FILLER0, FILLER1], [["5H"], ["QC"]])
    assert hand.play(100, 0, 0) == PLAYED


def test_v2_off_same_rank_is_invalid():
    _, hand, _ = new_hand()
    lay_out(hand, [["5S"] + FILLER0, FILLER1], [["5H"], ["QC"]])
    assert hand.play(100, 0, 0) == INVALID


def test_v5_simple_claim_the_player_out_must_press_speed():
    _, hand, _ = new_hand(claim="simple")
    lay_out(hand, [["4S"], ["JD"] + FILLER1[:2]], [["5H"], ["2C"]])
    hand.play(100, 0, 0)
    assert not hand.over
    assert not hand.claim(150, 1)  # not out: nothing happens
    assert hand.claim(200, 0)
    assert hand.over and hand.winner == 0
    assert events(drained(hand))[-1]["why"] == "claim"


def test_v5_race_claim_first_press_wins_even_for_the_other_player():
    _, hand, _ = new_hand(claim="race")
    lay_out(hand, [["4S"], ["JD"] + FILLER1[:2]], [["5H"], ["2C"]])
    hand.play(100, 0, 0)
    assert hand.claim(180, 1)
    assert hand.winner == 1


@pytest.mark.parametrize(
    "name,value", [("claim", "sometimes"), ("penalty_ms", -1), ("no_wrap", 1), ("colour", True)]
)
def test_bad_rule_options_are_refused(name, value):
    with pytest.raises(ValueError):
        Rules(**{name: value})


def test_rng_stays_below_2_to_the_30_and_is_seed_deterministic():
    a = Rng(123)
    b = Rng(123)
    values = [a.next30() for _ in range(10000)]
    assert values == [b.next30() for _ in range(10000)]
    assert 0 <= min(values) and max(values) < 1 << 30


@pytest.mark.parametrize("seed", [-1, 1 << 30, "7", 1.5])
def test_rng_refuses_bad_seeds(seed):
    with pytest.raises(ValueError):
        Rng(seed)


def test_shuffle_is_a_permutation():
    deck = bytearray(range(52))
    Rng(77).shuffle(deck, 0, 52)
    assert sorted(deck) == list(range(52)) and list(deck) != list(range(52))


def _reference_shuffle(rng, buf, start, count):
    """Fisher-Yates on Rng.below, as rng.py describes it (shuffle inlines all of it)."""
    i = count - 1
    while i > 0:
        j = rng.below(i + 1)
        buf[start + i], buf[start + j] = buf[start + j], buf[start + i]
        i -= 1


def test_shuffle_draws_exactly_what_below_draws():
    """The inlined shuffle keeps the stream: same permutations, same state after.

    2,000 decks are ~100,000 draws: below()'s rejection (about 1 in 2**15) happens too.
    """
    fast = Rng(2024)
    slow = Rng(2024)
    for k in range(2000):
        count = 52 if k % 3 else k % 53
        a = bytearray(range(60))
        b = bytearray(range(60))
        fast.shuffle(a, 3, count)
        _reference_shuffle(slow, b, 3, count)
        assert a == b
    assert fast.next30() == slow.next30()


def test_rng_seed_stir_is_unchanged():
    """First values pinned before the stir loop was inlined: every seed's stream stays."""
    assert [Rng(seed).next30() for seed in (0, 1, 5, 32768, (1 << 30) - 1)] == [
        895126652,
        323876993,
        529378229,
        244434316,
        683761266,
    ]


def test_first_playable_is_the_first_slot_whose_card_fits_either_pile():
    """R5 as a query: the slot a greedy player presses; NO_CARD and misfits are skipped."""
    _, hand, _ = new_hand()
    lay_out(hand, [["9S", None, "4S", "JC", "6D"], FILLER1], [["5H"], ["QC"]])
    assert hand.first_playable(0) == 2
    assert hand.playable_mask(0) == 0b11100  # 4S on 5H, JC on QC, 6D on 5H
    assert hand.first_playable(1) == -1 and hand.playable_mask(1) == 0


def test_first_playable_agrees_with_pile_for_in_dealt_hands():
    for seed in range(1, 40):
        _, hand, _ = new_hand(seed=seed)
        for p in range(2):
            fits = [
                s
                for s in range(5)
                if hand.slot_card(p, s) != NO_CARD and hand.pile_for(p, hand.slot_card(p, s)) >= 0
            ]
            assert hand.first_playable(p) == (fits[0] if fits else -1)
            assert hand.playable_mask(p) == sum(1 << s for s in fits)


def test_first_playable_follows_v1_and_v2():
    _, hand, _ = new_hand(no_wrap=True)
    lay_out(hand, [["AS", "QS"] + FILLER0[:3], FILLER1], [["KH"], ["5C"]])
    assert hand.first_playable(0) == 1  # V1: no A on K
    _, hand, _ = new_hand(same_rank=True)
    lay_out(hand, [FILLER0 + ["5S"], FILLER1], [["5H"], ["QC"]])
    assert hand.first_playable(0) == 4  # V2: a 5 on a 5


@pytest.mark.parametrize("shift", range(8))
def test_deal_line_is_the_layout_even_when_its_records_wrap_round_the_ring(shift):
    """R2 in the log: the deal's records (its own + four of the shuffled deck) may wrap the ring."""
    from speedduo.game.core import Hand

    log = MatchLog(8)
    for _ in range(shift):  # move the ring's head so the deal lands across its end
        log.put_stall(0, 0)
    log.drain(lambda line: None)
    hand = Hand(Rules(), log)
    hand.deal(Rng(shift + 11), 4)
    lines = []
    log.drain(lines.append)
    deal = json.loads(lines[0])
    names = [[card_name(hand.slot_card(p, s)) for s in range(5)] for p in range(2)]
    assert deal["hands"] == names
    for key, stack in (("draw", hand.draw), ("side", hand.side)):
        count = hand.draw_n if key == "draw" else hand.side_n
        assert deal[key] == [
            [card_name(stack[p * hand.pile_cap + k]) for k in range(count[p] - 1, -1, -1)]
            for p in range(2)
        ]
    assert deal["piles"] == [[card_name(hand.top(0))], [card_name(hand.top(1))]]
    assert deal["hand_no"] == 4


def test_one_play_record_gives_the_play_line_and_its_draw_line():
    """R7 in the log: the refill rides in the play's record; ties and a missing refill too."""
    from speedduo.log.matchlog import TIE_LOST, TIE_NONE, TIE_WON
    from speedduo.vocab.cards import JOKER1

    log = MatchLog(4)
    log.put_play(12345, 1, 4, card_from_name("TH"), 0, TIE_WON, card_from_name("2C"))
    log.put_play(7, 0, 0, card_from_name("KS"), 1, TIE_NONE, NO_CARD)
    log.put_play(0, 0, 2, JOKER1, 1, TIE_LOST, JOKER1)
    lines = []
    assert log.drain(lines.append) == 5
    assert lines == [
        '{"ev":"play","t":12345,"p":1,"slot":4,"card":"TH","pile":0,"tie":"won"}',
        '{"ev":"draw","t":12345,"p":1,"slot":4,"card":"2C"}',
        '{"ev":"play","t":7,"p":0,"slot":0,"card":"KS","pile":1}',
        '{"ev":"play","t":0,"p":0,"slot":2,"card":"X1","pile":1,"tie":"lost"}',
        '{"ev":"draw","t":0,"p":0,"slot":2,"card":"X1"}',
    ]


def test_r17_idle_time_counts_from_the_hands_start_signal_not_the_countdown():
    """idle_ms 2000 with nobody pressing: the hand is dealt after the 3 s countdown and
    abandoned 2 s into play (the countdown is not idle time), never before the deal."""
    log = MatchLog()
    match = Match(1, Rules(idle_ms=2000), 3, log)
    match.pressed(0)  # PLAY
    for now in range(0, 10000, 7):
        match.advance(now)
    lines = []
    log.drain(lines.append)
    events = [json.loads(line) for line in lines if '"ev":"stall"' not in line]
    kinds = [e["ev"] for e in events if e["ev"] != "flip"]  # (a stall may flip meanwhile)
    assert kinds == ["match", "deal", "hand_end", "match_end"]
    end = next(e for e in events if e["ev"] == "hand_end")
    assert end["why"] == "abandoned" and end["t"] == 2000


def _instant(match, now, keys):
    """One instant of key presses (codes: player p's L 1-5 R are keys 7p .. 7p+6), as the
    arbiter hands it to every game's match (phases.Phases.step_group)."""
    for i, key in enumerate(keys):
        match.group_key[i] = key
        match.group_down[i] = 1
        match.held[key] = 1
    match.step_group(now, len(keys))


def test_v5_a_claim_is_judged_on_the_state_its_instant_saw():
    """Race claim (V5): Player 1 claims in the millisecond Player 0's last card goes: on the
    table both saw nobody was out, so the claim wins nothing; Player 0 is out, and claims."""
    match, hand, _ = new_hand(claim="race")
    lay_out(hand, [["4S"], ["JD"] + FILLER1[:2]], [["5H"], ["2C"]])
    now = match.hand_start + 100
    _instant(match, now, [0 * 7 + 1, 1 * 7 + 0, 1 * 7 + 6])  # P0's slot 1; P1's L and R
    assert hand.is_out(0) and not hand.over
    match.held[7] = match.held[13] = 0  # P1 lets go
    _instant(match, now + 50, [0, 6])  # P0's L and R: "Speed!"
    assert hand.over and hand.winner == 0 and hand.end_why == END_CLAIM


def test_v5_two_claims_at_one_instant_are_a_tie_settled_by_turns():
    match, hand, _ = new_hand(claim="race")
    lay_out(hand, [["4S"], ["JD"] + FILLER1[:2]], [["5H"], ["2C"]])
    hand.play(100, 0, 0)  # Player 0 is out: in the race form anyone may claim
    first = match.tie_next
    _instant(match, match.hand_start + 150, [0, 6, 7, 13])
    assert hand.over and hand.winner == first and match.ties == 1
