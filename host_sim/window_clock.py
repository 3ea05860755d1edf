"""A virtual clock that follows the wall clock, and calls the window between the board's reads.

The board program (``speedduo.loop.board_io.main``) is a busy loop that reads
``supervisor.ticks_ms()`` and the keypad queue on every pass; on the simulator
each read calls ``VirtualClock.spend()``. ``WallClock.spend()`` first lets the
window have its turn (``on_read``: pump keyboard events, draw a frame when one is
due), then moves virtual time on to the wall time since start. So the window
and the board share one thread and never race: there are no locks, and the
board sees time and keys only between its own statements, as on the board.

The clock never jumps: when the wall clock moved more than ``max_gap_us`` since
the last read (the process was stopped, the machine slept, a window manager
held the event loop), the excess is dropped, as if time had paused, so the
watchdog (8 s) and the game's countdowns see a short pass instead. When the
virtual clock has caught up and there is nothing to do, the read sleeps a
little (``idle_s``) so the busy loop does not burn a core.
"""

import time

import vclock

MAX_GAP_US = 100000  # a pause longer than this between two reads is cut to it
IDLE_S = 0.0005


def wall_us():
    return time.monotonic_ns() // 1000


class WallClock(vclock.VirtualClock):
    def __init__(self, now=wall_us, on_read=None, max_gap_us=MAX_GAP_US, idle_s=IDLE_S):
        vclock.VirtualClock.__init__(self, 0, vclock.BOARD_MS_AT_POWER_ON)
        self.wall = now  # µs, monotonic
        self.on_read = on_read
        self.max_gap_us = max_gap_us
        self.idle_s = idle_s
        self.origin = now()  # wall µs at virtual 0
        self._last_wall = self.origin
        self.paused_us = 0  # wall time dropped by max_gap_us (for the report)

    def virtual_now(self):
        """The virtual µs the wall clock says it is now (after dropping long pauses)."""
        wall = self.wall()
        gap = wall - self._last_wall
        if gap > self.max_gap_us:
            self.origin += gap - self.max_gap_us
            self.paused_us += gap - self.max_gap_us
        self._last_wall = wall
        return max(self.now_us, wall - self.origin)

    def spend(self):
        target = self.virtual_now()
        if self.on_read is not None:
            self.on_read(target)
        if target > self.now_us:
            self.advance_to(target)
        elif self.idle_s:
            time.sleep(self.idle_s)
