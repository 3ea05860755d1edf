"""The match log of V10, Speed for three or four players (docs/match-log.md, version 2).

V10's rules core is classic Speed's (``game/core.py``'s ``Hand`` with 3 or 4 players),
which writes its events through ``put_*`` calls as it does into version 1's records
(``matchlog.MatchLog``). ``V10Log`` is a ``gamelog.GameLog`` that turns each of those
calls into the version 2 line of V10: the ``match`` line, the key record and the
``match_end`` line are GameLog's; the deal's lists and each hand end's cards left are
read from the core it is given. The simulator's only: V10 never runs on the board
(two rows of keys), so nothing here needs to be allocation-free, and the board's program
never imports it (firmware/deploy.py: ``HOST_ONLY``).
"""

from speedduo.log.gamelog import GameLog
from speedduo.log.matchlog import END_WHY  # the hand_end line's why, by codes.END_*
from speedduo.vocab.cards import HAND_SLOTS, NO_CARD, card_name
from speedduo.vocab.codes import (
    END_OUT,
    EV_DEAL,
    EV_DRAW,
    EV_FLIP,
    EV_HAND_END,
    EV_PLAY,
    EV_REDEAL,
    EV_REJECT,
    EV_STALL,
    LATE,
    NO_T,
    TIE_LOST,
    TIE_WON,
)


class V10Log(GameLog):
    """Version 2 lines for the ``put_*`` calls of a V10 ``core.Hand`` (``core``)."""

    def __init__(self, core, micro: bool = False) -> None:
        GameLog.__init__(self, micro)
        self.core = core

    def put_deal(self, hand_no: int, size: int, deck_chunks) -> None:
        """V10.1's deal: each player's hand (slot order), draw, side and centre pile (top
        first), the reserve (top first)."""
        core = self.core
        n = core.players
        cap = core.pile_cap
        hands = [
            [card_name(core.hand[p * HAND_SLOTS + s]) for s in range(HAND_SLOTS)] for p in range(n)
        ]
        self._put(
            EV_DEAL,
            [
                ("hand_no", hand_no),
                ("hands", hands),
                ("draw", [_names(core.draw, p * cap, core.draw_n[p]) for p in range(n)]),
                ("side", [_names(core.side, p * cap, core.side_n[p]) for p in range(n)]),
                ("piles", [_names(core.centre, p * cap, core.centre_n[p]) for p in range(n)]),
                ("reserve", _names(core.reserve, 0, core.reserve_n)),
            ],
        )

    def put_play(self, t, p, slot, card, pile, tie, drawn) -> None:
        """A play and, when its slot was refilled (R7), the ``draw`` line."""
        fields = [("t", t), ("p", p), ("slot", slot), ("card", card_name(card)), ("pile", pile)]
        _tie(fields, tie)
        self._put(EV_PLAY, fields)
        if drawn != NO_CARD:
            self._put(EV_DRAW, [("t", t), ("p", p), ("slot", slot), ("card", card_name(drawn))])

    def put_reject(self, t, p, slot, card, pile, why, tie) -> None:
        """R8: ``late`` (``pile``: the pile it was late for) or ``invalid``."""
        fields = [("t", t), ("p", p), ("slot", slot), ("card", card_name(card)), ("pile", pile)]
        fields.append(("why", "late" if why == LATE else "invalid"))
        _tie(fields, tie)
        self._put(EV_REJECT, fields)

    def put_stall(self, t, due) -> None:
        self.begin(EV_STALL, t)
        self.number(b',"due":', due)
        self.end()

    def put_flip(self, t, p, card) -> None:
        self._put(EV_FLIP, [("t", t), ("p", p), ("card", card_name(card)), ("pile", p)])

    def put_redeal(self, t, side, side_n, cap) -> None:
        """R10 (V10.3): every player's new side pile, top first."""
        piles = [_names(side, p * cap, side_n[p]) for p in range(len(side_n))]
        self._put(EV_REDEAL, [("t", t), ("side", piles)])

    def put_hand_end(self, t, winner, left0, left1, sweep, why, overflows) -> None:
        """The hand's end: every player's cards left (the core's), R15's sweep."""
        core = self.core
        left = [core.cards_left(p) for p in range(core.players)]
        self.begin(EV_HAND_END, t, winner, END_OUT if why == END_OUT else 0)
        self.player(b',"winner":', winner)
        self.word(b',"why":', END_WHY[why])
        self.numbers(b',"left":', left, len(left))
        self.flag(b',"sweep":', bool(sweep))
        self.end()

    def _put(self, ev: int, fields) -> None:
        """One line of event ``ev`` (codes.EV_*): ``fields`` are (name, value) pairs, written
        compact in that order."""
        self.begin(ev, NO_T)
        for name, value in fields:
            self.raw((',"%s":%s' % (name, _json(value))).encode())
        self.end()


def _tie(fields, tie: int) -> None:
    if tie == TIE_WON:
        fields.append(("tie", "won"))
    elif tie == TIE_LOST:
        fields.append(("tie", "lost"))


def _names(pile, base: int, n: int):
    """A pile's ``n`` cards from ``pile[base]`` (top last) as the log lists them: top first."""
    return [card_name(pile[base + k]) for k in range(n - 1, -1, -1)]


def _json(value) -> str:
    """A value (int, word, or a list of these) as compact JSON."""
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return '"' + value + '"'
    return "[" + ",".join([_json(item) for item in value]) + "]"
