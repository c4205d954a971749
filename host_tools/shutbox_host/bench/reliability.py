# Reliability figures: fair dice, power cuts during saves, fuzzing, the soak and flash wear.
"""`shutbox bench` part: dice fairness p-values, the store's power-cut sweep, and the long runs.

The dice figures come from the firmware's own ``shutbox.dice.Dice`` drawing from
``os.urandom``, thrown under the real micropython (tests/mp/dice_throws.py); the p-values are
computed here in pure Python (no scipy): the chi-square survival function through the
regularized incomplete gamma function, and the Wald-Wolfowitz runs test through erfc.
The power-cut figures come from tests/mp/store_powercut.py on MicroPython's VfsLfs2.
``long_runs``: the stateful fuzzer (fuzz_*: examples, steps, physical events, log records
checked), the soak (soak_*: games in a capped heap, the live heap after the first and the
last game, gc_pause_*), flash wear of saving the game in progress (flash_*) and the heap the
reliability modules take (heap_*); see tests/reliability/fuzzbox.py and soak.py.
"""

from __future__ import annotations

import math
import os
import time

from shutbox_host import mp
from shutbox_host.box.sim.dicecount import throw_counts  # also run by micropython

MP_DIR = mp.ROOT / "tests" / "mp"
TOTAL_WAYS = (1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1)  # ways to throw 2..12 with two dice, of 36


# --- statistics, pure Python -------------------------------------------------------------


def _gamma_p_series(a: float, x: float) -> float:
    """Regularized lower incomplete gamma P(a, x) by its series (good for x < a + 1)."""
    term = total = 1.0 / a
    ap = a
    for _ in range(10000):
        ap += 1.0
        term *= x / ap
        total += term
        if abs(term) < abs(total) * 1e-16:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _gamma_q_fraction(a: float, x: float) -> float:
    """Regularized upper incomplete gamma Q(a, x) by Lentz's continued fraction (x >= a + 1)."""
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 10000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        step = d * c
        h *= step
        if abs(step - 1.0) < 1e-16:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h


def chi2_sf(x: float, df: int) -> float:
    """Return P(X >= x) for a chi-square variable X with *df* degrees of freedom."""
    if x <= 0:
        return 1.0
    a, half = df / 2.0, x / 2.0
    if half < a + 1.0:
        return max(0.0, 1.0 - _gamma_p_series(a, half))
    return _gamma_q_fraction(a, half)


def chi2_gof(counts, weights) -> tuple[float, int, float]:
    """Chi-square goodness of fit of *counts* to *weights* (any scale): (statistic, df, p)."""
    n = sum(counts)
    w = sum(weights)
    stat = sum((c - n * p / w) ** 2 / (n * p / w) for c, p in zip(counts, weights, strict=True))
    df = len(counts) - 1
    return stat, df, chi2_sf(stat, df)


def runs_p(above: int, below: int, runs: int) -> float:
    """Two-sided p of the Wald-Wolfowitz runs test (normal approximation, erfc)."""
    n = above + below
    mean = 2.0 * above * below / n + 1.0
    var = 2.0 * above * below * (2.0 * above * below - n) / (n * n * (n - 1))
    z = (runs - mean) / math.sqrt(var)
    return math.erfc(abs(z) / math.sqrt(2.0))


# --- throwing dice ----------------------------------------------------------------------


def parse_counts(stdout: str) -> dict:
    """Parse dice_throws.py's output into the dict throw_counts returns (plus MS)."""
    out = {}
    for line in stdout.splitlines():
        words = line.split()
        if words:
            out[words[0]] = [int(w) for w in words[1:]]
    return out


def p_values(counts: dict) -> dict:
    """Return the fairness p-values of a set of counts."""
    return {
        "die_a": chi2_gof(counts["FACES_A"], [1] * 6)[2],
        "die_b": chi2_gof(counts["FACES_B"], [1] * 6)[2],
        "total": chi2_gof(counts["TOTALS"], TOTAL_WAYS)[2],
        "pairs": chi2_gof(counts["PAIRS"], [1] * 36)[2],
        "runs": runs_p(*counts["RUNS"]),
    }


