"""V8 Spit and V9 California Speed on the board (issue 13): the board loop (game_app.py),
the menu's GAME item and SPEED_GAME, the board's opponent for them (game_opponent.py),
and whole matches through code.py's program whose logs replay byte for byte and pass the
games' referees (tests/referee.py).
"""

import json

import pytest
from board_loop import RecordingScreens, make_core, play_board_loop
from conftest import EventQueue, needs_firmware, needs_long, run_cli
from referee import CaliforniaReferee, SpitReferee
from speedduo.display.menu import (
    BEST_OF,
    DOUBLE_DECK,
    GAME,
    GAME_IDS,
    HOW_TO_PLAY,
    JOKERS,
    NO_WRAP,
    OPPONENT,
    PENALTY,
    PLAY,
    SAME_RANK,
    SELF_TEST,
    SOUND,
    STATS,
    Menu,
)
from speedduo.game.gamematch import GameSession
from speedduo.game.gamerules import GameRules, options_of
from speedduo.game.rules import Rules
from speedduo.log.gamelog import GameLog
from speedduo.loop.game_app import REBOUNCE_MS, GameApp
from speedduo.loop.game_opponent import GameBot
from speedduo.loop.opponent import KeyEvent
from speedduo.loop.settings import Settings

from host_sim.replay import check_entries
from host_sim.replay_games import parse_games_log

REFEREES = {"spit": SpitReferee, "california": CaliforniaReferee}


def _mash(player=0, seconds=120, every=90, hold=40, start=3500):
    """Player ``player`` presses its keys in turn (L/R among them) every ``every`` ms."""
    keys = (1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6)
    out = []
    t = start
    i = 0
    while t < seconds * 1000:
        key = player * 7 + keys[(i * 5 + player) % len(keys)]
        out += [(t, key, 1), (t + hold, key, 0)]
        t += every
        i += 1
    return out


def _replays(lines):
    entries = parse_games_log("".join(line + "\n" for line in lines))
    check_entries(entries)  # every line made again, byte for byte
    return entries


@pytest.mark.parametrize("game", ["spit", "california"])
def test_a_match_on_the_board_loop_replays_byte_for_byte_across_the_ticks_wrap(game):
    """R4/R8/R13 through GameSession: the key record the loop writes replays to the same
    lines; ticks_ms wraps at 2**29 during the match (as arbiter.py handles it)."""
    start = (1 << 29) - 4000
    presses = _mash(0) + _mash(1, every=110)
    app, lines, _ = play_board_loop(game, start, presses)
    assert app.over and json.loads(lines[-1])["ev"] == "match_end"
    entries = _replays(lines)
    REFEREES[game]().check_log(lines)
    keys = [k for _, obj in entries for k in obj.get("keys", ())]
    assert keys and any(t > 4000 for t, _, _ in keys)  # past the wrap
    assert app.arbiter.applied > 20


def test_one_instant_of_both_players_is_one_step_and_ties_rotate():
    """Presses stamped with the same ms reach GameSession.step together (R4: a tie)."""
    presses = []
    for i in range(40):
        t = 3600 + 300 * i
        for key in (1 + i % 5, 8 + i % 5):
            presses += [(t, key, 1), (t + 50, key, 0)]
    app, lines, _ = play_board_loop("california", 77, presses)
    _replays(lines)
    instants = {}
    for _, obj in parse_games_log("".join(line + "\n" for line in lines))[1:]:
        for t, key, _down in obj.get("keys", ()):
            instants.setdefault(t, []).append(key)
    assert any(len(keys) == 2 for keys in instants.values())


def test_views_hear_every_logged_event_and_the_send_line_gets_bytearrays():
    """Each event the core logs reaches both views (and the sound) in the pass that logged
    it, after the core has returned (CircuitPython's Python stack is short)."""
    sent = []
    clock = [0]
    rules = GameRules("spit", idle_ms=2000)
    session = GameSession(make_core("spit", rules), 5, rules, 1, GameLog())
    screens = RecordingScreens()
    app = GameApp(
        EventQueue(),
        lambda: clock[0],
        session,
        sent.append,
        screens,
        start_ticks=0,
        event=KeyEvent(),
    )
    assert isinstance(sent[0], bytearray)  # LogPort.send appends to it
    clock[0] = 3001
    app.step()  # the match moves on to 3000: the deal (R3 countdown over)
    names = [ev for ev, _, _ in screens.views[0].events]
    assert names == ["deal"] and screens.views[1].events == screens.views[0].events
    assert screens.views[0].events[0][2] == 3000  # its match time: the hand's start
    assert screens.views[0].refreshes == 1  # the screens were refreshed in that pass


