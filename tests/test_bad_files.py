"""Files that are not what a command expects: special files and symlinks as outputs, the
user's umask, size limits and non-regular inputs, output paths checked before the run,
and a stopped ``board`` that stops its child. Each is one line and exit 2, and no file
is lost or replaced."""

import os
import signal
import stat
import subprocess
import sys
import time

import pytest
from conftest import ROOT, gone_within, run_cli

from host_sim.logfile import LogError, read_bytes, write_atomically

PLAY_TWICE = os.path.join(ROOT, "tests", "scripts", "board_play_twice.txt")
# one command per way a log is written: run's headless match, play's text view, board
COMMANDS = {
    "run": ["run", "--seed", "1"],
    "play": ["play", "--seed", "1", "--fast"],
    "board": ["board", "--seed", "2", "--idle-ms", "1500", "--script", PLAY_TWICE],
}


def _one_line_exit_2(result, *words):
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1, result.stderr
    assert all(word in result.stderr for word in words), result.stderr


# ---- outputs: written through, never replaced; the user's umask ----


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_log_to_dev_null_is_written_through_and_dev_null_stays_a_device(command):
    result = run_cli(*COMMANDS[command], "--log", os.devnull, check=False)
    assert result.returncode == 0, result.stderr
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_log_to_dev_full_is_refused_in_one_line_and_dev_full_stays_a_device(command):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    result = run_cli(*COMMANDS[command], "--log", "/dev/full", check=False)
    _one_line_exit_2(result, "/dev/full", "No space left")
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_a_log_to_a_fifo_reaches_its_reader_and_the_fifo_stays(tmp_path):
    fifo = tmp_path / "log.fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # the reader is there first
    try:
        write_atomically(str(fifo), ['{"ev":"match"}', '{"ev":"match_end"}'])
        assert os.read(reader, 1000) == b'{"ev":"match"}\n{"ev":"match_end"}\n'
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_a_log_to_a_fifo_without_a_reader_is_refused_not_replaced(tmp_path):
    fifo = tmp_path / "log.fifo"
    os.mkfifo(fifo)
    with pytest.raises(LogError, match="a pipe with no reader"):
        write_atomically(str(fifo), ["{}"])
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_a_log_to_a_symlink_writes_its_target_and_keeps_the_link(tmp_path):
    target = tmp_path / "real.jsonl"
    target.write_text("old\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    result = run_cli("run", "--seed", "1", "--log", str(link))
    assert result.returncode == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text().startswith('{"ev":"match"')


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_new_log_gets_the_users_umask_not_0600(tmp_path, command):
    log = tmp_path / "m.jsonl"
    old = os.umask(0o022)
    try:
        run_cli(*COMMANDS[command], "--log", str(log))
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(log).st_mode) == 0o644


def test_an_nvm_file_gets_the_users_umask_not_0600(tmp_path):
    nvm = tmp_path / "stats.nvm"
    old = os.umask(0o002)
    try:
        run_cli(*COMMANDS["board"], "--nvm", str(nvm))
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(nvm).st_mode) == 0o664


def test_rewriting_a_log_keeps_the_files_own_mode(tmp_path):
    log = tmp_path / "m.jsonl"
    log.write_text("old\n")
    log.chmod(0o640)
    write_atomically(str(log), ["{}"])
    assert stat.S_IMODE(os.stat(log).st_mode) == 0o640 and log.read_text() == "{}\n"


# ---- output paths checked before the run, naming the user's path ----


@pytest.mark.parametrize("command", ["run", "board"])
def test_an_empty_log_path_is_refused_before_the_run(command):
    result = run_cli(*COMMANDS[command], "--log", "", check=False)
    _one_line_exit_2(result, "--log", "empty path")
    assert not result.stdout


