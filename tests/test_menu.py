"""The menu between matches: L/R move, 1-5 change or choose (either player)."""

from speedduo.menu import BEST_OF, PENALTY, PLAY, Menu
from speedduo.rules import Rules

L0, ONE0, R0 = 0, 1, 6
L1, ONE1, R1 = 7, 8, 13


def test_play_is_selected_first_and_any_number_key_starts():
    menu = Menu(Rules(), 3)
    assert menu.selected == PLAY
    assert menu.press(ONE1) is True


def test_l_and_r_move_and_wrap_for_either_player():
    menu = Menu(Rules(), 3)
    menu.press(R0)
    assert menu.selected == BEST_OF
    menu.press(L1)
    menu.press(L1)
    assert menu.selected == len(menu.lines()) - 1


def test_number_keys_change_best_of_and_penalty():
    rules = Rules()
    menu = Menu(rules, 3)
    menu.press(R0)
    assert menu.press(ONE0) is False and menu.best_of == 5
    menu.press(ONE0)
    menu.press(ONE0)
    assert menu.best_of == 3
    menu.press(R0)
    assert menu.selected == PENALTY
    menu.press(ONE0)
    assert rules.penalty is True and "PENALTY ON" in menu.lines()
