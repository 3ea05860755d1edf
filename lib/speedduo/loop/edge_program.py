"""The PIO program that stamps the button edges (issue 19), and ``start``, which runs it on
a state machine and hands back the reader (``edges.Edges``).

Imported at power-on by ``keys.make_keys`` (only where ``rp2pio`` is).

The program runs on one state machine at 25 MHz: every 25 cycles (1 µs) it samples the
14 buttons and counts the microsecond; when the buttons differ from the last snapshot it
pushes (snapshot, count) to the RX FIFO (joined: 8 words), but only if both words fit:
else it keeps the old snapshot and sees the change again on the next pass, late but never
lost. Every path through the loop takes 25 cycles, so the count is exact.

Pins: ``mov osr, pins`` reads every GPIO from the first IN pin (GP6) up, so only GP6
is claimed (``in_pin_count=1``) and GP15 (the piezo's PWM) stays free and out of the
snapshot. Snapshot bit k is key k (``pins.BUTTON_PINS`` order), 1 = released.
"""

from array import array

from micropython import const

from speedduo.loop.edges import DEBOUNCE_US, Edges

try:
    from typing import Any, Callable
except ImportError:
    pass

FREQUENCY = const(25_000_000)  # 25 cycles per loop = 1 µs
STATUS_N = const(7)  # mov x, status is all ones while the RX FIFO holds < 7 words
WRAP = const(9)  # the no-change path ends here and wraps to 0

# The program, assembled (tests/test_edges.py assembles the source in the comments
# and compares). Shifts: IN to the right, OUT to the right. X counts down once per
# loop; Y holds the last snapshot pushed; OSR parks the count while X compares.
PROGRAM = array(
    "H",
    (
        0x0041,  #  0  jmp x-- 1          ; the count, either way on to 1 (wrap target)
        0xA0E0,  #  1  mov osr, pins      ; every pin from GP6 up, at one instant
        0x40E7,  #  2  in osr, 7          ; GP6-GP12: keys 0-6
        0x606A,  #  3  out null, 10       ; drop GP6-GP15 (the piezo's GP15 with them)
        0x40E7,  #  4  in osr, 7          ; GP16-GP22: keys 7-13
        0x4072,  #  5  in null, 18        ; ISR = the 14-bit snapshot, bit k = key k
        0xA0E1,  #  6  mov osr, x         ; park the count
        0xA026,  #  7  mov x, isr
        0x00AA,  #  8  jmp x!=y 10        ; a button changed?
        0xAF27,  #  9  mov x, osr [15]    ; no: the count back, wrap (25 cycles)
        0xA025,  # 10  mov x, status      ; all ones if the FIFO has room for a pair
        0x0033,  # 11  jmp !x 19          ; no room: see the change again next loop
        0xA046,  # 12  mov y, isr         ; the new last snapshot
        0x8000,  # 13  push noblock       ; the snapshot
        0x40FE,  # 14  in osr, 30         ; the count's low 30 bits
        0x4062,  # 15  in null, 2
        0x8000,  # 16  push noblock       ; the count
        0xA727,  # 17  mov x, osr [7]     ; the count back (25 cycles)
        0x0000,  # 18  jmp 0
        0xAC27,  # 19  mov x, osr [12]    ; the count back (25 cycles)
        0x0000,  # 20  jmp 0
    ),
)
INIT = array("H", (0xA043,))  # mov y, null: the first loop pushes the buttons as they are


def start(board: Any, ticks_ms: Callable[[], int], debounce_us: int = DEBOUNCE_US) -> Any:
    """The reader on a new state machine, or None without ``rp2pio`` or a free one.

    The 13 button pins the state machine does not claim get their pull-ups here
    (they reset with pull-downs); the objects stay with the reader (``pulls``).
    """
    try:
        import digitalio
        import rp2pio
    except ImportError:
        return None
    from speedduo.loop import pins

    pulls = []
    for name in pins.BUTTON_PINS[1:]:  # first: the state machine's first loop sees them
        pin = digitalio.DigitalInOut(getattr(board, name))
        pin.pull = digitalio.Pull.UP
        pulls.append(pin)
    try:
        sm = rp2pio.StateMachine(
            PROGRAM,
            frequency=FREQUENCY,
            init=INIT,
            first_in_pin=getattr(board, pins.BUTTON_PINS[0]),
            in_pin_count=1,
            pull_in_pin_up=1,
            in_shift_right=True,
            out_shift_right=True,
            fifo_type="rx",
            mov_status_type="rxfifo",
            mov_status_n=STATUS_N,
            wrap_target=0,
            wrap=WRAP,
        )
    except (RuntimeError, ValueError):
        for pin in pulls:
            pin.deinit()
        return None  # every state machine taken, or a pin in use
    edges = Edges(sm, ticks_ms, debounce_us)
    edges.pulls = pulls
    return edges
