"""Altered match logs for the replay fuzz test: every way a file gets damaged or doctored.

``mutations(text, rng)`` yields (kind, altered bytes) for one genuine log;
``verdict(data)`` runs the whole replay check on bytes and says how it ended:
``exit2`` (a one-line error), ``diverges`` (a named divergence), ``accepted``
or ``traceback`` (anything else: a bug in the checker).
"""

import json

from host_sim.logfile import LogError, parse_log_bytes
from host_sim.replay import Divergence, ReplayError, check_entries

WRONG_VALUES = ("1", "x", None, True, 1.5, [], [1], {}, -1, 1 << 40)
SHIFTS = (1, -1, 1000, -1000, "zero")


def verdict(data):
    """(outcome, message) for the bytes of a log file."""
    try:
        check_entries(parse_log_bytes(data, "fuzz.jsonl"))
    except (LogError, ReplayError) as e:
        message = str(e)
        return ("exit2" if "\n" not in message else "traceback"), message
    except Divergence as e:
        return "diverges", str(e)
    except Exception as e:  # noqa: BLE001  (what the fuzz test is looking for)
        return "traceback", f"{type(e).__name__}: {e}"
    return "accepted", ""


def _join(lines):
    return ("\n".join(lines) + "\n").encode()


def _compact(obj):
    return json.dumps(obj, separators=(",", ":"))


def mutations(text, rng, per_kind=3):
    """(kind, bytes) alterations of one log; each differs from the original."""
    lines = text.splitlines()
    data = text.encode()
    objs = [json.loads(line) for line in lines]
    timed = [i for i, o in enumerate(objs) if "t" in o]
    keyed = [i for i, o in enumerate(objs) if "keys" in o]
    out = []
    for _ in range(per_kind):
        cut = rng.randrange(len(data))
        out.append(("truncate", data[:cut]))
        i = rng.randrange(len(data))
        flipped = bytearray(data)
        flipped[i] ^= 1 << rng.randrange(8)
        out.append(("byte_flip", bytes(flipped)))
        digits = [i for i, b in enumerate(data) if 0x30 <= b <= 0x39]
        i = rng.choice(digits)
        other = bytearray(data)
        other[i] = 0x30 + (other[i] - 0x30 + 1 + rng.randrange(9)) % 10
        out.append(("digit_change", bytes(other)))
        k = rng.randrange(len(lines))
        out.append(("delete_line", _join(lines[:k] + lines[k + 1 :])))
        out.append(("duplicate_line", _join(lines[: k + 1] + lines[k:])))
        k = rng.randrange(len(lines) - 1)
        if lines[k] != lines[k + 1]:
            out.append(("swap_lines", _join(lines[:k] + [lines[k + 1], lines[k]] + lines[k + 2 :])))
        same = [
            i
            for i in range(len(lines) - 1)
            if objs[i].get("t") is not None
            and objs[i].get("t") == objs[i + 1].get("t")
            and lines[i] != lines[i + 1]
        ]
        if same:
            i = rng.choice(same)
            out.append(
                ("swap_same_instant", _join(lines[:i] + [lines[i + 1], lines[i]] + lines[i + 2 :]))
            )
        for name in ("reject", "play", "draw", "penalty", "stall", "flip"):
            chosen = [i for i, o in enumerate(objs) if o["ev"] == name]
            if chosen:
                k = rng.choice(chosen)
                out.append((f"delete_{name}", _join(lines[:k] + lines[k + 1 :])))
                out.append((f"duplicate_{name}", _join(lines[: k + 1] + lines[k:])))
        k = rng.choice(timed) if timed else 0
        shift = rng.choice(SHIFTS)
        obj = dict(objs[k])
        obj["t"] = 0 if shift == "zero" else obj.get("t", 0) + shift
        if timed and obj["t"] >= 0 and obj != objs[k]:
            out.append((f"shift_t_{shift}", _join(lines[:k] + [_compact(obj)] + lines[k + 1 :])))
        if keyed:
            k = rng.choice(keyed)
            obj = json.loads(lines[k])
            entry = rng.randrange(len(obj["keys"]))
            shift = rng.choice(SHIFTS)
            t = obj["keys"][entry][0]
            obj["keys"][entry][0] = 0 if shift == "zero" else t + shift
            if obj["keys"][entry][0] >= 0 and obj["keys"][entry][0] != t:
                out.append(
                    (f"shift_key_{shift}", _join(lines[:k] + [_compact(obj)] + lines[k + 1 :]))
                )
        moved = _move_keys(objs, rng)
        if moved is not None:
            out.append((moved[0], _join([_compact(o) for o in moved[1]])))
        k = rng.randrange(len(lines))
        obj = dict(objs[k])
        field = rng.choice(sorted(obj))
        value = rng.choice(WRONG_VALUES)
        if obj[field] != value or type(obj[field]) is not type(value):
            obj[field] = value
            out.append(("wrong_type", _join(lines[:k] + [_compact(obj)] + lines[k + 1 :])))
        k = rng.randrange(len(lines))
        obj = json.loads(lines[k])
        if _plausible_change(obj, rng):
            out.append(("plausible_value", _join(lines[:k] + [_compact(obj)] + lines[k + 1 :])))
        k = rng.randrange(len(lines))
        obj = json.loads(lines[k])
        optional = [
            f for f in ("tie", "due", "overflows", "points", "keys", "tie_first") if f in obj
        ]
        if optional:
            del obj[rng.choice(optional)]
            out.append(("drop_field", _join(lines[:k] + [_compact(obj)] + lines[k + 1 :])))
    return [(kind, altered) for kind, altered in out if altered != data]


