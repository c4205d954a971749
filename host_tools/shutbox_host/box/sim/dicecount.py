# Dice counts for the fairness tests: the same code under CPython and under micropython.
"""Throw two dice many times and count what the fairness tests need; a seeded byte stream;
the throws of challenge codes (CodeThrows).

Imported as ``shutbox_host.box.sim.dicecount`` on the host (shutbox_host.bench.reliability) and
as ``dicecount`` under micropython (tests/mp/dice_throws.py; this folder is on MICROPYPATH),
so both interpreters count the same throws the same way and must print the same numbers.
"""

import hashlib


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
                self.block = hashlib.sha256(self.seed + self.ctr.to_bytes(8, "little")).digest()
                self.ctr += 1
                self.i = 0
            out[k] = self.block[self.i]
            self.i += 1
        return bytes(out)


class _Turn:
    """What shutbox.challenge.Challenge.seek reads of a game (round 1, no tie-break)."""

    def __init__(self):
        self.match = self
        self.round = 1
        self.tiebreak = 0
        self.player = 0
        self.throws = 0


class CodeThrows:
    """Dice-like (``roll``, ``rejected``) over challenge codes, as the box throws them: for
    each code from *first* on, each seat 0..3, throws 0..12 of its turn in round 1, each
    positioned by Challenge.seek as the game does before a throw; two rolls a throw."""

    def __init__(self, first=0, key=25):
        from shutbox.challenge import Challenge

        self.challenge = Challenge
        self.key = key  # the variant's (25: nine tiles and the default rules)
        self.code = first - 1
        self.k = 52  # the throw within the code (4 seats x 13 throws)
        self.half = 0
        self.turn = _Turn()
        self.dice = None
        self.done = 0  # bytes rejected by the codes before this one

    @property
    def rejected(self):
        return self.done + (self.dice.rejected if self.dice is not None else 0)

    def roll(self):
        """The next face: die A of the next throw, or its die B."""
        if not self.half:
            if self.k == 52:
                if self.dice is not None:
                    self.done += self.dice.rejected
                self.code = (self.code + 1) % 10000
                self.dice = self.challenge(self.code, self.key)
                self.k = 0
            self.turn.player = self.k // 13
            self.turn.throws = self.k % 13
            self.dice.seek(self.turn)
            self.k += 1
        self.half ^= 1
        return self.dice.roll()


def throw_counts(dice, n):
    """Throw *dice* twice per turn *n* times; return the counts by name: FACES_A, FACES_B
    (faces 1-6), TOTALS (2-12), PAIRS (36, a then b), RUNS (above, below, runs: the
    Wald-Wolfowitz test on totals against the median 7, 7s left out) and REJECTED."""
    fa, fb, totals, pairs = [0] * 6, [0] * 6, [0] * 11, [0] * 36
    above = below = runs = side = 0
    for _ in range(n):
        a = dice.roll()
        b = dice.roll()
        fa[a - 1] += 1
        fb[b - 1] += 1
        t = a + b
        totals[t - 2] += 1
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
    return {"FACES_A": fa, "FACES_B": fb, "TOTALS": totals, "PAIRS": pairs,
            "RUNS": [above, below, runs], "REJECTED": [dice.rejected]}
