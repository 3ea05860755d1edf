"""The headless simulator's command line: run, replay, and clear errors for bad input."""

import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT, run_cli

GOLDEN = os.path.join(ROOT, "tests", "golden", "logs")


def test_run_writes_a_log_and_prints_a_one_line_summary(tmp_path):
    log = tmp_path / "m.jsonl"
    result = run_cli("run", "--seed", "1", "--log", str(log))
    assert result.stdout.count("\n") == 1 and "seed 1" in result.stdout
    lines = log.read_text().splitlines()
    assert json.loads(lines[0])["ev"] == "match" and json.loads(lines[-1])["ev"] == "match_end"


def test_run_then_replay_succeeds(tmp_path):
    log = tmp_path / "m.jsonl"
    run_cli("run", "--seed", "1", "--log", str(log))
    result = run_cli("replay", str(log))
    assert "replayed identically" in result.stdout


@pytest.mark.parametrize("name", sorted(os.listdir(GOLDEN)))
def test_every_golden_log_replays_identically(name):
    run_cli("replay", os.path.join(GOLDEN, name))


def test_replay_names_the_first_diverging_line(tmp_path):
    lines = open(os.path.join(GOLDEN, "seed1_hard_vs_easy.jsonl")).read().splitlines()
    k = next(i for i, line in enumerate(lines) if '"ev":"play"' in line)
    event = json.loads(lines[k])
    event["card"] = "KS" if event["card"] != "KS" else "QS"  # not the card that slot held
    lines[k] = json.dumps(event, separators=(",", ":"))
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    result = run_cli("replay", str(bad), check=False)
    assert result.returncode == 1
    assert f"line {k + 1} diverges" in result.stderr


@pytest.mark.parametrize(
    "args,message",
    [
        (["run", "--bogus"], "unrecognized arguments"),
        (["run", "--seed", "abc"], "bad seed"),
        (["run", "--seed", "-3"], "bad seed"),
        (["run", "--seed", str(1 << 30)], "bad seed"),
        (["run", "--p1", "robot"], "bad player"),
        (["run", "--best-of", "4"], "invalid choice"),
        (["run", "--claim", "maybe"], "invalid choice"),
        (["run", "--idle-ms", "5"], "idle_ms must be at least 1000"),
        (["run", "--heap", "lots"], "bad heap size"),
    ],
)
def test_bad_options_get_one_line_and_exit_2(args, message):
    result = run_cli(*args, check=False)
    assert result.returncode == 2
    assert message in result.stderr
    assert result.stderr.strip().count("\n") <= 1 or "usage" in result.stderr


def _write(tmp_path, text):
    path = tmp_path / "log.jsonl"
    path.write_text(text)
    return str(path)


def test_replay_unknown_version_is_refused(tmp_path):
    lines = open(os.path.join(GOLDEN, "seed1_hard_vs_easy.jsonl")).read().splitlines()
    lines[0] = lines[0].replace('"v":1', '"v":3')  # 2 is the other games' (docs/match-log.md)
    result = run_cli("replay", _write(tmp_path, "\n".join(lines) + "\n"), check=False)
    assert result.returncode == 2 and "unknown log version 3" in result.stderr


