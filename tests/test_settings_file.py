"""A settings.toml the board cannot read as written never stops it (issue 20, "Bad input").

Not UTF-8 (one 0xFF byte, random bytes, UTF-16 with a BOM as Notepad saves it), a
UTF-8 byte order mark (it hides the first key from CircuitPython's getenv), a file or a
line far too big, a line getenv cannot parse: the settings notice on both panels, and
the game with the defaults. The board program reads the file as CircuitPython does
(host_sim/settings_file.py) when given ``--settings FILE``.
"""

import json
import os
import random
import sys

import pytest
from conftest import ROOT, run_board_program, run_cli
from settings_file import DriveOS, lookup
from speedduo.loop import settings as settings_module
from speedduo.loop.settings import Settings, read_settings, scan_settings

SCRIPT = "tests/scripts/board_play_twice.txt"
GOOD = b"SPEED_BEST_OF = 5\nSPEED_PENALTY = 1\n"


def _bad_files():
    rng = random.Random(20)
    return {
        "one 0xFF byte": b"SPEED_BEST_OF = 5\n\xff\nSPEED_PENALTY = 1\n",
        "random bytes": bytes(rng.randrange(256) for _ in range(3000)),
        "UTF-16 with BOM (Notepad)": "\ufeffSPEED_BEST_OF = 5\r\n".encode("utf-16-le"),
        "UTF-16 without BOM": "SPEED_BEST_OF = 5\r\n".encode("utf-16-le"),
        "UTF-8 BOM": b"\xef\xbb\xbf" + GOOD,
        "a 9 MB file": GOOD + b"# padding\n" * 900_000,
        "a 5 MB line": b'SPEED_BEST_OF = 5\nSPEED_CLAIM = "' + b"x" * 5_000_000 + b'"\n',
        "a cut UTF-8 character at the end": GOOD + b"# caf\xc3",
    }


BAD = _bad_files()


def _write(tmp_path, data):
    path = tmp_path / "settings.toml"
    path.write_bytes(data)
    return str(path)


def _board_settings(monkeypatch, path, getenv):
    monkeypatch.setattr(settings_module, "SETTINGS_PATH", path)
    return read_settings(getenv, None, 400000, 1000000)


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_file_the_board_cannot_read_gives_the_defaults_and_one_problem(
    tmp_path, monkeypatch, case
):
    path = _write(tmp_path, BAD[case])
    asked = []
    chosen = _board_settings(monkeypatch, path, lambda name: asked.append(name) or 5)
    defaults = Settings({}.get)
    assert chosen.problems[0][0] == "settings.toml" and len(chosen.problems) == 1
    assert asked == []  # getenv is never asked: it would misread the file
    assert chosen.best_of == defaults.best_of
    assert chosen.rules.as_pairs() == defaults.rules.as_pairs()
    assert all(len(line) <= 21 for line in chosen.report_lines(21))


def test_a_good_file_is_read_and_its_names_listed(tmp_path, monkeypatch):
    path = _write(tmp_path, GOOD + b'[wifi]\nCIRCUITPY_WIFI_SSID = "home"\n')
    chosen = _board_settings(monkeypatch, path, DriveOS(path, os).getenv)
    assert chosen.problems == [] and chosen.best_of == 5 and chosen.rules.penalty
    assert scan_settings(path) == (["SPEED_BEST_OF", "SPEED_PENALTY"], None, [])


# --- what getenv ignores is said (issue 27.3) ------------------------------------------


@pytest.mark.parametrize(
    "data, problem",
    [
        (  # getenv.c stops at the first match: the second line is never read
            b"SPEED_BEST_OF = 5\nSPEED_BEST_OF = 7\n",
            ("SPEED_BEST_OF", "again on line 2: ignored"),
        ),
        (  # key_matches compares the name byte for byte: a quote never matches
            b'"SPEED_PENALTY" = 1\nSPEED_BEST_OF = 5\n',
            ("SPEED_PENALTY", "in quotes: ignored (no quotes around a name)"),
        ),
        (  # "[" ends what getenv reads (seek_eof)
            b"SPEED_BEST_OF = 5\n[speed]\nSPEED_PENALTY = 1\n",
            ("SPEED_PENALTY", "under the [table] of line 2: ignored"),
        ),
    ],
)
def test_a_setting_getenv_never_reads_is_named(tmp_path, monkeypatch, data, problem):
    path = _write(tmp_path, data)
    chosen = _board_settings(monkeypatch, path, DriveOS(path, os).getenv)
    assert chosen.problems == [problem]
    assert chosen.best_of == 5 and not chosen.rules.penalty  # the first line is the one


