"""Button edges stamped to the microsecond by a PIO state machine (issue 19): the reader.

``edge_program.py`` holds the program (every 1 µs it samples the 14 buttons and counts;
a change pushes the pair (snapshot, count) to the RX FIFO when both words fit, else it is
seen again on a later loop: late, never lost) and ``start``, which runs it and makes the
reader; it is loaded at power-on only. ``Edges.get_into`` hands out debounced key events
(key 0-13, pressed, µs) without allocating. Snapshot bit k is key k (``pins.BUTTON_PINS``
order), 1 = released.
"""

from array import array

from micropython import const

from speedduo.vocab.ticks import ticks_add, ticks_diff

try:
    from typing import Any, Callable
except ImportError:
    pass

_KEYS = const(14)
_ALL_UP = const(0x3FFF)  # a snapshot with every button released (pulled up)
_MASK = const(0x3FFFFFFF)  # the count's 30 bits: it wraps after 2**30 µs (17.9 min)
_WORDS = const(8)  # the joined RX FIFO: 4 (snapshot, count) pairs
DEBOUNCE_US = const(5000)


class Edge:
    """One key event, filled in by ``Edges.get_into``: what ``keypad.Event`` holds
    (``key_number``, ``pressed``, ``timestamp`` in ``ticks_ms``), the µs past that ms
    (``sub_us``: the arbiter orders by it) and ``t_us``, µs since the reader's origin
    modulo 2**30. Writable: the board's loop reads every event into one of these."""

    def __init__(self) -> None:
        self.key_number = 0
        self.pressed = False
        self.timestamp = 0
        self.sub_us = 0
        self.t_us = 0


