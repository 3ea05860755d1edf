"""The game loop, one for every game: keys -> arbiter -> match -> screens and sound, and
the log to its sink (docs/architecture.md).

One ``App`` plays one match. ``step()`` is one loop pass: the arbiter drains
the keypad queue and applies the presses in time order (the match's clock
catches up on the way), the sound and the screens hear what the log recorded
(one vocabulary, codes.EV_*), the screens show what changed (what both
players see to both panels first), refusals and a keypad overflow flash on the
player's screen, and the log's waiting lines are handed to ``send_line(line)``
(a ``bytearray``, to be used before it returns: the board's ``LogPort.send``).
The board (``board_io.py``) and the simulator (``host_sim/runner.py``) both
drive this same object. Classic Speed's is made here from a seed and rules;
the other games' (V8, V9) by ``game_app.GameApp`` from a ``GameSession``, with
their own match (``gamematch.GameMatch``: the same ``Phases.step_group`` takes
the arbiter's instants) and log (``gamelog.GameLog``): the loop and the arbiter are these.
"""

from micropython import const  # on the host, Blinka provides this module

from speedduo.game.rules import head_starts
from speedduo.loop.arbiter import Arbiter
from speedduo.vocab.codes import OVER
from speedduo.vocab.ticks import ticks_add

REDRAW_MS = const(40)  # the screens follow time at least this often


