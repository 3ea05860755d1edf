"""`python3 dev.py bundle`: the drive's files in a zip, for a parent without Python.

The zip is unpacked onto a fresh folder standing in for CIRCUITPY and the board program
runs from it: on the shims (``board --drive``) and, where the firmware files are, on
CircuitPython 10.2.1 itself (``device --drive``; docs/device.md).
"""

import json
import os
import subprocess
import sys
import zipfile

import pytest
from conftest import ROOT, run_cli

sys.path.insert(0, os.path.join(ROOT, "firmware"))
import bundle  # noqa: E402
import deploy as dp  # noqa: E402

from host_sim import device_run  # noqa: E402

SMOKE_SCRIPT = os.path.join(ROOT, "tests", "scripts", "device_smoke.txt")
HAVE_FIRMWARE = all(
    os.path.isfile(os.path.join(device_run.firmware_dir(), name))
    for name in device_run.FIRMWARE_FILES
)


def unpack(zip_path, drive):
    """What a parent does: the zip's CIRCUITPY folder copied onto an empty drive."""
    prefix = bundle.DRIVE_FOLDER + "/"
    with zipfile.ZipFile(zip_path) as z:
        for name in z.namelist():
            if name.startswith(prefix) and not name.endswith("/"):
                target = drive / name[len(prefix) :]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(z.read(name))
    return drive


def test_the_bundle_holds_exactly_the_drives_files_and_how_to_copy_them(tmp_path):
    out = tmp_path / "b.zip"
    bundle.write_bundle(str(out), mpy_cross="", say=lambda text: None)
    with zipfile.ZipFile(out) as z:
        names = set(z.namelist())
        how_to = z.read(bundle.HOW_TO).decode()
        code = z.read("CIRCUITPY/code.py")
    lib = os.path.join(ROOT, "lib", "speedduo")
    expected = {"CIRCUITPY/" + name for name in ("code.py", "boot.py", "settings.toml")}
    expected |= {"CIRCUITPY/lib/speedduo/" + n for n in dp.board_modules(lib)}
    assert names == expected | {bundle.HOW_TO}
    assert code == open(os.path.join(ROOT, "code.py"), "rb").read()  # plain, no loader line
    assert "drag it onto RPI-RP2" in how_to and "CIRCUITPY drive" in how_to
    assert dp.CIRCUITPYTHON_PAGE in how_to and "10.2.1" in how_to


def test_the_same_files_give_the_same_zip(tmp_path):
    first, second = tmp_path / "1.zip", tmp_path / "2.zip"
    for out in (first, second):
        bundle.write_bundle(str(out), mpy_cross="", say=lambda text: None)
    assert first.read_bytes() == second.read_bytes()


def test_dev_py_bundle_needs_no_venv(tmp_path):
    """A bare interpreter (-I -S: no site-packages, no environment) writes the bundle."""
    out = tmp_path / "b.zip"
    run = subprocess.run(
        [sys.executable, "-I", "-S", os.path.join(ROOT, "dev.py"), "bundle"]
        + ["--out", str(out), "--mpy-cross", ""],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": os.defpath},
    )
    assert run.returncode == 0, run.stderr
    assert "library as .py source" in run.stdout and zipfile.is_zipfile(out)