def test_chatter_and_unpaired_edges_stay_out_of_the_key_record():
    """A press REBOUNCE_MS after its key's release is bounce (as arbiter.py); a release
    of a key not down (the PLAY press's) is not recorded: each key alternates (replay)."""
    presses = [(10, 3, 0)]  # the PLAY press's release
    presses += [(3600, 1, 1), (3650, 1, 0), (3650 + REBOUNCE_MS - 5, 1, 1), (3700, 1, 0)]
    app, lines, _ = play_board_loop("spit", 0, presses, idle_ms=1000)
    keys = [k for line in lines for k in json.loads(line).get("keys", ())]
    assert keys == [[3600, 1, 1], [3650, 1, 0]] and app.arbiter.bounces == 1
    _replays(lines)


def test_a_lost_release_is_recorded_before_the_next_press_and_overflow_flashes():
    presses = [(3600, 2, 1), (3700, 2, 1), (3750, 2, 0)]
    app, lines, screens = play_board_loop("spit", 0, presses, idle_ms=1000)
    keys = [k for line in lines for k in json.loads(line).get("keys", ())]
    assert keys == [[3600, 2, 1], [3700, 2, 0], [3700, 2, 1], [3750, 2, 0]]
    _replays(lines)


@pytest.mark.parametrize("game", ["spit", "california"])
def test_the_boards_opponent_plays_player_1_through_the_key_record(game):
    """game_opponent.GameOpponent: its presses are key events (logged, replayed); the
    physical row of player 1 is ignored while it plays."""
    presses = _mash(0, seconds=60) + [(5000, 9, 1), (5040, 9, 0)]
    app, lines, _ = play_board_loop(game, 123, presses, opponent=3, idle_ms=4000)
    entries = _replays(lines)
    REFEREES[game]().check_log(lines)
    moves = [obj for _, obj in entries if obj.get("p") == 1 and obj["ev"] != "reject"]
    assert moves and app.opponent.presses > 5 and app.opponent.ignored == 1
    keys = [k for _, obj in entries for k in obj.get("keys", ())]
    assert [5000, 9, 1] not in keys


def test_the_simulators_bots_are_the_boards_opponent_code():
    import bots
    from speedduo.game.rng import Rng

    assert isinstance(bots.GameBotPlan(0, "hard", Rng(1)).bot, GameBot)


@pytest.mark.parametrize("game", ["spit", "california"])
def test_a_headless_run_of_a_board_game_goes_through_the_boards_loop(game):
    from runner import Simulation

    lines = []
    sim = Simulation(4, GameRules(game), 3, ["bot:hard", "bot:medium"], game=game)
    sim.run(lines.append)
    presses = [k for _, obj in _replays(lines) for k in obj.get("keys", ()) if k[2] == 1]
    assert isinstance(sim.app, GameApp)
    assert sim.app.arbiter.presses == len(presses) > 10  # every press read by the arbiter


def test_speed_for_three_takes_the_runners_direct_path():
    from runner import Simulation

    lines = []
    sim = Simulation(4, GameRules("speed"), 3, ["bot:hard"] * 3)
    sim.run(lines.append)
    assert sim.app is None  # three rows of keys: more than the loop's 14
    assert json.loads(lines[0])["players"] == 3 and json.loads(lines[-1])["ev"] == "match_end"


# ---- the menu and settings ----


def test_menu_game_item_cycles_and_keeps_the_classic_items_where_they_were():
    menu = Menu(Rules(), 3)
    assert (OPPONENT, GAME, SOUND, STATS, SELF_TEST, HOW_TO_PLAY) == (7, 8, 14, 15, 16, 17)
    assert menu.lines()[GAME] == "GAME SPEED" and len(menu.lines()) == HOW_TO_PLAY + 1
    menu.selected = GAME
    menu.press(1)
    assert GAME_IDS[menu.game] == "spit" and menu.lines()[GAME] == "GAME SPIT"
    menu.press(8)
    assert menu.lines()[GAME] == "GAME CALIFORNIA"
    menu.press(1)
    assert menu.game == 0
    menu.selected = PLAY
    for want in (HOW_TO_PLAY, SELF_TEST, STATS, SOUND):  # L from PLAY (board_menu_mute.txt)
        menu.press(0)
        assert menu.selected == want


