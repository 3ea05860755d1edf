"""dev.py picks the venv's programs where the platform puts them (Windows: Scripts\\*.exe)."""

import importlib.util
import os
import subprocess
import sys

import pytest
from conftest import ROOT


@pytest.fixture
def dev(monkeypatch):
    spec = importlib.util.spec_from_file_location("dev_under_test", os.path.join(ROOT, "dev.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    calls = []
    monkeypatch.setattr(module, "setup", lambda: None)
    monkeypatch.setattr(module, "setup_node", lambda: None)
    monkeypatch.setattr(module.subprocess, "call", lambda cmd, **kw: calls.append(cmd) or 0)
    module.calls = calls
    return module


def _as(monkeypatch, name, platform):
    monkeypatch.setattr(os, "name", name)
    monkeypatch.setattr(sys, "platform", platform)


def test_on_windows_the_venv_programs_are_scripts_exe(dev, monkeypatch):
    _as(monkeypatch, "nt", "win32")
    venv = os.path.join(ROOT, ".venv")
    assert dev.venv_bin() == os.path.join(venv, "Scripts")
    assert dev.venv_tool("python") == os.path.join(venv, "Scripts", "python.exe")
    assert dev.venv_tool("npm") == os.path.join(venv, "Scripts", "npm.exe")
    for command in ("deploy", "run", "play", "test"):
        assert dev.main([command]) == 0
    deploy, run, play, test = dev.calls
    assert deploy[:2] == [
        os.path.join(venv, "Scripts", "python.exe"),
        os.path.join(ROOT, "firmware", "deploy.py"),
    ]
    assert run[0] == play[0] == deploy[0]
    assert test == [deploy[0], "-m", "pytest", "-n", "auto", "--dist", "loadfile"]


def test_elsewhere_they_are_in_bin(dev, monkeypatch):
    _as(monkeypatch, "posix", "linux")
    venv = os.path.join(ROOT, ".venv")
    assert dev.venv_tool("python") == os.path.join(venv, "bin", "python")
    assert dev.main(["deploy", "--dry-run"]) == 0
    assert dev.main(["test", "-k", "x"]) == 0
    deploy, test = dev.calls
    assert deploy == [
        os.path.join(venv, "bin", "python"),
        os.path.join(ROOT, "firmware", "deploy.py"),
        "--dry-run",
    ]
    assert test == [deploy[0], "-m", "pytest", "-n", "auto", "--dist", "loadfile", "-k", "x"]


def test_an_unknown_command_is_refused(dev, capsys):
    assert dev.main(["flash"]) == 2
    assert "unknown command" in capsys.readouterr().err
    assert dev.calls == []


def test_bundle_runs_with_the_python_it_was_started_with_and_sets_up_nothing(dev, monkeypatch):
    def no_setup():
        raise AssertionError("bundle needs no venv")

    monkeypatch.setattr(dev, "setup", no_setup)
    monkeypatch.setattr(dev, "setup_node", no_setup)
    assert dev.main(["bundle", "--out", "x.zip"]) == 0
    assert dev.calls == [
        [sys.executable, os.path.join(ROOT, "firmware", "bundle.py"), "--out", "x.zip"]
    ]


# --- setting up .venv: stopped midway, two at once, a read-only folder (issue 27.6) -------


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    """dev.py with its .venv in ``tmp_path``; making a venv and pip are stand-ins that
    record what was done (``made``: venvs created; ``installed``: pip runs)."""
    spec = importlib.util.spec_from_file_location(
        "dev_setup_under_test", os.path.join(ROOT, "dev.py")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    venv_dir = tmp_path / ".venv"
    monkeypatch.setattr(module, "VENV", str(venv_dir))
    monkeypatch.setattr(module, "STAMP", str(venv_dir / ".requirements.sha256"))
    monkeypatch.setattr(module, "SETUP_LOCK", str(tmp_path / ".venv.lock"), raising=False)
    monkeypatch.setattr(module, "setup_node", lambda: None)
    module.made = []
    module.installed = []
    module.stop_in = None  # "create" or "pip": Ctrl-C there

    class Builder:
        def __init__(self, with_pip, clear):
            assert with_pip and clear  # an unfinished .venv is cleared, not built upon

        def create(self, path):
            module.made.append(path)
            os.makedirs(os.path.join(path, "bin"), exist_ok=True)
            if module.stop_in == "create":
                raise KeyboardInterrupt  # bin/python never written
            open(module.venv_tool("python"), "w").close()

    def run(cmd, **kw):
        module.installed.append(cmd)
        if module.stop_in == "pip":
            raise KeyboardInterrupt
        return subprocess.CompletedProcess(cmd, 0)

    monkeypatch.setattr(module.venv, "EnvBuilder", Builder)
    monkeypatch.setattr(module.subprocess, "run", run)
    monkeypatch.setattr(module.subprocess, "call", lambda cmd, **kw: 0)
    return module


@pytest.mark.parametrize("where", ["create", "pip"])
def test_a_setup_stopped_midway_leaves_a_venv_the_next_one_makes_again(fresh, capsys, where):
    fresh.stop_in = where
    assert fresh.main(["setup"]) == 130
    err = capsys.readouterr().err
    assert err == "dev.py: stopped; the next dev.py makes .venv again\n"
    assert not os.path.exists(fresh.STAMP)  # not whole: no stamp
    fresh.stop_in = None
    assert fresh.main(["setup"]) == 0
    assert "left unfinished (a setup was stopped): making it again" in capsys.readouterr().out
    assert len(fresh.made) == 2 and os.path.exists(fresh.STAMP)
    fresh.made.clear()
    fresh.installed.clear()
    assert fresh.main(["setup"]) == 0  # whole now: nothing done
    assert fresh.made == [] and fresh.installed == []


def test_a_venv_without_its_stamp_is_made_again_not_used(fresh, capsys):
    os.makedirs(os.path.join(fresh.VENV, "bin"))
    open(fresh.venv_tool("python"), "w").close()  # a python, but pip was never installed
    assert fresh.main(["setup"]) == 0
    assert fresh.made == [fresh.VENV] and os.path.exists(fresh.STAMP)


def test_a_second_dev_py_waits_for_the_first_and_uses_its_venv(fresh, capsys):
    import threading

    waiting = threading.Event()
    said = []

    def say(*args, **kw):
        said.append(" ".join(map(str, args)))
        if "waiting for another dev.py" in said[-1]:
            waiting.set()

    fresh.print = say  # (the module's print: its messages)
    results = []
    with fresh._setup_lock():  # the first dev.py, setting up
        second = threading.Thread(target=lambda: results.append(fresh.main(["setup"])))
        second.start()
        assert waiting.wait(60)  # the second one says it waits
        assert fresh.made == []
        fresh._make_venv(fresh._requirements_hash())  # the first one finishes
    second.join(60)
    assert results == [0] and len(fresh.made) == 1  # the second made nothing


def test_a_folder_it_cannot_write_is_one_sentence_not_a_traceback(fresh, capsys, monkeypatch):
    def read_only(*args, **kw):
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(fresh.os, "open", read_only)
    assert fresh.main(["run", "replay", "x.jsonl"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("dev.py: cannot set up .venv in ") and "Read-only file system" in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_a_failed_install_is_one_line_and_the_venv_not_called_whole(fresh, capsys, monkeypatch):
    monkeypatch.setattr(
        fresh.subprocess, "run", lambda cmd, **kw: subprocess.CompletedProcess(cmd, 1)
    )
    assert fresh.main(["setup"]) == 1
    assert capsys.readouterr().err == (
        "dev.py: pip could not install requirements.txt (its message is above)\n"
    )
    assert not os.path.exists(fresh.STAMP)


def test_run_works_in_the_callers_folder_so_relative_paths_are_theirs(tmp_path):
    """`dev.py run replay m.jsonl` reads ./m.jsonl, not the checkout's (for real)."""
    golden = os.path.join(ROOT, "tests", "golden", "logs")
    log = sorted(os.listdir(golden))[0]
    with open(os.path.join(golden, log), "rb") as f:
        (tmp_path / "m.jsonl").write_bytes(f.read())
    result = subprocess.run(
        [sys.executable, os.path.join(ROOT, "dev.py"), "run", "replay", "m.jsonl"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    assert "m.jsonl: " in result.stdout and "replayed identically" in result.stdout


def test_the_suite_runs_a_worker_per_core_unless_told_otherwise(dev):
    assert dev.test_workers([]) == ["-n", "auto", "--dist", "loadfile"]
    assert dev.test_workers(["-k", "rules"]) == ["-n", "auto", "--dist", "loadfile"]
    for own in (["-n", "0"], ["-n1"], ["--numprocesses=2"], ["-p", "no:xdist"]):
        assert dev.test_workers(own) == []
