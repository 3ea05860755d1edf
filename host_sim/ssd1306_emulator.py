"""An SSD1306 behind a fake ``busio.I2C``: what the panels show, decoded from the bus bytes.

``SSD1306Emulator`` executes the controller's I2C protocol and command set the
way the SSD1306 datasheet (rev 1.1, sections 8.1.5, 10.1-10.3) describes it:

* control bytes: ``0x00`` (a stream of commands), ``0x80`` (one command, then
  another control byte), ``0x40`` (a stream of data), ``0xC0`` (one data byte,
  then another control byte);
* GDDRAM of 8 pages x 128 columns, written in page (``0x20 0x02``, reset
  default), horizontal (``0x00``) or vertical (``0x01``) addressing mode, with
  column/page windows (``0x21``/``0x22``) and the page-mode pointers
  (``0xB0``-``0xB7``, ``0x00``-``0x0F`` low nibble, ``0x10``-``0x1F`` high nibble);
* display start line (``0x40``-``0x7F``), contrast (``0x81``), segment remap
  (``0xA0``/``0xA1``), entire display on (``0xA4``/``0xA5``), normal/inverse
  (``0xA6``/``0xA7``), multiplex ratio (``0xA8``), display off/on
  (``0xAE``/``0xAF``), COM scan direction (``0xC0``/``0xC8``), display offset
  (``0xD3``), clock (``0xD5``), pre-charge (``0xD9``), COM pins (``0xDA``),
  VCOMH (``0xDB``), charge pump (``0x8D``), IREF (``0xAD``), NOP (``0xE3``);
  the scroll commands (``0x26``/``0x27``/``0x29``/``0x2A``/``0xA3``/``0x2E``/``0x2F``)
  are parsed (their parameters consumed) and recorded, not animated.

``to_image()`` is what a person in front of the panel sees. The glass is taken
to be wired like the common 128x64 modules Adafruit's driver targets: with
``0xA1`` + ``0xC8`` + ``0xDA 0x12`` RAM column 0 is at the viewer's left and
page 0 bit 0 is the top row. ``mounted_rotation=180`` models a module fitted
upside down: the image is turned for that viewer. A panel that is off, or has no
charge pump enabled, shows black.

``FakeI2C`` has the ``busio.I2C`` surface (``try_lock``, ``unlock``, ``scan``,
``deinit``, ``writeto(address, buffer, *, start=0, end=None)``,
``readfrom_into``, ``writeto_then_readfrom``, ``frequency``), routes writes to
emulators by address and counts bytes, transfers and bus time. ``unplug(addr)``
makes that address NACK (``OSError`` errno 19, ENODEV, what CircuitPython
raises for an address NACK) or, with ``errno=5``, fail mid-transfer (EIO).
"""

import errno

WIDTH = 128
HEIGHT = 64
PAGES = 8

# commands that take parameters, and how many (datasheet table 9-1)
_PARAMS = {
    0x20: 1,  # memory addressing mode
    0x21: 2,  # column address window
    0x22: 2,  # page address window
    0x26: 6,  # right horizontal scroll
    0x27: 6,  # left horizontal scroll
    0x29: 5,  # vertical and right horizontal scroll
    0x2A: 5,  # vertical and left horizontal scroll
    0x81: 1,  # contrast
    0x8D: 1,  # charge pump
    0xA3: 2,  # vertical scroll area
    0xA8: 1,  # multiplex ratio
    0xAD: 1,  # internal IREF (SSD1306B)
    0xD3: 1,  # display offset
    0xD5: 1,  # clock divide / oscillator
    0xD9: 1,  # pre-charge period
    0xDA: 1,  # COM pins configuration
    0xDB: 1,  # VCOMH deselect level
}

HORIZONTAL = 0
VERTICAL = 1
PAGE = 2


