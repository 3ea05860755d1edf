"""Shim of CircuitPython's ``microcontroller``: Pin, the CPU's reset reason, the watchdog, nvm.

The watchdog is as strict as the board's in RESET mode: if the board program
goes longer than ``timeout`` seconds of virtual time between two ``feed()``
calls, the board would have reset, so the next ``feed()`` raises
``RuntimeError`` instead of passing silently.

``nvm`` is as strict as the RP2040's (CircuitPython 10, ``shared-bindings/nvm``
and ``ports/raspberrypi/common-hal/nvm``): 4096 bytes; an index reads or writes
one byte (0-255, ``IndexError`` out of range); a slice (step 1 only, else
``NotImplementedError``) reads a ``bytearray`` and takes only bytes, bytearray,
memoryview or a byte array of exactly its length (``ValueError`` otherwise);
no deletion. A write whose bytes are all 0xFF programs their 256-byte flash
pages only; any other write erases the whole 4 KB sector and programs it all
again. Flash writes stop the board: the virtual clock moves on by the typical
times of the Pico's W25Q16JV (sector erase 45 ms, page program 0.4 ms).
A power cut (the clock's ``power_cut_us``, or ``cut_after`` steps for tests: the
erase is one step, each byte programmed one step) leaves the flash as far as the
write got, the step in progress torn (bits half-way), and raises ``PowerCut``.
"""

from vclock import PowerCut, _installed, current


class Pin:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "board." + self.name


class ResetReason:
    POWER_ON = "POWER_ON"
    BROWNOUT = "BROWNOUT"
    SOFTWARE = "SOFTWARE"
    DEEP_SLEEP_ALARM = "DEEP_SLEEP_ALARM"
    RESET_PIN = "RESET_PIN"
    WATCHDOG = "WATCHDOG"
    UNKNOWN = "UNKNOWN"
    RESCUE_DEBUG = "RESCUE_DEBUG"


class _Processor:
    reset_reason = ResetReason.POWER_ON


class _WatchDogTimer:
    def __init__(self):
        self.timeout = 0.0
        self.mode = None
        self.fed_us = -1
        self.longest_us = 0  # the longest gap between two feeds (for tests)

    def feed(self):
        if self.mode is None:
            raise ValueError("WatchDogTimer mode must be set before feed()")
        now = current().now_us
        if self.fed_us >= 0:
            gap = now - self.fed_us
            self.longest_us = max(self.longest_us, gap)
            if gap > self.timeout * 1000000:
                raise RuntimeError(
                    "watchdog: %.1f s without a feed; the board would have reset" % (gap / 1e6)
                )
        self.fed_us = now

    def deinit(self):
        self.mode = None


cpu = _Processor()
watchdog = _WatchDogTimer()


NVM_SIZE = 4096
_PAGE = 256
ERASE_US = 45000  # W25Q16JV sector erase, typical (400 ms at most)
PAGE_US = 400  # W25Q16JV page program, typical (3 ms at most)


def _bounds(index, length):
    """(start, stop) of a step-1 slice over ``length`` bytes, as MicroPython clamps them."""
    if index.step is not None and index.step != 1:
        raise NotImplementedError("only slices with step=1 (aka None) are supported")
    out = []
    for value, default in ((index.start, 0), (index.stop, length)):
        if value is None:
            value = default
        elif value < 0:
            value = max(0, value + length)
        out.append(min(value, length))
    start, stop = out
    return start, max(start, stop)


