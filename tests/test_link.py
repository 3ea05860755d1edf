"""The USB link, board side and host decoding (issue 11; docs/link.md).

Every data-port line carries its seq after a tab, the line itself unchanged;
lost lines show as a seq gap that the ``lost`` marker accounts for exactly; a
write that raises (the cable is out) is a lost line, never a stopped game;
requests are answered in CRC frames and bad ones with error frames; and none
of the per-line or per-pass paths allocate (MicroPython heap lock).
"""

import binascii
import json
import os
import subprocess
import sys

import pytest
import usb_cdc
import vclock
from conftest import ROOT, run_cli
from speedduo import __version__
from speedduo.display.menu import Menu
from speedduo.game.rules import Rules
from speedduo.host.crc import crc16
from speedduo.host.link import REQUEST_MAX, STALE_MS, Link
from speedduo.host.logport import SEQ_LIMIT, LogPort

from host_sim.logfile import LogError, parse_log
from host_sim.monitor import Monitor, PortError, describe, find_data_port
from host_sim.wire import (
    LINE_LIMIT,
    Decoder,
    FrameError,
    Item,
    MatchAssembler,
    log_lines,
    parse_frame,
    request,
)

LINE = '{"ev":"stall","t":%d,"due":%d}'


def _port(stall_from_us=-1, stall_until_us=-1):
    clock = vclock.install(vclock.VirtualClock())
    port = usb_cdc._Port()
    port.stall_from_us = stall_from_us
    port.stall_until_us = stall_until_us
    return clock, port, LogPort(port)


def _send(log_port, text):
    line = bytearray(1024)
    line[:] = text.encode()
    log_port.send(line)


def _items(port):
    decoder = Decoder()
    return decoder.feed(b"".join(port.written)) + decoder.end()


def test_every_line_carries_its_seq_after_a_tab_and_is_otherwise_unchanged():
    _, port, log_port = _port()
    for n in range(3):
        _send(log_port, LINE % (n, n + 1))
    assert b"".join(port.written) == b"".join(
        b"%s\t%d\n" % ((LINE % (n, n + 1)).encode(), n + 1) for n in range(3)
    )
    assert log_lines(b"".join(port.written)) == [LINE % (n, n + 1) for n in range(3)]


def test_the_seq_gap_equals_the_lost_marker_count_after_a_stall():
    clock, port, log_port = _port(1_000, 50_000)
    for n in range(12):
        clock.advance_to(max(clock.now_us, n * 5_000))  # a timed-out write took 10 ms
        _send(log_port, '{"ev":"draw","t":%d,"filler":"%s"}' % (n, "x" * 60))
    clock.advance_to(60_000)
    _send(log_port, LINE % (99, 100))
    items = _items(port)
    kinds = [item.kind for item in items]
    assert "gap" not in kinds and kinds.count("lost") == 1
    lost = kinds.index("lost")
    # the lines before the marker end where the board started counting (a cut line
    # whose part arrived is garbled, or whole but counted lost: the marker covers it)
    before = [item.seq for item in items[:lost] if item.kind == "log"]
    marker = items[lost]
    assert marker.count == log_port.lost_total > 0
    assert before[-1] >= marker.seq - marker.count  # nothing the marker did not account for
    assert items[lost + 1].kind == "log" and items[lost + 1].seq == marker.seq + 1
    assert items[-1].seq == 13  # every line had its number, sent or not


def test_a_write_that_raises_is_a_lost_line_and_the_game_goes_on():
    """The cable pulled (usb_cdc raises OSError): lines counted lost, marked when it is back."""
    clock, port, log_port = _port()
    port.pull_from_us, port.pull_until_us = 10_000, 20_000
    for n in range(6):
        clock.advance_to(n * 5_000)
        _send(log_port, LINE % (n, n))  # 10 and 15 ms: the cable is out
    assert log_port.lost_total == 2 and log_port.sent == 4
    items = _items(port)
    assert [(i.kind, i.seq, i.count) for i in items] == [
        ("log", 1, 0),
        ("log", 2, 0),
        ("lost", 4, 2),
        ("log", 5, 0),
        ("log", 6, 0),
    ]


def test_seq_wraps_to_1_and_the_host_follows():
    _, port, log_port = _port()
    log_port.seq = SEQ_LIMIT - 2
    for n in range(3):
        _send(log_port, LINE % (n, n))
    items = _items(port)
    assert [(i.kind, i.seq) for i in items] == [
        ("gap", SEQ_LIMIT - 1),  # the host saw none of the lines before
        ("log", SEQ_LIMIT - 1),
        ("log", 1),
        ("log", 2),
    ]


