"""``python tests/toy_host.py ARGS``: host_sim's command line (``python -m host_sim ARGS``)
with the toy game of ``toy_game.py`` registered first, as a game outside the package
would be (issue 29.4). ``--show-replay LOG`` instead plays LOG in the window's replay
(``replay_show.ReplayShow``, SDL's dummy driver) and prints the lines it wrote."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [ROOT, os.path.join(ROOT, "lib"), HERE]

import toy_game  # noqa: E402

toy_game.register()


def _show_replay(path):
    os.environ["SDL_VIDEODRIVER"] = "dummy"
    os.environ["SDL_AUDIODRIVER"] = "dummy"
    from host_sim import use_board_paths

    use_board_paths()
    from host_sim.replay_show import ReplayShow, read_any_log

    wall = [0]
    show = ReplayShow(read_any_log(path)[0], lambda: wall[0])
    while not show.over:
        wall[0] += 50000  # frames 50 ms apart
        show.advance()
    for line in show.lines:
        print(line)
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--show-replay"]:
        sys.exit(_show_replay(sys.argv[2]))
    from host_sim.cli import main

    sys.exit(main(sys.argv[1:]))
