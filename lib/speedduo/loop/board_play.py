"""A match on the board, around its play: its modules loaded and classic Speed's app built
(``load_match``), and what its end leaves (``finish``: the last tune, the views let go,
classic Speed's stats saved; ``forget_match``: its modules forgotten).

``board_io.main`` loads this module before a match and after it and forgets it while
the match plays, so the match's heap does not hold it (docs/device.md).
"""

import gc
import sys

import keypad
import supervisor

from speedduo.loader import load, unload

# what a match brings in, leaves first (each after a collection: compiling needs room);
# forgotten after the match, so the menu and the next game get their room back
CLASSIC_MODULES = (
    "log.dealtext",
    "log.matchlog",
    "log.keylog",
    "game.phases",
    "game.stall",
    "game.core",
    "game.match",
)
# its screens (the menu's: base_view); Spit's piles too (forget_match forgets them all)
CLASSIC_VIEW = ("display.large_ranks", "display.piles", "display.view")
LOOP_MODULES = ("loop.keybatch", "loop.arbiter", "loop.app")
MATCH_MODULES = CLASSIC_MODULES + CLASSIC_VIEW + LOOP_MODULES + ("loop.opponent",)
# (game_app.MODULES: the other games' own)


def load_match(choices, seed, play_ticks, events, screens, log_port, sound):
    """Load the chosen game's modules; for classic Speed, build its ``App`` (not run) and
    return it; for the other games (``choices.game``: ``game_app.board_match`` builds and
    plays theirs) return None. The modules are reached through ``sys.modules``: a name
    bound in a long-lived module or frame would keep a module's code after the match."""
    micro = getattr(events, "micro", False)  # the PIO's µs stamps (edges.py), not keypad's
    if micro:
        events.start_match()  # the match's µs count from the PLAY press
    load(LOOP_MODULES)
    if choices.game:  # V8, V9
        load(("loop.game_app",))
        return None
    load(CLASSIC_MODULES)
    load(CLASSIC_VIEW)
    view = sys.modules["speedduo.display.view"].PlayerView
    screens.play((view(screens.panels[0], 0), view(screens.panels[1], 1)))  # until finish
    view = None
    opponent = None
    if choices.opponent:  # one player against the board: it plays Player 2
        load(("loop.opponent",))
        opponent = sys.modules["speedduo.loop.opponent"].Opponent(
            choices.opponent, seed, choices.rules.claim_mode
        )
    app = sys.modules["speedduo.loop.app"].App(
        events,
        supervisor.ticks_ms,
        seed,
        choices.rules,
        choices.best_of,
        log_port.send,
        screens,
        start_ticks=play_ticks,
        opponent=opponent,
        event=getattr(events, "Event", keypad.Event)(),
        sound=sound,
        micro=micro,
    )
    if micro:
        app.log.late_of = events  # match_end says how late a stamp may be (a full FIFO)
    # every module of the match is loaded: they hold the numbers they took from codes.py
    # and cards.py (constants only; core.Hand has made its deck), so their dicts leave the
    # heap while the match plays (loaded again by the next import that names them)
    unload("game.codes")
    unload("game.cards")
    return app


def finish(app, choices, host_stats, screens, log_port, sound, feed):
    """A match has ended: its last lines out, its last tune to its end, the views let go
    of it, and classic Speed's stats recorded and saved (not V8, V9: docs/stats.md)."""
    log_port.flush()
    # the match's last tune to its end before the stats: reading them (an import)
    # and the flash write pause the loop, which would swallow its notes
    while sound is not None and sound.playing:
        feed()
        sound.update(supervisor.ticks_ms())
    screens.release()  # the match's views let go of it (and go): nothing holds it but `app`
    if choices.game:
        return
    stats = host_stats.stats()
    stats.record(app.match)
    stats.save()  # the match is over: a flash write pauses the board (stats_store)
    if stats.store.nvm is not None:
        print("stats: saved record %d" % stats.store.seq)
        # saved in nvm: the stats leave the heap until they are asked for again
        # (the STATS screen, the host's request, the next match's end)
        stats = host_stats.stats_box[0] = None
        unload("host.stats")
        unload("host.stats_store")


def forget_match():
    """Forget every module a match brought in (``MATCH_MODULES``, ``game_app.MODULES``):
    once the match is dropped, their code goes back to the heap."""
    for name in MATCH_MODULES:
        unload(name)
    game_app = sys.modules.get("speedduo.loop.game_app")
    if game_app is not None:
        from speedduo.games import BOARD_GAMES, modules

        for name in game_app.MODULES:
            unload(name)
        for game in BOARD_GAMES:  # the other games' cores and views (the registry's)
            if game != "speed":  # (classic's: MATCH_MODULES)
                for name in modules(game):
                    unload(name)
    gc.collect()
