# A seeded random source for the scripts in tests/mp (MicroPython's random has no instances).
"""Rng(seed).randrange(a, b), a small LCG: the same draws from a seed wherever it runs;
shared by ahead_aged.py and ahead_reset.py, run under micropython with tests/mp on the
path."""


class Rng:
    """A small LCG (MicroPython's random has no instances)."""

    def __init__(self, seed):
        self.x = seed

    def randrange(self, a, b):
        self.x = (self.x * 1103515245 + 12345) & 0x7FFFFFFF
        return a + (self.x >> 8) % (b - a)