class SSD1306Emulator:
    """One SSD1306 controller: its registers, its GDDRAM, and counters of what reached it."""

    def __init__(self, mounted_rotation=0, name=""):
        if mounted_rotation not in (0, 180):
            raise ValueError("mounted_rotation must be 0 or 180")
        self.mounted_rotation = mounted_rotation
        self.name = name
        self.reset()

    def reset(self):
        """Power-on reset values (datasheet section 10, 'reset' column)."""
        self.gddram = bytearray(WIDTH * PAGES)
        self.mode = PAGE
        self.col_start = 0
        self.col_end = WIDTH - 1
        self.page_start = 0
        self.page_end = PAGES - 1
        self.col = 0
        self.page = 0
        self.start_line = 0
        self.contrast = 0x7F
        self.seg_remap = False
        self.com_reverse = False
        self.entire_on = False
        self.inverse = False
        self.mux = 63
        self.display_on = False
        self.offset = 0
        self.clock = 0x80
        self.precharge = 0x22
        self.com_pins = 0x12
        self.vcomh = 0x20
        self.charge_pump = False
        self.scrolling = False
        self.scroll_setup = None
        self._cmd = None  # a command waiting for parameters
        self._args = []
        # counters
        self.transfers = 0  # I2C write transactions addressed to this panel
        self.bytes = 0  # bytes after the address byte (control + payload)
        self.data_bytes = 0  # GDDRAM bytes written
        self.command_bytes = 0
        self.unknown_commands = []

    def reset_counters(self):
        self.transfers = 0
        self.bytes = 0
        self.data_bytes = 0
        self.command_bytes = 0

    # ---- the I2C protocol ----

    def receive(self, payload):
        """One I2C write transaction (the bytes after the address byte)."""
        self.transfers += 1
        self.bytes += len(payload)
        i = 0
        n = len(payload)
        while i < n:
            control = payload[i]
            i += 1
            single = control & 0x80  # Co: one byte follows, then another control byte
            data = control & 0x40  # D/C#
            if control & 0x3F:
                raise ValueError("bad control byte 0x%02x" % control)
            if single:
                if i >= n:
                    break
                if data:
                    self._data(payload[i])
                else:
                    self._command(payload[i])
                i += 1
            else:
                for b in payload[i:]:
                    if data:
                        self._data(b)
                    else:
                        self._command(b)
                break

    # ---- commands ----

    def _command(self, b):
        self.command_bytes += 1
        if self._cmd is not None:
            self._args.append(b)
            if len(self._args) == _PARAMS[self._cmd]:
                cmd, args = self._cmd, self._args
                self._cmd = None
                self._args = []
                self._execute(cmd, args)
            return
        if b in _PARAMS:
            self._cmd = b
            self._args = []
            return
        self._execute(b, ())

    def _execute(self, cmd, args):
        if cmd == 0x20:
            self.mode = args[0] & 3
            if self.mode == 3:
                self.mode = PAGE  # 11b is invalid; keep a defined state
        elif cmd == 0x21:
            self.col_start = args[0] & 0x7F
            self.col_end = args[1] & 0x7F
            self.col = self.col_start
        elif cmd == 0x22:
            self.page_start = args[0] & 7
            self.page_end = args[1] & 7
            self.page = self.page_start
        elif 0xB0 <= cmd <= 0xB7:
            self.page = cmd & 7
        elif cmd <= 0x0F:
            self.col = (self.col & 0xF0) | cmd
        elif 0x10 <= cmd <= 0x1F:
            self.col = ((cmd & 0x07) << 4) | (self.col & 0x0F)
        elif 0x40 <= cmd <= 0x7F:
            self.start_line = cmd & 0x3F
        elif cmd == 0x81:
            self.contrast = args[0]
        elif cmd in (0xA0, 0xA1):
            self.seg_remap = cmd == 0xA1
        elif cmd in (0xA4, 0xA5):
            self.entire_on = cmd == 0xA5
        elif cmd in (0xA6, 0xA7):
            self.inverse = cmd == 0xA7
        elif cmd == 0xA8:
            if args[0] >= 15:  # values 0-14 are invalid
                self.mux = args[0] & 0x3F
        elif cmd in (0xAE, 0xAF):
            self.display_on = cmd == 0xAF
        elif cmd in (0xC0, 0xC8):
            self.com_reverse = cmd == 0xC8
        elif cmd == 0xD3:
            self.offset = args[0] & 0x3F
        elif cmd == 0xD5:
            self.clock = args[0]
        elif cmd == 0xD9:
            self.precharge = args[0]
        elif cmd == 0xDA:
            self.com_pins = args[0]
        elif cmd == 0xDB:
            self.vcomh = args[0]
        elif cmd == 0x8D:
            self.charge_pump = bool(args[0] & 0x04)
        elif cmd in (0x26, 0x27, 0x29, 0x2A, 0xA3):
            self.scroll_setup = (cmd, tuple(args))
        elif cmd == 0x2E:
            self.scrolling = False
        elif cmd == 0x2F:
            self.scrolling = True
        elif cmd in (0xAD, 0xE3):
            pass
        else:
            self.unknown_commands.append(cmd)

    # ---- data ----

    def _data(self, b):
        self.data_bytes += 1
        self.gddram[self.page * WIDTH + self.col] = b
        if self.mode == HORIZONTAL:
            if self.col >= self.col_end:
                self.col = self.col_start
                self.page = self.page_start if self.page >= self.page_end else self.page + 1
            else:
                self.col += 1
        elif self.mode == VERTICAL:
            if self.page >= self.page_end:
                self.page = self.page_start
                self.col = self.col_start if self.col >= self.col_end else self.col + 1
            else:
                self.page += 1
        else:  # page mode: the column wraps within the page, the page stays
            self.col = 0 if self.col >= WIDTH - 1 else self.col + 1

    # ---- what a viewer sees ----

    def ram_pixel(self, col, row):
        return (self.gddram[(row >> 3) * WIDTH + col] >> (row & 7)) & 1

    def ram_image(self):
        """GDDRAM as an image, column 0 left and page 0 bit 0 on top (no display mapping)."""
        from PIL import Image  # only where pictures are made: the VM has no PIL

        img = Image.new("1", (WIDTH, HEIGHT))
        px = img.load()
        for y in range(HEIGHT):
            for x in range(WIDTH):
                px[x, y] = 255 if self.ram_pixel(x, y) else 0
        return img

    def _row_for_glass_line(self, y):
        """The GDDRAM row shown on glass line y (0 = top), or None for a dark line.

        The glass is wired for the alternative COM pin layout (``0xDA 0x12``) and is
        upright with ``0xC8``: line y sits on COM pin 63 - y. Another COM pin setting
        interleaves the rows, as it does on a real module.
        """
        s = y
        if not self.com_pins & 0x10:  # sequential COM pins on alternative-wired glass
            s = (y >> 1) + (32 if y & 1 else 0)
        if self.com_pins & 0x20:  # COM left/right remap
            s = (s + 32) % HEIGHT
        pin = HEIGHT - 1 - s
        n = self.mux + 1
        # 0xC8 scans from COM[N-1] down to COM0; 0xC0 from COM0 up
        r = (n - 1 - pin) if self.com_reverse else pin
        if r < 0 or r >= n:
            return None
        return (r + self.start_line + self.offset) % HEIGHT

    def to_image(self, glass=False):
        """A PIL '1' image of what the viewer sees (mode/remap/scan/invert/on-off applied).

        ``glass=True`` leaves out the module's mounted rotation (the controller's own frame).
        """
        from PIL import Image  # only where pictures are made: the VM has no PIL

        img = Image.new("1", (WIDTH, HEIGHT))
        if not (self.display_on and self.charge_pump):
            return img
        px = img.load()
        for y in range(HEIGHT):
            row = self._row_for_glass_line(y)
            for x in range(WIDTH):
                col = x if self.seg_remap else WIDTH - 1 - x
                if row is None:
                    on = 0
                elif self.entire_on:
                    on = 1
                else:
                    on = self.ram_pixel(col, row)
                if self.inverse and row is not None:
                    on ^= 1
                px[x, y] = 255 if on else 0
        if self.mounted_rotation == 180 and not glass:
            img = img.rotate(180)
        return img

    def save_png(self, path, scale=4):
        """What the viewer sees, scaled up, as a PNG (white pixels on black)."""
        img = self.to_image()
        if scale != 1:
            from PIL import Image

            img = img.resize((WIDTH * scale, HEIGHT * scale), Image.NEAREST)
        img.save(path)
        return path


