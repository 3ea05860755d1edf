"""Classic Speed's deal line (docs/match-log.md): its template with every card "AS", and
where each card's rank letter goes in it. Loaded with ``matchlog`` for a classic match
only: the other games and the menu do without it (docs/device.md).
"""

from array import array


def _deal_layout():
    """The deal line after ``"hands":[[`` with every card "AS", and, for each card of the
    shuffled deck, where its rank letter goes in it. Built once, in place (no garbage);
    the tables it reads are its own, so they leave the heap with it."""
    from speedduo.vocab import cards

    lists = (  # (first deck index, count, step) of the line's eight lists, in line order
        (cards.DEAL_HAND, cards.HAND_SLOTS, 1),  # hands, in slot order
        (cards.DEAL_EACH + cards.DEAL_HAND, cards.HAND_SLOTS, 1),
        (cards.DRAW_CARDS - 1, cards.DRAW_CARDS, -1),  # draw piles, top first
        (cards.DEAL_EACH + cards.DRAW_CARDS - 1, cards.DRAW_CARDS, -1),
        (cards.DEAL_SIDE + cards.SIDE_CARDS - 1, cards.SIDE_CARDS, -1),  # side piles, top first
        (cards.DEAL_EACH + cards.DEAL_SIDE + cards.SIDE_CARDS - 1, cards.SIDE_CARDS, -1),
        (cards.DEAL_STARTER, 1, 1),  # the starters
        (cards.DEAL_EACH + cards.DEAL_STARTER, 1, 1),
    )
    ends = (
        b"],[",
        b']],"draw":[[',
        b"],[",
        b']],"side":[[',
        b"],[",
        b']],"piles":[[',
        b"],[",
        b"]]}",
    )
    size = 0
    for n in range(8):
        size += lists[n][1] * 5 - 1 + len(ends[n])  # '"AS",' per card, no last ','
    template = bytearray(size)
    at = array("H", bytes(2 * cards.DECK_SIZE))
    k = 0
    for n in range(8):
        d, count, step = lists[n]
        for j in range(count):
            if j:
                template[k] = 44  # ,
                k += 1
            template[k : k + 4] = b'"AS"'
            at[d] = k + 1
            d += step
            k += 4
        end = ends[n]
        template[k : k + len(end)] = end
        k += len(end)
    return template, at


DEAL_TEMPLATE, DEAL_AT = _deal_layout()
del (
    _deal_layout
)  # needed once: its bytecode and its tables need not stay on the heap (as sound.py's)
