"""``python -m host_sim flash``: Speed Duo's firmware (or CircuitPython) onto the Pico.

    python -m host_sim flash --uf2 build/speedduo-0.11.0.uf2     # python3 dev.py firmware
    python -m host_sim flash --uf2 adafruit-circuitpython-raspberry_pi_pico-en_US-10.2.1.uf2

Speed Duo's UF2 is CircuitPython 10.2.1 with the game frozen in (docs/firmware.md): on a
blank or stock Pico it brings code.py and boot.py onto the drive itself, so the board boots
into the menu with nothing else to copy; a newer one keeps the drive's settings.toml and
the stats (no UF2 this accepts writes the drive or the nvm sector).

Hold BOOTSEL while plugging the Pico in: it shows a drive named RPI-RP2 (it holds
INFO_UF2.TXT). This checks the UF2 (a UF2 file for the RP2040, and the SHA-256 of the
official CircuitPython release the game is tested on, or while none is pinned the version
and board its banner names; ``--force`` flashes another one),
finds the boot drive (or ``--drive PATH``), copies the file onto it and waits until the
board comes back as CIRCUITPY (``--wait`` seconds). Every refusal is one line, exit 2.

None of it is needed: dragging the UF2 onto RPI-RP2 in a file manager installs
CircuitPython just the same; ``flash`` only checks the file and the drive first.
"""

import hashlib
import os
import re
import struct
import sys
import time

from host_sim import ROOT

PINNED_VERSION = "10.2.1"
PINNED_BOARD = "raspberry_pi_pico"
PINNED_FILE = "adafruit-circuitpython-%s-en_US-%s.uf2" % (PINNED_BOARD, PINNED_VERSION)
PINNED_URL = "https://downloads.circuitpython.org/bin/%s/en_US/%s" % (PINNED_BOARD, PINNED_FILE)
# The SHA-256 of the official PINNED_FILE. Not pinned yet: no SHA-256 published for
# exactly that file was found (searched 2026-11-30: circuitpython.org's data files,
# CircuitPython's issues, web pages, repositories naming the file; the download site
# itself could not be read from here; docs/deploy.md, "Flashing"). Until it is, only
# --force flashes a UF2.
PINNED_SHA256 = None
# Until then, the firmware's own banner, the line its REPL
# prints ("Adafruit CircuitPython 10.2.1 on 2025-01-01; Raspberry Pi Pico with rp2040"),
# read out of the UF2's payload, names the release and board: another version or board
# (a Pico W, an older CircuitPython) is refused unless --force.
PINNED_BOARD_NAME = "Raspberry Pi Pico with rp2040"
# Speed Duo's own build (firmware/board/speedduo_pico, MICROPY_HW_BOARD_NAME + " with rp2040")
SPEEDDUO_BOARD_NAME = "Speed Duo (Raspberry Pi Pico) with rp2040"
# The flash a firmware may write: below microcontroller.nvm's sector and the CIRCUITPY drive
# (CircuitPython's ports/raspberrypi: the drive at 1 MB, the nvm sector 4 KB before it)
FLASH_BASE = 0x10000000
FIRMWARE_END = FLASH_BASE + 0x100000 - 0x1000
_BANNER = re.compile(
    rb"Adafruit CircuitPython ([0-9A-Za-z.+-]{1,40}) on [0-9-]{10}; ([ -~]{1,60}?)\0"
)

UF2_BLOCK = 512
UF2_MAGIC = (0x0A324655, 0x9E5D5157, 0x0AB16F30)  # start 0, start 1, end
UF2_FAMILY_FLAG = 0x00002000
RP2040_FAMILY = 0xE48BFF56
DEFAULT_WAIT_S = 60
# The RP2040 addresses at most 16 MB of flash, and a UF2 block carries 256 bytes of it
# in 512: no UF2 for it is larger than 32 MB (CircuitPython's for the Pico is 1.5 MB).
UF2_LIMIT = 32 << 20


class FlashError(Exception):
    """A refusal or a failure: one line."""

    def __init__(self, message, status=2):
        super().__init__(message)
        self.status = status


def _boarddrive():
    sys.path.insert(0, os.path.join(ROOT, "firmware"))
    try:
        import boarddrive
    finally:
        sys.path.pop(0)
    return boarddrive