@pytest.mark.parametrize("option", ["--log", "--sounds", "--nvm"])
def test_a_board_output_in_a_missing_folder_is_refused_before_the_run(tmp_path, option):
    path = str(tmp_path / "nonexistent" / "x.jsonl")
    result = run_cli(*COMMANDS["board"], option, path, check=False)
    _one_line_exit_2(result, path, "no folder")
    assert not result.stdout  # refused before the board program ran


def test_a_log_that_cannot_be_written_names_the_users_path_not_a_temporary_file(tmp_path):
    path = str(tmp_path / "gone" / "m.jsonl")  # its folder vanished during the run
    with pytest.raises(LogError) as error:
        write_atomically(path, ["{}"])
    assert path in str(error.value) and ".speedlog" not in str(error.value)


# ---- inputs: a size limit each, regular files where one is needed ----


@pytest.mark.parametrize(
    "args, words",
    [
        (["replay", "/dev/zero"], ["/dev/zero", "a device"]),
        (["replay", "/dev/urandom"], ["/dev/urandom", "a device"]),
        (["run", "--script", "/dev/zero"], ["script", "a device"]),
        (["board", "--script", "/dev/zero"], ["script", "a device"]),
    ],
)
def test_a_device_as_input_is_refused_at_once(args, words):
    result = run_cli(*args, check=False, timeout=60)
    _one_line_exit_2(result, *words)


@pytest.mark.parametrize("kind", ["/dev/zero", "fifo", "too big"])
def test_flash_refuses_a_uf2_that_is_not_a_file_or_too_big(tmp_path, kind):
    path = kind
    if kind == "fifo":
        path = str(tmp_path / "fw.uf2")
        os.mkfifo(path)
    elif kind == "too big":
        path = str(tmp_path / "fw.uf2")
        with open(path, "wb") as f:
            f.truncate((32 << 20) + 512)  # sparse: nothing is written
    result = run_cli("flash", "--uf2", path, check=False, timeout=60)
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert path in result.stderr and "Traceback" not in result.stderr


def test_a_log_larger_than_the_limit_is_refused_by_its_size(tmp_path):
    log = tmp_path / "big.jsonl"
    with open(log, "wb") as f:
        f.truncate((32 << 20) + 1)
    result = run_cli("replay", str(log), check=False, timeout=60)
    _one_line_exit_2(result, str(log), "larger than 32 MB")


def test_a_pipe_is_read_no_further_than_one_byte_past_the_limit():
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, b"x" * 100)  # and the writer stays: reading to the end would hang
        with pytest.raises(LogError, match="larger than"):
            read_bytes("/proc/self/fd/%d" % read_end, "log", limit=10)
        assert len(os.read(read_end, 1000)) == 100 - 11
    finally:
        os.close(read_end)
        os.close(write_end)


def test_an_nvm_file_that_is_a_fifo_is_refused(tmp_path):
    fifo = tmp_path / "stats.nvm"
    os.mkfifo(fifo)
    result = run_cli(*COMMANDS["board"], "--nvm", str(fifo), check=False, timeout=60)
    _one_line_exit_2(result, str(fifo), "a pipe")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


# ---- hangs and orphans ----


def test_a_board_step_of_zero_is_refused():
    result = run_cli("board", "--step-us", "0", check=False, timeout=60)
    _one_line_exit_2(result, "--step-us")


def _children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(word) for word in f.read().split()]
    except FileNotFoundError:
        return []


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="needs Linux's /proc")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_to_board_stops_its_board_program_too(signum):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.path.join(ROOT, "lib")]))
    parent = subprocess.Popen(
        [sys.executable, "-m", "host_sim", "board", "--seed", "2"],  # no presses: runs on
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        children = []
        while not children and time.monotonic() < deadline and parent.poll() is None:
            children = _children(parent.pid)
            time.sleep(0.05)  # polling /proc for the child, not timing the behaviour
        assert children, "board_run.py never started"
        parent.send_signal(signum)
        parent.wait(timeout=60)
        # after Ctrl-C the child is sent SIGKILL, not waited for: it goes within moments
        assert gone_within(children, 10), "the board program runs on"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
