"""The headless simulator: a whole match, bots and scripts pressing keys, through the
board's own loop (``speedduo.loop.app.App.step``, docs/architecture.md) for every game the
board plays.

Classic Speed (``Simulation``): the scanner is made from the pin map by
``speedduo.loop.keys`` over the ``board``/``keypad``/``supervisor`` shims on the virtual
clock, the arbiter drains the keypad queue and feeds the match, the screens (when
given) are refreshed and the match log is drained to ``write`` after every loop pass.
The loop jumps over idle time and steps one tick at a time while keys are moving.

The other games (``GameSimulation``: V8 Spit, V9 California Speed): the board's
``game_app.GameApp`` on a millisecond clock. The bots (the board's opponent code,
``game_opponent.GameBot``) put their key events into a ``keypad.EventQueue`` stamped
with their match millisecond, in key-number order (as the keypad queues one scan),
and the loop passes once that millisecond is over, so the arbiter hands each
millisecond's events to the session as one instant, as the replay, which groups the
log's key events by millisecond, does. The clock jumps from one thing to the next: a
key edge, a bot's planned press, something the match has due.

Speed for three or four players (V10) has three or four rows of keys, which the
board's loop (two rows, 14 keys) cannot hold, and never runs on the board: its run
takes the direct path (``GameSimulation`` with ``direct``: the same bots and clock,
the key events handed to ``GameSession.step``). Runs under CPython and MicroPython
(``--vm micropython``).
"""

import keypad
from speedduo.game.codes import OVER, PLAYING
from speedduo.game.rng import Rng

_MAX_LOOPS = 5000000
_MAX_STEPS = 2000000
_TICKS_MASK = (1 << 29) - 1  # supervisor.ticks_ms wraps here
_QUEUE = 64  # as many events as the board's keypad queue holds


class _LogLines:
    """The board loop's log lines (``_emit``, its ``send_line``) to ``run``'s ``write``: the
    match line, sent as the loop is made, waits for ``run``."""

    _write = None
    _early = ()

    def _emit(self, line):
        if self._write is None:
            self._early = list(self._early) + [bytes(line).decode()]
        else:
            self._write(bytes(line).decode())

    def _begin(self, write):
        self._write = write
        for line in self._early:
            write(line)
        self._early = ()


