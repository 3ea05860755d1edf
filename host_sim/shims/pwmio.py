"""Shim of CircuitPython's ``pwmio`` (RP2040 port): ``PWMOut``, as strict as the board.

What the board refuses, this refuses (CircuitPython 10, ports/raspberrypi):
- ``frequency`` must be a whole number from 1 to half the CPU clock (62.5 MHz),
  else ``ValueError``; ``duty_cycle`` a whole number 0..65535, else ``ValueError``
  (a float: ``TypeError``);
- setting ``frequency`` needs ``variable_frequency=True`` at construction, else
  ``AttributeError``;
- a pin already held by a PWMOut is "in use" (``ValueError``); the two pins of a
  PWM slice (GP2n, GP2n+1) share its frequency: a variable-frequency PWMOut
  cannot share a slice, and two fixed ones only at the same frequency;
- anything after ``deinit()`` raises ``ValueError``.
``frequency`` reads back what the RP2040 really makes (its divider and TOP
arithmetic, as CircuitPython computes ``actual_frequency``).

Tones, on the virtual clock (``vclock.current()``): a tone is a stretch during
which ``duty_cycle`` is not 0 at one frequency. When it ends (duty 0, another
frequency, ``deinit``) it is appended to the PWMOut's ``tones`` as
``(t_ms, hz, ms)`` (start in ms since power-on, the frequency read back, the
length in ms, rounded) and passed to every ``fn(t_ms, hz, ms)`` in the clock's
``tone_listeners`` list (a listener belongs to one simulation's clock, so none
needs resetting between tests): ``board --sounds`` writes them out, a window can
play them. ``end_all(clock)`` ends the tones still sounding (a run that stops).
Runs under CPython and MicroPython.
"""

from vclock import current

CPU_HZ = 125000000
_MAX_TOP = 65534


def actual_frequency(frequency):
    """What CircuitPython's RP2040 PWMOut.frequency reads back for a requested one."""
    if frequency <= CPU_HZ >> 16:  # the divider (8.4 fixed point), TOP = 65534
        frequency16 = CPU_HZ >> 12
        div16 = frequency16 // frequency
        if frequency16 % frequency >= frequency // 2:
            div16 += 1
        if div16 >= 1 << 12:
            div16 = (1 << 12) - 1
        return (frequency16 + div16 // 2) // div16
    top = CPU_HZ // frequency
    return CPU_HZ // top


def _whole(name, value, low, high, error_text):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("can't convert %s to int" % type(value).__name__)
    if not low <= value <= high:
        raise ValueError(error_text % name)
    return value


def _gpio(pin):
    name = getattr(pin, "name", "")
    if not name.startswith("GP") or not name[2:].isdigit():
        raise ValueError("Invalid pin")
    return int(name[2:])


class PWMOut:
    def __init__(self, pin, *, duty_cycle=0, frequency=500, variable_frequency=False):
        _whole("frequency", frequency, 1, CPU_HZ // 2, "Invalid PWM %s")
        _whole("duty_cycle", duty_cycle, 0, 65535, "%s must be 0-65535")
        clock = current()
        gpio = _gpio(pin)
        held = clock.pwm_outs
        if gpio in held:
            raise ValueError("%s in use" % pin.name)
        slice_ = (gpio >> 1) & 7
        for other in held.values():
            if other._slice == slice_:
                if variable_frequency:
                    raise ValueError("Cannot vary frequency on a timer that is already in use")
                if other._variable:
                    raise ValueError("All timers for this pin are in use")
                if other._requested != frequency:
                    raise ValueError("Frequency must match existing PWMOut using this timer")
        held[gpio] = self
        self._clock = clock
        self._gpio = gpio
        self._slice = slice_
        self._variable = variable_frequency
        self._requested = frequency
        self._hz = actual_frequency(frequency)
        self._duty = duty_cycle
        self._since_us = clock.now_us
        self.tones = []  # (t_ms, hz, ms), as each ends

    def _check(self):
        if self._clock is None:
            raise ValueError("Object has been deinitialized and can no longer be used.")

    def _end_tone(self):
        """The tone sounding since ``_since_us`` (if any) ends now."""
        now = self._clock.now_us
        if self._duty and now > self._since_us:
            tone = (self._since_us // 1000, self._hz, (now - self._since_us + 500) // 1000)
            self.tones.append(tone)
            for listener in self._clock.tone_listeners:
                listener(*tone)
        self._since_us = now

    @property
    def frequency(self):
        self._check()
        return self._hz

    @frequency.setter
    def frequency(self, value):
        self._check()
        if not self._variable:
            raise AttributeError(
                "PWM frequency not writable when variable_frequency is False on construction."
            )
        _whole("frequency", value, 1, CPU_HZ // 2, "Invalid %s")
        hz = actual_frequency(value)
        if hz != self._hz:
            self._end_tone()
        self._requested = value
        self._hz = hz

    @property
    def duty_cycle(self):
        self._check()
        return self._duty

    @duty_cycle.setter
    def duty_cycle(self, value):
        self._check()
        _whole("duty_cycle", value, 0, 65535, "%s must be 0-65535")
        if bool(value) != bool(self._duty):
            self._end_tone()
        self._duty = value

    def deinited(self):
        return self._clock is None

    def deinit(self):
        if self._clock is None:
            return
        self._end_tone()
        del self._clock.pwm_outs[self._gpio]
        self._clock = None

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.deinit()


def end_all(clock):
    """Deinit every PWMOut on ``clock``: the tones still sounding end now."""
    for pwm in list(clock.pwm_outs.values()):
        pwm.deinit()
