"""firmware/deploy.py: the game onto a CIRCUITPY drive, so that it cannot be bricked.

Temporary folders stand in for the drives. "Runnable" is checked the way CircuitPython
starts: the first of code.txt, code.py, main.py, main.txt that exists must name a
version folder whose files all match its manifest, and every module the game imports
must be in that folder (docs/deploy.md)."""

import ast
import errno
import os
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "firmware"))
import boarddrive  # noqa: E402
import deploy as dp  # noqa: E402

BOOT_OUT = (
    "Adafruit CircuitPython {version} on 2025-10-01; Raspberry Pi Pico with rp2040\n"
    "Board ID:{board}\nUID:E6614C311B4B8E2A\n"
)


def quiet(text):
    pass


def make_drive(path, version="10.2.1", board="raspberry_pi_pico"):
    path.mkdir(parents=True, exist_ok=True)
    (path / "boot_out.txt").write_text(BOOT_OUT.format(version=version, board=board))
    return path


def snapshot(path):
    """{relative path: bytes} of everything under ``path``."""
    out = {}
    for folder, _, names in os.walk(path):
        for name in names:
            full = os.path.join(folder, name)
            with open(full, "rb") as f:
                out[os.path.relpath(full, path)] = f.read()
    return out


def old_pairs(tmp_path):
    """An earlier version: one module more, one module changed, one top-level file more."""
    extra = tmp_path / "src_old"
    extra.mkdir(exist_ok=True)
    (extra / "oldonly.py").write_text("OLD = 1\n")
    (extra / "menu.py").write_text(
        open(os.path.join(ROOT, "lib", "speedduo", "display", "menu.py")).read()
        + "\nOLD_MENU = 1\n"
    )
    (extra / "old_extra.txt").write_text("only the old version has this\n")
    pairs = [
        (str(extra / "menu.py"), rel) if rel == "lib/speedduo/display/menu.py" else (src, rel)
        for src, rel in dp.board_files()
    ]
    return pairs + [
        (str(extra / "oldonly.py"), "lib/speedduo/oldonly.py"),
        (str(extra / "old_extra.txt"), "old_extra.txt"),
    ]


_IMPORTS = {}


def _imports(source):
    if source in _IMPORTS:
        return _IMPORTS[source]
    names = _IMPORTS[source] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
            names.extend(node.module + "." + alias.name for alias in node.names)
    return names


def runnable(drive):
    """(version name, {file in its folder}) of the game CircuitPython would start."""
    for entry in dp.ENTRY_FILES:
        if (drive / entry).exists():
            break
    else:
        raise AssertionError("no entry file: CircuitPython would start nothing")
    code = (drive / entry).read_bytes()
    name = dp.loader_version(code)
    assert name, f"{entry} is not the game's"
    folder = drive / dp.GAME_DIR / name
    entries = dp.read_manifest(str(drive), name)
    assert entries, f"{folder} has no readable manifest"
    inside = [e for e in entries if e[0].startswith(f"{dp.GAME_DIR}/{name}/")]
    assert dp.verify(str(drive), inside) is None, f"{folder} is incomplete"
    compile(code, entry, "exec")
    todo, seen = list(_imports(code.decode())), set()
    while todo:  # every module reachable from the entry file is in the folder
        module = todo.pop()
        if module in seen or not module.startswith("speedduo"):
            continue
        seen.add(module)
        base = folder / module.replace(".", "/")
        found = [p for p in (base.with_suffix(".py"), base / "__init__.py") if p.exists()]
        if not found:
            parent = base.parent  # from X import name: X's file (or package) holds it
            holders = (parent.with_suffix(".py"), parent.with_suffix(".mpy"))
            holders += (parent / "__init__.py", parent / "__init__.mpy")
            is_name = any(holder.exists() for holder in holders)
            assert is_name or base.with_suffix(".mpy").exists(), f"{module} missing"
            continue
        todo += _imports(found[0].read_text())
    assert "speedduo.loop.board_io" in seen
    files = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    return name, files - {dp.MANIFEST}


def deployed(tmp_path, pairs=None):
    """A drive holding one deployed version, plus the family's own files."""
    drive = make_drive(tmp_path / "drive")
    (drive / "notes.txt").write_text("the family's\n")
    (drive / "lib").mkdir()
    (drive / "lib" / "family_lib.py").write_text("X = 1\n")
    dp.deploy(str(drive), say=quiet, mpy_cross="", pairs=pairs)
    (drive / "settings.toml").write_text("SPEED_PENALTY = 1\n")
    return drive


