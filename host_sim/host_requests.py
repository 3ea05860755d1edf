"""What the host writes to the board's data port in a ``board``/``device`` run, and the
replies it read back (docs/link.md, Requests).

``--ask stats,version,rules`` sends those request frames (``$NAME*CCCC``, newline
included), ``ASK_GAP_MS`` apart from ``--ask-at-ms`` (default ``ASK_AT_MS``: the menu
is up by then on the device); ``--send T_MS:TEXT`` (repeatable) writes TEXT as is at
T_MS ms since power-on, with ``\\n``, ``\\r``, ``\\xNN`` and ``\\\\`` escapes and no
newline added (so a request cut short, garbage or a wrong checksum can be sent too).
"""

import argparse

from host_sim.wire import REQUESTS, Decoder, request

ASK_AT_MS = 6000
ASK_GAP_MS = 250
# after the last send, the run goes on this long: a request line with no end of line is
# answered ``truncated`` after lib/speedduo/host/link.py's STALE_MS (1 s)
REPLY_SETTLE_MS = 1500
SEND_MAX = 4096  # bytes of one --send


def send_option(text):
    """``T_MS:TEXT`` -> (t_ms, bytes); argparse's one-line error when it is not that."""
    t, colon, body = text.partition(":")
    if not colon or not t.isdigit():
        raise argparse.ArgumentTypeError(f"bad --send {text!r}: T_MS:TEXT (ms since power-on)")
    try:
        data = body.encode("latin-1").decode("unicode_escape").encode("latin-1")
    except (UnicodeError, ValueError):
        raise argparse.ArgumentTypeError(
            f"bad --send {text!r}: TEXT is bytes 0-255 with \\n \\r \\xNN \\\\ escapes"
        ) from None
    if not data or len(data) > SEND_MAX:
        raise argparse.ArgumentTypeError(f"bad --send {text!r}: 1 to {SEND_MAX} bytes")
    return int(t), data


def ask_option(text):
    """``stats,version`` -> ["stats", "version"] (the requests the board answers)."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    bad = [name for name in names if name not in REQUESTS]
    if not names or bad:
        raise argparse.ArgumentTypeError(
            f"bad --ask {text!r}: a comma list of {', '.join(REQUESTS)}"
        )
    return names


def add_options(parser):
    parser.add_argument(
        "--ask",
        type=ask_option,
        default=[],
        metavar="NAMES",
        help="the host sends these requests on the data port (comma list: "
        + ",".join(REQUESTS)
        + ")",
    )
    parser.add_argument(
        "--ask-at-ms",
        type=int,
        default=ASK_AT_MS,
        metavar="T_MS",
        help=f"when the first --ask request goes (default {ASK_AT_MS}; then every {ASK_GAP_MS})",
    )
    parser.add_argument(
        "--send",
        type=send_option,
        action="append",
        default=[],
        metavar="T_MS:TEXT",
        help="the host writes TEXT (\\n \\r \\xNN escapes, no newline added) at T_MS (repeatable)",
    )


def schedule(args):
    """[(t_us, bytes)] in time order: what the host writes to the data port."""
    if args.ask_at_ms < 0:
        raise ValueError("--ask-at-ms must be >= 0")
    sends = [
        ((args.ask_at_ms + i * ASK_GAP_MS) * 1000, request(name)) for i, name in enumerate(args.ask)
    ]
    sends += [(t_ms * 1000, data) for t_ms, data in args.send]
    return sorted(sends, key=lambda send: send[0])


def run_until_us(sends):
    """The run goes on at least this long (µs since power-on): the last reply is in."""
    return sends[-1][0] + REPLY_SETTLE_MS * 1000 if sends else 0


def replies(data):
    """[Item] of the data port's bytes that are replies (``reply``: whole, CRC good) or
    lines that are not whole (``garbled``: e.g. a frame whose CRC is wrong)."""
    decoder = Decoder()
    return [
        item for item in decoder.feed(data) + decoder.end() if item.kind in ("reply", "garbled")
    ]


def reply_lines(data):
    """One line per reply, for the run's summary."""
    import json

    lines = []
    for item in replies(data):
        if item.kind == "reply":
            body = json.dumps(item.obj, separators=(",", ":"), sort_keys=True)
            lines.append(f"reply seq {item.seq}: ${item.name} (crc ok) {body}")
        else:
            lines.append(f"garbled line (seq {item.seq}): {item.text}")
    return lines
