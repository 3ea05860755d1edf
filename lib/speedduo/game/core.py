"""The rules core: one hand of Speed as one state object (docs/rules.md R1-R13, R16; V10).

Pure Python, no I/O, no clock: every entry point takes ``t``, milliseconds
since the hand's start signal (R3). Cards are small ints (``cards.py``); every
pile is a stack in a preallocated ``bytearray`` with its top at the end. The
play path (``play``) allocates nothing: it moves bytes and records fixed-width
events in the match log's ring.

Variants handled here: V1 (no wrap), V2 (same rank), V3 (jokers), V4 (double
deck), V5 (claim); H2's fewer cards (a player with k hand slots: ``deal``); V10,
Speed for three or four players (``Hand(rules, log, players)``: one centre pile per
player, V10.1's deal, L/R round the table; the simulator's only, its log the version 2
lines of ``log/v10log.py``). What a stall's end does (R9-R11, V6 end on exhaustion, V7
pile redeal) is in ``stall.py``; the match around hands (R14, R15, R17) in ``match.py``
(V10: ``gamematch.GameMatch``).
"""

from array import array

from micropython import const  # on the host, Blinka provides this module

try:
    from typing import Any  # noqa: F401  (type comments only; the board has no typing)
except ImportError:
    pass

from speedduo.game.phases import CONTINUE, OUT_BIT, StallCountdown, aim_word
from speedduo.game.rules import CLAIM_OFF, CLAIM_RACE
from speedduo.game.stall import stall_ends
from speedduo.vocab.cards import (
    DECK_SIZE,
    DRAW_CARDS,
    HAND_SLOTS,
    JOKER1,
    NO_CARD,
    RANKS,
    SIDE_CARDS,
    deck_codes,
    deck_size,
)
from speedduo.vocab.codes import (  # noqa: F401  (the results of play(), re-exported)
    EMPTY_SLOT,
    END_ABANDONED,
    END_CLAIM,
    END_OUT,
    END_PHOTO_FINISH,
    INVALID,
    JOKER_LAST,
    KEY_L,
    KEY_R,
    KEYS_PER_PLAYER,
    LATE,
    LOCKED,
    NOT_PLAYING,
    NULL_PLAYER,
    PLAYED,
)

# results of play(): speedduo.vocab.codes (PLAYED, LATE, INVALID, LOCKED, EMPTY_SLOT, NOT_PLAYING)

_CLAIM_BIT = const(4)  # aim: V5's claim (bits 0 and 1: the centre piles)
_NO_TIME = const(-1)
_CODES = const(106)  # card codes 0..105: two decks (V4) and the jokers (V3)
_JOKER_BIT = const(1 << 13)  # V3: a joker's rank bit
_ALL_RANKS = const((1 << 14) - 1)  # V3: anything goes on a joker

# R5 as lookups. _RANK_BIT[card] is the card's rank as one bit (0 for NO_CARD and
# codes that are no card; a second deck's card has its rank's bit, a joker bit 13);
# a fits table (_fits_table) holds, for each top card, the bits of every rank that
# may be played on it, built once per rule variant and shared by every Hand. Arrays
# of 16-bit numbers: on the board half the heap of a list (about 700 bytes less).
_RANK_BIT = array("H", [0] * 256)
for _card in range(2 * DECK_SIZE):
    _RANK_BIT[_card] = 1 << ((_card % DECK_SIZE) >> 2)
_RANK_BIT[JOKER1] = _JOKER_BIT
_RANK_BIT[JOKER1 + 1] = _JOKER_BIT
_FITS = [None, None, None, None]  # type: list  # by variant: 2 * no_wrap (V1) + same_rank (V2)


def _fits_table(no_wrap: bool, same_rank: bool):
    """The fits-on table of one rule variant (R5 with R1's wrap, V1, V2; V3: a joker goes
    on anything and anything on a joker), built on first use."""
    variant = (2 if no_wrap else 0) + (1 if same_rank else 0)
    table = _FITS[variant]
    if table is None:
        table = array("H", [_ALL_RANKS] * _CODES)  # the jokers' entries stay: anything fits
        for card in range(2 * DECK_SIZE):
            rank = (card % DECK_SIZE) >> 2
            if no_wrap:  # V1: Ace low, King high
                mask = (2 << rank if rank < RANKS - 1 else 0) | (1 << rank >> 1)
            else:  # R1: ranks form a circle
                mask = (1 << (rank + 1) % RANKS) | (1 << (rank - 1) % RANKS)
            if same_rank:  # V2
                mask |= 1 << rank
            table[card] = mask | _JOKER_BIT
        _FITS[variant] = table
    return table


