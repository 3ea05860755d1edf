"""A pseudo-terminal standing in for the board's USB data port (``board --pty``).

The simulated board writes to the master side (``usb_cdc`` shim, ``attach_pty``);
host tools open ``path`` (the slave side) with pyserial as they would
``/dev/ttyACM1``. The terminal is raw (no echo, no line editing), so bytes pass
unchanged both ways.
"""

import os
import select
import time
import tty

DRAIN_S = 10.0  # after the board stopped: how long the host gets to read what is queued


class PtyPort:
    def __init__(self):
        self.master, slave = os.openpty()
        tty.setraw(slave)
        self.path = os.ttyname(slave)
        os.close(slave)  # a host opening the path is then the only one: "connected"

    def host_open(self):
        """True while a program has the slave side open."""
        poll = select.poll()
        poll.register(self.master, select.POLLIN)
        return not any(event & select.POLLHUP for _, event in poll.poll(0))

    def wait_for_host(self):
        while not self.host_open():
            time.sleep(0.05)

    def close(self):
        """Close the master once the host has read what is queued, has gone, or DRAIN_S passed
        (closing it throws away what the host has not read yet)."""
        if self.host_open():
            import fcntl
            import struct
            import termios

            fd = os.open(self.path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
            try:
                deadline = time.monotonic() + DRAIN_S
                while time.monotonic() < deadline:
                    queued = fcntl.ioctl(fd, termios.FIONREAD, struct.pack("i", 0))
                    if struct.unpack("i", queued)[0] == 0:
                        break
                    time.sleep(0.02)
            finally:
                os.close(fd)
        os.close(self.master)
