"""Fewer cards (docs/rules.md H2, issue 30): a player with k hand slots (3-5) holds at most k
cards face up; the deal still deals the whole deck (the missing slots' cards lie on the
draw pile), refills (R7) stop at k, the log's match line says so (``hand_slots``) and
replay plays it again. Classic Speed's only."""

import json
import os
import tempfile

import pytest
from conftest import new_hand, run_cli
from referee import Referee
from runner import Simulation
from speedduo.game.core import EMPTY_SLOT, PLAYED
from speedduo.game.gamerules import GameRules
from speedduo.game.rules import Rules, hand_slots
from speedduo.loop.settings import Settings
from speedduo.vocab.cards import DRAW_CARDS, NO_CARD
from test_opponent import MASH

from host_sim.replay import replay_file


def replay_ok(lines):
    fd, path = tempfile.mkstemp(suffix=".jsonl")
    try:
        with os.fdopen(fd, "w") as f:
            f.write("\n".join(lines) + "\n")
        return replay_file(path)[0]
    finally:
        os.unlink(path)


def layout(hand, p):
    """(face-up cards, draw pile bottom first) of player p."""
    cap = hand.pile_cap
    cards = [hand.slot_card(p, s) for s in range(5)]
    return cards, list(hand.draw[p * cap : p * cap + hand.draw_n[p]])


def every_card(hand):
    cap = hand.pile_cap
    cards = [c for c in hand.hand if c != NO_CARD]
    for p in range(2):
        cards += list(hand.draw[p * cap : p * cap + hand.draw_n[p]])
        cards += list(hand.side[p * cap : p * cap + hand.side_n[p]])
        cards += list(hand.centre[p * cap : p * cap + hand.centre_n[p]])
    return cards


def test_h2_the_deal_deals_the_whole_deck_the_missing_slots_onto_the_draw_pile():
    _, full, _ = new_hand(seed=5)
    _, fewer, _ = new_hand(seed=5, hand_slots_p1=3, hand_slots_p2=4)
    assert sorted(every_card(fewer)) == list(range(52))  # R2: the whole deck, once
    assert list(fewer.hand_n) == [3, 4] and list(fewer.draw_n) == [DRAW_CARDS + 2, DRAW_CARDS + 1]
    assert [fewer.cards_left(p) for p in range(2)] == [20, 20]  # the same share each
    for p, k in ((0, 3), (1, 4)):
        cards, draw = layout(fewer, p)
        full_cards, full_draw = layout(full, p)
        assert cards == full_cards[:k] + [NO_CARD] * (5 - k)
        assert draw == full_draw + full_cards[k:]  # slot 4's card on top
    assert fewer.side_n[0] == full.side_n[0] and fewer.top(0) == full.top(0)


def test_h2_refills_stop_at_the_players_slots_and_a_missing_slot_is_an_empty_one():
    match, hand, _ = new_hand(seed=5, hand_slots_p1=3)
    for _ in range(40):  # player 0 plays what fits, every refill lands in slots 0-2
        slot = hand.first_playable(0)
        if slot < 0 or hand.over:
            break
        assert hand.play(0, 0, slot) == PLAYED
        cards, _ = layout(hand, 0)
        assert cards[3:] == [NO_CARD, NO_CARD]
        assert hand.hand_n[0] == 3 or hand.draw_n[0] == 0
    assert hand.play(0, 0, 3) == EMPTY_SLOT and hand.play(0, 0, 4) == EMPTY_SLOT


def test_h2_a_whole_match_with_fewer_cards_passes_the_referee_and_replays():
    """R12 still holds: a player is out when hand and draw pile are empty (the referee
    checks every hand's end, its counts and that no refill passes a player's slots)."""
    lines = []
    Simulation(4, Rules(hand_slots_p1=3), 3, ["bot:hard", "bot:medium"]).run(lines.append)
    Referee().check_log(lines)
    events = [json.loads(line) for line in lines]
    assert events[0]["hand_slots"] == [3, 5]
    outs = [e for e in events if e["ev"] == "hand_end" and e["why"] == "out"]
    assert outs and all(e["left"][e["winner"]] == 0 for e in outs)
    assert all(e["slot"] < 3 for e in events if e["ev"] == "draw" and e["p"] == 0)
    assert replay_ok(lines)


