"""California Speed (docs/rules.md V9): cards face up on a grid, equal ranks covered.

Pure Python, no I/O, no clock: every entry point takes ``t``, ms since the
round's start signal. ``GameMatch`` (gamematch.py) calls ``deal`` for each
round ("hand" in the log), the arbiter ``setting``/``aim``/``press`` for each
key press. The grid has two rows of five places: row p lies in front of player
p; place ``row * 5 + col`` is a pile, top last. Stocks are lists, top last.
Every list is made once with room for the whole deck and never rebuilt: a press,
a round's end and the next deal allocate nothing (bench/mp_heap_lock.py).

Buttons (V9.6): ``1``-``5`` cover a pile in that column, the target row's
when both can be covered; ``L`` aims at your own row, ``R`` at the other
player's row (where each player starts aiming).
"""

from micropython import const  # on the host, Blinka provides this module

from speedduo.game.gamematch import (
    CONTINUE,
    OUT_BIT,
    GameCore,
    aim_word,
    room,
    take_top,
    tie_field,
)
from speedduo.vocab.cards import DECK_SIZE, RANKS
from speedduo.vocab.codes import (
    EMPTY_SLOT,
    EV_COVER,
    EV_DEAL,
    EV_REJECT,
    INVALID,
    KEY_L,
    KEY_R,
    LATE,
    NO_T,
    NOT_PLAYING,
    NULL_PLAYER,
    PLAYED,
)

COLS = const(5)  # V9.1: five places a row
_NO_TIME = const(-1)
_LONG_AGO = const(-1000000)
_HALF = const(26)  # round 1: each player's share of the deck


