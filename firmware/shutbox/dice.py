# Fair dice from a source of random bytes (os.urandom: the RP2040's hardware entropy on the Pico).
"""Unbiased six-sided dice by rejection sampling.

A byte b in 0..251 gives the face b % 6 + 1; bytes 252..255 are thrown away, since 256 is not
a multiple of 6 and keeping them would make faces 1 to 4 slightly likelier. Bytes are drawn
``POOL`` at a time, so the random source is asked rarely and nothing is allocated per throw.
"""

from micropython import const

POOL = const(32)
_LIMIT = const(252)  # 42 * 6: the largest multiple of 6 that fits in a byte


class Dice:
    """Six-sided dice drawing from ``urandom(n) -> n random bytes``."""

    def __init__(self, urandom, pool=POOL):
        """Keep the source; the first throw fills the pool (so nothing is drawn at import)."""
        self._urandom = urandom
        self._size = pool
        self._pool = b""
        self._i = 0
        self.rejected = 0  # bytes thrown away, for the fairness tests

    def flush(self):
        """Drop the unused bytes: the next throw draws fresh ones (tests script the source)."""
        self._pool = b""
        self._i = 0

    def roll(self):
        """Return a fair face 1..6."""
        while True:
            if self._i >= len(self._pool):
                self._pool = self._urandom(self._size)
                self._i = 0
            b = self._pool[self._i]
            self._i += 1
            if b < _LIMIT:
                return b % 6 + 1
            self.rejected += 1

    def below(self, n):
        """Return a fair int in 0..n-1 (1 <= n <= 256) from the same pool (the computer's picks).

        Rejection sampling again: bytes at or above the largest multiple of n are skipped.
        """
        limit = 256 - 256 % n
        while True:
            if self._i >= len(self._pool):
                self._pool = self._urandom(self._size)
                self._i = 0
            b = self._pool[self._i]
            self._i += 1
            if b < limit:
                return b % n