def check_uf2(data, name):
    """Refuse anything but a UF2 file whose blocks are all for the RP2040 and all below the
    nvm sector (one that writes the drive or the stats would lose the family's)."""
    if not data or len(data) % UF2_BLOCK:
        raise FlashError("%s is not a UF2 file (not whole 512-byte blocks)" % name)
    for at in range(0, len(data), UF2_BLOCK):
        start0, start1, flags = struct.unpack_from("<3I", data, at)
        family = struct.unpack_from("<I", data, at + 28)[0]
        end = struct.unpack_from("<I", data, at + UF2_BLOCK - 4)[0]
        if (start0, start1, end) != UF2_MAGIC:
            raise FlashError("%s is not a UF2 file (block %d)" % (name, at // UF2_BLOCK))
        if not flags & UF2_FAMILY_FLAG or family != RP2040_FAMILY:
            raise FlashError(
                "%s is not for the RP2040 (UF2 family 0x%08x): the Pico needs %s"
                % (name, family if flags & UF2_FAMILY_FLAG else 0, PINNED_FILE)
            )
        address, size = struct.unpack_from("<2I", data, at + 12)
        if address + min(size, 476) > FIRMWARE_END:
            raise FlashError(
                "%s writes flash at 0x%08x, where the stats and the CIRCUITPY drive live: "
                "it would erase the family's settings and stats" % (name, address)
            )


def payload(data) -> bytes:
    """The bytes a UF2 (checked by check_uf2) writes, in flash-address order."""
    blocks = []
    for at in range(0, len(data), UF2_BLOCK):
        address, size = struct.unpack_from("<2I", data, at + 12)
        blocks.append((address, data[at + 32 : at + 32 + min(size, 476)]))
    blocks.sort()
    return b"".join(chunk for _, chunk in blocks)


def banner(data):
    """(version, board name) from the firmware's banner in a UF2, or None without one."""
    found = _BANNER.search(payload(data))
    if found is None:
        return None
    return found.group(1).decode(), found.group(2).decode()


def is_speedduo(data):
    """Is this Speed Duo's own firmware (the game frozen into CircuitPython 10.2.1)?"""
    return banner(data) == (PINNED_VERSION, SPEEDDUO_BOARD_NAME)


def check_release(data, name, force, say):
    """Speed Duo's own firmware by its banner; else the SHA-256 against the pinned release;
    while none is pinned, the firmware's banner (version and board); --force flashes
    another (and says so)."""
    digest = hashlib.sha256(data).hexdigest()
    if is_speedduo(data):
        say(
            "flash: %s is Speed Duo's firmware (CircuitPython %s, the game in it)"
            % (name, PINNED_VERSION)
        )
        return
    if PINNED_SHA256 == digest:
        say("flash: %s is CircuitPython %s for %s" % (name, PINNED_VERSION, PINNED_BOARD))
        return
    if PINNED_SHA256 is None:
        found = banner(data)
        if found == (PINNED_VERSION, PINNED_BOARD_NAME):
            say(
                "flash: %s says CircuitPython %s, %s (its SHA-256 %s is not checked: none is "
                "pinned in host_sim/flash.py yet)" % (name, found[0], found[1], digest)
            )
            return
        if found is None:
            why = "%s holds no CircuitPython banner (not CircuitPython?)" % name
        else:
            why = "%s is CircuitPython %s for %s; the game is tested on %s for %s" % (
                name,
                found[0],
                found[1],
                PINNED_VERSION,
                PINNED_BOARD_NAME,
            )
    else:
        why = "%s is not the pinned CircuitPython %s for %s (SHA-256 %s)" % (
            name,
            PINNED_VERSION,
            PINNED_BOARD,
            digest,
        )
    if not force:  # no SHA-256 of the release is published anywhere to compare with
        raise FlashError("%s: download %s (or add --force to flash it anyway)" % (why, PINNED_URL))
    say("flash: --force: %s; flashing it anyway" % why)


def boot_drive(drive, boarddrive, where):
    """The RPI-RP2 drive to copy onto (``drive``, else the one plugged in)."""
    if drive:
        info = os.path.join(drive, boarddrive.BOOT_DRIVE_MARK)
        if not os.path.isfile(info):
            if os.path.isfile(os.path.join(drive, boarddrive.BOOT_OUT)):
                raise FlashError(
                    "%s is CIRCUITPY: CircuitPython is already on the board; to install it "
                    "again, hold BOOTSEL while plugging the board in" % drive
                )
            raise FlashError("%s is not the board's boot drive (no INFO_UF2.TXT)" % drive)
        with open(info, errors="replace") as f:
            text = f.read()
        if boarddrive.BOOT_DRIVE not in text:
            raise FlashError(
                "%s is the boot drive of another chip, not the Pico's %s"
                % (drive, boarddrive.BOOT_DRIVE)
            )
        return drive
    found = boarddrive.find_boot_drive(**where)
    if len(found) == 1:
        return found[0]
    if found:
        raise FlashError(
            "%d boot drives (%s): name one with --drive" % (len(found), ", ".join(found))
        )
    running = boarddrive.find_circuitpy(**where)
    hint = " (CircuitPython is running now, as %s)" % running[0] if running else ""
    raise FlashError(
        "no RPI-RP2 drive found%s: unplug the board, hold BOOTSEL while plugging it in, "
        "or name the drive with --drive PATH" % hint
    )


def copy_uf2(data, path):
    """Write the UF2; the board restarts on its last block, so the drive may vanish."""
    try:
        with open(path, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except OSError as error:
        if not os.path.exists(os.path.dirname(path)):
            return  # gone: the board took every block and restarted
        raise FlashError("cannot write %s: %s" % (path, error.strerror or error)) from None


def wait_for_circuitpy(boarddrive, where, wait_s, sleep, now):
    """(path, boot_out version) once CIRCUITPY is back; FlashError after ``wait_s``."""
    deadline = now() + wait_s
    while True:
        for path in boarddrive.find_circuitpy(**where):
            try:
                with open(os.path.join(path, boarddrive.BOOT_OUT), errors="replace") as f:
                    version, _ = boarddrive.parse_boot_out(f.read())
            except OSError:
                continue
            return path, version
        if now() >= deadline:
            raise FlashError(
                "CIRCUITPY did not appear within %d s: unplug the board and plug it in "
                "again; if RPI-RP2 comes back, the board did not take the UF2" % wait_s,
                status=1,
            )
        sleep(0.5)


def flash(uf2, drive=None, force=False, wait_s=DEFAULT_WAIT_S, say=print, where=None, **clock):
    """Check ``uf2``, copy it onto the boot drive, wait for CIRCUITPY. Returns its path."""
    boarddrive = _boarddrive()
    where = where or {}
    if not uf2:
        raise FlashError(
            "give the firmware with --uf2 FILE: Speed Duo's (python3 dev.py firmware), or "
            "download CircuitPython's from %s (dragging that file onto the RPI-RP2 drive "
            "yourself is enough: flash only adds checks)" % PINNED_URL
        )
    from host_sim.logfile import LogError, read_bytes

    try:  # a file only (a FIFO would hang), at most UF2_LIMIT bytes
        data = read_bytes(uf2, "UF2", UF2_LIMIT, regular=True)
    except LogError as error:
        raise FlashError(str(error)) from None
    name = os.path.basename(uf2)
    check_uf2(data, name)
    check_release(data, name, force, say)
    target = boot_drive(drive, boarddrive, where)
    say("flash: copying %s (%d KB) onto %s" % (name, len(data) // 1024, target))
    copy_uf2(data, os.path.join(target, name))
    say("flash: waiting for the board to come back as CIRCUITPY (up to %d s)" % wait_s)
    path, version = wait_for_circuitpy(
        boarddrive,
        where,
        wait_s,
        clock.get("sleep", time.sleep),
        clock.get("now", time.monotonic),
    )
    shown = ".".join(map(str, version)) if version else "CircuitPython"
    if is_speedduo(data):  # it brought code.py and boot.py itself: nothing to deploy
        say("flash: Speed Duo (CircuitPython %s) is running: %s" % (shown, path))
    else:
        say("flash: CircuitPython %s is running: %s; next: python3 dev.py deploy" % (shown, path))
    return path


def add_parser(sub):
    p = sub.add_parser("flash", help="put the firmware on the Pico (through its RPI-RP2 drive)")
    p.add_argument(
        "--uf2",
        help="Speed Duo's UF2 (python3 dev.py firmware) or CircuitPython's (%s)" % PINNED_FILE,
    )
    p.add_argument("--drive", help="the RPI-RP2 boot drive (default: found by its name)")
    p.add_argument("--force", action="store_true", help="flash a UF2 that is not the pinned one")
    p.add_argument("--wait", type=int, default=DEFAULT_WAIT_S, help="seconds to wait for CIRCUITPY")


def run_flash(args):
    try:
        flash(args.uf2, args.drive, args.force, args.wait)
    except FlashError as error:
        print("flash: %s" % error, file=sys.stderr)
        return error.status
    return 0
