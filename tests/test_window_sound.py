"""The window's tone player (SDL's dummy audio driver) and its wall-following virtual clock."""

import os
from array import array

import pytest

from host_sim.window_clock import WallClock
from host_sim.window_sound import AMPLITUDE, SAMPLE_RATE, ToneSink, square_wave

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
pygame = pytest.importorskip("pygame")


def test_a_square_wave_has_the_length_pitch_and_level_asked_for():
    samples = array("h", square_wave(1000, 100))
    assert len(samples) == SAMPLE_RATE // 10
    assert set(samples) == {AMPLITUDE, -AMPLITUDE}
    edges = sum(1 for a, b in zip(samples[:-1], samples[1:], strict=True) if a != b)
    assert 199 <= edges <= 200  # 100 periods in 100 ms: two edges each
    assert set(array("h", square_wave(0, 10))) == {0}  # 0 Hz: silence
    stereo = array("h", square_wave(440, 10, channels=2))
    assert stereo[0::2] == stereo[1::2] == array("h", square_wave(440, 10))


@pytest.fixture
def no_mixer():
    pygame.mixer.quit()
    yield
    pygame.mixer.quit()


def test_tones_play_on_the_dummy_audio_driver(monkeypatch, no_mixer):
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    sink = ToneSink(pygame)
    assert sink.enabled, sink.why
    sink.play(880, 120)
    assert sink.played == 1 and sink._channel.get_busy()
    sink.play(880, 120)  # the same tone again comes from the cache
    assert len(sink._sounds) == 1
    sink.play(0, 100)  # a rest stops the tone
    assert not sink._channel.get_busy()
    sink.close()
    assert not sink.enabled
    sink.play(440, 50)  # closed: silent, no error


def test_no_audio_device_means_silence_without_errors(monkeypatch, no_mixer):
    monkeypatch.setenv("SDL_AUDIODRIVER", "no-such-driver")
    sink = ToneSink(pygame)
    assert not sink.enabled and sink.why
    sink.play(440, 100)
    assert sink.played == 0


class _Wall:
    def __init__(self):
        self.t = 1000000

    def __call__(self):
        return self.t


def test_the_virtual_clock_follows_the_wall_clock_and_hands_each_read_to_the_window():
    wall = _Wall()
    reads = []
    clock = WallClock(wall, reads.append, idle_s=0)
    wall.t += 5000
    clock.spend()
    assert clock.now_us == 5000 and reads == [5000]
    clock.spend()  # no wall time passed: no virtual time either
    assert clock.now_us == 5000


def test_a_long_stop_of_the_wall_clock_is_a_short_pause_not_a_jump():
    """A stopped process or a sleeping laptop must not look like an 8 s hang (the watchdog)."""
    wall = _Wall()
    clock = WallClock(wall, None, max_gap_us=100000, idle_s=0)
    wall.t += 20 * 1000000
    clock.spend()
    assert clock.now_us == 100000 and clock.paused_us == 19900000
    wall.t += 1000
    clock.spend()
    assert clock.now_us == 101000


def test_looping_tones_start_and_stop(monkeypatch, no_mixer):
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    sink = ToneSink(pygame)
    sink.start(1000)
    assert sink._channel.get_busy()
    loop = sink._sounds[(1000, None)]
    assert loop.get_length() == pytest.approx(0.1, abs=0.001)  # 100 whole periods
    sink.stop()
    assert not sink._channel.get_busy()


class _Pwm:
    """What the window reads of a pwmio.PWMOut: its CircuitPython API."""

    def __init__(self):
        self.duty_cycle = 0
        self.frequency = 500

    def deinited(self):
        return False


class _Tones:
    def __init__(self):
        self.calls = []

    def start(self, hz):
        self.calls.append(hz)

    def stop(self):
        self.calls.append(0)


class _Clock:
    def __init__(self, pwm):
        self.pwm_outs = {15: pwm}


def test_the_window_follows_the_piezo_pwm_live():
    from host_sim.window_loop import BoardWindow

    tones = _Tones()
    window = BoardWindow(pygame, None, None, tones)
    pwm = _Pwm()
    window.clock = _Clock(pwm)
    window._follow_piezo()
    assert tones.calls == []  # duty 0: silent
    pwm.duty_cycle, pwm.frequency = 32768, 1319
    window._follow_piezo()
    window._follow_piezo()  # still the same tone: nothing new
    pwm.frequency = 1568
    window._follow_piezo()
    pwm.duty_cycle = 0
    window._follow_piezo()
    assert tones.calls == [1319, 1568, 0]
