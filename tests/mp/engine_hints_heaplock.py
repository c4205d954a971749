# Proof under the real micropython that hints, analysis and computer moves allocate nothing.
"""Run under micropython: engine_hints_heaplock.py TURNS TABLES_DIR SPEC...

Each SPEC is "tiles,one_die,mode,moves,scoring,start/target". For each, the engine is built
and set_target(target) loads the target's block (both allocate); then TURNS whole turns run
between micropython.heap_lock() and heap_unlock(), every throw calling
choose_one_die_target, p_beat, best_move_target, move_loss (of the best and of a random
move), one_die_loss (of the easy level's dice), the easy level's random move (legal_into),
greedy_move and computer_one_die for every level. Any allocation raises MemoryError.
Prints per spec "<spec> hints|fallback throws <n> losses <n>" then "OK", or "ALLOC <spec>"
and exits 1.
"""

import gc
import sys
from array import array

import micropython
from shutbox.engine import LEVEL_EASY, LEVEL_HARD, LEVEL_MEDIUM, MAX_MOVES, Engine, Rules


def turns(eng, out, count, seed):
    """Play *count* turns with beat-target moves; out[0] = throws (-1: a bad answer),
    out[1] = suboptimal choices seen (move_loss or one_die_loss > 0)."""
    x = seed
    want = 0 if eng.has_table else -1  # move_loss of the best move
    throws = 0
    losses = 0
    for _ in range(count):
        open_ = eng.start_open
        locked = False
        while open_:
            one = eng.choose_one_die_target(open_, locked)
            x = (x * 75 + 74) % 65537
            if eng.one_die_loss(open_, eng.computer_one_die(LEVEL_EASY, open_, locked, x),
                                locked) > 0:
                losses += 1
            eng.computer_one_die(LEVEL_EASY, open_, locked, x)
            eng.computer_one_die(LEVEL_MEDIUM, open_, locked, x)
            eng.computer_one_die(LEVEL_HARD, open_, locked, x)
            p = eng.p_beat(open_, locked)
            if p < -1 or p > 10000:
                out[0] = -1
                return
            x = (x * 75 + 74) % 65537
            a = x % 6 + 1
            b = 0
            if one:
                locked = True
            else:
                x = (x * 75 + 74) % 65537
                b = x % 6 + 1
            throws += 1
            m = eng.best_move_target(open_, a, b, locked)
            if m == 0:
                break
            r = buf[x % eng.legal_into(open_, a, b, buf)]  # the easy level's move (m: n > 0)
            if not eng.is_legal(open_, a, b, r) or eng.move_loss(
                    open_, a, b, eng.best_move(open_, a, b, locked), locked) != want:
                out[0] = -1
                return
            if eng.move_loss(open_, a, b, r, locked) > 0:
                losses += 1
            eng.greedy_move(open_, a, b)
            open_ = open_ & ~m
    out[0] = throws
    out[1] = losses


count = int(sys.argv[1])
tables_dir = sys.argv[2]
out = [0, 0]
buf = array("H", [0] * MAX_MOVES)
eng = None
for spec in sys.argv[3:]:
    rules_s, target_s = spec.split("/")
    eng = None
    gc.collect()  # the largest tables want one free stretch of heap
    eng = Engine(Rules(*[int(v) for v in rules_s.split(",")]), tables_dir)
    exact = eng.set_target(int(target_s))
    turns(eng, out, 1, 7)  # warm up outside the lock
    micropython.heap_lock()
    try:
        turns(eng, out, count, 7)
    except MemoryError:
        micropython.heap_unlock()
        print("ALLOC", spec)
        sys.exit(1)
    micropython.heap_unlock()
    if out[0] < 0:
        print("BAD", spec)
        sys.exit(1)
    print(spec, "hints" if exact else "fallback", "throws", out[0], "losses", out[1])
print("OK")
