"""What the command-line tools share: the parser that exits with one line, the
argument types (seed, player, heap size) and the rule options with their ``Rules``.

``cli`` (``python -m host_sim``), the window (``window_main``) and the ``board`` and
``device`` runners (``board_cli``) take them from here, so no tool imports another
tool's private helpers.
"""

import argparse

from host_sim import use_board_paths

use_board_paths()

from speedduo.game.rules import HAND_SLOT_OPTIONS, HANDICAPS, Rules, option_names  # noqa: E402
from speedduo.loop.opponent import LEVEL_NAMES  # noqa: E402

OPTION_DEFAULTS = {name: getattr(Rules(), name) for name in option_names()}  # H1's too


class Parser(argparse.ArgumentParser):
    def error(self, message):
        self.exit(2, f"host_sim: error: {message}\n")


def seed_type(text):
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad seed {text!r}: a whole number") from None
    if not 0 <= value < 1 << 30:
        raise argparse.ArgumentTypeError(f"bad seed {text!r}: must be 0 <= seed < 2**30")
    return value


def player_type(text):
    levels = LEVEL_NAMES[1:]  # easy, medium, hard, perfect, age6, age10
    if text == "none" or (text.startswith("bot:") and text[4:] in levels):
        return text
    raise argparse.ArgumentTypeError(f"bad player {text!r}: none or bot:{'|'.join(levels)}")


def heap_type(text):
    number = text[:-1] if text[-1:].upper() in ("K", "M") else text
    if not number.isdigit() or int(number) == 0:
        raise argparse.ArgumentTypeError(f"bad heap size {text!r}: e.g. 32K")
    return text


def add_rule_options(parser):
    group = parser.add_argument_group("rule options (docs/rules.md; defaults: the classic rules)")
    for name in option_names():
        default = OPTION_DEFAULTS[name]
        flag = "--" + name.replace("_", "-")
        if isinstance(default, bool):
            group.add_argument(flag, dest=name, action="store_true", default=None)
        elif name in HANDICAPS or name in HAND_SLOT_OPTIONS:  # H1, H2 (docs/rules.md)
            head_start = name in HANDICAPS
            group.add_argument(
                flag,
                dest=name,
                type=int,
                default=None,
                metavar="MS" if head_start else "N",
                help="H1 head start: 0-400 ms in steps of 50 (default 0)"
                if head_start
                else "H2 fewer cards: 3-5 hand slots in play, classic Speed only (default 5)",
            )
        elif isinstance(default, int):
            group.add_argument(flag, dest=name, type=int, default=None, metavar="MS")
        else:
            group.add_argument(flag, dest=name, choices=("off", "simple", "race"), default=None)


def rules_from_args(args):
    rules = Rules()
    changed = []
    for name in option_names():
        value = getattr(args, name, None)
        if value is not None:
            rules.set(name, value)
            changed.append((name, value))
    return rules, changed
