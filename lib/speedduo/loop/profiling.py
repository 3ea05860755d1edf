"""Measuring the board program on the board itself (settings.toml ``SPEED_PROFILE = 1``).

Console lines, read by ``python -m host_sim device --report`` (docs/device.md)::

    speedduo-profile boot free=N      gc.mem_free() when code.py starts
    speedduo-profile import free=N    after every module is imported, collected
    speedduo-profile match live_min=N alloc=N presses=N steps=N gcs=N
                           link_polls=N link_alloc=N link_ms_max=N spills=N    (one line)
    speedduo-profile alloc steps=N bytes=N    (the first 8 windows that allocated)

``live_min`` is the lowest ``gc.mem_free()`` right after a collection, one at
every change of the match's phase (deal, play, stall, hand end) and one at
its end; ``alloc`` sums ``gc.mem_alloc()`` growth over windows of 128 steps
(a window in which the collector ran is counted in ``gcs``, its bytes are not).
With ``link`` (link.py's ``Link``, whose ``poll`` is ``feed``), a loop pass in
which ``link.busy()`` (the host sent bytes, or a request went stale) polls and is
measured on its own, and every other pass only feeds the watchdog
(``link.keep_alive()``: bytes that arrive meanwhile wait for the next pass), so
nothing the host sends is read in a pass that is not measured apart:
``link_polls`` of them, ``link_alloc`` bytes (answering may allocate; a key press
may not), not in ``alloc``, and the longest (``link_ms_max``, ms the loop stood
still for it). ``spills``: the passes whose records did not fit classic Speed's log ring
and went out early (matchlog.py; the other games' logs: 0).
The onboard LED pin is high for the whole of each ``App.step()``, so the
emulator (or a logic analyser) times every step to the microsecond.

An interpreter without ``gc.mem_free``/``gc.mem_alloc`` (CPython: the simulator's
``board``) runs the same way and says so once at boot (``profile: ... heap figures -1``);
every heap figure (``free``, ``live_min``, ``alloc``, ``gcs``, ``link_alloc``) is then
``-1``, the counts and times are measured as on the board.
"""

import gc

import digitalio
from supervisor import ticks_ms

from speedduo.vocab.ticks import ticks_diff

_FAR = 1 << 29  # more free memory than any board has; a small int
_SHOWN = 8  # windows that allocated, printed with where they were
_WINDOW = 128  # steps between two readings of gc.mem_alloc()


# CircuitPython/MicroPython only: CPython (the simulator) has neither; there ``int()``, 0,
# stands in for mem_alloc and the figures are printed as -1
_mem_free = getattr(gc, "mem_free", None)
_mem_alloc = getattr(gc, "mem_alloc", int)


def _free() -> int:
    """``gc.mem_free()``, -1 where the interpreter cannot say."""
    return -1 if _mem_free is None else _mem_free()


class Profiler:
    def __init__(self, probe_pin, free_at_boot: int) -> None:
        self.probe = digitalio.DigitalInOut(probe_pin)
        self.probe.switch_to_output(value=False)
        self.shown = 0
        if _mem_free is None:
            print("profile: this Python has no gc.mem_free/gc.mem_alloc: heap figures -1")
        print("speedduo-profile boot free=%d" % free_at_boot)

    def imported(self) -> None:
        gc.collect()
        print("speedduo-profile import free=%d" % _free())

    def run(self, app, feed=None, link=None) -> None:
        """``app.run(feed)``, measured (``link``: the ``Link`` whose ``poll`` is ``feed``).

        ``gc.mem_alloc()`` walks the whole heap's allocation table (about 4 ms on
        the RP2040), so it is read once per window of ``_WINDOW`` steps, outside
        the probe's high time, not around every step: one reading ends a window and
        starts the next (two of them stood the loop still 8 ms every 32 steps, a fifth
        of the play's time, and a press that came then waited: press_to_pixel's tail)."""
        probe = self.probe
        match = app.match
        presses_before = app.presses
        self.alloc = 0
        self.collections = 0
        self.link_polls = 0
        self.link_alloc = 0
        self.link_ms_max = 0
        steps = 0
        live_min = _FAR
        phase = -1
        window = 0
        before = _mem_alloc()
        while not app.over:
            if match.phase != phase:
                self._close(before, steps)
                phase = match.phase
                gc.collect()
                free = _free()
                if free < live_min:
                    live_min = free
                window = 0
                before = _mem_alloc()
            probe.value = True
            app.step()
            probe.value = False
            steps += 1
            window += 1
            if link is not None:
                if link.busy():  # the host's request: measured apart
                    self._close(before, steps)
                    self._answer(feed)
                    window = 0
                    before = _mem_alloc()
                else:
                    link.keep_alive()
            elif feed is not None:
                feed()
            if window == _WINDOW:  # (one reading ends a window and starts the next)
                before = self._close(before, steps)
                window = 0
        self._close(before, steps)
        app.log.drain_into(app.send_line)
        gc.collect()
        free = _free()
        if free < live_min:
            live_min = free
        if _mem_free is None:  # (nothing was read: not "no allocation")
            self.alloc = self.collections = self.link_alloc = -1
        print(
            "speedduo-profile match live_min=%d alloc=%d presses=%d steps=%d gcs=%d"
            " link_polls=%d link_alloc=%d link_ms_max=%d spills=%d"
            % (
                live_min,
                self.alloc,
                app.presses - presses_before,
                steps,
                self.collections,
                self.link_polls,
                self.link_alloc,
                self.link_ms_max,
                getattr(app.log, "spills", 0),  # classic Speed's ring (matchlog._spill)
            )
        )

    def _answer(self, feed) -> None:
        """One ``feed`` that answers the host, and what it allocated."""
        before = _mem_alloc()
        start = ticks_ms()
        feed()
        took = ticks_diff(ticks_ms(), start)
        after = _mem_alloc()
        self.link_polls += 1
        if took > self.link_ms_max:
            self.link_ms_max = took
        if after >= before:
            self.link_alloc += after - before
        else:
            self.collections += 1

    def _close(self, before, steps) -> int:
        """The end of a window of steps: what it allocated (a collection in it: unknown).
        Returns the reading (``gc.mem_alloc()``)."""
        after = _mem_alloc()
        if after < before:
            self.collections += 1
            return after
        self.alloc += after - before
        if after > before and self.shown < _SHOWN:  # say where, the first few times
            self.shown += 1
            print("speedduo-profile alloc steps=%d bytes=%d" % (steps, after - before))
        return after
