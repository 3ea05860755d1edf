"""The piezo's tunes (sound.py), the strict pwmio shim, the volume setting and menu item."""

import ast
import os

import board
import pwmio
import pytest
import vclock
from conftest import ROOT
from runner import Simulation
from speedduo.display.menu import SOUND, STAY, Menu
from speedduo.game.rules import Rules
from speedduo.log.matchlog import (
    EV_DEAL,
    EV_FLIP,
    EV_HAND_END,
    EV_MATCH,
    EV_MATCH_END,
    EV_PENALTY,
    EV_PLAY,
    EV_REDEAL,
    EV_REJECT,
    EV_STALL,
)
from speedduo.loop import sound as sound_module
from speedduo.loop.settings import Settings
from speedduo.loop.sound import (
    TUNE_COUNTDOWN,
    TUNE_FLIP,
    TUNE_INVALID,
    TUNE_LATE,
    TUNE_MATCH_OVER,
    TUNE_MATCH_WON,
    TUNE_NO_RESULT,
    TUNE_PLAY,
    TUNE_PLAY_P1,
    TUNE_SPEED,
    TUNE_STALL,
    TUNE_START,
    TUNE_WON,
    VOLUMES,
    Sound,
)
from speedduo.vocab.codes import (
    COUNTDOWN,
    END_ABANDONED,
    END_CLAIM,
    END_DEAD_STALL,
    END_OUT,
    EV_COVER,
    EV_DRAW,
    EV_MOVE,
    EV_SLAP,
    EV_SPIT,
    EV_STOP,
    EV_TURN,
    INVALID,
    JOKER_LAST,
    LATE,
    LOCKED,
    NULL_PLAYER,
    OVER,
    PLAYING,
    RESULT,
)

T0 = (1 << 29) - 700  # ticks_ms close to its 2**29 wrap: every tune crosses it


class FakePWM:
    """Records every register write: (attribute, value)."""

    def __init__(self):
        self.writes = []
        self.frequency = 2000
        self.duty_cycle = 0
        self.writes.clear()

    def __setattr__(self, name, value):
        if name != "writes":
            self.writes.append((name, value))
        object.__setattr__(self, name, value)


def notes(tune):
    """[(hz, ms)] of a tune from the note table (0 Hz: a rest)."""
    at = sound_module._STARTS[tune]
    out = []
    while sound_module._NOTES[at + 1]:
        out.append((sound_module._HZ[sound_module._NOTES[at]], sound_module._NOTES[at + 1] * 10))
        at += 2
    return out


def heard(sound, start=T0, ms=3000, step=1):
    """Run ``update`` every ``step`` ms for ``ms``: the tones, [(t, hz, ms)] (t from 0)."""
    pwm = sound.pwm
    tones = []
    on = None
    for k in range(0, ms, step):
        sound.update((start + k) & 0x1FFFFFFF)
        hz = pwm.frequency if pwm.duty_cycle else 0
        if on is not None and hz != on[1]:
            tones.append((on[0], on[1], k - on[0]))
            on = None
        if on is None and hz:
            on = (k, hz)
    if on is not None:
        tones.append((on[0], on[1], ms - on[0]))
    return tones


def sounding(tune):
    return [(hz, ms) for hz, ms in notes(tune) if hz]


def test_every_tune_is_short_and_distinct():
    tunes = [
        TUNE_COUNTDOWN,
        TUNE_START,
        TUNE_PLAY,
        TUNE_PLAY_P1,
        TUNE_LATE,
        TUNE_INVALID,
        TUNE_FLIP,
        TUNE_SPEED,
        TUNE_WON,
    ]
    tunes += [TUNE_NO_RESULT, TUNE_MATCH_WON, TUNE_MATCH_OVER, TUNE_STALL]
    shapes = [tuple(notes(t)) for t in tunes]
    assert len(set(shapes)) == len(shapes)
    for tune in tunes:
        longest = 3000 if tune == TUNE_COUNTDOWN else 1000  # R3's countdown is 3 s
        assert 0 < sum(ms for _, ms in notes(tune)) <= longest
        assert all(hz == 0 or 20 <= hz <= 20000 for hz, _ in notes(tune))


