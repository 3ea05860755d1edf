"""V8 Spit (docs/rules.md V8.1-V8.11): the rules core, the runner, the log, replay, referee."""

import json

import pytest
from conftest import cards, deal_game
from conftest import game_lines as lines_of
from games_fuzz import SOAK, bot_match, check_altered
from referee import RefereeError, SpitReferee
from runner import Simulation
from speedduo.game.gamematch import GameSession
from speedduo.game.gamerules import GameRules
from speedduo.game.rng import Rng
from speedduo.game.spit import Spit
from speedduo.log.gamelog import GameLog
from speedduo.vocab.cards import card_from_name
from speedduo.vocab.codes import EMPTY_SLOT, INVALID, LATE, PLAYED

LEVELS = ("bot:perfect", "bot:hard", "bot:medium", "bot:easy")


def spit_round(seed=1, **rules):
    return deal_game(Spit(GameRules("spit", **rules)), seed)


def set_table(core, places, piles, spit=((), ())):
    """places[p][s]: names bottom first, the top face up; piles: names bottom first."""
    for p in range(2):
        core.stock[p] = [cards(*place) for place in places[p]]
        core.up[p] = [bool(place) for place in places[p]]
        core.spit[p] = cards(*spit[p])
    core.piles = [cards(*pile) for pile in piles]
    core.covered = [[0] * 52 for _ in piles]  # by place in the pile
    core.stall_due = -1
    lines_of(core)


EMPTY5 = ((), (), (), (), ())


def run(seed, players=("bot:hard", "bot:medium"), **rules):
    lines = []
    rules = GameRules("spit", **rules)
    match = Simulation(seed, rules, 3, list(players), game="spit").run(lines.append)
    return match, lines


def test_v8_1_deal_lays_out_places_of_one_to_five_cards_with_tops_up_and_eleven_spit_cards():
    core = spit_round(3)
    deal = lines_of(core)[0]
    for p in range(2):
        assert [len(place) for place in deal["stock"][p]] == [1, 2, 3, 4, 5]
        assert core.up[p] == [True] * 5
        # V8.2: one of the 11 spit cards opened the player's own spit pile
        assert len(deal["spit"][p]) == 10 and len(deal["piles"][p]) == 1
    names = [c for p in range(2) for place in deal["stock"][p] for c in place]
    names += deal["spit"][0] + deal["spit"][1] + deal["piles"][0] + deal["piles"][1]
    assert len(set(names)) == 52


def test_v8_3_a_face_up_top_plays_one_rank_up_or_down_with_the_ring():
    core = spit_round()
    set_table(core, [(("KS",), ("2C", "7H"), (), (), ()), EMPTY5], (["AH"], ["9D"]), (["3C"], []))
    assert core.press(10, 0, 1, -1, 0) == PLAYED  # K on A: the ring (R1)
    assert lines_of(core)[0] == {
        "ev": "play", "t": 10, "p": 0, "slot": 0, "card": "KS", "pile": 0
    }  # fmt: skip
    assert core.piles[0][-1] == card_from_name("KS")


def test_v1_no_wrap_refuses_a_king_on_an_ace_in_spit():
    core = spit_round(no_wrap=True)
    set_table(core, [(("KS",), ("2C",), (), (), ()), EMPTY5], (["AH"], ["9D"]), (["3C"], []))
    assert core.press(10, 0, 1, -1, 0) == INVALID


def test_v8_4_a_play_leaves_the_next_card_face_down_and_a_press_turns_it():
    core = spit_round()
    set_table(core, [((), ("QC", "7H"), (), (), ()), EMPTY5], (["6S"], ["9D"]), (["3C"], []))
    assert core.press(10, 0, 2, -1, 0) == PLAYED
    assert core.up[0][1] is False
    assert core.press(20, 0, 2, -1, 0) == PLAYED
    assert lines_of(core)[1] == {"ev": "turn", "t": 20, "p": 0, "slot": 1, "card": "QC"}
    assert core.up[0][1] is True


def test_v8_5_a_card_that_fits_nothing_moves_into_the_leftmost_empty_place():
    core = spit_round()
    places = [((), ("2C", "JH"), (), ("4C",), ()), (("5D",),) + EMPTY5[1:]]
    set_table(core, places, (["6S"], ["9D"]), (["3C"], ["8C"]))
    assert core.press(10, 0, 2, -1, 0) == PLAYED
    assert lines_of(core)[0] == {
        "ev": "move", "t": 10, "p": 0, "slot": 1, "card": "JH", "to": 0
    }  # fmt: skip
    assert core.stock[0][0] == cards("JH") and core.up[0][1] is False
    # a single card with nothing under it does not move: refused as invalid
    assert core.press(20, 0, 4, -1, 0) == INVALID


