# Any payout, at most K tiles a move, the survival ranking and the worst play: solver vs brute.
"""The solver's payout objective, Variant.max_tiles, the survive policy and P(survive) against
plain recursions over tests/engine_reference.py; Durango Bill's published chances of a shut
box; `shutbox solve --payout` and `--max-tiles` on the command line."""

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
    moves=st.integers(0, len(V.MOVES) - 1), scoring=st.sampled_from([0, 2]),
    start=st.integers(0, len(V.START) - 1), max_tiles=st.integers(0, 3))


@settings(max_examples=25, deadline=None)
@given(variants_st, st.data())
def test_any_payout_and_move_limit_match_the_brute_force(var, data):
    finals = sorted(set(solver._scores(var.tiles, var.scoring)))
    payout = {sc: Fraction(data.draw(st.integers(-5, 9)), data.draw(st.integers(1, 4)))
              for sc in finals}
    brute = Brute(var, "payout", payout=payout)
    u, e, shut, _lt, _eq = brute.value(ref.start_open(var.tiles, var.start), 0)
    got = solver.solve(var, payout=payout)
    assert got.expected_payout == u and got.expected_score == e and got.p_shut == shut
    an = solver.Analysis(var, payout=payout)
    s = data.draw(st.integers(1, (1 << var.tiles) - 1))
    assert an.value(s)["expected_payout"] == brute.value(s, 0)[0]
    a, b = data.draw(st.integers(1, 6)), data.draw(st.integers(1, 6))
    ranked = an.moves(s, a, b)
    assert [m["mask"] for m in ranked] == brute.ranked(s, a, b, 0)
    for m in ranked:
        assert m["expected_payout"] == brute.value(m["result"], 0)[0]


def test_durango_bills_published_chances_of_a_shut_box():
    """durangobill.com/ShutTheBoxExtra/STBstats.txt (cited): 7.1432 % always two dice,
    9.7614 % one die once the open tiles add up to 6 or less, 7.4194 % that rule with at most
    two tiles a throw (the best chance of a shut box; a payout of 100 for it, 0 else, is his
    casino table: the expected payout is the chance in percent)."""
    cases = [(V.ONE_DIE_NEVER, 0, "7.1432"), (V.ONE_DIE_SUM_LE_6, 0, "9.7614"),
             (V.ONE_DIE_SUM_LE_6, 2, "7.4194")]
    for one_die, limit, want in cases:
        var = Variant(9, one_die, V.MODE_FORCED, max_tiles=limit)
        finals = set(solver._scores(9, V.SCORING_SUM))
        got = solver.solve(var, payout={sc: 100 if sc == 0 else 0 for sc in finals})
        assert "%.4f" % got.expected_payout == want
        assert solver.solve(var, "max-shut").p_shut * 100 == got.expected_payout
    # the move limit is a limit: two tiles at most shuts less often than any set
    assert solver.solve(Variant(9, max_tiles=2), "max-shut").p_shut < solver.solve(
        Variant(9), "max-shut").p_shut


def survive_brute(var):
    """The survive policy written from its definition: P(the next throw has a move) by subset
    search over both dice, the move leaving the best chance first (greedy order on a tie),
    one die where it is strictly better; its final-score distribution by solver.distribution
    (the Fraction push-forward the tests use for the box's own choices)."""
    def chance(s, one):
        if s == 0:
            return Fraction(1)
        throws = [(a, 0) for a in range(1, 7)] if one else [
            (a, b) for a in range(1, 7) for b in range(1, 7)]
        return Fraction(sum(1 for a, b in throws if ref.legal(s, var.moves, a, b)),
                        len(throws))

    def opts(s, locked):
        return Brute(var, "min-expected").options(s, locked)

    def best(s, locked):
        return max(chance(s, one) for one, _n in opts(s, locked))

    def dice(s, locked):
        o = opts(s, locked)
        if len(o) == 1:
            return [(1, o[0][0], o[0][1])]
        one = chance(s, True) > chance(s, False)
        return [(1, one, o[1][1] if one else o[0][1])]

    def move(s, nxt, one_die, cands):
        legal = [m for m in cands if m & s == m]
        if not legal:
            return []
        return [(1, max(legal, key=lambda m: best(s & ~m, nxt)))]  # the first of the best

    return solver.distribution(var, dice, move)


@pytest.mark.parametrize("var", [Variant(5), Variant(6, V.ONE_DIE_SUM_LE_6, V.MODE_LOCKED),
                                 Variant(4, V.ONE_DIE_NEVER, moves=V.MOVES_KIDS)])
def test_the_survival_policy_matches_its_definition(var):
    got = solver.solve(var, policy="survive")
    assert got.distribution == survive_brute(var)
    an = solver.Analysis(var, policy="survive")
    for s in range(1, 1 << var.tiles):  # P(survive) of each position, with its dice
        want = max(Fraction(36 - solver.var_rows(var)[s][one][3], 36)
                   for one, _n in Brute(var, "min-expected").options(s, 0))
        assert an.value(s)["p_survive"] == want


def test_the_worst_play_and_the_survival_ranking_on_the_standard_box():
    """max-expected is the highest expected score there is: above random play and every
    sensible one; the survival ranking plays better than seed 001's rule of thumb."""
    var = Variant(9, V.ONE_DIE_NEVER)
    worst = solver.solve(var, "max-expected")
    assert worst.expected_score > solver.solve(var, policy="random").expected_score
    assert worst.expected_score > solver.solve(var, "min-shut").expected_score
    assert solver.solve(var, policy="survive").expected_score < solver.solve(
        var, policy="greedy").expected_score


def test_payout_and_max_tiles_on_the_command_line(capsys):
    assert cli.main(["solve", "--payout", "shut=100", "--one-die", "sum-le-6",
                     "--one-die-mode", "forced", "--max-tiles", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert "%.4f" % out["expected_payout"] == "7.4194"
    assert out["variant"]["max-tiles"] == 2
    assert cli.main(["solve", "--tiles", "4", "--payout", "0=1,*=1/3", "--policy", "greedy",
                     "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert Fraction(out["expected_payout_exact"]) == Fraction(1, 3) + Fraction(
        2, 3) * Fraction(out["p_shut_exact"])


@pytest.mark.parametrize("argv, words", [
    (["--payout", "x"], "is not SCORE=VALUE"),
    (["--payout", "0=a"], "is not a number"),
    (["--payout", "1/0=3"], "is not a final score"),
    (["--payout", "99=1"], "no turn ends on a score of 99"),
    (["--max-tiles", "10"], "a move shuts 1 to 9 tiles"),
    (["--tie-rule", "share"], "--tie-rule goes with --match"),
])
def test_bad_payout_is_one_line_and_exit_2(argv, words, capsys):
    assert cli.main(["solve", *argv]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1 and "Traceback" not in err
