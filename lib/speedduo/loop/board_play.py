"""A match on the board, around its play: classic Speed's app built (``begin_match``), and
what its end leaves (``finish``: the last tune, the views let go, classic Speed's stats
saved).
"""

import keypad
import supervisor

from speedduo.game.rules import HANDICAPS
from speedduo.loop.app import App


def begin_match(choices, seed, play_ticks, events, screens, log_port, sound):
    """For classic Speed, build its ``App`` (not run) and return it; for the other games
    (``choices.game``: ``game_app.board_match`` builds and plays theirs) return None."""
    micro = getattr(events, "micro", False)  # the PIO's µs stamps (edges.py), not keypad's
    if micro:
        events.start_match()  # the match's µs count from the PLAY press
    if choices.game:  # V8, V9
        return None
    from speedduo.display.view import PlayerView  # per match: board_io forgets CLASSIC after it

    screens.play((PlayerView(screens.panels[0], 0), PlayerView(screens.panels[1], 1)))
    opponent = None
    if choices.opponent:  # one player against the board: it plays Player 2
        # imported here, not at power-on: a match of two players never holds it (the .mpy
        # fallback: 3,872 B, bench_import_heap; board_io forgets it after the match)
        from speedduo.loop.opponent import Opponent

        opponent = Opponent(choices.opponent, seed, choices.rules.claim_mode)
    app = App(
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
        scans=True,  # the board's keypad as it queued its scans (arbiter.py)
    )
    if micro:
        app.log.late_of = events  # match_end says how late a stamp may be (a full FIFO)
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
    balance = choices.auto_balance
    if choices.game and not balance and not choices.balance_kept:
        return  # V8, V9 record no stats (H3's switch is kept for every game)
    stats = host_stats.stats()
    if not choices.game:
        stats.record(app.match)
    rules = choices.rules
    if balance:  # H3: one step toward the match's loser, on both panels before the menu
        from speedduo.game.balance import step_toward_loser

        leads = step_toward_loser(rules.head_start_p1_ms, rules.head_start_p2_ms, app.match.winner)
        rules.set(HANDICAPS[0], leads[0])
        rules.set(HANDICAPS[1], leads[1])
    stats.set_balance(balance, rules.head_start_p1_ms, rules.head_start_p2_ms)
    choices.balance_kept = balance
    stats.save()  # the match is over: a flash write pauses the board (stats_store)
    if stats.store.nvm is not None:
        print("stats: saved record %d" % stats.store.seq)
        # saved in nvm: the stats leave the heap until they are asked for again
        # (the STATS screen, the host's request, the next match's end)
        host_stats.stats_box[0] = None


def restore_balance(choices, host_stats):
    """At power-on: H3's switch and head starts as the stats record kept them (when it is
    on, they are where the last match left them, not settings.toml's)."""
    on, p1_ms, p2_ms = host_stats.stats().balance()
    if on:
        choices.auto_balance = choices.balance_kept = True
        choices.rules.set(HANDICAPS[0], p1_ms)
        choices.rules.set(HANDICAPS[1], p2_ms)


def show_balance(choices, keys, screens, feed):
    """H3 after a match: both panels say the head starts now in force (until a key, 4 s)."""
    from speedduo.display.menu import BALANCE_NOTICE_MS, head_start_line
    from speedduo.loop.menu_loop import notice

    rules = choices.rules
    lines = [
        head_start_line(1, rules.head_start_p1_ms),
        head_start_line(2, rules.head_start_p2_ms),
        "ONE STEP A MATCH",
        "TOWARD ITS LOSER",
    ]
    notice(keys, screens, "AUTO BALANCE", lines, feed, wait_ms=BALANCE_NOTICE_MS)
