"""firmware/deploy.py: the game onto a CIRCUITPY drive, safely."""

import os
import sys

import pytest
from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "firmware"))
from deploy import board_files, deploy  # noqa: E402


def _drive(tmp_path):
    (tmp_path / "boot_out.txt").write_text("Adafruit CircuitPython 10.1.0\n")
    return str(tmp_path)


def test_deploy_copies_every_board_file_then_nothing_when_unchanged(tmp_path):
    drive = _drive(tmp_path)
    copied = deploy(drive, say=lambda text: None, mpy_cross="")
    assert copied == len(board_files()) + 1  # + settings.toml
    for _, rel in board_files():
        assert (tmp_path / rel).exists()
    assert deploy(drive, say=lambda text: None, mpy_cross="") == 0
    assert not list(tmp_path.rglob("*.part"))


def test_deploy_keeps_the_boards_own_settings(tmp_path):
    drive = _drive(tmp_path)
    (tmp_path / "settings.toml").write_text("SPEED_PENALTY = 1\n")
    deploy(drive, say=lambda text: None, mpy_cross="")
    assert (tmp_path / "settings.toml").read_text() == "SPEED_PENALTY = 1\n"


def test_dry_run_writes_nothing(tmp_path):
    drive = _drive(tmp_path)
    deploy(drive, dry_run=True, say=lambda text: None, mpy_cross="")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["boot_out.txt"]


def test_a_folder_that_is_not_circuitpy_is_refused(tmp_path):
    with pytest.raises(SystemExit, match="not a CIRCUITPY drive"):
        deploy(str(tmp_path), say=lambda text: None, mpy_cross="")
    with pytest.raises(SystemExit, match="not a folder"):
        deploy(str(tmp_path / "missing"), say=lambda text: None, mpy_cross="")


def test_the_board_gets_no_simulator_code():
    assert all(rel in ("code.py", "boot.py") or rel.startswith("lib/") for _, rel in board_files())
    assert not any("host_sim" in src for src, _ in board_files())


def _fake_mpy_cross(tmp_path, header):
    """A stand-in compiler: writes ``header`` + the source to the -o file (or beside it)."""
    path = tmp_path / ("mpy-cross-" + header.hex())
    path.write_text(
        "#!%s\nimport sys\nargs = sys.argv[1:]\nsrc = args[-1]\n"
        "out = args[args.index('-o') + 1] if '-o' in args else src[:-3] + '.mpy'\n"
        "open(out, 'wb').write(%r + open(src, 'rb').read())\n" % (sys.executable, header)
    )
    path.chmod(0o755)
    return str(path)


def test_with_circuitpythons_mpy_cross_the_library_goes_on_as_mpy_and_stale_py_goes(tmp_path):
    drive = tmp_path / "drive"
    drive.mkdir()
    _drive(drive)
    deploy(str(drive), say=lambda text: None, mpy_cross="")
    assert (drive / "lib/speedduo/core.py").exists()
    said = []
    deploy(str(drive), say=said.append, mpy_cross=_fake_mpy_cross(tmp_path, b"C\x06"))
    assert (drive / "lib/speedduo/core.mpy").read_bytes()[:2] == b"C\x06"
    assert not (drive / "lib/speedduo/core.py").exists()  # it would shadow the .mpy
    assert (drive / "code.py").exists() and not (drive / "code.mpy").exists()
    assert any("as CircuitPython .mpy" in line for line in said)


def test_micropythons_mpy_cross_is_refused_and_the_library_ships_as_source(tmp_path):
    drive = tmp_path / "drive"
    drive.mkdir()
    _drive(drive)
    said = []
    deploy(str(drive), say=said.append, mpy_cross=_fake_mpy_cross(tmp_path, b"M\x06"))
    assert (drive / "lib/speedduo/core.py").exists()
    assert not list(drive.rglob("*.mpy"))
    assert any("as .py source" in line and "not CircuitPython" in line for line in said)
