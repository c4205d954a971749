# The exact solver: seed 001's solved-game figures, an independent brute-force check, the CLI.
"""Solver tests: published figures, a naive recursive solver on small boxes, `shutbox solve`."""

from __future__ import annotations

import json
from fractions import Fraction
from functools import cache

import engine_reference as ref
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shutbox import variants as V
from shutbox_host import cli
from shutbox_host.solve import solver
from shutbox_host.solve.solver import Variant

NEVER = Variant(one_die=V.ONE_DIE_NEVER)


# ----- seed 001's figures (standard box: 9 tiles, two dice, any set, sum) -----

def test_optimal_expected_score_11_16():
    r = solver.solve(NEVER, "min-expected")
    assert round(float(r.expected_score), 2) == 11.16
    assert sum(r.distribution.values()) == 1


def test_best_chance_of_shutting_7_14_percent():
    best = solver.solve(NEVER, "max-shut")
    assert round(100 * float(best.p_shut), 2) == 7.14
    # min-expected play shuts the box less often than play that aims for it
    assert solver.solve(NEVER, "min-expected").p_shut < best.p_shut


def test_one_die_after_7_8_9_gives_11_01():
    r = solver.solve(Variant(one_die=V.ONE_DIE_HIGH_SHUT), "min-expected")
    assert round(float(r.expected_score), 2) == 11.01


def test_rule_of_thumb_gives_11_37():
    r = solver.solve(NEVER, policy="greedy")
    assert round(float(r.expected_score), 2) == 11.37


def test_random_play_about_20_4():
    r = solver.solve(NEVER, policy="random")
    assert round(float(r.expected_score), 1) == 20.4


def test_about_half_of_perfect_rounds_end_on_10_or_less():
    r = solver.solve(NEVER, "min-expected")
    assert abs(float(r.p_at_most(10)) - 0.5) < 0.05


def test_beat_target_maximises_the_chance():
    """beat-target beats every other way of playing at P(score < T)."""
    for target in (1, 5, 10, 15):
        best = solver.solve(NEVER, "beat-target", target=target)
        assert best.p_beat_target == best.p_at_most(target - 1)
        for other in (solver.solve(NEVER, "min-expected"), solver.solve(NEVER, "max-shut"),
                      solver.solve(NEVER, policy="greedy")):
            assert best.p_beat_target >= other.p_at_most(target - 1)
    assert solver.solve(NEVER, "beat-target", target=1).p_beat_target == \
        solver.solve(NEVER, "max-shut").p_shut


# ----- an independent, naive solver on small boxes -----

def naive(var: Variant, objective: str, target: int | None = None):
    """(expected, p_success) of optimal play, by plain recursion over subset-search moves."""
    success = (lambda sc: sc == 0) if objective == "max-shut" else (
        (lambda sc: sc < target) if objective == "beat-target" else (lambda sc: False))

    def key(v):  # lower is better
        e, p = v
        return (e,) if objective == "min-expected" else (-p, e)

    @cache
    def value(s, locked):
        if s == 0:
            return (Fraction(0), Fraction(int(success(0))))
        options = []  # (one_die, next_locked)
        allowed = ref.one_die_allowed(s, var.one_die)
        if not allowed:
            options = [(False, locked)]
        elif var.one_die_mode == V.MODE_FORCED or (var.one_die_mode == V.MODE_LOCKED
                                                    and locked):
            options = [(True, locked)]
        else:
            options = [(False, 0), (True, 1 if var.one_die_mode == V.MODE_LOCKED else 0)]
        best = None
        for one_die, nxt in options:
            throws = [(a, 0) for a in range(1, 7)] if one_die else [
                (a, b) for a in range(1, 7) for b in range(1, 7)]
            e = p = Fraction(0)
            for a, b in throws:
                moves = ref.legal(s, var.moves, a, b)
                if moves:
                    v = min((value(s & ~m, nxt) for m in moves), key=key)
                else:
                    sc = ref.score(s, var.scoring)
                    v = (Fraction(sc), Fraction(int(success(sc))))
                e += v[0] / len(throws)
                p += v[1] / len(throws)
            if best is None or key((e, p)) < key(best):
                best = (e, p)
        return best

    return value(ref.start_open(var.tiles, var.start), 0)


variants_st = st.builds(
    Variant,
    tiles=st.integers(2, 6),
    one_die=st.integers(0, len(V.ONE_DIE) - 1),
    one_die_mode=st.integers(0, len(V.ONE_DIE_MODE) - 1),
    moves=st.integers(0, len(V.MOVES) - 1),
    scoring=st.integers(0, len(V.SCORING) - 1),
    start=st.integers(0, len(V.START) - 1),
)