def test_the_board_crc_is_crc16_ccitt_false():
    assert crc16(b"123456789", 0, 9) == 0x29B1  # the catalogued check value
    for data in (b"", b"stats", b"version", bytes(range(256))):
        assert crc16(data, 0, len(data)) == binascii.crc_hqx(data, 0xFFFF)


# ---- requests ----


class _Clock:
    def __init__(self):
        self.ms = 1000

    def __call__(self):
        return self.ms


def _link(stats=None):
    _, port, log_port = _port()
    ticks = _Clock()
    menu = Menu(Rules(penalty=True), 5)
    fed = []
    link = Link(log_port, ticks, lambda: fed.append(1), stats or (lambda: {"matches": 3}), menu)
    return port, link, ticks, fed


def _replies(port):
    return [(i.name, i.obj) for i in _items(port) if i.kind == "reply"]


def test_stats_version_and_rules_are_answered_in_checksummed_frames():
    port, link, _, fed = _link()
    port.host_sends(request("stats") + request("version") + request("rules"))
    link.poll()
    link.poll()  # 32 bytes a pass: the three requests take more
    assert fed == [1, 1]  # every pass feeds the watchdog
    replies = _replies(port)
    assert replies[0] == ("stats", {"matches": 3})
    assert replies[1][0] == "version"
    assert replies[1][1]["game"] == __version__ and replies[1][1]["log"] == 1
    assert replies[1][1]["impl"] == sys.implementation.name
    assert replies[2] == ("rules", {"rules": dict(Rules(penalty=True).as_pairs()), "best_of": 5})
    for line in b"".join(port.written).split(b"\n")[:-1]:
        parse_frame(line.rpartition(b"\t")[0])  # each CRC checks


def test_the_rules_reply_says_the_menus_head_starts_when_one_is_set():
    """H1: the menu's P1/P2 HEAD START, as the match line's ``head_start_ms``."""
    port, link, _, _ = _link()
    link.menu.rules.set("head_start_p2_ms", 250)
    port.host_sends(request("rules"))
    for _ in range(3):
        link.poll()
    assert _replies(port)[0][1]["head_start_ms"] == [0, 250]


def test_the_rules_reply_says_the_menus_hand_slots_when_one_is_not_5():
    """H2: the menu's P1/P2 CARDS, as the match line's ``hand_slots``."""
    port, link, _, _ = _link()
    link.menu.rules.set("hand_slots_p1", 4)
    port.host_sends(request("rules"))
    for _ in range(3):
        link.poll()
    assert _replies(port)[0][1]["hand_slots"] == [4, 5]


def test_a_request_split_across_reads_and_crlf_endings_are_fine():
    port, link, _, _ = _link()
    frame = request("stats").replace(b"\n", b"\r\n")
    port.host_sends(frame[:4])
    link.poll()
    port.host_sends(frame[4:])
    link.poll()
    assert _replies(port) == [("stats", {"matches": 3})]


@pytest.mark.parametrize(
    "sent, why",
    [
        (b"hello\n", "garbage"),
        (b"$stats\n", "truncated"),  # no *CCCC
        (b"$stats*12\n", "truncated"),  # CRC cut short
        (b"$stats*0000\n", "checksum"),
        (b"$stats*GGGG\n", "checksum"),
        (b"x" * (REQUEST_MAX + 5) + b"\n", "too_long"),
        (request("nope"), "unknown"),
    ],
)
def test_a_bad_request_is_answered_with_an_error_frame(sent, why):
    port, link, _, _ = _link()
    port.host_sends(sent)
    for _ in range(3):
        link.poll()
    assert _replies(port) == [("error", {"why": why})]
    assert link.errors == 1 and link.requests == 0


def test_a_frame_cut_by_the_next_one_is_truncated_and_the_next_is_answered():
    port, link, _, _ = _link()
    port.host_sends(b"$sta" + request("stats"))
    link.poll()
    assert _replies(port) == [("error", {"why": "truncated"}), ("stats", {"matches": 3})]


