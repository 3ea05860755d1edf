"""The board's loop for the other games (V8 Spit, V9 California Speed): keys -> GameSession
-> screens, sound and the log's way out. What ``app.App`` is for classic Speed.

One ``GameApp`` plays one match of a ``gamematch.GameSession`` (the simulator's
runner and ``replay`` drive the same object). ``step()`` is one loop pass:

1. the key events waiting in the queue (the keypad's, or the board opponent's
   merge in front of it: ``game_opponent.py``) are read into preallocated
   arrays and stamped by their keypad ``timestamp`` as ms since the PLAY press
   (``start_ticks``; ticks_ms wraps at 2**29, as ``arbiter.py`` handles it);
2. the events of each millisecond before the current one go to
   ``GameSession.step(t, events)`` together, in the order read: one instant,
   arbitrated there (ties rotate, R4, R8, R13), so the log's key record
   replays to the same lines (``python -m host_sim replay``). Events of the
   current millisecond wait a pass (a later scan may add to the instant);
3. the match's clock moves on to the millisecond before now when nothing is
   pressed (R3 countdowns, R9 stall countdowns, R17 idle stop);
4. each event the rules core logged (the log's notes: kind, player, one
   number, match time) is shown to both views (``event(kind, p, arg, now)``)
   and to the sound; the screens refresh when something happened and at least
   every ``REDRAW_MS``; the log's lines go to ``send_line`` (the board's
   ``LogPort.send``, which takes a bytearray and appends to it: the log's own
   reusable lines).

What the version 2 key record must hold for the replay, and what the keypad
may still do:
- a press less than ``REBOUNCE_MS`` after the same key's release is contact
  chatter (as arbiter.py drops it for classic Speed): it is not recorded, nor
  is its release;
- each key alternates press and release in the record: a release of a key
  not down (the PLAY press's, read by the menu; one whose press the queue
  lost) is not recorded; a press of a key down (its release was lost) is
  recorded after a release at the same instant;
- a keypad overflow (``overflowed``) is flashed on the screens
  (``show_overflow``); version 2 has no loss marker, so the record holds what
  was read;
- an event stamped before a millisecond the match has already moved past is
  recorded at the first millisecond after it (the record's time never runs
  backwards and what happened before it is what the replay sees).

A press allocates nothing, as in classic Speed's loop (app.py): the key events
go to the session through its preallocated group arrays, the rules cores keep
their lists' room, the log writes bytes into reusable lines and notes events in
arrays (bench/mp_heap_lock.py proves it for both games).
"""

from array import array

from micropython import const  # on the host, Blinka provides this module

from speedduo.codes import (
    NULL_PLAYER,
    OVER,
)
from speedduo.keybatch import KeyBatch

REDRAW_MS = const(40)  # as app.REDRAW_MS
REBOUNCE_MS = const(25)  # as arbiter.REBOUNCE_MS: chatter after a release
_KEYS = const(14)  # two rows of L 1 2 3 4 5 R
_TICKS_MASK = const(0x1FFFFFFF)  # supervisor.ticks_ms wraps at 2**29 (as in adafruit_ticks)
_TICKS_HALF = const(0x10000000)


