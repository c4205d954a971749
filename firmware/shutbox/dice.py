# Fair dice from a source of random bytes (os.urandom: the RP2040's hardware entropy on the Pico).
"""Unbiased six-sided dice by rejection sampling.

A byte b in 0..251 gives the face b % 6 + 1; bytes 252..255 are thrown away, since 256 is not
a multiple of 6 and keeping them would make faces 1 to 4 slightly likelier. Bytes are drawn
32 at a time, so the random source is asked rarely and nothing is allocated per throw.

With a challenge code the box throws shutbox.challenge.Challenge dice instead: the same
sampling from a byte stream that the code decides (that module's doc); ``code`` is -1 here.
"""

from micropython import const

_POOL = const(32)  # bytes drawn from the source at a time


class Dice:
    """Six-sided dice drawing from ``urandom(n) -> n random bytes``."""

    code = -1  # no challenge code (shutbox.challenge.Challenge has one)

    def __init__(self, urandom, size=_POOL):
        """Keep the source; the first throw fills the pool (so nothing is drawn at import)."""
        self.urandom = urandom
        self.size = size  # bytes drawn from the source at a time
        self._pool = b""
        self._i = 0
        self.rejected = 0  # bytes thrown away (throws and picks), for the fairness tests

    def flush(self):
        """Drop the unused bytes: the next throw draws fresh ones (tests script the source)."""
        self._pool = b""
        self._i = 0

    def roll(self):
        """Return a fair face 1..6 (a byte of 252..255 is thrown away: 252 = 42 * 6)."""
        return self.below(6) + 1

    def below(self, n):
        """Return a fair int in 0..n-1 (1 <= n <= 256) from the pool (the computer's picks).

        Rejection sampling: bytes at or above the largest multiple of n are skipped.
        """
        limit = 256 - 256 % n
        while True:
            if self._i >= len(self._pool):
                self._pool = self.urandom(self.size)
                self._i = 0
            b = self._pool[self._i]
            self._i += 1
            if b < limit:
                return b % n
            self.rejected += 1
