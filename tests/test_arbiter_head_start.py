"""The head start (docs/rules.md H1, issue 30): a player's presses count as if made N ms
earlier; the arbiter orders by adjusted time, the match's clock lags by the largest lead,
the log's match line says so (``head_start_ms``) and replay plays it again."""

import json
import os
import tempfile

import pytest
from board_loop import mash_presses, play_board_loop
from conftest import EventQueue, run_cli
from referee import Referee
from runner import Simulation
from script import parse_script
from speedduo.game.gamerules import GameRules
from speedduo.game.match import Match
from speedduo.game.rules import Rules, head_starts
from speedduo.log.matchlog import MatchLog
from speedduo.loop.arbiter import Arbiter
from speedduo.loop.keybatch import KeyBatch
from speedduo.loop.opponent import KeyEvent
from speedduo.loop.settings import Settings
from test_opponent import MASH

from host_sim.replay import replay_file

# seed 2: player 0's slot 1 and player 1's slot 2 aim at the same pile (test_arbiter.py)
RACE = "200000 0 1\n%d 1 2\n"


def run(script, seed=2, **rules):
    lines = []
    sim = Simulation(seed, Rules(idle_ms=6000, **rules), 3, ["none", "none"], parse_script(script))
    sim.run(lines.append)
    Referee().check_log(lines)
    return sim, lines, [json.loads(line) for line in lines]


def presses(events):
    return [e for e in events if e["ev"] in ("play", "reject")]


def test_h1_a_later_press_with_a_head_start_wins_the_race_by_adjusted_time():
    """Player 1 presses 50 ms after player 0, with 100 ms of head start: 50 ms earlier."""
    _, _, events = run(RACE % 250000, head_start_p2_ms=100)
    first = presses(events)
    assert first[0]["p"] == 1 and first[0]["ev"] == "play" and first[0]["t"] == 150
    assert first[1]["p"] == 0 and first[1]["why"] == "late"


def test_h1_a_head_start_shorter_than_the_gap_does_not_win():
    _, _, events = run(RACE % 320000, head_start_p2_ms=100)  # adjusted 220 ms: later
    first = presses(events)
    assert first[0]["p"] == 0 and first[0]["ev"] == "play" and first[0]["t"] == 200


def test_h1_equal_adjusted_times_are_a_tie_settled_by_turns():
    _, _, events = run(RACE % 300000, head_start_p2_ms=100)  # adjusted: the same µs
    first = presses(events)
    assert {first[0]["tie"], first[1]["tie"]} == {"won", "lost"}
    won = [e["p"] for e in first if e.get("tie") == "won"]
    assert won == [events[0]["tie_first"]]


def test_h1_both_players_leads_count_only_by_their_difference_in_the_order():
    """0 at 600 ms less 300, 1 at 640 ms less 350: 1 is 10 ms earlier."""
    _, _, events = run("600000 0 1\n640000 1 2\n", head_start_p1_ms=300, head_start_p2_ms=350)
    first = presses(events)
    assert first[0]["p"] == 1 and first[0]["t"] == 290
    assert first[1]["p"] == 0 and first[1]["why"] == "late"


def _classic_arbiter(**rules):
    match = Match(2, Rules(**rules), 3, MatchLog())
    queue = EventQueue()
    return Arbiter(queue, match, 0, KeyEvent()), queue, match


def test_h1_the_match_clock_lags_the_keys_by_the_largest_lead():
    """A press is applied only once no press of the other player could still be earlier
    in adjusted time: ``lag`` ms after it (the largest lead)."""
    arbiter, queue, match = _classic_arbiter(head_start_p1_ms=50, head_start_p2_ms=300)
    assert arbiter.lag == 300
    queue.items.append((3500, 1, True))  # player 0: adjusted 3450
    arbiter.service(3700)
    assert arbiter.held_back == 1 and arbiter.moved_to < 3450  # not yet: 3700 - 300 = 3400
    arbiter.service(3751)
    assert arbiter.held_back == 0 and arbiter.moved_to >= 3450
    assert match.clock == 3751 - 1 - 300  # the match's clock: the keys' less the lag


def test_h1_without_a_head_start_nothing_waits():
    arbiter, queue, _ = _classic_arbiter()
    assert arbiter.lag == 0
    queue.items.append((3500, 1, True))
    arbiter.service(3501)
    assert arbiter.held_back == 0


def test_h1_an_adjusted_time_is_clamped_at_the_match_start():
    """A press is never counted before the match began (adjusted time >= 0)."""
    batch = KeyBatch()
    batch.lead[0] = 400
    queue = EventQueue([(100, 1, True), (300, 8, True)])
    batch.read(queue, KeyEvent(), lambda ticks: ticks)
    assert list(batch.at[: batch.count]) == [0, 300]


