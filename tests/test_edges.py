"""The PIO edge stamper's program and its reader (``speedduo.loop.edge_program``, ``edges``,
issue 19), off the board.

The program's words are checked against the source in their comments (a tiny assembler
for the instructions it uses); the reader runs on a stand-in state machine that hands
out (snapshot, count) pairs as the program pushes them. The firmware run is
tests/test_device_edges.py.
"""

import os
import re
import subprocess
import sys
from array import array

import pytest
from conftest import ROOT
from speedduo.loop import edge_program, edges, pins
from test_alloc_free import _micropython

SOURCE = os.path.join(ROOT, "lib", "speedduo", "loop", "edge_program.py")
MASK = (1 << 30) - 1

_JMP = {"": 0, "!x": 1, "x--": 2, "!y": 3, "y--": 4, "x!=y": 5, "pin": 6, "!osre": 7}
_IN_SRC = {"pins": 0, "x": 1, "y": 2, "null": 3, "isr": 6, "osr": 7}
_OUT_DST = {"pins": 0, "x": 1, "y": 2, "null": 3, "pindirs": 4, "pc": 5, "isr": 6, "exec": 7}
_MOV_DST = {"pins": 0, "x": 1, "y": 2, "exec": 4, "pc": 5, "isr": 6, "osr": 7}
_MOV_SRC = {"pins": 0, "x": 1, "y": 2, "null": 3, "status": 5, "isr": 6, "osr": 7}


def assemble(text):
    """One instruction of the forms the program uses, e.g. ``mov x, osr [15]``."""
    delay = 0
    found = re.search(r"\[(\d+)\]\s*$", text)
    if found:
        delay = int(found.group(1))
        text = text[: found.start()]
    op, _, rest = text.strip().partition(" ")
    args = [a.strip() for a in rest.split(",")] if rest.strip() else []
    if op == "jmp":
        cond, target = (args[0].split() + [""])[:2] if " " in args[0] else ("", args[0])
        if target == "":
            cond, target = "", cond
        word = (_JMP[cond] << 5) | int(target)
    elif op == "in":
        word = 0x4000 | (_IN_SRC[args[0]] << 5) | (int(args[1]) & 31)
    elif op == "out":
        word = 0x6000 | (_OUT_DST[args[0]] << 5) | (int(args[1]) & 31)
    elif op == "push":
        word = 0x8000 | {"noblock": 0, "block": 0x20, "": 0x20}[rest.strip()]
    elif op == "mov":
        source = args[1]
        invert = source.startswith("~")
        word = 0xA000 | (_MOV_DST[args[0]] << 5) | (invert << 3) | _MOV_SRC[source.lstrip("~")]
    else:
        raise ValueError("not in this assembler: " + text)
    assert 0 <= delay < 32
    return word | (delay << 8)


def _listing():
    """[(word, address, source)] from the PROGRAM's lines in edge_program.py."""
    with open(SOURCE, encoding="utf-8") as f:
        text = f.read()
    line = re.compile(r"^\s+(0x[0-9A-F]{4}),\s+#\s+(\d+)\s+(.+?)(?:\s+;.*)?$", re.M)
    return [(int(w, 16), int(a), src) for w, a, src in line.findall(text)]


def test_program_words_are_their_source_assembled():
    listing = _listing()
    assert [address for _, address, _ in listing] == list(range(len(edge_program.PROGRAM)))
    assert [word for word, _, _ in listing] == list(edge_program.PROGRAM)
    for word, address, source in listing:
        assert assemble(source) == word, (address, source, hex(assemble(source)))
    assert list(edge_program.INIT) == [assemble("mov y, null")]


def test_the_assembler_knows_datasheet_words():
    """A few words from the RP2040 datasheet's instruction tables, so a wrong
    assembler cannot agree with a wrong program."""
    assert assemble("jmp 0") == 0x0000
    assert assemble("push noblock") == 0x8000
    assert assemble("push block") == 0x8020
    assert assemble("mov x, ~osr") == 0xA02F
    assert assemble("in pins, 1") == 0x4001
    assert assemble("out null, 32") == 0x6060


def _cycles(addresses):
    return sum(1 + ((edge_program.PROGRAM[a] >> 8) & 31) for a in addresses)


def test_every_path_through_the_loop_takes_one_microsecond():
    """No change (wraps at WRAP), a change pushed, a change kept for lack of room:
    25 cycles at 25 MHz each, so the count is µs."""
    common = list(range(9))
    no_change = common + [9]
    pushed = common + list(range(10, 19))
    no_room = common + [10, 11, 19, 20]
    for path in (no_change, pushed, no_room):
        assert _cycles(path) * 1_000_000 == edge_program.FREQUENCY
    assert edge_program.WRAP == 9 and edge_program.PROGRAM[18] == edge_program.PROGRAM[
        20
    ] == assemble("jmp 0")
    assert edge_program.PROGRAM[8] == assemble("jmp x!=y 10") and edge_program.PROGRAM[
        11
    ] == assemble("jmp !x 19")


