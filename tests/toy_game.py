"""A toy game defined only here, to prove that adding a game is its rules core, its view
and one registry entry (issue 29.4): ``register()`` puts it in ``speedduo.games``, and
the simulator, the simulated board, replay and the window's replay play it with no other
module changed (tests/test_toy_game.py; ``toy_host.py`` runs host_sim with it).

Toy: each player gets half a shuffled deck as a face-down stock; key 1 turns the stock's
top onto the one centre pile. The first to empty their stock wins the round, which is the
match. Presses of both players at one instant aim at the one pile: a tie, arbitrated as in
every game (R4).
"""

from speedduo.display.base_view import View
from speedduo.display.game_view import ARG_BITS, BACK, M_WIN, GameView
from speedduo.display.ssd1306 import SHARED
from speedduo.game.gamematch import CONTINUE, OUT_BIT, GameCore, aim_word, room, take_top
from speedduo.games import Game
from speedduo.games import register as register_game
from speedduo.vocab.cards import DECK_SIZE, NO_CARD
from speedduo.vocab.codes import EV_DEAL, EV_PLAY, NO_T, NOT_PLAYING, NULL_PLAYER, PLAYED

_HALF = 26
PAGES = (
    ("TOY 1/1", ("PRESS 1: YOUR TOP", "CARD GOES ON THE", "PILE. EMPTY YOUR", "STOCK TO WIN.")),
)

TOY = Game(
    id="toy",
    core=("toy_game", "Toy"),
    view=("toy_game", "ToyView"),
    board=True,
    menu_name="TOY",
    menu_options=(),
    options=(("stall_countdown_ms", 1000), ("race_window_ms", 400), ("idle_ms", 60000)),
    howto=("toy_game", "PAGES"),
)


def register():
    register_game(TOY)


class Toy(GameCore):
    """Two stocks and the centre pile."""

    game = "toy"
    players = 2
    photo_finish_on_tie = False
    swept = False

    def __init__(self, rules):
        self.rules = rules
        self.log = None  # set by GameMatch
        self.stock = [room(DECK_SIZE), room(DECK_SIZE)]
        self.centre = room(DECK_SIZE)
        self._deck = bytearray(DECK_SIZE)
        self._left = [0, 0]
        self._clear(True)
        self.hand_no = 0
        self.match_why = b""

    def deal(self, rng, hand_no):
        self.hand_no = hand_no
        deck = self._deck
        for i in range(DECK_SIZE):
            deck[i] = i
        rng.shuffle(deck, 0, DECK_SIZE)
        for p in range(2):
            stock = self.stock[p]
            stock[0:] = b""
            for i in range(p * _HALF, p * _HALF + _HALF):
                stock.append(deck[i])
        self.centre[0:] = b""
        self._clear(False)
        log = self.log
        log.begin(EV_DEAL, NO_T, NULL_PLAYER, hand_no)
        log.number(b',"hand_no":', hand_no)
        log.raw(b',"stock":[')
        log.cards(self.stock[0], _HALF)
        log.raw(b",")
        log.cards(self.stock[1], _HALF)
        log.raw(b"]")
        log.end()

    def bot_mask(self, p):
        return 0 if self.over or not self.stock[p] else 2  # key 1

    def setting(self, p, key):
        return False

    def aim(self, p, key):
        if key != 1 or self.over or not self.stock[p]:
            return 0
        return aim_word(0, 1 | (OUT_BIT if len(self.stock[p]) == 1 else 0))

    def press(self, t, p, key, aim, tie):
        if self.over:
            return NOT_PLAYING
        if key != 1 or not self.stock[p]:
            return 0
        card = take_top(self.stock[p])
        self.centre.append(card)
        log = self.log
        log.begin(EV_PLAY, t, p)
        log.number(b',"p":', p)
        log.card(b',"card":', card)
        log.number(b',"pile":', 0)
        log.end()
        if not self.stock[p]:
            self._left[p] = 0
            self._left[1 - p] = len(self.stock[1 - p])
            self._hand_over(t, p, b"out", self._left)
        return PLAYED

    def _stall_ended(self, t):
        pass  # the toy never stalls: a stock's top can always be played

    def abandon(self, t):
        self._left[0] = len(self.stock[0])
        self._left[1] = len(self.stock[1])
        self._hand_over(t, NULL_PLAYER, b"abandoned", self._left)

    def match_winner(self, wins, best_of, rounds):
        return self.winner if self.winner != NULL_PLAYER else CONTINUE


class ToyView(GameView):
    """The centre pile's top card on both panels, the cards each still holds."""

    def _held(self, core, p):
        return len(core.stock[p])

    def _draw_table(self, core, dealt):
        centre = core.centre
        card = (centre[-1] if centre else NO_CARD) if dealt else BACK
        self._draw_card(card, 58, 2, SHARED, False)

    def _result(self, core):
        return self._result_msg(core) << ARG_BITS

    def _draw_centre(self, old, msg, arg):
        if msg < M_WIN:
            View._draw_centre(self, old, msg, arg)
            return
        self._wipe(SHARED)
        self._centred(b"YOU WIN" if msg == M_WIN else b"ROUND OVER", 40, 48, 5, SHARED, True)
        self._extent(5, 5, 40, 87)  # what _wipe clears next