class California(GameCore):
    """Two stocks, the grid of ten piles, the live ranks and the round's timers."""

    game = "california"
    players = 2
    photo_finish_on_tie = False
    swept = False

    def __init__(self, rules) -> None:
        self.rules = rules
        self.log = None  # set by GameMatch
        self.stock = [room(DECK_SIZE), room(DECK_SIZE)]
        self.grid = [room(DECK_SIZE) for _ in range(2 * COLS)]
        self.changed_at = [_LONG_AGO] * (2 * COLS)  # when each pile's top last changed (R8)
        self.live = 0  # V9.3: ranks that may be covered, one bit each
        self.target = [1, 0]  # the row each player aims at: the other player's
        self.last_cover = -1  # the pile covered last this round (-1: none yet; views)
        self._counts = bytearray(RANKS)  # _update_live's tally
        self._deck = bytearray(DECK_SIZE)
        self._gathered = room(DECK_SIZE)  # _end's new stock
        self._left = [0, 0]  # cards each holds at the round's end
        self._clear(True)
        self.hand_no = 0
        self.match_why = b""

    # ---- V9.1/V9.2: the deal of a round ----

    def deal(self, rng, hand_no: int) -> None:
        """Round 1: 26 cards each from a shuffled deck; every round: each player turns up to
        five cards from their stock onto the places of their row (V9.1)."""
        self.hand_no = hand_no
        if hand_no == 1:
            deck = self._deck
            for i in range(DECK_SIZE):
                deck[i] = i
            rng.shuffle(deck, 0, DECK_SIZE)
            for p in range(2):
                stock = self.stock[p]
                stock[0:] = b""
                for i in range(p * _HALF, p * _HALF + _HALF):
                    stock.append(deck[i])
        for p in range(2):
            stock = self.stock[p]
            for col in range(COLS):
                pile = self.grid[p * COLS + col]
                pile[0:] = b""
                if stock:
                    pile.append(take_top(stock))
        for k in range(2 * COLS):
            self.changed_at[k] = _LONG_AGO
        self.target[0] = 1
        self.target[1] = 0
        self.last_cover = -1
        self.live = 0
        self._clear(False)
        self.match_why = b""
        log = self.log
        log.begin(EV_DEAL, NO_T, NULL_PLAYER, hand_no)
        log.number(b',"hand_no":', hand_no)
        log.raw(b',"stock":[')
        log.cards(self.stock[0], len(self.stock[0]))
        log.raw(b",")
        log.cards(self.stock[1], len(self.stock[1]))
        log.raw(b'],"grid":[[')
        for k in range(2 * COLS):
            if k == COLS:
                log.raw(b"],[")
            elif k:
                log.raw(b",")
            pile = self.grid[k]
            log.cards(pile, len(pile))
        log.raw(b"]]")
        log.end()
        self._update_live()
        self._check_stall(0)

    # ---- what a player sees ----

    def _update_live(self) -> None:
        """V9.3: a rank shown on two or more piles becomes live and stays live while shown."""
        counts = self._counts
        for rank in range(RANKS):
            counts[rank] = 0
        for pile in self.grid:
            if pile:
                counts[pile[-1] >> 2] += 1
        live = 0
        for rank in range(RANKS):
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
        n = len(self.stock[p])
        for c in range(COLS):
            n += len(self.grid[p * COLS + c])
        return n

    def bot_mask(self, p: int) -> int:
        """The keys (1-5) whose column holds a pile player p can cover now, one bit each
        (bit k: key k)."""
        if self.over or self.stall_due != _NO_TIME or not self.stock[p]:
            return 0
        mask = 0
        for col in range(COLS):
            if self.pile_for(p, col) >= 0:
                mask |= 2 << col
        return mask

    def bot_keys(self, p: int):
        """``bot_mask`` as a list of keys (host form)."""
        mask = self.bot_mask(p)
        return [k for k in range(KEY_R + 1) if mask >> k & 1]

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

    def aim(self, p: int, key: int) -> int:
        """gamematch.aim_word of the pile a press would cover; 0: none."""
        if self.over or not self.stock[p]:
            return 0
        pile = self.pile_for(p, key - 1)
        if pile < 0:
            return 0
        bits = 1 << pile
        if len(self.stock[p]) == 1:
            bits |= OUT_BIT
        return aim_word(pile, bits)

    # ---- V9.3: a cover ----

    def press(self, t: int, p: int, key: int, aim: int, tie: int) -> int:
        if self.over:
            return NOT_PLAYING
        stock = self.stock[p]
        if not stock:
            return EMPTY_SLOT  # nothing to cover with: the press does nothing
        col = key - 1
        pile = self.pile_for(p, col, aim)
        log = self.log
        if pile < 0:
            window = self.rules.race_window_ms
            late = t - self.changed_at[col] < window or t - self.changed_at[COLS + col] < window
            why = LATE if late else INVALID
            log.begin(EV_REJECT, t, p, why)
            log.number(b',"p":', p)
            log.number(b',"row":', self.target[p])
            log.number(b',"col":', col)
            log.word(b',"why":', b"late" if late else b"invalid")
            tie_field(log, tie)
            log.end()
            return why
        card = take_top(stock)
        self.grid[pile].append(card)
        self.changed_at[pile] = t
        self.last_cover = pile
        log.begin(EV_COVER, t, p)
        log.number(b',"p":', p)
        log.number(b',"row":', pile // COLS)
        log.number(b',"col":', col)
        log.card(b',"card":', card)
        tie_field(log, tie)
        log.end()
        if not stock:  # V9.4: the last card of the stock: out
            self._end(t, p, b"out")
            return PLAYED
        self._update_live()
        self._check_stall(t)
        return PLAYED

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
        self._end(t, NULL_PLAYER, b"blocked")

    def abandon(self, t: int) -> None:
        """R17: the round ends without a result (the match stops)."""
        self._end(t, NULL_PLAYER, b"abandoned")

    def _end(self, t: int, winner: int, why) -> None:
        """V9.5: each player's row goes under their stock, place 1 first, each pile top first."""
        gathered = self._gathered
        for p in range(2):
            # top last: place 5's pile (bottom first) lowest, ..., the old stock on top
            gathered[0:] = b""
            for col in range(COLS - 1, -1, -1):
                pile = self.grid[p * COLS + col]
                for card in pile:
                    gathered.append(card)
                pile[0:] = b""
            stock = self.stock[p]
            for card in stock:
                gathered.append(card)
            stock[0:] = b""
            for card in gathered:
                stock.append(card)
            self._left[p] = len(stock)
        self._hand_over(t, winner, why, self._left)

    def match_winner(self, wins, best_of: int, rounds: int) -> int:
        """V9.4: the player who covered with their last card wins; V9.7: max_rounds."""
        if self.winner != NULL_PLAYER:
            return self.winner
        if rounds >= self.rules.max_rounds:
            self.match_why = b"max_rounds"
            left0 = len(self.stock[0])
            left1 = len(self.stock[1])
            if left0 == left1:
                return NULL_PLAYER
            return 0 if left0 < left1 else 1
        return CONTINUE
