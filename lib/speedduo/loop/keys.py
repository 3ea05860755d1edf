"""The buttons' one reader: the PIO's edge stamps where a state machine can be had
(``edges.py``, started by ``edge_program.py``: every edge to the µs, issue 19), else the
keypad scanner over all 14 buttons (pin map: ``pins.BUTTON_PINS``), as described below;
the rest of the board program reads either the same way (``events``, ``get_into``).

``interval=0.001`` scans on every 1/1024 s supervisor tick, so a timestamp is
at most one tick (0.98 ms) after the contact closed. ``debounce_threshold=1``
reports a press at the first scan that sees the contact closed: any higher
threshold delays the timestamp by the switch's own bounce, which differs from
button to button, and would decide races (bench/bench_fairness.py: with one
bouncing switch, the earlier press at 2 ms wins 98% with 1, 76% with 3, 74%
with 5). The chatter after a press is dropped by the arbiter's 25 ms re-bounce
guard instead. ``max_events=64`` holds more than 14 keys x 2 edges.
"""

import keypad

from speedduo.loop import pins

SCAN_INTERVAL_S = 0.001
DEBOUNCE_THRESHOLD = 1
MAX_EVENTS = 64
SELF_TEST_KEY = 0  # Player 1's L: held at power-on, the self-test runs first (selftest.py)


def make_keys(board, pio=True):
    """The buttons' reader, key numbers in pin-map order (7p + L,1..5,R): the PIO's
    (``edge_program.start``) unless ``pio`` is False or no state machine can be had (no
    ``rp2pio``, every one taken), then ``keypad.Keys``. ``code.py`` says which."""
    if pio:
        import supervisor

        from speedduo.loop.edge_program import start

        reader = start(board, supervisor.ticks_ms)
        if reader is not None:
            return reader
    return keypad.Keys(
        tuple(getattr(board, name) for name in pins.BUTTON_PINS),
        value_when_pressed=pins.KEYS_VALUE_WHEN_PRESSED,
        pull=pins.KEYS_PULL,
        interval=SCAN_INTERVAL_S,
        max_events=MAX_EVENTS,
        debounce_threshold=DEBOUNCE_THRESHOLD,
    )


def wants_pio(getenv):
    """False when settings.toml says ``SPEED_KEYS = "keypad"`` (the keypad's ms stamps, for
    a board whose state machines something else needs; settings.py checks the value);
    else True, also when ``getenv`` cannot read the file (settings.py says why)."""
    try:
        return getenv("SPEED_KEYS") != "keypad"
    except (ValueError, UnicodeError):
        return True


def held(board, key):
    """Is button ``key`` (a key number) down right now? Read once through ``digitalio``
    before the keypad claims the pins: ``code.py`` asks it for SELF_TEST_KEY."""
    import digitalio

    pin = digitalio.DigitalInOut(getattr(board, pins.BUTTON_PINS[key]))
    try:
        pull = None
        if pins.KEYS_PULL:
            pull = digitalio.Pull.DOWN if pins.KEYS_VALUE_WHEN_PRESSED else digitalio.Pull.UP
        pin.switch_to_input(pull=pull)
        return pin.value == pins.KEYS_VALUE_WHEN_PRESSED
    finally:
        pin.deinit()
