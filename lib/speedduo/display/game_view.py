"""What the screens of the other two-player games share (spit_view.py, california_view.py).

A ``GameView`` is a ``base_view.View`` (what classic Speed's ``PlayerView`` is
built on too) pointed at a rules core of V8/V9 (``match.core``): the same
panel, glyphs, refusal flashes, menus and redraw by difference. A game's view adds the
table both players share (``_draw_table``), the player's own cards
(``_draw_own``), the cards each player holds (``_held``), its own moments
(``_moment``) and its round result (``_result``).

The interface the board's loop codes against (``Screens.refresh`` calls the
first three as every view's; ``update_shared`` is the first two):

- ``update_table(core, match, now) -> bool``: the table both players see, marked
  ``SHARED``; True while the game screen shows (then the next two);
- ``update_moment(core, match, now)``: the moment on show (after the table went out);
- ``update_private(core, match)``: the player's own part;
- ``event(kind, p, why, t, now)``: each event the core logs (its codes.EV_*
  kind, player, number: gamelog.GameLog.begin; the hand's and the match's
  time), as classic Speed's view hears its records: a refused press flashes
  the log's word (LATE / INVALID, ``why``) on that player's screen for 0.7 s;
- ``show_overflow(now)`` (TOO FAST), ``forget()`` (redraw everything),
  ``show_menu`` / ``hide_menu`` as ``View``'s.

Moments are packed as ``msg << 12 | arg`` (an int: nothing allocated).
"""

from micropython import const  # on the host, Blinka provides this module

from speedduo.display.base_view import FONT, INDEX, View
from speedduo.display.ssd1306 import PRIVATE, WIDTH
from speedduo.vocab.codes import (
    COUNTDOWN,
    EV_COVER,
    EV_DEAL,
    EV_PLAY,
    EV_REJECT,
    LATE,
    NULL_PLAYER,
    RESULT,
)

# base_view's message ids (its own consts here: folded where they are used)
M_NONE = const(0)
M_COUNT = const(1)
M_STALL = const(2)
M_LATE = const(5)
M_INVALID = const(6)
M_WIN = const(10)
M_LOSE = const(11)
# the other games' own; like every id from M_WIN up, shared by both panels
M_BLOCKED = const(13)  # a round ended with no winner (V8.8, V9.5)
M_SPIT = const(14)  # V8.2, V8.6: spit cards turned
M_SLAP = const(15)  # V8.8: the round stopped, slap a pile
ARG_BITS = const(12)
ARG_MASK = const(0xFFF)

BACK = const(254)  # a face-down card (base_view's)
NOT_AIMED = const(253)  # no target yet (countdown; base_view's UNKNOWN)
FORCE = const(252)  # nothing known on the panel (base_view's)
_SCREEN_OVER = const(2)  # base_view's
_FLASH_MS = const(700)
_STALL_STEPS = const(6)  # base_view's


