"""A small FAT12 writer: the CIRCUITPY drive image the emulated board boots with.

``fat12_image(files, size=1 << 20)`` returns the bytes of a FAT12 volume (no
partition table, 512-byte sectors, one cluster per sector, one FAT, 512 root
entries, label CIRCUITPY) holding ``files``: (path on the drive, bytes) pairs,
folders made as needed. Names that are not plain 8.3 upper case get long-name
(VFAT) entries, as CircuitPython's own FatFs writes them. Dates are fixed, so
the same files give the same image. ``read_fat12(image)`` lists the files back
(for tests and for looking inside an image).
"""

import struct

SECTOR = 512
_ROOT_ENTRIES = 512
_DATE = (2000 - 1980) << 9 | 1 << 5 | 1  # 2000-01-01
_ATTR_DIR = 0x10
_ATTR_ARCHIVE = 0x20
_ATTR_LFN = 0x0F
_ATTR_LABEL = 0x08
_SHORT_OK = set("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789$%'-_@~`!(){}^#&")


class FatError(ValueError):
    pass


def _geometry(size):
    total = size // SECTOR
    root_sectors = _ROOT_ENTRIES * 32 // SECTOR
    fat_sectors = 1
    while True:
        clusters = total - 1 - fat_sectors - root_sectors
        needed = ((clusters + 2) * 3 + 1) // 2
        if needed <= fat_sectors * SECTOR:
            break
        fat_sectors += 1
    if not 16 <= clusters < 4085:
        raise FatError("a FAT12 volume needs 16..4084 clusters, not %d" % clusters)
    return total, fat_sectors, root_sectors, clusters


def _short_candidate(name):
    """(8.3 bytes, lowercase flags) when ``name`` fits 8.3 as it is; else None."""
    if name in (".", ".."):
        return name.encode().ljust(11), 0
    base, dot, ext = name.partition(".")
    if "." in ext or not base or len(base) > 8 or len(ext) > 3:
        return None
    flags = 0
    for part, bit in ((base, 0x08), (ext, 0x10)):
        if part and part == part.lower() and part != part.upper():
            flags |= bit
        elif part != part.upper():
            return None  # mixed case needs a long name
        if not set(part.upper()) <= _SHORT_OK:
            return None
    return (base.upper().ljust(8) + ext.upper().ljust(3)).encode(), flags


def _short_alias(name, taken):
    base, _, ext = name.rpartition(".") if "." in name else (name, "", "")
    clean = lambda s: "".join(c for c in s.upper() if c in _SHORT_OK)  # noqa: E731
    base, ext = clean(base) or "_", clean(ext)[:3]
    for n in range(1, 1000):
        tail = "~%d" % n
        short = (base[: 8 - len(tail)] + tail).ljust(8) + ext.ljust(3)
        if short.encode() not in taken:
            return short.encode()
    raise FatError("too many similar names for %r" % name)


def _checksum(short):
    s = 0
    for b in short:
        s = (((s & 1) << 7) + (s >> 1) + b) & 0xFF
    return s


def _lfn_entries(name, short):
    units = list(name.encode("utf-16-le"))
    chars = [units[i] | units[i + 1] << 8 for i in range(0, len(units), 2)]
    count = (len(chars) + 12) // 13
    chars += [0x0000] + [0xFFFF] * (count * 13 - len(chars) - 1)
    chars = chars[: count * 13]
    check = _checksum(short)
    entries = []
    for seq in range(count, 0, -1):
        part = chars[(seq - 1) * 13 : seq * 13]
        entry = bytearray(32)
        entry[0] = seq | (0x40 if seq == count else 0)
        entry[1:11] = struct.pack("<5H", *part[0:5])
        entry[11] = _ATTR_LFN
        entry[13] = check
        entry[14:26] = struct.pack("<6H", *part[5:11])
        entry[28:32] = struct.pack("<2H", *part[11:13])
        entries.append(bytes(entry))
    return entries


