"""The board's three fatal faults, on shims as strict as CircuitPython (issue 8).

Each of these froze or killed the real board (CircuitPython 10.2.1 on an
emulated RP2040, docs/device.md) while the old, kinder shims let it through:
- ``keypad.EventQueue.overflowed`` is read-only: assigning it raised
  AttributeError at the first overflow;
- ``busio.I2C()`` raises RuntimeError when a panel (and its pull-ups) is
  missing at power-on, and code.py died before the menu;
- ``usb_cdc.data.write()`` waits forever when the host holds the port open and
  stops reading.
"""

import json

import pytest
import usb_cdc
import vclock
from conftest import run_board_program
from keypad import EventQueue
from referee import Referee
from speedduo.host.logport import LogPort


def _log_lines(stdout):
    """The data port's lines in the board program's stdout, their seq (docs/link.md) stripped."""
    return [line.rpartition("\t")[0] for line in stdout.splitlines() if line.startswith('{"ev"')]


def test_keypad_overflowed_is_read_only_and_clear_resets_it():
    clock = vclock.install(vclock.VirtualClock())
    queue = EventQueue(2, clock)
    for key in range(3):
        queue._record(key, True, 0)
    assert queue.overflowed
    with pytest.raises(AttributeError):
        queue.overflowed = False
    queue.clear()
    assert not queue.overflowed and len(queue) == 0


def test_a_panel_missing_at_power_on_leaves_the_other_showing_and_play_waits_for_it(tmp_path):
    """Screen 2 is plugged in at 3 s: PLAY at 1 s is ignored, PLAY at 4 s starts the match."""
    result, writes = run_board_program(
        tmp_path, "tests/scripts/board_play_twice.txt", "p1=late:3000"
    )
    assert result.returncode == 0, result.stderr
    assert "P2 screen: not plugged in" in result.stdout
    assert "Traceback" not in result.stderr
    panel1 = [w for w in writes if w["bus"] == 1 and w["ack"]]
    assert panel1 and panel1[0]["t0"] >= 3_000_000  # nothing reached it before it was there
    panel0 = [w for w in writes if w["bus"] == 0 and w["ack"]]
    assert panel0[0]["t0"] < 1_000_000  # the other panel showed the menu from the start
    log = _log_lines(result.stdout)
    Referee().check_log(log)
    events = [json.loads(line) for line in log]
    # had the 1 s press started the match, the 4 s press would have been a play
    assert not [e for e in events if e["ev"] in ("play", "reject")]
    assert events[-1]["ev"] == "match_end"


def test_a_host_that_stops_reading_never_stops_the_game(tmp_path):
    """The data port's host stops reading at 2 s: the match still plays to its end."""
    result, _ = run_board_program(
        tmp_path, "tests/scripts/board_menu_then_tie.txt", "data=stop:2000", SPEED_IDLE_MS=6000
    )
    assert result.returncode == 0, result.stderr
    assert "# panel 1" in result.stdout  # board_io.main returned: the loop never froze
    log = _log_lines(result.stdout)
    assert log and not any('"ev":"match_end"' in line for line in log)  # its end never got out


def test_the_unread_port_would_freeze_the_board_without_a_write_timeout():
    """What the board does (waits forever) is an error in the shim, never a silent pass."""
    clock = vclock.install(vclock.VirtualClock())
    port = usb_cdc._Port()
    port.stall_from_us = 0
    port.write(b"x" * usb_cdc.TX_FIFO)  # fills the transmit FIFO
    clock.advance_to(10)
    with pytest.raises(RuntimeError, match="waits forever"):
        port.write(b"{}\n")


def _port_with_a_stalled_host(stall_from_us, stall_until_us):
    clock = vclock.install(vclock.VirtualClock())
    port = usb_cdc._Port()
    port.stall_from_us = stall_from_us
    port.stall_until_us = stall_until_us
    return clock, port, LogPort(port)


