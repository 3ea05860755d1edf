"""How fast the PC's link tools read the data port (host_sim/wire.py ``Decoder``).

    PYTHONPATH=.:lib .venv/bin/python bench/bench_wire.py

Prints the seconds the decoder takes for a stream with no newline at all (20 MB in the
4 KB reads a port gives: linear, each byte looked at once, at most ``LINE_LIMIT`` bytes
held; the decoder before issue 27.5 copied its buffer whole at every read: 85 s), and
the rate of a real match log (a golden log's lines with their seq), lines per second.
"""

import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "lib")]

from host_sim.wire import LINE_LIMIT, Decoder  # noqa: E402


def no_newline(megabytes):
    decoder = Decoder()
    chunk = b"x" * 4096
    start = time.perf_counter()
    for _ in range(megabytes * 256):
        decoder.feed(chunk)
    return time.perf_counter() - start, decoder.buffered


def match_log(rounds):
    golden = os.path.join(ROOT, "tests", "golden", "logs")
    with open(os.path.join(golden, sorted(os.listdir(golden))[0])) as f:
        lines = f.read().splitlines()
    data = b"".join(b"%s\t%d\n" % (line.encode(), i + 1) for i, line in enumerate(lines))
    chunks = [data[i : i + 4096] for i in range(0, len(data), 4096)]
    start = time.perf_counter()
    for _ in range(rounds):
        decoder = Decoder()
        for chunk in chunks:
            decoder.feed(chunk)
    return len(lines) * rounds / (time.perf_counter() - start), len(data)


def main():
    seconds, held = no_newline(20)
    print(f"20 MB with no newline, 4 KB reads: {seconds:.3f} s, {held} bytes held "
          f"(limit {LINE_LIMIT})")  # fmt: skip
    rate, size = match_log(20)
    print(f"a golden match log ({size} bytes): {rate:,.0f} lines/s decoded")


if __name__ == "__main__":
    main()
