"""Replay: rebuild a match from its log's seed, rules and inputs, and compare every line.

The inputs a log holds are the presses behind its ``play`` and ``reject``
lines, and the claims and photo finishes behind ``hand_end``. The replayer
turns them back into key events at the same timestamps, adds the L/R press
that aimed a card which fitted both piles, feeds them through the real
arbiter and rules core, and diffs the regenerated log against the file.

What the format does not carry: a lone L/R press or a release that played
nothing. They matter only for R17 (idle), so an ``abandoned`` hand is taken
at the time the log gives.
"""

from host_sim import use_board_paths
from host_sim.logfile import read_log

use_board_paths()

from speedduo.arbiter import KEY_L, KEY_R, KEYS_PER_PLAYER, Arbiter, pile_on_left  # noqa: E402
from speedduo.cards import card_from_name  # noqa: E402
from speedduo.match import OVER, PLAYING, Match  # noqa: E402
from speedduo.matchlog import MatchLog  # noqa: E402
from speedduo.rules import Rules  # noqa: E402

_TICKS_MASK = (1 << 29) - 1


class _Event:
    def __init__(self, key_number, pressed, timestamp):
        self.key_number = key_number
        self.pressed = pressed
        self.timestamp = timestamp


class _Queue:
    """Just enough of keypad.EventQueue for the arbiter."""

    def __init__(self):
        self.items = []
        self.overflowed = False

    def get_into(self, event):
        if not self.items:
            return False
        item = self.items.pop(0)
        event.key_number = item.key_number
        event.pressed = item.pressed
        event.timestamp = item.timestamp
        return True


class ReplayError(ValueError):
    pass


def rules_from_log(match_obj):
    rules = Rules()
    for name, value in match_obj["rules"].items():
        try:
            rules.set(name, value)
        except ValueError as e:
            raise ReplayError(f"line 1: rule {name}: {e}") from None
    return rules


def replay_lines(entries):
    """Regenerate the log lines from the inputs found in ``entries``."""
    header = entries[0][1]
    rules = rules_from_log(header)
    seed = header["seed"]
    if not isinstance(seed, int) or not 0 <= seed < 1 << 30:
        raise ReplayError("line 1: seed must be an integer 0 <= seed < 2**30")
    out = []
    log = MatchLog()
    try:
        match = Match(seed, rules, header["best_of"], log)
    except ValueError as e:
        raise ReplayError(f"line 1: {e}") from None
    queue = _Queue()
    arbiter = Arbiter(queue, match, 0)
    groups = _input_groups(entries)
    for hand_no, t, lines in groups:
        _reach_hand(match, hand_no, log, out)
        if match.phase == OVER:
            break
        now = match.hand_start + t
        if not any(obj.get("why") == "abandoned" for obj in lines):
            match.pressed(now - 1)  # unlogged presses kept it awake (see module doc)
        _feed_group(match, arbiter, queue, now, t, lines)
        log.drain(out.append)
    while match.phase != OVER:
        due = match.next_due()
        match.advance(due)
        log.drain(out.append)
    log.drain(out.append)
    return out


def _input_groups(entries):
    """(hand_no, t, [objects]) for every instant that holds inputs, in log order."""
    groups = []
    index = {}
    hand_no = 0
    for _, obj in entries:
        ev = obj["ev"]
        if ev == "deal":
            hand_no = obj["hand_no"]
        elif (
            ev in ("play", "reject")
            or (ev == "hand_end" and obj["why"] in ("claim", "photo_finish", "abandoned"))
            or (ev == "hand_end" and obj.get("overflows"))
        ):
            key = (hand_no, obj["t"])
            if key not in index:
                index[key] = len(groups)
                groups.append((hand_no, obj["t"], []))
            groups[index[key]][2].append(obj)
    return groups


def _reach_hand(match, hand_no, log, out):
    """Let time pass (stalls, results, countdowns) until hand ``hand_no`` is being played."""
    while match.phase != OVER and not (match.phase == PLAYING and match.hand.hand_no == hand_no):
        due = match.next_due()
        if match.phase != PLAYING:
            # between hands the log holds no presses, yet someone started the
            # next hand in time; within an earlier hand nobody pressed, so R17
            # may end it (and the diff then names the line that diverges)
            match.pressed(due - 1)
        match.advance(due)
        log.drain(out.append)
        if match.hand.hand_no > hand_no:
            raise ReplayError(f"hand {hand_no} never starts in the replay")


