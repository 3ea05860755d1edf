"""Requests from the host on the USB data port, answered in checksummed frames.

A request is one line, ``$NAME*CCCC``: CCCC is the CRC-16/CCITT-FALSE of NAME
(polynomial 0x1021, start 0xFFFF; Python's ``binascii.crc_hqx(NAME, 0xFFFF)``)
in 4 hex digits. The answer goes out on the same port as the match log, as one
line ``$NAME JSON*CCCC`` (the CRC of ``NAME JSON``), with its seq like every
line (``logport.py``). NAME: ``stats``, ``version``, ``rules``. A bad request is
answered ``$error {"why":WHY}*CCCC``: ``garbage`` (not a frame), ``truncated``
(no ``*CCCC``, a frame cut by the next ``$``, or no end of line within
``STALE_MS``), ``checksum``, ``too_long`` (more than ``REQUEST_MAX`` bytes),
``unknown`` (a request nobody answers), ``failed`` (answering raised). See
docs/link.md.

``poll`` runs after every loop pass (it feeds the watchdog too). It reads
only what is already waiting (``in_waiting``), into a fixed buffer, so it
never waits and, with nothing waiting, allocates nothing; answering a request
may allocate (it is no key press).
"""

from micropython import const

from speedduo.vocab.ticks import ticks_diff

REQUEST_MAX = const(32)  # bytes in one request line
STALE_MS = const(1000)  # a started request with no end of line this long is truncated


class Link:
    """Answers the host's requests on ``log_port``'s port.

    ``stats``: a function returning a dict (board_io's stats hook); ``menu``:
    the ``Menu`` whose rules and best-of the next match plays."""

    def __init__(self, log_port, ticks_ms, feed, stats, menu) -> None:
        self.log_port = log_port
        self.ticks_ms = ticks_ms
        self._feed = feed
        self.stats = stats
        self.menu = menu
        self.requests = 0  # requests answered
        self.errors = 0  # bad requests answered with an error frame
        self._buffer = bytearray(REQUEST_MAX)
        self._length = 0  # bytes of the current request line
        self._too_long = False
        self._started = 0  # ticks_ms of the current request's first byte
        if log_port.port is not None:
            log_port.port.timeout = 0  # a read returns what is there (it asks no more anyway)

    def poll(self) -> None:
        """Between loop passes: feed the watchdog, answer what the host has sent."""
        self._feed()
        port = self.log_port.port
        if port is None:
            return
        try:
            waiting = port.in_waiting
            if waiting:
                self._take(port.read(min(waiting, REQUEST_MAX)))
            elif self._length or self._too_long:
                if ticks_diff(self.ticks_ms(), self._started) > STALE_MS:
                    self._length = 0  # never ended: whatever it holds, it was cut short
                    self._too_long = False
                    self._error("truncated")
        except OSError:  # the cable was pulled: nothing to read
            pass

    def busy(self) -> bool:
        """True when ``poll`` would answer something now, and so may allocate: bytes from
        the host are waiting, or a request line has gone stale. (SPEED_PROFILE measures
        those polls apart from the play's steps, and between them calls ``keep_alive``:
        profiling.py.)"""
        port = self.log_port.port
        if port is None:
            return False
        try:
            if port.in_waiting:
                return True
        except OSError:
            return False
        if self._length or self._too_long:
            return ticks_diff(self.ticks_ms(), self._started) > STALE_MS
        return False

    def keep_alive(self) -> None:
        """``poll`` without reading: the watchdog only (what came waits for a ``poll``)."""
        self._feed()

    def _take(self, data) -> None:
        for byte in data:
            if byte == 10 or byte == 13:
                if self._length or self._too_long:
                    self._end_of_line()
                continue
            if not self._length and not self._too_long:
                self._started = self.ticks_ms()
            if self._length < REQUEST_MAX:
                self._buffer[self._length] = byte
                self._length += 1
            else:
                self._too_long = True

    def _end_of_line(self) -> None:
        self._reply(None)

    def _error(self, why) -> None:
        self._reply(why)

    def _reply(self, why) -> None:
        """Answer the request line in the buffer (``why`` None), or send the error ``why``
        (``link_reply.reply``: a reply may allocate, it is no key press). Imported at the
        first request, not at power-on: a board no host asks never holds it (the ``.mpy``
        fallback: 1,728 B and ``crc`` 480, ``bench/bench_import_heap.py --deploy mpy``)."""
        from speedduo.host.link_reply import reply

        reply(self, why)
