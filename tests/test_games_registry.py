"""The registry of games (lib/speedduo/games.py): every game named once, read by all."""

import pytest
from speedduo import games
from speedduo.display.menu import GAME, Menu
from speedduo.game.gamerules import GAMES, GameRules, options_of
from speedduo.game.rules import Rules
from speedduo.loop.settings import Settings


def test_every_game_in_the_registry_has_a_core_a_view_and_options():
    for game in games.GAME_IDS:
        assert isinstance(games.core_class(game), type)
        assert isinstance(games.view_class(game), type)
        assert options_of(game) and game in GAMES


def test_speed_for_three_or_four_is_classic_speeds_core_with_more_players():
    """V10 has no rules core of its own (issue 29): classic Speed's, with 3 or 4 players."""
    hand = games.core_class("speed")
    assert hand.__name__ == "Hand" and hand(GameRules("speed"), None, 4).players == 4
    assert not hasattr(games, "SPEED_N")


def test_an_unknown_game_is_refused_naming_the_games():
    with pytest.raises(ValueError, match="unknown game 'poker': speed, spit, california"):
        games.entry("poker")


def test_the_menu_offers_the_registrys_board_games_in_its_order():
    menu = Menu(Rules(), 3)
    shown = []
    for _ in games.BOARD_GAMES:
        shown.append(menu.lines()[GAME])
        menu.selected = GAME
        menu.press(1)  # any of 1-5 changes the selected setting
    assert shown == ["GAME " + name for name in games.MENU_NAMES]


def test_settings_take_each_board_game_by_its_registry_id():
    for index, game in enumerate(games.BOARD_GAMES):
        values = {"SPEED_GAME": game}
        settings = Settings(values.get, list(values), 400000, 1000000)
        assert settings.game == index and not settings.problems
