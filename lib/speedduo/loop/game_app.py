"""The board's loop for the other games (V8 Spit, V9 California Speed): ``app.App``'s loop
with these games' match, arbiter and log.

One ``GameApp`` plays one match of a ``gamematch.GameSession`` (the simulator's
runner and ``replay`` drive the same session). Its ``step()`` is ``App.step``
(docs/architecture.md): the arbiter (``arbiter.Arbiter``: the key batch, the
overflow, the tick wrap, the instants in time order, written once) reads the
keypad's events, or the board opponent's merge in front of them
(``game_opponent.py``), stamped as ms since the PLAY press; each millisecond
before the current one goes to ``Phases.step_group`` as one instant
(``Arbiter._apply_group``), arbitrated there (ties rotate, R4, R8, R13), so
the log's key record replays to the same lines (``python -m host_sim
replay``); the match's clock moves on to the millisecond before now; the log's
notes go to both views and the sound (``App._event``); the screens refresh;
the log's lines go to ``send_line``.

What the version 2 key record must hold for the replay, and what the keypad
may still do (the arbiter's ``KEYS_PAIRED`` instants):
- a press less than ``REBOUNCE_MS`` after the same key's release is contact
  chatter (as for classic Speed): it is not recorded, nor
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

A press allocates nothing, as in classic Speed: the key events go to the
match through its preallocated group arrays, the rules cores keep their
piles' room (bytearrays), the log writes bytes into a reusable line and notes
events in arrays (bench/mp_heap_lock_games.py proves it for both games).
"""

from speedduo.game.gamematch import GameSession
from speedduo.game.gamerules import GameRules, options_of
from speedduo.game.rules import HANDICAPS
from speedduo.games import BOARD_GAMES, core_class, view_class
from speedduo.log.gamelog import GameLog
from speedduo.loop.app import App
from speedduo.loop.arbiter import REBOUNCE_MS, Arbiter  # noqa: F401  (REBOUNCE_MS: re-exported)


class GameApp(App):
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
        scans=False,
    ):
        """``session``: a ``gamematch.GameSession`` (its match line is sent at once);
        ``events``: the keypad.EventQueue; ``event``: a keypad.Event to read it into
        (the board glue makes it); ``start_ticks``: the PLAY press's timestamp;
        ``opponent``: a ``game_opponent.GameOpponent`` playing player 1, standing in
        front of ``events``; ``screens``: a ``screens.Screens`` whose ``views`` are the
        game's; ``sound``: a ``sound.Sound``; ``scans``: as App's."""
        self.session = session
        self.core = session.core
        match = session.match
        if start_ticks is None:
            start_ticks = ticks_ms()
        self.start_ticks = start_ticks
        log = session.log
        micro = log.micro  # the session's: µs stamps (App's ``micro``)
        if opponent is not None:
            events, event = self._join(opponent, events, match, start_ticks, event, micro)
        log.notes_on = True
        log.sink = send_line  # a pass that logs more than the log's pool holds
        arbiter = Arbiter(events, match, start_ticks, event, micro, scans and not opponent)
        self._start(ticks_ms, log, match, arbiter, send_line, screens, opponent, sound)


def board_match(menu, rules, seed, start_ticks, events, screens, log_port, board):
    """One match of the menu's game (V8, V9) on the board (board_io.main); returns its
    GameApp. The options the game takes (gamerules.options_of) come from the board's
    ``rules`` (settings.toml, the menu), the rest keep their defaults; the menu's
    OPPONENT (1-3) plays player 1. ``board``: (ticks_ms, a keypad.Event, the Sound or None,
    the watchdog's feed, the Profiler or None, the Link). For the
    match the screens show the game's views, then their own again."""
    ticks_ms, event, sound, feed, profiler, link = board
    game = BOARD_GAMES[menu.game]
    game_rules = GameRules(game)
    for name, _ in options_of(game):
        if hasattr(rules, name):
            game_rules.set(name, getattr(rules, name))
    for name in HANDICAPS:  # H1: every game's (rules.py)
        game_rules.set(name, getattr(rules, name, 0))
    core = core_class(game)(game_rules)  # the registry's (games.py)
    view = view_class(game)
    micro = getattr(events, "micro", False)  # the PIO's µs stamps (edges.py); board_play
    session = GameSession(core, seed, game_rules, 1, GameLog(micro))  # V8/V9: one game of rounds
    if micro:
        session.log.late_of = events  # match_end says how late a stamp may be
    player = None
    if menu.opponent:  # (imported here: a match of two players never holds the opponent)
        from speedduo.loop.game_opponent import GameOpponent

        player = GameOpponent(menu.opponent, seed)
    views = (view(screens.panels[0], 0), view(screens.panels[1], 1))
    for v in views:
        v.forget()  # everything is drawn at the first refresh
    screens.play(views)
    del views
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
            scans=True,  # the board's keypad as it queued its scans (arbiter.py)
        )
        if profiler is None:
            app.run(feed)
        else:
            profiler.run(app, feed, link)
    finally:
        log_port.flush()
        screens.release()  # the screens' own views again
    return app
