"""The code base stays ruff-clean (lint and format), as the style guide asks."""

import os
import subprocess
import sys

from conftest import ROOT

RUFF = os.path.join(os.path.dirname(sys.executable), "ruff")


def test_ruff_check_passes():
    result = subprocess.run([RUFF, "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


def test_ruff_format_is_clean():
    result = subprocess.run(
        [RUFF, "format", "--check", "."], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout
