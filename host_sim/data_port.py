"""The board's USB data port on the PC: found by its USB ids (or named with ``--port``)
and opened with pyserial. ``monitor`` and the requests (``stats``, ``ask``) both use it.
"""

ADAFRUIT_VID = 0x239A  # CircuitPython boards, the Pico's included, use Adafruit's USB VID
DATA_INTERFACE = "CDC2"  # the data port's interface: "CircuitPython CDC2 data"


class PortError(ValueError):
    """No data port to open; the message is one line."""


def find_data_port(ports=None):
    """The device path of the board's USB data port (``serial.tools.list_ports``).

    The port whose USB interface is named "... CDC2 data" on a VID 0x239A device
    (Linux and Windows report interface names); else, where they are not reported
    (macOS), the second of the board's two CDC ports (console, then data)."""
    if ports is None:
        from serial.tools import list_ports

        ports = list_ports.comports()
    ours = sorted((p for p in ports if p.vid == ADAFRUIT_VID), key=lambda p: p.device)
    named = [p for p in ours if p.interface and DATA_INTERFACE in p.interface]
    if named:
        return named[0].device
    unnamed = [p for p in ours if not p.interface]
    if len(unnamed) == 2:  # one board, console and data: the data port comes second
        return sorted(unnamed, key=lambda p: (p.location or "", p.device))[1].device
    if ours:
        raise PortError(
            f"a CircuitPython board is there ({', '.join(p.device for p in ours)}) but no data "
            "port: is boot.py on it (usb_cdc.enable(data=True)), and was it replugged? or --port"
        )
    raise PortError("no CircuitPython data port found (USB VID 0x239A, CDC2 data): give --port")


def open_port(path):
    """The port at ``path``, opened with what the board sent since it saw the host come
    (its ``lost`` marker first) kept for reading."""
    import serial

    class _KeepingSerial(serial.Serial):
        """pyserial's open empties the input queue after the port is open, and the board
        writes its ``lost`` marker as soon as it sees the host: a marker that arrived in
        between was thrown away (seen as a gap). Nothing older can be there: the queue goes
        when the last program closes the port. A ``reset_input_buffer()`` later still empties
        it."""

        _opening = False

        def open(self):
            self._opening = True
            try:
                super().open()
            finally:
                self._opening = False

        def _reset_input_buffer(self):
            if not self._opening:
                super()._reset_input_buffer()

    try:
        return _KeepingSerial(path, 115200, timeout=0.2)
    except (serial.SerialException, OSError) as e:
        raise PortError(f"cannot open {path}: {e}") from None
