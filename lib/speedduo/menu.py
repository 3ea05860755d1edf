"""The menu between matches, driven by the same buttons as the game.

Either player: ``L`` moves the selection up, ``R`` down, any of ``1``-``5``
changes the selected setting or, on PLAY, starts the match. Settings: best of
3/5/7 (R14), the R16 penalty, V1 (no wrap), V2 (same rank) and the piezo's
volume (0 = off; docs/sound.md); the rest come from settings.toml. Not on the
play path: it may build strings.
"""

from speedduo.codes import KEY_L, KEY_R, KEYS_PER_PLAYER
from speedduo.sound import VOLUME_DEFAULT, VOLUME_MAX

PLAY = 0
BEST_OF = 1
PENALTY = 2
NO_WRAP = 3
SAME_RANK = 4
SOUND = 5
TITLE = "SPEED DUO"


class Menu:
    def __init__(self, rules, best_of, volume=VOLUME_DEFAULT):
        self.rules = rules
        self.best_of = best_of
        self.volume = volume  # 0..VOLUME_MAX, 0 = mute
        self.selected = PLAY

    def lines(self):
        rules = self.rules
        return [
            "PLAY",
            "BEST OF %d" % self.best_of,
            "PENALTY " + ("ON" if rules.penalty else "OFF"),
            "A-K WRAP " + ("OFF" if rules.no_wrap else "ON"),
            "SAME RANK " + ("ON" if rules.same_rank else "OFF"),
            "SOUND %d" % self.volume if self.volume else "SOUND OFF",
        ]

    def press(self, key_number):
        """A key went down; True when it starts the match."""
        key = key_number % KEYS_PER_PLAYER
        count = len(self.lines())
        if key == KEY_L:
            self.selected = (self.selected - 1) % count
        elif key == KEY_R:
            self.selected = (self.selected + 1) % count
        elif self.selected == PLAY:
            return True
        elif self.selected == BEST_OF:
            self.best_of = 3 if self.best_of == 7 else self.best_of + 2
        elif self.selected == PENALTY:
            self.rules.set("penalty", not self.rules.penalty)
        elif self.selected == NO_WRAP:
            self.rules.set("no_wrap", not self.rules.no_wrap)
        elif self.selected == SAME_RANK:
            self.rules.set("same_rank", not self.rules.same_rank)
        elif self.selected == SOUND:
            self.volume = 0 if self.volume >= VOLUME_MAX else self.volume + 1
        return False