class GameApp:
    """One match of another game on the board (see the module docstring)."""

    def __init__(
        self,
        events,
        ticks_ms,
        session,
        send_line,
        screens=None,
        start_ticks=None,
        opponent=None,
        *,
        event,
        sound=None,
    ):
        """``session``: a ``gamematch.GameSession`` (its match line is sent at once);
        ``events``: the keypad.EventQueue; ``event``: a keypad.Event to read it into
        (the board glue makes it); ``start_ticks``: the PLAY press's timestamp;
        ``opponent``: a ``game_opponent.GameOpponent`` playing player 1, standing in
        front of ``events``; ``screens``: a ``screens.Screens`` whose ``views`` are the
        game's; ``sound``: a ``sound.Sound``."""
        self.ticks_ms = ticks_ms
        self.session = session
        self.match = session.match
        self.core = session.core
        self.log = session.log
        if start_ticks is None:
            start_ticks = ticks_ms()
        self.start_ticks = start_ticks
        self.opponent = opponent
        if opponent is not None:
            events = opponent.join(events, self.match, start_ticks, event)
            event = opponent.event
        self.events = events
        self._event = event
        self.screens = screens
        self.sound = sound
        self.send_line = send_line
        self.batch = KeyBatch()
        self._time_of = self._time  # made once (making a bound method allocates)
        self._held = bytearray(_KEYS)  # keys down, as recorded
        self._released_at = array("i", [-REBOUNCE_MS] * _KEYS)
        self._moved_to = -1  # the match time the match's clock has been moved on to
        self._now = 0  # the match time being played (events without a ``t``)
        self.presses = 0  # key-down events read
        self.applied = 0  # presses handed to the session
        self.bounces = 0  # presses dropped as chatter
        self.overflows = 0  # times the keypad queue overflowed
        self._news = 0  # events logged since the last refresh
        self._drawn_at = -REDRAW_MS
        self._phase = -1  # the match phase the sound was last told
        self.log.notes_on = True
        self.log.sink = send_line  # a pass that logs more than the log's pool holds
        self._drain()  # the match line, before play

    @property
    def over(self) -> bool:
        return self.match.phase == OVER

    def _time(self, ticks: int) -> int:
        """A ticks_ms value as ms since the PLAY press (wrap-safe)."""
        return ((ticks - self.start_ticks + _TICKS_HALF) & _TICKS_MASK) - _TICKS_HALF

    def step(self) -> None:
        """One loop pass (see the module docstring)."""
        now_ticks = self.ticks_ms()
        if self.opponent is not None:
            self.opponent.look(now_ticks)  # before the keys are read
        now = self._time(now_ticks)
        events = self.events
        event = self._event
        batch = self.batch
        self.presses += batch.read(events, event, self._time_of)
        if events.overflowed and not len(events):
            events.clear()  # the flag is read-only on the board; clear() resets it
            self.overflows += 1
            if self.screens is not None:
                self.screens.show_overflow(now)
                self._news += 1
        match = self.match
        count = batch.count
        at = batch.at
        i = 0
        while i < count and at[i] < now and match.phase != OVER:
            j = batch.group_end(i)
            self._apply(i, j)
            i = j
        if match.phase == OVER:
            i = count  # what comes after the match's end is not played
        batch.keep_from(i)
        if now - 1 > self._moved_to and match.phase != OVER:
            self._moved_to = now - 1
            self._now = now - 1
            match.advance(now - 1)  # what is due at `now` waits: a press of `now` may come
        self._tell()
        sound = self.sound
        if sound is not None:
            phase = match.phase
            if phase != self._phase:
                self._phase = phase
                sound.phase(phase)  # R3: the countdown beeps
            if sound.playing:
                sound.update(now_ticks)
        screens = self.screens
        if screens is not None:
            if self._news or now - self._drawn_at >= REDRAW_MS or now < self._drawn_at:
                self._news = 0
                self._drawn_at = now
                screens.refresh(match.core, match, now)
        self._drain()

    def _apply(self, first: int, end: int) -> None:
        """The events of one millisecond: one instant of the session (R4, R8, R13)."""
        batch = self.batch
        t = batch.at[first]
        if t <= self._moved_to:  # the clock is past it already: the next millisecond
            t = self._moved_to + 1
        held = self._held
        session = self.session
        keys = session.group_key
        downs = session.group_down
        n = 0
        presses = 0
        for i in range(first, end):
            k = batch.key[i]
            if k >= _KEYS:
                continue
            if batch.down[i]:
                if held[k]:  # its release was lost: record one first
                    keys[n] = k
                    downs[n] = 0
                    n += 1
                elif t - self._released_at[k] < REBOUNCE_MS:
                    self.bounces += 1  # chatter: neither it nor its release is recorded
                    continue
                held[k] = 1
                keys[n] = k
                downs[n] = 1
                n += 1
                presses += 1
            elif held[k]:
                held[k] = 0
                self._released_at[k] = t
                keys[n] = k
                downs[n] = 0
                n += 1
        if not n:
            return
        self._now = t
        self._moved_to = t
        session.step_group(t, n)
        self.applied += presses
        self._news += 1

    def _tell(self) -> None:
        """The events logged since the last pass, in order, to both views and the sound."""
        log = self.log
        n = log.take_notes()
        if not n:
            return
        self._news += n
        screens = self.screens
        sound = self.sound
        for i in range(n):
            kind = log.note_kind[i]
            p = log.note_p[i]
            arg = log.note_arg[i]
            now = log.note_now[i]
            if now < -1:  # (an event without a t: the instant being played)
                now = self._now
            if screens is not None:
                for view in screens.views:
                    view.event(kind, p, arg, now)
            if sound is not None:
                sound.event(kind, NULL_PLAYER if p < 0 else p, arg)  # (codes.EV_*, as classic's)

    def _drain(self) -> None:
        self.log.drain_into(self.send_line)

    def run(self, feed=None) -> None:
        """Play the match to its end (V8.9-V8.11, V9.4-V9.7) or until it stops idle (R17).

        ``feed``: called after every pass (the board's watchdog)."""
        while not self.over:
            self.step()
            if feed is not None:
                feed()
        self._drain()


