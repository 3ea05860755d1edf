"""The PIO edge stamps on CircuitPython itself (rp2040js, issue 19): ``speedduo.loop.edges``.

One boot of the emulated Pico runs a small ``code.py`` that starts the reader, plays a
tone on GP15 (the piezo) throughout and records every key event; the harness changes
the button pins at scheduled µs. Needs the firmware files (docs/device.md).
"""

import os
import tempfile

import pytest
from conftest import needs_firmware

from host_sim import device_run

slow = pytest.mark.timeout(900)

GPIO = (6, 7, 8, 9, 10, 11, 12, 16, 17, 18, 19, 20, 21, 22)  # key k's pin
DEBOUNCE_US = 5000
START_US = 3_000_000  # code.py is reading the stamps by then
PAIR_GAPS = (5, 20, 100, 500)
BURST_GAP = 2  # µs between the edges of the burst: more than the FIFO holds
CODE_FROM_US = 2_300_000  # code.py starts reading a little later (2.38 s)
END_US = 3_550_000  # after the last edge (the burst ends at 3.44 s)

CODE = """import gc
import board
import pwmio
import supervisor
from array import array

gc.collect()
free = [gc.mem_free()]
from speedduo.loop import edges

gc.collect()
free.append(gc.mem_free())
from speedduo.loop.edge_program import start

reader = start(board, supervisor.ticks_ms, %(debounce)d)
gc.collect()
free.append(gc.mem_free())
tone = pwmio.PWMOut(board.GP15, frequency=2000, duty_cycle=32768, variable_frequency=True)
event = edges.Edge()
keys = bytearray(200)
downs = bytearray(200)
times = array("L", bytes(800))
n = 0
reads = 0
before = grew = idle_ms = t0 = start = 0  # names made now: a new global grows the module's dict
gc.collect()
print("edges-test ready", reader is not None)
start = supervisor.ticks_ms()
before = gc.mem_alloc()
while (supervisor.ticks_ms() - start) & 0x1FFFFFFF < %(run_ms)d:
    while n < 200 and reader.get_into(event):
        keys[n] = event.key_number
        downs[n] = event.pressed
        times[n] = event.t_us
        n += 1
    reads += 1
grew = gc.mem_alloc() - before
t0 = supervisor.ticks_ms()
for i in range(1000):
    reader.get_into(event)
idle_ms = supervisor.ticks_ms() - t0
print("edges-test reads", reads, "grew", grew, "idle_ms", idle_ms)
for i in range(n):
    print("edges-test event", keys[i], downs[i], times[i])
print("edges-test heap module", free[0] - free[1], "reader", free[1] - free[2])
print("edges-test done")
"""


def schedule():
    """[[t_us, gpio, pressed]] and what each scenario expects, by name."""
    edges = []
    cases = {}
    t = START_US
    for gap in PAIR_GAPS:  # two keys, both orders
        for first, second in ((1, 8), (8, 1)):
            edges += [[t, GPIO[first], True], [t + gap, GPIO[second], True]]
            edges += [[t + 20000, GPIO[first], False], [t + 20000 + gap, GPIO[second], False]]
            cases["pair %d %d-%d" % (gap, first, second)] = (t, first, second, gap)
            t += 40000
    edges += [[t, GPIO[2], True], [t, GPIO[9], True]]  # the same instant
    edges += [[t + 20000, GPIO[2], False], [t + 20000, GPIO[9], False]]
    cases["same"] = (t,)
    t += 40000
    for i, dt in enumerate((0, 40, 90, 300, 700, 1500)):  # chatter on press and release
        edges.append([t + dt, GPIO[3], i % 2 == 0])
    for i, dt in enumerate((30000, 30060, 30200, 30900, 31000)):
        edges.append([t + dt, GPIO[3], i % 2 == 1])
    cases["bounce"] = (t,)
    t += 60000
    for k in range(14):  # a burst: every key down, then up, BURST_GAP µs apart
        edges.append([t + k * BURST_GAP, GPIO[k], True])
        edges.append([t + 20000 + k * BURST_GAP, GPIO[k], False])
    cases["burst"] = (t,)
    edges.sort(key=lambda e: e[0])
    return edges, cases


NEEDED = (
    "boot",
    "lib/speedduo/__init__",
    "lib/speedduo/game/__init__",
    "lib/speedduo/vocab/ticks",
    "lib/speedduo/loop/__init__",
    "lib/speedduo/loop/pins",
)


def run_reader(deploy="py"):
    """Boot with ``code.py`` (CODE) and the reader's modules as ``deploy`` puts them."""
    firmware = device_run.find_firmware(need_mpy_cross=deploy == "mpy")
    with tempfile.TemporaryDirectory() as build:
        drive = device_run.drive_files("", deploy, firmware.get("mpy-cross"), build)
    wanted = NEEDED + ("lib/speedduo/loop/edges", "lib/speedduo/loop/edge_program")
    files = [(rel, data) for rel, data in drive if rel.rsplit(".", 1)[0] in wanted]
    assert len(files) == len(wanted), [rel for rel, _ in files]
    run_ms = (END_US - CODE_FROM_US) // 1000
    code = CODE % {"debounce": DEBOUNCE_US, "run_ms": run_ms}
    files.append(("code.py", code.encode()))
    edges, cases = schedule()
    with tempfile.TemporaryDirectory() as work:
        result = device_run.run_drive(
            firmware,
            files,
            work,
            buttons=edges,
            button_gpios=list(GPIO),
            limit_us=END_US + 3_000_000,
            pwm_slice=device_run.piezo_slice(),
        )
        out = os.path.join(work, "out")
        console = device_run.read_recordings(out)[0]
        with open(os.path.join(out, "pwm.txt")) as f:
            pwm = f.read()
    return result, console, pwm, cases


