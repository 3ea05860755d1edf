"""``rp2pio`` on the simulator's virtual clock: a stand-in for the one program the board
runs on a state machine, the button edge stamper (``speedduo.loop.edges``, issue 19).

It does what that program does, in time rather than in instructions: one sample of the
buttons every microsecond from the state machine's start, a (snapshot, count) pair
pushed to an 8-word RX FIFO for every change, only while the FIFO has room for the pair
(fewer than ``mov_status_n`` words; else the change is taken at the first sample after
the board has read the FIFO: late, never lost). The count is the program's: X counts
down once a µs from 0, so the pair of sample k holds the low 30 bits of -1 - k. The
contacts are the virtual clock's (``VirtualClock.contacts``, ``set_contact``), as the
keypad shim's: a change at µs T is seen by sample T - start. On the board the samples
fall at a fraction of a µs from the script's whole µs; the reader counts from the PLAY
press (``Edges.start_match``), so both give every key the same µs since it
(docs/device.md). Any other program is refused: the simulator runs no PIO code.
"""

from vclock import current

_MASK = (1 << 30) - 1  # the count's 30 bits, as pushed
_FIFO_WORDS = 8  # the joined RX FIFO (fifo_type="rx")
_KEYS = 14


class StateMachine:
    def __init__(self, program, frequency, *, init=None, first_in_pin=None, **options):
        from speedduo.loop import edges, pins

        if bytes(program) != bytes(edges.PROGRAM):
            raise NotImplementedError("the simulator's rp2pio runs the edge stamper only")
        if getattr(first_in_pin, "name", None) != pins.BUTTON_PINS[0]:
            raise ValueError("the edge stamper reads the buttons from %s" % pins.BUTTON_PINS[0])
        self.frequency = frequency
        self._room = options.get("mov_status_n", 7)  # a pair is pushed below this many words
        clock = current()
        self._clock = clock
        self._start = clock.now_us
        self._closed = [False] * _KEYS
        self._changes = []  # [t_us, key, closed], time-sorted, not yet seen
        for t_us, key, closed in clock.contacts:
            self.set_contact(key, t_us, closed)
        self._fifo = []
        self._pushed = 0  # Y: the last snapshot pushed (init: ``mov y, null``)
        self._waiting = False  # a change seen while the FIFO had no room
        self._deinited = False
        clock.scanners.append(self)
        self.run_until(clock.now_us)
        self._look(self._start)  # the first loop: every button as it is

    # ---- the simulator's side ----

    def set_contact(self, key, t_us, closed):
        """The contact of ``key`` opens or closes at virtual time t_us (µs)."""
        if not 0 <= key < _KEYS:
            raise ValueError("no key %d" % key)
        changes = self._changes
        i = len(changes)
        while i > 0 and changes[i - 1][0] > t_us:
            i -= 1
        changes.insert(i, [t_us, key, closed])

    def run_until(self, t_us):
        """Every sample up to t_us (called by the virtual clock)."""
        if self._deinited:
            return
        changes = self._changes
        while changes and changes[0][0] <= t_us:
            at = max(changes[0][0], self._start)
            while changes and max(changes[0][0], self._start) == at:
                _, key, closed = changes.pop(0)
                self._closed[key] = closed
            if at > self._start:
                self._look(at)

    def _snapshot(self):
        bits = 0
        for key in range(_KEYS):
            if not self._closed[key]:
                bits |= 1 << key  # pulled up: released reads 1
        return bits

    def _look(self, t_us):
        """The sample at t_us: a change is pushed when the FIFO has room for the pair."""
        snapshot = self._snapshot()
        if snapshot == self._pushed:
            self._waiting = False
            return
        if len(self._fifo) >= self._room:
            self._waiting = True
            return
        self._waiting = False
        self._pushed = snapshot
        self._fifo.append(snapshot)
        self._fifo.append((_MASK - (t_us - self._start)) & _MASK)

    # ---- the CircuitPython API ----

    @property
    def in_waiting(self):
        self.run_until(self._clock.now_us)
        return len(self._fifo)

    def readinto(self, buffer, *, start=0, end=None, swap=False):
        self.run_until(self._clock.now_us)
        if end is None:
            end = len(buffer)
        n = min(end - start, len(self._fifo))
        for i in range(n):
            buffer[start + i] = self._fifo[i]
        del self._fifo[:n]
        if self._waiting:  # room again: the next sample takes the change
            self._look(self._clock.now_us)
        return n

    def deinit(self):
        self._deinited = True
        if self in self._clock.scanners:
            self._clock.scanners.remove(self)

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.deinit()
