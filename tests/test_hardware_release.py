"""The release workflow builds the files a family downloads, with the commands it runs.

.github/workflows/release.yml is read as text (its steps' `run:` blocks), and its
"Build the release files" step is run here as it runs on GitHub, into a temporary folder.
"""

import os
import re
import subprocess
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKFLOW = os.path.join(ROOT, ".github", "workflows", "release.yml")
BUILD_STEP = "Build the release files"


def _text() -> str:
    with open(WORKFLOW, encoding="utf-8") as f:
        return f.read()


def _steps() -> dict:
    """{step name: its run block} of the workflow (the subset of YAML it uses)."""
    steps, name, block, indent = {}, None, None, None
    for line in _text().splitlines():
        stripped = line.strip()
        if block is not None:
            if stripped and len(line) - len(line.lstrip()) <= indent:
                steps[name], block = "\n".join(block) + "\n", None
            else:
                block.append(line[indent + 2 :] if stripped else "")
                continue
        found = re.match(r"\s*- name: (.*)$", line)
        if found:
            name = found.group(1).strip()
        found = re.match(r"(\s*)run: \|$", line)
        if found and name:
            block, indent = [], len(found.group(1))
        elif re.match(r"\s*run: (.+)$", line) and name:
            steps[name] = stripped[len("run: ") :] + "\n"
    if block is not None:
        steps[name] = "\n".join(block) + "\n"
    return steps


def _attached(dist) -> list:
    return sorted(os.listdir(dist))


def test_the_release_runs_on_a_version_tag_and_may_write_releases():
    text = _text()
    assert re.search(r"^on:\n  push:\n    tags: \[\"v\*\"\]$", text, re.M)
    assert re.search(r"^permissions:\n  contents: write", text, re.M)


def test_the_publish_step_attaches_everything_the_build_steps_write():
    steps = _steps()
    publish = steps["Publish the release"]
    assert 'gh release create "$GITHUB_REF_NAME" "$DIST"/*' in publish
    for name, run in steps.items():
        if name != "Publish the release" and "cp " in run:
            assert '"$DIST/"' in run, name


def test_the_frozen_firmware_step_runs_only_when_dev_py_has_that_command():
    run = _steps()["The game's own CircuitPython build (when dev.py has `firmware`)"]
    assert run.startswith("if grep -q '\"firmware\"' dev.py; then\n")
    assert "python3 dev.py firmware\n" in run


def test_the_build_step_run_here_makes_the_bundle_and_the_hardware_files(tmp_path):
    """The same commands as on GitHub (no mpy-cross: the bundle then holds .py source)."""
    dist = tmp_path / "dist"
    env = dict(os.environ, DIST=str(dist), GITHUB_REF_NAME="v0.0.0-test", SPEEDDUO_MPY_CROSS="")
    result = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", _steps()[BUILD_STEP]],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert _attached(dist) == [
        "case-door.stl",
        "case-keys.stl",
        "case-lid.stl",
        "case-tray.stl",
        "speedduo-bom.csv",
        "speedduo-bundle.zip",
        "speedduo-cpl.csv",
        "speedduo-gerbers.zip",
        "speedduo-parts.csv",
    ]
    with zipfile.ZipFile(dist / "speedduo-bundle.zip") as bundle:
        names = bundle.namelist()
    assert "COPY-ME.txt" in names and "CIRCUITPY/code.py" in names
    assert any(name.startswith("CIRCUITPY/lib/speedduo/") for name in names)
    for name in _attached(dist):
        assert (dist / name).stat().st_size < 5_000_000, name  # a download, not a clone
