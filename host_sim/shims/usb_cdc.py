"""Shim of CircuitPython's ``usb_cdc``: the data port and the host at its other end.

As strict as the board (shared-module/usb_cdc/Serial.c): ``write`` waits until
the host has taken the bytes; with ``write_timeout`` None (the board's default)
a host that holds the port open and stops reading makes it wait forever. The
board would freeze there, so the shim raises ``RuntimeError`` instead of
hanging the simulation; with a timeout it spends that long on the virtual clock
and returns how many bytes went into the port's 256-byte transmit FIFO. The
same for ``read(n)`` asking for more than ``in_waiting`` with ``timeout`` None
(the board's default): it would wait forever.

The host: ``connected`` (it has the port open), and a stall window
``stall_from_us`` .. ``stall_until_us`` (-1: never / forever) in which it reads
nothing. ``written`` holds what the host received, in order; ``echo`` gets it
as it arrives (e.g. to stdout). ``host_sends(data)``: bytes from the host (the
board reads them with ``in_waiting`` and ``read``); ``host_schedule``: [(t_us,
bytes)] in time order, each sent when the virtual clock reaches t_us (``board
--ask/--send``, host_sim/host_requests.py), only while the host has the port open. A pull window
``pull_from_us`` .. ``pull_until_us``: the cable is out, and every write, read
and ``in_waiting`` raises ``OSError`` (EIO); what the board wrote then is gone.

``attach_pty(fd)`` puts a real program at the other end instead: the master
side of a pseudo-terminal (``python -m host_sim board --pty``). The host has
the port open while a program has the pty's other side open; a write waits for
the host at most ``write_timeout`` of wall time (the same on the virtual clock)
and otherwise goes in part, as on the board; what the host sends is read from
the pty.
"""

import errno

from vclock import current

TX_FIFO = 256  # CFG_TUD_CDC_TX_BUFSIZE


class _Port:
    def __init__(self):
        self._connected = True
        self.written = []  # bytes objects the host received, in order
        self.echo = None  # a callable(bytes) to pass the bytes on (e.g. to stdout)
        self.write_timeout = None
        self.timeout = None  # read timeout: None waits forever (the board's default)
        self.stall_from_us = -1
        self.stall_until_us = -1
        self.pull_from_us = -1
        self.pull_until_us = -1
        self._fifo = bytearray()  # bytes the stalled host has not taken yet
        self._rx = bytearray()  # bytes from the host, not read yet
        self.host_schedule = []  # [(t_us, bytes)]: the host sends them at t_us
        self._pty = None

    # ---- the host ----

    @property
    def connected(self):
        if self._pty is not None:
            return self._pty.open()
        return self._connected

    @connected.setter
    def connected(self, value):
        self._connected = value

    def host_sends(self, data):
        self._rx += bytes(data)

    def attach_pty(self, fd):
        self._pty = _Pty(fd)

    def _window(self, start, end):
        if start < 0:
            return False
        now = current().now_us
        return start <= now and (end < 0 or now < end)

    def _stalled(self):
        return self._window(self.stall_from_us, self.stall_until_us)

    def _check_cable(self):
        if self._window(self.pull_from_us, self.pull_until_us):
            self._fifo = bytearray()
            raise OSError(errno.EIO, "the USB cable is out")

    def _deliver(self, data):
        if data:
            if self._pty is None:
                self.written.append(bytes(data))
            if self.echo is not None:
                self.echo(bytes(data))

    # ---- what the board calls ----

    @property
    def out_waiting(self):
        self._check_cable()
        if self._pty is not None:
            return self._pty.out_waiting()
        if not self._stalled() and self._fifo:
            self._deliver(self._fifo)
            self._fifo = bytearray()
        return len(self._fifo)

    def write(self, data):
        self._check_cable()
        if self._pty is not None:
            taken = self._pty.write(bytes(data), self.write_timeout)
            self._deliver(bytes(data[:taken]))
            if taken < len(data):
                self._wait_for_host()
            return taken
        if not self._stalled():
            self.out_waiting  # noqa: B018  (the host takes what waited first)
            self._deliver(data)
            return len(data)
        take = min(len(data), TX_FIFO - len(self._fifo))
        self._fifo += bytes(data[:take])
        if take < len(data):
            self._wait_for_host()
        return take

    def _wait_for_host(self):
        if self.write_timeout is None:
            raise RuntimeError(
                "usb_cdc.data.write() waits forever: the host holds the port open and "
                "reads nothing, and write_timeout is None (the board would freeze here)"
            )
        clock = current()
        clock.advance_to(clock.now_us + int(self.write_timeout * 1000000))

    @property
    def in_waiting(self):
        self._check_cable()
        if self._pty is not None:
            self._rx += self._pty.read_available()
        schedule = self.host_schedule
        if schedule and self.connected:
            now = current().now_us
            while schedule and schedule[0][0] <= now:
                self._rx += schedule.pop(0)[1]
        return len(self._rx)

    def read(self, size=-1):
        waiting = self.in_waiting
        if size < 0:
            size = waiting
        if size > waiting and self.timeout is None:
            raise RuntimeError(
                "usb_cdc.data.read(%d) waits forever: only %d bytes are waiting and "
                "timeout is None (the board would freeze here)" % (size, waiting)
            )
        data = bytes(self._rx[:size])
        self._rx = self._rx[size:]
        return data

    def reset_input_buffer(self):
        self._rx = bytearray()


class _Pty:
    """The master side of a pseudo-terminal, as the data port's host (CPython only)."""

    def __init__(self, fd):
        import os
        import select

        self.fd = fd
        os.set_blocking(fd, False)
        self._poll = select.poll()
        self._poll.register(fd, select.POLLIN | select.POLLOUT)

    def _events(self, timeout_ms=0):
        events = self._poll.poll(timeout_ms)
        return events[0][1] if events else 0

    def open(self):
        """True while a program has the other side open (no hang-up on the master).
        What a host that went away had not read stays queued for the next one, as in
        the board's transmit FIFO."""
        import select

        return not self._events() & select.POLLHUP

    def out_waiting(self):
        import select

        return 0 if self._events() & select.POLLOUT else 1

    def write(self, data, timeout_s):
        """Bytes taken, waiting up to ``timeout_s`` (wall time) for the host to make room."""
        import os
        import select
        import time

        taken = 0
        deadline = time.monotonic() + (timeout_s if timeout_s is not None else 1.0)
        while taken < len(data):
            try:
                taken += os.write(self.fd, data[taken:])
                continue
            except BlockingIOError:
                pass
            except OSError:  # EIO: nobody has the other side open
                break
            left = deadline - time.monotonic()
            if left <= 0 or not self._events(int(left * 1000) + 1) & select.POLLOUT:
                break
        return taken

    def read_available(self):
        import os

        chunks = b""
        while True:
            try:
                chunk = os.read(self.fd, 4096)
            except (BlockingIOError, OSError):  # nothing more, or nobody there (EIO)
                return chunks
            if not chunk:
                return chunks
            chunks += chunk


console = None
data = _Port()


def enable(*, console=True, data=False):
    pass
