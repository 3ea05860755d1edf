"""The "how to play" pages the menu shows (docs/rules.md in a child's words).

Each page is a title and up to six lines of at most 21 characters (a panel
line); the board shows one page at a time, any key turns to the next.
``PAGES`` are classic Speed's, ``SPIT_PAGES`` and ``CALIFORNIA_PAGES`` the other games',
in the words their screens use (spit_view.py, california_view.py); ``pages(game)`` gives
any game's, as the registry names them (games.py ``howto``).
"""

PAGES = (
    (
        "HOW TO PLAY 1/4",
        (
            "BE FIRST TO PLAY ALL",
            "YOUR CARDS.",
            "A CARD GOES ON A PILE",
            "ONE RANK UP OR DOWN",
            "(K-A-2 WRAPS ROUND).",
            "NO TURNS: BE QUICK!",
        ),
    ),
    (
        "HOW TO PLAY 2/4",
        (
            "BUTTONS 1-5 PLAY THE",
            "CARD UNDER THAT",
            "NUMBER ON SCREEN.",
            "L OR R: AIM AT THE",
            "LEFT OR RIGHT PILE;",
            "THE AIMED ONE IS LIT.",
        ),
    ),
    (
        "HOW TO PLAY 3/4",
        (
            "YOU 17: CARDS YOU",
            "STILL HAVE TO PLAY.",
            "THEM 12: THEIR CARDS.",
            "1-0: HANDS WON.",
            "STALL: NOBODY CAN",
            "PLAY; NEW CARDS FLIP.",
        ),
    ),
    (
        "HOW TO PLAY 4/4",
        (
            "LATE: THE PILE HAD",
            "JUST CHANGED.",
            "INVALID: IT DOES",
            "NOT FIT THERE.",
            "LOCKED: WAIT, A MISS",
            "COSTS 2 SECONDS.",
        ),
    ),
)
SPIT_PAGES = (  # V8
    (
        "HOW TO PLAY SPIT 1/5",
        (
            "GET RID OF ALL YOUR",
            "CARDS. A CARD GOES ON",
            "A SPIT PILE ONE RANK",
            "UP OR DOWN (K-A-2",
            "WRAPS ROUND).",
            "NO TURNS: BE QUICK!",
        ),
    ),
    (
        "HOW TO PLAY SPIT 2/5",
        (
            "1-5: THE PLACE UNDER",
            "THAT NUMBER: PLAY IT,",
            "TURN IT IF STRIPED,",
            "OR MOVE IT TO A GAP.",
            "L OR R: AIM AT A PILE",
            "(THE LIT ONE).",
        ),
    ),
    (
        "HOW TO PLAY SPIT 3/5",
        (
            "YOU 20: YOUR CARDS.",
            "THEM 18: THEIR CARDS.",
            "SPIT 6: LEFT TO SPIT.",
            "STALL: NOBODY CAN",
            "PLAY. SPIT! BOTH TURN",
            "A NEW CARD ON A PILE.",
        ),
    ),
    (
        "HOW TO PLAY SPIT 4/5",
        (
            "ALL PLACES EMPTY:",
            "SLAP! L OR R TAKES",
            "THAT PILE, THE OTHER",
            "PLAYER GETS THE REST.",
            "TAKE THE SMALL ONE!",
            "0 CARDS LEFT: YOU WIN",
        ),
    ),
    (
        "HOW TO PLAY SPIT 5/5",
        (
            "LATE: THE PILE HAD",
            "JUST CHANGED.",
            "INVALID: IT FITS NO",
            "PILE AND CANNOT MOVE.",
            "TOOK 9: THE CARDS YOU",
            "GOT FROM THE SLAP.",
        ),
    ),
)
CALIFORNIA_PAGES = (  # V9
    (
        "CALIFORNIA SPEED 1/4",
        (
            "CARDS LIE FACE UP IN",
            "TWO ROWS: YOURS AT",
            "THE BOTTOM, THEIRS",
            "ON TOP. SPOT TWO THE",
            "SAME (TWO 9S): COVER",
            "THEM WITH YOUR CARDS.",
        ),
    ),
    (
        "CALIFORNIA SPEED 2/4",
        (
            "1-5: COVER THE CARD",
            "IN THAT COLUMN (THE",
            "LIT ROW FIRST).",
            "L: AIM AT YOUR ROW.",
            "R: AIM AT THEIR ROW.",
            "NO TURNS: BE QUICK!",
        ),
    ),
    (
        "CALIFORNIA SPEED 3/4",
        (
            "YOU 16: CARDS LEFT IN",
            "YOUR STOCK. COVER",
            "WITH YOUR LAST ONE",
            "AND YOU WIN!",
            "THEM 14: THEIR STOCK.",
        ),
    ),
    (
        "CALIFORNIA SPEED 4/4",
        (
            "STALL, BLOCKED: NO",
            "PAIRS LEFT. THE ROWS",
            "GO UNDER THE STOCKS.",
            "LATE: IT HAD JUST",
            "CHANGED. INVALID:",
            "NOTHING TO COVER.",
        ),
    ),
)
NEXT = "ANY KEY: NEXT PAGE"
DONE = "ANY KEY: BACK TO MENU"


def pages(game):
    """The pages of ``game``: the registry's ``howto`` (games.py)."""
    from speedduo.games import entry, load

    return load(entry(game).howto)
