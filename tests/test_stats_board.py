"""Stats through the whole board program: code.py on the shims, ``--nvm FILE``, power cuts."""

import json
import os

import pytest
from conftest import run_cli
from microcontroller import ByteArray
from runner import Simulation
from speedduo.game.rules import Rules
from speedduo.host.stats import Stats

PLAY_US = 1000000  # the script presses PLAY here (µs since power-on)


@pytest.fixture(scope="module")
def match_script(tmp_path_factory):
    """A script that plays seed 2's hard-vs-easy match through the menu, and its log.

    The key events of a simulated match, moved to after a PLAY press: the board,
    with SPEED_SEED=2, plays the same match (Player 1 wins 2-0)."""
    sim = Simulation(2, Rules(), 3, ["bot:hard", "bot:easy"])
    lines = []
    sim.run(lines.append)
    out = [f"{PLAY_US} 0 1"]
    for line in lines:
        for t_us, key, pressed in json.loads(line).get("keys_us", []):  # the PIO's, as the board
            if key >= 0:
                state = "down" if pressed else "up"
                out.append(f"{PLAY_US + t_us} {key // 7} {'L12345R'[key % 7]} {state}")
    path = tmp_path_factory.mktemp("script") / "match.txt"
    path.write_text("\n".join(out) + "\n")
    return str(path)


def board(script, nvm, *extra, vm="cpython"):
    command = ["board", "--seed", "2", "--script", script, "--nvm", str(nvm), "--vm", vm]
    return run_cli(*command, *extra, check=False)


def stats_in(path):
    nvm = ByteArray()
    nvm.load(path.read_bytes())
    return Stats(nvm)


def writes(output):
    """[(start_ms, end_ms)] of the nvm writes a run reported."""
    out = []
    for line in output.splitlines():
        if line.startswith("nvm: write at "):
            t0, t1 = line.split()[3].split("-")
            out.append((float(t0), float(t1)))
    return out


def test_a_match_writes_stats_a_power_cut_keeps_them_and_the_next_boot_reads_them(
    tmp_path, match_script
):
    nvm = tmp_path / "stats.nvm"
    first = board(match_script, nvm)
    assert first.returncode == 0, first.stderr
    assert "winner 0 2-0" in first.stdout and len(writes(first.stdout)) == 1
    stats = stats_in(nvm)
    assert stats.store.seq == 1 and stats.totals(0) == (1, 2)
    assert stats.player(0, 0)[0] == 1 and stats.player(0, 0)[3:] == (1, 1)
    assert stats.player(0, 0)[2] > 0 and stats.player(0, 1)[:3] == (0, 0, 0)

    # the power goes in the middle of the next match's save (0.4 ms: one page)
    ((t0, t1),) = writes(first.stdout)
    cut = board(match_script, nvm, "--power-cut-ms", "%.3f" % ((t0 + t1) / 2))
    assert cut.returncode == 0, cut.stderr
    assert "power cut at" in cut.stdout
    assert "board console: stats: record 1 read from nvm" in cut.stdout
    assert stats_in(nvm).summary() == stats.summary()  # the old record: the new one is torn

    # the next boot reads record 1 back and adds the match (the torn slot: one erase)
    third = board(match_script, nvm)
    assert third.returncode == 0, third.stderr
    assert "board console: stats: record 1 read from nvm" in third.stdout
    ((w0, w1),) = writes(third.stdout)
    assert w1 - w0 > 45  # the sector erase
    after = stats_in(nvm)
    assert after.store.seq == 2 and after.totals(0) == (2, 4)
    assert after.player(0, 0)[0] == 2 and after.player(0, 0)[3:] == (2, 2)