def test_h1_a_press_never_counts_before_the_table_it_answers_could_be_seen():
    """The screens show the match's clock, ``lag`` behind the keys': player 0 (400 ms of
    head start) pressing 200 ms after the start signal still saw the countdown (R3), so
    its press counts before the hand, and plays nothing; 600 ms after, it plays at 200."""
    _, lines, events = run("200000 0 1\n", head_start_p1_ms=400)
    assert presses(events) == []
    _, lines, events = run("600000 0 1\n", head_start_p1_ms=400)
    assert [(e["p"], e["t"]) for e in presses(events)] == [(0, 200)]
    assert replay_ok(lines)


def replay_ok(lines):
    fd, path = tempfile.mkstemp(suffix=".jsonl")
    with os.fdopen(fd, "w") as f:
        f.write("\n".join(lines) + "\n")
    try:
        return replay_file(path)[0]
    finally:
        os.unlink(path)


def test_h1_options_are_checked_and_kept_out_of_the_rules_object():
    rules = Rules(head_start_p1_ms=150)
    assert head_starts(rules) == (150, 0)
    assert "head_start_p1_ms" not in dict(rules.as_pairs())  # the log's own field
    for bad, why in ((75, "multiple of 50"), (450, "at most 400"), (-50, ">= 0")):
        with pytest.raises(ValueError, match=why):
            Rules(head_start_p2_ms=bad)
    assert head_starts(GameRules("spit", head_start_p2_ms=400)) == (0, 400)


def test_h1_the_match_line_carries_head_start_ms_only_when_one_is_set():
    _, lines, _ = run("", head_start_p2_ms=250)
    assert lines[0].endswith(
        ',"tie_first":%d,"head_start_ms":[0,250],"stamped_by":"pio"}'
        % (json.loads(lines[0])["tie_first"])
    )
    _, lines, _ = run("")
    assert "head_start_ms" not in lines[0]


@pytest.mark.parametrize("game", ["speed", "spit", "california"])
def test_h1_every_game_with_a_head_start_replays_identically(tmp_path, game):
    log = tmp_path / "m.jsonl"
    run_cli(
        "run", "--game", game, "--seed", "4", "--p1", "bot:hard", "--p2", "bot:medium",
        "--head-start-p2-ms", "300", "--log", str(log),
    )  # fmt: skip
    first = json.loads(log.read_text().splitlines()[0])
    assert first["head_start_ms"] == [0, 300]
    assert "replayed identically" in run_cli("replay", str(log)).stdout


@pytest.mark.parametrize("game", ["speed", "spit"])
def test_h1_replay_refuses_a_log_whose_head_start_was_altered(tmp_path, game):
    log = tmp_path / "m.jsonl"
    run_cli(
        "run", "--game", game, "--seed", "3", "--p1", "bot:hard", "--p2", "bot:hard",
        "--head-start-p2-ms", "300", "--log", str(log),
    )  # fmt: skip
    text = log.read_text()
    for altered in ("[0,250]", "[300,0]", "[50,300]"):
        bad = tmp_path / "altered.jsonl"
        bad.write_text(text.replace('"head_start_ms":[0,300]', '"head_start_ms":' + altered, 1))
        result = run_cli("replay", str(bad), check=False)
        assert result.returncode == 1, altered
        assert "head_start_ms" in result.stdout + result.stderr


@pytest.mark.parametrize("game", ["speed", "spit"])
def test_h1_replay_names_the_field_of_a_log_whose_head_start_was_removed(tmp_path, game):
    """Classic Speed's version 1 record is in read order, so no time runs backwards there:
    its key events ride on lines of hand 1 more than one loop pass before them instead."""
    log = tmp_path / "m.jsonl"
    run_cli(
        "run", "--game", game, "--seed", "3", "--p1", "bot:hard", "--p2", "bot:hard",
        "--head-start-p2-ms", "300", "--log", str(log),
    )  # fmt: skip
    bad = tmp_path / "removed.jsonl"
    bad.write_text(log.read_text().replace(',"head_start_ms":[0,300]', "", 1))
    result = run_cli("replay", str(bad), check=False)
    assert result.returncode == 1
    assert "head_start_ms: was it removed?" in result.stdout + result.stderr


def test_h1_replay_does_not_ask_for_a_head_start_a_log_never_had(tmp_path):
    log = tmp_path / "m.jsonl"
    run_cli("run", "--seed", "3", "--p1", "bot:hard", "--p2", "bot:hard", "--log", str(log))
    lines = log.read_text().splitlines()
    i = next(i for i, line in enumerate(lines) if '"ev":"play"' in line)
    event = json.loads(lines[i])
    lines[i] = lines[i].replace('"t":%d,' % event["t"], '"t":%d,' % (event["t"] - 1), 1)
    bad = tmp_path / "shifted.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    result = run_cli("replay", str(bad), check=False)
    assert result.returncode == 1 and "head_start_ms" not in result.stdout + result.stderr