class Edges:
    """Debounced key events from the state machine's (snapshot, count) pairs.

    ``sm`` answers ``in_waiting`` and ``readinto(buffer, end=n)`` (``rp2pio``'s).
    Times are µs since the state machine started (``origin_at`` moves the origin),
    modulo 2**30: they stay small ints (no allocation) and wrap every 17.9 minutes,
    as ``ticks_ms`` does; compare them as ``(a - b) & 0x3FFFFFFF``.

    Debounce: a key's first edge is its event at once; further edges within
    ``debounce_us`` of it are contact chatter and ignored. If the chatter leaves the
    key in the other state, that state is reported once the window is over (seen by
    a later snapshot, or by ``ticks_ms`` on a later call), stamped with the time of
    its last edge. Events come out in the order they are known, which is time order
    except for those late ones.

    To the board's loop it is what ``keypad.Keys`` is, and its own event queue
    (``events``): ``get_into``, ``len()``, ``clear()``, ``overflowed`` (never: the
    program takes an edge only when the FIFO has room, late rather than lost), and
    ``Event``, the class to read into (``keypad.Event`` is read-only on the board).
    An event's ``timestamp`` is ``ticks_ms`` at the origin plus its ms since the
    origin (2**30 µs wraps counted by ``ticks_ms``), so the loop's clock and the
    stamps agree to the ms; ``start_match`` moves the origin to the PLAY press, so a
    match's key times are exact µs since that press, whatever the phase of the
    state machine's start (the simulator's stand-in gives the same stamps).
    """

    Event = Edge
    micro = True  # the events carry ``sub_us`` (arbiter.Arbiter's micro)
    overflowed = False

    def __init__(
        self, sm: Any, ticks_ms: Callable[[], int], debounce_us: int = DEBOUNCE_US
    ) -> None:
        self._sm = sm
        self._ticks_ms = ticks_ms
        self.debounce_us = debounce_us
        self._words = array("I", bytearray(4 * _WORDS))
        self._read = 0  # words in _words
        self._next = 0  # the next pair to look at
        self._origin = _MASK  # the count of the state machine's first loop
        self._raw = _ALL_UP  # the last snapshot
        self._state = _ALL_UP  # the buttons as reported
        self._changed = 0  # keys of the last snapshot still to look at
        self._t = 0  # the last snapshot's time
        self._t_ticks = ticks_ms()  # ticks_ms when it was read
        self._accepted = array("I", [(-debounce_us) & _MASK] * _KEYS)  # each key's last event
        self._edge = array("I", [0] * _KEYS)  # each key's last raw edge
        self.pulls = None  # type: Any  # edge_program.start: the pins' pull-ups, kept alive
        self.events = self  # (as keypad.Keys.events)
        self._origin_ticks = self._t_ticks  # ticks_ms at the origin
        self._press_t = 0  # the last press handed out: its time (start_match)
        self._press_ticks = self._t_ticks  # ... and its timestamp
        self._spare = Edge()  # clear() reads into it
        self.late_us = 0  # the most a stamp since start_match may be late (a full FIFO)

    def origin_at(self, t_us: int) -> None:
        """Count the times from ``t_us`` (a time of this reader's) on."""
        self._origin = (self._origin - t_us) & _MASK
        self._t = (self._t - t_us) & _MASK
        for key in range(_KEYS):  # the debounce windows move along
            self._accepted[key] = (self._accepted[key] - t_us) & _MASK
            self._edge[key] = (self._edge[key] - t_us) & _MASK

    def start_match(self) -> None:
        """The match begins at the last press handed out (the menu's PLAY): its time
        and timestamp become the origin."""
        self.origin_at(self._press_t)
        self._origin_ticks = self._press_ticks
        self._press_t = 0
        self.late_us = 0

    def __len__(self) -> int:
        """Pairs read from the FIFO and not looked at yet (the queue's length, about)."""
        return (self._read - self._next) >> 1

    def clear(self) -> None:
        """Drop every event waiting (as keypad's ``clear``: the menu's fresh start)."""
        while self.get_into(self._spare):
            pass

    def now_us(self) -> int:
        """Now, about: the last snapshot's time plus the ms since it was read."""
        late = ticks_diff(self._ticks_ms(), self._t_ticks)
        if late < 0:
            late = 0
        elif late > 500_000:
            late = 500_000  # 500 s: the sum stays a small int
        return (self._t + late * 1000) & _MASK

    def get_into(self, event: Edge) -> bool:
        """Fill ``event`` with the next key event; False when there is none."""
        while True:
            if self._changed:
                if self._look(event):
                    return True
            elif not self._snapshot():
                return self._raw != self._state and self._settle(event, self.now_us())

    def _snapshot(self) -> bool:
        """Take the next (snapshot, count) pair, reading the FIFO when they are used up."""
        if self._next >= self._read:
            waiting = self._sm.in_waiting & ~1  # whole pairs only
            if not waiting:
                return False
            if waiting > _WORDS:
                waiting = _WORDS
            self._sm.readinto(self._words, end=waiting)
            self._read = waiting
            self._next = 0
            self._t_ticks = self._ticks_ms()
            if waiting == _WORDS:  # full: a change may wait for this read (late, not lost)
                self._note_late()
        snapshot = self._words[self._next]
        self._t = (self._origin - self._words[self._next + 1]) & _MASK
        self._next += 2
        self._changed = snapshot ^ self._raw
        self._raw = snapshot
        return True

    def _note_late(self) -> None:
        """The FIFO was full: a change since its last pair waited for this read at most
        (in whole ms, rounded up: the read's time is known to the ms)."""
        t = (self._origin - self._words[_WORDS - 1]) & _MASK
        late = (ticks_diff(self._t_ticks, self._origin_ticks) - t // 1000 + 1) * 1000
        if self.late_us < late < 1_000_000_000:  # (a wrap's nonsense left out)
            self.late_us = late

    def _settle(self, event: Edge, now: int) -> bool:
        """A key whose chatter ended in the other state, once its window is over at
        ``now``. A key of the last snapshot not looked at yet counts as it was before."""
        unsettled = self._raw ^ self._changed ^ self._state
        key = 0
        while unsettled:
            if unsettled & 1 and (now - self._accepted[key]) & _MASK >= self.debounce_us:
                return self._report(event, key, self._edge[key])
            unsettled >>= 1
            key += 1
        return False

    def _look(self, event: Edge) -> bool:
        """The next changed key of the last snapshot: an event, or chatter."""
        if self._settle(event, self._t):
            return True  # older news first
        changed = self._changed
        key = 0
        while not changed & 1:
            changed >>= 1
            key += 1
        bit = 1 << key
        self._changed ^= bit
        t = self._t
        self._edge[key] = t
        if (self._raw ^ self._state) & bit == 0:
            return False  # back where it was reported
        if (t - self._accepted[key]) & _MASK < self.debounce_us:
            return False  # chatter: settled later if it stays
        return self._report(event, key, t)

    def _report(self, event: Edge, key: int, t: int) -> bool:
        self._state ^= 1 << key
        self._accepted[key] = t
        event.key_number = key
        pressed = not self._state & (1 << key)
        event.pressed = pressed
        event.t_us = t
        # its ms since the origin: the 2**30 µs wraps (1,073,741.824 ms each) counted by
        # ticks_ms; every step a small int (no allocation)
        ms = t // 1000
        wraps = ticks_diff(self._ticks_ms(), self._origin_ticks) - ms
        wraps = (wraps + 536_870) // 1_073_741 if wraps > 536_870 else 0
        sub = t % 1000 + wraps * 824
        ms += wraps * 1_073_741 + sub // 1000
        event.sub_us = sub % 1000
        event.timestamp = ticks_add(self._origin_ticks, ms)
        if pressed:
            self._press_t = t
            self._press_ticks = event.timestamp
        return True