@pytest.mark.parametrize(
    "kind, p, why, tunes",
    [
        (EV_DEAL, 0, 0, [TUNE_START]),  # R3: the start signal
        (EV_PLAY, 0, 0, [TUNE_PLAY]),
        (EV_PLAY, 1, 0, [TUNE_PLAY_P1]),
        (EV_REJECT, 1, LATE, [TUNE_LATE]),  # R8
        (EV_REJECT, 0, INVALID, [TUNE_INVALID]),
        (EV_REJECT, 0, LOCKED, [TUNE_INVALID]),  # R16
        (EV_REJECT, 1, JOKER_LAST, [TUNE_INVALID]),  # V3
        (EV_FLIP, 0, 0, [TUNE_FLIP]),  # R9
        (EV_REDEAL, 0, 0, [TUNE_FLIP]),  # R10
        (EV_HAND_END, 0, END_OUT, [TUNE_SPEED]),  # R12: "Speed!" and the win
        (EV_HAND_END, 1, END_CLAIM, [TUNE_SPEED]),  # V5
        (EV_HAND_END, 1, END_DEAD_STALL, [TUNE_WON]),  # R11
        (EV_HAND_END, NULL_PLAYER, END_ABANDONED, [TUNE_NO_RESULT]),  # R13 tie, R17
        (EV_MATCH_END, 0, 0, [TUNE_MATCH_WON]),
        (EV_MATCH_END, NULL_PLAYER, 0, [TUNE_MATCH_OVER]),
    ],
)
def test_each_kind_of_record_makes_its_tune(kind, p, why, tunes):
    sound = Sound(FakePWM(), 3)
    sound.event(kind, p, why)
    want = [hz for tune in tunes for hz, _ in sounding(tune)]
    tones = heard(sound)
    assert [hz for _, hz, _ in tones] == want
    first = notes(tunes[0])[0][1]
    assert tones[0][:1] == (0,) and abs(tones[0][2] - first) <= 1
    assert not sound.playing


def test_records_read_in_one_pass_play_one_after_the_other():
    """A play and the other player's late press read in one pass: the click, then the buzz
    (the second tune follows one not yet started; it cuts one that is sounding)."""
    sound = Sound(FakePWM(), 3)
    sound.event(EV_PLAY, 0, 0)
    sound.event(EV_REJECT, 1, LATE)
    tones = heard(sound, ms=500)
    assert [(t, hz) for t, hz, _ in tones] == [
        (0, sounding(TUNE_PLAY)[0][0]),
        (20, sounding(TUNE_LATE)[0][0]),
    ]
    sound.event(EV_PLAY, 1, 0)
    sound.update(T0 + 1000)  # the click sounds ...
    sound.event(EV_REJECT, 0, INVALID)  # ... and a refusal a pass later cuts it
    sound.update(T0 + 1005)
    assert sound.pwm.frequency == sounding(TUNE_INVALID)[0][0]


def test_records_without_a_tune_are_silent():
    sound = Sound(FakePWM(), 3)
    for kind in (EV_MATCH, EV_DRAW, EV_PENALTY):
        sound.event(kind, 0, 0)
    assert heard(sound, ms=200) == [] and sound.pwm.writes == []


def test_the_stall_ticks_until_the_flip():
    """R9: the stall countdown ticks every 250 ms for as long as it runs, then the flip."""
    sound = Sound(FakePWM(), 3)
    sound.event(EV_STALL, 0, 0)
    tones = heard(sound, ms=1000)
    assert [t for t, _, _ in tones] == [0, 250, 500, 750]
    sound.event(EV_FLIP, 0, 0)
    assert [hz for _, hz, _ in heard(sound, start=T0 + 1000, ms=1000)] == [
        hz for hz, _ in sounding(TUNE_FLIP)
    ]


def test_a_refusal_during_the_stall_does_not_stop_its_ticks():
    sound = Sound(FakePWM(), 3)
    sound.event(EV_STALL, 0, 0)
    sound.update(T0)
    sound.event(EV_REJECT, 0, INVALID)
    tones = heard(sound, ms=1000)
    assert [hz for _, hz, _ in tones[:2]] == [hz for hz, _ in sounding(TUNE_INVALID)]
    assert tones[-1][1] == sounding(TUNE_STALL)[0][0]


def test_the_countdown_beeps_at_three_two_one_then_the_start_signal():
    """R3: the countdown phase beeps a second apart, the start tune at the flip."""
    sound = Sound(FakePWM(), 3)
    for phase in (RESULT, PLAYING, OVER):
        sound.phase(phase)
    assert not sound.playing
    sound.phase(COUNTDOWN)
    tones = heard(sound, ms=3000)
    assert [(t, hz) for t, hz, _ in tones] == [
        (k, sounding(TUNE_COUNTDOWN)[0][0]) for k in (0, 1000, 2000)
    ]
    sound.event(EV_DEAL, 0, 0)
    sound.update(T0 + 3000)
    assert sound.pwm.frequency == sounding(TUNE_START)[0][0]


def test_volume_is_the_duty_cycle_and_mute_sets_no_register():
    for volume in (1, 2, 3):
        sound = Sound(FakePWM(), volume)
        sound.event(EV_PLAY, 0, 0)
        sound.update(T0)
        assert sound.pwm.duty_cycle == VOLUMES[volume] > 0
    muted = Sound(FakePWM(), 0)
    for kind, why in ((EV_DEAL, 0), (EV_PLAY, 0), (EV_REJECT, LATE), (EV_STALL, 0)):
        muted.event(kind, 0, why)
    muted.event(EV_HAND_END, 0, END_OUT)
    muted.event(EV_MATCH_END, 0, 0)
    muted.phase(COUNTDOWN)
    assert heard(muted) == [] and muted.pwm.writes == [] and not muted.playing


