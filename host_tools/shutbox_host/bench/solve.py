# `shutbox bench --only solve`: the exact solver against a plain memoised DP; the CLI's start.
"""Figures of the exact solver on CPython, side by side in one run (never asserted in tests).

- solve_ms_9: one ``solver.solve(Variant(9))``: the default nine-tile box (one die once 7, 8
  and 9 are shut, optional), optimal play for the lowest expected score, with its exact
  final-score distribution (a Result of Fractions). Best of SOLVE_RUNS runs in this process
  (after five to warm up): the rules as data (slots, scores, one-die flags: solver._rows,
  _scores, _allowed) are built by the first run and kept, as a process keeps them; every
  run solves all the values and pushes the distribution again. solve_ms_9_cold: the same
  solve as the first thing a fresh interpreter does after importing the solver (the rules
  built too; best of COLD_RUNS processes).
- naive_solve_ms_9: ``naive_solve`` below, the reference: a plain memoised (functools.cache)
  DP of the same game with its exact distribution in Fractions, written the obvious way
  (best of NAIVE_RUNS; its cache is new for each run, as it is part of the algorithm). The
  run checks that both give the same expectation and the same distribution before timing.
  The two are timed in alternation (SOLVE_RUNS / NAIVE_RUNS solves, then one naive run, five
  times), in wall-clock time and in this process's CPU time (*_cpu_ms_9).
  solve_vs_naive_ratio = naive_solve_cpu_ms_9 / solve_cpu_ms_9: CPU time, because on a
  machine shared with other jobs a long run is interrupted in proportion to its length and a
  short one can be timed between interruptions (on an idle machine wall and CPU agree).
  solve_cold_vs_naive_ratio: naive_solve_ms_9 / solve_ms_9_cold (wall).
- solve_ms: the same warm figure for representative variants and objectives (12 tiles too).
- cli_help_s, cli_solve_s, python_start_s: wall seconds of ``shutbox --help``, of a default
  ``shutbox solve`` (start-up, solve and print) and of a bare ``python -c pass``, each a
  fresh process of this interpreter, best of CLI_RUNS.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from fractions import Fraction
from functools import cache
from itertools import combinations
from pathlib import Path

from shutbox import variants as V
from shutbox_host import mp
from shutbox_host.solve import solver

SOLVE_RUNS = 100
COLD_RUNS = 5
NAIVE_RUNS = 5
FLOAT_RUNS = 4  # float DP calls a round (NAIVE_RUNS rounds)
CLI_RUNS = 7


def naive_solve(tiles: int = 9, one_die: bool = True):
    """Plain memoised DP: (expected final score, {score: probability}) of min-expected play
    from the full box; one die may be thrown once every tile of 7 and up is shut."""
    two = [(t, Fraction(6 - abs(t - 7), 36)) for t in range(2, 13)]
    one = [(t, Fraction(1, 6)) for t in range(1, 7)]

    @cache
    def value(open_):
        if not open_:
            return Fraction(0), {0: Fraction(1)}
        end = (Fraction(sum(open_)), {sum(open_): Fraction(1)})
        best = None
        for throws in ([two, one] if one_die and max(open_) <= 6 else [two]):
            e, dist = Fraction(0), {}
            for total, p in throws:
                nexts = [value(tuple(t for t in open_ if t not in c))
                         for r in range(1, len(open_) + 1)
                         for c in combinations(open_, r) if sum(c) == total]
                ne, nd = min(nexts, key=lambda v: v[0]) if nexts else end
                e += p * ne
                for sc, q in nd.items():
                    dist[sc] = dist.get(sc, 0) + p * q
            if best is None or e < best[0]:
                best = (e, dist)
        return best

    return value(tuple(range(1, tiles + 1)))


def float_solve(tiles: int = 9, one_die: bool = True) -> float:
    """The plain float DP: the lowest expected final score from the full box (one die may be
    thrown once every tile of 7 and up is shut), over bitmasks in increasing order, each
    state's moves found by walking its submasks."""
    two = [(t, (6 - abs(t - 7)) / 36) for t in range(2, 13)]
    one = [(t, 1 / 6) for t in range(1, 7)]
    size = 1 << tiles
    sums = [0] * size
    for m in range(1, size):
        low = m & -m
        sums[m] = sums[m ^ low] + low.bit_length()
    high = ((1 << tiles) - 1) & ~63  # tiles 7 and up
    e = [0.0] * size
    for s in range(1, size):
        best_after = {}  # total -> the lowest expectation a move of that total leaves
        sub = s
        while sub:
            t, after = sums[sub], e[s ^ sub]
            if after < best_after.get(t, 1e9):
                best_after[t] = after
            sub = (sub - 1) & s
        best = None
        for throws in ([two, one] if one_die and not s & high else [two]):
            v = sum(p * best_after.get(t, sums[s]) for t, p in throws)
            if best is None or v < best:
                best = v
        e[s] = best
    return e[size - 1]


def best_ms(fn, runs: int) -> float:
    """The fastest of *runs* calls of fn(), in wall-clock milliseconds."""
    best = float("inf")
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best * 1000


