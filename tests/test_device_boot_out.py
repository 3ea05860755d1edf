"""``device --boot-out FILE``: the drive holds the boot_out.txt a first boot wrote, so a run
is a Pico's every-day power-on (CircuitPython waits 1 s before writing a boot_out.txt whose
text differs from the drive's: docs/device.md, "Power-on to the menu"). No device run."""

import argparse

import pytest

from host_sim.device_run import _drive_image, boot_out_of, read_boot_out
from host_sim.fatimage import read_fat12

BOOT_OUT = b"Adafruit CircuitPython 10.2.1 on 2025-01-01; Speed Duo with rp2040\r\nBoard ID:x\r\n"


def _drive(tmp_path, boot_out, files=()):
    folder = tmp_path / "drive"
    folder.mkdir()
    (folder / "code.py").write_text("print('hi')\n")
    for name, data in files:
        (folder / name).write_bytes(data)
    work = tmp_path / "work"
    work.mkdir()
    args = argparse.Namespace(deploy="py")
    settings = str(folder / "settings.toml")
    path = _drive_image(args, [], {}, str(folder), settings, str(work), boot_out)
    with open(path, "rb") as f:
        return read_fat12(f.read())


def test_the_drive_image_holds_the_boot_out_txt_given(tmp_path):
    files = _drive(tmp_path, BOOT_OUT)
    assert files["boot_out.txt"] == BOOT_OUT
    assert files["code.py"] == b"print('hi')\n"


def test_the_boot_out_given_replaces_the_drive_folders_own(tmp_path):
    files = _drive(tmp_path, BOOT_OUT, [("boot_out.txt", b"an older firmware\n")])
    assert files["boot_out.txt"] == BOOT_OUT


def test_without_boot_out_the_drive_has_none_so_every_run_is_a_first_boot(tmp_path):
    assert "boot_out.txt" not in _drive(tmp_path, None)


def test_boot_out_of_reads_the_file_a_saved_drive_holds(tmp_path):
    from host_sim.fatimage import fat12_image

    image = tmp_path / "drive.bin"
    image.write_bytes(fat12_image([("code.py", b""), ("boot_out.txt", BOOT_OUT)]))
    assert boot_out_of(str(image)) == BOOT_OUT
    image.write_bytes(fat12_image([("code.py", b"")]))
    assert boot_out_of(str(image)) is None


def test_a_boot_out_that_is_missing_or_too_big_is_refused_in_one_line(tmp_path):
    with pytest.raises(ValueError, match="--boot-out .*: not a file"):
        read_boot_out(str(tmp_path / "none.txt"))
    big = tmp_path / "big.txt"
    big.write_bytes(b"x" * 5000)
    with pytest.raises(ValueError, match="over 4096 bytes"):
        read_boot_out(str(big))
    assert read_boot_out(None) is None