@pytest.fixture(scope="module")
def run():
    result, console, pwm, cases = run_reader()
    lines = console.replace("\r", "").split("\n")
    events = []
    facts = {}
    for line in lines:
        line = line[line.find("edges-test ") :]  # after the title's escape sequence
        if line.startswith("edges-test event "):
            key, down, t = line.split()[2:]
            events.append((int(key), down == "1", int(t)))
        elif line.startswith("edges-test "):
            facts[line.split()[1]] = line.split()[2:]
    return {"result": result, "console": console, "pwm": pwm, "events": events, "facts": facts}


def _events(run, key=None, since=0, until=10**9):
    """(key, pressed, µs after START_US on the schedule's clock) of the run's events."""
    anchor = run["events"][0][2]  # the first event: the first pair's first press at START_US
    found = []
    for k, pressed, t in run["events"]:
        t -= anchor
        if (key is None or k == key) and since <= t < until:
            found.append((k, pressed, t))
    return found


@needs_firmware
@slow
def test_the_reader_starts_reads_allocation_free_and_loses_nothing(run):
    assert device_run.traceback_in(run["console"]) is None, run["console"][-2000:]
    assert run["facts"]["ready"] == ["True"]
    reads = dict(zip(run["facts"]["reads"][1::2], run["facts"]["reads"][2::2], strict=True))
    assert run["facts"]["reads"][0].isdigit() and int(run["facts"]["reads"][0]) > 100
    assert reads["grew"] == "0"  # gc.mem_alloc() across every read of the run
    assert run["facts"]["done"] == []
    assert len(run["events"]) == 2 * 4 * 4 + 4 + 4 + 28  # pairs, same instant, bounce, burst


@needs_firmware
@slow
@pytest.mark.parametrize("gap", PAIR_GAPS)
def test_two_keys_pressed_apart_come_in_order_within_a_microsecond(run, gap):
    _, cases = schedule()
    for (first, second), name in (((1, 8), "1-8"), ((8, 1), "8-1")):
        t = cases["pair %d %s" % (gap, name)][0] - START_US
        found = _events(run, since=t - 2, until=t + 30000)
        assert [(k, p) for k, p, _ in found] == [
            (first, True),
            (second, True),
            (first, False),
            (second, False),
        ]
        assert abs(found[1][2] - found[0][2] - gap) <= 1
        assert abs(found[3][2] - found[2][2] - gap) <= 1
        assert abs(found[0][2] - t) <= 1 and abs(found[2][2] - (t + 20000)) <= 1


@needs_firmware
@slow
def test_the_same_instant_gives_one_event_each_with_equal_stamps(run):
    _, cases = schedule()
    t = cases["same"][0] - START_US
    found = _events(run, since=t - 2, until=t + 30000)
    assert sorted((k, p) for k, p, _ in found) == [(2, False), (2, True), (9, False), (9, True)]
    assert found[0][2] == found[1][2] and found[2][2] == found[3][2]
    assert abs(found[0][2] - t) <= 1


@needs_firmware
@slow
def test_contact_chatter_gives_one_press_and_one_release(run):
    """The press chatters and ends released 1.5 ms later (a short tap: its release is the
    last edge); the next press chatters on its release: one event per state."""
    _, cases = schedule()
    t = cases["bounce"][0] - START_US
    found = _events(run, key=3, since=t - 2, until=t + 50000)
    assert [p for _, p, _ in found] == [True, False, True, False]
    assert [round((s - t) / 10) * 10 for _, _, s in found] == [0, 1500, 30060, 31000]


@needs_firmware
@slow
def test_a_burst_of_edges_loses_none_and_stamps_none_early(run):
    """28 edges 2 µs apart, more than the FIFO holds: every key's press and release
    comes, each stamp at or after its edge (late only while the FIFO was full)."""
    _, cases = schedule()
    t = cases["burst"][0] - START_US
    found = _events(run, since=t - 2, until=t + 40000)
    assert sorted((k, p) for k, p, _ in found) == sorted(
        [(k, True) for k in range(14)] + [(k, False) for k in range(14)]
    )
    for k, pressed, stamp in found:
        edge = t + k * BURST_GAP + (0 if pressed else 20000)
        assert stamp >= edge - 1
        assert stamp - edge < 2000  # late by the reader's pass, not by a whole window


@needs_firmware
@slow
def test_the_tone_on_gp15_plays_throughout_and_stays_out_of_the_snapshot(run):
    """PWMOut(GP15) after the state machine claimed its pins: no "GP15 in use", the
    slice set up and never stopped, and no event for a key nobody pressed."""
    writes = [line.split() for line in run["pwm"].splitlines()]
    started = [int(t) for t, reg, value in writes if reg == "0" and int(value) & 1]
    stopped = [int(t) for t, reg, value in writes if reg == "0" and not int(value) & 1]
    assert started and started[0] < START_US
    assert not [t for t in stopped if started[0] < t < END_US]
    pressed = {k for k, _, _ in run["events"]}
    assert pressed == set(range(14))  # only the burst touches keys other than 1-3, 8, 9
    quiet = {0, 4, 5, 6, 7, 10, 11, 12, 13}
    _, cases = schedule()
    assert all(t >= cases["burst"][0] - START_US - 2 for k, _, t in _events(run) if k in quiet)


if __name__ == "__main__":  # the run's console, e.g. for the heap figures: [py|mpy]
    import sys

    result, console, pwm, cases = run_reader(*sys.argv[1:])
    print(result)
    print(console[-4000:])
    print(pwm[:2000])