def test_update_only_sets_registers_when_a_note_starts_or_ends():
    """The loop is never blocked: a pass with no note due writes nothing, one that is due
    writes at most two registers (frequency, duty cycle); nothing sleeps or waits."""
    sound = Sound(FakePWM(), 2)
    sound.event(EV_HAND_END, 0, END_OUT)
    sound.event(EV_MATCH_END, 0, 0)
    pwm = sound.pwm
    changes = 0
    for k in range(3000):
        before = len(pwm.writes)
        sound.update((T0 + k) & 0x1FFFFFFF)
        written = len(pwm.writes) - before
        assert written <= 2
        changes += written > 0
    boundaries = len(notes(TUNE_SPEED)) + len(notes(TUNE_MATCH_WON)) + 1
    assert changes <= boundaries
    tree = ast.parse(open(os.path.join(ROOT, "lib", "speedduo", "loop", "sound.py")).read())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)} | {
        a.name for node in ast.walk(tree) if isinstance(node, ast.Import) for a in node.names
    }
    allowed = {
        "array",
        "micropython",
        "speedduo.vocab.codes",
        "speedduo.log.matchlog",
        "speedduo.vocab.ticks",
    }
    assert imported <= allowed


def test_stop_silences_at_once():
    sound = Sound(FakePWM(), 3)
    sound.event(EV_STALL, 0, 0)
    sound.update(T0)
    assert sound.pwm.duty_cycle
    sound.stop()
    assert sound.pwm.duty_cycle == 0 and heard(sound, ms=600) == []


# ---- a whole match: the App tells the sound what the core recorded ----


class _BusyLoop(Simulation):
    """The simulator, but with a loop pass at least every 10 ms, as the board's loop runs
    (the plain simulator jumps over quiet time, where a tune would wait for a pass)."""

    def _next_time(self):
        return min(super()._next_time(), self.clock.now_us + 10000)


def _match_tones(seed, rules, players, volume=3):
    sim = _BusyLoop(seed, rules, 3, players)
    pwm = pwmio.PWMOut(board.GP15, frequency=2000, duty_cycle=0, variable_frequency=True)
    sound = sim.app.sound = Sound(pwm, volume)
    lines = []
    sim.run(lines.append)
    while sound.playing:  # the last tune to its end, as board_io does before the menu
        sim.clock.advance_to(sim.clock.now_us + 1000)
        sound.update(sim.clock.ticks_ms())
    pwmio.end_all(sim.clock)
    return pwm.tones, lines


def test_a_bot_match_sounds_its_records():
    """Stalls (R9), flips, plays of both players, "Speed!" (V5 claims), hands and the match."""
    tones, lines = _match_tones(3, Rules(claim="race"), ["bot:hard", "bot:medium"])
    heard_hz = [hz for _, hz, _ in tones]
    for tune in (
        TUNE_COUNTDOWN,
        TUNE_START,
        TUNE_PLAY,
        TUNE_PLAY_P1,
        TUNE_FLIP,
        TUNE_STALL,
        TUNE_SPEED,
        TUNE_WON,
        TUNE_MATCH_WON,
    ):
        want = [hz for hz, _ in sounding(tune)]
        assert any(heard_hz[i : i + len(want)] == want for i in range(len(heard_hz))), tune
    assert any('"ev":"stall"' in line for line in lines)
    assert any('"why":"claim"' in line for line in lines)
    assert sorted(tones) == tones and all(ms >= 0 for _, _, ms in tones)


def test_a_muted_match_makes_no_tone():
    tones, lines = _match_tones(3, Rules(claim="race"), ["bot:hard", "bot:medium"], volume=0)
    assert tones == [] and any('"ev":"match_end"' in line for line in lines)


# ---- the pwmio shim: as strict as CircuitPython's RP2040 port ----


@pytest.fixture
def clock():
    return vclock.install(vclock.VirtualClock())


