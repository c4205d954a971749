# Engine test vectors under the real micropython: the same checks as on CPython, from a file.
"""Run under micropython: engine_vectors.py VECTORS.jsonl [TABLES_DIR].

The file holds, one JSON value a line, a rules line ``{"rules": [tiles, one_die, mode, moves,
scoring, start], "table": bool}`` followed by case lines ``[open, a, b, locked, legal,
greedy, best, has_move, score, allowed, choose, expected]`` computed on the host from the
brute-force reference and the exact solver. Lines are read one at a time (the heap is
capped). Prints each mismatch and "VECTORS <n> FAIL <n>"; exits 1 on any failure.
"""

import gc
import json
import sys
from array import array

from shutbox.engine import MAX_MOVES, Engine, Rules

tables_dir = sys.argv[2] if len(sys.argv) > 2 else None
buf = array("H", [0] * MAX_MOVES)
vectors = 0
failures = 0
eng = None


def check(eng, case):
    """Return a list of (name, got, want) that differ."""
    open_, a, b, locked, legal, greedy, best, has_move, score, allowed, choose, expected = case
    bad = []
    n = eng.legal_into(open_, a, b, buf)
    got = sorted(buf[i] for i in range(n))
    if got != legal:
        bad.append(("legal", got, legal))
    for name, value, want in (
        ("greedy", eng.greedy_move(open_, a, b), greedy),
        ("best", eng.best_move(open_, a, b, locked), best),
        ("has_move", eng.greedy_move(open_, a, b) != 0, has_move),
        ("score", eng.score(open_), score),
        ("allowed", eng.one_die_allowed(open_), allowed),
        ("choose", eng.choose_one_die(open_, locked), choose),
        ("expected", eng.expected(open_, locked), expected),
    ):
        if value != want:
            bad.append((name, value, want))
    for m in legal:
        if not eng.is_legal(open_, a, b, m):
            bad.append(("is_legal", m, True))
    return bad


with open(sys.argv[1]) as f:
    while True:
        line = f.readline()
        if not line:
            break
        item = json.loads(line)
        if isinstance(item, dict):
            eng = None
            gc.collect()
            eng = Engine(Rules(*item["rules"]), tables_dir)
            if eng.has_table != item["table"]:
                failures += 1
                print("FAIL", item["rules"], "has_table", eng.has_table)
            continue
        vectors += 1
        for name, got, want in check(eng, item):
            failures += 1
            print("FAIL", eng.rules, item[:4], name, got, want)

print("VECTORS", vectors, "FAIL", failures)
sys.exit(1 if failures or not vectors else 0)