def _received(port):
    """What the host received, each line's seq (docs/link.md) stripped."""
    text = b"".join(port.written).decode()
    return "\n".join(line.rpartition("\t")[0] for line in text.split("\n")[:-1]) + "\n"


def test_lines_lost_while_the_host_stalls_are_counted_and_marked_when_it_reads_again():
    clock, port, log_port = _port_with_a_stalled_host(1_000, 50_000)
    line = bytearray(200)
    sent = []
    for n in range(12):
        clock.advance_to(max(clock.now_us, n * 5_000))  # a timed-out write took 10 ms
        text = '{"ev":"draw","t":%d,"filler":"%s"}' % (n, "x" * 60)
        line[:] = text.encode()
        log_port.send(line)
        sent.append(text)
    clock.advance_to(60_000)
    log_port.flush()
    received = _received(port).split("\n")
    assert received[0] == sent[0]
    lost = [json.loads(r) for r in received if r.startswith('{"ev":"lost"')]
    assert lost == [{"ev": "lost", "lines": log_port.lost_total}]
    assert log_port.lost_total > 0 and log_port.lost == 0
    whole = [r for r in received if r in sent]
    assert len(whole) + log_port.lost_total == len(sent)  # each line arrived whole or was counted
    assert clock.now_us == 60_000  # one write timeout was waited for, at 20 ms, then none


def test_lines_are_lost_and_marked_while_no_host_has_the_port_open():
    clock, port, log_port = _port_with_a_stalled_host(-1, -1)
    port.connected = False
    log_port.send(bytearray(b'{"ev":"stall","t":1,"due":2}'))
    port.connected = True
    log_port.send(bytearray(b'{"ev":"stall","t":3,"due":4}'))
    assert _received(port) == '{"ev":"lost","lines":1}\n{"ev":"stall","t":3,"due":4}\n'


def test_a_bad_setting_is_shown_on_both_panels_and_the_game_goes_on_with_the_default(tmp_path):
    result, writes = run_board_program(
        tmp_path, "tests/scripts/board_play_twice.txt", "", SPEED_BEST_OF=4, SPEED_PENALTI=1
    )
    assert result.returncode == 0, result.stderr
    notice = [line for line in result.stdout.splitlines() if line.startswith("SETTINGS.TOML:")]
    assert notice == [
        "SETTINGS.TOML: SPEED_BEST_OF / 3, 5 or 7 / SPEED_PENALTI / unknown: ignored"
        " / (defaults used)"
    ]
    assert {w["bus"] for w in writes if w["ack"] and w["t0"] < 1_000_000} == {0, 1}
    events = [json.loads(line) for line in _log_lines(result.stdout)]
    assert events[0]["best_of"] == 3 and events[-1]["ev"] == "match_end"


class _Keys:
    """One key press that arrives after the notice is up (stale presses are cleared)."""

    def __init__(self, key):
        self.events = self
        self.key = key

    def clear(self):
        pass

    def get_into(self, event):
        if self.key is None:
            return False
        event._key_number, event._pressed, event._timestamp = self.key, True, 0  # the shim's
        self.key = None
        return True


class _Screens:
    def __init__(self):
        self.shown = []

    def show_menu(self, player, lines, selected, title=None):
        self.shown.append((title, list(lines)))

    def hide_menu(self):
        self.shown.append(("hidden", []))

    def recover(self, now):
        pass


def test_an_unexpected_error_is_shown_on_the_panels_until_a_key_goes_back_to_the_menu(capsys):
    from speedduo.loop import menu_loop

    vclock.install(vclock.VirtualClock()).auto_step_us = 1000
    screens = _Screens()
    menu_loop.show_fault(MemoryError("memory allocation failed"), _Keys(3), screens, lambda: None)
    title, lines = screens.shown[0]
    assert title == "SORRY, AN ERROR"
    assert lines == ["MemoryError: memory", "allocation failed", "ANY KEY: MENU"]
    assert screens.shown[-1][0] == "hidden"  # the key press left the notice
    assert "MemoryError" in capsys.readouterr().err  # the traceback went to the console
