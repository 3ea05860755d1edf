"""Shim of CircuitPython's ``usb_cdc``: the data port and the host at its other end.

As strict as the board (shared-module/usb_cdc/Serial.c): ``write`` waits until
the host has taken the bytes; with ``write_timeout`` None (the board's default)
a host that holds the port open and stops reading makes it wait forever. The
board would freeze there, so the shim raises ``RuntimeError`` instead of
hanging the simulation; with a timeout it spends that long on the virtual clock
and returns how many bytes went into the port's 256-byte transmit FIFO.

The host: ``connected`` (it has the port open), and a stall window
``stall_from_us`` .. ``stall_until_us`` (-1: never / forever) in which it reads
nothing. ``written`` holds what the host received, in order; ``echo`` gets it
as it arrives (e.g. to stdout).
"""

from vclock import current

TX_FIFO = 256  # CFG_TUD_CDC_TX_BUFSIZE


class _Port:
    def __init__(self):
        self.connected = True
        self.written = []  # bytes objects the host received, in order
        self.echo = None  # a callable(bytes) to pass the bytes on (e.g. to stdout)
        self.write_timeout = None
        self.stall_from_us = -1
        self.stall_until_us = -1
        self._fifo = bytearray()  # bytes the stalled host has not taken yet

    def _stalled(self):
        if self.stall_from_us < 0:
            return False
        now = current().now_us
        return self.stall_from_us <= now and (self.stall_until_us < 0 or now < self.stall_until_us)

    def _deliver(self, data):
        if data:
            self.written.append(bytes(data))
            if self.echo is not None:
                self.echo(bytes(data))

    @property
    def out_waiting(self):
        if not self._stalled() and self._fifo:
            self._deliver(self._fifo)
            self._fifo = bytearray()
        return len(self._fifo)

    def write(self, data):
        if not self._stalled():
            self.out_waiting  # noqa: B018  (the host takes what waited first)
            self._deliver(data)
            return len(data)
        take = min(len(data), TX_FIFO - len(self._fifo))
        self._fifo += bytes(data[:take])
        if take < len(data):
            if self.write_timeout is None:
                raise RuntimeError(
                    "usb_cdc.data.write() waits forever: the host holds the port open and "
                    "reads nothing, and write_timeout is None (the board would freeze here)"
                )
            clock = current()
            clock.advance_to(clock.now_us + int(self.write_timeout * 1000000))
        return take


console = None
data = _Port()


def enable(*, console=True, data=False):
    pass
