"""One SSD1306 128x64 panel on its own busio.I2C: framebuffer, sprites, dirty windows, faults.

The framebuffer is the controller's GDDRAM layout (8 pages of 128 column
bytes, bit 0 = top row of the page), kept as 8 rows of 129 bytes: byte 0 of a
row is room for the I2C control byte, so any column window of a page goes out
as one ``writeto(address, buf, start=, end=)`` with 0x40 put in the byte just
before the window (and put back after): no slicing, no copies, no allocation.

Every change is recorded per page as a dirty column range, in one of two
classes: ``SHARED`` (what both players must see at the same moment: the pile
tops) and ``PRIVATE``. ``plan(cls)`` turns a class's dirty ranges into address
windows (merging neighbouring pages when that costs fewer bytes than another
window command) and ``send_next()`` sends them one I2C transfer at a time, so
the two-panel coordinator (``screens.py``) can interleave both panels.

Set-up follows the SSD1306 datasheet's software initialisation flow (display
off, clock, multiplex, offset, start line, charge pump, horizontal addressing,
segment remap, COM scan direction, COM pins, contrast, pre-charge, VCOMH,
resume from RAM, normal display, scroll off, display on). A panel fitted the
other way round (``rotation=180``) is turned by the controller itself
(``0xA0`` + ``0xC0`` instead of ``0xA1`` + ``0xC8``), so drawing code never
flips anything.

Faults: an ``OSError`` from the bus (NACK: unplugged panel, loose wire) marks
the panel offline; drawing continues into the framebuffer, nothing is sent,
and ``recover(now_ms)`` (called by the app every loop; it tries at most every
``retry_ms``) re-initialises the panel when it answers again and resends the
whole frame.
"""

from micropython import const  # on the host, Blinka provides this module

WIDTH = const(128)
HEIGHT = const(64)
PAGES = const(8)
ROW = const(129)  # a page row: the control byte's room + 128 columns
ADDRESS = const(0x3C)
I2C_FREQUENCY = const(400000)  # the default; RP2040 and the SSD1306 also run at 1 MHz
I2C_FAST_FREQUENCY = const(1000000)

SHARED = const(0)  # regions both players share: served first, on both panels
PRIVATE = const(1)

_CLEAN = const(255)
_WINDOW_COST = const(10)  # bytes a window adds: 7 command bytes + 2 address bytes + 1 control

# Software initialisation flow (SSD1306 datasheet, application note fig. 2),
# in two parts around the orientation/contrast commands the panel patches in.
_INIT_A = (
    b"\x00"  # control byte: a stream of commands
    b"\xae"  # display off
    b"\xd5\x80"  # clock divide ratio 1, oscillator frequency 8 (reset value)
    b"\xa8\x3f"  # multiplex ratio 64
    b"\xd3\x00"  # display offset 0
    b"\x40"  # display start line 0
    b"\x8d\x14"  # charge pump on (internal VCC)
    b"\x20\x00"  # horizontal addressing mode
)
# then: 0xA1 / 0xA0 segment remap (column 127 -> SEG0 upright; 0xA0 turned),
#       0xC8 / 0xC0 COM scan direction (COM63 -> COM0 upright; 0xC0 turned), 0x81 contrast
_INIT_B = (
    b"\x00"
    b"\xda\x12"  # alternative COM pin configuration (128x64 glass)
    b"\xd9\xf1"  # pre-charge: phase 1 = 1, phase 2 = 15 DCLKs
    b"\xdb\x40"  # VCOMH deselect level
    b"\xa4"  # display follows RAM
    b"\xa6"  # normal (not inverted)
    b"\x2e"  # scroll off
    b"\xaf"  # display on
)

# Each class and page keeps up to two dirty column spans (A and B), so a pile
# and the centre message changing on the same page are not sent as one wide run.
_SPANS = const(16)  # one per class (2) and page (8)
_MAX_WINDOWS = const(16)  # 8 pages x 2 spans
_DUE = const(255)
_BUSY = OSError(16)  # EBUSY, preallocated: the bus stayed locked
SET_DISPLAY_OFF = const(0xAE)  # the panel dark (sleep mode; GDDRAM and settings kept)
SET_DISPLAY_ON = const(0xAF)
_BLANK = bytes(WIDTH)  # a page row of nothing (clear() copies it)
# fill()'s byte, one for every panel (nothing fills two at once): a module's, not each
# panel's, keeps a Panel at 29 attributes, whose dict is a size smaller than 30's
_FILL = bytearray(1)


