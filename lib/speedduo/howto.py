"""The "how to play" pages the menu shows (docs/rules.md in a child's words).

Each page is a title and up to six lines of at most 21 characters (a panel
line); the board shows one page at a time, any key turns to the next. Only
imported when chosen in the menu (the strings cost RAM on the board).
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
NEXT = "ANY KEY: NEXT PAGE"
DONE = "ANY KEY: BACK TO MENU"
