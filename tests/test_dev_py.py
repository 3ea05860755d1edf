"""dev.py picks the venv's programs where the platform puts them (Windows: Scripts\\*.exe)."""

import importlib.util
import os
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
    assert test == [deploy[0], "-m", "pytest"]


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
    assert test == [deploy[0], "-m", "pytest", "-k", "x"]


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
