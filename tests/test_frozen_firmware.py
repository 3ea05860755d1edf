"""Speed Duo's own firmware: firmware/build_uf2.py (``python3 dev.py firmware``), the board's
first-boot drive files (firmware/board/speedduo_pico/board.c), and the UF2 on the emulated Pico.

The build itself takes minutes: these tests check the script's parts and, where
$SPEEDDUO_FROZEN_UF2 names a built UF2 (.ci/run builds it from the kit), run that UF2 on the
emulated Pico: from a blank flash to the menu, a match and its log; over a drive of an older
Speed Duo, keeping the family's settings; and the stock firmware path still plays every game.
"""

import json
import os
import shutil
import struct
import subprocess
import sys

import pytest
from conftest import ROOT, needs_firmware, needs_frozen, run_cli

from host_sim import device_run, flash
from host_sim.fatimage import fat12_image, read_fat12

sys.path.insert(0, os.path.join(ROOT, "firmware"))
import build_uf2  # noqa: E402

sys.path.pop(0)

SMOKE_SCRIPT = os.path.join(ROOT, "tests", "scripts", "device_smoke.txt")


def _build(*args, env_extra=None, home=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SPEEDDUO_", "ARM_GCC"))}
    env["SPEEDDUO_FIRMWARE_CACHE"] = str(home)
    env.update(env_extra or {})
    script = os.path.join(ROOT, "firmware", "build_uf2.py")
    return subprocess.run(
        [sys.executable, script, *args], capture_output=True, text=True, env=env, timeout=60
    )


# ---- the build script's parts ----


def test_without_a_kit_or_a_checkout_the_build_says_so_in_one_line_and_exits_2(tmp_path):
    result = _build(home=tmp_path)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert "--kit DIR" in result.stderr and "--circuitpython DIR" in result.stderr


@pytest.mark.parametrize(
    "kind, files, says",
    [
        ("--kit", [], "expected one circuitpython-*.tar.xz, found 0"),
        ("--kit", ["circuitpython-10.2.1.tar.xz", "arm-none-eabi-14.tar.xz"], "no requirements"),
        ("--circuitpython", [], "not a CircuitPython checkout"),
    ],
)
def test_an_incomplete_source_is_refused_in_one_line(tmp_path, kind, files, says):
    source = tmp_path / "source"
    source.mkdir()
    for name in files:
        (source / name).write_bytes(b"")
    result = _build(kind, str(source), home=tmp_path / "cache")
    assert result.returncode == 1 and says in result.stderr
    assert result.stderr.count("\n") == 1


def test_a_checkout_without_gcc_14_is_refused_by_name(tmp_path):
    checkout = tmp_path / "cp"
    (checkout / "ports" / "raspberrypi").mkdir(parents=True)
    (checkout / "ports" / "raspberrypi" / "Makefile").write_text("")
    (checkout / "lib" / "tinyusb" / "src").mkdir(parents=True)
    gcc = tmp_path / "bin" / "arm-none-eabi-gcc"
    gcc.parent.mkdir()
    gcc.write_text("#!/bin/sh\necho 12.2.1\n")
    gcc.chmod(0o755)
    env = {"ARM_GCC_BIN": str(gcc.parent)}
    result = _build("--circuitpython", str(checkout), env_extra=env, home=tmp_path / "c")
    assert result.returncode == 1 and "is GCC 12: CircuitPython 10 needs GCC >= 14" in result.stderr


def test_the_drive_files_header_holds_the_repositorys_files_byte_for_byte(tmp_path):
    """Compiled with the host's C compiler, drive_files.h gives back code.py, boot.py and
    settings.toml exactly, each with its first line's length and what may replace it."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no host C compiler")
    (tmp_path / "drive_files.h").write_bytes(build_uf2.drive_files_header())
    (tmp_path / "dump.c").write_text(
        "#include <stdio.h>\n#include <stdbool.h>\ntypedef unsigned UINT;\n"
        "typedef struct { const char *path; const char *data; UINT size; UINT first_line_size;"
        " bool replace_other_version; const char *stock; } drive_file_t;\n"
        '#include "drive_files.h"\n'
        "int main(void) { for (unsigned i = 0; i < 3; i++) { const drive_file_t *f = "
        '&speedduo_drive_files[i]; printf("%s %u %u %d %s", f->path, f->size, '
        'f->first_line_size, f->replace_other_version, f->stock ? f->stock : "-\\n"); '
        "fwrite(f->data, 1, f->size, stdout); } return 0; }\n"
    )
    subprocess.run([cc, "-o", str(tmp_path / "dump"), str(tmp_path / "dump.c")], check=True)
    out = subprocess.run([str(tmp_path / "dump")], capture_output=True, check=True).stdout
    for name, replace_other, stock in build_uf2.DRIVE_FILES:
        data = open(os.path.join(ROOT, name), "rb").read()
        first = len(data.split(b"\n", 1)[0]) + 1
        head = b"/%s %d %d %d %s" % (
            name.encode(),
            len(data),
            first,
            replace_other,
            (stock or "-\n").encode(),
        )
        assert out.startswith(head + data), name
        out = out[len(head) + len(data) :]
    assert out == b""


def test_the_input_key_follows_every_frozen_board_and_drive_file(tmp_path, monkeypatch):
    class Source:
        def identity(self):
            return ["kit", "sha"]

    board, frozen = build_uf2.board_files(), build_uf2.frozen_files()
    key = build_uf2.input_key(Source(), board, frozen)
    assert key == build_uf2.input_key(Source(), dict(board), dict(frozen))
    assert "drive_files.h" in board and "game/rules.py" in frozen and "__init__.py" in frozen
    assert not any("__pycache__" in name for name in frozen)
    for changed in (
        (dict(board, **{"mpconfigboard.mk": board["mpconfigboard.mk"] + b"#"}), frozen),
        (board, dict(frozen, **{"game/rules.py": frozen["game/rules.py"] + b"\n"})),
        (dict(board, **{"drive_files.h": b""}), frozen),
    ):
        assert build_uf2.input_key(Source(), *changed) != key


def test_a_synced_folder_keeps_unchanged_files_as_they_were(tmp_path):
    """make rebuilds by mtime: a file whose bytes did not change is not rewritten."""
    assert build_uf2.sync_folder(str(tmp_path), {"a.c": b"1", "d/b.h": b"2"})
    os.utime(tmp_path / "a.c", (1000, 1000))
    assert not build_uf2.sync_folder(str(tmp_path), {"a.c": b"1", "d/b.h": b"2"})
    assert os.path.getmtime(tmp_path / "a.c") == 1000
    assert build_uf2.sync_folder(str(tmp_path), {"a.c": b"1"})
    assert not (tmp_path / "d" / "b.h").exists()


def test_the_links_memory_table_gives_the_flash_and_ram_used():
    log = (
        "Memory region         Used Size  Region Size  %age Used\n"
        "  FLASH_FIRMWARE:      764336 B      1020 KB     73.18%\n"
        "             RAM:       38628 B       256 KB     14.74%\n"
    )
    assert build_uf2.memory_use(log) == {"FLASH_FIRMWARE": 764336, "RAM": 38628}


def _uf2_block(address, family=build_uf2.UF2_FAMILY_RP2040):
    block = bytearray(512)
    struct.pack_into("<8I", block, 0, 0x0A324655, 0x9E5D5157, 0x2000, address, 256, 0, 1, family)
    struct.pack_into("<I", block, 508, 0x0AB16F30)
    return bytes(block)


def test_a_uf2_that_writes_the_nvm_sector_or_the_drive_is_refused(tmp_path):
    """Flashing must keep the family's settings.toml (the drive) and stats (the nvm)."""
    good = tmp_path / "good.uf2"
    good.write_bytes(_uf2_block(0x10000000) + _uf2_block(0x100FEF00))
    build_uf2.check_uf2(str(good))
    for address in (0x100FF000, 0x10100000):
        bad = tmp_path / "bad.uf2"
        bad.write_bytes(_uf2_block(0x10000000) + _uf2_block(address))
        with pytest.raises(build_uf2.BuildError, match="outside the firmware's flash"):
            build_uf2.check_uf2(str(bad))


def test_dev_py_firmware_runs_the_build_with_the_python_it_was_started_with(monkeypatch):
    sys.path.insert(0, ROOT)
    try:
        import dev
    finally:
        sys.path.pop(0)
    calls = []
    monkeypatch.setattr(dev.subprocess, "call", lambda args, **kw: calls.append(args) or 0)
    monkeypatch.setattr(dev, "setup", lambda: (_ for _ in ()).throw(AssertionError("no venv")))
    assert dev.main(["firmware", "--kit", "K"]) == 0
    assert calls == [[sys.executable, os.path.join(ROOT, "firmware", "build_uf2.py"), "--kit", "K"]]


def test_the_frozen_drive_holds_code_py_boot_py_the_runs_settings_and_an_empty_lib():
    files = device_run.frozen_drive_files("SPEED_SEED = 2\n")
    assert [name for name, _ in files] == ["code.py", "boot.py", "settings.toml", "lib/"]
    assert files[0][1] == open(os.path.join(ROOT, "code.py"), "rb").read()
    image = fat12_image(files)  # lib/ is an empty folder on the drive
    assert b"LIB        \x10" in image and set(read_fat12(image)) == {n for n, _ in files[:3]}


# ---- the built UF2 on the emulated Pico ----


@needs_frozen
def test_the_built_uf2_writes_only_the_firmwares_flash_and_says_speed_duo(frozen_uf2):
    build_uf2.check_uf2(frozen_uf2)
    data = open(frozen_uf2, "rb").read()
    assert flash.banner(data) == ("10.2.1", flash.SPEEDDUO_BOARD_NAME)
    assert b"speedduo/loop/board_io.py" in flash.payload(data)  # the game is frozen in


def _drive_after(keep):
    return dict(read_fat12(open(os.path.join(keep, "drive.bin"), "rb").read()))


@needs_frozen
@pytest.mark.timeout(1200)
def test_a_blank_pico_with_the_uf2_boots_into_the_menu_plays_a_match_and_logs_it(
    tmp_path, frozen_uf2
):
    """One file for a family: nothing on the flash but the UF2. CircuitPython formats the
    drive (its sample code.py), the board brings code.py, boot.py and settings.toml, and
    code.py runs the frozen game: the menu, PLAY, a match, its log on the data port."""
    keep, log = tmp_path / "keep", tmp_path / "d.jsonl"
    result = run_cli(
        "device", "--uf2", frozen_uf2, "--blank-flash", "--script", SMOKE_SCRIPT,
        "--matches", "0", "--limit-ms", "9500", "--log", str(log), "--keep", str(keep),
        check=False, timeout=1200,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["ev"] for e in lines[:2]] == ["match", "deal"]  # a seed of its own: any deal
    assert {e["ev"] for e in lines[2:]} & {"play", "reject"}  # the presses reached the match
    drive = _drive_after(keep)
    for name in ("code.py", "boot.py", "settings.toml"):
        assert drive[name] == open(os.path.join(ROOT, name), "rb").read(), name


@needs_frozen
@pytest.mark.timeout(1200)
def test_a_newer_uf2_over_an_older_speed_duo_keeps_settings_and_stats(tmp_path, frozen_uf2):
    """A drive of an older Speed Duo: its code.py is replaced by this version's, the
    family's settings.toml (here: the seed and a short idle) and the owner's own files stay,
    the stats in the nvm are read, and the match plays as on the simulated board."""
    old_code = open(os.path.join(ROOT, "code.py"), "rb").read().split(b"\n", 1)[0] + b"\nold\n"
    settings = b"SPEED_SEED = 2\nSPEED_IDLE_MS = 4000\nSPEED_PROFILE = 1\n"
    drive = tmp_path / "drive"
    (drive / "lib").mkdir(parents=True)
    (drive / "code.py").write_bytes(old_code)
    (drive / "settings.toml").write_bytes(settings)
    (drive / "mine.txt").write_bytes(b"the owner's\n")
    keep, log, board_log = tmp_path / "keep", tmp_path / "d.jsonl", tmp_path / "b.jsonl"
    result = run_cli(
        "device", "--uf2", frozen_uf2, "--drive", str(drive), "--drive-writes",
        "--script", SMOKE_SCRIPT, "--log", str(log), "--keep", str(keep),
        check=False, timeout=1200,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    board = run_cli(
        "board", "--seed", "2", "--idle-ms", "4000", "--script", SMOKE_SCRIPT,
        "--log", str(board_log), check=False,
    )  # fmt: skip
    assert board.returncode == 0, board.stderr
    assert log.read_text() == board_log.read_text()  # the family's seed and idle were read
    after = _drive_after(keep)
    assert after["code.py"] == open(os.path.join(ROOT, "code.py"), "rb").read()
    assert after["boot.py"] == open(os.path.join(ROOT, "boot.py"), "rb").read()
    assert after["settings.toml"] == settings and after["mine.txt"] == b"the owner's\n"


@needs_frozen
@pytest.mark.timeout(1200)
def test_a_code_py_of_the_owners_own_is_left_as_it_is_and_runs(tmp_path, frozen_uf2):
    """Only CircuitPython's sample or a Speed Duo file is ever replaced (board.c): the
    owner's code.py stays and runs (the game does not start); the missing files are brought."""
    mine = b'print("the owner\'s own program")\n'
    drive = tmp_path / "drive"
    drive.mkdir()
    (drive / "code.py").write_bytes(mine)
    keep = tmp_path / "keep"
    result = run_cli(
        "device", "--uf2", frozen_uf2, "--drive", str(drive), "--drive-writes",
        "--matches", "0", "--limit-ms", "4000", "--keep", str(keep), check=False, timeout=1200,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert (keep / "data.bin").read_bytes() == b""  # the game never started
    after = _drive_after(keep)
    assert after["code.py"] == mine
    for name in ("boot.py", "settings.toml"):  # they were missing
        assert after[name] == open(os.path.join(ROOT, name), "rb").read()


def _stock_script(path):
    """PLAY at 6 s, then from 9.1 s both players press 1-5 in turn every 150 ms for 3 s."""
    lines = ["6000000 0 1"]
    for i in range(20):
        lines.append("%d %d %s" % (9100000 + i * 150000, i % 2, "12345"[(i // 2) % 5]))
    path.write_text("\n".join(lines) + "\n")
    return str(path)


@needs_firmware
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("game", ["speed"])
def test_the_stock_firmware_with_the_game_on_the_drive_plays_and_allocates_nothing_per_press(
    tmp_path, game
):
    """The fallback: stock CircuitPython 10.2.1 with lib/speedduo as .py on the drive (no
    renaming build) plays and allocates nothing per press. Classic Speed here; Spit and
    California in test_board_games.py (test_device_a_short_match_of_each_game...)."""
    log, report = tmp_path / "d.jsonl", tmp_path / "r.json"
    result = run_cli(
        "device", "--deploy", "py", "--game", game, "--seed", "2", "--idle-ms", "1500",
        "--script", _stock_script(tmp_path / "s.txt"), "--log", str(log),
        "--report", str(report), check=False, timeout=1800,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in log.read_text().splitlines()]
    assert events[0].get("game", "speed") == game and events[-1]["ev"] == "match_end"
    assert any(e["ev"] in ("play", "cover", "turn") for e in events)
    figures = json.loads(report.read_text())
    print(game, json.dumps(figures, sort_keys=True))
    assert figures["alloc_per_press"] == 0


def test_blank_flash_needs_a_uf2_that_brings_the_drive(tmp_path):
    result = run_cli("device", "--blank-flash", "--deploy", "py", check=False)
    assert result.returncode == 2 and "--blank-flash" in result.stderr


# ---- host_sim flash with Speed Duo's UF2 ----


def test_flash_takes_speed_duos_uf2_by_its_banner_and_says_nothing_is_left_to_deploy(tmp_path):
    from test_flash import Board, _run, boot_drive, firmware

    data = firmware(board=flash.SPEEDDUO_BOARD_NAME)
    board = Board(tmp_path, boot_drive(tmp_path))
    path, said = _run(tmp_path, data, board)
    assert "is Speed Duo's firmware" in said[0]
    assert said[-1].startswith("flash: Speed Duo (CircuitPython 10.2.1) is running")
    assert "deploy" not in said[-1]


@pytest.mark.parametrize("address", [0x100FF000, 0x10100000])
def test_flash_refuses_a_uf2_that_would_erase_the_stats_or_the_drive(tmp_path, address):
    from test_flash import firmware

    data = bytearray(firmware(board=flash.SPEEDDUO_BOARD_NAME))
    struct.pack_into("<I", data, 12, address)  # the first block lands there
    with pytest.raises(flash.FlashError, match="erase the family's settings and stats"):
        flash.check_uf2(bytes(data), "x.uf2")