def side_by_side(fast, slow, rounds: int, fast_runs: int, others: dict | None = None) -> dict:
    """Best wall-clock and process-CPU milliseconds of *fast* and *slow* (and of each of
    *others*, name -> (fn, calls a round)), measured in alternation: *rounds* times,
    *fast_runs* calls of fast, one of slow, then the others'."""
    runs = [("fast", fast, fast_runs), ("slow", slow, 1)]
    runs += [(name, fn, n) for name, (fn, n) in (others or {}).items()]
    best = {name: [float("inf")] * 2 for name, _fn, _n in runs}
    for _ in range(rounds):
        for name, fn, n in runs:
            for _ in range(n):
                w0, c0 = time.perf_counter(), time.process_time()
                fn()
                c1, w1 = time.process_time(), time.perf_counter()
                best[name] = [min(best[name][0], w1 - w0), min(best[name][1], c1 - c0)]
    return {k: [v * 1000 for v in pair] for k, pair in best.items()}


_COLD = """
import time
from shutbox_host.solve import solver
var = solver.Variant(9)
t0 = time.perf_counter()
solver.solve(var)
print(time.perf_counter() - t0)
"""


def cold_ms() -> float:
    """The first solve in a fresh interpreter (after the import), best of COLD_RUNS."""
    best = float("inf")
    for _ in range(COLD_RUNS):
        out = subprocess.run([sys.executable, "-c", _COLD], capture_output=True, text=True,
                             check=True, **mp.tied()).stdout
        best = min(best, float(out))
    return best * 1000


def wall_s(argv: list[str]) -> float:
    """Wall seconds of a fresh process running *argv*, best of CLI_RUNS."""
    best = float("inf")
    for _ in range(CLI_RUNS):
        t0 = time.perf_counter()
        subprocess.run(argv, capture_output=True, check=True, **mp.tied())
        best = min(best, time.perf_counter() - t0)
    return best


def shutbox_argv() -> list[str]:
    """The `shutbox` console script beside this interpreter, else the module."""
    script = Path(sys.executable).with_name("shutbox")
    return [str(script)] if script.exists() else [sys.executable, "-m", "shutbox_host.cli"]


SOLVE_CASES = (
    (solver.Variant(9, V.ONE_DIE_NEVER), "min-expected", None),
    (solver.Variant(9), "max-shut", None),
    (solver.Variant(9), "beat-target", 10),
    (solver.Variant(9, V.ONE_DIE_HIGH_SHUT, V.MODE_LOCKED, V.MOVES_KIDS, V.SCORING_DIGITAL),
     "min-expected", None),
    (solver.Variant(10, V.ONE_DIE_SUM_LE_6), "min-expected", None),
    (solver.Variant(12), "min-expected", None),
    (solver.Variant(12, V.ONE_DIE_HIGH_SHUT, V.MODE_LOCKED), "min-expected", None),
    (solver.Variant(9), "max-expected", None),
    (solver.Variant(9, V.ONE_DIE_SUM_LE_6, V.MODE_FORCED, max_tiles=2), "max-shut", None),
)


def figures(soak=False) -> dict:
    """Every solver figure (see the module docstring)."""
    var = solver.Variant(9)
    fast = solver.solve(var)
    e, dist = naive_solve(9)
    if (e, dict(sorted(dist.items()))) != (fast.expected_score, fast.distribution):
        raise RuntimeError("the solver and the naive DP disagree on the nine-tile game")
    if abs(float_solve(9) - float(fast.expected_score)) > 1e-12:
        raise RuntimeError("the solver and the float DP disagree on the nine-tile game")
    for _ in range(5):  # warm up (the allocator, the caches)
        solver.solve(var)
    times = side_by_side(lambda: solver.solve(var), naive_solve, NAIVE_RUNS,
                         SOLVE_RUNS // NAIVE_RUNS, {"float": (float_solve, FLOAT_RUNS)})
    (solve_ms, solve_cpu), (naive_ms, naive_cpu) = times["fast"], times["slow"]
    float_ms, float_cpu = times["float"]
    cold = cold_ms()
    per_case = {}
    for case, objective, target in SOLVE_CASES:
        solver.solve(case, objective, target)
        label = case.label() + " " + objective + ("" if target is None else " %d" % target)
        runs = 5 if case.tiles > 10 else 30
        per_case[label] = round(best_ms(lambda c=case, o=objective, t=target:
                                        solver.solve(c, o, t), runs), 2)
    cli = shutbox_argv()
    return {
        "solve_ms_9": round(solve_ms, 3),
        "solve_cpu_ms_9": round(solve_cpu, 3),
        "solve_ms_9_cold": round(cold, 2),
        "naive_solve_ms_9": round(naive_ms, 1),
        "naive_solve_cpu_ms_9": round(naive_cpu, 1),
        "solve_vs_naive_ratio": round(naive_cpu / solve_cpu, 1),
        "solve_cold_vs_naive_ratio": round(naive_ms / cold, 1),
        "float_solve_ms_9": round(float_ms, 2),
        "float_solve_cpu_ms_9": round(float_cpu, 2),
        "solve_vs_float_ratio": round(float_cpu / solve_cpu, 1),
        "solve_cold_vs_float_ratio": round(float_ms / cold, 1),
        "solve_ms": per_case,
        "cli_help_s": round(wall_s(cli + ["--help"]), 3),
        "cli_solve_s": round(wall_s(cli + ["solve"]), 3),
        "python_start_s": round(wall_s([sys.executable, "-c", "pass"]), 3),
    }


if __name__ == "__main__":
    print(json.dumps(figures(), indent=1, sort_keys=True))
