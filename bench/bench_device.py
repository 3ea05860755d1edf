"""The game on CircuitPython itself (rp2040js): the ``--report`` figures for .py and .mpy deploys.

    PYTHONPATH=.:lib .venv/bin/python bench/bench_device.py [--seconds 10] [--deploy py,mpy]
        [--game speed|spit|california] [--opponent easy|medium|hard] [--play-ms 5000]
        [--family 3] [--frozen UF2] [--balance P1_MS,P2_MS]

Each run boots the emulated Pico, presses PLAY, then mashes hand slots 1-5 of both
players in turn every 150 ms (a fitting card is played, the rest are refused) for
``--seconds`` of play; the match then stops idle (R17, 4 s). With ``--opponent`` the
board plays player 2 (SPEED_OPPONENT, any game): the script's presses of that row are
ignored, so press->pixel is player 1's plays. ``--family N`` plays N
such matches in one power-on, switching to the next game in the menu before each (speed,
spit, california, speed, ...), as a family would. ``--frozen UF2`` runs that firmware (the
game frozen in: ``python3 dev.py firmware``) with a drive holding no ``lib/speedduo``
(``--deploy frozen``, the default then). ``--drive DIR`` runs that CIRCUITPY folder
(e.g. an older build's ``.mpy`` drive) with ``--deploy mpy``'s firmware. ``--balance
P1_MS,P2_MS`` powers on with a stats record (``device --nvm``) that has auto-balance on
with those head starts (docs/rules.md H1, H3): every match is played with a head start,
moves it a step toward its loser, says so on both panels and saves the record.

Power-on to the menu both ways: first a boot alone on a drive that takes writes (a first
boot: CircuitPython waits 1 s, then writes boot_out.txt), then the run proper with that
boot_out.txt on the drive (``device --boot-out``: a Pico's every-day power-on). Prints
one table row per deploy (figures: docs/device.md). Needs the firmware files (docs/device.md); takes
about 3-4 minutes of wall time per run.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

from speedduo.display import menu  # (PYTHONPATH=.:lib, as the docs run it)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLAY_US = 5000000
COUNTDOWN_US = 3400000
KEYS = "12345"
GAMES = ("speed", "spit", "california")  # the menu's GAME item, in its order
MENU_GAP_US = 12000000  # after the mashing: R17's idle stop, the result, the stats save
_MENU_PRESS_US = 300000
BALANCE_PAD_US = 12000000  # --balance: more time after a match (run())
# L presses from PLAY (item 0) back round the menu to its GAME item (R presses return)
_TO_GAME = menu.HOW_TO_PLAY - menu.GAME + 1
FIELDS = (
    "mem_free_boot",
    "mem_free_after_import",
    "mem_free_live_min",
    "heap_held",
    "alloc_per_press",
    "step_us_p50",
    "step_us_p99",
    "press_to_pixel_us_p50",
    "press_to_pixel_us_p99",
    "panel_skew_us_max",
    "power_on_to_menu_us",
    "first_boot_to_menu_us",
)
_BOOT_PRESS = "%d 0 R\n"  # a menu move at the PLAY press's time: the menu is drawn by then


def mash_script(seconds, every_us=150000, play_us=PLAY_US, matches=1, gap_us=MENU_GAP_US):
    """PLAY, then the mashing; for each further match the menu's next game, PLAY, mashing
    (``gap_us`` after the mashing: the menu is back by then)."""
    lines = []
    for match in range(matches):
        if match:  # the next game: L to GAME, 1, R back to PLAY
            keys = "L" * _TO_GAME + "1" + "R" * _TO_GAME
            for key in keys:
                lines.append("%d 0 %s" % (play_us, key))
                play_us += _MENU_PRESS_US
        lines.append("%d 0 1" % play_us)
        t = play_us + COUNTDOWN_US
        i = 0
        while t < play_us + COUNTDOWN_US + seconds * 1000000:
            lines.append("%d %d %s" % (t, i % 2, KEYS[(i // 2) % 5]))
            t += every_us
            i += 1
        play_us = t + gap_us
    return "\n".join(lines) + "\n"


def _device(tmp, name, script_text, deploy, seed, options):
    """One ``device`` run: its report, or {"error": [last line]}."""
    script = os.path.join(tmp, name + ".txt")
    with open(script, "w") as f:
        f.write(script_text)
    report = os.path.join(tmp, name + ".json")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.path.join(ROOT, "lib")]))
    settings = [] if "--drive" in options else ["--seed", str(seed), "--idle-ms", "4000"]
    command = [
        sys.executable, "-m", "host_sim", "device", *settings,
        "--script", script, "--deploy", deploy, "--report", report, *options,
    ]  # fmt: skip
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        return {"error": (result.stderr or result.stdout).strip().splitlines()[-1:]}
    with open(report) as f:
        return json.load(f)


def balance_nvm(path, p1_ms, p2_ms):
    """An nvm image at ``path`` whose stats record has auto-balance on (H3) with these
    head starts, as a board that has played with it on keeps it."""
    from speedduo.host.stats import Stats

    nvm = bytearray(b"\xff" * 4096)  # erased flash
    stats = Stats(nvm)
    stats.set_balance(True, p1_ms, p2_ms)
    stats.save()
    with open(path, "wb") as f:
        f.write(nvm)


def run(
    deploy, seconds, seed, extra=(), play_us=PLAY_US, matches=1, uf2=None, drive=None, balance=None
):
    """``extra``: more ``device`` options (``--game spit``, ``--opponent hard``);
    ``balance``: (p1_ms, p2_ms) of an auto-balance record to power on with."""
    from host_sim.device_run import boot_out_of

    options = ["--uf2", uf2] if uf2 and deploy == "frozen" else []
    if drive:
        options += ["--drive", drive]
    else:
        options += extra
    with tempfile.TemporaryDirectory() as tmp:
        if balance is not None:
            nvm = os.path.join(tmp, "stats.nvm")
            balance_nvm(nvm, *balance)
            options += ["--nvm", nvm]
        first = os.path.join(tmp, "first")
        boot = _device(
            tmp, "boot", _BOOT_PRESS % play_us, deploy, seed,
            options + ["--matches", "0", "--limit-ms", str(play_us // 1000 + 500),
                       "--drive-writes", "--keep", first],
        )  # fmt: skip
        if "error" in boot:
            return boot
        boot_out = boot_out_of(os.path.join(first, "drive.bin"))
        if boot_out is None:
            return {"error": ["the first boot wrote no boot_out.txt"]}
        with open(os.path.join(tmp, "boot_out.txt"), "wb") as f:
            f.write(boot_out)
        # H3's notice after each match (until a key or 4 s) before the menu is back, and
        # BALANCE_PAD_US more: a head start's lag keeps a match against the board going
        # (a Spit match against it ran 8 s past the usual gap: the next game's presses
        # would land in it)
        gap_us = MENU_GAP_US + (menu.BALANCE_NOTICE_MS * 1000 + BALANCE_PAD_US if balance else 0)
        script = mash_script(seconds, play_us=play_us, matches=matches, gap_us=gap_us)
        options += ["--matches", str(matches), "--boot-out", os.path.join(tmp, "boot_out.txt")]
        report = _device(tmp, "mash", script, deploy, seed, options)
        report["first_boot_to_menu_us"] = boot["power_on_to_menu_us"]
        return report


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument("--deploy", default=None, help="py,mpy (default), frozen (--frozen)")
    parser.add_argument("--frozen", metavar="UF2", help="a firmware with the game frozen in")
    parser.add_argument("--game", choices=("speed", "spit", "california"), default="speed")
    parser.add_argument("--opponent", choices=("easy", "medium", "hard"), default=None)
    parser.add_argument("--play-ms", type=int, default=PLAY_US // 1000, help="the PLAY press")
    parser.add_argument(
        "--keys", choices=("pio", "keypad"), default=None, help="SPEED_KEYS (default: pio)"
    )
    parser.add_argument(
        "--family", type=int, default=1, metavar="N", help="N matches, the next game each time"
    )
    parser.add_argument(
        "--drive", metavar="DIR", help="this CIRCUITPY folder (its settings.toml), --deploy mpy"
    )
    parser.add_argument(
        "--balance", metavar="P1_MS,P2_MS", help="power on with auto-balance on (H3), these leads"
    )
    args = parser.parse_args(argv)
    if args.family < 1:
        parser.error("--family must be 1 or more")
    balance = None
    if args.balance:
        from speedduo.game.rules import check_head_start

        try:
            balance = tuple(int(v) for v in args.balance.split(","))
            if len(balance) != 2:
                raise ValueError("two head starts, P1_MS,P2_MS")
            for name, lead in zip(("P1_MS", "P2_MS"), balance, strict=True):
                check_head_start(name, lead)
        except ValueError as why:
            parser.error("--balance %s: %s" % (args.balance, why))
    deploys = (args.deploy or ("frozen" if args.frozen else "py,mpy")).split(",")
    if "frozen" in deploys and not args.frozen:
        parser.error("--deploy frozen needs --frozen UF2")
    if args.frozen and not os.path.isfile(args.frozen):
        parser.error("--frozen %s: no such file" % args.frozen)
    options = ["--game", args.game] if args.game != "speed" else []
    if args.opponent:
        options += ["--opponent", args.opponent]
    if args.keys:
        options += ["--keys", args.keys]
    print("| deploy | " + " | ".join(FIELDS) + " | plays | emulated ms | wall s |")
    print("|---" * (len(FIELDS) + 4) + "|")
    for deploy in deploys:
        r = run(
            deploy, args.seconds, args.seed, options, args.play_ms * 1000, args.family,
            os.path.abspath(args.frozen) if args.frozen else None,
            os.path.abspath(args.drive) if args.drive else None, balance,
        )  # fmt: skip
        if "error" in r:
            print(f"| {deploy} | failed: {r['error']} |")
            continue
        cells = [str(r.get(k, "")) for k in FIELDS]
        extra = [str(r.get("plays_measured")), str(r.get("emulated_ms")), str(r.get("wall_s"))]
        print(f"| {deploy} | " + " | ".join(cells + extra) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
