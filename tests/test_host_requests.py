"""The host's requests in a ``board``/``device`` run (``--ask``, ``--send``;
host_sim/host_requests.py, docs/link.md): the options, the schedule, and on the
simulator each request answered, each bad frame answered with its error frame, and
a request during the match leaving the match log as it was. The same on the real
firmware: tests/test_device.py."""

import argparse
import binascii
import json
import os

import pytest
from conftest import ROOT, run_cli

from host_sim import host_requests
from host_sim.wire import request

SCRIPT = os.path.join(ROOT, "tests", "scripts", "device_requests.txt")


def framed(name):
    """``$name*CCCC\\n`` with the right CRC, also for names nobody answers."""
    return "$%s*%04X\\n" % (name, binascii.crc_hqx(name.encode(), 0xFFFF))


# what the host sends around the match of tests/scripts/device_requests.txt (PLAY at
# 7 s, the hand from 10 s to ~14.2 s): the three requests in the menu, then during the
# hand one request and a bad frame of each kind
ASK_AT_MS = 5500
SENDS = [
    "10600:" + framed("stats"),  # during the hand
    "11000:$stats*0000\\n",  # wrong CRC
    "11500:hello\\n",  # not a frame
    "12000:$stats\\n",  # no *CCCC
    "12500:" + framed("nope"),  # a good frame nobody answers
    "12700:$" + "x" * 40 + "\\n",  # longer than a request may be
    "13000:$stats*",  # no end of line: stale after 1 s
]
EXPECTED = [
    ("stats", None),
    ("version", None),
    ("rules", None),
    ("stats", None),
    ("error", "checksum"),
    ("error", "garbage"),
    ("error", "truncated"),
    ("error", "unknown"),
    ("error", "too_long"),
    ("error", "truncated"),
]


def request_options():
    options = ["--ask", "stats,version,rules", "--ask-at-ms", str(ASK_AT_MS)]
    for send in SENDS:
        options.append("--send=" + send)
    return options


def parsed_replies(stdout):
    """[(name, why)] of the run's reply lines, in order; AssertionError on a garbled line."""
    out = []
    for line in stdout.splitlines():
        assert not line.startswith("garbled line"), line
        if line.startswith("reply seq "):
            head, _, body = line.partition(" (crc ok) ")
            name = head.split("$", 1)[1]
            obj = json.loads(body)
            out.append((name, obj.get("why") if name == "error" else None))
    return out


def test_send_and_ask_options():
    assert host_requests.send_option("1500:$stats*4CEE\\n") == (1500, b"$stats*4CEE\n")
    assert host_requests.send_option("0:\\x00\\xff\\r") == (0, b"\x00\xff\r")
    for bad in ("x:1", "15", "-1:a", "5:", "5:\\x4"):
        with pytest.raises(argparse.ArgumentTypeError):
            host_requests.send_option(bad)
    assert host_requests.ask_option("stats, rules") == ["stats", "rules"]
    for bad in ("", "stats,nope"):
        with pytest.raises(argparse.ArgumentTypeError):
            host_requests.ask_option(bad)


def test_schedule_in_time_order_and_the_run_long_enough():
    args = argparse.Namespace(
        ask=["stats", "version"], ask_at_ms=6000, send=[(6100, b"x"), (100, b"y")]
    )
    sends = host_requests.schedule(args)
    assert sends == [
        (100000, b"y"),
        (6000000, request("stats")),
        (6100000, b"x"),
        (6250000, request("version")),
    ]
    assert host_requests.run_until_us(sends) == 6250000 + host_requests.REPLY_SETTLE_MS * 1000
    assert host_requests.run_until_us([]) == 0


def test_replies_are_read_from_the_port_bytes():
    good = b"$version {}*%04X" % binascii.crc_hqx(b"version {}", 0xFFFF)
    data = b'{"ev":"match"}\t1\n' + good + b"\t2\n" + b"$version {}*0000\t3\n"
    kinds = [(item.kind, item.seq) for item in host_requests.replies(data)]
    assert kinds == [("reply", 2), ("garbled", 3)]
    lines = host_requests.reply_lines(data)
    assert lines[0] == "reply seq 2: $version (crc ok) {}"
    assert lines[1].startswith("garbled line (seq 3)") and "checksum mismatch" in lines[1]


@pytest.mark.parametrize("vm", ["cpython", "micropython"])
def test_board_answers_each_request_and_play_goes_on(tmp_path, vm):
    quiet, asked = tmp_path / "quiet.jsonl", tmp_path / "asked.jsonl"
    common = ["board", "--vm", vm, "--seed", "2", "--idle-ms", "4000", "--script", SCRIPT]
    run_cli(*common, "--log", str(quiet))
    result = run_cli(*common, "--log", str(asked), *request_options())
    assert parsed_replies(result.stdout) == EXPECTED
    assert "0 not taken by the board" in result.stdout
    assert asked.read_bytes() == quiet.read_bytes()  # replies are not match-log lines
    assert '"ev":"play"' in asked.read_text()


def test_requests_need_a_host_that_opened_the_port(tmp_path):
    result = run_cli("board", "--seed", "2", "--ask", "stats", "--data-port", "never", check=False)
    assert result.returncode == 2 and "never opens the data port" in result.stderr
    result = run_cli("board", "--send", "nonsense", check=False)
    assert result.returncode == 2 and "T_MS:TEXT" in result.stderr
