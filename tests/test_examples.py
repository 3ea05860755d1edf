"""examples/: the rules core's public API in a program that runs, in both VMs."""

import os
import subprocess
import sys

from conftest import ROOT
from referee import Referee

EXAMPLE = os.path.join(ROOT, "examples", "match_simpletest.py")


def _run(command, env):
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def test_the_simple_match_example_plays_a_legal_match_the_same_in_both_vms():
    lib = os.path.join(ROOT, "lib")
    cpython = _run([sys.executable, EXAMPLE], dict(os.environ, PYTHONPATH=lib))
    micropython = os.path.join(os.path.dirname(sys.executable), "micropython")
    mp = _run([micropython, EXAMPLE], dict(os.environ, MICROPYPATH=lib))
    assert cpython == mp
    Referee().check_log(cpython)
    assert '"ev":"match_end","winner":' in cpython[-1]
