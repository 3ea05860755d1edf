"""Replay fuzz (issue 9, item 7): altered logs are refused, never crash, never pass as genuine.

Genuine logs from several seeds, players and rule sets are altered every way
``replay_fuzz.mutations`` knows (truncations, bit flips, changed digits,
deleted / duplicated / swapped lines, shifted times, wrong types, key events moved
onto another line). Each altered
log must end in a one-line error (exit status 2) or a named divergence (exit
status 1), never a traceback. An altered log may replay only when it is itself
a genuine log: the simulator, fed the key events it names, writes exactly it
(each key event on a line a loop whose passes last up to 100 ms could have put it
on), and the independent referee finds every event legal
(a release moved by a millisecond, or a rule option no event depended on, is
another match nobody can tell apart). SPEED_SOAK=1 runs a much bigger campaign
(SPEED_SOAK_LOGS logs, default 300; SPEED_SOAK_SEED repeats a campaign).
"""

import collections
import json
import os
import random

import pytest
from conftest import SOAK, run_cli
from referee import Referee, RefereeError
from replay_fuzz import mutations, simulator_writes, verdict
from runner import Simulation
from script import parse_script
from speedduo.game.rules import Rules


def _lr_mash(n=150):
    """Both players press L and R every 4 ms: many key events, few lines."""
    lines = []
    for i in range(n):
        t = 200000 + i * 4000
        for p in (0, 1):
            for k in "LR":
                lines.append(f"{t} {p} {k} down\n{t + 1500} {p} {k} up\n")
    return parse_script("".join(lines))


LOGS = [
    (1, {}, ["bot:hard", "bot:easy"], 3, {}),
    (7, {"penalty": True}, ["bot:medium", "bot:medium"], 3, {"bounce_max_us": 5000}),
    (99, {"same_rank": True, "pile_redeal": True}, ["bot:perfect", "bot:perfect"], 5, {}),
    (45, {"claim": "race"}, ["bot:perfect", "bot:perfect"], 3, {"phase_us": 45}),
    (4242, {"claim": "simple", "points": True}, ["bot:hard", "none"], 3, {}),
    (5, {"idle_ms": 5000, "no_wrap": True}, ["bot:hard", "none"], 3, {}),
    # L/R mashed, nothing else: key events pile up, and go out on "keys" lines of their own
    (3, {"idle_ms": 6000}, ["none", "none"], 3, {"script": "lr"}),
]
PER_KIND = 2


def _log(seed, rules, players, best_of, kw):
    lines = []
    if kw.get("script") == "lr":
        kw = dict(kw, script=_lr_mash())
    # the keypad's ms stamps: replay_fuzz.simulator_writes tells a genuine altered log by
    # the keypad's scans (a µs log's altered µs digits it cannot judge yet)
    kw = dict(kw, keys="keypad")
    Simulation(seed, Rules(**rules), best_of, players, **kw).run(lines.append)
    return ("\n".join(lines) + "\n").encode()


def _campaign(logs, per_kind, rng, stop_after_bad=0):
    counts = collections.Counter()
    bad = []
    for args in logs:
        data = _log(*args)
        assert verdict(data)[0] == "accepted", args  # the genuine log replays
        for kind, altered in mutations(data.decode(), rng, per_kind):
            outcome, message = verdict(altered)
            if outcome == "accepted":
                genuine = simulator_writes(altered) and _referee_passes(altered)
                outcome = "accepted (genuine)" if genuine else "accepted"
            counts[outcome] += 1
            if outcome in ("accepted", "traceback") and len(bad) < 5:
                bad.append((args, kind, outcome, message))
                if len(bad) == stop_after_bad:
                    return counts, bad
    return counts, bad


def _referee_passes(data):
    """The independent referee (tests/referee.py) finds every event legal too."""
    try:
        Referee().check_log(data.decode().splitlines())
    except RefereeError:
        return False
    return True


