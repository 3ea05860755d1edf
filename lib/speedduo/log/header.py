"""The ``match`` line of every game's log (docs/match-log.md), the first line of a match.

It is written once, before play: its numbers are written through a str (``_number``),
so this line may allocate (no key press does), and the module needs nothing of
``logtext``.
"""

_STAMPED_BY_PIO = b',"stamped_by":"pio"'  # the keys are in µs (the PIO's edge stamps)


def match_into(
    line,
    version,
    game,
    players,
    seed,
    pairs,
    best_of,
    tie_break,
    tie_first,
    micro,
    head_start,
    hand_slots=(5, 5),
):
    """The ``match`` line (no closing brace) onto ``line``: version 1 (classic Speed:
    ``game`` None, no ``game`` and ``players`` fields) or 2; ``pairs``: the rule options
    as (name, value) in log order (a switch, a whole number or a word); ``tie_break``:
    its word (bytes); ``micro``: the key record is in µs; ``head_start``: H1's leads
    (ms, player 0's and 1's: ``rules.head_starts``), written only when one is not 0;
    ``hand_slots``: H2's (``rules.hand_slots``, classic Speed's), only when one is not 5."""
    _number(line, b'{"ev":"match","v":', version)
    if game is not None:
        line.extend(b',"game":"')
        line.extend(game.encode())
        _number(line, b'","players":', players)
    _number(line, b',"seed":', seed)
    line.extend(b',"rules":{')
    first = True
    for name, value in pairs:
        if not first:
            line.append(44)  # ,
        first = False
        line.append(34)  # "
        line.extend(name.encode())
        line.extend(b'":')
        if value is True:
            line.extend(b"true")
        elif value is False:
            line.extend(b"false")
        elif isinstance(value, str):
            line.append(34)
            line.extend(value.encode())
            line.append(34)
        else:
            line.extend(str(value).encode())
    _number(line, b'},"best_of":', best_of)
    line.extend(b',"tie_break":"')
    line.extend(tie_break)
    _number(line, b'","tie_first":', tie_first)
    if head_start[0] or head_start[1]:  # H1 (docs/match-log.md): absent when none
        _number(line, b',"head_start_ms":[', head_start[0])
        _number(line, b",", head_start[1])
        line.append(93)  # ]
    if hand_slots[0] != 5 or hand_slots[1] != 5:  # H2 (docs/match-log.md): absent at 5/5
        _number(line, b',"hand_slots":[', hand_slots[0])
        _number(line, b",", hand_slots[1])
        line.append(93)  # ]
    if micro:
        line.extend(_STAMPED_BY_PIO)


def _number(line, key, n) -> None:
    """``key`` (the text before a number) and the number's digits."""
    line.extend(key)
    line.extend(str(n).encode())