def test_replay_truncated_log_names_the_line(tmp_path):
    text = open(os.path.join(GOLDEN, "seed1_hard_vs_easy.jsonl")).read()
    result = run_cli("replay", _write(tmp_path, text[: len(text) // 2]), check=False)
    assert result.returncode == 2 and "line" in result.stderr and "truncated" in result.stderr


def test_replay_corrupt_line_is_named(tmp_path):
    lines = open(os.path.join(GOLDEN, "seed1_hard_vs_easy.jsonl")).read().splitlines()
    lines[4] = lines[4][:-5]
    result = run_cli("replay", _write(tmp_path, "\n".join(lines) + "\n"), check=False)
    assert result.returncode == 2 and "line 5 is not valid JSON" in result.stderr


def test_replay_missing_file_is_a_clear_error(tmp_path):
    result = run_cli("replay", str(tmp_path / "nope.jsonl"), check=False)
    assert result.returncode == 2 and "cannot read" in result.stderr


def test_a_failed_run_leaves_no_half_written_log(tmp_path):
    log = tmp_path / "m.jsonl"
    log.write_text("previous content\n")
    script = tmp_path / "s.txt"
    script.write_text("100 0 9\n")
    result = run_cli("run", "--script", str(script), "--log", str(log), check=False)
    assert result.returncode == 2 and "script line 1" in result.stderr
    assert log.read_text() == "previous content\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".speedlog")] == []


def test_screens_are_saved_at_hand_ends_and_snaps(tmp_path):
    run_cli("run", "--seed", "3", "--screens", str(tmp_path), "--snap", "5000")
    names = sorted(p.name for p in tmp_path.iterdir())
    assert "hand1_end_p0.png" in names and "hand1_end_p1.png" in names
    assert "snap_5000_p0.png" in names and "snap_5000_p1.png" in names


def _readme_race_examples():
    """(command args, expected log lines) of the README's "Scripted races" block."""
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    block = text.split("## Scripted races", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    examples = []
    for line in block.strip().splitlines():
        if line.startswith("python3 dev.py run run "):
            examples.append((line.split()[4:], []))
        elif line.startswith("#  {"):
            examples[-1][1].append(line[3:])
    return examples


@pytest.mark.parametrize("args,expected", _readme_race_examples())
def test_readme_scripted_races_print_what_the_readme_says(tmp_path, args, expected):
    args = [str(tmp_path / "x.jsonl") if a.endswith(".jsonl") else a for a in args]
    run_cli("run", *args)
    lines = [_without_keys(line) for line in (tmp_path / "x.jsonl").read_text().splitlines()]
    assert expected and all(line in lines for line in expected)


def _without_keys(line):
    """A log line as the README shows it: without the key record (docs/match-log.md)."""
    obj = json.loads(line)
    obj.pop("keys", None)
    obj.pop("keys_us", None)
    obj.pop("keys_total", None)
    return json.dumps(obj, separators=(",", ":"))


# ---- unusable paths and pipes: one line, exit 2, no traceback (issue 9) ----


def _one_line_exit_2(result, *words):
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("host_sim: error: ")
    assert all(word in result.stderr for word in words), result.stderr


@pytest.mark.parametrize("where", ["no_such_folder/m.jsonl", "a_folder", "a_file/m.jsonl"])
def test_an_unusable_log_path_is_one_line_and_exit_2(tmp_path, where):
    (tmp_path / "a_folder").mkdir()
    (tmp_path / "a_file").write_text("x")
    path = tmp_path / where
    result = run_cli("run", "--seed", "1", "--log", str(path), check=False)
    _one_line_exit_2(result, "log", str(path))
    assert not result.stdout  # refused before the match was played


@pytest.mark.parametrize("where", ["a_file", "a_file/shots"])
def test_an_unusable_screens_folder_is_one_line_and_exit_2(tmp_path, where):
    (tmp_path / "a_file").write_text("x")
    path = tmp_path / where
    result = run_cli("run", "--seed", "3", "--screens", str(path), check=False)
    _one_line_exit_2(result, "screens", str(path))


def test_snap_without_screens_is_refused_and_writes_nothing(tmp_path):
    result = run_cli("run", "--seed", "3", "--snap", "5000", check=False, cwd=tmp_path)
    _one_line_exit_2(result, "--snap", "--screens")
    assert list(tmp_path.iterdir()) == []


def test_replay_of_a_fifo_without_a_writer_does_not_hang(tmp_path):
    fifo = tmp_path / "log.fifo"
    os.mkfifo(fifo)
    result = run_cli("replay", str(fifo), check=False, timeout=60)
    _one_line_exit_2(result, "no writer")


def test_replay_of_a_fifo_with_a_writer_reads_it(tmp_path):
    fifo = tmp_path / "log.fifo"
    os.mkfifo(fifo)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.path.join(ROOT, "lib")]))
    reader = subprocess.Popen(
        [sys.executable, "-m", "host_sim", "replay", str(fifo)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    with open(fifo, "w") as f:  # blocks until the reader has opened it
        f.write(open(os.path.join(GOLDEN, "seed1_hard_vs_easy.jsonl")).read())
    out, err = reader.communicate(timeout=60)
    assert reader.returncode == 0 and "replayed identically" in out, err


@pytest.mark.parametrize("command", ["play", "run"])
def test_output_into_a_closed_pipe_ends_quietly_and_still_writes_the_log(tmp_path, command):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.path.join(ROOT, "lib")]))
    log = tmp_path / "m.jsonl"
    args = [sys.executable, "-m", "host_sim", command, "--seed", "3", "--log", str(log)]
    proc = subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # like `| head -0`: the reader is gone before anything is printed
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0, err
    assert "Traceback" not in err and "BrokenPipe" not in err, err
    assert json.loads(log.read_text().splitlines()[-1])["ev"] == "match_end"  # written whole


def test_an_unreadable_script_is_one_line_and_exit_2(tmp_path):
    fifo = tmp_path / "script.fifo"
    os.mkfifo(fifo)
    result = run_cli("run", "--script", str(fifo), check=False, timeout=60)
    _one_line_exit_2(result, "script", "no writer")
    result = run_cli("run", "--script", str(tmp_path), check=False)
    _one_line_exit_2(result, "script", "directory")
