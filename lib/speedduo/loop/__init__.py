"""The board's loop and its glue: keys, the arbiter, the app of a match, the menu's loop, the
opponent, settings, sound and the pins."""
