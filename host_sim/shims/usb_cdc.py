"""Shim of CircuitPython's ``usb_cdc``: the data port collects what the board writes."""


class _Port:
    def __init__(self):
        self.connected = True
        self.written = []  # bytes objects, in order
        self.echo = None  # a callable(bytes) to pass the bytes on (e.g. to stdout)

    def write(self, data):
        self.written.append(bytes(data))
        if self.echo is not None:
            self.echo(data)
        return len(data)


console = None
data = _Port()


def enable(*, console=True, data=False):
    pass
