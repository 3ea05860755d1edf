"""The headless simulator: a whole match on the virtual clock, bots and scripts pressing keys.

The board's own game loop (``speedduo.app.App``) runs here: the scanner is made
from the pin map by ``speedduo.keys`` over the ``board``/``keypad``/``supervisor``
shims, the arbiter drains the keypad queue and feeds the match, the screens
(when given) are refreshed and the match log is drained to ``write`` after every
loop pass. The loop jumps over idle time and steps one tick at a time while keys
are moving. Runs under CPython and MicroPython (``--vm micropython``).
"""

import board
import keypad
import vclock
from bots import Bot
from buttons import Buttons
from speedduo.app import App
from speedduo.keys import make_keys
from speedduo.match import OVER, PLAYING
from speedduo.rng import Rng

_MAX_LOOPS = 5000000


class Simulation:
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
        self.clock = vclock.install(vclock.VirtualClock(phase_us, ms_offset, tick_offset))
        self.keys = make_keys(board)
        self._start_tick = self.clock.tick_at_or_before(0)
        self._write = None
        self._early = []
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
            if not kind.startswith("bot:"):
                raise ValueError("player %d: expected bot:LEVEL or none, got %r" % (p, kind))
            stream = Rng((seed ^ (0x2AAAAAAA >> p)) & 0x3FFFFFFF)
            self.bots.append(Bot(p, kind[4:], stream, self.buttons, rules.claim_mode))
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

    def _emit(self, line):
        if self._write is None:  # the match line, written as the App is made
            self._early.append(line.decode())
        else:
            self._write(line.decode())

    def run(self, write):
        """Play the match to its end, writing every log line; returns the Match."""
        self._write = write
        for line in self._early:
            write(line)
        self._early = []
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
