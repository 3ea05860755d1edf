"""Shim of CircuitPython's ``rp2pio`` for one program: the button edge stamper's
(``speedduo.loop.edge_program.PROGRAM``; any other program is refused: the simulator runs no PIO
code).

``StateMachine`` does what that program does, in time rather than in instructions, on
the virtual clock: its loop k runs at ``start + k`` µs (``start``: when the state
machine was made) and samples the buttons (the clock's scripted contacts, as the
``keypad`` and ``digitalio`` shims read them, and the window's live ones through
``set_contact``). When they differ from the last snapshot pushed and the 8-word RX FIFO
has room for the pair (fewer than ``mov_status_n`` words), it pushes (snapshot, the low
30 bits of X), X being -(k + 1); without room the change waits for the first loop after
the board has read the FIFO (late, never lost): the words the board's state machine
pushes (docs/device.md, "Button edges stamped to the microsecond by the PIO"). A change
at µs T is seen by loop ceil(T - start); one that comes and goes between two loops is
never seen. Runs under CPython and MicroPython.
"""

from vclock import add_change, current

_MASK = 0x3FFFFFFF
_WORDS = 8  # the joined RX FIFO
_KEYS = 14
_SETTLE_US = 7000  # edges.DEBOUNCE_US and two ms


def _loop_at(t_us, start):
    """The first loop at or after ``t_us`` (µs, maybe fractional)."""
    k = -((start - t_us) // 1)  # ceil(t_us - start)
    return int(k) if k > 0 else 0


class StateMachine:
    def __init__(self, program, frequency=0, *, first_in_pin=None, in_pin_count=1, **kwargs):
        from speedduo.loop import edge_program

        if list(program) != list(edge_program.PROGRAM):
            raise ValueError("this rp2pio stand-in runs only speedduo.loop.edge_program's")
        if kwargs.get("fifo_type") != "rx" or kwargs.get("mov_status_n") != edge_program.STATUS_N:
            raise ValueError("the edge program needs fifo_type='rx' and mov_status_n=7")
        if getattr(first_in_pin, "name", None) != "GP6" or in_pin_count != 1:
            raise ValueError("the edge program reads GP6 up with in_pin_count=1")
        self.frequency = frequency
        clock = current()
        self._clock = clock
        self._start = clock.now_us
        self._closed = [False] * _KEYS
        self._changes = []  # [t_us, key, closed], time-sorted, not yet seen
        self._seen_us = -_SETTLE_US  # the last change seen
        for t_us, key, closed in clock.contacts:
            self.set_contact(key, t_us, closed)
        self._fifo = []
        self._last = 0  # Y: the last snapshot pushed (init: mov y, null)
        self._waiting = False  # a change seen while the FIFO had no room for the pair
        self._retry = -1  # ... the first loop after the read that made room (-1: none yet)
        self._deinited = False
        self._first = True  # loop 0 not run yet
        clock.scanners.append(self)
        self.run_until(clock.now_us)

    # ---- the simulator's side: contacts ----

    def set_contact(self, key, t_us, closed):
        """The contact of ``key`` opens or closes at virtual time t_us (µs)."""
        add_change(self._changes, _KEYS, key, t_us, closed)

    def next_change_us(self):
        """When the next contact change happens (-1: none): the simulator's runner."""
        return self._changes[0][0] if self._changes else -1

    def settled(self):
        """No change for longer than the reader's debounce (and a ms of ``ticks_ms``): the
        reader has reported where every button settled (the simulator's runner)."""
        return self._clock.now_us - self._seen_us >= _SETTLE_US

    def run_until(self, t_us):
        """Every loop up to ``t_us`` that can push (called by the virtual clock)."""
        if self._deinited:
            return
        start = self._start
        last = int((t_us - start) // 1)
        changes = self._changes
        while True:
            k = _loop_at(changes[0][0], start) if changes else -1
            if self._waiting and self._retry >= 0 and (k < 0 or self._retry < k):
                k = self._retry
            if self._first:
                k = 0  # the first loop: every button as it is
                self._first = False
            if k < 0 or k > last:
                return
            while changes and _loop_at(changes[0][0], start) <= k:
                self._seen_us, key, closed = changes.pop(0)
                self._closed[key] = closed
            self._look(k)

    def _look(self, k):
        """Loop k's sample: a change is pushed when the FIFO has room for the pair."""
        snapshot = 0
        for key in range(_KEYS):
            if not self._closed[key]:
                snapshot |= 1 << key  # pulled up: released reads 1
        self._retry = -1
        if snapshot == self._last:
            self._waiting = False
        elif len(self._fifo) > _WORDS - 2:
            self._waiting = True  # seen again by the first loop after a read
        else:
            self._waiting = False
            self._fifo.append(snapshot)
            self._fifo.append(-(k + 1) & _MASK)
            self._last = snapshot

    # ---- the CircuitPython API ----

    @property
    def in_waiting(self):
        self.run_until(self._clock.now_us)
        return len(self._fifo)

    def readinto(self, buffer, *, start=0, end=None, swap=False):
        self.run_until(self._clock.now_us)
        end = len(buffer) if end is None else end
        if end - start > len(self._fifo):
            raise RuntimeError("readinto would wait for words the program has not pushed")
        for i in range(start, end):
            buffer[i] = self._fifo.pop(0)
        if self._waiting:  # room again: the first loop after this read takes the change
            self._retry = int((self._clock.now_us - self._start) // 1) + 1

    def deinit(self):
        self._deinited = True
        self._fifo = []
        if self in self._clock.scanners:
            self._clock.scanners.remove(self)

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.deinit()