def test_an_unwritable_bundle_path_is_one_line_and_exit_2(tmp_path, capsys):
    assert bundle.main(["--out", str(tmp_path / "missing" / "b.zip"), "--mpy-cross", ""]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bundle: cannot write") and err.count("\n") == 1


def _playable(drive):
    """The parent's own settings: a fixed deal and a short idle time, so a match ends."""
    settings = drive / "settings.toml"
    settings.write_bytes(settings.read_bytes() + b"SPEED_SEED = 2\n")
    text = settings.read_text().replace("SPEED_IDLE_MS = 60000", "SPEED_IDLE_MS = 4000")
    settings.write_text(text)
    return drive


def test_the_board_program_runs_from_the_unpacked_bundle(tmp_path):
    out = tmp_path / "b.zip"
    bundle.write_bundle(str(out), mpy_cross="", say=lambda text: None)
    drive = _playable(unpack(out, tmp_path / "CIRCUITPY"))
    log = tmp_path / "b.jsonl"
    run = run_cli("board", "--drive", str(drive), "--script", SMOKE_SCRIPT, "--log", str(log))
    assert run.returncode == 0, run.stderr
    events = [json.loads(line) for line in log.read_text().splitlines()]
    assert events[0]["seed"] == 2 and events[-1]["ev"] == "match_end"


def test_the_board_program_imports_the_drives_library_not_the_repositorys(tmp_path):
    out = tmp_path / "b.zip"
    bundle.write_bundle(str(out), mpy_cross="", say=lambda text: None)
    drive = unpack(out, tmp_path / "CIRCUITPY")
    (drive / "lib" / "speedduo" / "vocab" / "ticks.py").unlink()  # a drive missing one module
    run = run_cli("board", "--drive", str(drive), "--script", SMOKE_SCRIPT, check=False)
    assert run.returncode != 0 and "ticks" in run.stderr


@pytest.mark.skipif(not HAVE_FIRMWARE, reason="no firmware.uf2/bootrom.bin (docs/device.md)")
@pytest.mark.timeout(1800)
def test_the_unpacked_bundle_plays_on_circuitpython(tmp_path):
    """The .mpy bundle (with the firmware's own mpy-cross, when it is there) on 10.2.1."""
    mpy_cross = os.path.join(device_run.firmware_dir(), "mpy-cross")
    out = tmp_path / "b.zip"
    entries = bundle.write_bundle(
        str(out), mpy_cross=mpy_cross if os.path.isfile(mpy_cross) else "", say=lambda t: None
    )
    if os.path.isfile(mpy_cross):
        assert "CIRCUITPY/lib/speedduo/loop/board_io.mpy" in dict(entries)
    drive = _playable(unpack(out, tmp_path / "CIRCUITPY"))
    log = tmp_path / "d.jsonl"
    run = run_cli(
        "device", "--drive", str(drive), "--script", SMOKE_SCRIPT, "--log", str(log),
        check=False, timeout=1800,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    events = [json.loads(line) for line in log.read_text().splitlines()]
    assert events[0]["seed"] == 2 and events[-1]["ev"] == "match_end"


def _uf2(blocks=2):
    """A stand-in UF2: blocks of 512 bytes that start with the format's magic words."""
    return (bundle.UF2_MAGIC + bytes(504)) * blocks


def test_with_a_uf2_the_bundle_holds_it_and_the_drive_no_library(tmp_path):
    firmware = tmp_path / "speedduo.uf2"
    firmware.write_bytes(_uf2())
    out = tmp_path / "b.zip"
    assert bundle.main(["--out", str(out), "--uf2", str(firmware)]) == 0
    with zipfile.ZipFile(out) as z:
        names = set(z.namelist())
        assert z.read(bundle.UF2_NAME) == _uf2()
        how_to = z.read(bundle.HOW_TO).decode()
    drive = {"CIRCUITPY/" + name for name in ("code.py", "boot.py", "settings.toml")}
    assert names == drive | {bundle.UF2_NAME, bundle.HOW_TO}
    assert "Drag speedduo.uf2 onto it" in how_to and "delete it" in how_to


@pytest.mark.parametrize("content", [b"", b"not a uf2" * 100, _uf2()[:-1]])
def test_a_file_that_is_not_a_uf2_is_refused_in_one_line(tmp_path, capsys, content):
    firmware = tmp_path / "x.uf2"
    firmware.write_bytes(content)
    out = tmp_path / "b.zip"
    assert bundle.main(["--out", str(out), "--uf2", str(firmware)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a UF2 firmware file" in err
    assert not out.exists()
    assert bundle.main(["--out", str(out), "--uf2", str(tmp_path / "missing.uf2")]) == 2
    assert "missing.uf2" in capsys.readouterr().err
