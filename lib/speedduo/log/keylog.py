"""The key record of the match log: every key event the arbiter reads, for replay.

``KeyRecorder`` stands between the keypad event queue and the arbiter and puts
one ``EV_KEY`` record in the match log per event read; the formatter writes
them as the extra fields ``keys`` and ``keys_total`` of the next line
(docs/match-log.md "Key events"). Allocation-free on the play path.
"""

from speedduo.log.matchlog import KEY_CLEARED, KEY_OVERFLOW
from speedduo.vocab.ticks import ticks_diff


class KeyRecorder:
    """The keypad event queue as the arbiter sees it, recording what the arbiter reads.

    Offers what the arbiter uses of ``keypad.EventQueue``: ``get_into``,
    ``overflowed`` (read-only, as on the board), ``len()`` and ``clear()``.
    Every event read is put in the log (one ``KEY`` record), with its match time
    (ms since ``start_ticks``). A full queue drops the newest events: when the
    flag is first seen, the loss lies after the events still queued, so a
    ``KEY_OVERFLOW`` record goes after the last of them. The flag stays up until
    the arbiter calls ``clear()`` (it is read-only on the board), so further
    events may be lost unseen until then: a ``KEY_CLEARED`` record marks where
    that window ends and names the hand the arbiter counted the overflow
    against (0: none, the hand was over). Replay feeds the recorded events back.
    """

    def __init__(self, events, log, start_ticks: int, match) -> None:
        self.events = events
        self.log = log
        self.start_ticks = start_ticks
        self.match = match
        self._last = 0  # match time of the last event read
        self._last_sub = 0  # ... its µs past that ms (a µs log: ``log.micro``)
        self._micro = log.micro
        self._reads = 0  # events read so far
        self._loss_at = -1  # a loss seen: mark it once this many were read (-1: none seen)
        log.keys_total = 0

    def get_into(self, event) -> bool:
        events = self.events
        if self._loss_at < 0 and events.overflowed:
            self._note_loss()
        if not events.get_into(event):
            return False
        t = ticks_diff(event.timestamp, self.start_ticks)
        sub = event.sub_us if self._micro else 0  # µs past t (the log's ``micro``)
        if t < 0:
            t = 0
            sub = 0
        self._last = t
        self._last_sub = sub
        self._reads += 1
        self.log.put_key(t, event.key_number, 1 if event.pressed else 0, sub)
        if self._reads == self._loss_at:  # the last event queued before the loss
            self._mark_loss()
        return True

    def _note_loss(self) -> None:
        """The overflow flag, seen for the first time: the loss follows what is queued."""
        self._loss_at = self._reads + len(self.events)
        if self._loss_at == self._reads:
            self._mark_loss()

    def _mark_loss(self) -> None:
        """Put the loss mark here (after the events read so far)."""
        self.log.put_key(self._last, KEY_OVERFLOW, 0, self._last_sub)

    @property
    def overflowed(self) -> bool:
        events = self.events
        if events.overflowed:
            if self._loss_at < 0:
                self._note_loss()
            return True
        return False

    def __len__(self) -> int:
        return len(self.events)

    def clear(self) -> None:
        """Empty the queue and reset its overflow flag (the arbiter counts the loss now)."""
        events = self.events
        if events.overflowed and self._loss_at < 0:
            self._note_loss()
        if self._loss_at >= 0:
            if self._loss_at > self._reads:  # cleared before the events queued were read
                self._mark_loss()
            hand = self.match.hand
            counted = 0 if hand.over else hand.hand_no  # as the arbiter counts it
            self.log.put_key(self._last, KEY_CLEARED, counted, self._last_sub)
            self._loss_at = -1
        events.clear()
