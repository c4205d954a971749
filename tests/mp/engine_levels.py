# The computer levels under the real micropython: many simulated turns, their final scores.
"""Run under micropython: engine_levels.py RULES LEVEL TURNS SEED [TABLES_DIR]

RULES is "tiles,one_die,mode,moves,scoring,start"; LEVEL 1 easy, 2 medium, 3 hard. Each turn
starts from the variant's start mask; before every throw the level picks one or two dice
(computer_one_die), the real shutbox.dice.Dice throws them from a seeded xorshift32 byte
source, and the level picks the move (easy a random legal move, buf[r % n] after legal_into
as the box's computer does; medium greedy_move, hard best_move) until a throw cannot be
played. The random ints the easy level needs come from the same source. Prints
"LEVEL <l> TURNS <n> SUM <sum of scores> SUMSQ <sum of squared scores> HIST <s:n,...>".
"""

import sys
from array import array

from shutbox.dice import Dice
from shutbox.engine import LEVEL_EASY, LEVEL_MEDIUM, MAX_MOVES, Engine, Rules


class Source:
    """A seeded xorshift32: random ints and an os.urandom-like byte source for Dice."""

    def __init__(self, seed):
        self.x = seed & 0xFFFFFFFF or 1
        self.buf = bytearray(32)

    def next(self):
        x = self.x
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        self.x = x
        return x

    def urandom(self, n):
        buf = self.buf if n == 32 else bytearray(n)
        for i in range(0, n, 4):
            v = self.next()
            for k in range(min(4, n - i)):
                buf[i + k] = v >> (8 * k) & 255
        return buf


def main():
    rules = Rules(*[int(v) for v in sys.argv[1].split(",")])
    level = int(sys.argv[2])
    turns = int(sys.argv[3])
    src = Source(int(sys.argv[4]))
    eng = Engine(rules, sys.argv[5] if len(sys.argv) > 5 else None)
    dice = Dice(src.urandom)
    buf = array("H", [0] * MAX_MOVES)
    total = 0
    squares = 0
    hist = {}
    for _ in range(turns):
        open_ = eng.start_open
        locked = False
        while open_:
            one = eng.computer_one_die(level, open_, locked, src.next())
            a = dice.roll()
            b = 0
            if one:
                locked = True
            else:
                b = dice.roll()
            if level == LEVEL_EASY:
                n = eng.legal_into(open_, a, b, buf)
                m = buf[src.next() % n] if n else 0
            elif level == LEVEL_MEDIUM:
                m = eng.greedy_move(open_, a, b)
            else:
                m = eng.best_move(open_, a, b, locked)
            if m == 0:
                break
            open_ &= ~m
        sc = eng.score(open_)
        total += sc
        squares += sc * sc
        hist[sc] = hist.get(sc, 0) + 1
    print("LEVEL", level, "TURNS", turns, "SUM", total, "SUMSQ", squares, "HIST",
          ",".join("%d:%d" % (k, hist[k]) for k in sorted(hist)))


main()