def test_r8_a_card_that_fitted_a_spit_card_covered_just_before_is_late_not_moved():
    core = spit_round()
    places = [(("JH", "5C"), (), (), (), ()), (("6D",),) + EMPTY5[1:]]
    set_table(core, places, (["4S", "3D"], ["9D"]), (["3C"], ["8C"]))
    # the 4 was covered by the 3 at t=100
    core.covered[0] = [100, 0] + [0] * 50
    assert core.press(300, 0, 1, -1, 0) == LATE  # 5C fitted the 4 200 ms ago
    assert lines_of(core)[0]["why"] == "late"
    assert core.press(600, 0, 1, -1, 0) == PLAYED  # past the window: it moves instead
    assert lines_of(core)[0]["ev"] == "move"


def test_v8_6_a_stall_makes_both_players_spit_onto_their_own_pile():
    core = spit_round()
    places = [(("9H",), (), (), (), ()), (("9C",),) + EMPTY5[1:]]
    set_table(core, places, (["4S"], ["4D"]), (["2C", "5C"], ["KC", "3H"]))
    core._check_stall(50)
    assert lines_of(core) == [{"ev": "stall", "t": 50, "due": 1050}]
    core.advance(1050)
    assert lines_of(core) == [
        {"ev": "spit", "t": 1050, "p": 0, "card": "5C", "pile": 0},
        {"ev": "spit", "t": 1050, "p": 1, "card": "3H", "pile": 1},
        {"ev": "stall", "t": 1050, "due": 2050},
    ]


def test_v8_7_a_player_out_of_spit_cards_lets_the_other_spit_alone_onto_one_pile():
    core = spit_round()
    places = [(("9H",), (), (), (), ()), (("9C",),) + EMPTY5[1:]]
    set_table(core, places, (["4S"], ["4D"]), ([], ["KC", "3H", "2H"]))
    core.target[1] = 0  # the lone spitter's choice, made at the first lone spit, then kept
    core._check_stall(0)
    core.advance(1000)
    core.target[1] = 1
    core.advance(2000)
    spits = [e for e in lines_of(core) if e["ev"] == "spit"]
    assert [(e["p"], e["pile"]) for e in spits] == [(1, 0), (1, 0)]


def test_v8_8_blocked_round_waits_for_a_slap_and_the_first_slap_takes_its_pile():
    core = spit_round()
    places = [(("9H",), (), (), (), ()), (("9C",),) + EMPTY5[1:]]
    set_table(core, places, (["4S", "5S", "6S"], ["4D"]), ([], []))
    core._check_stall(0)
    core.advance(1000)
    assert lines_of(core)[-1] == {"ev": "stop", "t": 1000, "why": "blocked", "p": None}
    assert core.press(1200, 0, 2, -1, 0) == EMPTY_SLOT  # only a slap counts now
    assert core.press(1300, 1, 6, 1, 0) == PLAYED  # R slaps pile 1 (one card)
    slap, end = lines_of(core)
    assert slap == {"ev": "slap", "t": 1300, "p": 1, "pile": 1}
    assert end["took"] == [0, 1] and end["left"] == [4, 2] and end["winner"] is None


def _slap_session(seed):
    """A session whose first round is stopped: both slap pile 0 at the same millisecond."""
    core = Spit(GameRules("spit"))
    session = GameSession(core, seed, core.rules, 1, GameLog())
    session.step(3000, [])
    places = [(("9H",), (), (), (), ()), (("9C",),) + EMPTY5[1:]]
    set_table(core, places, (["4S"], ["4D"]), ([], []))
    core._stop(10, b"blocked", -1)
    session.log.drain(lambda line: None)
    return session


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_v8_8_slaps_at_the_same_millisecond_are_a_tie_won_by_the_tie_turn(seed):
    session = _slap_session(seed)
    first = session.match.tie_next
    session.step(3100, [(0, 1), (7, 1)])  # both press L at once
    out = []
    session.log.drain(out.append)
    slap = json.loads(out[0])
    assert slap["ev"] == "slap" and slap["p"] == first and slap["tie"] == "won"
    assert session.match.tie_next == 1 - first


def test_v8_9_a_player_with_fifteen_cards_or_fewer_cannot_spit_and_one_pile_is_played():
    core = Spit(GameRules("spit"))
    core.log = GameLog()
    core.held = [list(range(0, 12)), list(range(12, 52))]
    core.deal(Rng(5), 2)
    deal = lines_of(core)[0]
    assert [len(place) for place in deal["stock"][0]] == [1, 2, 3, 3, 3]  # row by row
    assert deal["spit"][0] == [] and deal["piles"][0] == []
    assert len(deal["piles"][1]) == 1 and not core.two_piles


def test_v8_9_the_short_player_going_out_first_has_no_cards_and_wins():
    core = spit_round()
    core.two_piles = False
    core.opener = 1
    core.lone_pile = 1
    places = [(("TH",), (), (), (), ()), (("2C",),) + EMPTY5[1:]]
    set_table(core, places, ([], ["9S"]), ([], ["KC"]))
    assert core.press(40, 0, 1, -1, 0) == PLAYED
    end = lines_of(core)[-1]
    assert end["ev"] == "hand_end" and end["why"] == "out" and end["winner"] == 0
    assert end["took"] == [None, 1] and end["left"] == [0, 4]
    assert core.match_winner([1, 0], 1, 2) == 0


