"""Speed of the rules core and the simulator, heap needs, and the allocation-free proof.

Sections (all printed; none is a pass/fail test except where a target is named):
  a) CPython plays/s and hands/s of the rules core, greedy self-play (bench/mp_selfplay.py),
     log ring reset cheaply ("core") and log drained and formatted ("drain"); best of 3.
  b) the same script under the MicroPython VM (-X heapsize=256K).
  c) bot-vs-bot matches through the whole simulator (keypad shim, arbiter, bots, virtual
     clock): CPython in-process, the CLI on CPython, the CLI with --vm micropython, and
     the VM's own command without the CLI's CPython start-up.
  d) the smallest -X heapsize (4K steps) at which a best-of-3 match completes in the VM,
     through the CLI (log compared with CPython's) and with bench/mp_selfplay.py.
  e) bench/mp_heap_lock.py: every play path under micropython.heap_lock().
  f) instructions per play in the VM, counted by callgrind (start-up cancelled out), and
     what a Hand, a deal, an Rng and a Match cost (bench/cg_ops.py).
  g) the same on CPython (PYTHONHASHSEED=0): the issue-9 measure, target <= 40,000 per play.

    PYTHONPATH=.:lib .venv/bin/python bench/bench_core.py [--quick] [--profile] [--only a,b]
"""

import argparse
import cProfile
import io
import os
import pstats
import re
import shutil
import subprocess
import sys
import tempfile
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
for _path in (BENCH, ROOT):
    if _path not in sys.path:
        sys.path.insert(0, _path)

from host_sim import use_board_paths  # noqa: E402

use_board_paths()

import mp_selfplay  # noqa: E402

TARGET_PLAYS_PER_S = 150000
TARGET_INSTRUCTIONS_PER_PLAY = 40000  # issue 9 (goal 20,000), CPython, callgrind
SEED = 1
PLAYERS = ("bot:hard", "bot:easy")


def _micropython():
    here = os.path.join(os.path.dirname(sys.executable), "micropython")
    if os.path.exists(here):
        return here
    found = shutil.which("micropython")
    if not found:
        sys.exit("bench_core: error: micropython not found (python3 dev.py setup)")
    return found


def _parse_selfplay(text):
    m = re.search(r"plays (\d+) hands (\d+) matches (\d+) us (\d+)", text)
    if not m:
        raise RuntimeError("unexpected mp_selfplay output: %r" % text[-300:])
    return tuple(int(g) for g in m.groups())


def _rate_line(label, plays, hands, us):
    seconds = us / 1e6
    return "%-40s %9.0f plays/s %8.0f hands/s  (%d plays, %d hands, %.2f s)" % (
        label,
        plays / seconds,
        hands / seconds,
        plays,
        hands,
        seconds,
    )


def _best(results):
    """The run with the shortest time (best of N)."""
    return min(results, key=lambda r: r[3])


def section_a(args):
    print("## a) rules core, greedy self-play, CPython %s" % sys.version.split()[0])
    hands = args.hands
    best_core = None
    for mode in ("core", "drain"):
        runs = [mp_selfplay.selfplay(hands, mode, SEED) for _ in range(3)]
        plays, n_hands, _, us = _best(runs)
        label = "log ring reset (core alone)" if mode == "core" else "log drained + formatted"
        print(_rate_line(label + ", best of 3", plays, n_hands, us))
        if mode == "core":
            best_core = plays / (us / 1e6)
    verdict = "MET" if best_core >= TARGET_PLAYS_PER_S else "MISSED"
    print("target >= %d plays/s (core alone): %s" % (TARGET_PLAYS_PER_S, verdict))
    if args.profile or best_core < TARGET_PLAYS_PER_S:
        profiler = cProfile.Profile()
        profiler.runcall(mp_selfplay.selfplay, min(hands, 3000), "core", SEED)
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(12)
        print("cProfile, core mode, %d hands, top 12 by own time:" % min(hands, 3000))
        print("\n".join(out.getvalue().splitlines()[4:]))
    print()


