"""A read-only view of one hand for one player: what that player may see and do.

Each answer is one ``core.Hand`` reading (what that player sees): the simulator and
tests read positions through it; on the board the classic view (``view.PlayerView``)
and the opponent's brain (``opponent.Brain``) make those same readings on the hand
they are given, so the board loads no ``Seat`` (a module and an object less on a
match's heap, docs/device.md). It holds no state of its own and changes nothing:
every answer is read from the ``core.Hand`` when asked, so one ``Seat`` made at the
start of a match stays right for every hand of it. Reading allocates nothing.
"""

from speedduo.vocab.cards import HAND_SLOTS


class Seat:
    """Player ``player``'s side of ``hand`` (docs/rules.md R2 layout)."""

    def __init__(self, hand, player: int) -> None:
        self.hand = hand
        self.player = player
        self.base = player * HAND_SLOTS  # this player's first hand slot in the hand's table

    def card(self, slot: int) -> int:
        """The card in hand slot ``slot`` (0-4, over button slot+1); NO_CARD: empty."""
        return self.hand.hand[self.base + slot]

    def draw_count(self) -> int:
        """Cards in this player's draw pile (R7 refills the hand from it)."""
        return self.hand.draw_n[self.player]

    def side_count(self) -> int:
        """Cards in this player's side pile (R9 flips from it)."""
        return self.hand.side_n[self.player]

    def cards_left(self) -> int:
        """Hand + draw pile (R11, R12, R15)."""
        return self.hand.cards_left(self.player)

    def opponent_cards_left(self) -> int:
        return self.hand.cards_left(1 - self.player)

    def target(self) -> int:
        """The centre pile a card that fits both goes to (L: 0, R: 1)."""
        return self.hand.target[self.player]

    def locked_until(self) -> int:
        """R16: hand time until which this player's presses are refused (0: never was)."""
        return self.hand.locked_until[self.player]

    def top(self, pile: int) -> int:
        """The face-up top of centre pile 0 (left on every screen) or 1."""
        return self.hand.top(pile)

    def playable_mask(self) -> int:
        """Bit s set when slot s's card fits a centre pile now (R5): the legal plays."""
        return self.hand.playable_mask(self.player)

    def first_playable(self) -> int:
        """The first slot with a legal play (R5); -1: none."""
        return self.hand.first_playable(self.player)

    def is_out(self) -> bool:
        """R12: hand and draw pile both empty."""
        return self.hand.is_out(self.player)

    def opponent_is_out(self) -> bool:
        """R12 for the other player (V5's race form: then either may claim)."""
        return self.hand.is_out(1 - self.player)