def _entry(short, attr, cluster, size, flags=0):
    return struct.pack(
        "<11sBBBHHHHHHHI", short, attr, flags, 0, 0, _DATE, _DATE, 0, 0, _DATE, cluster, size
    )


class _Dir:
    def __init__(self):
        self.children = {}  # name -> _Dir | bytes


def fat12_image(files, size=1 << 20, label="CIRCUITPY"):
    """The bytes of a FAT12 volume of ``size`` bytes holding ``files`` ((path, bytes) pairs;
    a path ending in "/" is a folder, its bytes ignored)."""
    total, fat_sectors, root_sectors, clusters = _geometry(size)
    root = _Dir()
    for path, data in files:
        parts = [p for p in path.replace("\\", "/").split("/") if p]
        if not parts:
            raise FatError("empty path")
        folder = path.replace("\\", "/").endswith("/")  # "lib/": a folder, empty or not
        node = root
        for part in parts if folder else parts[:-1]:
            node = node.children.setdefault(part, _Dir())
            if not isinstance(node, _Dir):
                raise FatError("%s is a file, not a folder" % part)
        if folder:
            continue
        if parts[-1] in node.children:
            raise FatError("%s is given twice" % path)
        node.children[parts[-1]] = bytes(data)

    fat = [0xFF8, 0xFFF] + [0] * clusters
    data_area = bytearray(clusters * SECTOR)
    next_free = [2]

    def allocate(content):
        n = max(1, (len(content) + SECTOR - 1) // SECTOR)
        first = next_free[0]
        if first + n - 2 > clusters:
            raise FatError("the files do not fit in %d bytes" % size)
        for i in range(n):
            c = first + i
            fat[c] = c + 1 if i < n - 1 else 0xFFF
        start = (first - 2) * SECTOR
        data_area[start : start + len(content)] = content
        next_free[0] = first + n
        return first

    def entries_for(node, self_cluster, parent_cluster):
        out = []
        if self_cluster is not None:
            out.append(_entry(b".          ", _ATTR_DIR, self_cluster, 0))
            out.append(_entry(b"..         ", _ATTR_DIR, parent_cluster, 0))
        taken = set()
        for name in node.children:
            fit = _short_candidate(name)
            if fit:
                taken.add(fit[0])
        for name, child in node.children.items():
            fit = _short_candidate(name)
            if fit:
                short, flags = fit
                lfn = []
            else:
                short, flags = _short_alias(name, taken), 0
                taken.add(short)
                lfn = _lfn_entries(name, short)
            out.extend(lfn)
            out.append((name, short, flags, child))
        return out

    def place(node, parent_cluster, is_root):
        items = entries_for(node, None if is_root else 0, parent_cluster)
        own = None
        if not is_root:
            size_bytes = len(items) * 32
            own = allocate(bytes(max(size_bytes, 1)))
            items = entries_for(node, own, parent_cluster)
        raw = bytearray()
        for item in items:
            if isinstance(item, bytes):
                raw += item
                continue
            name, short, flags, child = item
            if isinstance(child, _Dir):
                cluster = place(child, own if own is not None else 0, False)
                raw += _entry(short, _ATTR_DIR, cluster, 0, flags)
            else:
                cluster = allocate(child) if child else 0
                raw += _entry(short, _ATTR_ARCHIVE, cluster, len(child), flags)
        if is_root:
            return raw
        start = (own - 2) * SECTOR
        data_area[start : start + len(raw)] = raw
        return own

    root_raw = bytearray(_entry(label.upper().ljust(11)[:11].encode(), _ATTR_LABEL, 0, 0))
    root_raw += place(root, 0, True)
    if len(root_raw) > root_sectors * SECTOR:
        raise FatError("too many entries in the root folder")

    boot = bytearray(SECTOR)
    boot[0:3] = b"\xeb\x3c\x90"
    boot[3:11] = b"MSDOS5.0"
    struct.pack_into(
        "<HBHBHHBHHHII", boot, 11,
        SECTOR, 1, 1, 1, _ROOT_ENTRIES, total, 0xF8, fat_sectors, 63, 255, 0, 0,
    )  # fmt: skip
    boot[36] = 0x80
    boot[38] = 0x29
    boot[39:43] = b"\x5d\x0d\xd0\x00"
    boot[43:54] = label.upper().ljust(11)[:11].encode()
    boot[54:62] = b"FAT12   "
    boot[510:512] = b"\x55\xaa"

    fat_bytes = bytearray(fat_sectors * SECTOR)
    for i in range(0, len(fat) - 1, 2):
        a, b = fat[i], fat[i + 1]
        fat_bytes[i * 3 // 2 : i * 3 // 2 + 3] = bytes(
            (a & 0xFF, (a >> 8) | ((b & 0xF) << 4), b >> 4)
        )
    if len(fat) % 2:
        a = fat[-1]
        j = (len(fat) - 1) * 3 // 2
        fat_bytes[j] = a & 0xFF
        fat_bytes[j + 1] = (fat_bytes[j + 1] & 0xF0) | (a >> 8)

    image = bytearray(size)
    image[0:SECTOR] = boot
    image[SECTOR : SECTOR * (1 + fat_sectors)] = fat_bytes
    root_at = SECTOR * (1 + fat_sectors)
    image[root_at : root_at + len(root_raw)] = root_raw
    data_at = root_at + root_sectors * SECTOR
    image[data_at : data_at + len(data_area)] = data_area
    return bytes(image)


def read_fat12(image):
    """{path: bytes} of every file in a FAT12 image (long names where present)."""
    (bps, spc, reserved, nfats, root_entries, total, _media, fat_size) = struct.unpack_from(
        "<HBHBHHBH", image, 11
    )
    fat_at = reserved * bps
    root_at = fat_at + nfats * fat_size * bps
    data_at = root_at + root_entries * 32
    cluster_bytes = bps * spc

    def next_cluster(c):
        j = fat_at + c * 3 // 2
        v = image[j] | image[j + 1] << 8
        return (v >> 4) if c & 1 else (v & 0xFFF)

    def chain(c):
        out = bytearray()
        while 2 <= c < 0xFF8:
            start = data_at + (c - 2) * cluster_bytes
            out += image[start : start + cluster_bytes]
            c = next_cluster(c)
        return bytes(out)

    files = {}

    def walk(raw, prefix):
        lfn = []
        for i in range(0, len(raw), 32):
            e = raw[i : i + 32]
            if e[0] == 0:
                break
            if e[0] == 0xE5:
                lfn = []
                continue
            if e[11] == _ATTR_LFN:
                chars = struct.unpack("<5H", e[1:11]) + struct.unpack("<6H", e[14:26])
                chars += struct.unpack("<2H", e[28:32])
                lfn.insert(0, chars)
                continue
            short = e[0:11].decode("latin-1")
            if e[11] & _ATTR_LABEL or short.strip() in (".", ".."):
                lfn = []
                continue
            if lfn:
                units = [u for part in lfn for u in part]
                name = "".join(chr(u) for u in units).split("\x00")[0]
            else:
                base, ext = short[:8].rstrip(), short[8:].rstrip()
                if e[12] & 0x08:
                    base = base.lower()
                if e[12] & 0x10:
                    ext = ext.lower()
                name = base + ("." + ext if ext else "")
            lfn = []
            cluster = struct.unpack_from("<H", e, 26)[0]
            size = struct.unpack_from("<I", e, 28)[0]
            if e[11] & _ATTR_DIR:
                walk(chain(cluster), prefix + name + "/")
            else:
                files[prefix + name] = chain(cluster)[:size]

    walk(image[root_at:data_at], "")
    return files
