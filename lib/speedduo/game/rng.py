"""Seeded PRNG and Fisher-Yates shuffle that give the same numbers everywhere.

Two multiply-with-carry generators with base 2**15 (Marsaglia): each step is
``x = a * (x & 0x7FFF) + (x >> 15)`` with ``a * 2**15 - 1`` a safe prime, so
every intermediate value stays below 2**30, the board's small-int limit, and
nothing allocates a long int. The two 15-bit outputs are joined into one
30-bit value. CPython, MicroPython and CircuitPython give identical streams.
"""

from micropython import const  # on the host, Blinka provides this module

_A1 = const(32760)  # 32760 * 2**15 - 1 is a safe prime
_A2 = const(32730)  # 32730 * 2**15 - 1 is a safe prime
_LOW15 = const(0x7FFF)
_FIXED1 = const(32760 * 0x8000 - 1)  # a * 2**15 - 1 (and 0) is a fixed point of the step
_FIXED2 = const(32730 * 0x8000 - 1)
_REJECT_ABOVE = const(0x3FFFFFFF - 0x8000)  # below(n) never rejects a value up to here
SEED_LIMIT = const(0x40000000)  # seeds are 0 <= seed < 2**30


class Rng:
    """A deterministic 30-bit random stream started from a seed (0 <= seed < 2**30)."""

    def __init__(self, seed: int) -> None:
        if not isinstance(seed, int) or seed < 0 or seed >= SEED_LIMIT:
            raise ValueError("seed must be an integer with 0 <= seed < 2**30")
        # Each half of the seed picks one generator's start; +1 keeps it non-zero.
        x1 = (seed & _LOW15) + 1
        x2 = ((seed >> 15) & _LOW15) + 1
        for _ in range(12):
            # Stir each generator's low bits into the other's so that every
            # bit of the seed reaches both streams (neighbouring seeds diverge).
            # One step of next30, inlined: every match's set-up runs this loop.
            x1 = _A1 * (x1 & _LOW15) + (x1 >> 15)
            x2 = _A2 * (x2 & _LOW15) + (x2 >> 15)
            low1 = x1 & _LOW15
            x1 = (x1 & ~_LOW15) | ((x1 ^ x2) & _LOW15)
            if x1 == 0 or x1 >= _FIXED1:  # fixed points of the generator: step off them
                x1 = 1
            x2 = (x2 & ~_LOW15) | ((x2 ^ low1) & _LOW15)
            if x2 == 0 or x2 >= _FIXED2:
                x2 = 1
        self._x1 = x1
        self._x2 = x2

    def next30(self) -> int:
        """The next value, uniform over 0 .. 2**30 - 1."""
        x1 = _A1 * (self._x1 & _LOW15) + (self._x1 >> 15)
        x2 = _A2 * (self._x2 & _LOW15) + (self._x2 >> 15)
        self._x1 = x1
        self._x2 = x2
        return ((x1 & _LOW15) << 15) | (x2 & _LOW15)

    def below(self, n: int) -> int:
        """A uniform integer 0 <= k < n (1 <= n <= 2**15), without modulo bias."""
        # 2**30 % n, computed without forming 2**30 (not a small int on the board)
        spare = (0x3FFFFFFF % n + 1) % n
        limit = 0x3FFFFFFF - spare  # values above limit would favour small k
        value = self.next30()
        while value > limit:
            value = self.next30()
        return value % n

    def shuffle(self, buf, start: int, count: int) -> None:
        """Fisher-Yates shuffle of ``buf[start : start + count]`` in place.

        The same draws as ``below(i + 1)`` for i = count - 1 .. 1, with ``next30``
        and ``below`` inlined (a deal is 51 draws; a call each would double its cost).
        """
        x1 = self._x1
        x2 = self._x2
        i = count - 1
        while i > 0:
            n = i + 1
            x1 = _A1 * (x1 & _LOW15) + (x1 >> 15)
            x2 = _A2 * (x2 & _LOW15) + (x2 >> 15)
            value = ((x1 & _LOW15) << 15) | (x2 & _LOW15)
            # below(n)'s test, worked out only near the top of the range (about 1 in 2**15)
            while value > _REJECT_ABOVE and value > 0x3FFFFFFF - (0x3FFFFFFF % n + 1) % n:
                x1 = _A1 * (x1 & _LOW15) + (x1 >> 15)
                x2 = _A2 * (x2 & _LOW15) + (x2 >> 15)
                value = ((x1 & _LOW15) << 15) | (x2 & _LOW15)
            a = start + i
            b = start + value % n
            buf[a], buf[b] = buf[b], buf[a]
            i -= 1
        self._x1 = x1
        self._x2 = x2