# --- copying -------------------------------------------------------------------------


def test_a_fresh_drive_gets_the_game_then_nothing_when_unchanged(tmp_path):
    drive = make_drive(tmp_path / "d")
    (drive / "code.py").write_text('print("Hello World!")\n')
    said = []
    written = dp.deploy(str(drive), say=said.append, mpy_cross="")
    name, files = runnable(drive)
    assert written == len(dp.Release(dp.board_files(), "py").game) + 2  # + manifest, boot.py
    assert "speedduo/loop/board_io.py" in files and "speedduo/vocab/ticks.py" in files
    assert (drive / "code.py.bak").read_text() == 'print("Hello World!")\n'  # kept, not lost
    assert any(line.startswith("[1/") for line in said)  # progress
    assert any("verified" in line for line in said)
    before = snapshot(drive)
    assert dp.deploy(str(drive), say=quiet, mpy_cross="") == 0
    assert snapshot(drive) == before
    assert not list(drive.rglob("*.part"))


def test_the_game_runs_from_the_drive_in_the_simulator(tmp_path):
    """The deployed version folder, on sys.path, plays a match on host_sim's shims."""
    drive = make_drive(tmp_path / "d")
    dp.deploy(str(drive), say=quiet, mpy_cross="")
    name, _ = runnable(drive)
    fake_root = tmp_path / "root"
    fake_root.mkdir()
    os.symlink(drive / dp.GAME_DIR / name, fake_root / "lib")
    os.symlink(os.path.join(ROOT, "host_sim"), fake_root / "host_sim")
    script = os.path.join(ROOT, "tests", "scripts", "device_smoke.txt")
    run = subprocess.run(
        [sys.executable, os.path.join(ROOT, "host_sim", "board_run.py"), str(fake_root)]
        + ["1000", "1", script],
        capture_output=True,
        text=True,
        timeout=110,
        env=dict(os.environ, SPEED_IDLE_MS="4000", PYTHONPATH=""),
        cwd=str(tmp_path),
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert '"ev":"match_end"' in run.stdout


def test_dry_run_writes_nothing(tmp_path):
    drive = make_drive(tmp_path / "d")
    said = []
    dp.deploy(str(drive), dry_run=True, say=said.append, mpy_cross="")
    assert sorted(p.name for p in drive.iterdir()) == ["boot_out.txt"]
    assert any("would write" in line for line in said)


def test_the_board_gets_no_simulator_code():
    assert all(
        rel in ("code.py", "boot.py") or rel.startswith("lib/") for _, rel in dp.board_files()
    )
    assert not any("host_sim" in src for src, _ in dp.board_files())


def test_the_board_gets_no_core_it_cannot_run():
    """V10 (Speed for 3-4 players) never runs on a board with two rows of keys (issue 21:
    deploy copied V10's core onto it; issue 29: its core is classic Speed's, its log the
    simulator's v10log.py): nothing the board program imports names it."""
    rels = [rel for _, rel in dp.board_files()]
    assert "lib/speedduo/log/v10log.py" not in rels and "lib/speedduo/game/spit.py" in rels


def fresh_clone(tmp_path):
    """The repository's files as a clone has them: no .venv, nothing installed."""
    skip = shutil.ignore_patterns(".venv", ".git", "node_modules", "__pycache__", "*.pyc")
    clone = tmp_path / "clone"
    shutil.copytree(ROOT, clone, ignore=skip)
    return clone


def plain_python(clone, *args):
    """``python3 firmware/deploy.py ARGS`` in ``clone`` with a bare interpreter: isolated
    (-I: no environment, no script folder on the path), no site-packages (-S)."""
    return subprocess.run(
        [sys.executable, "-I", "-S", os.path.join(clone, "firmware", "deploy.py"), *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=str(clone),
        env={"PATH": os.defpath},
    )


def test_it_runs_from_a_fresh_clone_with_a_plain_python(tmp_path):
    clone = fresh_clone(tmp_path)
    drive = make_drive(tmp_path / "d")
    run = plain_python(clone, "--to", str(drive), "--mpy-cross", "")
    assert run.returncode == 0, run.stderr
    runnable(drive)


@pytest.mark.parametrize("version", ["9.2.9", None])
def test_its_refusals_from_a_fresh_clone_name_only_what_works_without_python(tmp_path, version):
    """The advice to install CircuitPython is the UF2 dragged onto RPI-RP2, not a tool that
    needs the venv (``python -m host_sim flash`` dies without it)."""
    clone = fresh_clone(tmp_path)
    if version:
        drive = make_drive(tmp_path / "d", version)
    else:
        drive = tmp_path / "RPI-RP2"
        drive.mkdir()
        (drive / "INFO_UF2.TXT").write_text("UF2 Bootloader v3.0\nBoard-ID: RPI-RP2\n")
    run = plain_python(clone, "--to", str(drive))
    assert run.returncode == 2 and run.stderr.count("\n") == 1
    assert "drag it onto the RPI-RP2 drive" in run.stderr
    assert "host_sim" not in run.stderr and "dev.py" not in run.stderr


def test_deploy_is_python_3_9_code():
    """The parent's Python may be old: no syntax newer than 3.9 in what deploy runs."""
    for name in ("deploy.py", "boarddrive.py"):
        path = os.path.join(ROOT, "firmware", name)
        with open(path) as f:
            ast.parse(f.read(), path, feature_version=(3, 9))


# --- refusals: one line, exit 2, nothing changed ---------------------------------------


@pytest.mark.parametrize(
    "version, board, expected",
    [
        ("10.2.1", "adafruit_feather_rp2040", "is the drive of board adafruit_feather_rp2040,"),
        ("10.2.1", "", "is the drive of a board boot_out.txt does not name, not"),
        ("7.3.3", "raspberry_pi_pico", "runs CircuitPython 7.3.3; the game needs"),
        ("9.2.9", "raspberry_pi_pico", "drag it onto the RPI-RP2 drive"),
    ],
)
def test_another_board_or_circuitpython_is_refused(tmp_path, capsys, version, board, expected):
    drive = make_drive(tmp_path / "d", version, board)
    before = snapshot(drive)
    assert dp.main(["--to", str(drive), "--mpy-cross", ""]) == 2
    err = capsys.readouterr().err
    assert expected in err and err.count("\n") == 1
    assert snapshot(drive) == before


def test_the_boot_drive_says_to_install_circuitpython_first(tmp_path):
    drive = tmp_path / "RPI-RP2"
    drive.mkdir()
    (drive / "INFO_UF2.TXT").write_text("UF2 Bootloader v3.0\nBoard-ID: RPI-RP2\n")
    with pytest.raises(dp.DeployError, match="install CircuitPython first: download .* drag it"):
        dp.deploy(str(drive), say=quiet, mpy_cross="")


def test_a_folder_that_is_not_circuitpy_is_refused(tmp_path):
    with pytest.raises(dp.DeployError, match="not a CIRCUITPY drive"):
        dp.deploy(str(tmp_path), say=quiet, mpy_cross="")
    with pytest.raises(dp.DeployError, match="not a folder"):
        dp.deploy(str(tmp_path / "missing"), say=quiet, mpy_cross="")


class ReadOnly(dp.DriveIO):
    def writable(self, path):
        return os.strerror(errno.EROFS)


class Full(dp.DriveIO):
    def free(self, path):
        return 20 * 1024


def test_a_read_only_drive_is_refused_before_anything_changes(tmp_path):
    drive = deployed(tmp_path, old_pairs(tmp_path))
    before = snapshot(drive)
    with pytest.raises(dp.DeployError, match="is read-only .*nothing changed"):
        dp.deploy(str(drive), say=quiet, mpy_cross="", io=ReadOnly())
    assert snapshot(drive) == before


def test_a_full_drive_is_refused_before_anything_changes(tmp_path):
    drive = deployed(tmp_path, old_pairs(tmp_path))
    (drive / dp.GAME_DIR / "abc.part").mkdir()  # even the cleanup waits
    before = snapshot(drive)
    with pytest.raises(dp.DeployError, match="too full: .* KB are free; nothing changed"):
        dp.deploy(str(drive), say=quiet, mpy_cross="", io=Full())
    assert snapshot(drive) == before
    assert (drive / dp.GAME_DIR / "abc.part").is_dir()


def test_free_space_counts_whole_clusters_and_what_the_cleanup_frees(tmp_path):
    drive = make_drive(tmp_path / "d")
    release = dp.Release(dp.board_files(), "py")
    plan = dp.Plan(str(drive), release, None)
    game = sum(len(data) for rel, data in release.files().items() if rel.startswith("speedduo"))
    assert plan.bytes_needed(512) > game
    assert plan.bytes_needed(4096) > plan.bytes_needed(512)
    (drive / dp.GAME_DIR / "x.part").mkdir(parents=True)
    (drive / dp.GAME_DIR / "x.part" / "big").write_bytes(b"x" * 100000)
    assert dp.Plan(str(drive), release, None).bytes_needed(512) < plan.bytes_needed(512) - 90000


# --- interrupted at every step ------------------------------------------------------


class Interrupted(OSError):
    pass


class Fast(dp.DriveIO):
    """No fsync/sync: a temporary folder is no USB drive, and the loop below is long."""

    def write(self, path, data):
        with open(path, "wb") as f:
            f.write(data)

    def sync(self):
        pass


class Failing(Fast):
    """Stops after ``left`` changes; a write stops half way. ``split_replace``: a rename
    over a file is a delete, then a rename (as on some systems), with a stop between."""

    def __init__(self, left, split_replace=False):
        self.left = left
        self.done = 0
        self.split_replace = split_replace

    def _step(self):
        if self.left is not None and self.done >= self.left:
            raise Interrupted(errno.EIO, "cable pulled")
        self.done += 1

    def write(self, path, data):
        if self.left is not None and self.done >= self.left:
            with open(path, "wb") as f:
                f.write(data[: len(data) // 2])
        self._step()
        super().write(path, data)

    def replace(self, src, dst):
        if self.split_replace and os.path.isfile(dst):
            self._step()
            os.remove(dst)
        self._step()
        super().replace(src, dst)

    def remove(self, path):
        self._step()
        super().remove(path)

    def rmtree(self, path):
        self._step()
        super().rmtree(path)

    def rmdir(self, path):
        self._step()
        super().rmdir(path)

    def makedirs(self, path):
        self._step()
        super().makedirs(path)


# every one of the deploy's ~230 steps: a drive copied and deployed twice each (~40 s on one
# free core, more on a busy one): not a hung test, so more than the suite's 120 s guard
@pytest.mark.timeout(600)
@pytest.mark.parametrize("split_replace", [False, True])
def test_a_deploy_stopped_at_any_step_leaves_a_runnable_game(tmp_path, split_replace):
    template = deployed(tmp_path, old_pairs(tmp_path))
    old_name, old_files = runnable(template)
    counting = Failing(None, split_replace)
    counted = tmp_path / "counted"
    shutil.copytree(template, counted)
    dp.deploy(str(counted), say=quiet, mpy_cross="", io=counting)
    new_name, new_files = runnable(counted)
    assert old_name != new_name and "speedduo/oldonly.py" in old_files - new_files
    assert counting.done > 2 * len(new_files)
    print("%d places to stop at" % counting.done)
    without_code_py = 0
    for stop in range(counting.done):
        drive = tmp_path / ("stop%d" % stop)
        shutil.copytree(template, drive)
        with pytest.raises(dp.DeployStopped, match="still has a complete game"):
            dp.deploy(str(drive), say=quiet, mpy_cross="", io=Failing(stop, split_replace))
        assert runnable(drive) in ((old_name, old_files), (new_name, new_files)), stop
        without_code_py += not (drive / "code.py").exists()  # main.py ran the old game
        said = []
        dp.deploy(str(drive), say=said.append, mpy_cross="", io=Fast())  # the next run finishes
        assert runnable(drive) == (new_name, new_files), stop
        assert os.listdir(drive / dp.GAME_DIR) == [new_name]
        assert not list(drive.rglob("*.part")) and not (drive / "main.py").exists()
        assert (drive / "notes.txt").read_text() == "the family's\n"
        assert (drive / "lib" / "family_lib.py").exists()
        assert (drive / "settings.toml").read_text() == "SPEED_PENALTY = 1\n"
        shutil.rmtree(drive)
    assert without_code_py == (1 if split_replace else 0)


def test_leftovers_of_an_interrupted_run_are_cleaned_up_not_refused(tmp_path):
    drive = deployed(tmp_path)
    (drive / dp.GAME_DIR / "0123abcd.part" / "speedduo").mkdir(parents=True)
    (drive / dp.GAME_DIR / "0123abcd.part" / "speedduo" / "core.py").write_text("half")
    (drive / "code.py.part").write_text("# speedduo-game: 01")
    (drive / dp.GAME_DIR / "feedbeef").mkdir()  # a version nothing names
    said = []
    dp.deploy(str(drive), say=said.append, mpy_cross="")
    assert sum("clean up" in line for line in said) == 3
    assert os.listdir(drive / dp.GAME_DIR) == [runnable(drive)[0]]
    assert not (drive / "code.py.part").exists()


def test_a_familys_files_in_the_game_folder_are_never_cleaned_up(tmp_path):
    """Only what a manifest or a .part names is deploy's to remove."""
    drive = deployed(tmp_path, old_pairs(tmp_path))
    old_name, _ = runnable(drive)
    game = drive / dp.GAME_DIR
    (game / "notes.txt").write_text("ours\n")
    (game / "saves").mkdir()
    (game / "saves" / "best.txt").write_text("12 s\n")
    (game / old_name / "mine.txt").write_text("in the old version's folder\n")
    said = []
    dp.deploy(str(drive), say=said.append, mpy_cross="")
    name, _ = runnable(drive)
    assert (game / "notes.txt").read_text() == "ours\n"
    assert (game / "saves" / "best.txt").read_text() == "12 s\n"
    assert (game / old_name / "mine.txt").read_text() == "in the old version's folder\n"
    assert sorted(os.listdir(game / old_name)) == ["mine.txt"]  # the old game itself went
    assert not any("clean up" in line for line in said)
    assert "keep speedduo-game/notes.txt: deploy did not write it" in said
    assert "keep speedduo-game/%s: files deploy did not write are in it" % old_name in said


def test_a_failed_first_deploy_does_not_claim_a_complete_game(tmp_path, capsys):
    drive = make_drive(tmp_path / "d")
    (drive / "code.py").write_text('print("Hello World!")\n')
    with pytest.raises(dp.DeployStopped) as stop:
        dp.deploy(str(drive), say=quiet, mpy_cross="", io=Failing(5))
    assert "cable pulled" in str(stop.value) and "run deploy again" in str(stop.value)
    assert "complete game" not in str(stop.value).replace("no complete game yet", "")
    assert "the board's own code.py still runs; the game is not on it yet" in str(stop.value)
    empty = make_drive(tmp_path / "e")
    with pytest.raises(dp.DeployStopped, match="the board has no complete game yet"):
        dp.deploy(str(empty), say=quiet, mpy_cross="", io=Failing(5))


def test_a_failed_update_says_the_old_game_is_still_complete(tmp_path):
    drive = deployed(tmp_path, old_pairs(tmp_path))
    old_name, _ = runnable(drive)
    with pytest.raises(dp.DeployStopped) as stop:
        dp.deploy(str(drive), say=quiet, mpy_cross="", io=Failing(5))
    assert "the board still has a complete game (%s, started by code.py)" % old_name in str(
        stop.value
    )
    assert stop.value.status == 1


def test_a_damaged_running_version_is_replaced_by_a_whole_copy(tmp_path):
    drive = deployed(tmp_path)
    name, files = runnable(drive)
    (drive / dp.GAME_DIR / name / "speedduo" / "game" / "core.py").write_text("damaged")
    dp.deploy(str(drive), say=quiet, mpy_cross="")
    new_name, new_files = runnable(drive)
    assert new_name == name + "-2" and new_files == files
    assert os.listdir(drive / dp.GAME_DIR) == [new_name]
    assert dp.deploy(str(drive), say=quiet, mpy_cross="") == 0  # and it stays put


# --- stale files, the family's files, settings -------------------------------------------


def test_files_the_new_version_no_longer_has_go_and_the_familys_stay(tmp_path):
    drive = deployed(tmp_path, old_pairs(tmp_path))
    old_name, _ = runnable(drive)
    said = []
    dp.deploy(str(drive), say=said.append, mpy_cross="")
    name, files = runnable(drive)
    assert "speedduo/oldonly.py" not in files
    assert not (drive / dp.GAME_DIR / old_name).exists()
    assert not (drive / "old_extra.txt").exists()  # listed by the old manifest, unchanged
    assert (drive / "notes.txt").exists() and (drive / "lib" / "family_lib.py").exists()
    assert any("remove old_extra.txt" in line for line in said)


def test_a_listed_file_the_family_changed_is_kept(tmp_path):
    drive = deployed(tmp_path, old_pairs(tmp_path))
    (drive / "old_extra.txt").write_text("our own notes now\n")
    said = []
    dp.deploy(str(drive), say=said.append, mpy_cross="")
    assert (drive / "old_extra.txt").read_text() == "our own notes now\n"
    assert any("keep old_extra.txt" in line for line in said)


def test_a_family_boot_py_is_backed_up_before_it_is_replaced(tmp_path):
    drive = make_drive(tmp_path / "d")
    (drive / "boot.py").write_text("import storage\n")
    dp.deploy(str(drive), say=quiet, mpy_cross="")
    assert (drive / "boot.py.bak").read_text() == "import storage\n"
    assert (drive / "boot.py").read_bytes() == open(os.path.join(ROOT, "boot.py"), "rb").read()


@pytest.mark.parametrize("existing", [None, "", "\n  \n"])
def test_a_fresh_drive_gets_the_default_settings(tmp_path, existing):
    drive = make_drive(tmp_path / "d")
    if existing is not None:
        (drive / "settings.toml").write_text(existing)
    dp.deploy(str(drive), say=quiet, mpy_cross="")
    default = open(os.path.join(ROOT, "settings.toml"), "rb").read()
    assert (drive / "settings.toml").read_bytes() == default
    assert not (drive / "settings.toml.bak").exists()


def test_the_familys_settings_are_kept_and_backed_up_before_settings_replaces_them(tmp_path):
    drive = deployed(tmp_path)
    dp.deploy(str(drive), say=quiet, mpy_cross="")
    assert (drive / "settings.toml").read_text() == "SPEED_PENALTY = 1\n"
    mine = tmp_path / "mine.toml"
    mine.write_text('SPEED_BEST_OF = 5\nSPEED_CLAIM = "race"\n')
    dp.deploy(str(drive), settings=str(mine), say=quiet, mpy_cross="")
    assert (drive / "settings.toml").read_text() == mine.read_text()
    assert (drive / "settings.toml.bak").read_text() == "SPEED_PENALTY = 1\n"
    mine.write_text("SPEED_BEST_OF = 7\n")
    dp.deploy(str(drive), settings=str(mine), say=quiet, mpy_cross="")
    assert (drive / "settings.toml.bak").read_text() == "SPEED_PENALTY = 1\n"  # not lost
    assert (drive / "settings.toml.bak2").read_text() == 'SPEED_BEST_OF = 5\nSPEED_CLAIM = "race"\n'


@pytest.mark.parametrize(
    "text, expected",
    [
        (b"OTHER = [", "is not TOML"),
        (b"OTHER = 1.5\n", "a string, an integer, true or false"),
        # what the board would ignore (issue 27.3): said as the board's notice says it
        (b"SPEED_BEST_OF = 5\nSPEED_BEST_OF = 7\n", r"SPEED_BEST_OF \(again on line 2"),
        (b'"SPEED_PENALTY" = 1\n', r"SPEED_PENALTY \(in quotes"),
        (b"[speed]\nSPEED_PENALTY = 1\n", r"SPEED_PENALTY \(under the \[table\] of line 1"),
        (b"speed_penalty = 1\n", r"speed_penalty \(unknown\)"),
        (b"SPEED_BEST_OF = 9\n", r"SPEED_BEST_OF \(3, 5 or 7\)"),
        ('SPEED_VOLUME = "\u0661"\n'.encode(), r"SPEED_VOLUME \(0..3\)"),
        (b"SPEED_BEST_OF = 5\n\xff\n", "is not UTF-8 text"),
        (b"\xef\xbb\xbfSPEED_BEST_OF = 5\n", "byte order mark"),  # hides the key on the board
    ],
)
def test_a_bad_settings_file_is_refused_before_anything_changes(tmp_path, text, expected):
    """One line, and the drive as it was."""
    drive = deployed(tmp_path)
    bad = tmp_path / "bad.toml"
    bad.write_bytes(text)
    before = snapshot(drive)
    with pytest.raises(dp.DeployError, match=expected) as refused:
        dp.deploy(str(drive), settings=str(bad), say=quiet, mpy_cross="")
    assert "\n" not in str(refused.value)
    assert snapshot(drive) == before


def test_an_empty_settings_path_is_refused_not_skipped(tmp_path):
    drive = deployed(tmp_path)
    before = snapshot(drive)
    with pytest.raises(dp.DeployError, match="--settings: empty path"):
        dp.deploy(str(drive), settings="", say=quiet, mpy_cross="")
    assert snapshot(drive) == before


def test_a_switch_written_true_is_taken_as_the_board_takes_it(tmp_path):
    good = tmp_path / "good.toml"
    good.write_bytes(b'SPEED_PENALTY = true\nSPEED_CLAIM = "race"\n')
    assert dp.check_settings_file(str(good)) == good.read_bytes()


def test_the_default_settings_file_is_one_the_board_reads_whole():
    path = os.path.join(ROOT, "settings.toml")
    with open(path, "rb") as f:
        assert dp.board_ignores(path, f.read()) == []


# --- finding the drive ---------------------------------------------------------------


def _lister(tree):
    return lambda path: sorted(tree.get(path, []))


def _isfile(files):
    return lambda path: path.replace("\\", "/").replace("//", "/") in files


def test_circuitpy_is_found_on_linux_macos_and_windows():
    linux = {"/media/alice": ["CIRCUITPY", "USBSTICK"]}
    assert boarddrive.find_circuitpy(
        platform="linux",
        user="alice",
        listdir=_lister(linux),
        isfile=_isfile({"/media/alice/CIRCUITPY/boot_out.txt"}),
    ) == ["/media/alice/CIRCUITPY"]
    fedora = {"/run/media/bob": ["CIRCUITPY"]}
    assert boarddrive.find_circuitpy(
        platform="linux",
        user="bob",
        listdir=_lister(fedora),
        isfile=_isfile({"/run/media/bob/CIRCUITPY/boot_out.txt"}),
    ) == ["/run/media/bob/CIRCUITPY"]
    mac = {"/Volumes": ["Macintosh HD", "CIRCUITPY"]}
    assert boarddrive.find_circuitpy(
        platform="darwin",
        listdir=_lister(mac),
        isfile=_isfile({"/Volumes/CIRCUITPY/boot_out.txt"}),
    ) == ["/Volumes/CIRCUITPY"]
    labels = {"D:\\": "DATA", "E:\\": "CIRCUITPY", "F:\\": "RPI-RP2"}
    windows = dict(
        platform="win32",
        volume_label=lambda root: labels.get(root, ""),
        isfile=_isfile({"E:/boot_out.txt", "F:/INFO_UF2.TXT"}),
    )
    assert boarddrive.find_circuitpy(**windows) == ["E:\\"]
    assert boarddrive.find_boot_drive(**windows) == ["F:\\"]


def test_deploy_finds_the_drive_by_itself_or_says_what_to_do(tmp_path):
    drive = make_drive(tmp_path / "CIRCUITPY")
    where = dict(platform="darwin", listdir=lambda p: ["CIRCUITPY"] if p == "/Volumes" else [])
    where["isfile"] = lambda p: p == "/Volumes/CIRCUITPY/boot_out.txt"
    assert dp.find_drive(**where) == "/Volumes/CIRCUITPY"
    two = dict(where, listdir=lambda p: ["CIRCUITPY", "CIRCUITPY 1"], isfile=lambda p: True)
    with pytest.raises(dp.DeployError, match="2 CIRCUITPY drives .* --to"):
        dp.find_drive(**two)
    boot = dict(where, listdir=lambda p: ["RPI-RP2"], isfile=lambda p: p.endswith("INFO_UF2.TXT"))
    with pytest.raises(dp.DeployError, match="BOOTSEL mode .* drag it onto the RPI-RP2 drive"):
        dp.find_drive(**boot)
    with pytest.raises(dp.DeployError, match="no CIRCUITPY drive found"):
        dp.find_drive(**dict(where, listdir=lambda p: []))
    linux = dict(platform="linux", user="u", listdir=lambda p: ["CIRCUITPY"])
    linux["isfile"] = lambda p: p.startswith(str(tmp_path))
    with pytest.raises(dp.DeployError):
        dp.deploy(None, say=quiet, mpy_cross="", where=linux)  # found none under /media
    assert dp.deploy(str(drive), say=quiet, mpy_cross="") > 0


def test_boot_out_txt_is_read():
    assert boarddrive.parse_boot_out(BOOT_OUT.format(version="10.2.1", board="x")) == (
        (10, 2, 1),
        "x",
    )
    assert boarddrive.parse_boot_out("garbage") == (None, None)


# --- bytecode ------------------------------------------------------------------------


def _fake_mpy_cross(tmp_path, header):
    """A stand-in compiler: writes ``header`` + the source to the -o file (or beside it)."""
    path = tmp_path / ("mpy-cross-" + header.hex())
    path.write_text(
        "#!%s\nimport sys\nargs = sys.argv[1:]\nsrc = args[-1]\n"
        "out = args[args.index('-o') + 1] if '-o' in args else src[:-3] + '.mpy'\n"
        "open(out, 'wb').write(%r + open(src, 'rb').read())\n" % (sys.executable, header)
    )
    path.chmod(0o755)
    return str(path)


def test_with_circuitpythons_mpy_cross_the_library_goes_on_as_mpy(tmp_path):
    drive = make_drive(tmp_path / "drive")
    dp.deploy(str(drive), say=quiet, mpy_cross="")
    py_name, _ = runnable(drive)
    said = []
    dp.deploy(str(drive), say=said.append, mpy_cross=_fake_mpy_cross(tmp_path, b"C\x06"))
    name = dp.loader_version((drive / "code.py").read_bytes())
    folder = drive / dp.GAME_DIR / name
    assert (folder / "speedduo" / "game" / "core.mpy").read_bytes()[:2] == b"C\x06"
    assert not list(folder.rglob("*.py"))  # a .py beside it would be imported first
    assert not (drive / dp.GAME_DIR / py_name).exists()
    assert (drive / "code.py").exists() and not (drive / "code.mpy").exists()
    assert any("as CircuitPython .mpy" in line for line in said)


def test_the_librarys_bytecode_is_compiled_without_line_numbers(tmp_path):
    """-O3 (docs/deploy.md): no line-number tables, about 3 KB less heap in a match."""
    compiler = tmp_path / "mpy-cross-args"
    compiler.write_text(
        "#!%s\nimport sys\nargs = sys.argv[1:]\n"
        "open(args[args.index('-o') + 1], 'w').write(' '.join(args[:-1]))\n" % sys.executable
    )
    compiler.chmod(0o755)
    build = tmp_path / "build"
    pairs = dp.board_files(mpy_cross=str(compiler), build_dir=str(build))
    compiled = [src for src, rel in pairs if rel.endswith(".mpy")]
    assert len(compiled) == len(dp.board_modules(os.path.join(ROOT, "lib", "speedduo")))
    for src in compiled:
        with open(src) as f:
            assert f.read().split(" -o ")[0] == "-O3", src


def test_micropythons_mpy_cross_is_refused_and_the_library_ships_as_source(tmp_path):
    drive = make_drive(tmp_path / "drive")
    said = []
    dp.deploy(str(drive), say=said.append, mpy_cross=_fake_mpy_cross(tmp_path, b"M\x06"))
    runnable(drive)
    assert not list(drive.rglob("*.mpy"))
    assert any("as .py source" in line and "not CircuitPython" in line for line in said)


# --- on CircuitPython itself ---------------------------------------------------------

LONG_DEVICE = os.environ.get("SPEED_DEVICE_LONG") == "1"


@pytest.mark.skipif(not LONG_DEVICE, reason="SPEED_DEVICE_LONG=1 (minutes on rp2040js)")
@pytest.mark.timeout(1800)
def test_the_deployed_drive_plays_on_circuitpython(tmp_path, monkeypatch, capsys):
    """The device emulator boots a drive image holding exactly what deploy wrote (.mpy):
    code.py's switch line, the version folder the current one (first on sys.path)."""
    from host_sim import device_run
    from host_sim.cli import main as cli_main

    firmware = device_run.find_firmware(need_mpy_cross=True)
    drive = make_drive(tmp_path / "d")
    dp.deploy(str(drive), say=quiet, mpy_cross=firmware["mpy-cross"])
    name, files = runnable(drive)
    assert "speedduo/loop/board_io.mpy" in files
    written = [
        (rel, data)
        for rel, data in sorted(snapshot(drive).items())
        if rel not in ("boot_out.txt", "settings.toml")
    ]

    def deployed_files(settings_text, *args, **kw):
        return written + [("settings.toml", settings_text.encode())]

    monkeypatch.setattr(device_run, "drive_files", deployed_files)
    script = os.path.join(ROOT, "tests", "scripts", "device_smoke.txt")
    log = tmp_path / "d.jsonl"
    argv = ["device", "--seed", "2", "--idle-ms", "4000", "--script", script, "--log", str(log)]
    assert cli_main(argv) == 0, capsys.readouterr().err
    assert '"ev":"match_end"' in log.read_text()