def test_h1_replay_refuses_a_malformed_head_start_field(tmp_path):
    log = tmp_path / "m.jsonl"
    run_cli("run", "--seed", "3", "--head-start-p1-ms", "100", "--log", str(log))
    text = log.read_text()
    for bad_value in ("[0,30]", "[0,0]", "[500,0]", "[100]"):
        bad = tmp_path / "bad.jsonl"
        bad.write_text(text.replace('"head_start_ms":[100,0]', '"head_start_ms":' + bad_value))
        result = run_cli("replay", str(bad), check=False)
        assert result.returncode == 2 and "head_start_ms" in result.stderr, bad_value


def test_h1_a_spit_board_loop_against_the_opponent_with_a_head_start_replays():
    """The board's opponent (player 1) sees the lagged table and is handicapped the same
    way; the log replays."""
    app, lines, _ = play_board_loop(
        "spit", 5000, mash_presses(), opponent=3, head_start_p1_ms=200, idle_ms=8000
    )
    assert app.arbiter.lag == 200
    assert json.loads(lines[0])["head_start_ms"] == [200, 0]
    assert any(json.loads(line).get("p") == 1 for line in lines[1:])  # the opponent played
    assert replay_ok(lines)


def test_h1_the_board_takes_the_flags_against_its_opponent_and_replays(tmp_path):
    log = tmp_path / "b.jsonl"
    run_cli(
        "board", "--opponent", "hard", "--seed", "2", "--script", MASH,
        "--head-start-p1-ms", "150", "--log", str(log),
    )  # fmt: skip
    assert json.loads(log.read_text().splitlines()[0])["head_start_ms"] == [150, 0]
    assert "replayed identically" in run_cli("replay", str(log)).stdout


@pytest.mark.parametrize(
    "value, why", [("75", "multiple of 50"), ("450", "at most 400"), ("-50", ">= 0")]
)
def test_h1_bad_flag_values_are_one_line_and_exit_2(value, why):
    for command in ("run", "board"):
        result = run_cli(command, "--head-start-p2-ms", value, check=False)
        assert result.returncode == 2 and why in result.stderr, command
        assert len(result.stderr.strip().splitlines()) == 1


def test_h1_is_for_two_players_only():
    result = run_cli("run", "--players", "3", "--head-start-p1-ms", "50", check=False)
    assert result.returncode == 2 and "--head-start-p1-ms" in result.stderr


def test_h1_settings_keys_set_the_head_starts_and_bad_values_are_noted():
    good = {"SPEED_HEAD_START_P1_MS": "150", "SPEED_HEAD_START_P2_MS": "400"}
    settings = Settings(good.get, list(good))
    assert head_starts(settings.rules) == (150, 400) and not settings.unknown
    assert not settings.problems
    bad = {"SPEED_HEAD_START_P1_MS": "75", "SPEED_HEAD_START_P2_MS": "800"}
    settings = Settings(bad.get, list(bad))
    assert head_starts(settings.rules) == (0, 0)
    assert settings.problems == [
        ("SPEED_HEAD_START_P1_MS", "must be a multiple of 50 (ms)"),
        ("SPEED_HEAD_START_P2_MS", "must be at most 400 (ms)"),
    ]


@pytest.mark.parametrize("game", ["speed", "spit"])
def test_h1_the_micropython_vm_writes_the_same_log(tmp_path, game):
    logs = []
    for vm in ("cpython", "micropython"):
        log = tmp_path / (vm + ".jsonl")
        run_cli(
            "run", "--game", game, "--seed", "6", "--p1", "bot:hard", "--p2", "bot:easy",
            "--head-start-p2-ms", "350", "--vm", vm, "--log", str(log),
        )  # fmt: skip
        logs.append(log.read_text())
    assert logs[0] == logs[1] and '"head_start_ms":[0,350]' in logs[0]


def test_h1_a_bot_takes_a_head_start_as_a_person_does():
    """The bots press the simulated buttons: with 400 ms of head start bot:medium beats
    the bot:hard it loses to without one (seed 3; bench/bench_handicap.py measures more)."""
    winners = []
    for lead in (0, 400):
        rules = Rules(head_start_p2_ms=lead)
        lines = []
        Simulation(3, rules, 3, ["bot:hard", "bot:medium"]).run(lines.append)
        Referee().check_log(lines)
        winners.append(json.loads(lines[-1])["winner"])
        assert replay_ok(lines)
    assert winners == [0, 1]
