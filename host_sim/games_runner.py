"""The headless runner of the other games (V8 Spit, V9 California Speed, V10 Speed for
three or four players): bots press keys on a millisecond clock, a ``GameSession``
(lib/speedduo/gamematch.py) applies them and writes the match log.

The clock jumps from one thing to the next: a key edge, a bot's planned press,
something the match has due. All key events of one millisecond go to the
session together, in key-number order (as the board's keypad queues one
scan), so the replay, which groups the log's key events by millisecond, feeds
the session exactly what the runner fed it. Runs under CPython.
"""

from games_bots import GameBot
from speedduo.codes import OVER, PLAYING
from speedduo.gamematch import GameSession
from speedduo.rng import Rng

_MAX_STEPS = 2000000


def make_core(game, rules, players):
    """The rules core of a game (V8, V9, V10), from the registry (lib/speedduo/games.py)."""
    from speedduo.games import core_class

    if game == "speed":
        return core_class(game, players)(rules, players)  # V10: SpeedN
    return core_class(game)(rules)


def view_class(game, players):
    """The class of each player's view of a game (the board's screens; the registry's,
    lib/speedduo/games.py), or None when the game has none: Speed for three or four (V10)
    never runs on the board."""
    from speedduo.games import view_class as registry_view

    if players != 2 or game == "speed":
        return None
    return registry_view(game)


def best_of_for(game, best_of):
    """V8/V9 play one game of rounds: the log's best_of is 1; V10 plays best of 3/5/7."""
    return best_of if game == "speed" else 1


class GameSimulation:
    def __init__(self, game, seed, rules, best_of, players):
        core = make_core(game, rules, len(players))
        self.session = GameSession(core, seed, rules, best_of_for(game, best_of))
        self.match = self.session.match
        self.core = core
        self.bots = []
        for p, kind in enumerate(players):
            if kind == "none":
                continue
            if not kind.startswith("bot:"):
                raise ValueError("player %d: expected bot:LEVEL or none, got %r" % (p, kind))
            stream = Rng((seed ^ (0x2AAAAAAA >> p)) & 0x3FFFFFFF)
            self.bots.append(GameBot(p, kind[4:], stream))
        self._edges = {}  # match ms -> [(key, pressed)]
        self.steps = 0

    def run(self, write):
        """Play the match to its end, writing every log line; returns the GameMatch."""
        session = self.session
        match = self.match
        session.log.drain(write)
        hand_seen = -1
        now = 0
        while match.phase != OVER:
            self.steps += 1
            if self.steps > _MAX_STEPS:
                raise RuntimeError("simulation did not finish")
            now = self._next_time(now)
            for bot in self.bots:
                if bot.press_at == now:
                    key = bot.fire()
                    down, up = bot.down_at, bot.up_at
                    self._edges.setdefault(down, []).append((key, 1))
                    self._edges.setdefault(up, []).append((key, 0))
            events = sorted(self._edges.pop(now, []))
            session.step(now, events)
            session.log.drain(write)
            if match.phase == PLAYING:
                if self.core.hand_no != hand_seen:
                    hand_seen = self.core.hand_no
                    for bot in self.bots:
                        bot.forget()
                for bot in self.bots:
                    bot.observe(now, self.core)
        session.log.drain(write)
        return match

    def _next_time(self, now):
        best = self.match.next_due()
        for t in self._edges:
            if best < 0 or t < best:
                best = t
        for bot in self.bots:
            if bot.press_at >= 0 and (best < 0 or bot.press_at < best):
                best = bot.press_at
            if bot.press_at < 0 and bot.resume_at > now and (best < 0 or bot.resume_at < best):
                best = bot.resume_at
        return best
