"""``python -m host_sim run --game spit|california`` and ``--players 3|4``: the other games
(docs/rules.md V8, V9, V10) on the simulator's headless runner (``games_runner.py``).

Only what these games support is accepted; anything else is one clear line and
exit status 2 before anything is played.
"""

import json

from speedduo.gamerules import OPTIONS, GameRules

from host_sim.logfile import check_out_paths, write_atomically

# run options of classic Speed that these games do not take, with their defaults
_SPEED_ONLY = (
    ("script", None),
    ("bounce_us", 0),
    ("phase_us", 0),
    ("ms_offset", 0),
    ("screens", None),
    ("snap", []),
)


def rules_from_args(args):
    """The game's options from the command line; ValueError for one it does not have."""
    game = args.game
    names = [name for name, _ in OPTIONS[game]]
    rules = GameRules(game)
    from speedduo.rules import option_names

    for name in option_names() + ["max_rounds"]:
        value = getattr(args, name, None)
        if value is None:
            continue
        if name not in names:
            flag = "--" + name.replace("_", "-")
            raise ValueError(f"{flag} does not apply to --game {game} --players {args.players}")
        rules.set(name, value)
    return rules


def check_args(args):
    if args.players != 2 and args.game != "speed":
        raise ValueError(f"--players {args.players}: {args.game} is a two-player game (V10)")
    if args.game != "speed" and args.best_of is not None:
        raise ValueError(f"--best-of: {args.game} is one game played in rounds (V8/V9)")
    for name, default in _SPEED_ONLY:
        if getattr(args, name) != default:
            flag = "--" + name.replace("_", "-")
            raise ValueError(f"{flag} is for classic two-player Speed only")


def run_games(args, say):
    check_args(args)
    rules = rules_from_args(args)
    check_out_paths(args)
    from games_runner import GameSimulation

    players = [args.p1, args.p2, args.p3, args.p4][: args.players]
    if args.players == 2 and (args.p3 or args.p4):
        raise ValueError("--p3/--p4 need --players 3 or 4 (V10)")
    players = [kind or args.p2 for kind in players]  # unnamed players play like player 1
    lines = []
    watch = _show if args.command == "play" else None

    def write(line):
        lines.append(line)
        if watch:
            watch(line, say)

    if args.vm == "micropython":
        for line in _run_in_vm(args, rules, players):
            write(line)
        end = json.loads(lines[-1])
        winner = -1 if end["winner"] is None else end["winner"]
        score = end["score"]
    else:
        sim = GameSimulation(args.game, args.seed, rules, args.best_of or 3, players)
        match = sim.run(write)
        winner, score = match.winner, match.wins
    if args.log:
        write_atomically(args.log, lines)
    hands = sum(1 for line in lines if line.startswith('{"ev":"hand_end"'))
    unit = ("round" if args.game != "speed" else "hand") + ("" if hands == 1 else "s")
    if winner < 0:
        result = f"no winner, score {score}"
    else:
        result = f"player {winner} ({players[winner]}) won, score {score}"
    where = f", log {args.log}" if args.log else ""
    say(
        f"{args.game}, {len(players)} players, seed {args.seed} ({args.vm}): {result} in"
        f" {hands} {unit},"
        f" {len(lines)} log lines{where}"
    )
    return 0


def _run_in_vm(args, rules, players):
    """The same match in the MicroPython VM (``games_vm_main.py``): its log lines."""
    import os
    import shutil
    import subprocess
    import sys

    from host_sim import HOST_SIM, ROOT

    micropython = shutil.which("micropython", path=os.path.dirname(sys.executable))
    micropython = micropython or shutil.which("micropython")
    if not micropython:
        raise ValueError("micropython not found: run `python3 dev.py setup`")
    options = []
    for name, value in rules.as_pairs():
        options.append(f"{name}={str(value).lower() if value in (True, False) else value}")
    command = [micropython, "-X", f"heapsize={args.heap}"]
    command += [os.path.join(HOST_SIM, "games_vm_main.py"), ROOT, args.game]
    command += [str(args.seed), str(args.best_of or 3), *players, "--", *options]
    result = subprocess.run(command, capture_output=True, text=True, timeout=3600)
    if result.returncode != 0:
        tail = (result.stderr or result.stdout).strip().splitlines()[-1:] or ["(no output)"]
        raise RuntimeError(f"the MicroPython VM failed (heap {args.heap}): {tail[0]}")
    return result.stdout.splitlines()


def _show(line, say):
    say(line)
