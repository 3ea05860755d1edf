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
SEED_LIMIT = const(0x40000000)  # seeds are 0 <= seed < 2**30


def _valid_state(x: int, a: int) -> int:
    """0 and a * 2**15 - 1 are fixed points of the generator: step off them."""
    if x == 0 or x >= a * 0x8000 - 1:
        return 1
    return x


class Rng:
    """A deterministic 30-bit random stream started from a seed (0 <= seed < 2**30)."""

    def __init__(self, seed: int) -> None:
        if not isinstance(seed, int) or seed < 0 or seed >= SEED_LIMIT:
            raise ValueError("seed must be an integer with 0 <= seed < 2**30")
        # Each half of the seed picks one generator's start; +1 keeps it non-zero.
        self._x1 = (seed & _LOW15) + 1
        self._x2 = ((seed >> 15) & _LOW15) + 1
        for _ in range(12):
            # Stir each generator's low bits into the other's so that every
            # bit of the seed reaches both streams (neighbouring seeds diverge).
            value = self.next30()
            self._x1 = _valid_state((self._x1 & ~_LOW15) | ((self._x1 ^ value) & _LOW15), _A1)
            self._x2 = _valid_state(
                (self._x2 & ~_LOW15) | ((self._x2 ^ (value >> 15)) & _LOW15), _A2
            )

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
        """Fisher-Yates shuffle of ``buf[start : start + count]`` in place."""
        i = count - 1
        while i > 0:
            j = self.below(i + 1)
            a = start + i
            b = start + j
            buf[a], buf[b] = buf[b], buf[a]
            i -= 1