def test_a_broken_second_line_of_a_key_does_not_hide_the_first(tmp_path, monkeypatch):
    path = _write(tmp_path, b'SPEED_CLAIM = "race"\nSPEED_CLAIM = "simple\n')
    chosen = _board_settings(monkeypatch, path, DriveOS(path, os).getenv)
    assert chosen.rules.claim == "race"  # what getenv gives
    assert chosen.problems == [("SPEED_CLAIM", "again on line 2: ignored")]


@pytest.mark.parametrize("name", [b"speed_penalty", b"Speed_Penalty", b"idle_off_min"])
def test_a_name_of_ours_in_lower_case_is_unknown(tmp_path, monkeypatch, name):
    path = _write(tmp_path, name + b" = 1\n")
    chosen = _board_settings(monkeypatch, path, DriveOS(path, os).getenv)
    assert chosen.unknown == [name.decode()] and not chosen.rules.penalty


def test_an_over_long_name_is_unknown(tmp_path, monkeypatch):
    path = _write(tmp_path, b"SPEED_" + b"X" * 60 + b" = 1\n")
    chosen = _board_settings(monkeypatch, path, DriveOS(path, os).getenv)
    assert chosen.unknown == ["SPEED_" + "X" * 35 + "..."]
    assert "  unknown: ignored" in chosen.report_lines(21)


def test_max_rounds_is_read_for_spit_and_california(tmp_path, monkeypatch):
    """V8.11, V9.7: a game's own option is a setting, not an unknown name."""
    path = _write(tmp_path, b"SPEED_MAX_ROUNDS = 7\n")
    chosen = _board_settings(monkeypatch, path, DriveOS(path, os).getenv)
    assert chosen.unknown == [] and chosen.problems == [] and chosen.rules.max_rounds == 7
    bad = Settings({"SPEED_MAX_ROUNDS": "0"}.get, ["SPEED_MAX_ROUNDS"])
    assert bad.problems == [("SPEED_MAX_ROUNDS", "1..3600000")]
    assert not hasattr(bad.rules, "max_rounds")  # the game's default (the registry's options)


@pytest.mark.parametrize("value", ["9", "4", "1", "x", "99999999999999999999"])
def test_the_notice_for_best_of_names_what_is_allowed_whatever_the_value(value):
    chosen = Settings({"SPEED_BEST_OF": value}.get, ["SPEED_BEST_OF"])
    assert chosen.problems == [("SPEED_BEST_OF", "3, 5 or 7")] and chosen.best_of == 3


@pytest.mark.parametrize(
    "five",
    [
        "\u0665",  # ARABIC-INDIC DIGIT FIVE: CPython's int() takes it, CircuitPython's not
        "5\u00a0",  # a trailing no-break space: CPython strips it, CircuitPython not
        "\uff15",  # FULLWIDTH DIGIT FIVE
        "0_5",  # underscores: our reading takes none ("_" alone is 0 to CircuitPython's int)
        "0x5",
        "",
        "-",
    ],
)
def test_a_number_is_only_ascii_digits_on_the_board_and_the_simulator(tmp_path, monkeypatch, five):
    data = 'SPEED_BEST_OF = "%s"\nSPEED_IDLE_MS = "%s000"\n' % (five, five)
    path = _write(tmp_path, data.encode())
    chosen = _board_settings(monkeypatch, path, DriveOS(path, os).getenv)
    assert chosen.best_of == 3 and chosen.rules.idle_ms == 60000
    assert [name for name, _ in chosen.problems] == ["SPEED_IDLE_MS", "SPEED_BEST_OF"]


