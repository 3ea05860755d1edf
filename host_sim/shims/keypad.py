"""Shim of CircuitPython's ``keypad`` (Keys, Event, EventQueue) on the virtual clock.

It follows the board's behaviour (shared-module/keypad in CircuitPython 9-10):
- a scan every ``interval`` (kept in whole 1/1024 s ticks; 0 and 0.001 scan every tick);
- ``debounce_threshold`` T is an up/down counter in [-T, T]: a change is reported
  when T more agreeing scans than disagreeing ones have been seen;
- every event of one scan carries that scan's ``supervisor.ticks_ms()`` timestamp
  and they are queued in key-number order;
- a full queue drops the *newest* event and sets ``overflowed``.
The simulator drives the contacts with ``set_contact(key, t_us, closed)``; a
press with bounce is a burst of such calls (see host_sim.buttons).
"""

from vclock import add_change, current


class Event:
    """Read-only, as on the board (shared-bindings/keypad/Event.c has getters only):
    only ``EventQueue.get_into`` fills one (here through the underscored fields)."""

    def __init__(self, key_number=0, pressed=True, timestamp=None):
        self._key_number = key_number
        self._pressed = pressed
        self._timestamp = timestamp

    @property
    def key_number(self):
        return self._key_number

    @property
    def pressed(self):
        return self._pressed

    @property
    def timestamp(self):
        return self._timestamp

    @property
    def released(self):
        return not self._pressed

    def __eq__(self, other):
        return self.key_number == other.key_number and self.pressed == other.pressed

    def __repr__(self):
        state = "pressed" if self.pressed else "released"
        return "<Event: key_number %d %s>" % (self.key_number, state)


class EventQueue:
    def __init__(self, max_events, clock=None):
        self._clock = clock
        self._keys = []
        self._pressed = []
        self._stamps = []
        self._max = max_events
        self._overflowed = False

    @property
    def overflowed(self):
        """Read-only, as on the board (shared-bindings/keypad/EventQueue.c): clear() resets it."""
        return self._overflowed

    def _record(self, key, pressed, timestamp):
        if len(self._keys) >= self._max:
            self._overflowed = True  # the newest event is dropped
            return
        self._keys.append(key)
        self._pressed.append(pressed)
        self._stamps.append(timestamp)

    def get(self):
        if not self._keys:
            return None
        event = Event()
        self.get_into(event)
        return event

    def get_into(self, event):
        if self._clock is not None:
            self._clock.spend()
        if not self._keys:
            return False
        event._key_number = self._keys.pop(0)
        event._pressed = self._pressed.pop(0)
        event._timestamp = self._stamps.pop(0)
        return True

    def clear(self):
        self._keys = []
        self._pressed = []
        self._stamps = []
        self._overflowed = False

    def __len__(self):
        return len(self._keys)

    def __bool__(self):
        return len(self._keys) > 0


class Keys:
    def __init__(
        self,
        pins,
        *,
        value_when_pressed,
        pull=True,
        interval=0.020,
        max_events=64,
        debounce_threshold=1,
    ):
        if not 1 <= debounce_threshold <= 127:
            raise ValueError("debounce_threshold must be 1-127")
        if interval < 0 or interval > 100:
            raise ValueError("interval must be 0-100 s")
        self.key_count = len(pins)
        self._clock = current()
        self.events = EventQueue(max_events, self._clock)
        self._threshold = debounce_threshold
        self._interval_ticks = int(interval * 1024)
        self._counter = [-debounce_threshold] * self.key_count
        self._closed = [False] * self.key_count  # the contacts right now
        self._changes = []  # pending contact changes: [t_us, key, closed], time-sorted
        self._next_tick = self._clock.tick_at_or_before(self._clock.now_us) + 1
        self._clock.scanners.append(self)
        self._deinited = False
        for t_us, key, closed in self._clock.contacts:
            self.set_contact(key, t_us, closed)

    # ---- the simulator's side: contacts ----

    def set_contact(self, key, t_us, closed):
        """The contact of ``key`` opens or closes at virtual time t_us (µs)."""
        add_change(self._changes, self.key_count, key, t_us, closed)

    def run_until(self, t_us):
        """Run every scan up to t_us (called by the virtual clock)."""
        if self._deinited:
            return
        clock = self._clock
        last = clock.tick_at_or_before(t_us)
        step = self._interval_ticks if self._interval_ticks > 0 else 1
        while self._next_tick <= last:
            k = self._next_tick
            if not self._changes and self.settled():
                # nothing can happen until the next contact change: skip ahead
                skipped = (last - k) // step
                self._next_tick = k + (skipped + 1) * step
                continue
            scan_us = clock.tick_time(k)
            changes = self._changes
            while changes and changes[0][0] <= scan_us:
                _, key, closed = changes.pop(0)
                self._closed[key] = closed
            self._scan(clock.ticks_ms_of_tick(k))
            self._next_tick = k + step

    def next_change_us(self):
        """When the next scheduled contact change happens (-1: none)."""
        return self._changes[0][0] if self._changes else -1

    def settled(self):
        """Every debounce counter agrees with its contact: a scan would report nothing."""
        threshold = self._threshold
        for key in range(self.key_count):
            want = threshold if self._closed[key] else -threshold
            if self._counter[key] != want:
                return False
        return True

    def _scan(self, timestamp):
        threshold = self._threshold
        counter = self._counter
        for key in range(self.key_count):
            if self._closed[key]:
                if counter[key] < threshold:
                    counter[key] += 1
                    if counter[key] == 0:
                        counter[key] = threshold
                        self.events._record(key, True, timestamp)
            elif counter[key] > -threshold:
                counter[key] -= 1
                if counter[key] == 0:
                    counter[key] = -threshold
                    self.events._record(key, False, timestamp)

    # ---- the CircuitPython API ----

    def reset(self):
        self._counter = [-self._threshold] * self.key_count

    def deinit(self):
        self._deinited = True
        if self in self._clock.scanners:
            self._clock.scanners.remove(self)

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.deinit()
