"""What both MicroPython-VM entry points share (vm_main.py for Speed, games_vm_main.py
for the other games): the rules modules they import one at a time, and how a NAME=VALUE
rule option's text becomes its value. Runs under MicroPython."""

RULES_MODULES = (
    "codes",
    "cards",
    "rng",
    "logtext",
    "dealtext",
    "matchlog",
    "stall",
    "core",
    "phases",
    "match",
    "arbiter",
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