@pytest.mark.parametrize(
    "value, number",
    [(" 5 ", 5), ("+5", 5), ("-5", -5), ("007", 7), ("0000000000003", 3), (5, 5)],
)
def test_a_number_may_have_blanks_a_sign_and_leading_zeros(value, number):
    assert settings_module.whole_number(value) == number


@pytest.mark.parametrize(
    "setting, value, allowed",
    [
        ("SPEED_IDLE_MS", "-5", "must be at least 1000 (R17 ends every silent match)"),
        ("SPEED_IDLE_MS", "0", "must be at least 1000 (R17 ends every silent match)"),
        ("SPEED_MAX_ROUNDS", "-2", "1..3600000"),
        ("SPEED_PENALTY_MS", "-1", "must be a whole number >= 0"),
    ],
)
def test_a_notice_names_the_range_that_holds_for_the_option(setting, value, allowed):
    """A negative idle_ms is told "at least 1000", not ">= 0" (0 is refused too)."""
    assert Settings({setting: value}.get, [setting]).problems == [(setting, allowed)]


def test_a_huge_number_is_out_of_range_not_a_crash():
    chosen = Settings({"SPEED_IDLE_MS": "9" * 400, "SPEED_SEED": "-" + "9" * 40}.get)
    assert chosen.problems[0] == ("SPEED_IDLE_MS", "must be at most 3600000")
    assert chosen.problems[1][0] == "SPEED_SEED" and chosen.seed == -1


def test_an_empty_settings_path_is_refused(tmp_path):
    result = run_cli("board", "--settings", "", "--script", os.path.join(ROOT, SCRIPT), check=False)
    assert result.returncode == 2
    assert "--settings: empty" in result.stderr and result.stderr.count("\n") == 1


class _Endless:
    """A file of ``x`` bytes that never ends; counts what was read."""

    def __init__(self):
        self.read = 0

    def readinto(self, buffer):
        buffer[:] = b"x" * len(buffer)
        self.read += len(buffer)
        return len(buffer)


def test_the_scan_reads_small_pieces_and_stops_at_the_size_limit():
    """A 5 MB line is never held whole: 128-byte pieces, and no more than the limit."""
    endless = _Endless()
    names, trouble, _ = settings_module._scan(endless)
    assert names == [] and trouble == "over 16 KB: not read"
    assert 16384 < endless.read <= 16384 + 128
    assert scan_settings(os.path.join(ROOT, "no-such-settings.toml")) == (None, None, [])


@pytest.mark.parametrize("error", [ValueError, UnicodeError, MemoryError])
def test_a_line_getenv_cannot_parse_is_that_settings_problem_and_its_default(
    tmp_path, monkeypatch, error
):
    path = _write(tmp_path, GOOD)

    def getenv(name):
        if name == "SPEED_BEST_OF":
            raise error("Invalid byte '\\n'")
        return {"SPEED_PENALTY": 1}.get(name)

    chosen = _board_settings(monkeypatch, path, getenv)
    assert chosen.problems == [("SPEED_BEST_OF", "unreadable line")]
    assert chosen.best_of == 3 and chosen.rules.penalty  # the others are still read


@pytest.mark.parametrize(
    "line, why",
    [
        (b'SPEED_CLAIM = "race\n', "no closing quote"),
        (b'SPEED_CLAIM = "race" x\n', "text after the quotes"),
        (b"SPEED_CLAIM =\r\n", "no value"),
        (b"SPEED_CLAIM = # none\n", "no value"),
        (b'SPEED_CLAIM = "ra\\', "no closing quote"),  # the file ends in the string
    ],
)
def test_a_line_circuitpython_cannot_read_is_named_and_the_rest_is_read(
    tmp_path, monkeypatch, line, why
):
    """CircuitPython 10 quietly gives the default for such a line (9 raised): named here."""
    path = _write(tmp_path, b"SPEED_BEST_OF = 5\n" + line)
    chosen = _board_settings(monkeypatch, path, DriveOS(path, os).getenv)
    assert chosen.problems == [("SPEED_CLAIM", why)]
    assert chosen.best_of == 5 and chosen.rules.claim_mode == 0


