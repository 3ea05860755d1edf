"""Per-player stats by game mode, kept across power cuts in ``microcontroller.nvm``.

A game mode is the pair of rule variants that changes which cards can be played
(docs/stats.md): 0 classic, 1 no wrap (V1), 2 same rank (V2), 3 both. For each
mode: matches won by someone and hands finished (won or tied; R13/R11), and for
each player: matches won (R14), hands won, the fastest hand won (its end ``t``
in ms after the start signal, R3), the current and best run of matches won in a
row. A match stopped idle (R17) has no winner: its finished hands count, it
counts as no match and breaks no run. Counts stop at 65535, times at 16777215 ms.

The numbers live in one ``bytearray`` (the record's payload, ``stats_store``),
so holding them costs 120 bytes. ``record(match)`` after a match, then
``save()`` from the menu: never during a hand (a flash write pauses the board).
"""

from micropython import const  # on the host, Blinka provides this module

from speedduo.game.rules import HEAD_START_STEP_MS
from speedduo.host.stats_store import PAYLOAD, VERSION, Store
from speedduo.vocab.codes import END_ABANDONED, NULL_PLAYER

MODES = 4
MODE_NAMES = ("CLASSIC", "NO WRAP", "SAME RANK", "NO WRAP+SAME")
_MODE = const(28)  # bytes per mode
_MATCHES = const(0)
_HANDS = const(2)
_PLAYER = const(4)  # two player blocks follow the mode's totals
_PLAYER_SIZE = const(12)
_WINS = const(0)
_HANDS_WON = const(2)
_BEST_MS = const(4)  # 3 bytes
_STREAK = const(7)
_BEST_STREAK = const(9)
# H3, auto-balance (docs/rules.md): after the modes' 112 bytes, the switch and each
# player's head start in the menu's steps (a record of before reads 0: off, no leads)
_BALANCE = const(112)


def from_nvm():
    """The stats kept in ``microcontroller.nvm`` (in RAM only where there is none): the
    board reads them when first needed (``board_io.HostStats.stats``), not at boot."""
    try:
        from microcontroller import nvm
    except ImportError:
        nvm = None
    stats = Stats(nvm)
    if stats.loaded:
        print("stats: record %d read from nvm" % stats.store.seq)
    return stats


def mode_of(rules):
    """The stats mode of a rule set: V1 (no_wrap) and V2 (same_rank)."""
    return (1 if rules.no_wrap else 0) | (2 if rules.same_rank else 0)


def _get(data, at, size):
    value = 0
    for k in range(size):
        value |= data[at + k] << (8 * k)
    return value


def _put(data, at, size, value):
    cap = (1 << (8 * size)) - 1
    if value > cap:
        value = cap
    for k in range(size):
        data[at + k] = (value >> (8 * k)) & 0xFF


class Stats:
    """The stats of every mode; ``nvm`` None keeps them in RAM only."""

    def __init__(self, nvm=None):
        self.data = bytearray(PAYLOAD)
        self.store = Store(nvm)
        self.loaded = self.store.load(self.data)

    def totals(self, mode):
        """(matches, hands) of a mode."""
        at = mode * _MODE
        return _get(self.data, at + _MATCHES, 2), _get(self.data, at + _HANDS, 2)

    def player(self, mode, p):
        """(wins, hands_won, best_ms, streak, best_streak) of player ``p`` in a mode;
        best_ms 0: no hand won yet."""
        data = self.data
        at = mode * _MODE + _PLAYER + p * _PLAYER_SIZE
        return (
            _get(data, at + _WINS, 2),
            _get(data, at + _HANDS_WON, 2),
            _get(data, at + _BEST_MS, 3),
            _get(data, at + _STREAK, 2),
            _get(data, at + _BEST_STREAK, 2),
        )

    def record(self, match):
        """Count a match that is over (``speedduo.game.match.Match``, phase OVER)."""
        data = self.data
        base = mode_of(match.rules) * _MODE
        finished = match.hands_played
        if match.hand.end_why == END_ABANDONED:  # R17: the hand stopped idle had no result
            finished -= 1
        if finished > 0:
            _put(data, base + _HANDS, 2, _get(data, base + _HANDS, 2) + finished)
        winner = match.winner
        if winner != NULL_PLAYER:
            _put(data, base + _MATCHES, 2, _get(data, base + _MATCHES, 2) + 1)
        for p in range(2):
            at = base + _PLAYER + p * _PLAYER_SIZE
            won = match.wins[p]
            if won:
                _put(data, at + _HANDS_WON, 2, _get(data, at + _HANDS_WON, 2) + won)
            fastest = match.fastest_ms[p]
            best = _get(data, at + _BEST_MS, 3)
            if fastest > 0 and (best == 0 or fastest < best):
                _put(data, at + _BEST_MS, 3, fastest)
            if winner == NULL_PLAYER:
                continue
            if p == winner:
                _put(data, at + _WINS, 2, _get(data, at + _WINS, 2) + 1)
                streak = _get(data, at + _STREAK, 2) + 1
                _put(data, at + _STREAK, 2, streak)
                if streak > _get(data, at + _BEST_STREAK, 2):
                    _put(data, at + _BEST_STREAK, 2, streak)
            else:
                _put(data, at + _STREAK, 2, 0)

    def balance(self):
        """H3: (auto-balance on, Player 1's head start in ms, Player 2's)."""
        data = self.data
        step = HEAD_START_STEP_MS
        return data[_BALANCE] == 1, data[_BALANCE + 1] * step, data[_BALANCE + 2] * step

    def set_balance(self, on, p1_ms, p2_ms):
        """H3: keep the switch and the head starts (in RAM: ``save()`` writes them)."""
        data = self.data
        data[_BALANCE] = 1 if on else 0
        data[_BALANCE + 1] = p1_ms // HEAD_START_STEP_MS
        data[_BALANCE + 2] = p2_ms // HEAD_START_STEP_MS

    def save(self):
        """Write the numbers to nvm (pauses the board: only from the menu)."""
        self.store.save(self.data)

    def reset(self):
        """Every number of every mode back to 0, saved (H3's switch and leads stay)."""
        data = self.data
        for i in range(_BALANCE):
            data[i] = 0
        self.save()

    def summary(self):
        """Plain JSON-able values: what a host's stats request gets."""
        modes = []
        for mode in range(MODES):
            matches, hands = self.totals(mode)
            players = []
            for p in range(2):
                wins, hands_won, best_ms, streak, best_streak = self.player(mode, p)
                players.append(
                    {
                        "wins": wins,
                        "hands_won": hands_won,
                        "best_hand_ms": best_ms if best_ms else None,
                        "streak": streak,
                        "best_streak": best_streak,
                    }
                )
            modes.append(
                {
                    "mode": mode,
                    "name": MODE_NAMES[mode],
                    "no_wrap": bool(mode & 1),
                    "same_rank": bool(mode & 2),
                    "matches": matches,
                    "hands": hands,
                    "players": players,
                }
            )
        on, p1_ms, p2_ms = self.balance()
        balance = {"on": on, "head_start_ms": [p1_ms, p2_ms]}
        return {"version": VERSION, "record": self.store.seq, "modes": modes, "balance": balance}
