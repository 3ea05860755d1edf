"""The link's answers (link.py): a request line checked and answered, or an error frame.

``Link._reply`` calls ``reply``; a reply may allocate (it is no key press: docs/link.md).
"""

import json
import sys

from micropython import const

from speedduo import __version__
from speedduo.game.rules import hand_slots, head_starts
from speedduo.host.crc import crc16

_DOLLAR = const(36)
_STAR = const(42)
_HEX = b"0123456789ABCDEF"
_DIGITS = b"0123456789ABCDEF0123456789abcdef"  # index & 15: the digit's value, either case


def frame(name, body) -> bytearray:
    """``$name body*CCCC`` (``body``: JSON text) as a line without its newline."""
    line = bytearray(b"$")
    line.extend(name)
    line.append(32)
    line.extend(body.encode())
    crc = crc16(line, 1, len(line))
    line.append(_STAR)
    for shift in (12, 8, 4, 0):
        line.append(_HEX[(crc >> shift) & 15])
    return line


def version_info():
    impl = sys.implementation
    return {
        "game": __version__,
        "log": 1,
        "impl": impl.name,
        "impl_version": "%d.%d.%d" % tuple(impl.version[:3]),
    }


def reply(link, why) -> None:
    """Answer ``link``'s request line (``why`` None: the line in its buffer), or send the
    error frame ``why``."""
    if why is None:
        _answer_line(link)
    else:
        error(link, why)


def _answer_line(link) -> None:
    request = bytes(link._buffer[: link._length])
    too_long = link._too_long
    link._length = 0
    link._too_long = False
    if too_long:
        error(link, "too_long")
        return
    cut = request.rfind(b"$")
    if cut > 0:  # a frame began before this one ended: that one was cut short
        error(link, "truncated")
        request = request[cut:]
    name = _checked(link, request)
    if name is None:
        return
    try:
        body = _answer(link, name)
    except Exception as raised:  # noqa: BLE001  (a request must never stop the game)
        error(link, "failed", type(raised).__name__)
        return
    if body is None:
        error(link, "unknown")
        return
    link.requests += 1
    link.log_port.send(frame(name, json.dumps(body)))


def _checked(link, request):
    """The request's NAME when its frame is whole and its CRC right; else None
    (and the error frame is sent)."""
    if request[0] != _DOLLAR:
        error(link, "garbage")
        return None
    star = request.rfind(b"*")
    if star < 0 or len(request) - star != 5:
        error(link, "truncated")
        return None
    name = request[1:star]
    crc = 0
    for digit in request[star + 1 :]:
        value = _DIGITS.find(bytes((digit,)))
        if value < 0:
            error(link, "checksum")
            return None
        crc = crc << 4 | (value & 15)
    if crc16(name, 0, len(name)) != crc:
        error(link, "checksum")
        return None
    return name


def _answer(link, name):
    if name == b"stats":
        return link.stats()
    if name == b"version":
        return version_info()
    if name == b"rules":
        menu = link.menu
        reply = {"rules": dict(menu.rules.as_pairs()), "best_of": menu.best_of}
        leads = head_starts(menu.rules)  # H1: as the match line, only when one is not 0
        if leads[0] or leads[1]:
            reply["head_start_ms"] = list(leads)
        slots = hand_slots(menu.rules)  # H2: as the match line, only when one is not 5
        if slots != (5, 5):
            reply["hand_slots"] = list(slots)
        if getattr(menu, "auto_balance", False):  # H3: it moves them after each match
            reply["auto_balance"] = True
        return reply
    return None


def error(link, why, detail=None) -> None:
    link.errors += 1
    body = {"why": why}
    if detail is not None:
        body["detail"] = detail
    link.log_port.send(frame(b"error", json.dumps(body)))
