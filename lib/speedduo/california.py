"""California Speed (docs/rules.md V9): cards face up on a grid, equal ranks covered.

Pure Python, no I/O, no clock: every entry point takes ``t``, ms since the
round's start signal. ``GameMatch`` (gamematch.py) calls ``deal`` for each
round ("hand" in the log), the arbiter ``setting``/``aim``/``press`` for each
key press. The grid has two rows of five places: row p lies in front of player
p; place ``row * 5 + col`` is a pile, top last. Stocks are lists, top last.

Buttons (V9.6): ``1``-``5`` cover a pile in that column, the target row's
when both can be covered; ``L`` aims at your own row, ``R`` at the other
player's row (where each player starts aiming).
"""

from micropython import const  # on the host, Blinka provides this module

from speedduo.cards import DECK_SIZE, card_name
from speedduo.codes import EMPTY_SLOT, INVALID, KEY_L, KEY_R, LATE, NOT_PLAYING, PLAYED
from speedduo.gamematch import CONTINUE, NO_PLAYER, OUT_BIT, GameCore, tie_word

COLS = const(5)  # V9.1: five places a row
_NO_TIME = const(-1)
_LONG_AGO = const(-1000000)


class California(GameCore):
    """Two stocks, the grid of ten piles, the live ranks and the round's timers."""

    game = "california"
    players = 2
    photo_finish_on_tie = False
    swept = False

    def __init__(self, rules) -> None:
        self.rules = rules
        self.log = None  # set by GameMatch
        self.stock = [[], []]
        self.grid = [[] for _ in range(2 * COLS)]
        self.changed_at = [_LONG_AGO] * (2 * COLS)  # when each pile's top last changed (R8)
        self.live = 0  # V9.3: ranks that may be covered, one bit each
        self.target = [1, 0]  # the row each player aims at: the other player's
        self._clear(True)
        self.hand_no = 0
        self.match_why = ""

    # ---- V9.1/V9.2: the deal of a round ----

    def deal(self, rng, hand_no: int) -> None:
        """Round 1: 26 cards each from a shuffled deck; every round: each player turns up to
        five cards from their stock onto the places of their row (V9.1)."""
        self.hand_no = hand_no
        if hand_no == 1:
            deck = bytearray(range(DECK_SIZE))
            rng.shuffle(deck, 0, DECK_SIZE)
            self.stock = [list(deck[0:26]), list(deck[26:52])]
        for p in range(2):
            for col in range(COLS):
                pile = self.grid[p * COLS + col]
                pile.clear()
                if self.stock[p]:
                    pile.append(self.stock[p].pop())
        self.changed_at = [_LONG_AGO] * (2 * COLS)
        self.target = [1, 0]
        self.live = 0
        self._clear(False)
        self.match_why = ""
        self.log.put(
            "deal",
            [
                ("hand_no", hand_no),
                ("stock", [_names(self.stock[p]) for p in range(2)]),
                (
                    "grid",
                    [[_names(self.grid[p * COLS + c]) for c in range(COLS)] for p in range(2)],
                ),
            ],
        )
        self._update_live()
        self._check_stall(0)

    # ---- what a player sees ----

    def _update_live(self) -> None:
        """V9.3: a rank shown on two or more piles becomes live and stays live while shown."""
        counts = [0] * 13
        for pile in self.grid:
            if pile:
                counts[pile[-1] >> 2] += 1
        live = 0
        for rank in range(13):
            if counts[rank] >= 2 or (counts[rank] and self.live >> rank & 1):
                live |= 1 << rank
        self.live = live

    def coverable(self, pile: int) -> bool:
        cards = self.grid[pile]
        return len(cards) > 0 and (self.live >> (cards[-1] >> 2)) & 1 == 1

    def pile_for(self, p: int, col: int, aim: int = -1) -> int:
        """The pile a press on column ``col`` covers: the aim, else the target row's, else
        the other row's; -1: none."""
        if aim >= 0 and aim % COLS == col and self.coverable(aim):
            return aim
        row = self.target[p]
        if self.coverable(row * COLS + col):
            return row * COLS + col
        if self.coverable((1 - row) * COLS + col):
            return (1 - row) * COLS + col
        return -1

    def cards_left(self, p: int) -> int:
        """Stock and row: what the player holds once the round is gathered (V9.4)."""
        return len(self.stock[p]) + sum(len(self.grid[p * COLS + c]) for c in range(COLS))

    def bot_keys(self, p: int):
        """The keys (1-5) whose column holds a pile player p can cover now."""
        if self.over or self.stall_due != _NO_TIME or not self.stock[p]:
            return []
        return [1 + col for col in range(COLS) if self.pile_for(p, col) >= 0]

    # ---- the arbiter's questions ----

    def setting(self, p: int, key: int) -> bool:
        """L aims at your own row, R at the other player's (not logged)."""
        if key == KEY_L:
            self.target[p] = p
            return True
        if key == KEY_R:
            self.target[p] = 1 - p
            return True
        return False

    def aim(self, p: int, key: int):
        if self.over or not self.stock[p]:
            return -1, 0
        pile = self.pile_for(p, key - 1)
        if pile < 0:
            return -1, 0
        bits = 1 << pile
        if len(self.stock[p]) == 1:
            bits |= OUT_BIT
        return pile, bits

    # ---- V9.3: a cover ----

    def press(self, t: int, p: int, key: int, aim: int, tie: int) -> int:
        if self.over:
            return NOT_PLAYING
        if not self.stock[p]:
            return EMPTY_SLOT  # nothing to cover with: the press does nothing
        col = key - 1
        pile = self.pile_for(p, col, aim)
        if pile < 0:
            window = self.rules.race_window_ms
            late = t - self.changed_at[col] < window or t - self.changed_at[COLS + col] < window
            fields = [("t", t), ("p", p), ("row", self.target[p]), ("col", col)]
            fields.append(("why", "late" if late else "invalid"))
            self._put_with_tie("reject", fields, tie)
            return LATE if late else INVALID
        card = self.stock[p].pop()
        self.grid[pile].append(card)
        self.changed_at[pile] = t
        fields = [("t", t), ("p", p), ("row", pile // COLS), ("col", col)]
        fields.append(("card", card_name(card)))
        self._put_with_tie("cover", fields, tie)
        if not self.stock[p]:  # V9.4: the last card of the stock: out
            self._end(t, p, "out")
            return PLAYED
        self._update_live()
        self._check_stall(t)
        return PLAYED

    def _put_with_tie(self, ev, fields, tie) -> None:
        word = tie_word(tie)
        if word is not None:
            fields.append(("tie", word))
        self.log.put(ev, fields)

    # ---- V9.5: no group left ----

    def _check_stall(self, t: int) -> None:
        if self.over or self.stall_due != _NO_TIME:
            return
        for pile in range(2 * COLS):
            if self.coverable(pile):
                return
        self._declare_stall(t)

    def _stall_ended(self, t: int) -> None:
        """V9.5: still no group to cover when the countdown ran out: the round ends."""
        self._end(t, NO_PLAYER, "blocked")

    def abandon(self, t: int) -> None:
        """R17: the round ends without a result (the match stops)."""
        self._end(t, NO_PLAYER, "abandoned")

    def _end(self, t: int, winner: int, why: str) -> None:
        """V9.5: each player's row goes under their stock, place 1 first, each pile top first."""
        for p in range(2):
            stock = []  # top last: place 5's pile (bottom first) lowest, ..., the old stock on top
            for col in range(COLS - 1, -1, -1):
                pile = self.grid[p * COLS + col]
                stock.extend(pile)
                pile.clear()
            stock.extend(self.stock[p])
            self.stock[p] = stock
        self._hand_over(t, winner, why, [len(self.stock[0]), len(self.stock[1])])

    def match_winner(self, wins, best_of: int, rounds: int) -> int:
        """V9.4: the player who covered with their last card wins; V9.7: max_rounds."""
        if self.winner != NO_PLAYER:
            return self.winner
        if rounds >= self.rules.max_rounds:
            self.match_why = "max_rounds"
            left0 = len(self.stock[0])
            left1 = len(self.stock[1])
            if left0 == left1:
                return NO_PLAYER
            return 0 if left0 < left1 else 1
        return CONTINUE


def _names(cards):
    """A pile or stock (top last) as the log lists it: top first."""
    names = [card_name(card) for card in cards]
    names.reverse()
    return names