def _soak_logs(count, rng):
    players = ["bot:easy", "bot:medium", "bot:hard", "bot:perfect", "none"]
    logs = []
    for _ in range(count):
        rules = {}
        for name in ("no_wrap", "same_rank", "end_on_exhaustion", "pile_redeal", "penalty"):
            if rng.random() < 0.25:
                rules[name] = True
        if rng.random() < 0.4:
            rules["claim"] = rng.choice(["off", "simple", "race"])
        if rng.random() < 0.3:
            rules["idle_ms"] = rng.choice([1000, 3000, 6000])
        kw = {"phase_us": rng.randrange(977)}
        if rng.random() < 0.3:
            kw["bounce_max_us"] = 5000
        pair = [rng.choice(players[:4]), rng.choice(players)]
        logs.append((rng.randrange(1 << 30), rules, pair, rng.choice([3, 5, 7]), kw))
    return logs


def test_every_altered_log_is_refused_or_is_itself_genuine():
    rng = random.Random(9)
    logs = LOGS
    per_kind = PER_KIND
    seed = 9
    if SOAK:
        seed = int(os.environ.get("SPEED_SOAK_SEED", random.randrange(1 << 32)))
        rng = random.Random(seed)
        logs = LOGS + _soak_logs(int(os.environ.get("SPEED_SOAK_LOGS", "300")), rng)
        per_kind = 4
    counts, bad = _campaign(logs, per_kind, rng)
    print("replay fuzz:", sum(counts.values()), "altered logs,", dict(counts), "seed", seed)
    assert not bad, f"SPEED_SOAK_SEED={seed}: {bad}"
    assert counts["exit2"] and counts["diverges"]  # both kinds of refusal were exercised


def test_the_fuzz_catches_a_checker_that_accepts_everything(monkeypatch):
    """The harness can fail: with the re-play switched off, altered logs get through."""
    import replay_fuzz

    monkeypatch.setattr(replay_fuzz, "check_entries", lambda entries: None)
    counts, bad = _campaign(LOGS[:1], 1, random.Random(9), stop_after_bad=3)
    assert counts["accepted"] == 3 and len(bad) == 3


def test_the_fuzz_catches_a_checker_that_lets_key_events_ride_anywhere(monkeypatch):
    """With the check of where key events ride switched off, moved ones get through, and
    the oracle (the simulator's own timing) calls them not genuine."""
    from replay_fuzz import _compact, _move_keys

    import host_sim.replay

    monkeypatch.setattr(host_sim.replay, "check_rides", lambda entries, spans: None)
    objs = [json.loads(line) for line in _log(*LOGS[0]).decode().splitlines()]
    rng = random.Random(9)
    caught = 0
    for _ in range(40):
        moved = _move_keys(objs, rng)
        if moved is None:
            continue
        altered = ("\n".join(_compact(o) for o in moved[1]) + "\n").encode()
        if verdict(altered)[0] == "accepted" and not simulator_writes(altered):
            caught += 1
    assert caught


@pytest.mark.parametrize(
    "kind", ["delete_reject", "duplicate_reject", "swap_same_instant", "byte_flip", "wrong_type"]
)
def test_the_command_line_gives_exit_1_or_2_and_no_traceback(tmp_path, kind):
    rng = random.Random(3)
    data = _log(*LOGS[1])
    altered = [a for k, a in mutations(data.decode(), rng, 2) if k == kind]
    assert altered
    for i, body in enumerate(altered):
        path = tmp_path / f"{i}.jsonl"
        path.write_bytes(body)
        outcome, _ = verdict(body)
        result = run_cli("replay", str(path), check=False)
        assert "Traceback" not in result.stderr
        assert result.returncode == {"exit2": 2, "diverges": 1}[outcome], result.stderr
        if outcome == "exit2":
            assert result.stderr.startswith("host_sim: error: ") and result.stderr.count("\n") == 1
        else:
            assert result.stderr.startswith(f"{path}: line ") and " diverges: " in result.stderr
