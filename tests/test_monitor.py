"""The host tools against the simulated board over a pseudo-terminal (issue 11; docs/link.md).

``python -m host_sim board --pty`` streams what the board's USB data port would;
``monitor`` watches and saves it, ``stats``/``ask`` send requests. End to end: a
whole match saved and replayed (and refereed), a host that starts late or goes
away mid-match (its log marked incomplete, the lost lines counted), requests
answered, bad frames answered with error frames.
"""

import binascii
import json
import os
import subprocess
import sys
import time
import tty

import pytest
from conftest import ROOT, run_cli
from referee import Referee

from host_sim.data_port import open_port
from host_sim.wire import Decoder, MatchAssembler, request

ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.path.join(ROOT, "lib")]))


class _Board:
    """``python -m host_sim board --pty ARGS`` in the background; ``path``: its pty."""

    def __init__(self, *args):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "host_sim", "board", "--pty", *args],
            cwd=ROOT,
            env=ENV,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.path = self.process.stdout.readline().strip()
        assert self.path.startswith("/dev/"), self.process.stderr.read()

    def finish(self, timeout=300):
        out, err = self.process.communicate(timeout=timeout)
        return self.process.returncode, out, err

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()  # board_cli stops its board_run child too
        return self.finish(60)


@pytest.fixture
def board():
    boards = []

    def start(*args):
        boards.append(_Board(*args))
        return boards[-1]

    yield start
    for b in boards:
        b.stop()


def _monitor(*args):
    return run_cli("monitor", *args, check=False, timeout=300)


def test_a_whole_match_monitored_over_a_pty_is_saved_replays_and_referees(board, tmp_path):
    log = tmp_path / "b.jsonl"
    b = board("--seed", "4", "--speed", "0", "--log", str(log))
    saved = tmp_path / "m.jsonl"
    result = _monitor("--port", b.path, "--save", str(saved))
    assert result.returncode == 0, result.stderr
    out = result.stdout.splitlines()
    assert out[0] == f"monitoring {b.path} (Ctrl-C to stop)"
    assert any(" P1 plays " in line or " P2 plays " in line for line in out)
    assert f"saved {saved}: " in result.stdout and "a whole match" in result.stdout
    code, board_out, err = b.finish()
    assert code == 0, err
    assert "1 match(es)" in board_out
    assert saved.read_bytes() == log.read_bytes()  # what the board sent is what was saved
    replay = run_cli("replay", str(saved))
    assert "replayed identically" in replay.stdout
    Referee().check_log(saved.read_text().splitlines())


def test_a_monitor_started_late_saves_a_log_marked_incomplete(board, tmp_path):
    b = board("--seed", "4", "--no-wait", "--speed", "8")  # PLAY at 1 s, the match ~55 s
    time.sleep(1.5)  # >= 1.5 s of play has gone to nobody
    saved = tmp_path / "late.jsonl"
    result = _monitor("--port", b.path, "--save", str(saved), "--matches", "1")
    assert result.returncode == 1, result.stderr  # the saved match is not whole
    assert "INCOMPLETE" in result.stdout and "lines lost on the data port" in result.stdout
    lines = saved.read_text().splitlines()
    first = json.loads(lines[0])
    assert first["ev"] == "lost" and first["lines"] > 0
    assert lines[-1].startswith('{"ev":"match_end"')
    replay = run_cli("replay", str(saved), check=False)
    assert replay.returncode == 2
    assert replay.stderr.strip().endswith(
        f"line 1: {first['lines']} lines are missing here (lost on the board's data port): "
        "the log is incomplete and cannot be checked"
    )
    assert len(replay.stderr.splitlines()) == 1


def test_opening_the_port_keeps_what_the_board_sent_as_the_host_came():
    # pyserial's own open empties the input queue once the port is open: a lost marker the
    # board wrote in between went with it (CI once saw the host get a gap, not the marker)
    master, slave = os.openpty()
    try:
        tty.setraw(slave)
        os.write(master, b'{"ev":"lost","lines":3}\t44\n')
        with open_port(os.ttyname(slave)) as port:
            got = b""
            deadline = time.monotonic() + 5
            while not got.endswith(b"\n") and time.monotonic() < deadline:
                got += port.read(port.in_waiting or 1)
            assert got == b'{"ev":"lost","lines":3}\t44\n'
            os.write(master, b"old\n")
            time.sleep(0.05)
            port.reset_input_buffer()  # asked for, it still empties the queue
            assert port.in_waiting == 0
    finally:
        os.close(master)
        os.close(slave)


