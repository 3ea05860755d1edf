"""Sound on the passive piezo: short tunes for what happens, never a wait.

``Sound(pwm)`` drives one ``pwmio.PWMOut`` (made with ``variable_frequency=True``
and ``duty_cycle=0``). A tune is a row of notes in the preallocated table
``_NOTES`` (two bytes a note: pitch index into ``_HZ``, 0 = a rest, and length
in 10 ms units; a 0 length ends the tune). ``update(now)``, called every loop
pass with ``supervisor.ticks_ms()``, starts the next note when the current one is
due: it only sets the PWM's ``frequency`` and ``duty_cycle``. Nothing sleeps,
nothing allocates (ints from ``bytes``/``array`` tables), so a tune never delays
a key press. Volume is the duty cycle (``VOLUMES``, 0 = mute: the PWM is never
touched).

What sounds (``event`` is fed the records the core wrote, as App.step observes
them; ``phase`` each change of the match's phase):
- TUNE_COUNTDOWN beeps at 3, 2, 1 (R3), TUNE_START at the start signal (the deal);
- TUNE_PLAY, a click (Player 1 lower than Player 2); TUNE_LATE for a late press
  (R8), TUNE_INVALID for an invalid or locked one (R16) or a joker kept last (V3);
- TUNE_STALL ticks while the R9 countdown runs (until the flip), TUNE_FLIP at the
  flip or redeal (R9, R10);
- TUNE_SPEED when a hand is won by going out (R12) or by a claim (V5): a trill,
  then TUNE_WON's notes, the tune of a hand won otherwise (R11, R13); TUNE_NO_RESULT for a hand
  without a winner (tie, R17); TUNE_MATCH_WON / TUNE_MATCH_OVER after the hand's tune.
"""

from array import array

from micropython import const  # on the host, Blinka provides this module

from speedduo.vocab.codes import (  # noqa: F401  (re-exported)
    COUNTDOWN,
    END_CLAIM,
    END_OUT,
    EV_COVER,
    EV_DEAL,
    EV_FLIP,
    EV_HAND_END,
    EV_MATCH_END,
    EV_MOVE,
    EV_PLAY,
    EV_REDEAL,
    EV_REJECT,
    EV_SLAP,
    EV_SPIT,
    EV_STALL,
    EV_STOP,
    EV_TURN,
    LATE,
    NULL_PLAYER,
    VOLUME_DEFAULT,
    VOLUME_MAX,
)
from speedduo.vocab.ticks import ticks_add, ticks_less

_UNIT_MS = const(10)  # note lengths are in 10 ms units
VOLUMES = array("H", (0, 2048, 8192, 32768))  # duty cycle by volume (0: mute)

# pitches (Hz), index 0 a rest. Above 1907 Hz the RP2040 makes them within 0.1 %;
# below, CircuitPython's clock divider rounds (523 -> 526 Hz): only the buzzes go there
_HZ = array("H", (0, 262, 392, 523, 2093, 2349, 2637, 2794, 3136, 3520, 4186, 3951))
_C4 = const(1)
_G4 = const(2)
_C5 = const(3)
_C7 = const(4)
_D7 = const(5)
_E7 = const(6)
_F7 = const(7)
_G7 = const(8)
_A7 = const(9)
_C8 = const(10)
_B7 = const(11)

# tunes, by id: (pitch, length in 10 ms) pairs, each ended by a 0 length
TUNE_COUNTDOWN = const(0)
TUNE_START = const(1)
TUNE_PLAY = const(2)  # Player 2's click (index 1) is TUNE_PLAY_P1
TUNE_PLAY_P1 = const(3)
TUNE_LATE = const(4)  # late (R8)
TUNE_INVALID = const(5)  # invalid, locked (R16), joker last (V3)
TUNE_STALL = const(6)  # repeats until the flip
TUNE_FLIP = const(7)
TUNE_SPEED = const(8)
TUNE_WON = const(9)
TUNE_NO_RESULT = const(10)
TUNE_MATCH_WON = const(11)
TUNE_MATCH_OVER = const(12)
TUNE_MENU = const(13)
TUNE_SCALE = const(14)  # the self-test's C major scale, C7 to C8 (selftest.py)
# fmt: off
_NOTES = bytes((
    _D7, 6, 0, 94, _D7, 6, 0, 94, _D7, 6, 0, 0,  # TUNE_COUNTDOWN: 3, 2, 1
    _C8, 25, 0, 0,  # TUNE_START
    _E7, 2, 0, 0,  # TUNE_PLAY
    _G7, 2, 0, 0,  # TUNE_PLAY_P1
    _C5, 6, 0, 0,  # TUNE_LATE
    _G4, 8, 0, 2, _C4, 12, 0, 0,  # TUNE_INVALID
    _F7, 4, 0, 21, 0, 0,  # TUNE_STALL: one tick every 250 ms
    _E7, 4, _A7, 6, 0, 0,  # TUNE_FLIP
    _E7, 4, _G7, 4, _E7, 4, _G7, 4, _C8, 12, _C7, 8, _E7, 8, _G7, 16, 0, 0,  # TUNE_SPEED
    _C7, 8, _E7, 8, _G7, 16, 0, 0,  # TUNE_WON
    _G7, 10, _E7, 10, _C7, 20, 0, 0,  # TUNE_NO_RESULT
    _C7, 10, _E7, 10, _G7, 10, 0, 4, _C8, 30, 0, 0,  # TUNE_MATCH_WON
    _G7, 12, _E7, 12, _C7, 12, _C5, 30, 0, 0,  # TUNE_MATCH_OVER
    _A7, 3, 0, 0,  # TUNE_MENU
    _C7, 20, _D7, 20, _E7, 20, _F7, 20, _G7, 20, _A7, 20, _B7, 20, _C8, 40, 0, 0,  # TUNE_SCALE
))
# fmt: on
_TUNES = const(15)
_NO_TUNE = const(-1)