class Panel:
    """Framebuffer, drawing primitives and the bus side of one SSD1306 panel."""

    def __init__(
        self, i2c, address=ADDRESS, rotation=0, contrast=0xCF, retry_ms=1000, on_fault=None
    ):
        if rotation not in (0, 180):
            raise ValueError("rotation must be 0 or 180")
        self.i2c = i2c
        self.address = address
        self.retry_ms = retry_ms
        self.on_fault = on_fault  # called as on_fault(panel, errno) when the panel drops out
        self.buf = bytearray(PAGES * ROW)
        self._view = memoryview(self.buf)  # for put(): copies without a Python loop
        # dirty column spans, per class and page (k = cls * PAGES + page): A and B
        self._lo = bytearray(b"\xff" * _SPANS)  # first dirty column of span A (_CLEAN: none)
        self._hi = bytearray(_SPANS)  # last dirty column of span A
        self._lo2 = bytearray(b"\xff" * _SPANS)  # span B
        self._hi2 = bytearray(_SPANS)
        self._dirty = bytearray(2)  # per class, bit page: that page has a dirty span
        # the windows planned for sending: pages page0..page1, columns col0..col1
        self._w_page0 = bytearray(_MAX_WINDOWS)
        self._w_page1 = bytearray(_MAX_WINDOWS)
        self._w_col0 = bytearray(_MAX_WINDOWS)
        self._w_col1 = bytearray(_MAX_WINDOWS)
        self._windows = 0  # planned
        self._window = 0  # the one being sent
        self._window_page = _DUE  # its next page; _DUE: its address command first
        # the address command: 0x00 0x21 col0 col1 0x22 page0 page1 (set-up reuses it)
        self._cmd = bytearray(b"\x00\x21\x00\x7f\x22\x00\x07")
        self._turned = rotation == 180
        self.contrast = contrast & 0xFF
        self.online = False
        self.faults = 0  # times the panel dropped out (modulo 256)
        self.last_errno = 0
        self.recoveries = 0
        self._quiet = False  # while retrying: a failed retry is not reported again
        self._retry_at = 0
        self.bytes_sent = 0  # I2C payload bytes (after the address byte) that went out
        self.transfers = 0

    # ---- set-up and faults ----

    def init(self):
        """Send the set-up sequence; on success mark the whole frame for sending. Returns online."""
        self.online = True
        self._write(_INIT_A, 0, len(_INIT_A))
        cmd = self._cmd
        turned = self._turned
        cmd[1] = 0xA0 if turned else 0xA1
        cmd[2] = 0xC0 if turned else 0xC8
        cmd[3] = 0x81
        cmd[4] = self.contrast
        self._write(cmd, 0, 5)
        cmd[1] = 0x21  # the address command again
        cmd[4] = 0x22
        self._write(_INIT_B, 0, len(_INIT_B))
        if self.online:
            self.mark(PRIVATE, 0, PAGES - 1, 0, WIDTH - 1)
        return self.online

    def recover(self, now_ms):
        """Try to bring an offline panel back (at most every ``retry_ms``). Returns online."""
        if self.online:
            return True
        wait = self._retry_at - now_ms
        if 0 < wait <= self.retry_ms:  # (a wait longer than that: the caller's clock restarted)
            return False
        self._retry_at = now_ms + self.retry_ms
        self._quiet = True
        if self.init():
            self.recoveries = (self.recoveries + 1) & 0xFF
        self._quiet = False
        return self.online

    def _fault(self, error):
        if not self._quiet:
            self.faults = (self.faults + 1) & 0xFF
        self.online = False
        self.last_errno = (error.args[0] if error.args else 0) & 0xFF  # 19 NACK, 5 I/O, 16 busy
        self._windows = 0
        if self.on_fault is not None and not self._quiet:
            self.on_fault(self, self.last_errno)

    def _write(self, buf, start, end):
        if not self.online:
            return
        i2c = self.i2c
        tries = 1000
        while not i2c.try_lock():
            tries -= 1
            if not tries:  # someone holds our bus: resend everything once it is free
                self._fault(_BUSY)
                return
        try:
            i2c.writeto(self.address, buf, start=start, end=end)
            self.bytes_sent += end - start
            self.transfers += 1
        except OSError as error:
            self._fault(error)
        finally:
            i2c.unlock()

    def display(self, on):
        """Light the panel (0xAF) or turn it dark (0xAE: the glass off, the controller
        asleep, its RAM kept); both are one command, sent at once. Returns online."""
        cmd = self._cmd
        keep = cmd[1]
        cmd[1] = SET_DISPLAY_ON if on else SET_DISPLAY_OFF  # after the control byte 0x00
        self._write(cmd, 0, 2)
        cmd[1] = keep
        return self.online

    # ---- dirty windows ----

    def mark(self, cls, page0, page1, col0, col1):
        """Record pages page0..page1, columns col0..col1 (inclusive) as changed."""
        lo_a = self._lo
        hi_a = self._hi
        lo_b = self._lo2
        hi_b = self._hi2
        k = cls * PAGES + page0
        end = cls * PAGES + page1
        self._dirty[cls] |= (2 << page1) - (1 << page0)  # (plan() visits only those pages)
        while k <= end:
            lo = lo_a[k]
            if lo == _CLEAN:
                lo_a[k] = col0
                hi_a[k] = col1
            elif col0 <= hi_a[k] + _WINDOW_COST and col1 + _WINDOW_COST >= lo:
                if col0 < lo:
                    lo_a[k] = col0
                if col1 > hi_a[k]:
                    hi_a[k] = col1
                if lo_b[k] != _CLEAN:
                    self._fold(k)
            elif lo_b[k] == _CLEAN:
                lo_b[k] = col0
                hi_b[k] = col1
            else:
                if col0 < lo_b[k]:
                    lo_b[k] = col0
                if col1 > hi_b[k]:
                    hi_b[k] = col1
                self._fold(k)
            k += 1

    def _fold(self, k):
        """Spans A and B of one page grew close: make them one (A)."""
        lo2 = self._lo2[k]
        if lo2 == _CLEAN:
            return
        hi2 = self._hi2[k]
        lo_a = self._lo
        hi_a = self._hi
        if lo2 <= hi_a[k] + _WINDOW_COST and hi2 + _WINDOW_COST >= lo_a[k]:
            if lo2 < lo_a[k]:
                lo_a[k] = lo2
            if hi2 > hi_a[k]:
                hi_a[k] = hi2
            self._lo2[k] = _CLEAN
            self._hi2[k] = 0

    def plan(self, cls):
        """Turn class ``cls``'s dirty spans into windows for send_next(); returns their count.

        A span joins a window that ends on the page above when the merged
        rectangle costs fewer bytes than a window of its own.
        """
        self._window = 0
        self._window_page = _DUE
        dirty = self._dirty[cls]
        if not dirty:  # nothing drawn in this class since its last plan
            self._windows = 0
            return 0
        self._dirty[cls] = 0
        page0 = self._w_page0
        page1 = self._w_page1
        col0 = self._w_col0
        col1 = self._w_col1
        lo_a = self._lo
        hi_a = self._hi
        lo_b = self._lo2
        hi_b = self._hi2
        n = 0
        k = cls * PAGES - 1
        for page in range(PAGES):
            k += 1
            if not dirty >> page & 1:
                continue
            here = n
            above = page - 1
            for span in range(2):
                if span:
                    lo = lo_b
                    hi = hi_b
                else:
                    lo = lo_a
                    hi = hi_a
                c0 = lo[k]
                if c0 == _CLEAN:
                    continue
                c1 = hi[k]
                lo[k] = _CLEAN
                hi[k] = 0
                i = 0
                while i < here:
                    if page1[i] == above:
                        a0 = col0[i]
                        a1 = col1[i]
                        if a0 == c0 and a1 == c1:  # the same columns: joined is always cheaper
                            page1[i] = page
                            break
                        u0 = a0 if a0 < c0 else c0
                        u1 = a1 if a1 > c1 else c1
                        if u1 - u0 <= (a1 - a0) + (c1 - c0) + 1 + _WINDOW_COST:
                            pages = page - page0[i]
                            merged = (pages + 1) * (u1 - u0 + 1)
                            apart = pages * (a1 - a0 + 1) + (c1 - c0 + 1) + _WINDOW_COST
                            if merged <= apart:
                                page1[i] = page
                                col0[i] = u0
                                col1[i] = u1
                                break
                    i += 1
                if i < here:  # joined
                    continue
                page0[n] = page
                page1[n] = page
                col0[n] = c0
                col1[n] = c1
                n += 1
        if not self.online:
            n = 0
        self._windows = n
        return n

    def same_changes(self, other):
        """True when ``other`` (a panel of the same layout) has exactly this panel's dirty
        spans (compared in C): its plan then serves for both (``plan_as``)."""
        return (
            self._dirty == other._dirty
            and self._lo == other._lo
            and self._hi == other._hi
            and self._lo2 == other._lo2
            and self._hi2 == other._hi2
        )

    def plan_as(self, other, cls):
        """``plan(cls)`` for a panel whose dirty spans were ``other``'s before ``other``
        planned them (``same_changes``): its windows and its cleared spans, copied in C
        instead of worked out again in Python. Returns the windows' count."""
        self._dirty[:] = other._dirty
        self._lo[:] = other._lo
        self._hi[:] = other._hi
        self._lo2[:] = other._lo2
        self._hi2[:] = other._hi2
        self._w_page0[:] = other._w_page0
        self._w_page1[:] = other._w_page1
        self._w_col0[:] = other._w_col0
        self._w_col1[:] = other._w_col1
        self._window = 0
        self._window_page = _DUE
        self._windows = other._windows if self.online else 0
        return self._windows

    def send_next(self):
        """Send the next transfer of the planned windows; False when there is none left."""
        i = self._window
        if i >= self._windows or not self.online:
            return False
        page = self._window_page
        if page == _DUE:  # the window's address command
            cmd = self._cmd
            cmd[2] = self._w_col0[i]
            cmd[3] = self._w_col1[i]
            cmd[5] = self._w_page0[i]
            cmd[6] = self._w_page1[i]
            self._window_page = self._w_page0[i]
            self._write(cmd, 0, 7)
            return self.online
        col0 = self._w_col0[i]
        start = page * ROW + col0  # the byte before the window's first column
        buf = self.buf
        keep = buf[start]
        buf[start] = 0x40  # control byte: a stream of data
        self._write(buf, start, start + self._w_col1[i] - col0 + 2)
        buf[start] = keep
        if page >= self._w_page1[i]:
            self._window = i + 1
            self._window_page = _DUE
        else:
            self._window_page = page + 1
        return self.online

    def flush(self, cls=-1):
        """Send everything dirty of class ``cls`` (-1: shared, then private) right away."""
        if cls < 0:
            self.flush(SHARED)
            cls = PRIVATE
        self.plan(cls)
        while self.send_next():
            pass

    # ---- drawing (byte copies of page-aligned sprites; no per-pixel work) ----
    # Every primitive compares as it copies and marks only the columns whose
    # bytes really changed, so redrawing a similar sprite sends less.

    def blit(self, src, start, stride, width, pages, x, page, cls, invert=False):
        """Copy a sprite (``pages`` rows of ``stride`` bytes, ``width`` used) to column x, page."""
        self._copy(src, start, stride, 1, width, pages, x, page, cls, 0xFF if invert else 0)

    def _copy(self, src, start, stride, step, width, pages, x, page, cls, flip):
        """The one drawing loop: row k's bytes from ``src[start + k * stride]`` on, ``step``
        apart (0: one byte repeated), XOR ``flip``; marks the columns that changed."""
        buf = self.buf
        for k in range(pages):
            d = (page + k) * ROW + 1 + x
            s = start + k * stride
            first = -1
            last = 0
            for col in range(x, x + width):
                v = src[s] ^ flip
                if buf[d] != v:
                    buf[d] = v
                    if first < 0:
                        first = col
                    last = col
                d += 1
                s += step
            if first >= 0:
                self.mark(cls, page + k, page + k, first, last)

    def put(self, rows, first, pages, x, page, cls):
        """Copy ``pages`` page rows of a sprite (``rows[first]`` on: memoryviews of its page
        rows made once, as california_view's) to column x from ``page`` down: a copy in C
        a page, one mark of the whole width (no per-byte compare)."""
        view = self._view
        n = len(rows[first])
        d = page * ROW + 1 + x
        for k in range(first, first + pages):
            view[d : d + n] = rows[k]
            d += ROW
        self.mark(cls, page, page + pages - 1, x, x + n - 1)

    def places(self, x, page, width, pages):
        """Memoryviews of this framebuffer's page rows at column x from ``page`` down,
        ``width`` columns each: where ``put_from`` copies sprite rows (made once, with the
        view that draws there, never during play)."""
        view = self._view
        rows = []
        for k in range(pages):
            d = (page + k) * ROW + 1 + x
            rows.append(view[d : d + width])
        return rows

    def put_from(self, sprites, start, places, first, pages, x, page, cls, invert=False):
        """Copy ``pages`` page rows of a sprite from the stream ``sprites`` (an
        ``io.BytesIO`` of sprite rows, this one's first at byte ``start``) into
        ``places[first]`` on (``places``: at column x from ``page`` down). Each page a
        ``readinto`` in C: no view per sprite row on the heap, and no allocation; one mark
        of the whole width (no per-byte compare). ``invert``: every pixel then flipped
        (a loop over the bytes: an inverted copy of the sprites would hold as much heap)."""
        sprites.seek(start)
        for k in range(first, first + pages):
            sprites.readinto(places[k])
        n = len(places[first])
        if invert:
            buf = self.buf
            for k in range(page, page + pages):
                d = k * ROW + 1 + x
                for i in range(d, d + n):
                    buf[i] ^= 0xFF
        self.mark(cls, page, page + pages - 1, x, x + n - 1)

    def fill(self, x, page, width, pages, value, cls):
        """Set ``width`` columns of ``pages`` pages to the byte ``value`` (0: clear). A row
        that holds ``value`` already is passed over in one C call (``bytearray.count``)."""
        one = _FILL
        one[0] = value
        buf = self.buf
        for k in range(pages):
            d = (page + k) * ROW + 1 + x
            if buf.count(one, d, d + width) != width:
                self._copy(one, 0, 0, 0, width, 1, x, page + k, cls, 0)

    def clear(self, cls=PRIVATE):
        """Blank the whole frame: a page row that holds anything is overwritten in C (a
        full-screen change, the match's result or a menu, costs no Python loop per byte)."""
        buf = self.buf
        view = self._view
        for page in range(PAGES):
            d = page * ROW + 1
            if buf.count(b"\x00", d, d + WIDTH) != WIDTH:
                view[d : d + WIDTH] = _BLANK
                self.mark(cls, page, page, 0, WIDTH - 1)

    def char(self, font, index, code, x, page, cls, invert=False):
        """One 5x8 character (``code`` a byte value) plus a blank column; returns the next x."""
        glyph = index[code] if code < len(index) else 255
        if glyph == 255:
            glyph = index[63]  # '?'
        self.blit(font, glyph * 5, 5, 5, 1, x, page, cls, invert)
        self.fill(x + 5, page, 1, 1, 0xFF if invert else 0, cls)
        return x + 6

    def text(self, font, index, s, x, page, cls, invert=False):
        """A bytes (allocation-free) or str line at x, page; returns the x after it."""
        n = len(s)
        i = 0
        if isinstance(s, str):
            while i < n and x <= WIDTH - 6:
                x = self.char(font, index, ord(s[i]), x, page, cls, invert)
                i += 1
            return x
        while i < n and x <= WIDTH - 6:
            x = self.char(font, index, s[i], x, page, cls, invert)
            i += 1
        return x

    def number(self, font, index, value, x, page, width, cls, invert=False):
        """``value`` right-aligned in ``width`` characters at x, page (blanks on the left)."""
        pos = x + (width - 1) * 6
        first = True
        while pos >= x:
            if value or first:
                self.char(font, index, 48 + value % 10, pos, page, cls, invert)
                value //= 10
                first = False
            else:
                self.char(font, index, 32, pos, page, cls, invert)
            pos -= 6
        return x + width * 6