def _read_until(port, decoder, items, done, timeout=120):
    deadline = time.monotonic() + timeout
    while not done(items) and time.monotonic() < deadline:
        items += decoder.feed(port.read(port.in_waiting or 1))


def test_a_host_that_goes_away_mid_match_gets_the_lost_lines_counted_when_back(board, tmp_path):
    b = board("--seed", "4", "--speed", "8")
    decoder = Decoder()  # one host, reading twice
    items = []
    with open_port(b.path) as port:  # as monitor opens it: what came at once is kept
        _read_until(port, decoder, items, lambda got: sum(i.kind == "log" for i in got) >= 20)
    for _ in range(10):
        # the host is away: the board goes on, counting what it cannot send. A loaded
        # machine may leave the board writing nothing in that time (CI once did): then
        # the first thing back is the next line, and the host goes away again.
        assert not items[-1].text.startswith('{"ev":"match_end"'), "the match ended first"
        time.sleep(1.5)
        port = open_port(b.path)  # the board's lost marker comes the moment it sees the host
        start = len(items)
        _read_until(port, decoder, items, lambda got, start=start: len(got) > start)
        if items[start].kind != "log":
            break
        port.close()
    with port:
        _read_until(port, decoder, items, lambda got: got and got[-1].kind == "log" and
                    got[-1].text.startswith('{"ev":"match_end"'))  # fmt: skip
    lost = [i for i in items if i.kind == "lost"]
    assert len(lost) == 1 and lost[0].count > 0
    at = items.index(lost[0])
    before = max(i.seq for i in items[:at] if i.kind == "log")
    after = next(i.seq for i in items[at:] if i.kind == "log")
    missing = sum(i.count for i in items if i.kind in ("lost", "gap"))
    assert before + missing + 1 == after  # the seq gap is exactly what is reported
    assembler = MatchAssembler()
    logs = [log for item in items for log in assembler.take(item)]
    [(lines, complete)] = logs
    assert not complete and lines[0].startswith('{"ev":"match",')  # its start was seen
    assert '{"ev":"lost","lines":%d}' % missing in lines
    saved = tmp_path / "m.jsonl"
    saved.write_text("\n".join(lines) + "\n")
    replay = run_cli("replay", str(saved), check=False)
    assert replay.returncode == 2 and "lines are missing here" in replay.stderr


def _ask_raw(path, data, whys, timeout=20):
    """Send raw bytes; the error frames' ``why`` until ``whys`` of them arrived."""
    with open_port(path) as port:
        port.write(data)
        decoder = Decoder()
        got = []
        deadline = time.monotonic() + timeout
        while len(got) < whys and time.monotonic() < deadline:
            for item in decoder.feed(port.read(port.in_waiting or 1)):
                if item.kind == "reply":
                    got.append((item.name, item.obj.get("why")))
        return got


def test_requests_are_answered_and_bad_frames_get_error_frames(board, tmp_path):
    script = tmp_path / "none.txt"
    script.write_text("# nobody presses: the board stays in its menu\n")
    b = board("--seed", "4", "--script", str(script), "--best-of", "5", "--penalty")
    stats = run_cli("stats", "--port", b.path, "--json")
    reply = json.loads(stats.stdout)
    stats = reply["stats"]
    assert stats["power_on"]["matches"] == 0 and stats["modes"][0]["name"]  # flash + power-on
    version = json.loads(run_cli("ask", "version", "--port", b.path, "--json").stdout)
    assert version["version"]["impl"] == "cpython" and version["version"]["log"] == 1
    rules = json.loads(run_cli("ask", "rules", "--port", b.path, "--json").stdout)
    assert rules["rules"]["best_of"] == 5 and rules["rules"]["rules"]["penalty"] is True
    unknown = run_cli("ask", "nope", "--port", b.path, check=False)
    assert unknown.returncode == 1 and 'why: "unknown"' in unknown.stdout
    bad = b"hello\n$stats*0000\n$stats\n$sta" + request("version") + b"$stats*29"
    got = _ask_raw(b.path, bad, 5)
    assert got == [
        ("error", "garbage"),
        ("error", "checksum"),
        ("error", "truncated"),  # no checksum
        ("error", "truncated"),  # "$sta", cut by the next frame
        ("version", None),
    ]
    got = _ask_raw(b.path, b"$stats*29", 1)  # never ended: truncated after 1 s
    assert got == [("error", "truncated")]


