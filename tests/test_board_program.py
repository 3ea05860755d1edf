"""The whole board program: code.py -> board_io -> App, on the shims, in both VMs."""

import json
import os
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT
from referee import Referee
from runner import Simulation
from script import parse_script
from speedduo.game.rules import Rules
from speedduo.log.matchlog import EV_REJECT
from speedduo.loop.settings import Settings, settings_names

VENV_BIN = os.path.dirname(sys.executable)


def _board_run(interpreter, tmp_path, script="tests/scripts/board_menu_then_tie.txt"):
    env = dict(os.environ, SPEED_SEED="2", SPEED_IDLE_MS="6000")
    command = [*interpreter, os.path.join(ROOT, "host_sim", "board_run.py"), ROOT]
    result = subprocess.run(
        [*command, "200", "1", os.path.join(ROOT, script)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def test_board_program_runs_identically_under_cpython_and_micropython(tmp_path):
    cpython = _board_run([sys.executable], tmp_path)
    micropython = _board_run(
        # the 64-bit VM's objects are about twice the board's: the board's own memory
        # is measured on CircuitPython itself (docs/device.md)
        [os.path.join(VENV_BIN, "micropython"), "-X", "heapsize=512K"],
        tmp_path,
    )
    assert cpython == micropython
    # the data port's lines, each with its seq after a tab (docs/link.md); the rest is
    # what the board prints (its console: "stats: saved record 1") and the runner's "#" lines
    log = [line.rpartition("\t")[0] for line in cpython if line.startswith("{")]
    Referee().check_log(log)
    plays = [json.loads(line) for line in log if '"tie"' in line]
    assert [e["tie"] for e in plays] == [
        "won",
        "lost",
    ]  # the scripted tie went through the board loop
    panels = [line for line in cpython if line.startswith("# panel")]
    assert len(panels) == 2 and all(int(line.split()[-2]) > 1024 for line in panels)


def test_board_code_type_checks_against_the_circuitpython_stubs():
    mypy = shutil.which("mypy", path=VENV_BIN)
    files = ["code.py", "boot.py", "lib/speedduo/loop/board_io.py", "lib/speedduo/loop/keys.py"]
    result = subprocess.run(
        [mypy, "--check-untyped-defs", "--ignore-missing-imports", "--no-error-summary", *files],
        cwd=ROOT,
        env=dict(os.environ, MYPYPATH=os.path.join(ROOT, "lib")),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout


class _ScreensSpy:
    def __init__(self):
        self.moments = []

    def show_overflow(self, now):
        self.moments.append(("overflow", now))

    def event(self, kind, p, why, t, now):
        if kind == EV_REJECT:
            self.moments.append(("refused", p, why))

    def refresh(self, hand, match, now):
        pass


def test_app_shows_refusals_and_a_keypad_overflow_on_the_screens():
    mash = []
    for i in range(100):
        for k in "12345":
            t = 200000 + i * 2000
            mash.append(f"{t} 0 {k} down\n{t + 1000} 0 {k} up\n")
    spy = _ScreensSpy()
    sim = Simulation(
        2,
        Rules(idle_ms=6000),
        3,
        ["none", "none"],
        parse_script("".join(mash)),
        screens=spy,
        loop_us=30000,
        keys="keypad",  # its queue overflows (the PIO's FIFO: late, never lost)
    )
    sim.run(lambda line: None)
    kinds = {m[0] for m in spy.moments}
    assert "overflow" in kinds and "refused" in kinds


def test_settings_choose_rules_and_best_of():
    settings = {
        "SPEED_PENALTY": 1,
        "SPEED_CLAIM": "race",
        "SPEED_RACE_WINDOW_MS": 250,
        "SPEED_BEST_OF": 5,
    }
    chosen = Settings(settings.get, list(settings))
    rules = chosen.rules
    assert rules.penalty is True and rules.claim_mode == 2 and rules.race_window_ms == 250
    assert chosen.best_of == 5
    assert chosen.problems == [] and chosen.unknown == []


@pytest.mark.parametrize(
    "name,value,allowed",
    [
        ("SPEED_PENALTY", 2, "0 or 1"),
        ("SPEED_CLAIM", "often", "must be one of off, simple, race"),
        ("SPEED_IDLE_MS", "soon", "a whole number"),
        ("SPEED_BEST_OF", 4, "3, 5 or 7"),
        ("SPEED_I2C_FREQUENCY", 5000000, "100000..1000000"),
    ],
)
def test_a_bad_setting_is_named_with_what_is_allowed_and_its_default_used(name, value, allowed):
    chosen = Settings({name: value}.get, [name])
    assert chosen.problems == [(name, allowed)]
    defaults = Settings({}.get)
    assert chosen.rules.as_pairs() == defaults.rules.as_pairs()
    assert (chosen.best_of, chosen.i2c_frequency) == (defaults.best_of, defaults.i2c_frequency)
    lines = chosen.report_lines(21)
    assert lines[0] == name and all(len(line) <= 21 for line in lines)


def test_an_unknown_speed_setting_is_named_as_a_warning(tmp_path):
    toml = tmp_path / "settings.toml"
    toml.write_text(
        '# a comment\nSPEED_PENALTY = 1\nSPEED_PENALTI = 1\nCIRCUITPY_WIFI_SSID = "x"\n'
    )
    names = settings_names(str(toml))
    assert names == ["SPEED_PENALTY", "SPEED_PENALTI", "CIRCUITPY_WIFI_SSID"]
    chosen = Settings({"SPEED_PENALTY": 1, "SPEED_PENALTI": 1}.get, names)
    assert chosen.unknown == ["SPEED_PENALTI"] and chosen.rules.penalty is True
    assert "  unknown: ignored" in chosen.report_lines()
