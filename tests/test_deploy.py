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
    copied = deploy(drive, say=lambda text: None)
    assert copied == len(board_files()) + 1  # + settings.toml
    for _, rel in board_files():
        assert (tmp_path / rel).exists()
    assert deploy(drive, say=lambda text: None) == 0
    assert not list(tmp_path.rglob("*.part"))


def test_deploy_keeps_the_boards_own_settings(tmp_path):
    drive = _drive(tmp_path)
    (tmp_path / "settings.toml").write_text("SPEED_PENALTY = 1\n")
    deploy(drive, say=lambda text: None)
    assert (tmp_path / "settings.toml").read_text() == "SPEED_PENALTY = 1\n"


def test_dry_run_writes_nothing(tmp_path):
    drive = _drive(tmp_path)
    deploy(drive, dry_run=True, say=lambda text: None)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["boot_out.txt"]


def test_a_folder_that_is_not_circuitpy_is_refused(tmp_path):
    with pytest.raises(SystemExit, match="not a CIRCUITPY drive"):
        deploy(str(tmp_path), say=lambda text: None)
    with pytest.raises(SystemExit, match="not a folder"):
        deploy(str(tmp_path / "missing"), say=lambda text: None)


def test_the_board_gets_no_simulator_code():
    assert all(rel in ("code.py", "boot.py") or rel.startswith("lib/") for _, rel in board_files())
    assert not any("host_sim" in src for src, _ in board_files())
