"""host_sim/flash.py: CircuitPython onto the Pico's boot drive, checked first.

Temporary folders stand in for the RPI-RP2 and CIRCUITPY drives; a fake clock stands in
for the board restarting."""

import hashlib
import struct

import pytest

from host_sim import flash
from host_sim.cli import main as cli_main


def uf2(blocks=3, family=flash.RP2040_FAMILY, flags=flash.UF2_FAMILY_FLAG, payload=b""):
    """A UF2 of 256-byte blocks holding ``payload`` (the rest zeros), written in reverse
    order (UF2 blocks may come in any order: their addresses place them)."""
    blocks = max(blocks, (len(payload) + 255) // 256)
    image = payload.ljust(blocks * 256, b"\0")
    out = b""
    for n in reversed(range(blocks)):
        block = bytearray(512)
        address = 0x10000000 + n * 256
        header = (*flash.UF2_MAGIC[:2], flags, address, 256, n, blocks, family)
        struct.pack_into("<8I", block, 0, *header)
        block[32 : 32 + 256] = image[n * 256 : (n + 1) * 256]
        struct.pack_into("<I", block, 508, flash.UF2_MAGIC[2])
        out += bytes(block)
    return out


def firmware(version="10.2.1", board="Raspberry Pi Pico with rp2040"):
    """A UF2 whose payload holds CircuitPython's banner across a block boundary."""
    text = "Adafruit CircuitPython %s on 2025-11-04; %s" % (version, board)
    return uf2(payload=b"\xff" * 230 + text.encode() + b"\0" + b"\x01" * 300)


def boot_drive(tmp_path):
    drive = tmp_path / "RPI-RP2"
    drive.mkdir()
    (drive / "INFO_UF2.TXT").write_text(
        "UF2 Bootloader v3.0\nModel: Raspberry Pi RP2\nBoard-ID: RPI-RP2\n"
    )
    return drive


class Board:
    """Comes back as CIRCUITPY once a UF2 landed on its boot drive (after ``delay`` s)."""

    def __init__(self, tmp_path, boot, delay=3.0, comes_back=True):
        self.boot, self.t, self.delay, self.comes_back = boot, 0.0, delay, comes_back
        self.circuitpy = tmp_path / "CIRCUITPY"
        self.took_at = None

    def now(self):
        return self.t

    def sleep(self, seconds):
        self.t += seconds
        if self.took_at is None and list(self.boot.glob("*.uf2")):
            self.took_at = self.t
        if self.comes_back and self.took_at is not None and self.t >= self.took_at + self.delay:
            self.circuitpy.mkdir(exist_ok=True)
            (self.circuitpy / "boot_out.txt").write_text(
                "Adafruit CircuitPython 10.2.1 on 2025-10-01; Raspberry Pi Pico with rp2040\n"
                "Board ID:raspberry_pi_pico\n"
            )

    def where(self):
        """boarddrive's listing, pointed at the temporary folder (as if Linux mounted there)."""
        return dict(platform="linux", bases=[str(self.boot.parent)])


@pytest.fixture
def pinned(monkeypatch):
    data = uf2()
    monkeypatch.setattr(flash, "PINNED_SHA256", hashlib.sha256(data).hexdigest())
    return data


def _run(tmp_path, data, board, **kw):
    path = tmp_path / flash.PINNED_FILE
    path.write_bytes(data)
    said = []
    where = board.where()
    result = flash.flash(
        str(path),
        drive=kw.pop("drive", str(board.boot)),
        say=said.append,
        where=where,
        sleep=board.sleep,
        now=board.now,
        **kw,
    )
    return result, said


def test_the_pinned_release_is_copied_and_circuitpy_awaited(tmp_path, pinned):
    board = Board(tmp_path, boot_drive(tmp_path))
    path, said = _run(tmp_path, pinned, board, drive=None)  # both drives found by name
    assert (board.boot / flash.PINNED_FILE).read_bytes() == pinned
    assert path == str(board.circuitpy)
    assert "CircuitPython 10.2.1 is running" in said[-1] and "dev.py deploy" in said[-1]


def test_another_uf2_is_refused_unless_forced(tmp_path, pinned):
    board = Board(tmp_path, boot_drive(tmp_path))
    other = uf2(blocks=4)
    with pytest.raises(flash.FlashError, match="is not the pinned CircuitPython 10.2.1.*--force"):
        _run(tmp_path, other, board)
    assert not list(board.boot.glob("*.uf2"))
    _, said = _run(tmp_path, other, board, force=True)
    assert any("--force" in line for line in said)
    assert (board.boot / flash.PINNED_FILE).read_bytes() == other


def test_without_a_pinned_hash_the_firmwares_banner_names_release_and_board(tmp_path, monkeypatch):
    monkeypatch.setattr(flash, "PINNED_SHA256", None)
    board = Board(tmp_path, boot_drive(tmp_path))
    assert flash.banner(firmware()) == ("10.2.1", "Raspberry Pi Pico with rp2040")
    _, said = _run(tmp_path, firmware(), board)
    assert any("says CircuitPython 10.2.1, Raspberry Pi Pico with rp2040" in s for s in said)
    assert (board.boot / flash.PINNED_FILE).read_bytes() == firmware()


@pytest.mark.parametrize(
    "data, expected",
    [
        (uf2(), "holds no CircuitPython banner"),
        (firmware(version="9.2.9"), "is CircuitPython 9.2.9 for Raspberry Pi Pico with rp2040;"),
        (firmware(board="Raspberry Pi Pico W with rp2040"), "for Raspberry Pi Pico W with"),
    ],
)
def test_without_a_pinned_hash_another_release_only_flashes_forced(
    tmp_path, monkeypatch, data, expected
):
    monkeypatch.setattr(flash, "PINNED_SHA256", None)
    board = Board(tmp_path, boot_drive(tmp_path))
    with pytest.raises(flash.FlashError, match=expected + ".* add --force") as refused:
        _run(tmp_path, data, board)
    # no advice that cannot be followed: circuitpython.org publishes no SHA-256 to compare
    assert "SHA-256" not in str(refused.value) and flash.PINNED_URL in str(refused.value)
    assert not list(board.boot.glob("*.uf2"))
    _, said = _run(tmp_path, data, board, force=True)
    assert any("--force" in line for line in said)


@pytest.mark.parametrize(
    "data, expected",
    [
        (b"not a uf2", "not whole 512-byte blocks"),
        (b"\0" * 1024, "is not a UF2 file"),
        (uf2(family=0xADA52840), "is not for the RP2040"),  # an nRF52840 UF2
        (uf2(flags=0), "is not for the RP2040"),
    ],
)
def test_a_file_that_is_no_rp2040_uf2_is_refused_even_forced(tmp_path, data, expected):
    board = Board(tmp_path, boot_drive(tmp_path))
    with pytest.raises(flash.FlashError, match=expected):
        _run(tmp_path, data, board, force=True)
    assert not list(board.boot.glob("*.uf2"))


def test_the_boot_drive_is_found_by_itself_or_refused(tmp_path, pinned):
    board = Board(tmp_path, boot_drive(tmp_path))
    where = board.where()
    bd = flash._boarddrive()
    assert flash.boot_drive(None, bd, where) == str(board.boot)
    (board.boot / "INFO_UF2.TXT").unlink()
    with pytest.raises(flash.FlashError, match="no RPI-RP2 drive found"):
        flash.boot_drive(None, bd, board.where())
    with pytest.raises(flash.FlashError, match="not the board's boot drive"):
        flash.boot_drive(str(board.boot), bd, where)
    (board.boot / "boot_out.txt").write_text("Adafruit CircuitPython 10.2.1\n")
    with pytest.raises(flash.FlashError, match="is CIRCUITPY: .*hold BOOTSEL"):
        flash.boot_drive(str(board.boot), bd, where)
    (board.boot / "INFO_UF2.TXT").write_text("UF2 Bootloader\nBoard-ID: RP2350\n")
    with pytest.raises(flash.FlashError, match="another chip"):
        flash.boot_drive(str(board.boot), bd, where)


def test_a_board_that_does_not_come_back_times_out_in_one_line(tmp_path, pinned):
    board = Board(tmp_path, boot_drive(tmp_path), comes_back=False)
    with pytest.raises(flash.FlashError, match="did not appear within 60 s") as caught:
        _run(tmp_path, pinned, board)
    assert caught.value.status == 1
    assert board.t >= 60


def test_the_cli_says_where_to_download_without_uf2(capsys):
    assert cli_main(["flash"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and flash.PINNED_URL in err
    assert "dragging that file onto the RPI-RP2 drive yourself is enough" in err
    assert cli_main(["flash", "--uf2", "/no/such.uf2"]) == 2
    assert "cannot read UF2 /no/such.uf2" in capsys.readouterr().err
