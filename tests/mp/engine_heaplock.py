# Proof under the real micropython that the per-throw path of the engine allocates nothing.
"""Run under micropython: engine_heaplock.py TURNS TABLES_DIR RULES...

Each RULES argument is "tiles,one_die,mode,moves,scoring,start". For each variant the engine
is built first (that allocates), then TURNS whole turns run between micropython.heap_lock()
and heap_unlock(): choose_one_die, greedy_move (0: the turn is over), legal_into,
best_move, is_legal, applying the move (open_ & ~mask) and the final score. Any
allocation raises MemoryError.
Prints "TURNS <n> THROWS <n> OK" or "ALLOC <variant>" and exits 1.
"""

import sys
from array import array

import micropython
from shutbox.engine import MAX_MOVES, Engine, Rules


def turns(eng, buf, out, count, seed):
    """Play *count* turns with best moves and a small-int LCG for dice.

    out[0] = throws (-1: an illegal move came back), out[1] = total score. (Returning a
    tuple would allocate.)
    """
    x = seed
    throws = 0
    total = 0
    for _ in range(count):
        open_ = eng.start_open
        locked = False
        while open_:
            one = eng.choose_one_die(open_, locked)
            x = (x * 75 + 74) % 65537
            a = x % 6 + 1
            b = 0
            if one:
                locked = True
            else:
                x = (x * 75 + 74) % 65537
                b = x % 6 + 1
            throws += 1
            g = eng.greedy_move(open_, a, b)
            if g == 0:  # no move: the turn is over
                break
            n = eng.legal_into(open_, a, b, buf)
            m = eng.best_move(open_, a, b, locked)
            if n == 0 or not eng.is_legal(open_, a, b, m) or not eng.is_legal(open_, a, b, g):
                out[0] = -1
                return
            open_ = open_ & ~m
        total += eng.score(open_)
    out[0] = throws
    out[1] = total


count = int(sys.argv[1])
tables_dir = sys.argv[2]
buf = array("H", [0] * MAX_MOVES)
out = array("i", [0, 0])
all_throws = 0
for spec in sys.argv[3:]:
    rules = Rules(*[int(v) for v in spec.split(",")])
    eng = Engine(rules, tables_dir)
    turns(eng, buf, out, 1, 7)  # warm up outside the lock
    micropython.heap_lock()
    try:
        turns(eng, buf, out, count, 7)
    except MemoryError:
        micropython.heap_unlock()
        print("ALLOC", spec)
        sys.exit(1)
    micropython.heap_unlock()
    throws = out[0]
    total = out[1]
    if throws < 0:
        print("ILLEGAL", spec)
        sys.exit(1)
    all_throws += throws
    print(spec, "table" if eng.has_table else "greedy", "throws", throws, "score", total)
print("TURNS", count * (len(sys.argv) - 3), "THROWS", all_throws, "OK")