def test_h2_options_are_checked_and_kept_out_of_the_rules_object():
    rules = Rules(hand_slots_p2=4)
    assert hand_slots(rules) == (5, 4) and hand_slots(Rules()) == (5, 5)
    assert "hand_slots_p2" not in dict(rules.as_pairs())  # the log's own field
    for bad, why in ((2, "3, 4 or 5"), (6, "3, 4 or 5"), (-1, ">= 0"), (True, "whole number")):
        with pytest.raises(ValueError, match=why):
            Rules(hand_slots_p1=bad)


@pytest.mark.parametrize("game", ["spit", "california"])
def test_h2_the_other_games_refuse_fewer_cards_in_one_line(game):
    with pytest.raises(ValueError, match="classic Speed's only") as caught:
        GameRules(game, hand_slots_p1=4)
    assert "\n" not in str(caught.value)
    assert hand_slots(GameRules(game, hand_slots_p2=5)) == (5, 5)  # the default is taken


def test_h2_settings_keys_set_the_hand_slots_and_bad_values_are_noted():
    good = {"SPEED_HAND_SLOTS_P1": "4", "SPEED_HAND_SLOTS_P2": "3"}
    settings = Settings(good.get, list(good))
    assert hand_slots(settings.rules) == (4, 3)
    assert not settings.problems and not settings.unknown
    bad = {"SPEED_HAND_SLOTS_P1": "2", "SPEED_HAND_SLOTS_P2": "6"}
    settings = Settings(bad.get, list(bad))
    assert hand_slots(settings.rules) == (5, 5)
    assert settings.problems == [
        ("SPEED_HAND_SLOTS_P1", "must be 3, 4 or 5 (cards in hand)"),
        ("SPEED_HAND_SLOTS_P2", "must be 3, 4 or 5 (cards in hand)"),
    ]


def test_h2_the_match_line_carries_hand_slots_only_when_one_is_not_5(tmp_path):
    log = tmp_path / "m.jsonl"
    run_cli("run", "--seed", "3", "--hand-slots-p2", "4", "--log", str(log))
    first = log.read_text().splitlines()[0]
    assert json.loads(first)["hand_slots"] == [5, 4] and '"hand_slots":[5,4]' in first
    run_cli("run", "--seed", "3", "--hand-slots-p2", "5", "--log", str(log))
    assert "hand_slots" not in log.read_text().splitlines()[0]


@pytest.mark.parametrize("value", ["2", "6", "-1"])
def test_h2_bad_flag_values_are_one_line_and_exit_2(value):
    for command in ("run", "board"):
        result = run_cli(command, "--hand-slots-p1", value, check=False)
        assert result.returncode == 2, command
        assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("args", [("--game", "spit"), ("--game", "california"), ("--players", "3")])
def test_h2_is_classic_speeds_for_two_players_only(args):
    result = run_cli("run", *args, "--hand-slots-p1", "4", check=False)
    assert result.returncode == 2 and "--hand-slots-p1" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_h2_the_board_takes_the_flags_and_replays(tmp_path):
    log = tmp_path / "b.jsonl"
    run_cli(
        "board", "--opponent", "hard", "--seed", "2", "--script", MASH,
        "--hand-slots-p2", "3", "--log", str(log),
    )  # fmt: skip
    assert json.loads(log.read_text().splitlines()[0])["hand_slots"] == [5, 3]
    assert "replayed identically" in run_cli("replay", str(log)).stdout


@pytest.fixture(scope="module")
def h2_log(tmp_path_factory):
    log = tmp_path_factory.mktemp("h2") / "m.jsonl"
    run_cli(
        "run", "--seed", "3", "--p1", "bot:hard", "--p2", "bot:medium",
        "--hand-slots-p1", "3", "--log", str(log),
    )  # fmt: skip
    return log


def test_h2_replay_accepts_the_true_log(h2_log):
    assert "replayed identically" in run_cli("replay", str(h2_log)).stdout


@pytest.mark.parametrize("altered", ["[4,5]", "[5,3]", "[3,4]"])
def test_h2_replay_refuses_a_log_whose_hand_slots_were_altered(h2_log, tmp_path, altered):
    bad = tmp_path / "altered.jsonl"
    bad.write_text(h2_log.read_text().replace('"hand_slots":[3,5]', '"hand_slots":' + altered, 1))
    result = run_cli("replay", str(bad), check=False)
    assert result.returncode == 1
    assert "hand_slots" in result.stdout + result.stderr