def test_no_port_or_a_bad_port_is_one_line_and_exit_2(tmp_path):
    for command in (["monitor"], ["stats"], ["ask", "version"]):
        result = run_cli(*command, "--port", str(tmp_path / "nothing"), check=False)
        assert result.returncode == 2
        assert len(result.stderr.splitlines()) == 1 and "cannot open" in result.stderr
    result = run_cli(
        "monitor", "--port", "x", "--save", str(tmp_path / "no" / "m.jsonl"), check=False
    )
    assert result.returncode == 2 and "no folder" in result.stderr


# --- odd input on the port: one line each, and the tools go on (issue 27.5) -------------


def _numbered(lines, first):
    return b"".join(b"%s\t%d\n" % (line.encode(), first + i) for i, line in enumerate(lines))


class _Pty:
    """A pseudo-terminal whose far end a tool opens as the data port; ``write`` feeds it
    from a thread (a pty holds a few KB: the writer waits for the tool to read)."""

    def __init__(self):
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.path = os.ttyname(self.slave)

    def write(self, data):
        import threading

        def feed():
            try:
                os.write(self.master, data)  # blocks until read; fails once closed
            except OSError:
                pass

        threading.Thread(target=feed, daemon=True).start()

    def close(self):
        os.close(self.master)
        os.close(self.slave)


def test_odd_lines_on_the_port_are_one_line_each_and_the_monitor_saves_the_match(tmp_path):
    """A huge number, wrong types, a value nested 3000 deep, a bad lost marker and a
    300 KB line with no end: each one line on the terminal, then the whole match saved."""
    golden = os.path.join(ROOT, "tests", "golden", "logs")
    with open(os.path.join(golden, sorted(os.listdir(golden))[0])) as f:
        match = f.read().splitlines()
    odd = [
        '{"ev":"play","t":' + "9" * 400 + ',"p":0,"card":"5H","pile":0}',
        '{"ev":"match_end","winner":"x","score":[1,"2"]}',
        '{"ev":"deal","x":' + "[" * 3000 + "]" * 3000 + "}",
        '{"ev":"lost","lines":"7"}',
        '{"ev":"lost","lines":1e999}',
    ]
    pty = _Pty()
    try:
        pty.write(_numbered(odd, 1) + b"x" * 300_000 + b"\n" + _numbered(match, 7))
        saved = tmp_path / "m.jsonl"
        result = _monitor("--port", pty.path, "--save", str(saved), "--matches", "2")
    finally:
        pty.close()
    # the odd play and match_end make a match of their own, saved as incomplete: exit 1
    assert result.returncode == 1 and result.stderr == "", result.stderr[-2000:]
    assert "m.jsonl: 3 lines, INCOMPLETE" in result.stdout
    assert (tmp_path / "m-2.jsonl").read_text().splitlines() == match
    out = result.stdout.splitlines()
    assert sum("garbled line" in line for line in out) == 4  # deep, 2 markers, the long one
    assert "a line of 300000 bytes (over 16384): dropped unread" in result.stdout
    assert all(len(line) < 300 for line in out)


def test_stats_skips_a_reply_nested_too_deep_and_prints_the_next(tmp_path):
    def frame(body, seq):
        return b"$%s*%04X\t%d\n" % (body, binascii.crc_hqx(body, 0xFFFF), seq)

    pty = _Pty()
    try:
        deep = frame(b"stats " + b"[" * 5000 + b"]" * 5000, 1)
        pty.write(deep + frame(b'stats {"games":3}', 2))
        result = run_cli("stats", "--port", pty.path, "--timeout", "30", check=False)
    finally:
        pty.close()
    assert result.returncode == 0 and result.stderr == "", result.stderr[-2000:]
    assert result.stdout.splitlines() == ["stats:", "  games: 3"]
