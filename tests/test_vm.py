"""The same match under CPython and inside the MicroPython VM gives a byte-identical log."""

import pytest
from conftest import run_cli


@pytest.mark.parametrize(
    "seed,extra",
    [
        (1, []),
        (2, ["--p1", "bot:perfect", "--p2", "bot:perfect", "--same-rank"]),
        (77, ["--penalty", "--bounce-us", "3000", "--phase-us", "500"]),
        (123456, ["--claim", "race", "--pile-redeal", "--best-of", "5"]),
        (1, ["--keys", "keypad"]),
        (3, ["--game", "spit", "--bounce-us", "2000"]),
        (4, ["--game", "california", "--keys", "keypad", "--p1", "bot:perfect"]),
        (5, ["--players", "3"]),
    ],
)
def test_micropython_log_is_identical_to_cpython(tmp_path, seed, extra):
    a = tmp_path / "cpython.jsonl"
    b = tmp_path / "micropython.jsonl"
    run_cli("run", "--seed", str(seed), "--log", str(a), *extra)
    run_cli("run", "--seed", str(seed), "--log", str(b), "--vm", "micropython", *extra)
    assert a.read_bytes() == b.read_bytes()


def test_vm_failure_is_reported_not_hidden(tmp_path):
    result = run_cli(
        "run", "--vm", "micropython", "--heap", "4K", "--log", str(tmp_path / "x"), check=False
    )
    assert result.returncode == 2 and "MicroPython VM failed" in result.stderr
    assert not (tmp_path / "x").exists()
