"""The menu between matches: L/R move, 1-5 change or choose (either player)."""

from speedduo.display.menu import (
    BEST_OF,
    GAME,
    HAND_SLOTS_P1,
    HAND_SLOTS_P2,
    HEAD_START_P1,
    HEAD_START_P2,
    HOW_TO_PLAY,
    PENALTY,
    PLAY,
    SHOW_HOW_TO_PLAY,
    SOUND,
    START,
    STAY,
    Menu,
)
from speedduo.game.rules import Rules, hand_slots, head_starts
from speedduo.games import BOARD_GAMES

L0, ONE0, R0 = 0, 1, 6
L1, ONE1, R1 = 7, 8, 13


def test_play_is_selected_first_and_any_number_key_starts():
    menu = Menu(Rules(), 3)
    assert menu.selected == PLAY
    assert menu.press(ONE1) == START


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
    assert menu.press(ONE0) == STAY and menu.best_of == 5
    menu.press(ONE0)
    menu.press(ONE0)
    assert menu.best_of == 3
    menu.press(R0)
    assert menu.selected == PENALTY
    menu.press(ONE0)
    assert rules.penalty is True and "PENALTY ON" in menu.lines()


def test_how_to_play_is_one_l_press_from_play_and_shows_pages():
    menu = Menu(Rules(), 3)
    menu.press(L0)
    assert menu.selected == HOW_TO_PLAY and menu.lines()[HOW_TO_PLAY] == "HOW TO PLAY"
    assert menu.press(ONE0) == SHOW_HOW_TO_PLAY


def test_how_to_play_pages_fit_the_panel_and_use_the_screen_words():
    from speedduo.display import howto

    text = " ".join(" ".join(lines) for _title, lines in howto.PAGES)
    for title, lines in howto.PAGES:
        assert len(title) <= 21 and len(lines) <= 6
        assert all(len(line) <= 21 for line in lines)
    for word in ("LATE", "INVALID", "LOCKED", "STALL", "YOU", "THEM"):  # as the screens say
        assert word in text


def test_how_to_play_pages_show_on_the_board_then_play_starts(tmp_path):
    """Through code.py's program: L, 1 opens the pages, a key turns each, PLAY follows."""
    from conftest import run_board_program

    result, _ = run_board_program(tmp_path, "tests/scripts/board_how_to_play.txt")
    assert result.returncode == 0, result.stderr
    shown = [line.split(":")[0] for line in result.stdout.splitlines() if "HOW TO PLAY " in line]
    assert shown == ["HOW TO PLAY %d/4" % n for n in range(1, 5)]
    assert '"ev":"match_end"' in result.stdout  # then the match was played


def test_jokers_and_double_deck_are_chosen_in_the_menu():
    from speedduo.display.menu import DOUBLE_DECK, JOKERS

    rules = Rules()
    menu = Menu(rules, 3)
    while menu.selected != JOKERS:
        menu.press(R0)
    menu.press(ONE0)
    menu.press(R1)
    assert menu.selected == DOUBLE_DECK
    menu.press(ONE1)
    assert rules.jokers and rules.double_deck  # V3, V4
    assert "JOKERS ON" in menu.lines() and "DOUBLE DECK ON" in menu.lines()


def test_head_start_items_cycle_0_to_400_in_50s_for_each_player():
    """H1: P1 HEAD START and P2 HEAD START (after GAME) set the rules' leads; 400 wraps to 0."""
    rules = Rules()
    menu = Menu(rules, 3)
    assert (HEAD_START_P1, HEAD_START_P2) == (GAME + 1, GAME + 2)
    lines = menu.lines()
    assert lines[HEAD_START_P1] == "P1 HEAD START OFF"
    assert lines[HEAD_START_P2] == "P2 HEAD START OFF"
    menu.selected = HEAD_START_P2
    seen = []
    for _ in range(9):
        assert menu.press(ONE1) == STAY
        seen.append(rules.head_start_p2_ms)
    assert seen == [50, 100, 150, 200, 250, 300, 350, 400, 0]
    menu.press(ONE0)
    menu.press(ONE0)
    assert head_starts(rules) == (0, 100) and menu.lines()[HEAD_START_P2] == "P2 HEAD START 100MS"
    menu.selected = HEAD_START_P1
    menu.press(ONE0)
    assert head_starts(rules) == (50, 100) and menu.lines()[HEAD_START_P1] == "P1 HEAD START 50MS"
    for game in range(len(BOARD_GAMES)):  # every game takes them (no N/A)
        menu.game = game
        assert menu.lines()[HEAD_START_P1].endswith("50MS")
    rules.set("head_start_p1_ms", 400)
    assert max(len(line) for line in menu.lines()) <= 21


def test_hand_slots_items_cycle_5_4_3_for_each_player_after_the_head_starts():
    """H2: P1 CARDS and P2 CARDS (after P2 HEAD START, before AUTO BALANCE and SOUND) set
    each player's hand slots; 3 wraps to 5."""
    rules = Rules()
    menu = Menu(rules, 3)
    assert (HAND_SLOTS_P1, HAND_SLOTS_P2, SOUND) == (HEAD_START_P2 + 1, HEAD_START_P2 + 2, 14)
    assert (
        menu.lines()[HAND_SLOTS_P1] == "P1 CARDS 5" and menu.lines()[HAND_SLOTS_P2] == "P2 CARDS 5"
    )
    menu.selected = HAND_SLOTS_P2
    seen = []
    for _ in range(3):
        assert menu.press(ONE1) == STAY
        seen.append(rules.hand_slots_p2)
    assert seen == [4, 3, 5]
    menu.selected = HAND_SLOTS_P1
    menu.press(ONE0)
    assert hand_slots(rules) == (4, 5) and menu.lines()[HAND_SLOTS_P1] == "P1 CARDS 4"


def test_hand_slots_items_say_na_for_the_other_games_and_a_press_keeps_them():
    """H2 is classic Speed's: Spit and California show N/A; the value stays for Speed."""
    rules = Rules(hand_slots_p1=3)
    menu = Menu(rules, 3)
    for game in range(1, len(BOARD_GAMES)):
        menu.game = game
        assert menu.lines()[HAND_SLOTS_P1] == "P1 CARDS N/A"
        assert menu.lines()[HAND_SLOTS_P2] == "P2 CARDS N/A"
        menu.selected = HAND_SLOTS_P1
        assert menu.press(ONE0) == STAY and rules.hand_slots_p1 == 3
    menu.game = 0
    assert menu.lines()[HAND_SLOTS_P1] == "P1 CARDS 3"
