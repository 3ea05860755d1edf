"""Rule options from ``settings.toml`` (CircuitPython's ``os.getenv``).

Each option of ``rules.py`` may be set as ``SPEED_<NAME>``: whole numbers for
times, 0/1 for the switches (settings.toml holds only strings and integers),
a string for ``SPEED_CLAIM``. ``SPEED_BEST_OF`` picks 3, 5 or 7. A bad value
raises ValueError naming the setting, before any match starts.
"""

from speedduo.rules import Rules, option_names


def _flag(name, value):
    if value in (0, 1, "0", "1", "true", "false"):
        return value in (1, "1", "true")
    raise ValueError("SPEED_%s must be 0 or 1" % name.upper())


def rules_from_settings(getenv):
    """A Rules object from SPEED_* settings read through ``getenv`` (missing: default)."""
    rules = Rules()
    for name in option_names():
        value = getenv("SPEED_" + name.upper())
        if value is None:
            continue
        default = getattr(rules, name)
        try:
            if isinstance(default, bool):
                value = _flag(name, value)
            elif isinstance(default, int):
                value = int(value)
            rules.set(name, value)
        except ValueError as e:
            raise ValueError("settings.toml SPEED_%s: %s" % (name.upper(), e)) from None
    return rules


def int_setting(getenv, name, default, allowed_low, allowed_high):
    """A whole-number setting within [allowed_low, allowed_high]; ValueError naming it."""
    value = getenv(name)
    if value is None:
        return default
    try:
        value = int(value)
    except ValueError:
        value = -1
    if not allowed_low <= value <= allowed_high:
        raise ValueError("settings.toml %s must be %d..%d" % (name, allowed_low, allowed_high))
    return value


def best_of_from_settings(getenv):
    value = int_setting(getenv, "SPEED_BEST_OF", 3, 3, 7)
    if value not in (3, 5, 7):
        raise ValueError("settings.toml SPEED_BEST_OF must be 3, 5 or 7")
    return value