def mp_throws(n: int, source: str = "os", timeout: float = 3600) -> dict:
    """Throw *n* times under the real micropython; return the parsed counts."""
    r = mp.run(MP_DIR / "dice_throws.py", str(n), source, extra_path=[MP_DIR], timeout=timeout)
    if r.returncode != 0 or "FACES_A" not in r.stdout:
        raise RuntimeError("dice_throws.py failed: " + (r.stderr or r.stdout)[-500:])
    counts = parse_counts(r.stdout)
    if sum(counts["FACES_A"]) != n or sum(counts["TOTALS"]) != n:
        got = sum(counts["FACES_A"])
        raise RuntimeError("dice_throws.py counted %d throws, not %d" % (got, n))
    return counts


def powercut(rounds: int) -> dict:
    """Run the power-cut sweep for *rounds* rounds under micropython; return its summary."""
    r = mp.run(MP_DIR / "store_powercut.py", str(rounds), heapsize="2m",
               extra_path=[MP_DIR], timeout=3600)
    line = [x for x in r.stdout.splitlines() if x.startswith("CUTS ")]
    if r.returncode != 0 or not line:
        raise RuntimeError("store_powercut.py failed: " + (r.stderr or r.stdout)[-500:])
    words = line[-1].split()
    return {words[i]: int(words[i + 1]) for i in range(0, len(words), 2)}


def figures(soak: bool = False) -> dict:
    """Dice fairness and power-cut figures; the soak throws ten times more and cuts longer."""
    from shutbox.dice import Dice

    throws = 10_000_000 if soak else 1_000_000
    t0 = time.perf_counter()
    counts = mp_throws(throws)
    mp_seconds = time.perf_counter() - t0
    p = p_values(counts)
    host_throws = 200_000
    t0 = time.perf_counter()
    host = p_values(throw_counts(Dice(os.urandom), host_throws))
    host_seconds = time.perf_counter() - t0
    cut = powercut(200 if soak else 25)
    fig = {
        "dice_throws": throws,
        "dice_interpreter": "micropython (unix port), shutbox.dice.Dice over os.urandom",
        "dice_seconds": round(mp_seconds, 2),
        "dice_rejected_fraction": round(counts["REJECTED"][0] / (2 * throws), 5),
        "dice_cpython_throws": host_throws,
        "dice_cpython_seconds": round(host_seconds, 2),
        "dice_cpython_min_p": min(host.values()),
        "power_cut_points": cut["CUTS"],
        "power_cut_saves": cut["SAVES"],
        "power_cut_failures": cut["FAIL"],
        "power_cut_old_new": [cut["OLD"], cut["NEW"]],
        "power_cut_seconds": round(cut["MS"] / 1000, 2),
    }
    for key, value in p.items():
        fig["dice_runs_p" if key == "runs" else "dice_chi2_p_" + key] = value
    fig.update(long_runs(soak))
    return fig


def long_runs(soak: bool = False) -> dict:
    """Stateful fuzzing and the soak, from the machinery beside the tests (a checkout's
    tests/reliability/: fuzzbox.py, soak.py), and flash wear (soak)."""
    import sys

    for here in (str(mp.ROOT / "tests"), str(mp.ROOT / "tests" / "reliability")):
        if here not in sys.path:  # tests/: logschema, which the fuzzer checks records with
            sys.path.insert(0, here)
    import fuzzbox
    import soak as soaking

    fz = fuzzbox.run(1000 if soak else 40, 60 if soak else 40)
    fig = {
        "fuzz_examples": fz["examples"],
        "fuzz_steps": fz["steps"],
        "fuzz_events": fz["events"],
        "fuzz_pin_changes": fz["pin_changes"],
        "fuzz_power_cuts": fz["power_cuts"],
        "fuzz_records_checked": fz["records"],
        "fuzz_moves_checked": fz["moves"],
        "fuzz_scores_checked": fz["scores"],
        "fuzz_resumes": fz["resumes"],
        "fuzz_games_finished": fz["finished"],
        "fuzz_seconds": fz["seconds"],
    }
    fig.update(soaking.figures(soak))
    fig.update(soaking.module_heap())
    return fig