class App:
    def __init__(
        self,
        events,
        ticks_ms,
        seed,
        rules,
        best_of,
        send_line,
        screens=None,
        start_ticks=None,
        opponent=None,
        *,
        event,
        sound=None,
        micro=False,
        scans=False,
    ):
        """``start_ticks``: the ticks_ms of the match's time 0 (the board passes the
        PLAY press's keypad timestamp, so match times follow the keys, not the loop);
        ``event``: a ``keypad.Event`` to read the queue into (the board glue makes it).
        ``opponent``: an ``opponent.Opponent`` playing player 1 (one player against
        the board): it stands in front of ``events``, so its presses are key events.
        ``sound``: a ``sound.Sound`` (the piezo), told the core's records and each
        change of the match's phase, and advanced every pass while a tune plays (it
        only sets the PWM's registers). ``micro``: ``events`` stamps every edge in µs
        (the PIO's edge stamps, ``edges.py``): its events carry ``sub_us``, the arbiter
        orders by it and the log writes ``keys_us`` (docs/match-log.md). ``scans``:
        ``events`` is the board's keypad queue as the scans filled it (arbiter.py): an
        instant waits less (not with an opponent in front of it)."""
        # classic Speed's match, log and key record are imported here, not with the loop:
        # the other games' GameApp (an App) never brings them onto the board's heap
        from speedduo.game.match import Match
        from speedduo.log.keylog import KeyRecorder
        from speedduo.log.matchlog import LINE_CAPACITY, ONE_DECK_LINE, MatchLog

        one_deck = not (rules.jokers or rules.double_deck)  # (V3, V4: a longer deal line)
        log = MatchLog(micro=micro, line_room=ONE_DECK_LINE if one_deck else LINE_CAPACITY)
        match = Match(seed, rules, best_of, log)
        if start_ticks is None:
            start_ticks = ticks_ms()
        if opponent is not None:
            events, event = self._join(opponent, events, match, start_ticks, event, micro)
        # the arbiter reads the keys through a recorder: the log holds every key event (replay)
        recorder = KeyRecorder(events, log, start_ticks, match)
        arbiter = Arbiter(recorder, match, start_ticks, event, micro, scans and not opponent)
        self._start(ticks_ms, log, match, arbiter, send_line, screens, opponent, sound)
        # a pass that records more than the ring holds: its lines go out at once, seen first
        log.sink = send_line
        if screens is not None or sound is not None:
            log.observer = self._on_event

    def _join(self, opponent, events, match, start_ticks, event, micro):
        """The board's opponent joins the keys (every game's App): it reads the real queue
        into ``event``; the arbiter reads the merged stream into the opponent's own
        (keypad.Event is read-only on the board). Returns (that stream, its event). H1: the
        opponent's clock is the match's, behind the keys' by the larger head start."""
        opponent.micro = micro
        lag = max(head_starts(match.rules))
        events = opponent.join(events, match, ticks_add(start_ticks, lag), event)
        return events, opponent.event

    def _start(self, ticks_ms, log, match, arbiter, send_line, screens, opponent, sound):
        """What every game's loop holds; the log's first line goes out."""
        self.ticks_ms = ticks_ms  # supervisor.ticks_ms on the board and in the simulator
        self.log = log
        self.match = match
        self.arbiter = arbiter
        self.opponent = opponent
        arbiter.watcher = opponent  # it looks at every change of the table (arbiter.py)
        self.screens = screens
        self.sound = sound
        self.send_line = send_line
        self.log.drain_into(send_line)  # the match line, before play
        self._overflows = 0
        self._applied = 0
        self._drawn_at = -REDRAW_MS  # match time of the last screen refresh
        self._phase = -1  # the match phase the sound was last told
        self._on_event = self._event  # one bound method, made once (making one allocates)

    @property
    def over(self) -> bool:
        return self.match.phase == OVER

    @property
    def presses(self) -> int:
        """Key-down events read (profiling.Profiler's count, as GameApp's)."""
        return self.arbiter.presses

    def step(self) -> None:
        """One loop pass (the same for every game).

        The screens are brought up to date when something happened (a press applied, a
        record of the core, lost presses) and at least every ``REDRAW_MS`` for what
        only time changes (countdowns, a flash running out): a pass in which nothing
        happened costs little, so a press waits less for the pass that sees it."""
        now_ticks = self.ticks_ms()
        if self.opponent is not None:
            self.opponent.look(now_ticks)  # before the arbiter reads the keys
        arbiter = self.arbiter
        arbiter.service(now_ticks)
        screens = self.screens
        sound = self.sound
        news = 0
        if screens is not None or sound is not None:
            news = self.log.observe(self._on_event)  # what the core recorded
        if sound is not None:  # before the screens: a tune starts without waiting for the bus
            phase = self.match.phase
            if phase != self._phase:  # (R3: the countdown beeps)
                self._phase = phase
                sound.phase(phase)
            if sound.playing:
                sound.update(now_ticks)
        if screens is not None:
            now = arbiter.match_time(now_ticks) - arbiter.lag  # the match's clock (H1)
            news += arbiter.applied - self._applied  # presses applied (an aim changes no record)
            self._applied = arbiter.applied
            if arbiter.overflows != self._overflows:  # presses were lost: say so
                self._overflows = arbiter.overflows
                screens.show_overflow(now)
                news += 1
            if news or now - self._drawn_at >= REDRAW_MS or now < self._drawn_at:
                self._drawn_at = now
                screens.refresh(self.match.hand, self.match, now)
                if self.match.phase == OVER:  # the last play's pile is drawn: the result now
                    screens.refresh(self.match.hand, self.match, now)  # (the match's last pass)
                if self.log.may_wait():
                    return  # the log waits a pass: the next press is seen sooner
        self.log.drain_into(self.send_line)

    def _event(self, kind, p, why, t, now) -> None:
        """An event the log recorded (its codes.EV_* kind, player, why, hand time ``t`` and
        match time ``now``), after the core has returned (CircuitPython's stack is short)."""
        if self.screens is not None:
            self.screens.event(kind, p, why, t, now)
        if self.sound is not None:
            self.sound.event(kind, p, why)

    def run(self, feed=None) -> None:
        """Play the match to its end (R14) or until it stops idle (R17).

        ``feed``: called after every pass (the board's watchdog)."""
        while not self.over:
            self.step()
            if feed is not None:
                feed()
        self.log.drain_into(self.send_line)