def _move_keys(objs, rng, tries=8):
    """(kind, events): one line's key events moved onto another line between the lines
    with keys around it (the record stays in order, keys_total stays true), or None."""
    keyed = [i for i, o in enumerate(objs) if "keys" in o]
    carriers = [i for i in keyed if objs[i]["ev"] != "keys"]
    for _ in range(tries if carriers else 0):
        k = rng.choice(carriers)
        before = max([i for i in keyed if i < k], default=0)
        after = min([i for i in keyed if i > k], default=len(objs))
        places = [
            j
            for j in range(before + 1, after)
            if j != k and objs[j]["ev"] not in ("match", "draw", "keys")
        ]
        if places:
            j = rng.choice(places)
            events = [dict(o) for o in objs]
            source, target = events[k], events[j]
            target.pop("keys_total", None)  # match_end's: it goes after keys, as written
            target["keys"] = source.pop("keys")
            target["keys_total"] = source["keys_total"]
            if source["ev"] != "match_end":
                del source["keys_total"]
            return ("move_keys_earlier" if j < k else "move_keys_later"), events
    return None


_OPTIONAL = ("tie", "due", "overflows", "points", "keys", "tie_first", "tie_break")
_CARDS = [r + s for r in "A23456789TJQK" for s in "SHDC"]
_CHOICES = {
    "p": (0, 1),
    "pile": (0, 1),
    "winner": (0, 1, None),
    "tie_first": (0, 1),
    "slot": (0, 1, 2, 3, 4),
    "best_of": (3, 5, 7),
    "tie": ("won", "lost"),
    "sweep": (True, False),
}
_WHY = {
    "reject": ("late", "invalid", "locked"),
    "hand_end": ("out", "dead_stall", "photo_finish", "claim", "abandoned"),
}


def _plausible_change(obj, rng):
    """Change one field of an event to another value of the right type; False if none."""
    fields = [f for f in obj if f != "ev"]
    if not fields:
        return False
    field = rng.choice(fields)
    value = obj[field]
    if field in _CHOICES:
        obj[field] = rng.choice([v for v in _CHOICES[field] if v != value] or [value])
    elif field == "why":
        obj[field] = rng.choice([v for v in _WHY[obj["ev"]] if v != value])
    elif field == "card":
        obj[field] = rng.choice([c for c in _CARDS if c != value])
    elif field in ("t", "until", "due", "seed", "hand_no", "keys_total", "overflows"):
        obj[field] = max(0, value + rng.choice((-1, 1)))
    elif field in ("left", "score", "points"):
        i = rng.randrange(2)
        value[i] = max(0, value[i] + rng.choice((-1, 1)))
    elif field == "rules":
        name = rng.choice(sorted(value))
        option = value[name]
        if isinstance(option, bool):
            value[name] = not option
        elif isinstance(option, int):
            value[name] = option + rng.choice((-1, 1))
        else:
            value[name] = rng.choice([c for c in ("off", "simple", "race") if c != option])
    elif field == "keys":
        entry = rng.choice(value)
        if entry[1] >= 0 and rng.random() < 0.5:
            entry[1] = rng.choice([k for k in range(14) if k != entry[1]])
        else:
            entry[2] = 1 - entry[2] if entry[1] >= 0 else entry[2] + 1
    elif field in ("hands", "draw", "side", "piles"):
        cards = [c for lst in value for c in lst]
        if len(cards) < 2:
            return False
        a, b = rng.sample(range(len(cards)), 2)
        cards[a], cards[b] = cards[b], cards[a]
        i = 0
        for lst in value:
            lst[:] = cards[i : i + len(lst)]
            i += len(lst)
    else:
        return False
    return True


# ---- the oracle for an accepted altered log: does the simulator write it? ----

_START_US = 3_000_000  # the first hand's start signal (Match's countdown), where scripts start


def _strip(line):
    obj = json.loads(line)
    obj.pop("keys", None)
    obj.pop("keys_total", None)
    return _compact(obj)


def _key_stream(lines):
    return [tuple(k) for line in lines for k in json.loads(line).get("keys", ())]