def test_a_request_without_its_end_of_line_is_truncated_after_stale_ms():
    port, link, ticks, _ = _link()
    port.host_sends(request("stats")[:-1])
    link.poll()
    ticks.ms += STALE_MS
    link.poll()
    assert _replies(port) == []  # not yet
    ticks.ms += 1
    link.poll()
    assert _replies(port) == [("error", {"why": "truncated"})]


def test_a_stats_provider_that_raises_gets_an_error_frame_not_a_stopped_game():
    port, link, _, _ = _link(stats=lambda: {}["missing"])
    port.host_sends(request("stats"))
    link.poll()
    assert _replies(port) == [("error", {"why": "failed", "detail": "KeyError"})]


def test_nothing_waiting_reads_nothing_and_a_pulled_cable_is_no_error():
    port, link, _, _ = _link()
    link.poll()
    assert port.written == []
    port.pull_from_us = 0  # in_waiting raises OSError now
    port.host_sends(request("stats"))
    link.poll()
    assert port.written == []


def test_the_per_line_and_per_pass_paths_allocate_nothing():
    micropython = os.path.join(os.path.dirname(sys.executable), "micropython")
    script = os.path.join(ROOT, "tests", "link_heap_lock.py")
    command = [micropython, "-X", "heapsize=72K", script, ROOT]  # (64K: too tight since issue 19)
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    lines = result.stdout.splitlines()
    assert result.returncode == 0 and lines[-1] == "ALL PASS", result.stdout + result.stderr
    assert "CONTROL answering a request allocates and was caught" in lines


# ---- the host's decoding ----


def _wire(*pairs):
    return b"".join(b"%s\t%d\n" % (body.encode(), seq) for body, seq in pairs)


MATCH = '{"ev":"match","v":1}'
DEAL = '{"ev":"deal","hand_no":1}'
END = '{"ev":"match_end","winner":0,"score":[2,0]}'


def _assemble(data):
    decoder = Decoder()
    assembler = MatchAssembler()
    logs = []
    for item in decoder.feed(data) + decoder.end():
        logs += assembler.take(item)
    return logs + assembler.finish()


def test_a_whole_match_is_one_complete_log_and_replies_are_left_out():
    data = _wire((MATCH, 1), (DEAL, 2), ('$stats {"a":1}*0000', 3), (END, 4))
    assert _assemble(data) == [([MATCH, DEAL, END], True)]


def test_a_match_read_from_its_middle_starts_with_a_lost_line():
    assert _assemble(_wire((DEAL, 7), (END, 8))) == [
        (['{"ev":"lost","lines":6,"unseen":6}', DEAL, END], False)  # sent, read elsewhere
    ]
    marker = '{"ev":"lost","lines":4}'
    assert _assemble(_wire((marker, 6), (DEAL, 7), (END, 8))) == [
        (['{"ev":"lost","lines":6,"unseen":2}', DEAL, END], False)  # 2 sent elsewhere + 4 lost
    ]


def test_lines_the_board_counted_lost_are_taken_out_and_marked():
    cut = b'{"ev":"deal","hand_no":1}\t3'  # whole, but its write timed out before the newline
    data = _wire((MATCH, 1), (DEAL, 2)) + cut + b"\n" + _wire(('{"ev":"lost","lines":2}', 4))
    data += _wire((END, 5))
    assert _assemble(data) == [([MATCH, DEAL, '{"ev":"lost","lines":2}', END], False)]


def test_a_cut_line_and_a_gap_without_marker_make_the_log_incomplete():
    data = _wire((MATCH, 1)) + b'{"ev":"de' + b"\n" + _wire((END, 3))
    assert _assemble(data) == [([MATCH, '{"ev":"lost","lines":1,"unseen":1}', END], False)]


def test_a_stream_that_ends_mid_match_gives_an_incomplete_log_and_a_restart_ends_one():
    assert _assemble(_wire((MATCH, 1), (DEAL, 2))) == [([MATCH, DEAL], False)]
    assert _assemble(_wire((MATCH, 1), (DEAL, 2), (MATCH, 1), (END, 2))) == [
        ([MATCH, DEAL], False),
        ([MATCH, END], True),
    ]


def test_a_line_that_is_not_a_json_event_is_garbled_and_the_monitor_shows_any_event():
    data = _wire(('{"ev":"deal",', 1), ('{"ev":7}', 2), ('{"ev":"play","t":"x"}', 3))
    items = Decoder().feed(data)
    assert [i.kind for i in items] == ["garbled", "garbled", "log"]
    assert describe(items[2]) == '   {"ev":"play","t":"x"}'  # no traceback for odd fields