def test_menu_items_the_game_does_not_take_say_na_and_stay_as_they_are():
    rules = Rules()
    menu = Menu(rules, 5, game=GAME_IDS.index("california"))
    lines = menu.lines()
    for item in (BEST_OF, PENALTY, NO_WRAP, SAME_RANK, JOKERS, DOUBLE_DECK):
        assert lines[item].endswith(" N/A") and len(lines[item]) <= 21
        menu.selected = item
        menu.press(1)
    assert menu.best_of == 5 and rules.as_pairs() == Rules().as_pairs()
    menu.game = GAME_IDS.index("spit")
    assert menu.lines()[NO_WRAP] == "A-K WRAP ON"  # V1 applies to Spit
    menu.selected = NO_WRAP
    menu.press(1)
    assert rules.no_wrap


def test_menu_items_agree_with_the_games_rule_options():
    items = {BEST_OF: None, PENALTY: "penalty", NO_WRAP: "no_wrap", SAME_RANK: "same_rank"}
    items.update({JOKERS: "jokers", DOUBLE_DECK: "double_deck"})
    for game in ("spit", "california"):
        menu = Menu(Rules(), 3, game=GAME_IDS.index(game))
        names = [name for name, _ in options_of(game)]
        for item, name in items.items():
            assert menu.applies(item) == (name in names), (game, name)
    assert GAME_IDS == ("speed", "spit", "california")


def test_speed_game_setting_and_a_bad_value_noted():
    assert Settings({"SPEED_GAME": "spit"}.get).game == 1
    assert Settings({}.get).game == 0
    bad = Settings({"SPEED_GAME": "poker"}.get)
    assert bad.game == 0 and bad.problems == [("SPEED_GAME", "speed, spit or california")]
    assert "SPEED_GAME" not in Settings({}.get, names=["SPEED_GAME"]).unknown


# ---- code.py's program ----