def test_v8_11_max_rounds_ends_the_match_for_the_player_with_fewer_cards():
    match, lines = run(2, max_rounds=1)
    end = json.loads(lines[-1])
    assert end["why"] == "max_rounds"
    left = json.loads(lines[-2])["left"]
    assert end["winner"] == (0 if left[0] < left[1] else 1)
    SpitReferee().check_log(lines)


@pytest.mark.parametrize("seed", range(1, 301 if SOAK else 13))
def test_bot_matches_of_spit_pass_the_referee(seed):
    players = (LEVELS[seed % 4], LEVELS[(seed // 4) % 4])
    match, lines = run(seed, players, no_wrap=seed % 3 == 0)
    assert match.winner in (0, 1)
    SpitReferee().check_log(lines)


def test_the_referee_catches_an_illegal_spit_play():
    _, lines = run(2)
    for i, line in enumerate(lines):
        if line.startswith('{"ev":"play"'):
            e = json.loads(line)
            e["pile"] = 1 - e["pile"]
            lines[i] = json.dumps(e)
            break
    with pytest.raises(RefereeError):
        SpitReferee().check_log(lines)


def test_cli_spit_match_writes_a_v2_log_that_replays_byte_for_byte(cli, tmp_path):
    log = tmp_path / "s.jsonl"
    cli("run", "--game", "spit", "--seed", "2", "--p1", "bot:hard", "--p2", "bot:medium",
        "--log", str(log))  # fmt: skip
    first = json.loads(log.read_text().splitlines()[0])
    assert first["v"] == 2 and first["game"] == "spit" and first["best_of"] == 1
    result = cli("replay", str(log))
    assert "replayed identically" in result.stdout
    SpitReferee().check_log(log.read_text().splitlines())


def test_replay_names_the_first_line_of_a_tampered_spit_log(cli, tmp_path):
    log = tmp_path / "s.jsonl"
    cli("run", "--game", "spit", "--seed", "4", "--log", str(log))
    lines = log.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith('{"ev":"turn"'))
    e = json.loads(lines[at])
    e["t"] += 1
    lines[at] = json.dumps(e, separators=(",", ":"))
    log.write_text("\n".join(lines) + "\n")
    result = cli("replay", str(log), check=False)
    assert result.returncode == 1
    assert f"line {at + 1} diverges" in result.stderr


@pytest.mark.parametrize(
    "args, words",
    [
        (["--game", "spit", "--players", "3"], "two-player game"),
        (["--game", "spit", "--claim", "race"], "--claim does not apply"),
        (["--game", "spit", "--best-of", "5"], "one game played in rounds"),
        (["--game", "spit", "--screens", "shots"], "classic two-player Speed only"),
        (["--players", "3", "--script", "s.txt"], "two-player games only (not V10)"),
        (["--game", "spit", "--max-rounds", "0"], "max_rounds must be at least 1"),
    ],
)
def test_bad_spit_options_are_one_line_and_exit_2(cli, args, words):
    result = cli("run", *args, check=False)
    assert result.returncode == 2
    assert words in result.stderr and len(result.stderr.splitlines()) == 1


def test_a_v2_log_with_a_bad_field_is_refused_with_exit_2(cli, tmp_path):
    log = tmp_path / "s.jsonl"
    cli("run", "--game", "spit", "--seed", "3", "--log", str(log))
    text = log.read_text().replace('"slot":0', '"slot":9', 1)
    log.write_text(text)
    result = cli("replay", str(log), check=False)
    assert result.returncode == 2 and "field slot" in result.stderr


def test_a_version_1_log_relabelled_version_2_is_refused_for_its_missing_game(cli, tmp_path):
    from conftest import ROOT

    golden = ROOT + "/tests/golden/logs/seed1_hard_vs_easy.jsonl"
    lines = open(golden).read().splitlines()
    lines[0] = lines[0].replace('"v":1', '"v":2')
    log = tmp_path / "v.jsonl"
    log.write_text("\n".join(lines) + "\n")
    result = cli("replay", str(log), check=False)
    assert result.returncode == 2 and "field game must be one of" in result.stderr


def test_a_spit_match_in_the_micropython_vm_writes_the_same_log(cli, tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    cli("run", "--game", "spit", "--seed", "7", "--log", str(a))
    cli("run", "--game", "spit", "--seed", "7", "--log", str(b), "--vm", "micropython")
    assert a.read_bytes() == b.read_bytes()


@pytest.mark.parametrize("seed", range(1, 21 if SOAK else 4))
def test_every_altered_spit_log_is_refused_by_replay(tmp_path, seed):
    lines = bot_match("spit", seed, 2)
    assert check_altered(tmp_path, lines, seed) > 0