class Simulation(_LogLines):
    def __init__(
        self,
        seed,
        rules,
        best_of,
        players,
        script=(),
        bounce_max_us=0,
        phase_us=0,
        ms_offset=0,
        on_pass=None,
        screens=None,
        loop_us=0,
        tick_offset=0,
    ):
        # classic Speed's own modules, imported only for it (the MicroPython VM's heap is small)
        import board
        import vclock
        from bots import Bot
        from buttons import Buttons
        from speedduo.loop.app import App
        from speedduo.loop.keys import make_keys

        self.clock = vclock.install(vclock.VirtualClock(phase_us, ms_offset, tick_offset))
        self.keys = make_keys(board, pio=False)  # the keypad's ms stamps (the golden logs)
        self._start_tick = self.clock.tick_at_or_before(0)
        self.app = App(
            self.keys.events,
            self.clock.ticks_ms,
            seed,
            rules,
            best_of,
            self._emit,
            screens,
            event=keypad.Event(),
        )
        self.match = self.app.match
        self.log = self.app.log
        self.arbiter = self.app.arbiter
        # bots and bounce draw from streams of their own, so a script does not shift the deal
        self.buttons = Buttons(self.keys, Rng((seed * 7 + 3) & 0x3FFFFFFF), bounce_max_us)
        self.bots = []
        for p in range(2):
            kind = players[p]
            if kind == "none":
                continue
            self.bots.append(
                Bot(p, _level(kind, p), _bot_stream(seed, p), self.buttons, rules.claim_mode)
            )
        start_us = self.match.countdown_ms * 1000
        for t_us, player, key, closed in script:
            self.keys.set_contact(player * 7 + key, start_us + t_us, closed)
        self.on_pass = on_pass  # called after every loop pass (snapshots)
        self.loop_us = loop_us  # the shortest time one pass of the board's loop takes
        self.passes = 0

    def _next_time(self):
        clock = self.clock
        now = clock.now_us
        best = -1
        keys = self.keys
        if not keys.settled() or len(keys.events) or self.arbiter.held_back:
            best = clock.tick_time(clock.tick_at_or_before(now) + 1)  # keep scanning
        elif keys.next_change_us() >= 0:
            best = clock.first_tick_at_or_after(keys.next_change_us())  # skip to the change
        for bot in self.bots:
            if bot.pending_us >= 0 and (best < 0 or bot.pending_us < best):
                best = bot.pending_us
            if bot.resume_us > now and (best < 0 or bot.resume_us < best):
                best = bot.resume_us
        due = self.match.next_due()
        if due >= 0:
            # the arbiter handles what is due at ms `due` once ticks_ms passes it
            due_us = self._match_ms_to_us(due + 1)
            if best < 0 or due_us < best:
                best = due_us
        if best <= now:
            best = clock.tick_time(clock.tick_at_or_before(now) + 1)
        return best

    def _match_ms_to_us(self, ms):
        """The first tick time at which ticks_ms has reached match time `ms`."""
        offset = self.clock.tick_offset
        target = (self._start_tick + offset) * 1000 // 1024 + ms
        return self.clock.tick_time((target * 1024 + 999) // 1000 - offset)

    def run(self, write):
        """Play the match to its end, writing every log line; returns the Match."""
        self._begin(write)
        match = self.match
        log = self.log
        clock = self.clock
        hand_seen = -1
        last_pass = -self.loop_us
        log.drain(write)
        while match.phase != OVER:
            self.passes += 1
            if self.passes > _MAX_LOOPS:
                raise RuntimeError("simulation did not finish")
            t = self._next_time()
            if self.loop_us and t < last_pass + self.loop_us:
                t = last_pass + self.loop_us  # a slow loop: the keypad queue fills meanwhile
            last_pass = t
            for bot in sorted(self.bots, key=_pending_time):
                if 0 <= bot.pending_us <= t:
                    at = bot.pending_us if bot.pending_us > clock.now_us else clock.now_us
                    clock.advance_to(at)
                    bot.fire(at)
            clock.advance_to(t)
            self.app.step()
            if match.phase == PLAYING:
                hand = match.hand
                if hand.hand_no != hand_seen:
                    hand_seen = hand.hand_no
                    for bot in self.bots:
                        bot.forget()
                for bot in self.bots:
                    bot.observe(clock.now_us, hand)
            if self.on_pass is not None:
                self.on_pass(self)
        log.drain(write)
        return match


def _pending_time(bot):
    return bot.pending_us


def _level(kind, p):
    """A bot's level from its player kind (``bot:LEVEL``); ValueError for another kind."""
    if not kind.startswith("bot:"):
        raise ValueError("player %d: expected bot:LEVEL or none, got %r" % (p, kind))
    return kind[4:]


def _bot_stream(seed, p):
    """Player p's bot's own stream, so a script or bounce does not shift the deal."""
    return Rng((seed ^ (0x2AAAAAAA >> p)) & 0x3FFFFFFF)


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


class GameSimulation(_LogLines):
    """One match of V8, V9 (through the board's loop, ``GameApp``) or V10 (the direct
    path); see the module docstring."""

    def __init__(self, game, seed, rules, best_of, players):
        from bots import GameBot
        from speedduo.game.gamematch import GameSession

        core = make_core(game, rules, len(players))
        self.session = GameSession(core, seed, rules, best_of_for(game, best_of))
        self.match = self.session.match
        self.core = core
        self.bots = []
        for p, kind in enumerate(players):
            if kind != "none":
                self.bots.append(GameBot(p, _level(kind, p), _bot_stream(seed, p)))
        self._edges = {}  # match ms -> [(key, pressed)]
        self.steps = 0
        self.direct = len(players) > 2  # V10: more rows of keys than the board's loop holds
        self.app = None
        if not self.direct:
            from speedduo.loop.game_app import GameApp

            self._now = 0
            self.queue = keypad.EventQueue(_QUEUE)
            self.app = GameApp(
                self.queue,
                self._ticks,
                self.session,
                self._emit,
                start_ticks=0,
                event=keypad.Event(),
            )

    def _ticks(self):
        return self._now & _TICKS_MASK

    def run(self, write):
        """Play the match to its end, writing every log line; returns the GameMatch."""
        self._begin(write)
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
            if self.direct:
                session.step(now, events)
                session.log.drain(write)
            else:
                self._pass(now, events)
            if match.phase == PLAYING:
                if self.core.hand_no != hand_seen:
                    hand_seen = self.core.hand_no
                    for bot in self.bots:
                        bot.forget()
                for bot in self.bots:
                    bot.observe(now, self.core)
        session.log.drain(write)
        return match

    def _pass(self, now, events):
        """The board's loop once millisecond ``now`` is over: its key events (queued as one
        scan) are one instant, and the match's clock moves on to ``now``."""
        stamp = now & _TICKS_MASK
        for key, pressed in events:
            self.queue._record(key, pressed == 1, stamp)
        self._now = now + 1
        app = self.app
        app.step()
        while len(self.queue) or app.arbiter.held_back:  # a batch more than one pass reads
            app.step()

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