class FakeI2C:
    """The ``busio.I2C`` surface, wired to emulated panels by address.

    Counts per address: ``transfers``, ``bytes`` (after the address byte) and
    ``bus_us``, the time those transfers take on a real bus at ``frequency``:
    9 clocks per byte (8 bits + ACK) for the payload and the address byte, plus
    about 2 clocks for START and STOP.
    """

    def __init__(self, devices=None, frequency=400000, require_lock=True, tag=None, clock=None):
        self.frequency = frequency
        self.tag = tag  # names this bus in a shared ``log``
        self.clock = clock  # a one-item list of microseconds shared by buses one CPU drives
        self.devices = dict(devices or {})
        self.require_lock = require_lock
        self._locked = False
        self._deinited = False
        self.unplugged = {}  # address -> errno raised
        self.transfers = {}
        self.bytes = {}
        self.bus_us = {}
        self.log = None  # a list: gets (tag, address, bytes, end_us) for every write

    def attach(self, address, emulator):
        self.devices[address] = emulator
        return emulator

    def unplug(self, address=0x3C, errno_value=errno.ENODEV):
        self.unplugged[address] = errno_value

    def replug(self, address=0x3C):
        self.unplugged.pop(address, None)

    def reset_counters(self):
        self.transfers.clear()
        self.bytes.clear()
        self.bus_us.clear()

    # ---- busio.I2C ----

    def try_lock(self):
        self._check()
        if self._locked:
            return False
        self._locked = True
        return True

    def unlock(self):
        self._locked = False

    def deinit(self):
        self._deinited = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.deinit()

    def scan(self):
        self._check_locked()
        return sorted(a for a in self.devices if a not in self.unplugged)

    def _check(self):
        if self._deinited:
            raise ValueError("Object has been deinitialized and can no longer be used.")

    def _check_locked(self):
        self._check()
        if self.require_lock and not self._locked:
            raise RuntimeError("Function requires lock")

    def _count(self, address, n):
        self.transfers[address] = self.transfers.get(address, 0) + 1
        self.bytes[address] = self.bytes.get(address, 0) + n
        us = ((n + 1) * 9 + 2) * 1e6 / self.frequency
        self.bus_us[address] = self.bus_us.get(address, 0.0) + us
        if self.clock is not None:
            self.clock[0] += us

    def _device(self, address):
        fault = self.unplugged.get(address)
        if fault == errno.ENODEV or address not in self.devices:
            self._count(address, 0)  # the address byte went out and got no ACK
            raise OSError(errno.ENODEV, "No such device")
        return self.devices[address]

    def writeto(self, address, buffer, *, start=0, end=None):
        self._check_locked()
        if end is None:
            end = len(buffer)
        payload = bytes(buffer[start:end])
        device = self._device(address)
        fault = self.unplugged.get(address)
        if fault is not None:  # ACKed the address, then the transfer broke
            self._count(address, 1)
            raise OSError(fault, "Input/output error")
        self._count(address, len(payload))
        if self.log is not None:
            end = self.clock[0] if self.clock is not None else self.bus_us[address]
            self.log.append((self.tag, address, payload, end))
        device.receive(payload)

    def readfrom_into(self, address, buffer, *, start=0, end=None):
        """SSD1306 over I2C is write-only; a read returns the status byte (0x00 on, 0x40 off)."""
        self._check_locked()
        device = self._device(address)
        if end is None:
            end = len(buffer)
        for i in range(start, end):
            buffer[i] = 0x00 if device.display_on else 0x40

    def writeto_then_readfrom(
        self, address, buffer_out, buffer_in, *, out_start=0, out_end=None, in_start=0, in_end=None
    ):
        self.writeto(address, buffer_out, start=out_start, end=out_end)
        self.readfrom_into(address, buffer_in, start=in_start, end=in_end)