def test_h2_replay_names_the_field_of_a_log_whose_hand_slots_were_removed(h2_log, tmp_path):
    bad = tmp_path / "removed.jsonl"
    bad.write_text(h2_log.read_text().replace(',"hand_slots":[3,5]', "", 1))
    result = run_cli("replay", str(bad), check=False)
    assert result.returncode == 1
    assert "hand_slots: was it removed?" in result.stdout + result.stderr


def test_h2_replay_does_not_ask_for_hand_slots_a_log_never_had(tmp_path):
    log = tmp_path / "m.jsonl"
    run_cli("run", "--seed", "3", "--p1", "bot:hard", "--p2", "bot:hard", "--log", str(log))
    lines = log.read_text().splitlines()
    side_top = json.loads(lines[1])["side"][0][0]  # a card no hand was dealt
    i = next(i for i, line in enumerate(lines) if '"ev":"draw"' in line)
    card = json.loads(lines[i])["card"]
    lines[i] = lines[i].replace('"card":"%s"' % card, '"card":"%s"' % side_top)
    bad = tmp_path / "changed.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    result = run_cli("replay", str(bad), check=False)
    assert result.returncode == 1 and "hand_slots" not in result.stdout + result.stderr


@pytest.mark.parametrize("bad_value", ["[5,5]", "[2,5]", "[3,6]", "[3]", '"3"'])
def test_h2_replay_refuses_a_malformed_hand_slots_field(h2_log, tmp_path, bad_value):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(h2_log.read_text().replace('"hand_slots":[3,5]', '"hand_slots":' + bad_value))
    result = run_cli("replay", str(bad), check=False)
    assert result.returncode == 2 and "hand_slots" in result.stderr


def test_h2_replay_refuses_hand_slots_on_another_games_log(tmp_path):
    log = tmp_path / "s.jsonl"
    run_cli("run", "--game", "spit", "--seed", "3", "--log", str(log))
    lines = log.read_text().splitlines()
    lines[0] = lines[0][:-1] + ',"hand_slots":[4,5]}'
    log.write_text("\n".join(lines) + "\n")
    result = run_cli("replay", str(log), check=False)
    assert result.returncode == 2 and "hand_slots is classic Speed's only" in result.stderr


def test_h2_replay_refuses_hand_slots_inside_the_rules_object(h2_log, tmp_path):
    bad = tmp_path / "inside.jsonl"
    bad.write_text(h2_log.read_text().replace('"rules":{', '"rules":{"hand_slots_p1":3,', 1))
    result = run_cli("replay", str(bad), check=False)
    assert result.returncode == 2 and "the field hand_slots" in result.stderr


def test_h2_the_micropython_vm_writes_the_same_log(tmp_path):
    logs = []
    for vm in ("cpython", "micropython"):
        log = tmp_path / (vm + ".jsonl")
        run_cli(
            "run", "--seed", "6", "--p1", "bot:hard", "--p2", "bot:easy",
            "--hand-slots-p1", "4", "--hand-slots-p2", "3", "--vm", vm, "--log", str(log),
        )  # fmt: skip
        logs.append(log.read_text())
    assert logs[0] == logs[1] and '"hand_slots":[4,3]' in logs[0]


def test_h2_the_countdown_shows_backs_only_in_each_players_slots_in_play():
    """PlayerView: during the countdown a player with k slots sees k face-down cards (the
    others empty); at the deal the cards (and the empty slots) as dealt."""
    from null_bus import NullBus
    from speedduo.display.ssd1306 import Panel
    from speedduo.display.view import PlayerView
    from speedduo.game.match import COUNTDOWN, Match
    from speedduo.log.matchlog import MatchLog

    match = Match(5, Rules(hand_slots_p1=3, hand_slots_p2=4), 3, MatchLog())
    assert match.phase == COUNTDOWN
    views = []
    for p in range(2):
        panel = Panel(NullBus())
        panel.online = True
        views.append(PlayerView(panel, p))
        views[p].update_private(match.hand, match)
    back, empty = 254, NO_CARD
    assert views[0].drawn_slots() == bytes([back] * 3 + [empty] * 2)
    assert views[1].drawn_slots() == bytes([back] * 4 + [empty])
    match.pressed(match.hand_start)
    match.advance(match.hand_start)
    for p in range(2):
        views[p].update_private(match.hand, match)
        assert views[p].drawn_slots()[3 + p :] == bytes([empty] * (2 - p))
        assert empty not in views[p].drawn_slots()[: 3 + p]
