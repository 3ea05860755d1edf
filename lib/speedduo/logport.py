"""The match log's way out: the USB data port, never allowed to stop the game.

CircuitPython's ``usb_cdc`` writes wait forever by default when a host holds
the port open and stops reading. Here a write may wait at most
``WRITE_TIMEOUT_S`` (a host that reads takes a line in well under a
millisecond); a write that times out was cut short, and from then on lines
are counted as lost, not written, until the host has taken everything still
queued (``out_waiting == 0``). Then one marker line goes out first, starting
with a newline so the cut line ends there::

    {"ev":"lost","lines":3}

Lines while no host has the port open (``connected`` false) are lost too and
marked the same way when one opens it. The line itself is the match log's
reusable buffer (``MatchLog.line``): ``send`` appends the newline to it and
writes it whole, so a line costs no allocation; only the marker allocates,
once per outage.
"""

from micropython import const  # on the host, Blinka provides this module

WRITE_TIMEOUT_S = 0.01
_NEWLINE = const(10)


class LogPort:
    """Sends match-log lines to ``port`` (``usb_cdc.data``; None: nowhere)."""

    def __init__(self, port) -> None:
        self.port = port
        self.lost = 0  # lines not sent since the last marker
        self.lost_total = 0  # lines not sent, ever
        self.sent = 0  # lines sent whole
        self._cut = False  # a line went out cut short: the stream needs a newline
        if port is not None:
            port.write_timeout = WRITE_TIMEOUT_S

    def send(self, line) -> None:
        """Write one line (a bytearray without its newline; the newline is appended)."""
        port = self.port
        if port is None:
            return
        if self.lost and not self._resume():
            self._lose()
            return
        if not port.connected:
            self._lose()
            return
        line.append(_NEWLINE)
        written = port.write(line)
        if written is not None and written < len(line):  # timed out: the host stopped reading
            self._cut = written > 0
            self._lose()
        else:
            self.sent += 1

    def _lose(self) -> None:
        self.lost += 1
        self.lost_total += 1

    def _resume(self) -> bool:
        """After an outage: once the host has everything queued, mark the gap. True: resumed."""
        port = self.port
        if not port.connected or port.out_waiting:
            return False
        marker = b'%s{"ev":"lost","lines":%d}\n' % (b"\n" if self._cut else b"", self.lost)
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
            self._resume()