def test_snapshot_bits_follow_the_pin_map():
    """Bit k is key k: GP6-GP12 then GP16-GP22, and GP15 (the piezo) is not a button."""
    assert pins.BUTTON_PINS == tuple("GP%d" % n for n in list(range(6, 13)) + list(range(16, 23)))
    assert pins.PIEZO_PIN == "GP15"


class StandIn:
    """Hands out (snapshot, count) word pairs as the program pushes them."""

    def __init__(self):
        self.words = []
        self.buttons = 0x3FFF
        self.reads = []

    def edge(self, t_us, key, pressed):
        if pressed:
            self.buttons &= ~(1 << key)
        else:
            self.buttons |= 1 << key
        self.words += [self.buttons, (MASK - t_us) & MASK]  # X counts down from 0

    @property
    def in_waiting(self):
        return len(self.words)

    def readinto(self, buffer, end):
        self.reads.append(end)
        for i in range(end):
            buffer[i] = self.words.pop(0)


def _reader(debounce_us=5000):
    sm = StandIn()
    clock = [0]
    reader = edges.Edges(sm, lambda: clock[0], debounce_us)
    return sm, clock, reader


def _events(reader):
    event = edges.Edge()
    found = []
    while reader.get_into(event):
        found.append((event.key_number, event.pressed, event.t_us))
    return found


def test_two_keys_come_out_in_order_with_their_microseconds():
    sm, _, reader = _reader()
    sm.edge(1000, 8, True)
    sm.edge(1005, 1, True)
    sm.edge(1005, 2, True)
    assert _events(reader) == [(8, True, 1000), (1, True, 1005), (2, True, 1005)]


def test_chatter_within_the_debounce_time_gives_one_press():
    sm, _, reader = _reader()
    for t, pressed in ((0, True), (40, False), (90, True), (300, False), (700, True)):
        sm.edge(10_000 + t, 3, pressed)
    assert _events(reader) == [(3, True, 10_000)]
    sm.edge(60_000, 3, False)
    sm.edge(60_050, 3, True)
    sm.edge(60_120, 3, False)
    assert _events(reader) == [(3, False, 60_000)]


def test_chatter_that_ends_released_is_a_release_at_its_last_edge_once_the_window_is_over():
    sm, clock, reader = _reader()
    for t, pressed in ((0, True), (40, False), (90, True), (1500, False)):
        sm.edge(10_000 + t, 3, pressed)
    assert _events(reader) == [(3, True, 10_000)]  # the window is not over yet
    clock[0] += 6  # ms
    assert _events(reader) == [(3, False, 11_500)]


def test_a_later_snapshot_settles_chatter_before_its_own_edges():
    sm, _, reader = _reader()
    sm.edge(0, 3, True)
    sm.edge(100, 3, False)  # chatter that stays
    sm.edge(9_000, 4, True)
    assert _events(reader) == [(3, True, 0), (3, False, 100), (4, True, 9_000)]


def test_a_press_after_a_tap_shorter_than_the_window_is_not_lost():
    sm, _, reader = _reader()
    sm.edge(0, 3, True)
    sm.edge(2_000, 3, False)  # a 2 ms tap
    sm.edge(50_000, 3, True)
    assert _events(reader) == [(3, True, 0), (3, False, 2_000), (3, True, 50_000)]


def test_reads_whole_pairs_at_most_the_fifo_at_a_time():
    sm, _, reader = _reader(debounce_us=0)
    for k in range(7):
        sm.edge(100 + k, k, True)
    sm.words.append(0x3FFF)  # half a pair: the program is between its two pushes
    assert len(_events(reader)) == 7
    assert sm.reads == [8, 6] and sm.words == [0x3FFF]


def test_times_wrap_with_the_30_bit_count_and_follow_the_origin():
    sm, _, reader = _reader()
    reader.origin_at(MASK - 9)  # the origin 10 µs before the count wraps
    sm.edge(MASK - 4, 5, True)
    sm.edge(20, 6, True)  # after the wrap
    assert _events(reader) == [(5, True, 5), (6, True, 30)]


def test_moving_the_origin_keeps_a_debounce_window_open():
    sm, _, reader = _reader()
    sm.edge(100_000, 3, True)
    assert _events(reader) == [(3, True, 100_000)]
    reader.origin_at(100_000)
    sm.edge(101_000, 3, False)  # chatter 1 ms after the press
    sm.edge(101_100, 3, True)
    sm.edge(200_000, 3, False)
    assert _events(reader) == [(3, False, 100_000)]


def test_a_key_held_at_start_is_a_press_at_time_zero():
    sm, _, reader = _reader()
    sm.words += [0x3FFF & ~(1 << 13), MASK]  # the first loop's pair
    assert _events(reader) == [(13, True, 0)]


