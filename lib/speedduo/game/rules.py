"""The rule options of a match: defaults of docs/rules.md and the variants we support.

Every option has a name; ``as_pairs()`` lists them all in a fixed order, which
is what the match log's ``rules`` object holds (docs/match-log.md: every rule option
and variant in force, by name).

The handicaps (docs/rules.md H1, issue 30) are options too, of every game, settable by
name like the others (``SPEED_HEAD_START_P1_MS``, ``--head-start-p1-ms``), but not in
``as_pairs()``: the log's ``match`` line carries them in a field of their own,
``head_start_ms``, only when one is in force (``head_starts``), so a log without a
handicap reads as before.

H2, fewer cards (classic Speed's only, two players): ``hand_slots_p1``/``hand_slots_p2``
(3-5, default 5; ``SPEED_HAND_SLOTS_P1``, ``--hand-slots-p1``), in the log's ``match``
line field ``hand_slots`` only when one is not 5 (``hand_slots``). The other games
(``gamerules.GameRules``) refuse a value other than 5.
"""

from micropython import const  # on the host, Blinka provides this module

CLAIM_OFF = const(0)
CLAIM_SIMPLE = const(1)  # V5: the player who is out must press "Speed!"
CLAIM_RACE = const(2)  # V5 race form: once one is out, the first "Speed!" wins

# name, default, name, default, ...: the order is the order of the log's "rules" object
# (one flat tuple: a tuple of pairs would hold 14 more objects on the board's heap)
# fmt: off
_OPTIONS = (
    "no_wrap", False,  # V1: A and K do not connect
    "same_rank", False,  # V2: a card of the top's rank may be played too
    "jokers", False,  # V3: two jokers join the deck
    "double_deck", False,  # V4: two decks shuffled together
    "claim", "off",  # V5: off | simple | race
    "end_on_exhaustion", False,  # V6: a stall with an empty side pile ends the hand
    "pile_redeal", False,  # V7: each centre pile becomes a side pile
    "points", False,  # R15: points, with the clean-sweep bonus
    "penalty", False,  # R16: an invalid play locks its player out
    "penalty_ms", 2000,  # R16: length of the lock-out
    "stall_countdown_ms", 1000,  # R9: visible countdown before a stall flips
    "race_window_ms", 400,  # R8: a miss this soon after a top changed is "late"
    "idle_ms", 60000,  # R17: no press for this long abandons the hand
    "sweep_cards", 10,  # R15: the loser holding this many or more is swept
)
# fmt: on
BEST_OF = (3, 5, 7)  # R14

# H1, the head start: player p's presses count as if made this many ms earlier (0-400, in
# steps of 50: what the menu can show); the log's ``head_start_ms`` [p1, p2]
HANDICAPS = ("head_start_p1_ms", "head_start_p2_ms")
HEAD_START_MAX_MS = const(400)
HEAD_START_STEP_MS = const(50)
# H2, fewer cards: player p holds at most this many cards face up (3-5; the deal still
# deals the whole deck, the missing slots' cards onto the draw pile); the log's
# ``hand_slots`` [p1, p2]. Classic Speed's only (core.Hand).
HAND_SLOT_OPTIONS = ("hand_slots_p1", "hand_slots_p2")
HAND_SLOTS_MIN = const(3)
HAND_SLOTS_MAX = const(5)

CLAIM_NAMES = ("off", "simple", "race")  # V5's values, by CLAIM_* number


