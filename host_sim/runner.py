"""The headless simulator: one match of any game, bots and scripts pressing buttons, through
the board's own loop (``speedduo.loop.app.App.step``, docs/architecture.md).

One runner (``Simulation``) for every game. For the games of two rows of keys (classic
Speed, V8 Spit, V9 California Speed) it drives the board's loop (``App``, or
``game_app.GameApp`` for V8/V9) on the virtual clock, the keys read by the board's own
reader (``speedduo.loop.keys.make_keys`` over the shims): the PIO's edge stamps, to the
µs, by default (``keys="pio"``, as the board), or the keypad scanner's ms stamps
(``keys="keypad"``, the board's ``SPEED_KEYS = "keypad"``). Bots (``bots.Bot``: the
board's opponent plans, classic Speed's ``Brain`` and the other games' ``GameBot``) and
scripts close and open the contacts of simulated buttons (``buttons.Buttons``, with
bounce when asked), so every press goes through the reader, the stamp and the arbiter as
a human's does, and a race is decided as the board decides it. The screens (when given)
are refreshed and the match log is handed to ``write`` after every loop pass. The clock
jumps from one thing to the next: a contact change (and, for a few ms after one, every
scan: chatter settles), a bot's planned press, something the match has due.

Speed for three or four players (V10) has three or four rows of keys, which the board's
loop (two rows, 14 keys) cannot hold, and never runs on the board: its run takes the
direct path (``_Direct``: the same clock, bots and buttons, each millisecond's key
events handed to ``GameSession.step``). Runs under CPython and MicroPython
(``--vm micropython``).
"""

from speedduo.game.rng import Rng
from speedduo.vocab.codes import OVER, PLAYING