def test_reply_frames_with_a_bad_checksum_are_refused():
    with pytest.raises(FrameError):
        parse_frame(b'$stats {"a":1}*0000')
    body = b'stats {"a":1}'
    assert parse_frame(b"$%s*%04X" % (body, binascii.crc_hqx(body, 0xFFFF))) == ("stats", {"a": 1})


def test_replay_names_a_lost_line_as_missing_lines():
    with pytest.raises(LogError, match="line 1: 6 lines are missing here"):
        parse_log('{"ev":"lost","lines":6}\n{"ev":"match_end","winner":null,"score":[0,0]}\n')


@pytest.mark.parametrize(
    "marker, why",
    [
        ('{"ev":"lost","lines":6}', "(lost on the board's data port)"),
        ('{"ev":"lost","lines":9,"unseen":9}', "(sent by the board but read by another program"),
        ('{"ev":"lost","lines":6,"unseen":2}', "(4 lost on the board's data port, 2 sent by"),
    ],
)
def test_replay_says_whether_the_board_or_another_reader_lost_the_lines(marker, why):
    with pytest.raises(LogError) as error:
        parse_log(marker + '\n{"ev":"match_end","winner":null,"score":[0,0]}\n')
    assert why in str(error.value) and "\n" not in str(error.value)


def test_a_monitor_started_after_stats_took_9_lines_says_so_not_that_the_board_lost_them(
    tmp_path,
):
    """``stats``/``ask`` read the port first (skipping the match's first 9 lines): the saved
    match is incomplete because another reader took those lines, not the board."""
    said = []
    saved = tmp_path / "m.jsonl"
    monitor = Monitor(str(saved), said.append)
    monitor.feed(_wire((DEAL, 10), (END, 11)))
    monitor.end()
    assert saved.read_text().splitlines()[0] == '{"ev":"lost","lines":9,"unseen":9}'
    text = "\n".join(said)
    assert "lost on the data port" not in text and "board counted" not in text
    assert "9 lines not seen before seq 10 (the board sent them: another program" in text
    assert "9 lines missing: sent by the board but read by another program" in text


# ---- finding the port ----


class _Info:
    def __init__(self, device, vid, interface=None, location=None):
        self.device = device
        self.vid = vid
        self.interface = interface
        self.location = location


def test_the_data_port_is_found_by_vid_and_interface_name():
    ports = [
        _Info("/dev/ttyACM0", 0x239A, "CircuitPython CDC control"),
        _Info("/dev/ttyACM1", 0x239A, "CircuitPython CDC2 control"),
        _Info("/dev/ttyUSB0", 0x0403, "FT232R"),
    ]
    assert find_data_port(ports) == "/dev/ttyACM1"
    unnamed = [
        _Info("/dev/cu.usbmodem1103", 0x239A, location="1-1:1.2"),
        _Info("/dev/cu.usbmodem1101", 0x239A, location="1-1:1.0"),
    ]
    assert find_data_port(unnamed) == "/dev/cu.usbmodem1103"
    with pytest.raises(PortError, match="no CircuitPython data port found"):
        find_data_port([_Info("/dev/ttyUSB0", 0x0403)])
    with pytest.raises(PortError, match="is boot.py on it"):
        find_data_port([_Info("/dev/ttyACM0", 0x239A, "CircuitPython CDC control")])


