# Rejection sampling proven under micropython: one pass over every byte value, no bias, no alloc.
"""Run under micropython: dice_exhaustive.py.

For several pool sizes and byte orders, a scripted urandom hands out each byte value 0..255
exactly once; rolling until it runs dry must give each face exactly 42 times and reject
exactly 4 bytes (252..255). Then roll() must allocate nothing (heap locked) while the pool
lasts. Prints failures and "CASES <n> FAIL <n>".
"""

import micropython
from shutbox.dice import Dice


class Dry(Exception):
    """The scripted source has handed out every byte."""


class OneOfEach:
    """urandom-like: every byte value once, in the order (i * step + start) % 256, then Dry."""

    def __init__(self, step, start):
        self.order = bytes([(i * step + start) % 256 for i in range(256)])
        self.i = 0

    def __call__(self, n):
        if self.i >= 256:
            raise Dry()
        out = self.order[self.i : self.i + n]  # the last draw may be short
        self.i += len(out)
        return out


def main():
    """Run every case and the heap-lock check."""
    cases = fails = 0
    for pool in (1, 5, 32, 256):
        for step, start in ((1, 0), (255, 255), (101, 7), (37, 252)):
            cases += 1
            dice = Dice(OneOfEach(step, start), pool)
            faces = [0] * 7
            try:
                while True:
                    faces[dice.roll()] += 1
            except Dry:
                pass
            if faces[1:] != [42] * 6 or dice.rejected != 4:
                fails += 1
                print("FAIL pool", pool, "order", step, start, faces[1:], dice.rejected)
    # No allocation per throw: a source that hands back one prebuilt pool of good bytes.
    good = bytes([(i * 5) % 252 for i in range(32)])
    dice = Dice(lambda n: good)
    dice.roll()
    cases += 1
    micropython.heap_lock()
    try:
        for _ in range(1000):
            dice.roll()
        locked_ok = True
    except MemoryError:
        locked_ok = False
    micropython.heap_unlock()
    if not locked_ok:
        fails += 1
        print("FAIL roll() allocates")
    print("CASES %d FAIL %d" % (cases, fails))


main()