def test_the_first_line_without_an_equals_sign_is_named(tmp_path, monkeypatch):
    path = _write(tmp_path, b"SPEED_BEST_OF 5\nSPEED_PENALTY = 1\nSPEED_JOKERS 1\n")
    chosen = _board_settings(monkeypatch, path, DriveOS(path, os).getenv)
    assert chosen.problems == [("settings.toml", "line 1 has no =")]
    assert chosen.rules.penalty and chosen.best_of == 3


# --- CircuitPython's getenv, as the simulator reads a file -----------------------------


def test_getenv_reads_strings_as_circuitpython_10_does():
    data = (
        b'# a comment\n  SPEED_IDLE_MS = 0x10  # hex\nSPEED_CLAIM = "ra\\u0063e" # c\r\n'
        b"SPEED_PENALTY=1\t\r\n[section]\nSPEED_VOLUME = 2\n"
    )
    assert lookup(data, "SPEED_IDLE_MS") == "0x10"  # a str, as on CircuitPython 10
    assert lookup(data, "SPEED_CLAIM") == "race"
    assert lookup(data, "SPEED_PENALTY") == "1"
    assert lookup(data, "SPEED_VOLUME") is None  # after a [table]: not read
    assert lookup(data, "SPEED_SEED", 7) == 7


def test_getenv_misses_the_first_key_behind_a_utf8_bom():
    data = b"\xef\xbb\xbf" + GOOD
    assert lookup(data, "SPEED_BEST_OF") is None and lookup(data, "SPEED_PENALTY") == "1"


@pytest.mark.parametrize(
    "line",
    [
        b'SPEED_CLAIM = "race\n',
        b'SPEED_CLAIM = "race" x\n',
        b"SPEED_CLAIM =\n",
        b'SPEED_CLAIM = "\\uZZZZ"\n',
    ],
)
def test_getenv_gives_the_default_for_a_line_it_cannot_read(line):
    assert lookup(line, "SPEED_CLAIM", "dflt") == "dflt"


@pytest.mark.parametrize(
    "escape, value",
    [(b"0041", "A"), (b"+041", "A"), (b" 041", "A"), (b"0x41", "A"), (b"-041", None),
     (b"0_41", None), (b"41  ", None), (b"zz00", None)],
)  # fmt: skip
def test_getenv_reads_a_unicode_escape_as_strtoul_does(escape, value):
    assert lookup(b'K = "\\u' + escape + b'"\n', "K") == value


def test_getenv_raises_for_a_value_that_is_not_utf8():
    with pytest.raises(UnicodeError):
        lookup(b'SPEED_CLAIM = "r\xffce"\n', "SPEED_CLAIM")


# --- the board program on the shims ----------------------------------------------------


def _notice(result):
    return [line for line in result.stdout.splitlines() if line.startswith("SETTINGS.TOML:")]


def _first_event(result):
    first = next(line for line in result.stdout.splitlines() if line.startswith("{"))
    return json.loads(first.split("\t")[0])  # the data port adds a tab and a sequence number


@pytest.mark.parametrize("case", ["one 0xFF byte", "UTF-16 with BOM (Notepad)", "a 5 MB line"])
def test_the_board_program_shows_a_bad_file_on_both_panels_and_plays_the_defaults(tmp_path, case):
    path = _write(tmp_path, BAD[case])
    result, writes = run_board_program(tmp_path, SCRIPT, SPEEDDUO_SETTINGS=path)
    assert result.returncode == 0, result.stderr[-2000:]
    notice = _notice(result)
    assert len(notice) == 1 and notice[0].startswith("SETTINGS.TOML: settings.toml / ")
    assert notice[0].endswith("(defaults used)")
    assert {w["bus"] for w in writes if w["ack"] and w["t0"] < 1_000_000} == {0, 1}
    assert _first_event(result)["best_of"] == 3  # the file's 5 is not used