def section_b(args, mpy):
    print("## b) rules core, greedy self-play, MicroPython VM (-X heapsize=256K)")
    for mode in ("core", "drain"):
        runs = []
        for _ in range(3):
            out = subprocess.run(
                [mpy, "-X", "heapsize=256K", os.path.join(BENCH, "mp_selfplay.py")]
                + [ROOT, str(args.vm_hands), mode, str(SEED)],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            runs.append(_parse_selfplay(out))
        plays, n_hands, _, us = _best(runs)
        label = "log ring reset (core alone)" if mode == "core" else "log drained + formatted"
        print(_rate_line(label + ", best of 3", plays, n_hands, us))
    print()


def _count(lines):
    hands = sum(1 for line in lines if line.startswith('{"ev":"hand_end"'))
    plays = sum(1 for line in lines if line.startswith('{"ev":"play"'))
    return hands, plays


def _cli(seed, log, vm=None, heap=None):
    command = [sys.executable, "-m", "host_sim", "run", "--seed", str(seed)]
    command += ["--p1", PLAYERS[0], "--p2", PLAYERS[1], "--log", log]
    if vm:
        command += ["--vm", vm, "--heap", heap]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.path.join(ROOT, "lib")]))
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT)


def _read_lines(path):
    with open(path, encoding="utf-8") as f:
        return f.read().splitlines()


def _sim_line(label, matches, hands, plays, elapsed, note):
    return "%-34s %7.1f matches/s %7.1f hands/s %8.0f plays/s  (%d matches, %.2f s%s)" % (
        label,
        matches / elapsed,
        hands / elapsed,
        plays / elapsed,
        matches,
        elapsed,
        note,
    )


