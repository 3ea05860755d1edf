"""``python -m host_sim stats`` / ``ask REQUEST``: a request to the board, its answer printed.

Sends the request frame (``$NAME*CCCC``, docs/link.md) on the board's data port
and waits up to ``--timeout`` seconds for the reply frame, skipping the match-log
lines that arrive meanwhile. Prints the reply as ``name: value`` lines (``--json``:
the JSON). Exit status: 0 for an answer, 1 for an error frame or no answer, 2 for
bad input (no port).
"""

import json
import time

from host_sim.data_port import find_data_port, open_port
from host_sim.wire import REQUESTS, Decoder, request

TIMEOUT_MAX = 3600.0  # an hour: longer is a mistake, not a wait


def seconds_type(text):
    """``--timeout``: seconds, 0 < s <= ``TIMEOUT_MAX`` (nan, inf and negatives refused)."""
    import argparse
    import math

    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value <= TIMEOUT_MAX:  # (false for nan)
        raise argparse.ArgumentTypeError(
            f"bad timeout {text!r}: seconds, more than 0 and at most {TIMEOUT_MAX:g}"
        )
    return value


def add_parsers(sub):
    for name in ("stats", "ask"):
        p = sub.add_parser(
            name,
            help="the board's statistics" if name == "stats" else "send one request to the board",
        )
        if name == "ask":
            p.add_argument("request", help=f"{', '.join(REQUESTS)} (others get an error frame)")
        p.add_argument("--port", help="the data port (default: found by USB ids)")
        p.add_argument(
            "--timeout", type=seconds_type, default=3.0, help="seconds to wait (default 3)"
        )
        p.add_argument("--json", action="store_true", help="print the reply as JSON")


def ask(port, name, timeout):
    """The reply to request ``name`` on an open pyserial port: (name, obj), or None."""
    import serial

    decoder = Decoder()
    deadline = time.monotonic() + timeout
    try:
        port.write(request(name))
        port.flush()
        while time.monotonic() < deadline:
            data = port.read(port.in_waiting or 1)
            for item in decoder.feed(data):
                if item.kind == "reply":
                    return item.name, item.obj
    except (serial.SerialException, OSError):  # the port went away
        return None
    return None


def run_request(args, say):
    name = args.request if args.command == "ask" else "stats"
    path = args.port or find_data_port()
    port = open_port(path)
    try:
        reply = ask(port, name, args.timeout)
    finally:
        port.close()
    if reply is None:
        say(f"no answer to {name!r} from {path} in {args.timeout:g} s")
        return 1
    got, obj = reply
    if args.json:
        say(json.dumps({got: obj}, separators=(",", ":")))
    elif isinstance(obj, dict):
        say(f"{got}:")
        for key, value in obj.items():
            say(f"  {key}: {json.dumps(value, separators=(',', ':'))}")
    else:
        say(f"{got}: {json.dumps(obj)}")
    return 1 if got == "error" else 0
