"""What the MicroPython VM's entry point (vm_main.py) takes from a module of its own: the
rules modules it imports one at a time before any game, and how a NAME=VALUE rule
option's text becomes its value. Runs under MicroPython."""

RULES_MODULES = (
    "vocab.codes",
    "vocab.cards",
    "game.rng",
    "log.logtext",
    "log.dealtext",
    "log.matchlog",
    "game.stall",
    "game.core",
    "game.phases",
    "game.match",
    "loop.arbiter",
)


def option_value(text):
    """A rule option's value from its command-line text: true/false, a whole number, or text."""
    if text == "true":
        return True
    if text == "false":
        return False
    if text.isdigit():
        return int(text)
    return text
