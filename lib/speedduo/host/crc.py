"""CRC-16/CCITT-FALSE (polynomial 0x1021, start 0xFFFF; Python's
``binascii.crc_hqx(data, 0xFFFF)``): the stats records' check (stats_store.py) and
the USB link's frames (link.py).

A byte at a time with shifts and no table (nothing to build or hold): eight times
fewer loop passes than bit by bit, which on the board is what a ``stats`` reply's
frame costs (docs/link.md). Small ints only.
"""


def crc16(buf, start, end) -> int:
    """The CRC of ``buf[start:end]`` (bytes, bytearray or memoryview)."""
    crc = 0xFFFF
    for i in range(start, end):
        x = ((crc >> 8) ^ buf[i]) & 0xFF
        x ^= x >> 4
        crc = ((crc << 8) ^ (x << 12) ^ (x << 5) ^ x) & 0xFFFF
    return crc
