"""Bots for the other games (V8 Spit, V9 California Speed, V10 Speed for 3-4 players): the
board's own opponent code (``lib/speedduo/game_opponent.py``'s ``GameBot``), driven by the
headless runner (``games_runner.py``) on its own clock."""

from speedduo.game_opponent import GameBot  # noqa: F401  (the runner's bots)