def _board(tmp_path, game, *extra, script_presses=None):
    script = tmp_path / "script.txt"
    lines = ["1000000 0 1"]  # PLAY
    for t, key, down in script_presses or []:
        lines.append(
            "%d %d %s %s" % (t * 1000, key // 7, "L12345R"[key % 7], "down" if down else "up")
        )
    script.write_text("\n".join(lines) + "\n")
    log = tmp_path / "board.jsonl"
    result = run_cli(
        "board", "--game", game, "--seed", "4", "--script", str(script), "--log", str(log), *extra,
        check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return result, log


def _checked(log, game):
    replay = run_cli("replay", str(log), check=False)
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert "replayed identically" in replay.stdout
    lines = log.read_text().splitlines()
    REFEREES[game]().check_log(lines)
    return [json.loads(line) for line in lines]


@pytest.mark.parametrize("game", ["spit", "california"])
def test_a_two_player_match_through_code_py_replays_and_passes_the_referee(tmp_path, game):
    presses = [(t + 1000, k, d) for t, k, d in _mash(0, 400) + _mash(1, 400, every=110)]
    result, log = _board(tmp_path, game, script_presses=presses)
    events = _checked(log, game)
    assert events[0]["game"] == game and events[-1]["ev"] == "match_end"
    assert events[-1]["winner"] in (0, 1)  # played to its end, not stopped idle
    assert "board: 1 match(es)" in result.stdout


@pytest.mark.parametrize("game", ["spit", "california"])
def test_one_player_against_the_boards_opponent_through_code_py(tmp_path, game):
    presses = [(t + 1000, k, d) for t, k, d in _mash(0, 400)]
    _, log = _board(tmp_path, game, "--opponent", "hard", script_presses=presses)
    events = _checked(log, game)
    assert {e["p"] for e in events if e["ev"] in ("play", "cover")} == {0, 1}
    assert events[-1]["winner"] in (0, 1)


@pytest.mark.parametrize(
    "args, message",
    [
        (("--game", "california", "--no-wrap"), "--no-wrap does not apply to --game california"),
        (("--game", "spit", "--jokers"), "--jokers does not apply to --game spit"),
        (("--game", "spit", "--best-of", "5"), "--best-of: spit is one game played in rounds"),
    ],
)
def test_board_refuses_options_the_game_does_not_take(args, message):
    result = run_cli("board", *args, check=False)
    assert result.returncode == 2 and message in result.stderr


# ---- on the real firmware (CircuitPython 10.2.1 on an emulated RP2040, docs/device.md) ----


def _device_script(path, seconds=3, every_us=150000):
    """PLAY at 6 s (the keypad is scanning and the menu up ~5.1 s after power-on on the
    firmware), then from 9.1 s, after the R3 countdown, both players press 1-5 in turn
    every 150 ms (as test_device.py's mash)."""
    lines = ["6000000 0 1"]
    t, i = 9100000, 0
    while t < 9100000 + seconds * 1000000:
        lines.append("%d %d %s" % (t, i % 2, "12345"[(i // 2) % 5]))
        t += every_us
        i += 1
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def _device(tmp_path, game, *extra, seconds=3):
    log, report = tmp_path / "d.jsonl", tmp_path / "r.json"
    result = run_cli(
        "device", "--game", game, "--seed", "2", "--idle-ms", "1500",
        "--script", _device_script(tmp_path / "s.txt", seconds), "--log", str(log),
        "--report", str(report), *extra, check=False, timeout=1800,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr  # no traceback on the console
    figures = json.loads(report.read_text())
    print(game, json.dumps(figures, sort_keys=True))  # the figures, for docs/device.md
    return _checked(log, game), figures


@needs_firmware
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("game", ["spit", "california"])
def test_device_a_short_match_of_each_game_replays_and_reports_heap(tmp_path, game):
    """On the stock firmware with the game's .py on the drive (the fallback to Speed Duo's
    own UF2, docs/firmware.md): it plays and allocates nothing per press."""
    events, figures = _device(tmp_path, game, "--deploy", "py")
    assert events[0]["game"] == game and events[-1]["ev"] == "match_end"
    assert figures["mem_free_live_min"] > 0 and figures["steps_measured"] > 100
    assert any(e["ev"] in ("play", "cover", "turn") for e in events)
    assert figures["alloc_per_press"] == 0


@needs_long
@pytest.mark.timeout(3600)
@pytest.mark.parametrize("game", ["spit", "california"])
def test_long_device_against_the_boards_opponent(tmp_path, game):
    events, figures = _device(tmp_path, game, "--opponent", "hard", seconds=10)
    assert any(e.get("p") == 1 and e["ev"] in ("play", "cover", "turn") for e in events)
    assert figures["mem_free_live_min"] > 0


@pytest.mark.parametrize("game", ["spit", "california"])
def test_the_board_program_with_each_game_runs_in_the_micropython_vm(tmp_path, game):
    """The same program under MicroPython (lib's Python subset; the board's imports)."""
    script = _device_script(tmp_path / "s.txt")
    log = tmp_path / "vm.jsonl"
    result = run_cli(
        "board", "--vm", "micropython", "--game", game, "--opponent", "medium", "--seed", "2",
        "--idle-ms", "1500", "--script", script, "--log", str(log), check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    _checked(log, game)


def test_the_game_chosen_in_the_menu_is_played(tmp_path):
    """Through code.py's program: R to GAME (eight presses), 1 turns SPEED to SPIT, L back
    to PLAY, 1 starts a Spit match (V8) whose log replays."""
    lines = []
    t = 1000000
    for key in "R" * GAME + "1" + "L" * GAME + "1":
        lines.append("%d 0 %s" % (t, key))
        t += 100000
    script = tmp_path / "menu.txt"
    script.write_text("\n".join(lines) + "\n")
    log = tmp_path / "b.jsonl"
    result = run_cli(
        "board", "--seed", "2", "--idle-ms", "1500", "--script", str(script), "--log", str(log),
        check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    events = _checked(log, "spit")
    assert events[0]["game"] == "spit" and events[-1]["ev"] == "match_end"
