"""The menu between matches, driven by the same buttons as the game.

Either player: ``L`` moves the selection up, ``R`` down, any of ``1``-``5``
changes the selected setting, on PLAY starts the match, on STATS shows the
stats (``stats_screen.py``), on SELF TEST the bring-up test of panels, keys and
piezo (``selftest.py``) and on HOW TO PLAY the rules' pages (``howto.py``).
Settings: best of 3/5/7 (R14), the R16 penalty, V1 (no wrap), V2 (same rank),
V3 (jokers), V4 (double deck), the opponent (2 PLAYERS, or the board plays
Player 2: EASY / MEDIUM / HARD, lib/speedduo/loop/opponent.py), the game (classic
SPEED, V8 SPIT, V9 CALIFORNIA; lib/speedduo/loop/game_app.py) and the piezo's volume
(0 = off; docs/sound.md), and each player's head start (H1: P1 HEAD START, P2 HEAD START,
0-400 ms in steps of 50, OFF at 0; every game takes them; the countdown shows them) and
auto-balance (H3: AUTO BALANCE ON moves them one step toward the loser after each match,
``board_play.finish``; switching it on starts both at OFF, so switching it off and on is
its reset; kept in the stats record), each player's cards in hand (H2: P1 CARDS, P2 CARDS,
5 -> 4 -> 3 -> 5; classic Speed's only); the rest come from settings.toml. A setting the
chosen game does not take (the registry's options: Spit plays one game of rounds with V1
only, California Speed none of them) says ``N/A`` and a press leaves it as it is; it keeps
its value for classic Speed.
Not on the play path: it may build strings.
"""

from micropython import const  # on the host, Blinka provides this module

from speedduo.game.rules import (
    HAND_SLOT_OPTIONS,
    HAND_SLOTS_MAX,
    HAND_SLOTS_MIN,
    HANDICAPS,
    HEAD_START_MAX_MS,
    HEAD_START_STEP_MS,
)
from speedduo.games import BOARD_GAMES, MENU_NAMES, MENU_OPTIONS
from speedduo.vocab.codes import KEY_L, KEY_R, KEYS_PER_PLAYER, VOLUME_DEFAULT, VOLUME_MAX

PLAY = 0
BEST_OF = 1
PENALTY = 2
NO_WRAP = 3
SAME_RANK = 4
JOKERS = 5
DOUBLE_DECK = 6
OPPONENT = 7
GAME = 8  # (before SOUND: SOUND and STATS stay two and one L presses before HOW TO PLAY)
HEAD_START_P1 = 9  # H1 (docs/rules.md): after GAME, so the items R and L reach stay put
HEAD_START_P2 = 10
HAND_SLOTS_P1 = 11  # H2 (docs/rules.md): classic Speed's only (N/A for the other games)
HAND_SLOTS_P2 = 12
AUTO_BALANCE = 13  # H3: after each match one head-start step toward its loser
SOUND = 14
STATS = 15
SELF_TEST = 16
HOW_TO_PLAY = 17  # last: one L press from PLAY
OPPONENT_NAMES = ("2 PLAYERS", "EASY", "MEDIUM", "HARD")  # opponent levels 0-3
GAME_SPEED = 0  # the games by number, as the registry lists them (games.BOARD_GAMES)
GAME_IDS = BOARD_GAMES
# the rule items, by the option each sets; a game takes those its registry entry names
# (games.MENU_OPTIONS: V8 no_wrap, V9 none; both play one game of rounds, so no BEST OF;
# classic Speed takes them all)
_GAME_RULES = (
    BEST_OF,
    PENALTY,
    NO_WRAP,
    SAME_RANK,
    JOKERS,
    DOUBLE_DECK,
    HAND_SLOTS_P1,
    HAND_SLOTS_P2,
)
_RULE_NAMES = (
    "best_of",
    "penalty",
    "no_wrap",
    "same_rank",
    "jokers",
    "double_deck",
) + HAND_SLOT_OPTIONS
TITLE = "SPEED DUO"
LINE_CHARS = const(21)  # characters on a panel line (the menu, notices, messages)
BALANCE_NOTICE_MS = const(4000)  # H3's notice after a match (board_play), unless a key

# what a press asks for (press())
STAY = 0
START = 1
SHOW_HOW_TO_PLAY = 2
SHOW_STATS = 3
SHOW_SELF_TEST = 4


def head_start_line(player, lead):
    """H1's item for Player ``player`` (1, 2): its lead in ms, or OFF."""
    return "P%d HEAD START " % player + ("%dMS" % lead if lead else "OFF")


