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
4. each event the rules core logs is shown, as it is put, to both views
   (``event(ev, fields, now)``) and to the sound; the screens refresh when
   something happened and at least every ``REDRAW_MS``; the log's lines go to
   ``send_line`` (the board's ``LogPort.send``, which takes a bytearray and
   appends to it: the lines are copied into one reusable buffer).

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

These games build their log lines as strings (gamelog.py), so a press
allocates here, unlike classic Speed's play path (app.py, untouched).
"""

from array import array

from micropython import const  # on the host, Blinka provides this module

from speedduo.codes import END_OUT, INVALID, LATE, NULL_PLAYER, OVER
from speedduo.keybatch import KeyBatch
from speedduo.matchlog import (
    EV_DEAL,
    EV_FLIP,
    EV_HAND_END,
    EV_MATCH_END,
    EV_PLAY,
    EV_REJECT,
    EV_STALL,
)
from speedduo.ticks import ticks_diff

REDRAW_MS = const(40)  # as app.REDRAW_MS
REBOUNCE_MS = const(25)  # as arbiter.REBOUNCE_MS: chatter after a release
_KEYS = const(14)  # two rows of L 1 2 3 4 5 R
_LINE_CAPACITY = const(1024)  # the reusable line buffer's first size (it grows if needed)

# the GameLog events the piezo hears (sound.py knows classic Speed's records): a card put
# down clicks, a card turned onto a pile by the table (spit, stop) sounds as a flip
_CLICKS = ("play", "cover", "turn", "move", "slap")
_FLIPS = ("spit", "stop")


def _field(fields, name):
    """The value of ``name`` among an event's (name, value) pairs (None: not there)."""
    for key, value in fields:
        if key == name:
            return value
    return None


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
        self._line = bytearray(_LINE_CAPACITY)
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
        self._told = []  # (ev, fields, now) logged, not yet shown to the views and sound
        self._drawn_at = -REDRAW_MS
        self._phase = -1  # the match phase the sound was last told
        self.arbiter = self  # what profiling.Profiler reads of an App: .presses
        self.log = self  # ... and .log.drain_into(send_line)
        session.log.observer = self._observe
        self._drain()  # the match line, before play

    @property
    def over(self) -> bool:
        return self.match.phase == OVER

    def _time(self, ticks: int) -> int:
        """A ticks_ms value as ms since the PLAY press (wrap-safe)."""
        return ticks_diff(ticks, self.start_ticks)

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
        group = []
        presses = 0
        for i in range(first, end):
            k = batch.key[i]
            if k >= _KEYS:
                continue
            if batch.down[i]:
                if held[k]:  # its release was lost: record one first
                    group.append((k, 0))
                elif t - self._released_at[k] < REBOUNCE_MS:
                    self.bounces += 1  # chatter: neither it nor its release is recorded
                    continue
                held[k] = 1
                group.append((k, 1))
                presses += 1
            elif held[k]:
                held[k] = 0
                self._released_at[k] = t
                group.append((k, 0))
        if not group:
            return
        self._now = t
        self._moved_to = t
        self.session.step(t, group)
        self.applied += presses
        self._news += 1

    def _observe(self, ev, fields) -> None:
        """An event the rules core logged (GameLog.observer), with its match time: kept for
        ``_tell`` (called deep inside the core, so the views' drawing waits: CircuitPython's
        Python stack is short)."""
        match = self.match
        now = self._now
        if fields and fields[0][0] == "t":
            now = match.hand_start + fields[0][1]
        elif ev == "deal":
            now = match.hand_start
        self._news += 1
        self._told.append((ev, fields, now))

    def _tell(self) -> None:
        """The events logged since the last pass, in order, to both views and the sound."""
        told = self._told
        if not told:
            return
        self._told = []
        for ev, fields, now in told:
            self._tell_one(ev, fields, now)

    def _tell_one(self, ev, fields, now) -> None:
        screens = self.screens
        if screens is not None:
            for view in screens.views:
                view.event(ev, fields, now)
        sound = self.sound
        if sound is None:
            return
        if ev in _CLICKS:
            sound.event(EV_PLAY, _field(fields, "p"), 0)
        elif ev in _FLIPS:
            sound.event(EV_FLIP, 0, 0)
        elif ev == "reject":
            sound.event(
                EV_REJECT, _field(fields, "p"), LATE if _field(fields, "why") == "late" else INVALID
            )
        elif ev == "stall":
            sound.event(EV_STALL, NULL_PLAYER, 0)  # R9: ticks until the countdown runs out
        elif ev == "deal":
            sound.event(EV_DEAL, NULL_PLAYER, 0)
        elif ev == "hand_end" or ev == "match_end":
            winner = _field(fields, "winner")
            p = NULL_PLAYER if winner is None else winner
            if ev == "match_end":
                sound.event(EV_MATCH_END, p, 0)
            else:
                sound.event(EV_HAND_END, p, END_OUT if _field(fields, "why") == "out" else 0)

    def _drain(self) -> None:
        self.session.log.drain(self._send)

    def _send(self, text) -> None:
        line = self._line
        line[:] = text.encode()
        self.send_line(line)

    def drain_into(self, send_line) -> None:
        """Send every waiting line (profiling.Profiler's ``app.log.drain_into``)."""
        self._drain()

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
