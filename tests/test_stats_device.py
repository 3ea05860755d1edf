"""Stats on CircuitPython itself (rp2040js): the firmware reads the nvm and writes it.

Each test is a device run (minutes): with the firmware files and ``SPEED_DEVICE_LONG=1``
(docs/device.md). The harness emulates the flash chip's erase/program commands for the
nvm sector (plain rp2040js ignores them: a write would read back unchanged).
"""

import pytest
from conftest import needs_long, run_cli
from microcontroller import ByteArray
from runner import Simulation
from speedduo.game.rules import Rules
from speedduo.host.stats import Stats
from speedduo.host.stats_store import SLOT

slow = pytest.mark.timeout(1800)
SMOKE = ["--seed", "2", "--idle-ms", "4000", "--script", "tests/scripts/device_smoke.txt"]


def _stats_image(saves):
    """An nvm image holding ``saves`` records of a simulated match's stats."""
    sim = Simulation(1, Rules(), 3, ["bot:hard", "bot:easy"])
    sim.run(lambda line: None)
    nvm = ByteArray()
    stats = Stats(nvm)
    stats.record(sim.match)
    for _ in range(saves):
        stats.save()
    return nvm.image(), stats.summary()


def _device(tmp_path, image):
    path = tmp_path / "stats.nvm"
    path.write_bytes(image)
    keep = tmp_path / "keep"
    result = run_cli(
        "device", *SMOKE, "--nvm", str(path), "--keep", str(keep), check=False, timeout=1800
    )
    assert result.returncode == 0, result.stderr
    print(result.stdout)
    nvm = ByteArray()
    nvm.load(path.read_bytes())
    return result.stdout, Stats(nvm)


def _summary_but_record(summary):
    return {k: v for k, v in summary.items() if k != "record"}


@needs_long
@slow
def test_the_firmware_reads_the_record_and_appends_the_next_one(tmp_path):
    image, summary = _stats_image(1)
    out, after = _device(tmp_path, image)
    assert "board console: stats: record 1 read from nvm" in out
    # the smoke match stops idle (R17): no hand finished, the numbers are unchanged
    assert after.store.seq == 2 and after.store.slot == 1
    assert _summary_but_record(after.summary()) == _summary_but_record(summary)
    programs = [line for line in out.splitlines() if line.startswith("nvm: program at")]
    assert len(programs) == 1 and "0xff000, 256 bytes" in programs[0]  # slot 1's page
    assert "nvm: erase" not in out


@needs_long
@slow
def test_the_firmware_erases_a_full_ring_and_starts_it_again(tmp_path):
    image, summary = _stats_image(4096 // SLOT)
    out, after = _device(tmp_path, image)
    assert "board console: stats: record 32 read from nvm" in out
    assert after.store.seq == 33 and after.store.slot == 0
    assert _summary_but_record(after.summary()) == _summary_but_record(summary)
    assert sum(1 for line in out.splitlines() if line.startswith("nvm: erase at")) == 1
    assert sum(1 for line in out.splitlines() if line.startswith("nvm: program at")) == 16
