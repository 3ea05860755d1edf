"""Run the whole board program (``code.py`` -> ``speedduo.board_io``) on the simulator.

The shims stand in for the hardware; the virtual clock runs free (every
``supervisor.ticks_ms()`` read moves it on by STEP_US, like a CPU that takes
time), scripted presses reach the keypad, both panels are emulated, and the
log written to ``usb_cdc.data`` goes to stdout. Runs under CPython and inside
the MicroPython VM:  board_run.py ROOT TICKS_DIR STEP_US MATCHES SCRIPT|-
Script times here are µs since power-on (the menu comes first: press 1 on PLAY).
"""

import sys

_root = sys.argv[1]
sys.path[:0] = [_root + "/lib", _root + "/host_sim/shims", _root + "/host_sim", sys.argv[2]]


def main(argv):
    import vclock

    clock = vclock.install(vclock.VirtualClock())
    clock.auto_step_us = int(argv[3])
    if argv[5] != "-":
        from script import parse_script

        with open(argv[5]) as f:
            script = parse_script(f.read())
        clock.contacts = [(t, p * 7 + k, closed) for t, p, k, closed in script]
    import usb_cdc

    usb_cdc.data.echo = _echo
    import busio
    from speedduo import board_io

    board_io.main(matches=int(argv[4]))
    for i, bus in enumerate(busio.buses):
        print(
            "# panel %d: %d transfers, %d bytes"
            % (i, sum(bus.transfers.values()), sum(bus.bytes.values()))
        )


def _echo(data):
    sys.stdout.write(data.decode())


main(sys.argv)
