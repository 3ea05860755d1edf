"""The link's per-line and per-pass paths allocate nothing: run under micropython.heap_lock().

    micropython -X heapsize=72K tests/link_heap_lock.py ROOT

``LogPort.send`` of a log line (tab, seq and newline appended into the line's
own buffer), a send that times out, one that raises (the cable is out), and
``Link.poll`` with nothing waiting and with a request half-read, each many times
with the heap locked. A control (answering a request, which may allocate) must be
caught by the lock. Prints ``PASS|FAIL name`` lines, then ``ALL PASS`` or ``SOME FAIL``.
"""

import sys

import micropython

_root = sys.argv[1] if len(sys.argv) > 1 else "."
sys.path[:0] = [_root + "/lib"]

from speedduo.display.menu import Menu  # noqa: E402
from speedduo.game.rules import Rules  # noqa: E402
from speedduo.host.link import Link  # noqa: E402
from speedduo.host.logport import LogPort  # noqa: E402

REPEAT = 300
TEXT = b'{"ev":"play","t":812,"p":0,"slot":2,"card":"7H","pile":0}'
_EIO = OSError(5)  # preallocated, as a driver's would be


class FakePort:
    """A data port whose host reads everything, or takes nothing, or is unplugged."""

    def __init__(self):
        self.connected = True
        self.write_timeout = None
        self.out_waiting = 0
        self.in_waiting = 0
        self.mode = 0  # 0: takes all, 1: takes nothing (timed out), 2: raises
        self.bytes = 0

    def write(self, data):
        self.out_waiting = 1 if self.mode == 1 else 0  # a stalled host leaves bytes queued
        if self.mode == 2:
            self.raised += 1
            raise _EIO
        if self.mode == 1:
            return 0
        self.bytes += len(data)
        return len(data)

    def read(self, n):
        self.in_waiting = 0
        return b"$sta"


def _no_feed():
    pass


def _ticks():
    return 1000


def _stats():
    return {"matches": 0}


def send_lines(log_port, line, mode):
    log_port.port.mode = mode
    for _ in range(REPEAT):
        line[:] = TEXT
        log_port.send(line)


def poll_idle(link, line, mode):
    for _ in range(REPEAT):
        link.poll()


def _locked(name, work, a, b, c, control=False):
    micropython.heap_lock()
    try:
        work(a, b, c)
        error = None
    except MemoryError as e:
        error = e
    finally:
        micropython.heap_unlock()
    if not control:
        print(("PASS " if error is None else "FAIL ") + name)
    return error is None


def main():
    port = FakePort()
    log_port = LogPort(port)
    line = bytearray(1024)
    link = Link(log_port, _ticks, _no_feed, _stats, Menu(Rules(), 3))
    log_port.seq = 123456  # several digits: the seq is written digit by digit
    ok = _locked("LogPort.send (host reads)", send_lines, log_port, line, 0)
    print("sent %d bytes" % port.bytes)
    ok &= port.bytes == REPEAT * (len(TEXT) + 8)  # "\t123457".."\t123756" + "\n"
    ok &= _locked("LogPort.send (host stalled)", send_lines, log_port, line, 1)
    port.out_waiting = 0
    port.raised = 0
    ok &= _locked("LogPort.send (cable out, write raises)", send_lines, log_port, line, 2)
    lost = log_port.lost_total
    print("lost %d of %d lines, %d writes raised" % (lost, 2 * REPEAT, port.raised))
    ok &= lost == 2 * REPEAT and port.raised == REPEAT
    ok &= _locked("Link.poll (nothing waiting)", poll_idle, link, line, 0)
    port.in_waiting = 4
    link.poll()  # "$sta": a request half read
    ok &= _locked("Link.poll (a request half read)", poll_idle, link, line, 0)
    port.mode = 0
    port.in_waiting = 4
    port.read = lambda n: b"$x\n"  # a whole (bad) request: answering it allocates
    caught = not _locked("CONTROL", poll_idle, link, line, 0, control=True)
    print("CONTROL answering a request allocates and was caught" if caught else "CONTROL missed")
    print("ALL PASS" if ok and caught else "SOME FAIL")


main()