class Menu:
    def __init__(
        self, rules, best_of, opponent=0, volume=VOLUME_DEFAULT, game=GAME_SPEED, balance=False
    ):
        self.rules = rules
        self.game = game  # GAME_IDS index
        self.best_of = best_of
        self.opponent = opponent  # 0: two players; 1-3: the board plays Player 2 (index 1)
        self.volume = volume  # 0..VOLUME_MAX, 0 = mute
        self.auto_balance = balance  # H3
        self.selected = PLAY

    def lines(self):
        rules = self.rules
        lines = [
            "PLAY",
            "BEST OF %d" % self.best_of,
            "PENALTY " + ("ON" if rules.penalty else "OFF"),
            "A-K WRAP " + ("OFF" if rules.no_wrap else "ON"),
            "SAME RANK " + ("ON" if rules.same_rank else "OFF"),
            "JOKERS " + ("ON" if rules.jokers else "OFF"),
            "DOUBLE DECK " + ("ON" if rules.double_deck else "OFF"),
            ("VS BOARD " if self.opponent else "") + OPPONENT_NAMES[self.opponent],
            "GAME " + MENU_NAMES[self.game],
            head_start_line(1, rules.head_start_p1_ms),
            head_start_line(2, rules.head_start_p2_ms),
            "P1 CARDS %d" % rules.hand_slots_p1,  # H2: cards in hand
            "P2 CARDS %d" % rules.hand_slots_p2,
            "AUTO BALANCE " + ("ON" if self.auto_balance else "OFF"),
            "SOUND %d" % self.volume if self.volume else "SOUND OFF",
            "STATS",
            "SELF TEST",
            "HOW TO PLAY",
        ]
        for item in _GAME_RULES:
            if not self.applies(item):
                line = lines[item]
                cut = line.rfind(" ")  # the name without its value
                lines[item] = line[:cut] + " N/A"
        return lines

    def applies(self, item):
        """Does the chosen game take this menu item's setting?"""
        taken = MENU_OPTIONS[self.game]
        if taken is None or item not in _GAME_RULES:
            return True
        return _RULE_NAMES[_GAME_RULES.index(item)] in taken

    def press(self, key_number):
        """A key went down: START (PLAY chosen), SHOW_STATS, SHOW_SELF_TEST,
        SHOW_HOW_TO_PLAY, or STAY."""
        key = key_number % KEYS_PER_PLAYER
        count = len(self.lines())
        if key == KEY_L:
            self.selected = (self.selected - 1) % count
        elif key == KEY_R:
            self.selected = (self.selected + 1) % count
        elif self.selected == PLAY:
            return START
        elif self.selected == HOW_TO_PLAY:
            return SHOW_HOW_TO_PLAY
        elif self.selected == STATS:
            return SHOW_STATS
        elif self.selected == SELF_TEST:
            return SHOW_SELF_TEST
        elif not self.applies(self.selected):
            pass  # N/A for this game: kept for classic Speed
        elif self.selected == BEST_OF:
            self.best_of = 3 if self.best_of == 7 else self.best_of + 2
        elif self.selected == PENALTY:
            self.rules.set("penalty", not self.rules.penalty)
        elif self.selected == NO_WRAP:
            self.rules.set("no_wrap", not self.rules.no_wrap)
        elif self.selected == SAME_RANK:
            self.rules.set("same_rank", not self.rules.same_rank)
        elif self.selected == JOKERS:
            self.rules.set("jokers", not self.rules.jokers)
        elif self.selected == DOUBLE_DECK:
            self.rules.set("double_deck", not self.rules.double_deck)
        elif self.selected == OPPONENT:
            self.opponent = (self.opponent + 1) % len(OPPONENT_NAMES)
        elif self.selected == GAME:
            self.game = (self.game + 1) % len(GAME_IDS)
        elif self.selected == HEAD_START_P1 or self.selected == HEAD_START_P2:
            name = HANDICAPS[self.selected - HEAD_START_P1]
            lead = getattr(self.rules, name, 0) + HEAD_START_STEP_MS
            self.rules.set(name, 0 if lead > HEAD_START_MAX_MS else lead)
        elif self.selected == HAND_SLOTS_P1 or self.selected == HAND_SLOTS_P2:
            name = HAND_SLOT_OPTIONS[self.selected - HAND_SLOTS_P1]
            slots = getattr(self.rules, name, HAND_SLOTS_MAX) - 1  # H2: 5 -> 4 -> 3 -> 5
            self.rules.set(name, HAND_SLOTS_MAX if slots < HAND_SLOTS_MIN else slots)
        elif self.selected == AUTO_BALANCE:
            self.auto_balance = not self.auto_balance
            if self.auto_balance:  # H3 starts even: off and on again is its reset
                for name in HANDICAPS:
                    self.rules.set(name, 0)
        elif self.selected == SOUND:
            self.volume = 0 if self.volume >= VOLUME_MAX else self.volume + 1
        return STAY
