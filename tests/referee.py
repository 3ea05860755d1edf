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


class LogChecker:
    """What every referee does with a log: check it line by line, each failure naming
    its line (``check(event)`` is the referee's own)."""

    def check_log(self, lines):
        import json

        pio = False
        self.head_start = None
        for number, line in enumerate(lines, 1):
            try:
                event = json.loads(line)
                if number == 1:
                    pio = event.get("stamped_by") == "pio"
                    self.start_head_start(event, pio)
                self.check_key_fields(event, pio)
                if self.head_start is not None:
                    self.check_adjusted_order(event)
                self.check(event)
            except RefereeError as e:
                raise RefereeError(f"line {number}: {e}\n  {line}") from None

    def check_key_fields(self, e, pio):
        """The key record's fields where docs/match-log.md allows them: a ``keys`` line holds
        key events only, ``keys_total`` rides with key events (and on match_end), a log the
        PIO stamped has no loss marks (it delays a press, never loses one) and is the only
        kind with ``late_us`` (match_end's, whole ms in µs)."""
        ev = e["ev"]
        field = "keys_us" if pio else "keys"
        if ev == "keys" and not set(e) <= {"ev", field, "keys_total"}:
            self.fail("a keys line holds key events only, not %s" % sorted(set(e) - {"ev"}))
        if "keys_total" in e and field not in e and ev != "match_end":
            self.fail("keys_total without key events")
        if pio and any(entry[1] < 0 for entry in e.get(field, ())):
            self.fail("a loss mark in a log the PIO stamped")
        if "late_us" in e:
            late = e["late_us"]
            if not pio or ev != "match_end":
                self.fail("late_us outside the match_end of a log the PIO stamped")
            if not (isinstance(late, int) and late > 0 and late % 1000 == 0):
                self.fail("late_us %r is not whole ms in µs" % (late,))

    # H1 (docs/rules.md), docs/match-log.md "A head start": which key decided a line.
    # Player p's keys are 7p ... 7p+6 (L 1 2 3 4 5 R); `pressed_key(e)` is the key whose
    # press the line decided, or None for a line no press decides.
    def pressed_key(self, e):
        return None

    def start_head_start(self, first, pio):
        """A log with ``head_start_ms`` on its match line: every line a press decided must
        be at that press's own time less its player's head start (never before the match
        began), in the order of those adjusted times."""
        lead = first.get("head_start_ms")
        if lead is None:
            return
        if not (
            isinstance(lead, list)
            and len(lead) == 2
            and all(isinstance(n, int) and 0 <= n <= 400 and n % 50 == 0 for n in lead)
            and lead != [0, 0]
        ):
            self.fail(f"head_start_ms {lead!r}: two of 0-400 ms in steps of 50, not both 0")
        self.head_start = lead
        self.key_field, self.key_unit = ("keys_us", 1000) if pio else ("keys", 1)
        self.presses = []  # [adjusted ms since the match began, key, decided yet]
        self.hand_start = 3000  # hand 1's start signal, in the key record's clock
        self.hand_starts = None  # a later hand's: the starts every line so far allows
        self.waiting = []  # (key, t, ev) decided before that start was known
        self.last_decided = -1  # the adjusted time of the hand's last decided line
        self.hand_end_at = 0  # when the last hand ended, since the match began

    def check_adjusted_order(self, e):
        for t, key, pressed in e.get(self.key_field, ()):
            if key >= 0 and pressed:
                own = t // self.key_unit
                self.presses.append([max(own - self.head_start[key // 7], 0), key, False])
        if e["ev"] == "hand_end":
            if self.hand_start is not None:
                self.hand_end_at = self.hand_start + e["t"]
            self.hand_start, self.hand_starts, self.waiting = None, None, []
            self.last_decided = -1
            return
        key = self.pressed_key(e)
        if key is None:
            return
        t = e["t"]
        if t < self.last_decided:
            self.fail(
                f"{e['ev']} of player {e['p']} at {t} decided after a press at adjusted "
                f"time {self.last_decided}: not in the adjusted order (H1)"
            )
        self.last_decided = t
        if self.hand_start is not None:
            self._decide(key, t, e["ev"])
            return
        # a later hand: its start signal is where every decided line's press puts it
        starts = {
            at - t
            for at, k, decided in self.presses
            if k == key and not decided and at - t >= self.hand_end_at
        }
        self.hand_starts = starts if self.hand_starts is None else self.hand_starts & starts
        self.waiting.append((key, t, e["ev"]))
        if not self.hand_starts:
            self.fail(
                f"{e['ev']} of player {e['p']} at {t}: no press of key {key} less its "
                f"player's head start {self.head_start[key // 7]} ms fits this hand's other "
                "lines (H1, head_start_ms)"
            )
        if len(self.hand_starts) == 1:
            (self.hand_start,) = self.hand_starts
            for k, at, ev in self.waiting:
                self._decide(k, at, ev)

    def _decide(self, key, t, ev):
        """Mark the press that decided the line at hand time ``t`` (the earliest left)."""
        for press in self.presses:
            if press[1] == key and not press[2] and press[0] - self.hand_start == t:
                press[2] = True
                return
        self.fail(
            f"{ev} of player {key // 7} at {t}: no press of key {key} at {t} ms after the "
            f"start signal once its player's head start ({self.head_start[key // 7]} ms, "
            "head_start_ms) is taken off (H1)"
        )

    def fail(self, message):
        raise RefereeError(message)


class Referee(LogChecker):
    def __init__(self):
        self.rules = None
        self.events = 0

    def pressed_key(self, e):
        """``1``-``5`` play or are refused from that hand slot."""
        if e["ev"] in ("play", "reject"):
            return 7 * e["p"] + 1 + e["slot"]
        return None

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
        # H2: cards each player holds face up (V10's logs: 5 each, never the field)
        self.slots = e.get("hand_slots", [5] * e.get("players", 2))
        self.wins = [0, 0]
        self.hand_events = 0
        self.in_hand = False

    def _deal(self, e):
        self.hands = [list(h) for h in e["hands"]]
        self.draw = [list(d) for d in e["draw"]]
        self.side = [list(s) for s in e["side"]]
        for p, k in enumerate(self.slots):  # H2: slots k..4's cards on the draw pile, 4's on top
            self.draw[p] = self.hands[p][k:][::-1] + self.draw[p]
            self.hands[p][k:] = [None] * (5 - k)
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
        if slot >= self.slots[p]:
            self.fail(f"refill into slot {slot} of a hand of {self.slots[p]} (H2, hand_slots)")
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


# ---- V8 Spit (docs/rules.md V8, docs/match-log.md version 2) ----


def spit_fits(card, top, rules):
    """V8.3: one rank above or below, a ring unless V1."""
    a, b = rank(card), rank(top)
    if rules.get("no_wrap"):
        return abs(a - b) == 1
    return (a - b) % 13 in (1, 12)


def spit_layout_sizes(count):
    """V8.1: row by row onto five places, as far as the cards go: the size of each place."""
    sizes = [0] * 5
    for row in range(5):
        for s in range(row, 5):
            if count > 0:
                sizes[s] += 1
                count -= 1
    return sizes


class SpitReferee(LogChecker):
    """Rebuilds every place, spit card and spit pile of a Spit log and checks each event."""

    def __init__(self):
        self.events = 0

    def pressed_key(self, e):
        """V8.10: ``1``-``5`` act on places 1-5; ``L``/``R`` slap pile 0/1."""
        if e["ev"] in ("play", "reject", "turn", "move"):
            return 7 * e["p"] + 1 + e["slot"]
        if e["ev"] == "slap":
            return 7 * e["p"] + 6 * e["pile"]
        return None

    def check(self, e):
        self.events += 1
        getattr(self, "_" + e["ev"])(e)
        if e["ev"] not in ("match", "match_end", "keys", "hand_end"):
            self._conserved()

    def _keys(self, e):
        pass

    def _match(self, e):
        if e["v"] != 2 or e["game"] != "spit" or e["players"] != 2:
            self.fail("not a version 2 Spit log")
        self.rules = e["rules"]
        self.held = [None, None]  # card sets each player holds between rounds
        self.wins = [0, 0]
        self.rounds = 0

    def _deal(self, e):
        self.rounds += 1
        if e["hand_no"] != self.rounds:
            self.fail("rounds out of order")
        # places bottom first, each [card, face_up]
        self.places = [
            [[[c, False] for c in reversed(place)] for place in e["stock"][p]] for p in range(2)
        ]
        self.spit = [list(reversed(s)) for s in e["spit"]]  # top last
        self.piles = [[(c, 0) for c in pile] for pile in e["piles"]]
        opened = [len(pile) == 1 for pile in e["piles"]]
        for p in range(2):
            cards = [c for place in self.places[p] for c, _ in place] + self.spit[p]
            cards += [c for c, _ in self.piles[p]]
            if self.held[p] is None:
                if len(cards) != 26:
                    self.fail("round 1 deals 26 cards each")
            elif sorted(cards) != sorted(self.held[p]):
                self.fail(f"player {p} is dealt other cards than they held")
            layout = len(cards) if len(cards) < 15 else 15
            sizes = [len(place) for place in self.places[p]]
            if sizes != spit_layout_sizes(layout):
                self.fail(f"player {p}'s places are {sizes}, not laid out row by row")
            for place in self.places[p]:
                if place:
                    place[-1][1] = True  # V8.1: every top face up
            if opened[p] != (len(cards) > 15):
                self.fail(f"player {p} opens a spit pile iff they have spit cards")
        self.two_piles = opened[0] and opened[1]
        self.lone_pile = None if self.two_piles else opened.index(True)
        self.opener = self.lone_pile
        self.stall_due = None
        self.stopped = None
        self.in_round = True
        self.took = None

    def _conserved(self):
        if not self.in_round:
            return
        cards = [c for p in range(2) for place in self.places[p] for c, _ in place]
        cards += self.spit[0] + self.spit[1] + [c for pile in self.piles for c, _ in pile]
        if len(cards) != 52 or len(set(cards)) != 52:
            self.fail("a card was lost or doubled")

    def _fits(self, card, pile):
        return bool(self.piles[pile]) and spit_fits(card, self.piles[pile][-1][0], self.rules)

    def _fits_any(self, card):
        return self._fits(card, 0) or self._fits(card, 1)

    def _can_act(self, p):
        places = self.places[p]
        empty = any(not place for place in places)
        for place in places:
            if place and (not place[-1][1] or self._fits_any(place[-1][0])):
                return True
            if place and empty and len(place) > 1:
                return True
        return False

    def _top_up(self, e, refused=False):
        place = self.places[e["p"]][e["slot"]]
        if not place or place[-1] != [e["card"], True]:
            self.fail(f"{e['card']} is not the face-up top of place {e['slot']}")
        if self.stopped:
            self.fail("the round has stopped")
        if self.stall_due is not None and not refused:
            self.fail("a move during a stall countdown")
        return place

    def _turn(self, e):
        place = self.places[e["p"]][e["slot"]]
        if not place or place[-1] != [e["card"], False]:
            self.fail(f"turn of {e['card']} but that is not a face-down top")
        place[-1][1] = True

    def _cover(self, pile, card, t):
        top, _ = self.piles[pile][-1]
        self.piles[pile][-1] = (top, t)
        self.piles[pile].append((card, 0))

    def _play(self, e):
        place = self._top_up(e)
        if not self._fits(e["card"], e["pile"]):
            self.fail("illegal play (V8.3)")
        place.pop()
        self._cover(e["pile"], e["card"], e["t"])

    def _move(self, e):
        place = self._top_up(e)
        if self._fits_any(e["card"]):
            self.fail("a card that fits a spit pile is played, not moved")
        if self.places[e["p"]][e["to"]] or len(place) < 2:
            self.fail("V8.5: a move goes into an empty place and uncovers a card")
        if any(not q for q in self.places[e["p"]][: e["to"]]):
            self.fail("a move goes to the leftmost empty place")
        self.places[e["p"]][e["to"]] = [place.pop()]

    def _late(self, card, t):
        window = self.rules["race_window_ms"]
        return any(
            t - covered < window and spit_fits(card, c, self.rules)
            for pile in self.piles
            for c, covered in pile[:-1]
        )

    def _reject(self, e):
        place = self._top_up(e, True)
        if self._fits_any(e["card"]):
            self.fail(f"{e['card']} fits but was refused")
        late = self._late(e["card"], e["t"])
        if (e["why"] == "late") != late:
            self.fail(f"refused as {e['why']}, late is {late}")
        movable = len(place) > 1 and any(not q for q in self.places[e["p"]])
        if e["why"] == "invalid" and movable:
            self.fail("refused as invalid but it could move to an empty place")

    def _stall(self, e):
        if self._can_act(0) or self._can_act(1):
            self.fail("stall while a player can act")
        self.stall_due = e["due"]
        if e["due"] - e["t"] != self.rules["stall_countdown_ms"]:
            self.fail("stall countdown length")

    def _spit(self, e):
        p, pile, t = e["p"], e["pile"], e["t"]
        if t == self.stall_due:  # the first spit of this instant: who spits
            self.spitters = [q for q in range(2) if self.spit[q]]
            self.pair_spit = len(self.spitters) == 2
            self.spit_t = t
            self.stall_due = None
        elif t != getattr(self, "spit_t", None):
            self.fail("a spit when no stall countdown ends")
        if p not in self.spitters or self.spit[p][-1] != e["card"]:
            self.fail("spit of a card that is not the top spit card")
        self.spitters.remove(p)
        if self.pair_spit:
            if pile != p:
                self.fail("V8.6: both spit onto their own pile")
        else:
            if self.lone_pile is None:
                self.lone_pile = pile
            if pile != self.lone_pile:
                self.fail("V8.7: a lone spitter keeps one pile")
        self.spit[p].pop()
        self._cover(pile, e["card"], t)

    def _stop(self, e):
        if e["why"] == "out":
            if any(self.places[e["p"]]):
                self.fail("out with cards in the places")
        else:
            if self.stall_due != e["t"] or self.spit[0] or self.spit[1]:
                self.fail("blocked only when a stall ends and nobody has spit cards")
            if self._can_act(0) or self._can_act(1):
                self.fail("blocked while a player can act")
        self.stall_due = None
        self.stopped = (e["why"], e["p"])

    def _slap(self, e):
        if not self.stopped or not self.two_piles:
            self.fail("a slap before the round stopped, or with one pile")
        self.took = [None, None]
        self.took[e["p"]] = e["pile"]
        self.took[1 - e["p"]] = 1 - e["pile"]

    def _hand_end(self, e):
        why = e["why"]
        if why == "abandoned":
            took = [None, None]
        elif self.two_piles:
            took = self.took
            if took is None:
                self.fail("a two-pile round ends with a slap")
        else:
            why_stop, out = self.stopped
            took = [None, None]
            if why_stop == "out":
                took[1 - out] = self.opener
            else:
                left = [sum(len(q) for q in self.places[p]) for p in range(2)]
                taker = self.opener if left[0] == left[1] else (0 if left[0] > left[1] else 1)
                took[taker] = self.opener
        if e["took"] != took:
            self.fail(f"took {e['took']}, the rules say {took}")
        if why != "abandoned":
            if why != self.stopped[0] or e["winner"] != self.stopped[1]:
                self.fail("hand_end disagrees with the stop")
        for p in range(2):
            cards = [c for place in self.places[p] for c, _ in place] + self.spit[p]
            if took[p] is not None:
                cards += [c for c, _ in self.piles[took[p]]]
            self.held[p] = cards
        if e["left"] != [len(self.held[0]), len(self.held[1])]:
            self.fail("left counts")
        if e["winner"] is not None:
            self.wins[e["winner"]] += 1
        self.in_round = False

    def _match_end(self, e):
        if e["score"] != self.wins:
            self.fail("score")
        w = e["winner"]
        empty = [p for p in range(2) if self.held[p] == []]
        if e.get("why") == "max_rounds":
            if empty or self.rounds != self.rules["max_rounds"]:
                self.fail("max_rounds end")
            left = [len(h) for h in self.held]
            expect = None if left[0] == left[1] else (0 if left[0] < left[1] else 1)
            if w != expect:
                self.fail("after max_rounds the player with fewer cards wins")
        elif w is not None and empty != [w]:
            self.fail("V8.9: the winner is the player left with no cards")
        elif w is None and empty:
            self.fail("a player has no cards but nobody won")


# ---- V9 California Speed (docs/rules.md V9, docs/match-log.md version 2) ----


class CaliforniaReferee(LogChecker):
    """Rebuilds both stocks and the grid of a California Speed log and checks each event."""

    def __init__(self):
        self.events = 0

    def pressed_key(self, e):
        """V9.6: ``1``-``5`` cover a pile in that column (or are refused)."""
        if e["ev"] in ("cover", "reject"):
            return 7 * e["p"] + 1 + e["col"]
        return None

    def check(self, e):
        self.events += 1
        getattr(self, "_" + e["ev"])(e)
        if self.in_round and e["ev"] not in ("keys", "hand_end"):
            cards = self.stock[0] + self.stock[1] + [c for pile in self.grid for c in pile]
            if len(cards) != 52 or len(set(cards)) != 52:
                self.fail("a card was lost or doubled")

    def _keys(self, e):
        pass

    def _match(self, e):
        if e["v"] != 2 or e["game"] != "california" or e["players"] != 2:
            self.fail("not a version 2 California Speed log")
        self.rules = e["rules"]
        self.next_stock = None  # each player's stock (top first) for the next deal
        self.wins = [0, 0]
        self.rounds = 0
        self.in_round = False

    def _deal(self, e):
        self.rounds += 1
        if e["hand_no"] != self.rounds:
            self.fail("rounds out of order")
        self.stock = [list(s) for s in e["stock"]]  # top first
        self.grid = [list(reversed(place)) for row in e["grid"] for place in row]  # top last
        for p in range(2):
            row = [c for place in e["grid"][p] for c in place]
            if any(len(place) > 1 for place in e["grid"][p]):
                self.fail("a place is dealt more than one card")
            if [len(place) for place in e["grid"][p]] != sorted(
                (len(place) for place in e["grid"][p]), reverse=True
            ):
                self.fail("places fill from the first")
            if self.next_stock is None:
                if len(row) + len(self.stock[p]) != 26:
                    self.fail("round 1 gives 26 cards each")
            elif row + self.stock[p] != self.next_stock[p]:
                self.fail(f"player {p}'s row is not the top of the stock they gathered")
            if len(row) < 5 and self.stock[p]:
                self.fail("a row is short while the stock has cards")
        self.changed = [-(10**9)] * 10
        self.live = set()
        self._update_live()
        self.stall_due = None
        self.in_round = True

    def _update_live(self):
        counts = {}
        for pile in self.grid:
            if pile:
                counts[rank(pile[-1])] = counts.get(rank(pile[-1]), 0) + 1
        self.live = {r for r, n in counts.items() if n >= 2 or r in self.live}

    def _coverable(self, pile):
        return bool(self.grid[pile]) and rank(self.grid[pile][-1]) in self.live

    def _cover(self, e):
        p, pile = e["p"], e["row"] * 5 + e["col"]
        if not self.stock[p] or self.stock[p][0] != e["card"]:
            self.fail(f"cover with {e['card']} but the stock's top is {self.stock[p][:1]}")
        if not self._coverable(pile):
            self.fail("V9.3: that pile's rank is not live")
        self.grid[pile].append(self.stock[p].pop(0))
        self.changed[pile] = e["t"]
        self._update_live()

    def _reject(self, e):
        col = e["col"]
        if self._coverable(col) or self._coverable(5 + col):
            self.fail("refused, but a pile in that column could be covered")
        if not self.stock[e["p"]]:
            self.fail("a player with no stock cannot press to cover")
        window = self.rules["race_window_ms"]
        late = any(e["t"] - self.changed[pile] < window for pile in (col, 5 + col))
        if (e["why"] == "late") != late:
            self.fail(f"refused as {e['why']}, late is {late}")

    def _stall(self, e):
        if any(self._coverable(pile) for pile in range(10)):
            self.fail("stall while a pile can be covered")
        if e["due"] - e["t"] != self.rules["stall_countdown_ms"]:
            self.fail("stall countdown length")
        self.stall_due = e["due"]

    def _hand_end(self, e):
        why, w = e["why"], e["winner"]
        if why == "out" and (w is None or self.stock[w]):
            self.fail("out with stock cards left")
        if why == "blocked" and (w is not None or self.stall_due != e["t"]):
            self.fail("a round ends blocked when its stall countdown ends, without a winner")
        self.next_stock = []
        for p in range(2):
            under = []
            for col in range(5):
                under += list(reversed(self.grid[p * 5 + col]))  # each pile top first
            self.next_stock.append(self.stock[p] + under)
        if e["left"] != [len(s) for s in self.next_stock]:
            self.fail("left counts")
        if w is not None:
            self.wins[w] += 1
        self.winner = w
        self.in_round = False

    def _match_end(self, e):
        if e["score"] != self.wins:
            self.fail("score")
        if e.get("why") == "max_rounds":
            if self.rounds != self.rules["max_rounds"]:
                self.fail("max_rounds end")
            left = [len(s) for s in self.next_stock]
            expect = None if left[0] == left[1] else (0 if left[0] < left[1] else 1)
            if e["winner"] != expect:
                self.fail("after max_rounds the player with fewer cards wins")
        elif e["winner"] != self.winner:
            self.fail("the match goes to the player who went out")


# ---- V10 Speed for three or four players (docs/rules.md V10, match log version 2) ----


class V10Referee(Referee):
    """The classic referee, with n players, n centre piles and the reserve of V10.1."""

    def _match(self, e):
        if e["v"] != 2 or e["game"] != "speed" or e["players"] not in (3, 4):
            self.fail("not a version 2 log of Speed for 3 or 4 players")
        super()._match(e)
        self.n = e["players"]
        self.wins = [0] * self.n

    def _deal(self, e):
        super()._deal(e)
        self.reserve = list(e["reserve"])
        draw = {3: 6, 4: 2}[self.n]
        for p in range(self.n):
            if len(self.draw[p]) != draw or len(self.side[p]) != 5:
                self.fail(f"V10.1: {draw} draw and 5 side cards each")
        if len(self.reserve) != 52 - self.n * (draw + 11):
            self.fail("V10.1: the cards left over are the reserve")

    def _fits_any(self, card):
        return any(fits(card, self._top(i), self.rules) for i in range(self.n))

    def _can_play(self, p):
        return any(c is not None and self._fits_any(c) for c in self.hands[p])

    def _reject(self, e):
        if self._fits_any(e["card"]):
            self.fail(f"{e['card']} fits a pile but was refused")
        p, slot = e["p"], e["slot"]
        if self.hands[p][slot] != e["card"]:
            self.fail("reject of a card not in that slot")
        window = self.rules["race_window_ms"]
        late = any(
            e["t"] - covered < window and fits(e["card"], c, self.rules)
            for pile in self.piles
            for c, covered in pile[:-1]
        )
        if (e["why"] == "late") != late:
            self.fail(f"refused as {e['why']}, late is {late}")

    def _stall(self, e):
        if any(self._can_play(p) for p in range(self.n)):
            self.fail("stall declared while a player can play")
        self.stall_pending = True

    def _redeal(self, e):
        gathered = [c for p in self.piles for c, _ in p[:-1]]
        gathered += [c for s in self.side for c in s] + self.reserve
        new = [c for s in e["side"] for c in s]
        if not set(new) <= set(gathered) or len(new) != min(5 * self.n, len(gathered)):
            self.fail("R10 redeal deals cards that were not gathered, or too few/many")
        sizes = [len(s) for s in e["side"]]
        if max(sizes) > 5 or sizes != sorted(sizes, reverse=True) or sizes[0] - sizes[-1] > 1:
            self.fail("R10 redeal is not in turn from player 0, at most 5 each")
        self.reserve = [c for c in gathered if c not in set(new)]
        self.piles = [p[-1:] for p in self.piles]
        self.side = [list(s) for s in e["side"]]
        self.plays_since_redeal = 0

    def _hand_end(self, e):
        left = [
            sum(c is not None for c in self.hands[p]) + len(self.draw[p]) for p in range(self.n)
        ]
        if e["left"] != left:
            self.fail(f"left {e['left']} but the piles say {left}")
        w, why = e["winner"], e["why"]
        if why == "out" and left[w] != 0:
            self.fail("out but cards remain")
        if why == "dead_stall":
            fewest = min(left)
            expect = left.index(fewest) if left.count(fewest) == 1 else None
            if w != expect:
                self.fail(f"dead stall winner {w}, expected {expect}")
        if why in ("photo_finish", "abandoned") and w is not None:
            self.fail(f"{why} must have no winner")
        sweep = w is not None and all(
            left[q] >= self.rules["sweep_cards"] for q in range(self.n) if q != w
        )
        if e["sweep"] != sweep:
            self.fail("sweep flag wrong")
        if w is not None:
            self.wins[w] += 1
        self.in_hand = False