_MAX_LOOPS = 5000000


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
    """One match of ``game`` (the registry's name; ``speed`` with three or four
    ``players`` is V10) to its end; see the module docstring. ``players``: one
    ``bot:LEVEL`` or ``none`` each; ``script``: (t_us since play starts, player, key,
    closed) contact changes; ``keys``: ``pio`` or ``keypad`` (two-row games)."""

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
        game="speed",
        keys="pio",
    ):
        import vclock
        from bots import Bot, make_plan
        from buttons import Buttons

        if keys not in ("pio", "keypad"):
            raise ValueError("keys must be pio or keypad, got %r" % keys)
        clock = self.clock = vclock.install(vclock.VirtualClock(phase_us, ms_offset, tick_offset))
        if keys == "pio" and len(players) == 2:
            # the match begins on a tick whose ticks_ms begins a millisecond, so the loop's
            # clock is never ahead of the µs stamps (``ticks_ms`` falls behind time by up to
            # a tick): what it writes by a ms, it writes after every press stamped before it
            clock.advance_to(clock.tick_time(-tick_offset % 128))
        self._start_tick = clock.tick_at_or_before(clock.now_us)
        if len(players) > 2:
            self.loop = _Direct(game, seed, rules, best_of, players)
        else:
            self.loop = _BoardLoop(game, seed, rules, best_of, self._emit, screens, keys)
        self.app = self.loop.app
        self.keys = self.loop.keys
        self.match = self.loop.match
        self.log = self.loop.log
        self.arbiter = self.app.arbiter if self.app is not None else None
        # bots and bounce draw from streams of their own, so a script does not shift the deal
        contacts = self.loop.contacts
        self.buttons = Buttons(contacts, Rng((seed * 7 + 3) & 0x3FFFFFFF), bounce_max_us)
        self.bots = []
        for p, kind in enumerate(players):
            if kind != "none":
                level = _level(kind, p)
                plan = make_plan(game, len(players), p, level, _bot_stream(seed, p), rules)
                self.bots.append(Bot(p, plan, self.buttons, 1 if self.loop.micro else 0))
        start_us = clock.now_us + self.match.countdown_ms * 1000  # the first hand's start
        for t_us, player, key, closed in script:
            contacts.set_contact(player * 7 + key, start_us + t_us, closed)
        self.on_pass = on_pass  # called after every loop pass (snapshots)
        self.loop_us = loop_us  # the shortest time one pass of the board's loop takes
        self.passes = 0

    def _next_time(self):
        clock = self.clock
        now = clock.now_us
        best = self.loop.next_us(self)
        for bot in self.bots:
            if bot.pending_us >= 0 and (best < 0 or bot.pending_us < best):
                best = bot.pending_us
            if bot.resume_us > now and (best < 0 or bot.resume_us < best):
                best = bot.resume_us
        due = self.match.next_due()
        if due >= 0:
            # the loop handles what is due at ms `due` once its clock passes it
            due_us = self.loop.due_us(self, due)
            if best < 0 or due_us < best:
                best = due_us
        if best <= now:
            best = self.next_tick()
        return best

    def next_tick(self):
        """The time of the next 1/1024 s supervisor tick (``ticks_ms`` may move there)."""
        clock = self.clock
        return clock.tick_time(clock.tick_at_or_before(clock.now_us) + 1)

    def match_ms_to_us(self, ms):
        """The first tick time at which ticks_ms has reached match time `ms`."""
        offset = self.clock.tick_offset
        target = (self._start_tick + offset) * 1000 // 1024 + ms
        return self.clock.tick_time((target * 1024 + 999) // 1000 - offset)

    def run(self, write):
        """Play the match to its end, writing every log line; returns the match."""
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
            self.loop.step(t, write)
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


class _BoardLoop:
    """The board's loop of a two-row game and its key reader, on the virtual clock."""

    def __init__(self, game, seed, rules, best_of, send_line, screens, keys):
        import board
        import vclock
        from speedduo.loop.keys import make_keys

        self.keys = make_keys(board, pio=keys == "pio")
        self.contacts = vclock.current().scanners[-1]  # the reader's: keypad.Keys or rp2pio's
        micro = getattr(self.keys, "micro", False)
        event = getattr(self.keys, "Event", None)
        if event is None:
            import keypad

            event = keypad.Event
        ticks_ms = vclock.current().ticks_ms
        if game == "speed":
            from speedduo.loop.app import App

            self.app = App(
                self.keys.events,
                ticks_ms,
                seed,
                rules,
                best_of,
                send_line,
                screens,
                event=event(),
                micro=micro,
            )
        else:
            from speedduo.game.gamematch import GameSession
            from speedduo.loop.game_app import GameApp

            core = make_core(game, rules, 2)
            session = GameSession(
                core, seed, rules, best_of_for(game, best_of), make_log(core, micro)
            )
            self.app = GameApp(
                self.keys.events, ticks_ms, session, send_line, screens, event=event()
            )
        self.match = self.app.match
        self.log = self.app.log
        self.micro = micro
        if micro:
            self.log.late_of = self.keys  # match_end says how late a stamp may be

    def next_us(self, sim):
        """When the loop must pass next for its keys (-1: not for them): at every scan
        while the reader may still report something, else at the next contact change
        (the PIO's stamp is that µs; the keypad's, its first scan)."""
        contacts = self.contacts
        arbiter = self.app.arbiter
        if not contacts.settled() or len(self.keys.events):
            return sim.next_tick()
        if arbiter.held_back:
            if not arbiter.lag:
                return sim.next_tick()
            # H1: held back by the lag only; the first is applied once the clock passes
            # its adjusted time by the lag (nothing else can change before: no contact moves)
            ready = sim.match_ms_to_us(arbiter.batch.at[0] + arbiter.lag + 1)
            change = contacts.next_change_us()
            if change >= 0 and not self.micro:
                change = sim.clock.first_tick_at_or_after(change)
            return ready if change < 0 or ready < change else change
        change = contacts.next_change_us()
        if change < 0 or self.micro:
            return change
        return sim.clock.first_tick_at_or_after(change)

    def due_us(self, sim, due):
        return sim.match_ms_to_us(due + 1 + self.app.arbiter.lag)  # (H1: the clock's lag)

    def step(self, now_us, write):
        self.app.step()


class _Direct:
    """V10: the same clock, bots and buttons; each millisecond's key events go to the
    session (``GameSession.step``), in key order, once the clock reaches it."""

    def __init__(self, game, seed, rules, best_of, players):
        from speedduo.game.gamematch import GameSession

        core = make_core(game, rules, len(players))
        self.session = GameSession(core, seed, rules, best_of, make_log(core))
        self.app = None
        self.keys = self.contacts = self
        self.match = self.session.match
        self.log = self.session.log
        self.micro = False  # key events in ms
        self._edges = {}  # match ms -> [(key, pressed)]

    def set_contact(self, key, t_us, closed):
        """A button's contact (``buttons.Buttons``): its key event at its millisecond."""
        self._edges.setdefault(t_us // 1000, []).append((key, 1 if closed else 0))

    def next_us(self, sim):
        best = -1
        for t in self._edges:
            if best < 0 or t < best:
                best = t
        return best * 1000 if best >= 0 else -1

    def due_us(self, sim, due):
        return due * 1000

    def step(self, now_us, write):
        now = now_us // 1000
        self.session.step(now, sorted(self._edges.pop(now, [])))
        self.log.drain(write)


def _pending_time(bot):
    """Bots fire in time order, the same time in player order (MicroPython's sort is not
    stable)."""
    return (bot.pending_us, bot.player)


def _level(kind, p):
    """A bot's level from its player kind (``bot:LEVEL``); ValueError for another kind."""
    if not kind.startswith("bot:"):
        raise ValueError("player %d: expected bot:LEVEL or none, got %r" % (p, kind))
    return kind[4:]


def _bot_stream(seed, p):
    """Player p's bot's own stream, so a script or bounce does not shift the deal."""
    return Rng((seed ^ (0x2AAAAAAA >> p)) & 0x3FFFFFFF)


def make_core(game, rules, players):
    """The rules core of a game (V8, V9, V10), from the registry (lib/speedduo/games.py);
    V10 is classic Speed's core with 3 or 4 players (its log: ``make_log``)."""
    from speedduo.games import core_class

    if game == "speed":
        return core_class(game)(rules, None, players)  # V10: core.Hand
    return core_class(game)(rules)


def make_log(core, micro=False):
    """The version 2 log of a rules core made by ``make_core``: V10's turns classic
    Speed's core's ``put_*`` calls into its lines (``log/v10log.py``)."""
    if core.game == "speed":
        from speedduo.log.v10log import V10Log

        return V10Log(core, micro)
    from speedduo.log.gamelog import GameLog

    return GameLog(micro)


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