def check_value(name: str, default, value) -> None:
    """ValueError (one line) unless ``value`` suits option ``name``, whose default is
    ``default`` (every game's options: ``Rules.set``, ``gamerules.GameRules.set``)."""
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise ValueError(name + " must be true or false")
    elif isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(name + " must be a whole number >= 0")
        # an option's own lowest value first: a notice names the range that holds
        if name == "idle_ms" and value < 1000:
            raise ValueError("idle_ms must be at least 1000 (R17 ends every silent match)")
        if name == "max_rounds" and value < 1:  # V8.11, V9.7
            raise ValueError("max_rounds must be at least 1")
        if value < 0:
            raise ValueError(name + " must be a whole number >= 0")
        if name in HANDICAPS:
            check_head_start(name, value)
        if name in HAND_SLOT_OPTIONS and not HAND_SLOTS_MIN <= value <= HAND_SLOTS_MAX:
            raise ValueError(name + " must be 3, 4 or 5 (cards in hand)")
        if value > 3600000:
            raise ValueError(name + " must be at most 3600000")
    elif value not in CLAIM_NAMES:
        raise ValueError("claim must be one of off, simple, race")


def check_head_start(name: str, value: int) -> None:
    """H1: ValueError (one line) unless ``value`` is 0-400 ms in steps of 50."""
    if value > HEAD_START_MAX_MS:
        raise ValueError(name + " must be at most 400 (ms)")
    if value % HEAD_START_STEP_MS:
        raise ValueError(name + " must be a multiple of 50 (ms)")


def head_starts(rules):
    """H1: (player 0's lead, player 1's lead) in ms; (0, 0) for rules without them."""
    return (getattr(rules, HANDICAPS[0], 0), getattr(rules, HANDICAPS[1], 0))


def hand_slots(rules):
    """H2: (player 0's hand slots, player 1's); (5, 5) for rules without them."""
    return (
        getattr(rules, HAND_SLOT_OPTIONS[0], HAND_SLOTS_MAX),
        getattr(rules, HAND_SLOT_OPTIONS[1], HAND_SLOTS_MAX),
    )


def set_handicap(rules, name: str, value) -> bool:
    """Set handicap option ``name`` on ``rules`` (checked); False when ``name`` is not one
    (H1: every game's rules take them: ``Rules.set``, ``gamerules.GameRules.set``; H2:
    classic Speed's ``Rules``, the other games' refuse all but 5)."""
    if name in HAND_SLOT_OPTIONS:
        check_value(name, HAND_SLOTS_MAX, value)
    elif name in HANDICAPS:
        check_value(name, 0, value)
    else:
        return False
    setattr(rules, name, value)
    return True


class Rules:
    """Plain option holder. Attributes are named as in the log's ``rules`` object."""

    def __init__(self, **options) -> None:
        for i in range(0, len(_OPTIONS), 2):
            setattr(self, _OPTIONS[i], _OPTIONS[i + 1])  # type: ignore[arg-type]
        self.claim_mode = CLAIM_OFF  # V5 as a number, kept in step with `claim` by set()
        self.head_start_p1_ms = 0  # H1 (HANDICAPS): not in as_pairs, the log's own field
        self.head_start_p2_ms = 0
        self.hand_slots_p1 = HAND_SLOTS_MAX  # H2 (HAND_SLOT_OPTIONS): the log's own field
        self.hand_slots_p2 = HAND_SLOTS_MAX
        for name in options:
            self.set(name, options[name])

    def set(self, name: str, value) -> None:
        """Set one option by name, checking its type and range (ValueError: check_value)."""
        if set_handicap(self, name, value):
            return
        i = 0
        while i < len(_OPTIONS) and _OPTIONS[i] != name:
            i += 2
        if i == len(_OPTIONS):
            raise ValueError("unknown rule option: " + name)
        check_value(name, _OPTIONS[i + 1], value)
        setattr(self, name, value)
        if name == "claim":
            self.claim_mode = CLAIM_NAMES.index(value)

    def as_pairs(self):
        """(name, value) for every option, in the fixed log order."""
        return [
            (_OPTIONS[i], getattr(self, _OPTIONS[i]))  # type: ignore[arg-type]
            for i in range(0, len(_OPTIONS), 2)
        ]


def option_names():
    """Every option's name: the log's ``rules`` object's, then the handicaps (H1, H2)."""
    return (
        [_OPTIONS[i] for i in range(0, len(_OPTIONS), 2)]
        + list(HANDICAPS)
        + list(HAND_SLOT_OPTIONS)
    )