def test_pwmio_shim_refuses_what_the_board_refuses(clock):
    with pytest.raises(ValueError):
        pwmio.PWMOut(board.GP15, frequency=0)
    with pytest.raises(ValueError):
        pwmio.PWMOut(board.GP15, frequency=62500001)
    with pytest.raises(ValueError):
        pwmio.PWMOut(board.GP15, duty_cycle=65536)
    with pytest.raises(TypeError):
        pwmio.PWMOut(board.GP15, frequency=440.0)
    fixed = pwmio.PWMOut(board.GP15, frequency=2000)
    with pytest.raises(AttributeError):
        fixed.frequency = 3000  # variable_frequency=False
    for bad in (-1, 65536):
        with pytest.raises(ValueError):
            fixed.duty_cycle = bad
    with pytest.raises(TypeError):
        fixed.duty_cycle = 0.5
    with pytest.raises(ValueError, match="GP15 in use"):
        pwmio.PWMOut(board.GP15)
    with pytest.raises(ValueError):  # GP14 shares slice 7 and would need its own frequency
        pwmio.PWMOut(board.GP14, frequency=3000)
    with pytest.raises(ValueError):
        pwmio.PWMOut(board.GP14, frequency=2000, variable_frequency=True)
    fixed.deinit()
    with pytest.raises(ValueError):
        fixed.duty_cycle = 1
    varying = pwmio.PWMOut(board.GP15, frequency=2000, variable_frequency=True)
    for bad in (0, 62500001):
        with pytest.raises(ValueError):
            varying.frequency = bad
    with pytest.raises(ValueError):  # a variable frequency owns its slice
        pwmio.PWMOut(board.GP14, frequency=2000)


def test_pwmio_shim_reads_back_the_rp2040_frequency(clock):
    pwm = pwmio.PWMOut(board.GP15, frequency=4186, variable_frequency=True)
    assert pwm.frequency == 4186  # above 1907 Hz: TOP alone, within 0.1 %
    pwm.frequency = 523
    assert pwm.frequency == 526  # below: the 8.4 clock divider rounds
    pwm.frequency = 262
    assert pwm.frequency == 263


def test_pwmio_shim_records_tones_on_the_virtual_clock(clock):
    heard_by_listener = []
    clock.tone_listeners.append(lambda t, hz, ms: heard_by_listener.append((t, hz, ms)))
    pwm = pwmio.PWMOut(board.GP15, frequency=2093, duty_cycle=0, variable_frequency=True)
    clock.advance_to(1000000)
    pwm.duty_cycle = 32768
    clock.advance_to(1060000)
    pwm.duty_cycle = 1024  # louder or softer: the same tone
    clock.advance_to(1100000)
    pwm.frequency = 2637  # another pitch: a new tone
    clock.advance_to(1120400)
    pwm.duty_cycle = 0
    clock.advance_to(2000000)
    pwm.duty_cycle = 100
    clock.advance_to(2030000)
    pwmio.end_all(clock)  # the run stops: what sounds ends there
    want = [(1000, 2093, 100), (1100, 2637, 20), (2000, 2637, 30)]
    assert pwm.tones == want and heard_by_listener == want
    assert clock.pwm_outs == {}
    other = vclock.install(vclock.VirtualClock())  # a new simulation: its own pins
    pwmio.PWMOut(board.GP15)
    assert other.tone_listeners == []


# ---- the setting and the menu item ----


def test_speed_volume_setting_is_checked_like_the_others():
    assert Settings({}.get).volume == 2
    assert Settings({"SPEED_VOLUME": 0}.get).volume == 0
    assert Settings({"SPEED_VOLUME": "3"}.get).volume == 3
    for bad in (4, -1, "loud"):
        settings = Settings({"SPEED_VOLUME": bad}.get)
        assert settings.volume == 2
        assert settings.problems == [("SPEED_VOLUME", "0..3")]
    assert Settings({}.get, ["SPEED_VOLUME"]).unknown == []


def test_menu_sound_item_cycles_the_volume():
    menu = Menu(Rules(), 3, 2)
    assert "SOUND 2" in menu.lines()
    while menu.selected != SOUND:
        menu.press(6)  # R moves down
    seen = []
    for _ in range(4):
        assert menu.press(1) == STAY
        seen.append(menu.volume)
    assert seen == [3, 0, 1, 2]
    menu.press(8)
    assert menu.volume == 3 and "SOUND 3" in menu.lines()
    menu.press(8)
    assert "SOUND OFF" in menu.lines()


@pytest.mark.parametrize(
    "kind, p, tune",
    [
        (EV_TURN, 0, TUNE_PLAY),  # V8.4
        (EV_MOVE, 1, TUNE_PLAY_P1),  # V8.5
        (EV_SLAP, 0, TUNE_PLAY),  # V8.8
        (EV_COVER, 1, TUNE_PLAY_P1),  # V9.3
        (EV_SPIT, 0, TUNE_FLIP),  # V8.6
        (EV_STOP, 1, TUNE_FLIP),  # V8.8
    ],
)
def test_the_other_games_events_sound_by_their_own_kind(kind, p, tune):
    """One vocabulary (codes.EV_*): a card put down clicks, one the table turns flips."""
    sound = Sound(FakePWM(), 3)
    sound.event(kind, p, 0)
    assert [(hz, ms) for _, hz, ms in heard(sound)] == sounding(tune)