def test_the_board_program_names_a_malformed_line_and_reads_the_rest(tmp_path):
    path = _write(tmp_path, b'SPEED_CLAIM = "race\nSPEED_BEST_OF = 5\n')
    result, _ = run_board_program(tmp_path, SCRIPT, SPEEDDUO_SETTINGS=path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert _notice(result) == ["SETTINGS.TOML: SPEED_CLAIM / no closing quote / (defaults used)"]
    assert _first_event(result)["best_of"] == 5


def test_the_board_program_in_the_micropython_vm_survives_a_bad_file(tmp_path):
    path = _write(tmp_path, BAD["random bytes"])
    micropython = os.path.join(os.path.dirname(sys.executable), "micropython")
    result = run_cli(
        "board", "--vm", "micropython", "--settings", path, "--script",
        os.path.join(ROOT, SCRIPT), "--log", str(tmp_path / "b.jsonl"), check=False,
    )  # fmt: skip
    assert os.path.exists(micropython)
    assert result.returncode == 0, result.stderr[-2000:]
    first = json.loads((tmp_path / "b.jsonl").read_text().splitlines()[0])
    assert first["best_of"] == 3


def test_settings_options_are_refused_with_the_drives_file(tmp_path):
    path = _write(tmp_path, GOOD)
    result = run_cli("board", "--settings", path, "--seed", "2", check=False)
    assert result.returncode == 2
    assert "put SPEED_SEED in it instead of the option" in result.stderr
    assert result.stderr.count("\n") == 1


# --- on CircuitPython 10.2.1 itself (where the firmware files are: docs/device.md) ----------


def _have_firmware():
    from host_sim import device_run

    folder = device_run.firmware_dir()
    return all(os.path.isfile(os.path.join(folder, n)) for n in device_run.FIRMWARE_FILES)


@pytest.mark.skipif(not _have_firmware(), reason="no firmware.uf2/bootrom.bin (docs/device.md)")
@pytest.mark.timeout(1800)
@pytest.mark.parametrize(
    "data, shown",
    [
        (BAD["one 0xFF byte"], "settings.toml / not UTF-8 text: / save it as UTF-8"),
        (  # and a key set again (issue 27.3): 10.2.1's getenv reads only the first
            b'SPEED_CLAIM = "race\nSPEED_BEST_OF = 4\nSPEED_BEST_OF = 5\n',
            "SPEED_CLAIM / no closing quote / SPEED_BEST_OF / again on line 3: / ignored",
        ),
    ],
)
def test_the_firmware_shows_a_bad_file_and_goes_on(tmp_path, data, shown):
    """The drive's file as it is, on the emulated Pico: the notice on the console and both
    panels, no traceback. (CircuitPython 10.2.1's own getenv says nothing of an unfinished
    string: it gives the default.)"""
    path = _write(tmp_path, data)
    keep = tmp_path / "keep"
    result = run_cli(
        "device", "--settings", path, "--matches", "0", "--limit-ms", "6000",
        "--keep", str(keep), check=False, timeout=1800,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    console = (keep / "console.bin").read_bytes().decode("utf-8", "replace").replace("\r", "")
    notice = [line for line in console.split("\n") if "SETTINGS.TOML:" in line]
    assert len(notice) == 1 and shown in notice[0], console[-1000:]
    for bus in (0, 1):  # both panels drew more than their set-up
        assert len((keep / ("i2c%d.jsonl" % bus)).read_text().splitlines()) > 10


def test_the_board_program_shows_what_getenv_ignores_and_plays_max_rounds(tmp_path):
    """Issue 27.3 on the board program: the notice names the key set again and the name in
    lower case; SPEED_MAX_ROUNDS reaches Spit's rules (V8.11)."""
    data = (
        b'SPEED_GAME = "spit"\nSPEED_MAX_ROUNDS = 3\nSPEED_GAME = "california"\nspeed_penalty = 1\n'
    )
    path = _write(tmp_path, data)
    result, _ = run_board_program(tmp_path, SCRIPT, SPEEDDUO_SETTINGS=path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert _notice(result) == [
        "SETTINGS.TOML: SPEED_GAME / again on line 3: / ignored / speed_penalty"
        " / unknown: ignored / (defaults used)"
    ]
    first = _first_event(result)
    assert first["game"] == "spit" and first["rules"]["max_rounds"] == 3