class GameView(View):
    """One player's screen of a V8/V9 match; the game's view fills in the table."""

    def update_table(self, core, match, now):
        if not self._game_screen(match):
            return False
        dealt = match.phase != COUNTDOWN
        if dealt and core.hand_no != self._hand_no:  # a new round
            self._hand_no = core.hand_no
            self._flash_until = 0
        self._draw_table(core, dealt)
        return True

    def update_private(self, core, match):
        dealt = match.phase != COUNTDOWN
        self._draw_own(core, match, dealt)
        if self._head_start(match, dealt):  # H1's leads on page 0 (the countdown)
            return
        if dealt:
            p = self.player
            self._count(0, self._held(core, p), 24)  # after "YOU "
            self._count(1, self._held(core, 1 - p), 116)  # after "THEM "

    def forget(self):
        """The panel may show anything: the next update redraws the whole screen."""
        self._screen = 0  # base_view's SCREEN_NONE

    def _wipe(self, cls):
        """Clear the moment drawn last, only where it was (as View._draw_centre)."""
        if self._drawn_x1 >= 0:
            x0 = self._drawn_x0
            page0 = self._drawn_page0
            w = self._drawn_x1 - x0 + 1
            self.panel.fill(x0, page0, w, self._drawn_page1 - page0 + 1, 0, cls)
            self._drawn_x1 = -1

    def event(self, kind, p, why, t, now):
        """A refused press of this player flashes its word; the rest but plays goes to
        ``_note``."""
        if kind == EV_REJECT:
            if p == self.player:
                self._flash = M_LATE if why == LATE else M_INVALID
                self._flash_until = now + _FLASH_MS
            return
        if kind == EV_PLAY or kind == EV_COVER:  # a play: the table shows it (no note)
            return
        if kind == EV_DEAL and why == 1:  # round 1 (a deal's number): a new match
            self._flash_until = 0
            self._hand_no = -1
        self._note(kind, now)

    # ---- what a game's view gives ----

    def _note(self, kind, now):
        """An event other than a refusal or a play (nothing by default)."""

    def _moment(self, core, now):
        """The game's own moment during play, packed (0: none); before the stall."""
        return 0

    def _over_reason(self, match):
        """A line saying why the match ended, instead of the cards left (None: those)."""
        return None

    def _draw_own(self, core, match, dealt):
        """The player's own cards (nothing by default)."""

    # ---- moments ----

    def _centre(self, core, match, now, phase):
        """Pick the moment on show (most important first) and draw it when it changed."""
        packed = 0
        if phase == COUNTDOWN:  # R3: whole seconds to the start signal, 1-9
            arg = (match.hand_start - now + 999) // 1000
            packed = M_COUNT << ARG_BITS | (1 if arg < 1 else 9 if arg > 9 else arg)
        elif phase == RESULT or core.over:
            packed = self._result(core)
        else:
            packed = self._moment(core, now)
            if packed == 0:
                packed = self._common_moment(core, match, now)
        msg = packed >> ARG_BITS
        arg = packed & ARG_MASK
        if msg != self._msg or arg != self._arg:
            old = self._msg
            self._msg = msg
            self._arg = arg
            self._draw_centre(old, msg, arg)

    def _common_moment(self, core, match, now):
        """During play: the stall countdown (R9), else a refusal's flash, packed."""
        if core.stall_due >= 0:  # the bar's steps: the time left out of the countdown
            left = core.stall_due - (now - match.hand_start)
            total = match.rules.stall_countdown_ms
            steps = ((left if left > 0 else 0) * _STALL_STEPS + total - 1) // total if total else 0
            return M_STALL << ARG_BITS | steps
        if now < self._flash_until:
            return self._flash << ARG_BITS
        return 0

    def _result_msg(self, core):
        """This player's word for the round's end: won, lost, or nobody won."""
        winner = core.winner
        if winner == self.player:
            return M_WIN
        return M_BLOCKED if winner == NULL_PLAYER else M_LOSE

    def _draw_over(self, match):
        """The match result, full screen: who won and the cards each still holds."""
        panel = self.panel
        panel.clear(PRIVATE)
        p = self.player
        self._centred(b"MATCH OVER", 0, WIDTH, 1, PRIVATE, True)
        if match.end_why == b"max_rounds":  # V8.11, V9.7
            self._centred(b"ROUND LIMIT REACHED", 0, WIDTH, 2, PRIVATE, False)
        winner = match.winner
        text = (
            b"YOU WIN!" if winner == p else b"NO RESULT" if winner == NULL_PLAYER else b"YOU LOSE"
        )
        self._centred(text, 0, WIDTH, 3, PRIVATE, False)
        reason = self._over_reason(match)
        if reason is not None:
            self._centred(reason, 0, WIDTH, 5, PRIVATE, False)
        else:  # the cards each still holds decided it (V8.9, V8.11, V9.7)
            self._centred(b"CARDS LEFT", 0, WIDTH, 5, PRIVATE, False)
            core = match.core
            x = panel.text(FONT, INDEX, b"YOU", 19, 6, PRIVATE, False)
            x = panel.number(FONT, INDEX, self._held(core, p), x, 6, 3, PRIVATE, False)
            x = panel.text(FONT, INDEX, b"   THEM", x, 6, PRIVATE, False)
            panel.number(FONT, INDEX, self._held(core, 1 - p), x, 6, 3, PRIVATE, False)
        self._centred(b"PRESS ANY KEY", 0, WIDTH, 7, PRIVATE, False)
        self._screen = _SCREEN_OVER
        self._forget()
