"""The match log's way out: the USB data port, never allowed to stop the game.

On the wire every line carries a sequence number after a tab (docs/link.md)::

    {"ev":"play","t":812,"p":0,"slot":2,"card":"7H","pile":0}<TAB>41

``seq`` counts every line the board produced since power-on (1, 2, ...; back to
1 after 999,999,999), lines it could not send included, so a host sees a gap.
The host strips the tab and the number: what is left is the match log line,
byte for byte (docs/match-log.md).

CircuitPython's ``usb_cdc`` writes wait forever by default when a host holds
the port open and stops reading. Here a write may wait at most
``WRITE_TIMEOUT_S`` (a host that reads takes a line in well under a
millisecond); a write that times out was cut short, and a write that raises
(``OSError``: the cable was pulled) sent nothing whole. From then on lines are
counted as lost, not written, until the host has taken everything still
queued (``out_waiting == 0``). Then one marker line goes out first, starting
with a newline so a cut line ends there; its seq is the last lost line's::

    {"ev":"lost","lines":3}<TAB>44

Lines while no host has the port open (``connected`` false) are lost too and
marked the same way when one opens it. The line itself is the match log's
reusable buffer (``MatchLog.line``, with room for its longest line and this tail):
``send`` appends the tab, the seq and the newline to it and writes it whole,
and the marker is formatted into a buffer of its own, so no line allocates
(tests/link_heap_lock.py).
"""

from micropython import const  # on the host, Blinka provides this module

from speedduo.log.logtext import int_into

WRITE_TIMEOUT_S = 0.01
SEQ_LIMIT = const(1000000000)  # seq runs 1 .. SEQ_LIMIT - 1, then 1 again
_NEWLINE = const(10)
_TAB = const(9)
_BRACE = const(125)
_MARKER_CAPACITY = const(64)  # > len('\n{"ev":"lost","lines":N}\tSEQ\n') with 10-digit numbers


class LogPort:
    """Sends match-log lines (and link replies) to ``port`` (``usb_cdc.data``; None: nowhere)."""

    def __init__(self, port) -> None:
        self.port = port
        self.lost = 0  # lines not sent since the last marker
        self.lost_total = 0  # lines not sent, ever
        self.sent = 0  # lines sent whole
        self.seq = 0  # the last line's sequence number (sent or lost)
        self._cut = False  # a line went out cut short: the stream needs a newline
        self._marker = bytearray(_MARKER_CAPACITY)  # the lost marker, formatted in place
        if port is not None:
            port.write_timeout = WRITE_TIMEOUT_S

    def send(self, line) -> None:
        """Write one line (a bytearray without its newline; tab, seq and newline are appended)."""
        port = self.port
        if port is None:
            return
        last = self.seq
        seq = last % (SEQ_LIMIT - 1) + 1
        self.seq = seq  # this line's number, whether it goes out or not
        try:
            resumed = not self.lost or self._resume(last)  # the marker: the last lost line's seq
            if not resumed or not port.connected:
                self._lose()
                return
            line.append(_TAB)
            int_into(line, seq)
            line.append(_NEWLINE)
            written = port.write(line)
        except OSError:  # the port went away under the write: whatever got out is cut
            self._cut = True
            self._lose()
            return
        if written is not None and written < len(line):  # timed out: the host stopped reading
            self._cut = written > 0
            self._lose()
        else:
            self.sent += 1

    def _lose(self) -> None:
        self.lost += 1
        self.lost_total += 1

    def _resume(self, last) -> bool:
        """After an outage: once the host has everything queued, mark the gap. True: resumed."""
        port = self.port
        if not port.connected or port.out_waiting:
            return False
        marker = self._marker
        marker[:] = b'\n{"ev":"lost","lines":' if self._cut else b'{"ev":"lost","lines":'
        int_into(marker, self.lost)
        marker.append(_BRACE)
        marker.append(_TAB)
        int_into(marker, last)
        marker.append(_NEWLINE)
        written = port.write(marker)
        if written is not None and written < len(marker):
            self._cut = True
            return False
        self._cut = False
        self.lost = 0
        return True

    def flush(self) -> None:
        """Between matches: mark lines lost in an outage, if the host is back."""
        if self.port is not None and self.lost:
            try:
                self._resume(self.seq)
            except OSError:
                self._cut = True
