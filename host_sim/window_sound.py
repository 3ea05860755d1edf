"""The piezo through the machine's audio: ``ToneSink.play(hz, ms)``, a square wave as the PWM makes.

The board drives a passive piezo from a PWM pin (pin map ``piezo``, 50 % duty):
a square wave. ``ToneSink`` synthesises one (signed 16-bit samples, built with
``array``; no numpy) and plays it on one ``pygame.mixer`` channel, so a new tone
cuts the one before, as on the piezo; ``hz`` 0 is silence. ``play(hz, ms)`` is a tone
of known length (a recorded one); ``start(hz)``/``stop()`` follow a PWM output live
(the window: ``window_loop.BoardWindow`` watches the board's ``pwmio.PWMOut``). Where there is no
audio (no device, no driver, ``SDL_AUDIODRIVER`` naming one that cannot open,
pygame without a mixer) ``ToneSink`` is silent: ``enabled`` is False, ``why``
says what failed, and ``play`` does nothing. It never raises.
"""

import os
from array import array

SAMPLE_RATE = 22050
AMPLITUDE = 6000  # of 32767: a piezo is not loud
MAX_MS = 5000
_CACHE = 64


def square_wave(hz, ms, rate=SAMPLE_RATE, channels=1, amplitude=AMPLITUDE, n=None):
    """Signed 16-bit samples (native byte order) of a square wave; 0 Hz is silence.
    ``n``: the number of samples (else ``ms`` long)."""
    if n is None:
        n = rate * ms // 1000
    samples = array("h", bytes(2 * n))
    if hz > 0:
        period = rate / hz
        for i in range(n):
            samples[i] = amplitude if (i % period) < period / 2 else -amplitude
    if channels > 1:
        wide = array("h", bytes(2 * n * channels))
        for c in range(channels):
            wide[c::channels] = samples
        samples = wide
    return samples.tobytes()


def quietly(call):
    """Run ``call`` with stderr (fd 2) pointed at /dev/null: ALSA and Wayland print their
    misses there (what failed comes back as the exception)."""
    try:
        saved = os.dup(2)
    except OSError:
        return call()
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        return call()
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


class ToneSink:
    def __init__(self, pygame_module=None):
        self.enabled = False
        self.why = ""
        self.played = 0
        self._sounds = {}
        try:
            import pygame

            pygame = pygame_module or pygame
            mixer = pygame.mixer
            if not mixer.get_init():
                quietly(lambda: mixer.init(SAMPLE_RATE, -16, 1, 256))
            rate, size, channels = mixer.get_init()
            if size not in (-16, 16):
                raise RuntimeError("audio format %d bits, not 16" % size)
            self._mixer = mixer
            self._rate = rate
            self._channels = channels
            self._channel = mixer.Channel(0)
            self.enabled = True
        except Exception as e:  # noqa: BLE001  (no sound is no reason to stop the game)
            self.why = str(e) or type(e).__name__

    def start(self, hz):
        """A tone that sounds until ``stop()`` or the next tone (a PWM left on): a loop of
        whole periods, about 100 ms of them."""
        if not self.enabled:
            return
        hz = max(0, int(hz))
        if hz == 0:
            self.stop()
            return
        try:
            sound = self._sounds.get((hz, None))
            if sound is None:
                if len(self._sounds) >= _CACHE:
                    self._sounds.clear()
                periods = max(1, round(hz / 10))
                n = round(periods * self._rate / hz)
                data = square_wave(hz, 0, self._rate, self._channels, n=n)
                sound = self._mixer.Sound(buffer=data)
                self._sounds[(hz, None)] = sound
            self._channel.play(sound, loops=-1)
            self.played += 1
        except Exception as e:  # noqa: BLE001
            self.enabled = False
            self.why = str(e) or type(e).__name__

    def stop(self):
        if self.enabled:
            try:
                self._channel.stop()
            except Exception:  # noqa: BLE001
                pass

    def play(self, hz, ms):
        """Play ``hz`` for ``ms`` (cutting any tone still playing); silent when disabled."""
        if not self.enabled:
            return
        ms = max(0, min(int(ms), MAX_MS))
        hz = max(0, int(hz))
        try:
            if hz == 0 or ms == 0:
                self._channel.stop()
                return
            sound = self._sounds.get((hz, ms))
            if sound is None:
                if len(self._sounds) >= _CACHE:
                    self._sounds.clear()
                data = square_wave(hz, ms, self._rate, self._channels)
                sound = self._mixer.Sound(buffer=data)
                self._sounds[(hz, ms)] = sound
            self._channel.play(sound)
            self.played += 1
        except Exception as e:  # noqa: BLE001
            self.enabled = False
            self.why = str(e) or type(e).__name__

    def close(self):
        if self.enabled:
            try:
                self._mixer.quit()
            except Exception:  # noqa: BLE001
                pass
            self.enabled = False
