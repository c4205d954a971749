# The solver's objectives (min-shut and ties half included) and Analysis against a brute force.
"""Every objective, every quantity, any position: the exact solver against a plain recursion
over tests/engine_reference.py's subset search; `shutbox solve`'s new flags and refusals."""

from __future__ import annotations

import json
from fractions import Fraction

import engine_reference as ref
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from solve_reference import Brute

from shutbox import variants as V
from shutbox_host import cli
from shutbox_host.solve import solver
from shutbox_host.solve.solver import Variant

variants_st = st.builds(
    Variant, tiles=st.integers(2, 6), one_die=st.integers(0, len(V.ONE_DIE) - 1),
    one_die_mode=st.integers(0, len(V.ONE_DIE_MODE) - 1),
    moves=st.integers(0, len(V.MOVES) - 1), scoring=st.integers(0, len(V.SCORING) - 1),
    start=st.integers(0, len(V.START) - 1))
cases_st = st.tuples(variants_st, st.sampled_from(solver.ALL_OBJECTIVES),
                     st.integers(1, 14), st.sampled_from(solver.TIES))


@settings(max_examples=60, deadline=None)
@given(cases_st)
def test_every_objective_matches_the_brute_force(case):
    var, objective, target, tie = case
    brute = Brute(var, objective, target, tie)
    u, e, shut, lt, eq = brute.value(ref.start_open(var.tiles, var.start), 0)
    got = solver.solve(var, objective, target=target, tie=tie)
    assert got.expected_score == e and got.p_shut == shut
    assert got.p_beat_target == lt and got.p_tie_target == eq
    assert sum(got.distribution.values()) == 1
    if objective == "beat-target":
        assert got.p_win == u
    if objective == "min-shut":
        assert 1 - got.p_shut == u


@settings(max_examples=40, deadline=None)
@given(cases_st, st.data())
def test_analysis_at_any_position_matches_the_brute_force(case, data):
    var, objective, target, tie = case
    brute = Brute(var, objective, target, tie)
    an = solver.Analysis(var, objective, target, tie)
    for _ in range(6):
        s = data.draw(st.integers(1, (1 << var.tiles) - 1))
        locked = data.draw(st.integers(0, var.locked_layers - 1))
        if locked and not ref.one_die_allowed(s, var.one_die):
            continue  # never met in play (see check_locked)
        _u, e, shut, lt, eq = brute.value(s, locked)
        v = an.value(s, locked)
        assert (v["expected_score"], v["p_shut"], v["p_beat_target"], v["p_tie_target"]) == (
            e, shut, lt, eq)
        opts = an.options(s, locked)
        assert [o["one_die"] for o in opts] == [o for o, _n in brute.options(s, locked)]
        for o, (one_die, nxt) in zip(opts, brute.options(s, locked), strict=True):
            want = brute.option(s, one_die, nxt)
            assert (o["expected_score"], o["p_shut"]) == (want[1], want[2])
        assert sum(o["best"] for o in opts) == 1
        a = data.draw(st.integers(1, 6))
        b = data.draw(st.integers(0, 6))
        nxt = (1 if var.locked_layers == 2 and (locked or b == 0) else 0)
        ranked = an.moves(s, a, b, locked)
        assert [m["mask"] for m in ranked] == brute.ranked(s, a, b, nxt)
        for m in ranked:
            assert m["expected_score"] == brute.value(m["result"], nxt)[1]


def test_min_shut_and_half_ties_on_the_standard_box():
    """The least chance of shutting the box is far below what any sensible play gives, and
    counting a tie half changes the play: it never does worse than the tie-lost objective at
    its own aim."""
    never = Variant(one_die=V.ONE_DIE_NEVER)
    low = solver.solve(never, "min-shut")
    assert 0 < low.p_shut < solver.solve(never, policy="random").p_shut
    assert low.p_shut < Fraction(1, 100)
    for target in (5, 10, 15):
        half = solver.solve(never, "beat-target", target=target, tie="half")
        lost = solver.solve(never, "beat-target", target=target, tie="loss")
        assert half.p_win >= lost.p_beat_target + lost.p_tie_target / 2
        assert lost.p_beat_target >= half.p_beat_target
    assert any(solver.solve(never, "beat-target", target=t, tie="half").distribution
               != solver.solve(never, "beat-target", target=t).distribution for t in (5, 10))


def test_max_shut_is_exact_ints_like_beat_target_1():
    """max-shut is beat-target with T = 1 key for key (both integer solves)."""
    var = Variant(9, V.ONE_DIE_HIGH_SHUT, V.MODE_LOCKED)
    a = solver.objective_values(var, "max-shut")
    b = solver.objective_values(var, "beat-target", 1)
    assert a.keys == b.keys and a.one_die_best == b.one_die_best


# ----- `shutbox solve` -----

def test_cli_min_shut_and_tie_half_json(capsys):
    assert cli.main(["solve", "--objective", "beat-target", "--target", "10", "--tie", "half",
                     "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    want = solver.solve(Variant(), "beat-target", target=10, tie="half")
    assert Fraction(out["p_win_exact"]) == want.p_win and out["tie"] == "half"
    assert out["p_win"] == float(want.p_win)  # full precision, not rounded
    assert cli.main(["solve", "--objective", "min-shut", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert Fraction(out["p_shut_exact"]) == solver.solve(Variant(), "min-shut").p_shut


def test_cli_json_is_at_full_precision(capsys):
    """p_shut at 12 tiles is small: the float keeps every digit a double has."""
    assert cli.main(["solve", "--tiles", "12", "--one-die", "never", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    exact = Fraction(out["p_shut_exact"])
    assert out["p_shut"] == float(exact) and exact < Fraction(1, 100)
    assert all(out["distribution"][k] == float(Fraction(v))
               for k, v in out["distribution_exact"].items())


@pytest.mark.parametrize("argv,words", [
    (["--objective", "beat-target", "--target", "-5"], "--target -5 is out of range"),
    (["--objective", "beat-target", "--target", "0"], "T runs from 1 to 45"),
    (["--objective", "beat-target", "--target", "46"], "T runs from 1 to 45"),
    (["--tiles", "4", "--objective", "beat-target", "--target", "11"], "T runs from 1 to 10"),
    (["--tiles", "2", "--start", "low-three-shut"], "leaves no tile open"),
    (["--tiles", "3", "--start", "low-three-shut", "--policy", "greedy"], "nothing to play"),
    (["--tie", "half"], "--tie goes with --target"),
])
def test_cli_refuses_in_one_line(argv, words, capsys):
    assert cli.main(["solve", *argv]) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1, err


def test_cli_target_with_another_play(capsys):
    """A target with min-expected play or a policy reports that play's chances against it."""
    assert cli.main(["solve", "--policy", "greedy", "--target", "8", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    want = solver.solve(Variant(), policy="greedy", target=8)
    assert Fraction(out["p_beat_target_exact"]) == want.p_beat_target == want.p_at_most(7)
