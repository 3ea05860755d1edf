"""An independent referee: rebuilds every pile from a match log alone and checks each event.

It shares no code with lib/: its own card and rank logic, written from
docs/rules.md and docs/match-log.md, so a bug in the core cannot hide behind itself.
"""

RANKS = "A23456789TJQK"
JOKERS = ("X1", "X2")  # V3


class RefereeError(AssertionError):
    pass


def rank(card):
    return RANKS.index(card[0])


def fits(card, top, rules):
    if card in JOKERS or top in JOKERS:  # V3: a joker goes on anything, anything on a joker
        return True
    a, b = rank(card), rank(top)
    if rules.get("same_rank") and a == b:
        return True
    if rules.get("no_wrap"):
        return abs(a - b) == 1
    return (a - b) % 13 in (1, 12)


class Referee:
    def __init__(self):
        self.rules = None
        self.events = 0

    def check_log(self, lines):
        import json

        for number, line in enumerate(lines, 1):
            try:
                self.check(json.loads(line))
            except RefereeError as e:
                raise RefereeError(f"line {number}: {e}\n  {line}") from None

    def fail(self, message):
        raise RefereeError(message)

    def check(self, e):
        ev = e["ev"]
        self.events += 1
        getattr(self, "_" + ev)(e)
        if ev not in ("match", "match_end", "keys"):
            self._conserved()

    def _keys(self, e):
        """Key events that did not fit on the next line (docs/match-log.md): nothing moves."""

    def _match(self, e):
        self.rules = e["rules"]
        self.wins = [0, 0]
        self.hand_events = 0
        self.in_hand = False

    def _deal(self, e):
        self.hands = [list(h) for h in e["hands"]]
        self.draw = [list(d) for d in e["draw"]]
        self.side = [list(s) for s in e["side"]]
        self.piles = [[(c, 0) for c in p] for p in e["piles"]]  # (card, time covered)
        self.reserve = []
        self.locked = [0, 0]
        self.in_hand = True
        self.hand_events = 0
        self.stall_pending = False
        self.plays_since_redeal = 0

    def _conserved(self):
        if not self.in_hand:
            return
        cards = [c for h in self.hands for c in h if c is not None]
        cards += [c for d in self.draw for c in d] + [c for s in self.side for c in s]
        cards += [c for p in self.piles for c, _ in p] + self.reserve
        copies = 2 if self.rules.get("double_deck") else 1  # V4
        size = 52 * copies + (2 if self.rules.get("jokers") else 0)  # V3
        counts = {}
        for c in cards:
            counts[c] = counts.get(c, 0) + 1
        too_many = [c for c, n in counts.items() if n > (1 if c in JOKERS else copies)]
        if len(cards) != size or too_many:
            self.fail(f"{len(cards)} cards of {size}, {too_many} too often: a card lost or doubled")
        for h in self.hands:
            if len(h) != 5:
                self.fail("a hand has more than 5 slots")
        self.hand_events += 1
        if self.hand_events > 5000:
            self.fail("the hand does not end")

    def _top(self, pile):
        return self.piles[pile][-1][0]

    def _last_card(self, p):
        return sum(c is not None for c in self.hands[p]) + len(self.draw[p]) == 1

    def _can_play(self, p):
        return any(
            c is not None
            and not (c in JOKERS and self._last_card(p))  # V3: never a joker last
            and (fits(c, self._top(0), self.rules) or fits(c, self._top(1), self.rules))
            for c in self.hands[p]
        )

    def _play(self, e):
        p, slot, card, pile, t = e["p"], e["slot"], e["card"], e["pile"], e["t"]
        if self.hands[p][slot] != card:
            self.fail(f"play of {card} but slot {slot} holds {self.hands[p][slot]}")
        if not fits(card, self._top(pile), self.rules):
            self.fail(f"illegal play: {card} on {self._top(pile)}")
        if card in JOKERS and self._last_card(p):
            self.fail("a joker played as the last card (V3)")
        if self.rules.get("penalty") and t < self.locked[p]:
            self.fail("a locked-out player played")
        if self.stall_pending:
            self.fail("a play during a stall countdown")
        top, _ = self.piles[pile][-1]
        self.piles[pile][-1] = (top, t)
        self.piles[pile].append((card, 0))
        self.hands[p][slot] = None
        self.plays_since_redeal += 1

    def _draw(self, e):
        p, slot, card = e["p"], e["slot"], e["card"]
        if self.hands[p][slot] is not None:
            self.fail("refill into a slot that is not empty")
        if not self.draw[p] or self.draw[p][0] != card:
            self.fail(f"draw of {card} but the draw pile top is {self.draw[p][:1]}")
        self.hands[p][slot] = self.draw[p].pop(0)

    def _reject(self, e):
        p, slot, card, t, why = e["p"], e["slot"], e["card"], e["t"], e["why"]
        if self.hands[p][slot] != card:
            self.fail(f"reject of {card} but slot {slot} holds {self.hands[p][slot]}")
        fits_now = fits(card, self._top(0), self.rules) or fits(card, self._top(1), self.rules)
        if why == "locked":
            if not (self.rules.get("penalty") and t < self.locked[p]):
                self.fail("refused as locked without a lock-out")
            return
        if why == "joker_last":
            if not (self.rules.get("jokers") and card in JOKERS and self._last_card(p)):
                self.fail("refused as joker_last but it is not a joker as the last card (V3)")
            return
        if fits_now:
            self.fail(f"{card} fits a pile but was refused as {why}")
        window = self.rules["race_window_ms"]
        # a card covered less than race_window_ms ago that this card fitted
        late = any(
            t - covered < window and fits(card, c, self.rules)
            for pile in self.piles
            for c, covered in pile[:-1]
        )
        if why == "late" and not late:
            self.fail("refused as late but no top it fitted changed within the race window")
        if why == "invalid" and late:
            self.fail("refused as invalid but it lost a race (should be late)")

    def _penalty(self, e):
        if not self.rules.get("penalty"):
            self.fail("penalty with R16 off")
        self.locked[e["p"]] = e["until"]

    def _stall(self, e):
        if self._can_play(0) or self._can_play(1):
            self.fail("stall declared while a player can play")
        self.stall_pending = True

    def _flip(self, e):
        p, card = e["p"], e["card"]
        if not self.side[p] or self.side[p][0] != card:
            self.fail(f"flip of {card} but side pile {p} top is {self.side[p][:1]}")
        if e["pile"] != p:
            self.fail("a side card goes onto its own player's pile")
        self.side[p].pop(0)
        top, _ = self.piles[p][-1]
        self.piles[p][-1] = (top, e["t"])
        self.piles[p].append((card, 0))
        self.stall_pending = False

    def _redeal(self, e):
        if self.rules.get("pile_redeal"):
            for p in range(2):
                under = [c for c, _ in self.piles[p][:-1]]
                new = list(e["side"][p])
                if new[: len(self.side[p])] != self.side[p] or sorted(
                    new[len(self.side[p]) :]
                ) != sorted(under):
                    self.fail("V7 redeal does not match the centre pile")
                self.piles[p] = self.piles[p][-1:]
                self.side[p] = new
        else:
            gathered = [c for p in self.piles for c, _ in p[:-1]]
            gathered += [c for s in self.side for c in s] + self.reserve
            new = [c for s in e["side"] for c in s]
            if not set(new) <= set(gathered) or len(new) != min(10, len(gathered)):
                self.fail("R10 redeal deals cards that were not gathered, or too few/many")
            if abs(len(e["side"][0]) - len(e["side"][1])) > 1 or max(map(len, e["side"])) > 5:
                self.fail("R10 redeal is not alternate, at most 5 each")
            self.reserve = [c for c in gathered if c not in set(new)]
            self.piles = [p[-1:] for p in self.piles]
            self.side = [list(s) for s in e["side"]]
        self.plays_since_redeal = 0

    def _hand_end(self, e):
        left = [sum(c is not None for c in self.hands[p]) + len(self.draw[p]) for p in range(2)]
        if e["left"] != left:
            self.fail(f"left {e['left']} but the piles say {left}")
        w, why = e["winner"], e["why"]
        if why == "out" and left[w] != 0:
            self.fail("out but cards remain")
        if why == "dead_stall":
            expect = None if left[0] == left[1] else (0 if left[0] < left[1] else 1)
            if w != expect:
                self.fail(f"dead stall winner {w}, expected {expect}")
            if self._can_play(0) or self._can_play(1):
                self.fail("dead stall while a player can play")
        if why in ("photo_finish", "abandoned") and w is not None:
            self.fail(f"{why} must have no winner")
        sweep = w is not None and left[1 - w] >= self.rules.get("sweep_cards", 10)
        if e["sweep"] != sweep:
            self.fail("sweep flag wrong")
        if w is not None:
            self.wins[w] += 1
        self.in_hand = False

    def _match_end(self, e):
        if e["score"] != self.wins:
            self.fail(f"score {e['score']} but hands won {self.wins}")
