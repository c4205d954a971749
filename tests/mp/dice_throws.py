# Throws of two dice under micropython with shutbox.dice, summarised for the fairness tests.
"""Run under micropython: dice_throws.py <throws> <source>.

*source* is ``os`` (os.urandom: the entropy the box uses) or ``hash:<seed>`` (a SHA-256
counter stream, the same bytes CPython's HashBytes in bench_reliability.py makes, so both
interpreters must print the very same counts). Prints, one per line:

    FACES_A c1 .. c6 / FACES_B c1 .. c6 / TOTALS c2 .. c12 / PAIRS 36 counts (a then b)
    RUNS above below runs      (Wald-Wolfowitz on totals vs the median 7; 7s left out)
    REJECTED r / MS elapsed
"""

import hashlib
import os
import sys
import time

from shutbox.dice import Dice


class HashBytes:
    """urandom-like: SHA-256(seed + 8-byte little-endian counter) blocks, back to back."""

    def __init__(self, seed):
        self.seed = seed.encode()
        self.ctr = 0
        self.block = b""
        self.i = 0

    def __call__(self, n):
        """Return the next *n* bytes of the stream."""
        out = bytearray(n)
        for k in range(n):
            if self.i >= len(self.block):
                h = hashlib.sha256(self.seed + self.ctr.to_bytes(8, "little"))
                self.block = h.digest()
                self.ctr += 1
                self.i = 0
            out[k] = self.block[self.i]
            self.i += 1
        return bytes(out)


def main():
    """Throw, count, print."""
    n = int(sys.argv[1])
    source = sys.argv[2] if len(sys.argv) > 2 else "os"
    urandom = os.urandom if source == "os" else HashBytes(source.split(":", 1)[1])
    dice = Dice(urandom)
    fa = [0] * 7
    fb = [0] * 7
    totals = [0] * 13
    pairs = [0] * 36
    above = below = runs = 0
    side = 0
    t0 = time.ticks_ms()
    for _ in range(n):
        a = dice.roll()
        b = dice.roll()
        fa[a] += 1
        fb[b] += 1
        t = a + b
        totals[t] += 1
        pairs[(a - 1) * 6 + b - 1] += 1
        if t != 7:
            s = 1 if t > 7 else -1
            if s > 0:
                above += 1
            else:
                below += 1
            if s != side:
                runs += 1
                side = s
    ms = time.ticks_diff(time.ticks_ms(), t0)
    print("FACES_A", *fa[1:])
    print("FACES_B", *fb[1:])
    print("TOTALS", *totals[2:])
    print("PAIRS", *pairs)
    print("RUNS", above, below, runs)
    print("REJECTED", dice.rejected)
    print("MS", ms)


main()
