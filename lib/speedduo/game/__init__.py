"""The rules and the match: every game's rules core, its options and the match around its hands
(pure Python, no I/O, deterministic)."""