def test_a_cut_before_the_save_changes_nothing_and_a_cut_in_an_erase_reads_empty(
    tmp_path, match_script
):
    nvm = tmp_path / "stats.nvm"
    assert board(match_script, nvm).returncode == 0
    before = nvm.read_bytes()
    mid_match = board(match_script, nvm, "--power-cut-ms", "20000")
    assert mid_match.returncode == 0 and "0 match(es)" in mid_match.stdout
    assert nvm.read_bytes() == before
    # fill the ring so that the next save erases the sector, then cut in that erase
    image = bytearray(before)
    image[128:] = b"\x00" * (4096 - 128)
    nvm.write_bytes(bytes(image))
    erase = board(match_script, nvm)
    ((t0, t1),) = writes(erase.stdout)
    nvm.write_bytes(bytes(image))
    cut = board(match_script, nvm, "--power-cut-ms", "%.3f" % (t0 + 20))
    assert "power cut at" in cut.stdout
    stats = stats_in(nvm)
    assert not stats.loaded and stats.totals(0) == (0, 0)  # lost, never garbage


def test_the_stats_screen_shows_the_numbers_and_l_r_held_3_s_resets_them(tmp_path, match_script):
    """STATS from the menu (L three times from PLAY), Player 2 holds L+R for 3.5 s, 3 goes
    back to the menu, R three times to PLAY and the match is played: reset then the match,
    saved."""
    nvm = tmp_path / "stats.nvm"
    assert board(match_script, nvm).returncode == 0
    menu = ["1000000 0 L", "1200000 0 L", "1300000 0 L", "1500000 0 1"]
    menu += ["2500000 1 L down", "2500000 1 R down", "6000000 1 L up", "6000000 1 R up"]
    menu += ["7000000 0 3", "7300000 0 R", "7400000 0 R", "7500000 0 R"]
    moved = []
    for line in open(match_script).read().splitlines():
        t, rest = line.split(" ", 1)
        moved.append(f"{int(t) + 7000000} {rest}")
    script = tmp_path / "stats_then_match.txt"
    script.write_text("\n".join(menu + moved) + "\n")
    shots = tmp_path / "shots"
    snaps = ["--snap", "2000", "--snap", "4000", "--snap", "6500", "--snap", "7200"]
    result = board(str(script), nvm, "--screens", str(shots), *snaps)
    assert result.returncode == 0, result.stderr
    (r0, r1), (m0, _) = writes(result.stdout)
    last_press_ms = max(int(line.split()[0]) for line in moved) / 1000
    assert abs(r0 - 5500) < 100  # the reset 3 s after both went down
    assert m0 > last_press_ms  # the match's, once it is over
    stats = stats_in(nvm)
    assert stats.store.seq == 3 and stats.totals(0) == (1, 2)
    assert stats.player(0, 0)[3:] == (1, 1)  # the run started again from the reset
    pictures = {name: (shots / name).read_bytes() for name in os.listdir(shots)}
    assert len(pictures) == 8
    for p in (0, 1):  # stats, counting down, reset, the menu: four different screens
        assert len({pictures[f"snap_{t}_p{p}.png"] for t in (2000, 4000, 6500, 7200)}) == 4


def test_the_micropython_vm_keeps_stats_too(tmp_path, match_script):
    """A whole match in the VM. Its heap holds the simulator too (the parsed script, the
    shims, the nvm shim's 4 KB of flash, which is no heap on a board), its 64-bit objects
    are about twice the board's, and a big block can fail by fragmentation: the board
    program's default VM heap (1M) is used; the board's own memory is measured on
    CircuitPython itself (docs/device.md)."""
    nvm = tmp_path / "stats.nvm"
    result = board(match_script, nvm, vm="micropython")
    assert result.returncode == 0, result.stderr
    assert stats_in(nvm).totals(0) == (1, 2)


@pytest.mark.parametrize(
    "content, message",
    [(b"\xff" * 100, "100 bytes, an nvm image has 4096"), (None, "no folder")],
)
def test_a_bad_nvm_file_is_one_line_and_exit_2(tmp_path, match_script, content, message):
    if content is None:
        nvm = tmp_path / "missing" / "stats.nvm"
    else:
        nvm = tmp_path / "stats.nvm"
        nvm.write_bytes(content)
    result = board(match_script, nvm)
    assert result.returncode == 2 and message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    if content is not None:
        assert nvm.read_bytes() == content