def _tune_starts(notes):
    starts = bytearray(_TUNES)
    at = 0
    for tune in range(_TUNES):
        starts[tune] = at
        while notes[at + 1]:
            at += 2
        at += 2
    return bytes(starts)


_STARTS = _tune_starts(_NOTES)
del _tune_starts  # needed once: its bytecode need not stay in the heap


class Sound:
    """The piezo's tune sequencer (see the module docstring)."""

    def __init__(self, pwm, volume=VOLUME_DEFAULT):
        self.pwm = pwm
        self.volume = volume  # 0..VOLUME_MAX; 0 = mute
        self._at = 0  # offset in _NOTES of the next note
        self._due = 0  # ticks_ms when the next note starts (when playing)
        self.playing = False  # a tune is on (App.step calls update only then)
        self._queued = _NO_TUNE  # a tune to play when this one ends
        self._loop = _NO_TUNE  # a tune to repeat while nothing else plays (TUNE_STALL)
        self.tune = _NO_TUNE  # the tune playing (or last played)
        self._hz = 0  # the frequency last set on the PWM
        self._on = False  # the PWM's duty cycle is not 0

    # ---- what the game asks for ----

    def play(self, tune):
        """Start ``tune`` at the next ``update``: it cuts off the tune playing, but follows
        one asked for in the same pass (a play and a late press read together: both)."""
        if not self.volume:
            return
        if self.playing and self._due < 0:  # that one has not started yet
            self._queued = tune
            return
        self._at = _STARTS[tune]
        self.tune = tune
        self._queued = _NO_TUNE
        self.playing = True
        self._due = -1  # at once: the next update cuts off the note that plays

    def then(self, tune):
        """Play ``tune`` after the current one (at once if nothing plays)."""
        if self.playing:
            self._queued = tune
        else:
            self.play(tune)

    def stop(self):
        """Silence now, nothing queued or repeating."""
        self.playing = False
        self._queued = _NO_TUNE
        self._loop = _NO_TUNE
        self._silence()

    def event(self, kind, p, why):
        """An event of any game's log (codes.EV_*; MatchLog.observe, GameLog's notes): its
        tune, if it has one. A card put down clicks (V8 turn, move, slap; V9 cover too); a
        card the table turns (V8 spit, stop) flips."""
        if (
            kind == EV_PLAY
            or kind == EV_TURN
            or kind == EV_MOVE
            or kind == EV_SLAP
            or kind == EV_COVER
        ):
            self.play(TUNE_PLAY_P1 if p else TUNE_PLAY)
        elif kind == EV_REJECT:
            self.play(TUNE_LATE if why == LATE else TUNE_INVALID)
        elif kind == EV_STALL:  # R9: ticks until the flip
            self._loop = TUNE_STALL
            self.play(TUNE_STALL)
        elif kind == EV_FLIP or kind == EV_REDEAL or kind == EV_SPIT or kind == EV_STOP:
            self._loop = _NO_TUNE
            self.play(TUNE_FLIP)
        elif kind == EV_DEAL:  # R3: the start signal
            self._loop = _NO_TUNE
            self.play(TUNE_START)
        elif kind == EV_HAND_END:
            self._loop = _NO_TUNE
            if p == NULL_PLAYER:
                self.play(TUNE_NO_RESULT)
            elif why == END_OUT or why == END_CLAIM:  # R12, V5: "Speed!" and the win
                self.play(TUNE_SPEED)
            else:
                self.play(TUNE_WON)
        elif kind == EV_MATCH_END:
            self.then(TUNE_MATCH_OVER if p == NULL_PLAYER else TUNE_MATCH_WON)

    def phase(self, phase):
        """The match's phase changed: a countdown (R3) beeps 3, 2, 1, a second apart (unless
        its beeps are on already: the board starts them at the PLAY press itself)."""
        if phase == COUNTDOWN and not (self.playing and self.tune == TUNE_COUNTDOWN):
            self.play(TUNE_COUNTDOWN)

    # ---- the loop pass ----

    def update(self, now):
        """Start the next note if it is due at ``now`` (ticks_ms). Sets registers only."""
        if not self.playing:
            return
        due = self._due
        if due >= 0 and ticks_less(now, due):
            return  # not yet
        at = self._at
        length = _NOTES[at + 1]
        if not length:  # the tune is over
            if self._queued != _NO_TUNE:
                at = _STARTS[self._queued]
                self.tune = self._queued
                self._queued = _NO_TUNE
            elif self._loop != _NO_TUNE:
                at = _STARTS[self._loop]
                self.tune = self._loop
            else:
                self.playing = False
                self._silence()
                return
            length = _NOTES[at + 1]
        pitch = _NOTES[at]
        self._at = at + 2
        # a tune keeps its rhythm: the next note is due a length after this one was, not
        # after the pass that started it (a late pass shortens a note, never shifts the rest)
        self._due = ticks_add(now if due < 0 else due, length * _UNIT_MS)
        if not pitch or not self.volume:
            self._silence()
            return
        hz = _HZ[pitch]
        pwm = self.pwm
        if hz != self._hz:
            pwm.frequency = hz
            self._hz = hz
        pwm.duty_cycle = VOLUMES[self.volume]
        self._on = True

    def _silence(self):
        if self._on:
            self.pwm.duty_cycle = 0
            self._on = False
