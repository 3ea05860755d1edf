"""The referee checks a head-start log's adjusted order (docs/rules.md H1, issue 30): each
line a press decided is at that press's own time (the key record's) less its player's head
start, and they come in the order of those adjusted times. Real logs pass; a log whose
order was swapped or whose ``head_start_ms`` was altered fails, naming the line."""

import json

import pytest
from conftest import run_cli
from referee import CaliforniaReferee, Referee, RefereeError, SpitReferee

REFEREES = {"speed": Referee, "spit": SpitReferee, "california": CaliforniaReferee}
DECIDED = {"play", "reject", "turn", "move", "slap", "cover"}
LEAD = '"head_start_ms":[0,300]'


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    """``host_sim run`` logs with player 2 300 ms ahead, one a game."""
    found = {}
    for game in REFEREES:
        log = tmp_path_factory.mktemp(game) / "m.jsonl"
        run_cli(
            "run", "--game", game, "--seed", "3", "--p1", "bot:hard", "--p2", "bot:hard",
            "--head-start-p2-ms", "300", "--log", str(log),
        )  # fmt: skip
        found[game] = log.read_text().splitlines()
    return found


def referee_error(game, lines):
    with pytest.raises(RefereeError) as caught:
        REFEREES[game]().check_log(lines)
    return str(caught.value)


@pytest.mark.parametrize("game", sorted(REFEREES))
def test_h1_real_logs_with_a_head_start_pass_the_referee(logs, game):
    lines = logs[game]
    assert LEAD in lines[0]
    REFEREES[game]().check_log(lines)


def test_h1_the_logs_have_races_the_head_start_decided(logs):
    """Player 2's press came later by the keys' clock but was decided first: the check
    above is a real one."""
    events = [json.loads(line) for line in logs["speed"]]
    first, second = [e for e in events if e["ev"] in DECIDED][:2]
    assert (first["p"], first["t"], second["p"], second["t"]) == (1, 495, 0, 779)
    own = {k: t // 1000 for e in events[:4] for t, k, down in e.get("keys_us", ()) if down}
    assert own[3] < own[11]  # player 1's key 3 went down before player 2's key 11


@pytest.mark.parametrize("game", sorted(REFEREES))
@pytest.mark.parametrize("altered", ["[0,250]", "[300,0]", "[50,300]", "[0,350]"])
def test_h1_a_log_whose_head_start_was_altered_fails_the_referee(logs, game, altered):
    lines = list(logs[game])
    lines[0] = lines[0].replace(LEAD, '"head_start_ms":' + altered)
    message = referee_error(game, lines)
    assert "head_start_ms" in message and "(H1)" in message
    assert message.startswith("line ") and not message.startswith("line 1:")


@pytest.mark.parametrize("game", sorted(REFEREES))
def test_h1_a_log_whose_order_was_swapped_fails_the_referee(logs, game):
    """Two decided lines of different players at different times trade places (each keeps
    its line's key record): the later adjusted time now comes first (in version 2 the
    record is written at the instant, so the press of the line moved up is not read yet)."""
    lines = list(logs[game])
    events = [json.loads(line) for line in lines]
    at = [i for i, e in enumerate(events) if e["ev"] in DECIDED]
    i, j = next(
        (i, j)
        for i, j in zip(at, at[1:], strict=False)
        if events[i]["p"] != events[j]["p"] and events[i]["t"] < events[j]["t"]
    )
    a, b = events[i], events[j]
    keys = [{k: v for k, v in e.items() if k.startswith("keys")} for e in (a, b)]
    body = [{k: v for k, v in e.items() if not k.startswith("keys")} for e in (a, b)]
    lines[i] = json.dumps({**body[1], **keys[0]}, separators=(",", ":"))
    lines[j] = json.dumps({**body[0], **keys[1]}, separators=(",", ":"))
    swapped = ("line %d:" % (i + 1), "line %d:" % (j + 1))
    assert referee_error(game, lines).startswith(swapped)
    # the adjusted-order check alone (the card checks may see the swap first)
    order_only = type("OrderOnly", (REFEREES[game],), {"check": lambda self, e: None})
    with pytest.raises(RefereeError) as caught:
        order_only().check_log(lines)
    message = str(caught.value)
    assert message.startswith(swapped) and "(H1)" in message, message
    if game == "speed":  # version 1: both presses were read by then, the order is wrong
        assert message.startswith(swapped[1]) and "not in the adjusted order" in message


@pytest.mark.parametrize("game", sorted(REFEREES))
def test_h1_a_decided_line_a_ms_off_its_press_fails_the_referee(logs, game):
    lines = list(logs[game])
    i = next(i for i, line in enumerate(lines) if json.loads(line)["ev"] in DECIDED)
    event = json.loads(lines[i])
    lines[i] = lines[i].replace('"t":%d,' % event["t"], '"t":%d,' % (event["t"] + 1), 1)
    message = referee_error(game, lines)
    assert message.startswith("line %d:" % (i + 1))
    assert "no press of key" in message and "head_start_ms" in message


def test_h1_a_malformed_head_start_field_fails_the_referee(logs):
    for bad in ("[0,30]", "[0,0]", "[500,0]", "[100]"):
        lines = list(logs["speed"])
        lines[0] = lines[0].replace(LEAD, '"head_start_ms":' + bad)
        assert referee_error("speed", lines).startswith("line 1: head_start_ms"), bad