def section_c(args, mpy):
    from runner import Simulation
    from speedduo.game.rules import Rules

    print("## c) bot vs bot (%s vs %s), whole simulator, best of 3 per match" % PLAYERS)
    matches = args.sim_matches
    hands = plays = 0
    start = time.perf_counter()
    for seed in range(1, matches + 1):
        lines = []
        Simulation(seed, Rules(), 3, list(PLAYERS)).run(lines.append)
        h, p = _count(lines)
        hands += h
        plays += p
    elapsed = time.perf_counter() - start
    print(_sim_line("CPython, runner.Simulation", matches, hands, plays, elapsed, ""))
    tmp = tempfile.mkdtemp(prefix="speedduo-bench-")
    for vm in (None, "micropython"):
        count = args.cli_matches
        hands = plays = 0
        start = time.perf_counter()
        for seed in range(1, count + 1):
            log = os.path.join(tmp, "m%d.jsonl" % seed)
            result = _cli(seed, log, vm, "160K")
            if result.returncode != 0:
                raise RuntimeError("CLI failed: " + result.stderr.strip()[-300:])
            h, p = _count(_read_lines(log))
            hands += h
            plays += p
        elapsed = time.perf_counter() - start
        label = "CLI --vm micropython --heap 160K" if vm else "CLI (CPython)"
        print(_sim_line(label, count, hands, plays, elapsed, ", process start-up included"))
    # the VM alone: the command the CLI runs, without the CLI's CPython start-up
    count = args.cli_matches
    hands = plays = 0
    start = time.perf_counter()
    for seed in range(1, count + 1):
        out = subprocess.run(
            [mpy, "-X", "heapsize=160K", os.path.join(ROOT, "host_sim", "vm_main.py"), ROOT]
            + ["speed", str(seed), "3", "0", "0", "0", "-", PLAYERS[0], PLAYERS[1], "--"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        h, p = _count(out.splitlines())
        hands += h
        plays += p
    elapsed = time.perf_counter() - start
    label = "VM: micropython vm_main.py"
    print(_sim_line(label, count, hands, plays, elapsed, ", VM start-up + compile included"))
    start = time.perf_counter()
    for _ in range(10):
        subprocess.run([mpy, "-c", "pass"], check=True)
    print("(empty VM start-up: %.1f ms per process)" % ((time.perf_counter() - start) * 100))
    shutil.rmtree(tmp, ignore_errors=True)
    print()


def _bisect_heap(works, low_k=4, high_k=256):
    """Smallest K (a multiple of 4) with works(K) true, assuming more heap never hurts."""
    if not works(high_k):
        return None
    while high_k - low_k > 4:
        mid = (low_k + high_k) // 2 // 4 * 4
        if works(mid):
            high_k = mid
        else:
            low_k = mid
    return high_k


def section_d(args, mpy):
    print("## d) smallest MicroPython heap for one best-of-3 match (seed %d)" % SEED)
    tmp = tempfile.mkdtemp(prefix="speedduo-heap-")
    reference = os.path.join(tmp, "cpython.jsonl")
    result = _cli(SEED, reference)
    if result.returncode != 0:
        raise RuntimeError("CPython CLI failed: " + result.stderr.strip()[-300:])
    expected = _read_lines(reference)
    tried = []

    def cli_works(k):
        log = os.path.join(tmp, "vm%d.jsonl" % k)
        ok = _cli(SEED, log, "micropython", "%dK" % k).returncode == 0
        tried.append("%dK:%s" % (k, "ok" if ok else "fail"))
        return ok

    smallest = _bisect_heap(cli_works)
    if smallest is None:
        print("CLI --vm micropython: fails even at 256K")
    else:
        same = _read_lines(os.path.join(tmp, "vm%d.jsonl" % smallest)) == expected
        print(
            "CLI --vm micropython: smallest heap %dK (%dK fails); log %s the CPython log "
            "(%d lines)"
            % (smallest, smallest - 4, "IDENTICAL to" if same else "DIFFERS from", len(expected))
        )
        print("  tried: " + " ".join(tried))
    tried = []

    def selfplay_works(k):
        result = subprocess.run(
            [mpy, "-X", "heapsize=%dK" % k, os.path.join(BENCH, "mp_selfplay.py")]
            + [ROOT, "0", "match", str(SEED)],
            capture_output=True,
            text=True,
        )
        ok = result.returncode == 0 and "matches 1" in result.stdout
        tried.append("%dK:%s" % (k, "ok" if ok else "fail"))
        return ok

    smallest = _bisect_heap(selfplay_works)
    print(
        "bench/mp_selfplay.py match (core + log formatting, no simulator): smallest heap %s"
        % ("%dK (%dK fails)" % (smallest, smallest - 4) if smallest else "> 256K")
    )
    print("  tried: " + " ".join(tried))
    shutil.rmtree(tmp, ignore_errors=True)
    _import_heaps(mpy)
    print()


def _import_heaps(mpy):
    """The smallest heap that imports each rules-side module from source, alone.

    Compiling from source keeps a module's whole parse tree on the heap while
    its bytecode is emitted, so the largest module sets a floor under any run.
    """
    print("smallest heap to import one module from source (its own imports included):")
    for name in ("vocab.cards", "game.rng", "game.rules", "log.matchlog", "log.keylog",
                 "game.core", "game.match", "loop.arbiter", "loop.app"):  # fmt: skip
        path = os.path.join(ROOT, "lib", "speedduo", *name.split(".")) + ".py"
        with open(path) as f:
            lines = sum(1 for _ in f)
        code = "import sys; sys.path[:0] = [%r]; import speedduo.%s" % (
            os.path.join(ROOT, "lib"),
            name,
        )

        def imports(k, code=code):
            run = [mpy, "-X", "heapsize=%dK" % k, "-c", code]
            return subprocess.run(run, capture_output=True).returncode == 0

        smallest = _bisect_heap(imports)
        print("  speedduo/%-12s %4d lines  %s" % (name + ".py", lines, "%dK" % smallest))


def section_e(mpy):
    print("## e) allocation-free play path (bench/mp_heap_lock.py under heap_lock)")
    result = subprocess.run(
        [mpy, "-X", "heapsize=320K", os.path.join(BENCH, "mp_heap_lock.py"), ROOT],
        capture_output=True,
        text=True,
    )
    print(result.stdout.rstrip())
    if result.returncode != 0:
        print("mp_heap_lock.py failed: " + result.stderr.strip()[-500:])
    print()


def _instructions(command, out_file, env=None):
    """Run ``command`` under callgrind (address space not randomised); (stdout, instructions)."""
    run = ["setarch", "-R", "valgrind", "--tool=callgrind", "--callgrind-out-file=" + out_file]
    result = subprocess.run(run + command, capture_output=True, text=True, env=env)
    if result.returncode != 0:
        raise RuntimeError("callgrind run failed: " + result.stderr.strip()[-300:])
    with open(out_file, encoding="utf-8") as f:
        m = re.search(r"^totals: (\d+)", f.read(), re.M)
    return result.stdout, int(m.group(1))


def _vm_command(mpy, script, *args):
    # --toggle-collect=main_: count MicroPython's own entry point, not the CPython wrapper
    return ["--toggle-collect=main_", mpy, "-X", "heapsize=256K", script, ROOT] + list(args)


def _cpython_command(script, *args):
    return [sys.executable, script, ROOT] + list(args)


def _cpython_env():
    return dict(os.environ, PYTHONHASHSEED="0")  # the same dict layout every run


def _per_play(tmp, n1, n2, mode, command_of, env=None):
    """Instructions per play: runs of n1 and n2 hands, the difference divided by the plays."""
    counts = []
    for n in (n1, n2):
        out, instructions = _instructions(
            command_of(os.path.join(BENCH, "mp_selfplay.py"), str(n), mode, str(SEED)),
            os.path.join(tmp, "selfplay.out"),
            env,
        )
        plays, hands, _, _ = _parse_selfplay(out)
        counts.append((plays, hands, instructions))
    (p1, h1, i1), (p2, h2, i2) = counts
    return p1, p2, i1, i2, (i2 - i1) / (p2 - p1), (i2 - i1) / (h2 - h1)


def _per_op(tmp, op, n1, n2, command_of, env=None):
    counts = []
    for n in (n1, n2):
        _, instructions = _instructions(
            command_of(os.path.join(BENCH, "cg_ops.py"), op, str(n)),
            os.path.join(tmp, "ops.out"),
            env,
        )
        counts.append(instructions)
    return (counts[1] - counts[0]) / (n2 - n1)


def _instruction_table(tmp, args, command_of, env=None):
    n1, n2 = args.cg_hands
    per_play = {}
    for mode in ("core", "drain"):
        p1, p2, i1, i2, play, hand = _per_play(tmp, n1, n2, mode, command_of, env)
        per_play[mode] = play
        print(
            "%-5s %d hands (%d plays): %d instr; %d hands (%d plays): %d instr; "
            "=> %.0f instructions/play, %.0f instructions/hand"
            % (mode, n1, p1, i1, n2, p2, i2, play, hand)
        )
    print(
        "formatting included / core alone: %.2f (target <= 2)"
        % (per_play["drain"] / per_play["core"])
    )
    for op, label in (
        ("hand", "Hand() (R5 tables already built)"),
        ("tables", "the R5 fits table (first Hand of a process)"),
        ("deal", "Hand.deal (shuffle, deal, log records)"),
        ("rng", "Rng(seed)"),
        ("match", "Match() (two Rng, a Hand)"),
    ):
        print("%-46s %9.0f instructions" % (label, _per_op(tmp, op, 20, 120, command_of, env)))
    return per_play


def section_f(args, mpy):
    print("## f) instructions per play in the MicroPython VM (callgrind, toggle-collect=main_)")
    if not shutil.which("valgrind") or not shutil.which("setarch"):
        print("valgrind/setarch not found: skipped")
        return
    tmp = tempfile.mkdtemp(prefix="speedduo-cg-")
    _instruction_table(tmp, args, lambda *a: _vm_command(mpy, *a))
    print("(core: log records dropped; drain: log formatted. Deals and match set-up amortised in.)")
    shutil.rmtree(tmp, ignore_errors=True)
    print()


def section_g(args):
    print("## g) instructions per play on CPython %s (callgrind)" % sys.version.split()[0])
    if not shutil.which("valgrind") or not shutil.which("setarch"):
        print("valgrind/setarch not found: skipped")
        return
    tmp = tempfile.mkdtemp(prefix="speedduo-cg-")
    per_play = _instruction_table(tmp, args, _cpython_command, _cpython_env())
    verdict = "MET" if per_play["core"] <= TARGET_INSTRUCTIONS_PER_PLAY else "MISSED"
    target = TARGET_INSTRUCTIONS_PER_PLAY
    print("target <= %d instructions/play (core alone): %s" % (target, verdict))
    print("(the greedy driver of bench/mp_selfplay.py; deals and match set-up amortised in)")
    shutil.rmtree(tmp, ignore_errors=True)
    print()


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="fewer hands and matches (~30 s)")
    parser.add_argument("--profile", action="store_true", help="always print the cProfile table")
    parser.add_argument("--only", default="abcdefg", help="sections to run, e.g. --only a,g")
    args = parser.parse_args(argv)
    only = set(args.only.replace(",", ""))
    if not only <= set("abcdefg"):
        parser.exit(2, "bench_core: error: --only takes letters a-g\n")
    args.hands = 2000 if args.quick else 20000
    args.vm_hands = 1000 if args.quick else 5000
    args.sim_matches = 20 if args.quick else 200
    args.cli_matches = 5 if args.quick else 20
    args.cg_hands = (20, 60) if args.quick else (100, 300)
    try:  # one core: the figures are single-threaded anyway; pin them for repeatability
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    except (AttributeError, OSError):
        pass
    started = time.perf_counter()
    print("bench_core: %s, %d CPU(s) visible" % (time.strftime("%Y-%m-%d"), os.cpu_count()))
    print()
    mpy = _micropython()
    if "a" in only:
        section_a(args)
    if "b" in only:
        section_b(args, mpy)
    if "c" in only:
        section_c(args, mpy)
    if "d" in only:
        section_d(args, mpy)
    if "e" in only:
        section_e(mpy)
    if "f" in only:
        section_f(args, mpy)
    if "g" in only:
        section_g(args)
    print("total %.1f s" % (time.perf_counter() - started))
    return 0


if __name__ == "__main__":
    sys.exit(main())