# the modules a game brings in (board_io unloads them after the match: classic Speed
# gets its room back)
MODULES = (
    "game_app",
    "gamematch",
    "gamelog",
    "gamerules",
    "spit",
    "spit_view",
    "california",
    "california_view",
    "game_opponent",
)


def board_match(menu, settings, seed, start_ticks, events, screens, log_port, board):
    """One match of the menu's game (V8, V9) on the board (board_io.main); returns its
    GameApp. The options the game takes (gamerules.OPTIONS) come from the board's
    ``settings.rules`` (settings.toml, the menu), the rest keep their defaults; the menu's
    OPPONENT (1-3) plays player 1. ``board``: (ticks_ms, a keypad.Event, the Sound or None,
    the watchdog's feed, the Profiler or None, board_io.unload, the Link). For the match the screens
    show the game's views, then their own again; then the modules it brought in are
    forgotten (``MODULES``), so classic Speed gets their room back."""
    ticks_ms, event, sound, feed, profiler, unload, link = board
    import gc

    from speedduo.menu import GAME_IDS

    # one module at a time, collecting before each (compiling needs room on the board;
    # board_io imports the classic opponent the same way)
    gc.collect()
    from speedduo.gamerules import OPTIONS, GameRules

    game = GAME_IDS[menu.game]
    game_rules = GameRules(game)
    for name, _ in OPTIONS[game]:
        if hasattr(settings.rules, name):
            game_rules.set(name, getattr(settings.rules, name))
    gc.collect()
    if game == "spit":
        from speedduo.spit import Spit

        core = Spit(game_rules)
        gc.collect()
        from speedduo.spit_view import SpitView as view
    elif game == "california":
        from speedduo.california import California

        core = California(game_rules)
        gc.collect()
        from speedduo.california_view import CaliforniaView as view
    else:
        raise ValueError("no board loop for game " + str(game))
    gc.collect()
    from speedduo.gamematch import GameSession

    session = GameSession(core, seed, game_rules, 1)  # V8/V9: one game of rounds
    player = None
    if menu.opponent:
        gc.collect()
        from speedduo.game_opponent import GameOpponent

        player = GameOpponent(menu.opponent, seed)
    saved = screens.views
    views = (view(screens.panels[0], 0), view(screens.panels[1], 1))
    for v in views:
        v.forget()  # everything is drawn at the first refresh
    screens.views = views
    try:
        app = GameApp(
            events,
            ticks_ms,
            session,
            log_port.send,
            screens,
            start_ticks=start_ticks,
            opponent=player,
            event=event,
            sound=sound,
        )
        if profiler is None:
            app.run(feed)
        else:
            profiler.run(app, feed, link)
    finally:
        screens.views = saved
        log_port.flush()
        for name in MODULES:
            unload(name)
    return app
