"""Shim of CircuitPython's ``rp2pio`` for one program: the button edge stamper's.

``StateMachine`` here runs ``speedduo.loop.edges.PROGRAM`` (any other program is
refused) on the virtual clock: its loop k runs at ``start + k`` µs (``start``: when the
state machine was made), samples the buttons (the clock's scripted contacts, as the
``digitalio`` shim reads them) and, when they differ from the last snapshot pushed and
the 8-word RX FIFO has room for two words, pushes (snapshot, the low 30 bits of X), X
being -(k + 1): the words the board's state machine pushes (docs/device.md, "Button
edges stamped to the microsecond by the PIO"). Without room the change waits for the
first loop after a read, as on the chip. Runs under CPython and MicroPython.
"""

from vclock import current

_MASK = 0x3FFFFFFF
_WORDS = 8  # the joined RX FIFO


class StateMachine:
    def __init__(self, program, frequency=0, *, first_in_pin=None, in_pin_count=1, **kwargs):
        from speedduo.loop import edges

        if list(program) != list(edges.PROGRAM):
            raise ValueError("this rp2pio stand-in runs only speedduo.loop.edges' program")
        if kwargs.get("fifo_type") != "rx" or kwargs.get("mov_status_n") != edges.STATUS_N:
            raise ValueError("the edge program needs fifo_type='rx' and mov_status_n=7")
        if getattr(first_in_pin, "name", None) != "GP6" or in_pin_count != 1:
            raise ValueError("the edge program reads GP6 up with in_pin_count=1")
        self.frequency = frequency
        self._clock = current()
        self._start = self._clock.now_us
        self._next = 0  # the first loop not run yet
        self._last = 0  # Y: the last snapshot pushed (init: mov y, null)
        self._fifo = []

    def _buttons_at(self, t_us):
        """The 14-bit snapshot at ``t_us``: bit k is key k, 1 = released."""
        snapshot = 0x3FFF
        latest = [-1] * 14
        for when, key, closed in self._clock.contacts:
            if 0 <= key < 14 and latest[key] <= when <= t_us:
                latest[key] = when
                if closed:
                    snapshot &= ~(1 << key)
                else:
                    snapshot |= 1 << key
        return snapshot

    def _next_change(self, t_us):
        """The first contact change after ``t_us``, or None."""
        found = None
        for when, key, _ in self._clock.contacts:
            if 0 <= key < 14 and when > t_us and (found is None or when < found):
                found = when
        return found

    def _run(self):
        """Run the loops due by now."""
        last_loop = int(self._clock.now_us - self._start)
        while self._next <= last_loop:
            k = self._next
            snapshot = self._buttons_at(self._start + k)
            if snapshot != self._last:
                if len(self._fifo) > _WORDS - 2:
                    self._next = last_loop + 1  # full: seen again after a read
                    return
                self._fifo.append(snapshot)
                self._fifo.append(-(k + 1) & _MASK)
                self._last = snapshot
                self._next = k + 1
                continue
            change = self._next_change(self._start + k)
            if change is None:
                self._next = last_loop + 1
                return
            self._next = max(k + 1, int(-(-(change - self._start) // 1)))

    @property
    def in_waiting(self):
        self._run()
        return len(self._fifo)

    def readinto(self, buffer, *, start=0, end=None):
        self._run()
        end = len(buffer) if end is None else end
        if end - start > len(self._fifo):
            raise RuntimeError("readinto would wait for words the program has not pushed")
        for i in range(start, end):
            buffer[i] = self._fifo.pop(0)

    def deinit(self):
        self._fifo = []
