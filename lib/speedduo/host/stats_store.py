"""The stats record in ``microcontroller.nvm``: versioned, checksummed, never torn.

A record is ``SLOT`` (128) bytes: ``S`` ``D``, the format version, a 24-bit
sequence number (little-endian), ``PAYLOAD`` bytes, and a CRC-16/CCITT-FALSE of
all that. The nvm holds a ring of slots (32 in the RP2040's 4096 bytes); the
reader takes the valid record (magic, version, CRC) with the highest sequence.

Why a ring and not two slots (docs/stats.md): on the RP2040, CircuitPython
writes nvm bytes that are all 0xFF (erased) by programming their flash page
only, and anything else by erasing the whole 4 KB sector and programming it
again. Two slots in one sector would both be erased by every write. So a save
goes into the erased slot after the newest record (the others untouched: a
power cut leaves the old record or the new one), and only when the ring is
used up (one save in 32) does it write the whole sector: erased, new record
first. A cut in that erase loses the stats (they read back empty, never wrong).

Not on the play path: a save allocates and pauses the board (flash writes stop
everything: ~0.5 ms per page, ~50 ms for an erase), so it runs in the menu.
"""

from micropython import const  # on the host, Blinka provides this module

from speedduo.host.crc import crc16

SLOT = const(128)
PAYLOAD = const(120)  # bytes 6..125 of a record
VERSION = const(1)
_MAGIC0 = const(0x53)  # "S"
_MAGIC1 = const(0x44)  # "D"
_HEADER = const(6)
_CRC_AT = const(126)
_SEQ_LIMIT = const(0xFFFFFF)


def valid(record):
    """True when ``record`` (SLOT bytes) is a whole record of this version."""
    if record[0] != _MAGIC0 or record[1] != _MAGIC1 or record[2] != VERSION:
        return False
    return crc16(record, 0, _CRC_AT) == record[_CRC_AT] | (record[_CRC_AT + 1] << 8)


def sequence(record):
    return record[3] | (record[4] << 8) | (record[5] << 16)


def _blank(data):
    for b in data:
        if b != 0xFF:
            return False
    return True


class Store:
    """The newest record of ``nvm`` (a ``microcontroller.nvm``-like object, or None)."""

    def __init__(self, nvm):
        self.nvm = nvm
        self.slots = len(nvm) // SLOT if nvm is not None else 0
        self.slot = -1  # where the newest valid record is (-1: none)
        self.seq = 0
        self.saves = 0  # saves by this object; erases: the whole-sector ones
        self.erases = 0

    def load(self, payload):
        """Copy the newest valid record's payload into ``payload``; False when there is none."""
        nvm = self.nvm
        best = -1
        self.seq = 0
        for i in range(self.slots):
            record = nvm[i * SLOT : (i + 1) * SLOT]
            if valid(record) and sequence(record) > self.seq:
                self.seq = sequence(record)
                best = i
                payload[:] = record[_HEADER:_CRC_AT]
        self.slot = best
        return best >= 0

    def save(self, payload):
        """Write ``payload`` as the next record (see the module docstring). Pauses the board."""
        nvm = self.nvm
        if nvm is None or self.slots < 2:
            return
        seq = self.seq + 1
        record = bytearray(SLOT)
        record[0] = _MAGIC0
        record[1] = _MAGIC1
        record[2] = VERSION
        record[_HEADER:_CRC_AT] = payload
        at = (self.slot + 1) % self.slots
        whole = seq > _SEQ_LIMIT or not _blank(nvm[at * SLOT : (at + 1) * SLOT])
        if whole:  # the ring is used up (or torn): erase it all, the new record first
            at = 0
            if seq > _SEQ_LIMIT:
                seq = 1
        record[3] = seq & 0xFF
        record[4] = (seq >> 8) & 0xFF
        record[5] = seq >> 16
        crc = crc16(record, 0, _CRC_AT)
        record[_CRC_AT] = crc & 0xFF
        record[_CRC_AT + 1] = crc >> 8
        if whole:
            image = bytearray(self.slots * SLOT)  # one 4 KB block: the sector's new contents
            image[0:SLOT] = record
            for i in range(SLOT, len(image)):
                image[i] = 0xFF
            nvm[0 : self.slots * SLOT] = image
            self.erases += 1
        else:
            nvm[at * SLOT : (at + 1) * SLOT] = record
        self.slot = at
        self.seq = seq
        self.saves += 1