@settings(max_examples=40, deadline=None)
@given(variants_st, st.sampled_from(solver.OBJECTIVES), st.integers(1, 12))
def test_solver_matches_naive_recursion(var, objective, target):
    target = target if objective == "beat-target" else None
    got = solver.solve(var, objective, target=target)
    e, p = naive(var, objective, target)
    assert got.expected_score == e
    assert sum(got.distribution.values()) == 1
    if objective == "max-shut":
        assert got.p_shut == p
    if objective == "beat-target":
        assert got.p_beat_target == p


@settings(max_examples=25, deadline=None)
@given(variants_st)
def test_optimal_beats_greedy_beats_nothing_random(var):
    opt = solver.solve(var, "min-expected").expected_score
    greedy = solver.solve(var, policy="greedy").expected_score
    rnd = solver.solve(var, policy="random").expected_score
    assert opt <= greedy and opt <= rnd


def test_values_are_exact_and_locked_layer_is_forced():
    """solve_values: G = E * 36**N; the locked layer equals the forced mode's values."""
    locked = solver.solve_values(Variant(one_die_mode=V.MODE_LOCKED))
    forced = solver.solve_values(Variant(one_die_mode=V.MODE_FORCED))
    assert locked.keys[1] == forced.keys[0]
    assert locked.expected(0x1FF) == solver.solve(
        Variant(one_die_mode=V.MODE_LOCKED), "min-expected").expected_score


# ----- the command line -----

def test_cli_json(capsys):
    assert cli.main(["solve", "--one-die", "never", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert round(out["expected_score"], 2) == 11.16
    assert Fraction(out["expected_score_exact"]) == solver.solve(
        NEVER, "min-expected").expected_score
    assert abs(sum(out["distribution"].values()) - 1) < 1e-6
    assert cli.main(["solve", "--one-die", "never", "--objective", "beat-target", "--target",
                     "10", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert 0 < out["p_beat_target"] < 1 and out["target"] == 10


def test_cli_text(capsys):
    assert cli.main(["solve", "--tiles", "4", "--policy", "random", "--moves", "kids"]) == 0
    assert "expected score" in capsys.readouterr().out


def test_cli_beat_target_needs_a_target(capsys):
    assert cli.main(["solve", "--objective", "beat-target"]) == 2
    err = capsys.readouterr().err
    assert "--target" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("argv", [["--tiles", "13"], ["--moves", "all"],
                                  ["--policy", "greedy", "--objective", "max-shut"]])
def test_cli_bad_flags_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["solve", *argv])
    assert exc.value.code == 2
    assert "error:" in capsys.readouterr().err


# ----- the integer beat-target solver the hint tables are built from -----

def same_as_fraction_solver(var: Variant, target: int) -> None:
    """solve_target_values (ints) equals objective_values (Fractions) on every state."""
    tv = solver.solve_target_values(var, target)
    ref = solver.objective_values(var, "beat-target", target)
    cands = [solver.candidate_masks(var.moves, a, b) for a, b in ref_throws()]
    for lk in range(var.locked_layers):
        for s in range(1 << var.tiles):
            assert (tv.p_beat(s, lk), tv.expected(s, lk)) == (-ref.keys[lk][s][0],
                                                               ref.keys[lk][s][1]), (s, lk)
            assert tv.one_die_best[lk][s] == ref.one_die_best[lk][s]
            for cs in cands:
                assert tv.choice(lk, s, cs) == ref.choice(lk, s, False, cs)


def ref_throws():
    return [(a, b) for a in range(1, 7) for b in range(0, 7)]


@pytest.mark.parametrize("var,targets", [
    (Variant(9), (1, 8, 15, 40)),
    (Variant(9, V.ONE_DIE_HIGH_SHUT, V.MODE_LOCKED, V.MOVES_ANY, V.SCORING_COUNT), (1, 4, 7)),
    (Variant(9, V.ONE_DIE_SUM_LT_6, V.MODE_FORCED, V.MOVES_KIDS, V.SCORING_DIGITAL),
     (100, 5000)),
])
def test_integer_beat_target_solver_nine_tiles(var, targets):
    for target in targets:
        same_as_fraction_solver(var, target)


@settings(max_examples=30, deadline=None)
@given(variants_st, st.integers(-1, 25))
def test_integer_beat_target_solver_small_boxes(var, target):
    same_as_fraction_solver(var, target)