def _feed_group(match, arbiter, queue, now, t, lines):
    hand = match.hand
    stamp = now & _TICKS_MASK
    keys = []
    # a tie's loser aimed at the pile the winner took, even if it then went elsewhere
    contested = [o["pile"] for o in lines if o["ev"] == "play" and o.get("tie") == "won"]
    for obj in lines:
        ev = obj["ev"]
        if ev == "hand_end":
            if obj.get("overflows"):
                hand.overflows = obj["overflows"]
            if obj["why"] == "abandoned":
                match.last_press = now - match.rules.idle_ms  # R17 fires at `now`
                continue
            match.advance(now)  # stall flips due by now come first, as in the arbiter
            if obj["why"] == "claim" and obj["winner"] is not None:
                base = obj["winner"] * KEYS_PER_PLAYER
                keys += [base + KEY_L, base + KEY_R]
            elif obj["why"] == "photo_finish":
                for p in range(2):
                    for slot in range(5):
                        if hand.would_go_out(p, slot):
                            keys.append(p * KEYS_PER_PLAYER + 1 + slot)
            continue
        match.advance(now)
        p = obj["p"]
        slot = obj["slot"]
        if p not in (0, 1) or slot not in range(5):
            raise ReplayError(f"hand {hand.hand_no} t={t}: bad player or slot")
        aim = _aimed_pile(hand, obj, contested[0] if contested else None)
        if aim is not None and hand.target[p] != aim:
            left = pile_on_left(p)
            keys.append(p * KEYS_PER_PLAYER + (KEY_L if aim == left else KEY_R))
        keys.append(p * KEYS_PER_PLAYER + 1 + slot)
    won = [o for o in lines if o["ev"] == "play" and o.get("tie") == "won"]
    if won and not any(o.get("tie") == "lost" for o in lines):
        # the winner went out and the hand ended before the loser's press was
        # applied, so the log holds no line for it: any card of the loser's that
        # aimed at the contested pile reproduces the tie
        loser = 1 - won[0]["p"]
        for slot in range(5):
            card = hand.slot_card(loser, slot)
            if card != 255 and hand.pile_for(loser, card) == won[0]["pile"]:
                keys.append(loser * KEYS_PER_PLAYER + 1 + slot)
                break
    for key in keys:
        queue.items.append(_Event(key, True, stamp))
    arbiter.service((stamp + 1) & _TICKS_MASK)
    for key in keys:
        queue.items.append(_Event(key, False, (stamp + 1) & _TICKS_MASK))
    arbiter.service((stamp + 1) & _TICKS_MASK)


def _aimed_pile(hand, obj, contested):
    """The target pile the player must have had for this line, or None if it did not matter."""
    try:
        card = card_from_name(obj["card"])
    except ValueError as e:
        raise ReplayError(str(e)) from None
    fits0 = hand.fits(card, 0)
    fits1 = hand.fits(card, 1)
    why = obj.get("why")
    if obj["ev"] == "play" and fits0 and fits1:
        if obj.get("tie") == "lost" and contested is not None:
            return contested
        return obj["pile"]
    if why == "invalid" or (why == "locked" and fits0 == fits1):
        return obj["pile"]
    return None


def replay_file(path):
    """(ok, message): compare the file with its replay, naming the first diverging line."""
    entries = read_log(path)
    regenerated = replay_lines(entries)
    for number, (line, _) in enumerate(entries, 1):
        if number > len(regenerated):
            return False, f"line {number} diverges: the replay ended before it\n  log:    {line}"
        if regenerated[number - 1] != line:
            return False, (
                f"line {number} diverges\n  log:    {line}\n  replay: {regenerated[number - 1]}"
            )
    if len(regenerated) > len(entries):
        return False, f"line {len(entries) + 1} diverges: the log ends before the replay"
    return True, f"{path}: {len(entries)} lines replayed identically"
