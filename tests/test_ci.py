"""A fork's CI runs the README's test command, and passes where no firmware files are.

``.github/workflows/ci.yml`` runs ``python3 dev.py test`` (the README's first lines) on
every push and pull request with Python 3.11. Without the firmware files (no
$SPEEDDUO_DEVICE_DIR, no ~/.cache/speedduo/device) every scenario on the emulated
CircuitPython must skip, not fail.
"""

import os
import re
import subprocess
import sys

from conftest import ROOT

WORKFLOW = os.path.join(ROOT, ".github", "workflows", "ci.yml")
# the test files with scenarios on the emulated firmware
DEVICE_TESTS = [
    "tests/test_device.py",
    "tests/test_stats_device.py",
    "tests/test_bundle.py",
    "tests/test_frozen_firmware.py",
]


def _readme_test_command():
    with open(os.path.join(ROOT, "README.md")) as f:
        for line in f:
            found = re.match(r"(python3 dev\.py test)\s+#", line)
            if found:
                return found.group(1)
    raise AssertionError("the README names no test command")


def test_the_workflow_runs_the_readmes_test_command_on_push_and_pull_request():
    with open(WORKFLOW) as f:
        text = f.read()
    on = re.search(r"^on:\n((?:  .*\n)+)", text, re.M)
    assert on and {"push:", "pull_request:"} <= set(on.group(1).split())
    assert re.search(r'python-version: "3\.11"', text)
    runs = re.findall(r"^\s+run: (.+)$", text, re.M)
    assert runs == [_readme_test_command()]


def test_device_scenarios_skip_cleanly_without_firmware_files(tmp_path):
    """HOME without ~/.cache/speedduo/device and no $SPEEDDUO_DEVICE_DIR: skips, no failure."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SPEEDDUO_", "SPEED_"))}
    env["HOME"] = str(tmp_path)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rs", *DEVICE_TESTS],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-3000:]
    summary = run.stdout.strip().splitlines()[-1]
    assert "skipped" in summary and "failed" not in summary and "error" not in summary
    assert "no firmware.uf2/bootrom.bin" in run.stdout