def test_a_board_run_with_the_cable_pulled_finishes_and_its_log_says_what_is_missing(tmp_path):
    from host_sim.board_cli import demo_script

    script = tmp_path / "mash.txt"
    script.write_text(demo_script(120))
    log = tmp_path / "b.jsonl"
    result = run_cli(
        "board", "--seed", "4", "--idle-ms", "4000", "--script", str(script),
        "--data-port", "pull:9000-12000", "--log", str(log),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    lines = log.read_text().splitlines()
    lost = [json.loads(line) for line in lines if line.startswith('{"ev":"lost"')]
    assert len(lost) == 1 and lost[0]["lines"] > 0
    assert lines[-1].startswith('{"ev":"match_end"')  # the game went on to its end
    replay = run_cli("replay", str(log), check=False)
    assert replay.returncode == 2
    assert "lines are missing here" in replay.stderr and len(replay.stderr.splitlines()) == 1


# --- odd input on the wire: one line each, and the tools go on (issue 27.5) -------------


def test_a_line_with_no_newline_is_held_only_up_to_the_limit_then_dropped():
    """Each byte is looked at once: a 5 MB line with no end costs LINE_LIMIT bytes of room
    and linear time (the old buffer was copied whole at every read: quadratic)."""
    decoder = Decoder()
    chunk = b"x" * 4096
    for _ in range(1280):  # 5 MB, as the port delivers it
        assert decoder.feed(chunk) == []
        assert decoder.buffered <= LINE_LIMIT
    items = decoder.feed(b"\n" + _wire((MATCH, 1)))
    assert [i.kind for i in items] == ["garbled", "log"]
    assert items[0].text == "a line of 5242880 bytes (over 16384): dropped unread"
    assert decoder.feed(b"y" * 20000) == [] and decoder.end()[0].kind == "garbled"


@pytest.mark.parametrize(
    "body",
    [
        '{"ev":"play","x":' + "[" * 3000 + "]" * 3000 + "}",  # Python's parser recursed
        '{"ev":"lost","lines":"7"}',  # a wrong type in the marker
        '{"ev":"lost","lines":1e999}',
        '{"ev":"lost","lines":true}',
        '{"ev":"lost","lines":-3}',
        '{"ev":"lost","lines":' + "[" * 3000 + "]" * 3000 + "}",
    ],
)
def test_a_deep_or_odd_line_is_garbled_not_a_traceback(body):
    """...and the match it was in is saved marked incomplete: a line of it is missing."""
    items = Decoder().feed(_wire((MATCH, 1), (body, 2), (END, 3)))
    assert [i.kind for i in items][:2] == ["log", "garbled"] and items[-1].kind == "log"
    assert all(describe(item) for item in items)
    assert _assemble(_wire((MATCH, 1), (body, 2), (END, 3))) == [
        ([MATCH, '{"ev":"lost","lines":1' + ("}" if '"lost"' not in body else ',"unseen":1}'),
          END], False)
    ]  # fmt: skip


def test_a_seq_of_thousands_of_digits_is_garbled():
    items = Decoder().feed(MATCH.encode() + b"\t" + b"9" * 5000 + b"\n")
    assert [i.kind for i in items] == ["garbled"]


def test_a_reply_nested_too_deep_is_refused_as_a_frame():
    body = b"stats " + b"[" * 5000 + b"]" * 5000
    with pytest.raises(FrameError, match="not JSON"):
        parse_frame(b"$%s*%04X" % (body, binascii.crc_hqx(body, 0xFFFF)))


@pytest.mark.parametrize(
    "event",
    [
        {"ev": "play", "t": 10**400, "p": 0, "card": "5H", "pile": 0},  # a huge number
        {"ev": "play", "t": 5, "p": 7, "card": "5H", "pile": 0},
        {"ev": "penalty", "t": 5, "p": 0, "until": float("inf")},
        {"ev": "draw", "t": 5, "p": 0, "card": "5H", "slot": "2"},
        {"ev": "hand_end", "t": 5, "winner": [0], "why": "out", "left": 3},
        {"ev": "match_end", "winner": 0, "score": [10**5000, 1]},
        {"ev": "match_end", "winner": 0, "score": "2-1"},
        {"ev": "play", "t": 5, "p": 0, "card": "\x1b[2J" + "x" * 5000, "pile": 0},
    ],
)
def test_an_event_with_a_wrong_type_or_a_huge_number_is_shown_as_one_short_line(event):
    sys.set_int_max_str_digits(0)  # (only to build the line: the wire's JSON refuses it)
    try:
        text = json.dumps(event)
    finally:
        sys.set_int_max_str_digits(4300)
    shown = describe(Item("log", seq=1, text=text, obj=event))
    assert "\n" not in shown and "\x1b" not in shown and len(shown) < 260


@pytest.mark.parametrize("timeout", ["nan", "-1", "0", "inf", "x", "1e9"])
def test_a_timeout_that_is_not_a_wait_is_refused_in_one_line(timeout):
    result = run_cli("stats", "--port", "x", "--timeout", timeout, check=False)
    assert result.returncode == 2 and "bad timeout" in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_a_negative_match_count_for_monitor_is_refused_in_one_line():
    result = run_cli("monitor", "--port", "x", "--matches", "-1", check=False)
    assert result.returncode == 2 and "bad count" in result.stderr
    assert len(result.stderr.splitlines()) == 1
