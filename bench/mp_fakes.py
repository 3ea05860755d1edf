"""Stand-ins for the keypad under the MicroPython VM (bench/mp_heap_lock*.py): an event and
a queue whose events come from preallocated arrays, so reading them allocates nothing; and
``locked``, which runs a path with the heap locked."""

from array import array

import micropython


class FakeEvent:
    """A keypad.Event stand-in: what get_into fills in."""

    def __init__(self):
        self.key_number = 0
        self.pressed = False
        self.timestamp = 0


class FakeQueue:
    """An EventQueue stand-in whose events come from preallocated arrays."""

    def __init__(self):
        self.keys = bytearray(8)
        self.pressed = bytearray(8)
        self.stamps = array("i", [0] * 8)
        self.n = 0
        self.i = 0
        self.overflowed = False

    def load(self, k, key, pressed, stamp):
        self.keys[k] = key
        self.pressed[k] = pressed
        self.stamps[k] = stamp

    def get_into(self, event):
        i = self.i
        if i >= self.n:
            return False
        event.key_number = self.keys[i]
        event.pressed = self.pressed[i] == 1
        event.timestamp = self.stamps[i]
        self.i = i + 1
        return True

    def __len__(self):
        return self.n - self.i

    def clear(self):
        self.i = self.n
        self.overflowed = False  # a plain attribute here; read-only for the arbiter


def locked(work, arg):
    """Run work(arg) with the heap locked: 1 ok, 0 wrong result, -1 it allocated (the
    MemoryError is caught here: a module-level ``except`` would itself allocate)."""
    micropython.heap_lock()
    try:
        result = 1 if work(arg) else 0
    except MemoryError:
        result = -1
    finally:
        micropython.heap_unlock()
    return result


def control_and_verdict(caught, what, failures):
    """The control's line (a path known to allocate, run under the lock: ``caught`` when
    the lock stopped it) and the closing ``ALL PASS``/``SOME FAIL``; returns the failures."""
    if caught:
        print("CONTROL %s allocates and was caught: the lock works" % what)
    else:
        print("CONTROL BROKEN %s ran under heap_lock: the check proves nothing" % what)
        failures += 1
    print("ALL PASS" if failures == 0 else "SOME FAIL")
    return failures
