"""The window's keymap file: defaults, a user's override, and one clear line for each mistake."""

import os
import subprocess
import sys

import pytest
from conftest import ROOT

from host_sim.window_keys import KeymapError, load_keymap, user_keymap_path
from host_sim.window_keys import pygame_key_code as key_code


def _write(tmp_path, text, name="keys.toml"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_the_default_keymap_gives_every_button_one_key_and_players_opposite_hands():
    keymap = load_keymap(key_code, environ={"XDG_CONFIG_HOME": "/nonexistent"})
    assert sorted(keymap.buttons.values()) == list(range(14))
    assert keymap.buttons[key_code("a")] == 1  # Player 1's button 1
    assert keymap.buttons[key_code("j")] == 8  # Player 2's button 1
    assert [names[0] for names in keymap.labels[:7]] == ["q", "a", "s", "d", "f", "g", "t"]


def test_a_user_file_overrides_only_the_buttons_it_names(tmp_path):
    path = _write(tmp_path, '[player2]\nL = ["keypad 7", "y"]\n')
    keymap = load_keymap(key_code, path)
    assert keymap.buttons[key_code("keypad 7")] == 7 and keymap.buttons[key_code("y")] == 7
    assert key_code("u") not in keymap.buttons  # the default for Player 2's L is gone
    assert keymap.buttons[key_code("a")] == 1  # the rest keep their defaults


def test_the_user_file_is_found_through_the_environment(tmp_path):
    path = _write(tmp_path, "")
    assert user_keymap_path(environ={"SPEEDDUO_KEYMAP": path}) == path
    folder = tmp_path / "speedduo"
    folder.mkdir()
    (folder / "keymap.toml").write_text("")
    assert user_keymap_path(environ={"XDG_CONFIG_HOME": str(tmp_path)}) == str(
        folder / "keymap.toml"
    )
    assert user_keymap_path("x.toml", environ={"SPEEDDUO_KEYMAP": path}) == "x.toml"


@pytest.mark.parametrize(
    "text,expected",
    [
        ("[player1\n", "not TOML"),
        ("[player3]\nL = 'a'\n", "unknown table [player3]"),
        ("[player0]\nL = 'a'\n", "[player0] (player1, player2) (players are numbered from 1)"),
        ("[player1]\nX = 'a'\n", "unknown button 'X'"),
        ("[player1]\nL = 'nosuchkey'\n", "unknown key name 'nosuchkey'"),
        ("[player1]\nL = 'j'\n", "key 'j' is on two buttons: player1 L and player2 1"),
        ("[player1]\nL = 'escape'\n", "'escape' is taken"),
        ("[player1]\nL = []\n", "a key name or a list of key names"),
        ("[player1]\nL = 5\n", "a key name or a list of key names"),
        ("player1 = 1\n", "player1 must be a table"),
    ],
)
def test_a_bad_keymap_is_one_line_naming_the_file(tmp_path, text, expected):
    path = _write(tmp_path, text)
    with pytest.raises(KeymapError) as error:
        load_keymap(key_code, path)
    message = str(error.value)
    assert expected in message and path in message and "\n" not in message


def test_an_unreadable_keymap_is_one_line(tmp_path):
    with pytest.raises(KeymapError, match="cannot read keymap"):
        load_keymap(key_code, str(tmp_path / "missing.toml"))


def _play(*args, **environ):
    """``python3 dev.py play`` (host_sim.window_main) with ARGS and extra environment."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.path.join(ROOT, "lib")]))
    env.pop("SPEEDDUO_KEYMAP", None)
    env.update(environ)
    return subprocess.run(
        [sys.executable, "-m", "host_sim.window_main", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_play_with_a_bad_keymap_says_so_in_one_line_and_exits_2(tmp_path):
    path = _write(tmp_path, "[player1]\nL = 'nosuchkey'\n")
    result = _play("--keymap", path)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "unknown key name 'nosuchkey'" in result.stderr


def _bad_keymap(tmp_path, kind):
    """A keymap file that is not one: bytes that are not UTF-8, arrays nested 2,000 deep,
    a FIFO (reading it would wait for a writer for ever), or too big to be a keymap."""
    path = tmp_path / "keymap.toml"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "not utf-8":
        path.write_bytes(b"[player1]\nL = '\xff'\n")
    elif kind == "nested":
        path.write_text("[player1]\nL = " + "[" * 2000 + "]" * 2000 + "\n")
    else:
        path.write_text("# " + "x" * (100 << 10) + "\n")
    return str(path)


_BAD_KEYMAPS = {
    "not utf-8": "line 2 is not UTF-8",
    "nested": "nested too deeply",
    "fifo": "a pipe, not a regular file",
    "too big": "larger than 64 KB",
}


@pytest.mark.parametrize("kind", sorted(_BAD_KEYMAPS))
@pytest.mark.parametrize("given", ["--keymap", "SPEEDDUO_KEYMAP", "the default path"])
def test_a_keymap_that_is_not_a_keymap_file_is_one_line_naming_it(tmp_path, kind, given):
    path = _bad_keymap(tmp_path, kind)
    explicit = path if given == "--keymap" else None
    environ = {"SPEEDDUO_KEYMAP": path} if given == "SPEEDDUO_KEYMAP" else {}
    if given == "the default path":
        (tmp_path / "speedduo").mkdir()
        os.rename(path, tmp_path / "speedduo" / "keymap.toml")
        path = str(tmp_path / "speedduo" / "keymap.toml")
        environ = {"XDG_CONFIG_HOME": str(tmp_path)}
    with pytest.raises(KeymapError) as error:
        load_keymap(key_code, explicit, environ)
    message = str(error.value)
    assert _BAD_KEYMAPS[kind] in message and path in message and "\n" not in message


def test_play_with_a_default_keymap_that_is_not_utf_8_exits_2_in_one_line(tmp_path):
    (tmp_path / "speedduo").mkdir()
    (tmp_path / "speedduo" / "keymap.toml").write_bytes("[player1]\nL = 'é'\n".encode("utf-16"))
    result = _play(XDG_CONFIG_HOME=str(tmp_path))
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "is not UTF-8" in result.stderr, result.stderr
