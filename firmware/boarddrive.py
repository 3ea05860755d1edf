"""The board's USB drives: find CIRCUITPY or the RPI-RP2 boot drive, read boot_out.txt.

Standard library only (``firmware/deploy.py`` runs without the venv). The platform and
the listing functions are parameters, so the tests cover Linux, macOS and Windows on
any machine.

- Linux mounts a removable drive at ``/media/$USER/LABEL`` (Debian, Ubuntu) or
  ``/run/media/$USER/LABEL`` (Fedora, Arch), sometimes ``/media/LABEL``;
- macOS at ``/Volumes/LABEL`` (a second one at ``/Volumes/LABEL 1``);
- Windows gives it a drive letter whose volume label is ``LABEL``.
"""

import os
import re
import sys

CIRCUITPY = "CIRCUITPY"
BOOT_DRIVE = "RPI-RP2"  # the RP2040's boot ROM drive (hold BOOTSEL while plugging in)
BOOT_DRIVE_MARK = "INFO_UF2.TXT"  # every UF2 boot drive holds it
BOOT_OUT = "boot_out.txt"  # CircuitPython writes it at every start


def windows_volume_label(root):
    """The volume label of a Windows drive root such as ``E:\\`` ('' when none)."""
    import ctypes

    name = ctypes.create_unicode_buffer(261)
    ok = ctypes.windll.kernel32.GetVolumeInformationW(
        ctypes.c_wchar_p(root), name, len(name), None, None, None, None, 0
    )
    return name.value if ok else ""


def _listdir(path):
    try:
        return sorted(os.listdir(path))
    except OSError:
        return []


def candidates(label, platform=None, listdir=_listdir, user=None, volume_label=None, bases=None):
    """Mount points that may be the drive called ``label`` on ``platform`` (sys.platform).

    ``bases``: the folders Linux mounts drives in (default: the usual ones)."""
    platform = platform or sys.platform
    if platform.startswith("win"):
        label_of = volume_label or windows_volume_label
        roots = ["%s:\\" % chr(c) for c in range(ord("D"), ord("Z") + 1)]
        return [root for root in roots if label_of(root) == label]
    if platform == "darwin":
        return [
            "/Volumes/" + name
            for name in listdir("/Volumes")
            if name == label or re.fullmatch(re.escape(label) + r" \d+", name)
        ]
    user = user or os.environ.get("USER") or os.environ.get("LOGNAME") or ""
    found = []
    for base in bases or ("/media/" + user, "/run/media/" + user, "/media", "/mnt"):
        for name in listdir(base):
            if name == label or re.fullmatch(re.escape(label) + r"\d+", name):
                found.append(base + "/" + name)
    return found


def find(label, mark, isfile=os.path.isfile, **where):
    """Mount points of ``label`` drives that hold the file ``mark``."""
    return [path for path in candidates(label, **where) if isfile(os.path.join(path, mark))]


def find_circuitpy(**where):
    return find(CIRCUITPY, BOOT_OUT, **where)


def find_boot_drive(**where):
    return find(BOOT_DRIVE, BOOT_DRIVE_MARK, **where)


def is_boot_drive(path):
    return os.path.isfile(os.path.join(path, BOOT_DRIVE_MARK))


def parse_boot_out(text):
    """(version, board id) from boot_out.txt: ((10, 2, 1), "raspberry_pi_pico").

    Either is None when the file does not say it."""
    version = None
    match = re.search(r"CircuitPython (\d+)\.(\d+)\.(\d+)", text)
    if match:
        version = tuple(int(part) for part in match.groups())
    board = re.search(r"Board ID:[ \t]*(\S+)", text)  # on its own line only
    return version, board.group(1) if board else None
