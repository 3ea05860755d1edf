"""The names a CircuitPython firmware has built in (its ROM name pools), read from its .uf2.

    python3 firmware/rom_names.py FIRMWARE.uf2 > firmware/circuitpython_names.txt

A name in these pools costs the board nothing to use: a ``.mpy`` that names it finds it
there. Every other name is interned on the heap when a module loads. And a name the
firmware's own objects answer to (``event.key_number``, ``i2c.writeto``) must never be
renamed: ``short_names`` keeps every name of this list. The list in the repository is
CircuitPython 10.2.1's for the Pico (the firmware the project is measured on); a test
reads it again from that firmware when it is there.

The pools are found by their shape (py/qstr.h ``qstr_pool_t``): a header of six words
(``prev``, ``total_prev_len``, ``alloc``, ``len``, ``hashes``, ``lengths``), then ``len``
pointers to NUL-terminated names, all in flash; the first pool's ``alloc`` is
``MICROPY_ALLOC_QSTR_ENTRIES_INIT`` (10).
"""

import re
import struct
import sys

_UF2_BLOCK = 512
_HEADER_WORDS = 6
_ENTRIES_INIT = 10  # the ROM pools' ``alloc`` (sets the first heap pool's size)
_IDENTIFIER = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*\Z")


def flash_image(uf2):
    """(base address, bytes) of what a .uf2 writes."""
    blocks = {}
    for at in range(0, len(uf2) - _UF2_BLOCK + 1, _UF2_BLOCK):
        address, size = struct.unpack_from("<II", uf2, at + 12)
        blocks[address] = uf2[at + 32 : at + 32 + size]
    if not blocks:
        raise ValueError("not a .uf2 file (no 512-byte blocks)")
    base = min(blocks)
    image = bytearray(max(a + len(b) for a, b in blocks.items()) - base)
    for address, data in blocks.items():
        image[address - base : address - base + len(data)] = data
    return base, bytes(image)


def _string_at(image, base, address):
    at = address - base
    if not 0 <= at < len(image):
        return None
    end = image.find(b"\0", at, at + 256)
    return image[at:end] if end >= 0 else None


def pool_names(base, image):
    """Every name of the ROM pools in a flash image (identifiers only), sorted."""
    names = set()
    for at in range(_HEADER_WORDS * 4, len(image) - 4, 4):
        alloc, length = struct.unpack_from("<II", image, at - 16)
        if alloc != _ENTRIES_INIT or not 100 <= length <= 20000:
            continue
        if at + 4 * length > len(image):
            continue
        pointers = struct.unpack_from("<%dI" % length, image, at)
        strings = [_string_at(image, base, p) for p in pointers]
        if not strings or any(s is None for s in strings):
            continue
        names.update(s.decode() for s in strings if _IDENTIFIER.match(s))
    if not names:
        raise ValueError("no name pool found: not a MicroPython/CircuitPython firmware")
    return sorted(names)


def read(path):
    """The names listed in ``path`` (one a line; ``#`` lines are comments)."""
    with open(path, encoding="utf-8") as f:
        return {line.strip() for line in f if line.strip() and not line.startswith("#")}


def main(argv):
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    with open(argv[0], "rb") as f:
        names = pool_names(*flash_image(f.read()))
    name = argv[0].replace("\\", "/").split("/")[-1]
    print("# the names CircuitPython has built in (firmware/rom_names.py %s)" % name)
    for name in names:
        print(name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
