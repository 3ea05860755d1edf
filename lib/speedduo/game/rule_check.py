"""The checks of a rule option's value, for every game (``rules.Rules.set``,
``gamerules.GameRules.set``): a bad value is a ``ValueError`` of one line.

Loaded when a value is set (settings.toml at power-on, the menu, the host's tools), not
held with the rules through a match: the board forgets it before each match (board_io).
"""

CLAIM_NAMES = ("off", "simple", "race")  # V5's values, by rules.CLAIM_* number


def check_value(name: str, default, value) -> None:
    """ValueError (one line) unless ``value`` suits option ``name``, whose default is
    ``default``."""
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise ValueError(name + " must be true or false")
    elif isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(name + " must be a whole number >= 0")
        # an option's own lowest value first: a notice names the range that holds
        if name == "idle_ms" and value < 1000:
            raise ValueError("idle_ms must be at least 1000 (R17 ends every silent match)")
        if name == "max_rounds" and value < 1:  # V8.11, V9.7
            raise ValueError("max_rounds must be at least 1")
        if value < 0:
            raise ValueError(name + " must be a whole number >= 0")
        if value > 3600000:
            raise ValueError(name + " must be at most 3600000")
    elif value not in CLAIM_NAMES:
        raise ValueError("claim must be one of off, simple, race")