def script_for(lines, phase_us=0, tick_offset=0):
    """Contact changes that make the simulator's keypad report the log's key events, or None.

    Each event goes to the first 1/1024 s scan tick of its millisecond that keeps
    the keypad's order (one change per key per tick, key-number order within a
    tick); None when the events cannot come from the simulated keypad (a lost
    event, more changes than the millisecond has ticks). A key whose first
    event is a release was held when the match began (on the board: the menu's
    PLAY press): its contact closes before the start. With a tick phase the
    match's ms 0 is the tick before time 0.
    """
    start_ms = (tick_offset - (1 if phase_us else 0)) * 1000 // 1024
    script = []
    tick = -1
    tick_keys = []
    closed = set()
    seen = set()
    for t, key, pressed in _key_stream(lines):
        if key < 0:
            return None
        if key not in seen and not pressed:
            script.append((-_START_US, key // 7, key % 7, True))  # held since before the match
            closed.add(key)
        seen.add(key)
        if (key in closed) == (pressed == 1):
            return None
        ms = t + start_ms  # the keypad's ticks_ms for match time t
        first = (ms * 1024 + 999) // 1000 - tick_offset  # the first tick with ticks_ms == ms
        if first > tick:
            tick, tick_keys = first, []
        elif tick_keys and (key <= tick_keys[-1]):
            tick, tick_keys = tick + 1, []
        if (tick + tick_offset) * 1000 // 1024 != ms:
            return None
        tick_keys.append(key)
        closed ^= {key}
        at = phase_us + (tick * 15625 + 15) // 16  # the tick's time in µs
        script.append((at - _START_US, key // 7, key % 7, pressed == 1))
    return script


def simulator_writes(data):
    """Does the simulator, fed the key events this log names, write these events and keys?

    The events must be the same lines and the key events the same list; where a
    key event rides may differ (it depends on when the loop read it).
    """
    from runner import Simulation
    from speedduo.game.rules import Rules

    lines = data.decode().splitlines()
    header = json.loads(lines[0])
    rules = Rules(**header["rules"])
    for phase_us, tick_offset in [(1, 0)] + [(0, a) for a in range(128)]:
        script = script_for(lines, phase_us, tick_offset)
        if script is None:
            continue
        written = []
        written_ms = []  # match ms at which each line was written
        sim = Simulation(
            header["seed"],
            rules,
            header["best_of"],
            ["none", "none"],
            script,
            phase_us=phase_us,
            tick_offset=tick_offset,
            keys="keypad",  # (its scans are what this search tries)
        )
        if any(change[0] == -_START_US for change in script):
            # keys held at the start: the board's menu took their presses (and cleared the queue)
            sim.clock.advance_to(sim.clock.tick_time(1))
            sim.keys.events.clear()

        def write(line, sim=sim, written=written, written_ms=written_ms):
            written.append(line)
            clock = sim.clock
            now_ms = clock.ticks_ms_of_tick(clock.tick_at_or_before(clock.now_us))
            written_ms.append(sim.arbiter.match_time(now_ms))

        match = sim.run(write)
        read, logged = _key_stream(written), _key_stream(lines)
        # the loop's last pass reads what is queued, also events after the end: the simulator
        # makes that pass 1 ms after the end, the board whenever its loop comes round again
        if match.winner in (0, 1):
            end = match.hand_start + match.hand.end_t  # the hand that won the match
        else:
            end = match.last_press + rules.idle_ms  # R17 stopped it
        late = logged[len(read) :]
        same_keys = logged[: len(read)] == read and all(t > end for t, _, _ in late)
        same = same_keys and [_strip(x) for x in written] == [_strip(x) for x in lines]
        # the rules see match milliseconds only: another tick alignment gives the same events
        return same and _counts_agree(lines) and _rides_agree(lines, written_ms)
    return False


# the longest pass of the board's loop the oracle allows (host_sim/replay.py PASS_MAX_MS)
_PASS_MAX_MS = 100


def _rides_agree(lines, written_ms):
    """Each key event rides on a line a loop could have written first after reading it.

    The simulator's loop reads each event in the pass at its own millisecond and writes
    a line of instant y in the pass at y + 1 (``written_ms``). A loop whose passes
    last up to _PASS_MAX_MS reads an event stamped t in a pass that began at t or
    later and writes lines from that pass's start, which is at most _PASS_MAX_MS
    after the previous pass began: the line the event rides on was written by the
    simulator no earlier than t - _PASS_MAX_MS, and no later than the first line it
    wrote at t + 1 or after (1 ms more either way for the tick grid).
    """
    objs = [json.loads(line) for line in lines]
    regular = [i for i, o in enumerate(objs) if o["ev"] != "keys"]
    regular_ms = [written_ms[i] for i in regular]
    place = 0
    for o in objs:
        for t, key, _ in o.get("keys", ()):
            if key < 0:
                continue
            earliest = next(
                (n for n, ms in enumerate(regular_ms) if ms >= t - _PASS_MAX_MS - 1),
                len(regular),
            )
            latest = next((n for n, ms in enumerate(regular_ms) if ms >= t + 2), len(regular))
            if not earliest <= place <= latest:
                return False
        if o["ev"] != "keys":
            place += 1
    return True


def _counts_agree(lines):
    """keys_total counts the key entries so far on every line that has keys, and on match_end.

    (Which line a key event rides on depends on when the loop read it, so the
    oracle does not ask the simulator for the same places, only for these counts.)
    """
    total = 0
    for line in lines:
        obj = json.loads(line)
        total += len(obj.get("keys", ()))
        if ("keys" in obj or obj["ev"] == "match_end") and obj.get("keys_total") != total:
            return False
    return True