def test_start_without_rp2pio_gives_none(monkeypatch):
    monkeypatch.setitem(sys.modules, "rp2pio", None)  # its import fails, as off the board
    assert edge_program.start(object(), lambda: 0) is None


def _simulated(contacts, start_us=1000):
    """The reader on the ``rp2pio`` shim, started at ``start_us`` of a virtual clock."""
    import board
    from vclock import VirtualClock, install

    clock = install(VirtualClock())
    clock.contacts = list(contacts)
    clock.advance_to(start_us)
    return clock, edge_program.start(board, clock.ticks_ms)


def test_the_shim_pushes_the_words_the_program_pushes():
    """Loop k runs at start + k µs and pushes (snapshot, -(k + 1) & MASK) on a change."""
    clock, reader = _simulated(
        [(1500, 1, True), (1504.5, 8, True), (1510.2, 9, True), (1510.4, 9, False)]
    )
    sm = reader._sm
    clock.advance_to(2000)
    assert sm.in_waiting == 6
    words = [0] * 6
    sm.readinto(words, end=6)
    # 1504.5 µs is seen by loop 505; the 0.2 µs blip between two loops is never seen
    assert words == [0x3FFF, MASK, 0x3FFD, -501 & MASK, 0x3EFD, -506 & MASK]


def test_the_reader_on_the_shim_gives_exact_microseconds():
    clock, reader = _simulated([(1500, 1, True), (1505, 8, True), (21500, 1, False)])
    clock.advance_to(30000)
    assert _events(reader) == [(1, True, 500), (8, True, 505), (1, False, 20500)]


def test_the_shim_keeps_a_change_back_while_its_fifo_is_full():
    """14 presses 2 µs apart, nothing read: 4 pairs fill the FIFO (the first is the
    buttons at start); the rest come as one snapshot from the first loop after a read."""
    clock, reader = _simulated([(2000 + 2 * k, k, True) for k in range(14)])
    clock.advance_to(3000)
    assert reader._sm.in_waiting == 8
    found = _events(reader)  # reads 8 words at 3000 µs: room from loop 2000 on
    clock.advance_to(3001)
    found += _events(reader)
    assert [(k, t) for k, _, t in found] == [(0, 1000), (1, 1002), (2, 1004)] + [
        (k, 2001) for k in range(3, 14)
    ]


def test_the_shim_runs_only_the_edge_program():
    import board
    import rp2pio
    from vclock import VirtualClock, install

    install(VirtualClock())
    with pytest.raises(ValueError, match="only speedduo.loop.edge_program"):
        rp2pio.StateMachine(array("H", [0]), 25_000_000, first_in_pin=board.GP6)


HEAP_LOCK = """
import sys, micropython
sys.path[:0] = [ROOT + "/lib"]
from array import array
from speedduo.loop import edges
M = (1 << 30) - 1
class SM:
    def __init__(self):
        self.words = array("I", bytearray(4 * 64))
        self.n = 0
        self.start = 0
    @property
    def in_waiting(self):
        return self.n - self.start
    def readinto(self, buf, end):
        i = 0
        while i < end:
            buf[i] = self.words[self.start + i]
            i += 1
        self.start += end
clock = [0]
def ticks():
    return clock[0]
sm = SM()
reader = edges.Edges(sm, ticks, 5000)
event = edges.Edge()
raw = 0x3FFF
for t, key, down in ((0, 3, 1), (40, 3, 0), (90, 3, 1), (300, 3, 0), (9000, 5, 1), (9002, 6, 1),
                     (M - 5, 6, 0)):
    raw = raw & ~(1 << key) if down else raw | (1 << key)
    sm.words[sm.n] = raw
    sm.words[sm.n + 1] = (M - t) & M
    sm.n += 2
out = array("I", bytearray(4 * 40))
count = [0]
def run():
    micropython.heap_lock()
    try:
        k = 0
        for _ in range(3):
            while reader.get_into(event):
                out[k] = event.t_us
                k += 1
            clock[0] += 10
        count[0] = k
    except MemoryError:
        count[0] = -1
    finally:
        micropython.heap_unlock()
run()
print(count[0], list(out[:count[0]]))
"""


def test_reading_events_allocates_nothing_in_the_micropython_vm():
    script = "ROOT = %r\n%s" % (ROOT, HEAP_LOCK)
    result = subprocess.run(
        [_micropython(), "-X", "heapsize=64K", "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["5", "[0,", "300,", "9000,", "9002,", str(MASK - 5) + "]"]


@pytest.mark.parametrize(
    "module, name", [(edges, "Edge"), (edges, "Edges"), (edge_program, "start")]
)
def test_the_reader_imports_in_cpython(module, name):
    assert callable(getattr(module, name))