class ByteArray:
    """``microcontroller.nvm``: one flash sector (see the module docstring)."""

    def __init__(self, size=NVM_SIZE):
        self._flash = bytearray(size)  # erased: every byte 0xFF (filled without a 4 KB temporary)
        for i in range(size):
            self._flash[i] = 0xFF
        self.writes = 0  # slice or index assignments
        self.erases = 0
        self.pages = 0  # pages programmed
        self.busy_us = 0  # virtual time spent writing
        self.spans = []  # (start, end) µs of each write on the virtual clock (cut: to the cut)
        self.cut_after = -1  # >=0: the power goes after this many steps (tests)
        self.tear = True  # the step in progress at a cut is left half-done

    def __len__(self):
        return len(self._flash)

    def __bool__(self):
        return len(self._flash) != 0

    def __getitem__(self, index):
        if isinstance(index, slice):
            start, stop = _bounds(index, len(self._flash))
            return bytearray(self._flash[start:stop])
        return self._flash[self._index(index)]

    def __setitem__(self, index, value):
        if isinstance(index, slice):
            start, stop = _bounds(index, len(self._flash))
            if not isinstance(value, (bytes, bytearray, memoryview)) and not _is_array(value):
                raise NotImplementedError("array/bytes required on right side")
            if len(value) != stop - start:
                raise ValueError("Slice and value different lengths.")
            if _is_array(value) and len(bytes(value)) != len(value):
                raise ValueError("Array values should be single bytes.")
            self._write(start, value)
            return
        at = self._index(index)
        if not isinstance(value, int):
            raise TypeError("can't convert %s to int" % type(value).__name__)
        if not 0 <= value <= 255:
            raise ValueError("bytes must be 0-255")
        self._write(at, bytes((value,)))

    def __delitem__(self, index):
        raise TypeError("'ByteArray' object doesn't support item deletion")

    def _index(self, index):
        if not isinstance(index, int):
            raise TypeError("ByteArray indices must be integers, not %s" % type(index).__name__)
        n = len(self._flash)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("ByteArray index out of range")
        return index

    # ---- the flash ----

    def image(self):
        """The sector's bytes (to save a board's nvm)."""
        return bytes(self._flash)

    def write_to(self, f):
        """The sector's bytes into a file, without a copy (the VM's heap is the board's)."""
        f.write(self._flash)

    def load(self, data):
        """Power-on contents (a saved image)."""
        if len(data) != len(self._flash):
            raise ValueError("an nvm image is %d bytes, not %d" % (len(self._flash), len(data)))
        self._flash[:] = data

    def read_from(self, f):
        """Power-on contents from a file, without a copy (the VM's heap is the board's)."""
        if f.readinto(self._flash) != len(self._flash):
            raise ValueError("an nvm image is %d bytes" % len(self._flash))

    def _write(self, start, data):
        """Write ``data`` (any buffer of bytes) at ``start`` as the firmware does. Allocates
        no more than the board would (the MicroPython VM's heap is the board program's)."""
        flash = self._flash
        n = len(data)
        if n == 0:
            return
        self.writes += 1
        erase = False
        for i in range(start, start + n):
            if flash[i] != 0xFF:
                erase = True
                break
        if not erase:  # erased bytes: program the touched pages only
            values = data
            first = start
        elif n == len(flash):  # the whole sector, erased and programmed again
            values = data
            first = 0
        else:  # the rest of the sector is programmed again from a copy (the firmware's RAM)
            values = bytearray(flash)
            values[start : start + n] = data
            first = 0
        pages = []  # (first byte, bytes, start µs) of each page programmed
        t = ERASE_US if erase else 0
        at = first
        end = first + len(values)
        while at < end:
            page_end = min((at // _PAGE + 1) * _PAGE, end)
            pages.append((at, page_end - at, t))
            t += PAGE_US
            at = page_end
        steps = (1 if erase else 0) + len(values)  # the erase, then each byte in order
        done = steps
        if 0 <= self.cut_after < steps:
            done = self.cut_after
        clock = _installed[0]
        t0 = clock.now_us if clock is not None else 0
        cut = clock.power_cut_us - t0 if clock is not None and clock.power_cut_us >= 0 else -1
        if 0 <= cut < t:
            done = min(done, self._steps_by(cut, erase, pages))
        k = done
        if erase and k:
            for i in range(len(flash)):
                flash[i] = 0xFF
            self.erases += 1
            k -= 1
        if k:  # the bytes were erased: programming copies them
            flash[first : first + k] = memoryview(values)[:k]
        self.pages += len(pages)
        if done < steps:
            if self.tear:
                if erase and done == 0:
                    self._tear(-1, 0, t0 + cut)
                else:
                    self._tear(first + k, values[k], 0)
            if cut >= 0:
                self.spans.append((t0, t0 + cut))
                clock.advance_to(clock.power_cut_us)  # raises PowerCut
            raise PowerCut()
        self.busy_us += t
        self.spans.append((t0, t0 + t))
        if clock is not None:
            clock.advance_to(t0 + t)

    @staticmethod
    def _steps_by(us, erase, pages):
        """How many steps of a write are done ``us`` after it began."""
        done = 0
        if erase:
            if us < ERASE_US:
                return 0
            done = 1
        for _, count, start in pages:
            if us >= start + PAGE_US:
                done += count
            else:
                return done + max(0, (us - start) * count // PAGE_US)
        return done

    def _tear(self, address, value, salt):
        """A step cut half-way: an erase leaves some bits 0, a program some bits 1."""
        flash = self._flash
        if address < 0:
            for i in range(len(flash)):
                flash[i] |= (i * 37 + salt * 11) & 0xFF
        else:
            flash[address] &= value | 0x55


def _is_array(value):
    return type(value).__name__ == "array"


nvm = ByteArray()
