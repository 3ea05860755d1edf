"""The simulator's virtual clock, shared by the module shims (supervisor, keypad).

Time is kept in microseconds. The board's 1/1024 s supervisor tick is modelled:
tick k happens at ``phase_us + k * 15625 / 16`` µs and ``supervisor.ticks_ms()``
is ``(k + tick_offset) * 1000 // 1024`` (plus an offset, so tests can start near the
2**29 wrap; ``tick_offset`` chooses which milliseconds hold two ticks).
Scanners (keypad shims) register with the clock and are run, in time order, up
to every moment the clock is moved to. Runs under CPython and MicroPython.

The board, measured (CircuitPython 10.2.1 on rp2040js; docs/device.md): the
keypad scans from the tick interrupt, which re-arms itself 977 µs after it ran,
so scans come every ~990 µs (not every 976.5625 µs tick); a scan stamps its
events with ``supervisor.ticks_ms()`` = ``raw * 1000 // 1024`` (+ the power-on
offset) where ``raw`` is the 1/1024 s tick the scan falls in. A contact change
on a tick boundary is therefore stamped with that tick's ms (this clock's model,
with ``phase_us=0`` and ``ms_offset=BOARD_MS_AT_POWER_ON``), except in the
~1.3 % of ticks that hold no scan, where the board stamps the next tick's ms, and
when a scan straddles the boundary. Where those fall depends on the CPU's work
since boot: no clock model can know it (docs/device.md, Timing).
"""

TICKS_PERIOD = 1 << 29  # supervisor.ticks_ms wraps here
# supervisor.ticks_ms() at power-on on CircuitPython (shared-bindings/supervisor:
# (ms + 0x1fff0000) % 2**29), so the first wrap comes 65.5 s after power-on
BOARD_MS_AT_POWER_ON = 0x1FFF0000
_TICK_NUM = 15625  # one tick is 15625/16 µs = 1/1024 s
_TICK_DEN = 16


class PowerCut(BaseException):
    """The board lost power (``power_cut_us``): everything stops where it was. Not an
    ``Exception``, so the board program's own handlers do not catch it."""


class VirtualClock:
    def __init__(self, phase_us=0, ms_offset=0, tick_offset=0):
        self.now_us = 0
        self.phase_us = phase_us  # where the tick grid sits (0 <= phase < one tick)
        self.ms_offset = ms_offset
        # the board's tick counter at tick 0: which milliseconds hold two ticks (period 128)
        self.tick_offset = tick_offset
        self.scanners = []
        self.auto_step_us = 0  # >0: every ticks_ms() read moves time on (a free-running board)
        self.contacts = []  # (t_us, key, closed) that every new keypad.Keys will see
        self.power_cut_us = -1  # >=0: the power goes at this time (PowerCut)
        self.tone_listeners = []  # pwmio: fn(t_ms, hz, ms) for each tone, as it ends
        self.pwm_outs = {}  # pwmio: GPIO number -> the PWMOut that holds it (pins in use)

    def tick_at_or_before(self, t_us):
        """Index of the last supervisor tick at or before t_us (-1 before the first)."""
        if t_us < self.phase_us:
            return -1
        return ((t_us - self.phase_us) * _TICK_DEN) // _TICK_NUM

    def first_tick_at_or_after(self, t_us):
        """The µs time of the first tick at or after t_us."""
        k = self.tick_at_or_before(t_us)
        if self.tick_time(k) < t_us:
            k += 1
        return self.tick_time(k)

    def tick_time(self, k):
        """The µs time of tick k (rounded up to a whole µs)."""
        return self.phase_us + (k * _TICK_NUM + _TICK_DEN - 1) // _TICK_DEN

    def ticks_ms_of_tick(self, k):
        return ((k + self.tick_offset) * 1000 // 1024 + self.ms_offset) % TICKS_PERIOD

    def spend(self):
        """A free-running board: reading the hardware takes time (auto_step_us)."""
        if self.auto_step_us:
            self.advance_to(self.now_us + self.auto_step_us)

    def ticks_ms(self):
        self.spend()
        return self.ticks_ms_of_tick(self.tick_at_or_before(self.now_us))

    def advance_to(self, t_us):
        """Move time forward to t_us, running every scan due on the way."""
        if t_us < self.now_us:
            raise ValueError("the virtual clock never runs backwards")
        cut = self.power_cut_us
        if 0 <= cut <= t_us:
            for scanner in self.scanners:
                scanner.run_until(cut)
            self.now_us = cut
            raise PowerCut()
        for scanner in self.scanners:
            scanner.run_until(t_us)
        self.now_us = t_us


_installed = [None]


def add_change(changes, key_count, key, t_us, closed):
    """Put a contact change into ``changes`` ([t_us, key, closed], in time order; one at
    the same time as others goes after them): the keypad's and rp2pio's ``set_contact``."""
    if not 0 <= key < key_count:
        raise ValueError("no key %d" % key)
    i = len(changes)
    while i > 0 and changes[i - 1][0] > t_us:
        i -= 1
    changes.insert(i, [t_us, key, closed])


def install(clock):
    """Make ``clock`` the one the shims read (each simulation installs its own)."""
    _installed[0] = clock
    return clock


def current():
    clock = _installed[0]
    if clock is None:
        raise RuntimeError("no virtual clock installed: host_sim sets one up")
    return clock
