"""The key events of one loop pass, read from the keypad queue into preallocated
arrays and put in time order (the classic arbiter's and the other games' loop's,
arbiter.py and game_app.py: docs/rules.md R4, R8).

``read`` drains the queue after the events held back from the last pass, each
stamped with its match time by ``time_of(timestamp)`` (a bound method made once:
making one per call would allocate), and sorts them by time, stably (the queue
is nearly always in order already). The caller applies the instants before
``now`` (``group_end`` finds where one ends) and ``keep_from`` holds the rest for
the next pass: a scan later in the same millisecond may still add to them.

With a microsecond source (``micro``: the PIO's edge stamps, issue 19) each event
also carries ``sub_us``, the microseconds past its millisecond (0-999), and an
instant is one microsecond: events are ordered by (ms, µs) and ``group_end`` ends
an instant where either differs. The ms stay the match's clock; the µs only order.

A head start (docs/rules.md H1: ``lead``, ms per player, set by the arbiter) moves each
of that player's events earlier by its lead as it is read: the batch holds, and orders
by, adjusted times, never before the match began (0).
"""

from array import array

from micropython import const  # on the host, Blinka provides this module

from speedduo.vocab.codes import KEYS_PER_PLAYER

BATCH = const(64)  # as many events as the keypad queue holds


class KeyBatch:
    def __init__(self, micro: bool = False) -> None:
        self.key = bytearray(BATCH)  # key numbers
        self.down = bytearray(BATCH)  # 1: pressed, 0: released
        self.at = array("i", [0] * BATCH)  # match ms
        self.sub = array("H", [0] * BATCH)  # µs past ``at`` (0 unless ``micro``)
        self.micro = micro
        self.lead = array("i", [0, 0])  # H1: ms each player's events count earlier
        self.count = 0  # events held (after keep_from: the ones kept for the next pass)

    def read(self, events, event, time_of) -> int:
        """Add what ``events`` (a keypad.EventQueue) holds, read through ``event``, and
        sort all by time. Returns the presses read."""
        key = self.key
        down = self.down
        at = self.at
        sub = self.sub
        micro = self.micro
        lead = self.lead
        count = self.count
        presses = 0
        while count < BATCH and events.get_into(event):
            key[count] = event.key_number
            if event.pressed:
                down[count] = 1
                presses += 1
            else:
                down[count] = 0
            t = time_of(event.timestamp)
            p = event.key_number // KEYS_PER_PLAYER
            if p < 2 and lead[p]:  # H1: as if pressed lead[p] ms earlier, not before 0
                t -= lead[p]
                if t < 0:
                    t = 0
            at[count] = t
            if micro:
                sub[count] = event.sub_us
            count += 1
        self.count = count
        for i in range(1, count):  # stable insertion sort by time
            t = at[i]
            u = sub[i]
            k = key[i]
            d = down[i]
            j = i - 1
            while j >= 0 and (at[j] > t or (at[j] == t and sub[j] > u)):
                at[j + 1] = at[j]
                sub[j + 1] = sub[j]
                key[j + 1] = key[j]
                down[j + 1] = down[j]
                j -= 1
            at[j + 1] = t
            sub[j + 1] = u
            key[j + 1] = k
            down[j + 1] = d
        return presses

    def group_end(self, first: int) -> int:
        """The end of the instant (events of one match ms, one µs with ``micro``) that
        starts at ``first``."""
        at = self.at
        sub = self.sub
        t = at[first]
        u = sub[first]
        end = first + 1
        while end < self.count and at[end] == t and sub[end] == u:
            end += 1
        return end

    def keep_from(self, first: int) -> None:
        """Hold the events from ``first`` on for the next pass; drop the ones before it."""
        key = self.key
        down = self.down
        at = self.at
        sub = self.sub
        kept = 0
        for i in range(first, self.count):
            key[kept] = key[i]
            down[kept] = down[i]
            at[kept] = at[i]
            sub[kept] = sub[i]
            kept += 1
        self.count = kept