def _ranks_held(hand, b: int) -> int:
    """The ranks in the five hand slots from ``hand[b]`` on, one bit each (R5 lookups)."""
    return (
        _RANK_BIT[hand[b]]
        | _RANK_BIT[hand[b + 1]]
        | _RANK_BIT[hand[b + 2]]
        | _RANK_BIT[hand[b + 3]]
        | _RANK_BIT[hand[b + 4]]
    )


class Hand(StallCountdown):
    """The state of one hand: hands, draw, side and centre piles, reserve, timers."""

    match_why = b""  # (phases.Phases: classic Speed's match end has no reason)
    game = "speed"  # (the log's header: version 1 has no game field)

    def __init__(self, rules, log, players: int = 2) -> None:
        if players != 2 and players != 3 and players != 4:
            raise ValueError("V10 plays with 3 or 4 players")
        self.players = players  # 2; V10: 3 or 4
        self.rules = rules
        self.log = log
        # R2 layout. Slot s of player p is hand[p * 5 + s]; NO_CARD when empty.
        self.hand = bytearray(players * HAND_SLOTS)
        self.hand_n = bytearray(players)
        # the deck of this match's variant (V3, V4: fixed when the match makes its Hand)
        size = deck_size(rules.jokers, rules.double_deck)
        # every pile can hold the whole deck: a pile of player (or centre pile) p is
        # [p * pile_cap ...] of its buffer (52 bytes a pile in classic Speed, 106 with V3+V4)
        self.pile_cap = size
        self.draw = bytearray(players * size)
        self.draw_n = bytearray(players)
        self.side = bytearray(players * size)
        self.side_n = bytearray(players)
        self.centre = bytearray(players * size)  # one centre pile per player (V10.2)
        self.centre_n = bytearray(players)
        self.covered_at = array("i", bytes(4 * players * size))  # when centre card k was covered
        self.reserve = bytearray(size)  # R10
        self.reserve_n = 0
        self.target = bytearray(players)  # each player's target pile (input issue)
        self.hand_mask = [0] * players  # ranks held in each hand, one bit each
        self.room = 0  # ranks that fit any centre pile now, one bit each
        self.locked_until = array("i", [0] * players)  # R16
        self.hand_no = 0
        self.held = None  # type: Any  # the match's keys down (V5's claim: L and R held)
        self._clear(True)
        each = size // players  # R2: each player's share, in cards.DEAL_* order
        draw = DRAW_CARDS  # the side pile: the rest of the share (5; 6 with jokers, 31 with
        if players != 2:  # two decks); V10.1: five side cards, the rest draws (6 or 2 each)
            draw = each - HAND_SLOTS - 1 - SIDE_CARDS
        self._fresh_deck = deck_codes(rules.jokers, rules.double_deck)
        self._deck = bytearray(size)
        # views of the shuffled deck, made once: a deal copies them without allocating
        # (player p's draw pile, hand and side pile; the starters' places)
        deck = memoryview(self._deck)
        parts = []
        for p in range(players):
            at = p * each
            parts.append(deck[at : at + draw])
            parts.append(deck[at + draw : at + draw + HAND_SLOTS])
            parts.append(deck[at + draw + HAND_SLOTS + 1 : at + each])
        self._deal_parts = tuple(parts)
        # the deck in the log's card records, 13 a record
        self._deck_chunks = tuple(deck[k : min(k + 13, size)] for k in range(0, size, 13))
        self._rng = None  # type: Any  # the match's stream, given at every deal
        self._fits_on = _fits_table(rules.no_wrap, rules.same_rank)

    def _clear(self, over: bool) -> None:
        """The per-hand timers and results, as at a deal (or "no hand yet")."""
        self.stall_due = _NO_TIME  # R9: when the visible countdown ends
        self.plays_since_redeal = 0  # R11
        self.redeals = 0
        self.over = over
        self.winner = NULL_PLAYER
        self.end_why = 0
        self.end_t = 0
        self.overflows = 0  # key events the keypad queue dropped during this hand

    # ---- R2/R3: deal and start ----

    def deal(self, rng, hand_no: int) -> None:
        """R2: shuffle and deal half the deck each (26 cards; V3 27, V4 52);
        R3: both starters face up at t=0. H2 (``hand_slots_p1``/``_p2``): a player with k < 5
        hand slots gets the same cards, those of slots k..4 on top of the draw pile (slot
        4's on top), those slots empty: refills (R7) then never pass k. V10.1: one deck,
        5 hand, 1 starter and 5 side cards each, the draw piles take the rest (6 each with
        three players, the card left over starts the reserve; 2 each with four)."""
        rules = self.rules
        self._fits_on = _fits_table(rules.no_wrap, rules.same_rank)
        deck = self._deck
        deck[:] = self._fresh_deck
        size = len(deck)
        rng.shuffle(deck, 0, size)
        self._rng = rng  # R10/V7 redeals shuffle from the same stream
        self.hand_no = hand_no
        parts = self._deal_parts  # cards.DEAL_*: who gets which cards of the deck
        cap = self.pile_cap
        # H2 (rules.hand_slots, read here without a tuple: the deal allocates nothing)
        slots0 = getattr(rules, "hand_slots_p1", HAND_SLOTS)
        slots1 = getattr(rules, "hand_slots_p2", HAND_SLOTS)
        players = self.players
        for p in range(players):
            at = p * cap
            draw = len(parts[3 * p])
            self.draw[at : at + draw] = parts[3 * p]
            self.hand[p * HAND_SLOTS : (p + 1) * HAND_SLOTS] = parts[3 * p + 1]
            side = len(parts[3 * p + 2])  # 5; 6 with jokers, 31 with two decks; V10: 5
            self.side[at : at + side] = parts[3 * p + 2]
            self.centre[at] = deck[p * (size // players) + draw + HAND_SLOTS]  # the starter
            k = slots0 if p == 0 else slots1 if p == 1 else HAND_SLOTS
            self.hand_n[p] = k
            base = p * HAND_SLOTS
            for s in range(k, HAND_SLOTS):  # H2: the slot's card onto the draw pile
                self.draw[at + draw + s - k] = self.hand[base + s]
                self.hand[base + s] = NO_CARD
            self.draw_n[p] = draw + HAND_SLOTS - k
            self.side_n[p] = side
            self.centre_n[p] = 1
            self.covered_at[at] = 0
            self.target[p] = p  # each player starts aiming at their own pile
            self.locked_until[p] = 0
            self._update_mask(p)
        n = 0
        for k in range(size - size % players, size):  # V10.1: a card left over (R10's reserve)
            self.reserve[n] = deck[k]
            n += 1
        self.reserve_n = n
        self._clear(False)
        self.log.put_deal(hand_no, size, self._deck_chunks)
        self._check_stall(0)

    # ---- what a player sees ----

    def top(self, pile: int) -> int:
        """The face-up top card of a centre pile (0 or 1; V10: 0 .. players - 1)."""
        return self.centre[pile * self.pile_cap + self.centre_n[pile] - 1]

    def slot_card(self, p: int, slot: int) -> int:
        return self.hand[p * HAND_SLOTS + slot]

    def cards_left(self, p: int) -> int:
        """Hand + draw pile: what R11 and R15 count."""
        return self.hand_n[p] + self.draw_n[p]

    def fits(self, card: int, pile: int) -> bool:
        """R5 (with R1's wrap, V1, V2): may ``card`` go on centre pile ``pile`` now?"""
        return (_RANK_BIT[card] & self._fits_on[self.top(pile)]) != 0

    def pile_for(self, p: int, card: int) -> int:
        """The pile a card goes to: the target pile when it fits there, else the first pile
        it fits counting on from the target (two piles: the one it fits; V10.5); -1."""
        bit = _RANK_BIT[card]
        fits = self._fits_on
        centre = self.centre
        centre_n = self.centre_n
        cap = self.pile_cap
        piles = self.players
        pile = self.target[p]
        for _ in range(piles):
            if bit & fits[centre[pile * cap + centre_n[pile] - 1]]:
                return pile
            pile += 1
            if pile == piles:
                pile = 0
        return -1

    def playable_mask(self, p: int) -> int:
        """Bit s set when player p's slot s holds a card that may be played now (R5, V3)."""
        room = self.room
        if not self.hand_mask[p] & room:
            return 0
        room &= self.hand_mask[p]  # (V3: without a joker that would be the last card)
        hand = self.hand
        base = p * HAND_SLOTS
        mask = 0
        for s in range(HAND_SLOTS):
            if _RANK_BIT[hand[base + s]] & room:
                mask |= 1 << s
        return mask

    def first_playable(self, p: int) -> int:
        """The first hand slot of player p whose card fits a centre pile now (R5); -1: none."""
        room = self.room
        if not self.hand_mask[p] & room:
            return -1
        hand = self.hand
        base = p * HAND_SLOTS
        for s in range(HAND_SLOTS):
            if _RANK_BIT[hand[base + s]] & room:
                return s
        return -1

    def _update_room(self) -> None:
        """``room``: the ranks that fit any centre pile (after any change to a top)."""
        fits = self._fits_on
        centre = self.centre
        centre_n = self.centre_n
        cap = self.pile_cap
        room = 0
        for pile in range(self.players):
            room |= fits[centre[pile * cap + centre_n[pile] - 1]]
        self.room = room

    def is_out(self, p: int) -> bool:
        """R12: hand and draw pile both empty."""
        return self.hand_n[p] == 0 and self.draw_n[p] == 0

    # ---- R4-R8, R16: a play ----

    def play(self, t: int, p: int, slot: int, pile: int = -1, tie: int = 0) -> int:
        """Player p presses the button under hand slot ``slot`` at time t.

        The card goes to the pile it fits, or to the player's target pile when
        it fits both (``pile_for``; V10: counting on from the target). The
        arbiter passes ``pile`` when it settled the destination on the state all
        presses of one timestamp saw, and ``tie`` (TIE_WON/TIE_LOST) when the press
        was part of a settled tie.
        Returns PLAYED, LATE (R8), INVALID, LOCKED (R16), EMPTY_SLOT or NOT_PLAYING.
        """
        if self.over:
            return NOT_PLAYING
        hand = self.hand
        i = p * HAND_SLOTS + slot
        card = hand[i]
        if card == NO_CARD:
            return EMPTY_SLOT
        centre = self.centre
        centre_n = self.centre_n
        cap = self.pile_cap
        fits = self._fits_on
        bit = _RANK_BIT[card]
        two = self.players == 2
        if two:  # pile_for, inlined for two piles: the tops are needed again below
            top0 = centre[centre_n[0] - 1]
            top1 = centre[cap + centre_n[1] - 1]
            on0 = bit & fits[top0]
            on1 = bit & fits[top1]
            if pile < 0 or not (on1 if pile else on0):
                if on0:
                    pile = self.target[p] if on1 else 0
                else:
                    pile = 1 if on1 else -1
        elif pile < 0 or not bit & fits[centre[pile * cap + centre_n[pile] - 1]]:
            pile = self.pile_for(p, card)  # V10: more piles
        if t < self.locked_until[p] and self.rules.penalty:  # R16 lock-out
            aim = pile if pile >= 0 else self.target[p]
            self.log.put_reject(t, p, slot, card, aim, LOCKED, tie)
            return LOCKED
        if bit == _JOKER_BIT and self.hand_n[p] + self.draw_n[p] == 1:  # V3
            self.log.put_reject(t, p, slot, card, pile, JOKER_LAST, tie)
            return JOKER_LAST
        if pile < 0:
            return self._refuse(t, p, slot, card, tie)
        # R5/R6: one card onto the pile it fits.
        n = centre_n[pile]
        centre_n[pile] = n + 1
        k = pile * cap + n
        self.covered_at[k - 1] = t
        centre[k] = card
        self.plays_since_redeal += 1
        d = self.draw_n[p]
        if d:  # R7: refill the emptied slot at once
            d -= 1
            self.draw_n[p] = d
            drawn = self.draw[p * cap + d]
        else:
            drawn = NO_CARD
            self.hand_n[p] -= 1
        hand[i] = drawn
        self.log.put_play(t, p, slot, card, pile, tie, drawn)
        mask = _ranks_held(hand, i - slot)
        if not d and self.hand_n[p] == 1:  # V3: a joker may not be the last card
            mask &= ~_JOKER_BIT
        self.hand_mask[p] = mask
        if not d and self.hand_n[p] == 0 and self.rules.claim_mode == CLAIM_OFF:
            self._end(t, p, END_OUT)  # R12: hand and draw pile empty
            return PLAYED
        if two:
            room = fits[card] | fits[top1 if pile == 0 else top0]
            self.room = room
            mask |= self.hand_mask[1 - p]
        else:  # V10: every pile, every hand
            self._update_room()
            room = self.room
            held = self.hand_mask
            for q in range(self.players):
                mask |= held[q]
        # R9 (_check_stall, inlined): can anyone play on the new tops?
        if self.stall_due == _NO_TIME and not mask & room:
            self._declare_stall(t)
        return PLAYED

    def _refuse(self, t: int, p: int, slot: int, card: int, tie: int) -> int:
        """R8: a miss right after a top changed under it is late; otherwise invalid."""
        bit = _RANK_BIT[card]
        window = self.rules.race_window_ms
        for pile in range(self.players):
            base = pile * self.pile_cap
            k = self.centre_n[pile] - 2  # the card the current top covered
            while k >= 0 and t - self.covered_at[base + k] < window:
                if bit & self._fits_on[self.centre[base + k]]:
                    self.log.put_reject(t, p, slot, card, pile, LATE, tie)
                    return LATE
                k -= 1
        self.log.put_reject(t, p, slot, card, self.target[p], INVALID, tie)
        if self.rules.penalty:  # R16
            until = t + self.rules.penalty_ms
            self.locked_until[p] = until
            self.log.put_penalty(t, p, until)
        return INVALID

    def set_target(self, p: int, pile: int) -> None:
        """The L/R buttons: where a card that fits both piles goes."""
        self.target[p] = pile

    def _update_mask(self, p: int) -> None:
        """hand_mask[p] (the ranks in player p's hand, one bit each) and ``room``, after a
        change to the layout made from outside (deal, a test's set-up)."""
        self._update_room()
        mask = _ranks_held(self.hand, p * HAND_SLOTS)
        if self.hand_n[p] + self.draw_n[p] == 1:  # V3: a joker may not be the last card
            mask &= ~_JOKER_BIT
        self.hand_mask[p] = mask

    # ---- V5: claim ----

    def claim(self, t: int, p: int) -> bool:
        """V5 "Speed!": the player who is out claims (race form: anyone, once one is out;
        ``aim`` says whether it would win now)."""
        if self.aim(p, KEY_L):
            self._end(t, p, END_CLAIM)
            return True
        return False

    # ---- one instant's presses (phases.Phases.step_group: R8 ties, R13, V5) ----

    @property
    def photo_finish_on_tie(self) -> bool:
        """R13: both players' last cards at one instant replay the hand (V5: a claim
        instead)."""
        return self.rules.claim_mode == CLAIM_OFF

    def setting(self, p: int, key: int) -> bool:
        """L or R alone aims the target pile (L: pile 0, R: pile 1, "the left / right pile
        on my screen": both screens draw pile 0 on the left); True when the press did
        only that. Pressed while the other is held, it is V5's claim (not a setting), or
        nothing when V5 is off. A slot's press is no setting. V10.5 (three or four
        players): L/R move the target one pile down/up, round the table."""
        if key != KEY_L and key != KEY_R:
            return False
        piles = self.players
        if piles != 2:
            self.target[p] = (self.target[p] + (1 if key == KEY_R else piles - 1)) % piles
            return True
        base = p * KEYS_PER_PLAYER
        if self.held[base + KEY_L] and self.held[base + KEY_R]:
            return self.rules.claim_mode == CLAIM_OFF
        self.target[p] = 0 if key == KEY_L else 1
        return True

    def aim(self, p: int, key: int) -> int:
        """What a press aims at (phases.aim_word), on the state every press of the instant
        saw: V5's claim, when it would win on that state (both players' at one instant are
        a tie; a play of the same instant that empties a hand does not make it); a slot's card,
        the pile it goes to (``pile_for``: the target when it fits both), with OUT_BIT
        when it would be p's legal last card (R13: only when V5 is off); 0: it fits
        nowhere now (``play`` looks again, after the instant's earlier plays)."""
        if key == KEY_L or key == KEY_R:  # V5: a claim, when it would win now
            mode = self.rules.claim_mode
            if self.over or mode == CLAIM_OFF:
                return 0
            if self.is_out(p) or (mode == CLAIM_RACE and (self.is_out(0) or self.is_out(1))):
                return aim_word(0, _CLAIM_BIT)
            return 0
        card = self.hand[p * HAND_SLOTS + key - 1]
        if card == NO_CARD:
            return 0
        pile = self.pile_for(p, card)
        if pile < 0:
            return 0
        bits = 1 << pile
        if (
            self.hand_n[p] + self.draw_n[p] == 1
            and _RANK_BIT[card] != _JOKER_BIT  # (V3: a last joker is refused)
            and self.photo_finish_on_tie
        ):
            bits |= OUT_BIT
        return aim_word(pile, bits)

    def press(self, t: int, p: int, key: int, pile: int, tie: int) -> int:
        """A press that ``aim`` answered, in its turn: V5's claim (``pile`` -1: it would not
        win on the state the instant saw, nothing happens), or a slot's card onto ``pile``
        (-1: wherever it fits now, ``play``)."""
        if key == KEY_L or key == KEY_R:
            if pile >= 0:
                self.claim(t, p)
            return NOT_PLAYING if self.over else PLAYED
        return self.play(t, p, key - 1, pile, tie)

    def bot_mask(self, p: int) -> int:
        """The keys that play a card for player p now, one bit each (bit k: key k; the
        simulator's bots for V10, loop/game_opponent.py)."""
        if self.over or self.stall_due != _NO_TIME:
            return 0
        return self.playable_mask(p) << 1

    def keys_lost(self) -> None:
        """The keypad dropped key events: counted against the hand in play (its log line)."""
        if not self.over:
            self.overflows += 1

    # ---- R9-R11: stalls ----

    def _check_stall(self, t: int) -> None:
        """R9: when nobody can play, the stall countdown starts (the core says when it is due)."""
        if self.over or self.stall_due != _NO_TIME:
            return
        masks = self.hand_mask
        held = masks[0] | masks[1]
        for p in range(2, self.players):  # V10
            held |= masks[p]
        if held & self.room:
            return
        self._declare_stall(t)

    def _stall_logged(self, t: int, due: int) -> None:
        self.log.put_stall(t, due)

    def _stall_ended(self, due: int) -> None:
        stall_ends(self, due)  # R9-R11: flip, redeal, or end the hand

    def photo_finish(self, t: int) -> None:
        """R13: two (or more: V10.4) played their last card with the same timestamp:
        replay the hand."""
        self._end(t, NULL_PLAYER, END_PHOTO_FINISH)

    def match_winner(self, wins, best_of: int, hands: int) -> int:
        """R14: the first to win more than half of best_of hands (CONTINUE: play on)."""
        for p in range(self.players):
            if wins[p] * 2 > best_of:
                return p
        return CONTINUE

    def abandon(self, t: int, why: int = END_ABANDONED) -> None:
        """End the hand without a result (R17 idle)."""
        self._end(t, NULL_PLAYER, why)

    def _end(self, t: int, winner: int, why: int) -> None:
        self.over = True
        self.winner = winner
        self.end_why = why
        self.end_t = t
        self.stall_due = _NO_TIME
        left0 = self.cards_left(0)
        left1 = self.cards_left(1)
        sweep = 1 if self.swept else 0
        overflows = self.overflows if self.overflows < 255 else 255
        self.log.put_hand_end(t, winner, left0, left1, sweep, why, overflows)

    @property
    def swept(self) -> bool:
        """R15: did the winner leave the loser (V10.4: every other player) with sweep_cards
        or more?"""
        winner = self.winner
        if winner == NULL_PLAYER:
            return False
        for p in range(self.players):
            if p != winner and self.cards_left(p) < self.rules.sweep_cards:
                return False
        return True
