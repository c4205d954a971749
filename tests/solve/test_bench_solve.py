# The solver bench's reference: the plain memoised DP gives the solver's exact answers.
"""bench.solve compares the solver with naive_solve: both must solve the same game exactly
(expectation and final-score distribution), and the part must run and name its figures.
The speed figures themselves are never asserted (see `shutbox bench --only solve`)."""

from __future__ import annotations

import pytest

from shutbox import variants as V
from shutbox_host.bench import solve as bench_solve
from shutbox_host.solve import solver


@pytest.mark.parametrize("tiles", [2, 4, 6, 9])
@pytest.mark.parametrize("one_die", [False, True])
def test_naive_dp_is_the_same_game(tiles, one_die):
    var = solver.Variant(tiles, V.ONE_DIE_HIGH_SHUT if one_die else V.ONE_DIE_NEVER)
    want = solver.solve(var)
    e, dist = bench_solve.naive_solve(tiles, one_die)
    assert e == want.expected_score
    assert dict(sorted(dist.items())) == want.distribution


def test_figures_run_and_name_the_issue_figures(monkeypatch):
    for name in ("SOLVE_RUNS", "COLD_RUNS", "NAIVE_RUNS", "CLI_RUNS", "FLOAT_RUNS"):
        monkeypatch.setattr(bench_solve, name, 1)
    monkeypatch.setattr(bench_solve, "SOLVE_CASES", bench_solve.SOLVE_CASES[:1])
    out = bench_solve.figures()
    for key in ("solve_ms_9", "solve_cpu_ms_9", "solve_ms_9_cold", "naive_solve_ms_9",
                "naive_solve_cpu_ms_9", "solve_vs_naive_ratio", "float_solve_ms_9",
                "float_solve_cpu_ms_9", "solve_vs_float_ratio", "solve_cold_vs_float_ratio",
                "cli_help_s", "cli_solve_s", "python_start_s"):
        assert out[key] > 0, key
    ratio = out["naive_solve_cpu_ms_9"] / out["solve_cpu_ms_9"]  # of the rounded figures
    assert abs(out["solve_vs_naive_ratio"] - ratio) <= 0.01 * ratio + 0.1
    assert len(out["solve_ms"]) == 1


def test_the_float_dp_is_the_same_game():
    for tiles in (4, 9):
        for one_die in (False, True):
            var = solver.Variant(tiles, V.ONE_DIE_HIGH_SHUT if one_die else V.ONE_DIE_NEVER)
            want = float(solver.solve(var).expected_score)
            assert abs(bench_solve.float_solve(tiles, one_die) - want) < 1e-12


def test_the_strategy_part_runs_and_names_its_figures(monkeypatch):
    """bench.strategy on a 4-tile box (the figures themselves come from the match solver and
    the strategy card, tested in test_match.py and tests/hardware/test_card.py)."""
    from shutbox_host.bench import strategy as bench_strategy

    monkeypatch.setattr(bench_strategy, "TILES", 4)
    monkeypatch.setattr(bench_strategy, "MATCH_RUNS", 1)
    monkeypatch.setattr(bench_strategy, "LONG_EXACT", (4,))
    out = bench_strategy.figures()
    assert set(out["match_solve_s"]) == {"2 players", "3 players", "4 players"}
    assert set(out["match_default"]) == {"%s/%s" % (t, w) for t in ("share", "roll-off",
                                                                    "replay")
                                         for w in ("off", "on")}
    for row in out["match_default"].values():
        assert abs(row["v1"] + row["v2"] - 1) < 1e-12
        assert abs(row["win1"] + row["tie"] + row["lose1"] - 1) < 1e-12
    assert len(out["match_one_die"]) == 10 and set(out["fair_shut_pays"]) == {"on", "off"}
    assert out["strategy_card"]["rules"]["highest"]["cost"] >= 0
    assert 0 < out["at_most_two_p_shut_pct"] < 100
    assert abs(out["long_game"]["float"]["p_first"] - out["long_game"]["4"]["p_first"]) < 1e-13
    s2 = out["seat2_tables"]
    assert s2["differ_tie_half"] == 0 and s2["deploy_room"] == s2["deploy_budget"] - s2[
        "deploy_bytes"] and s2["deploy_bytes"] > 100_000
    gain = out["match_gain"]
    assert gain["seat2_after_shut"] > 0 and gain["seat2_vs_box"] == 0  # the box's is the match's
    assert set(out["later_seats"]) == {"3/off", "3/on", "4/off", "4/on"}
    for rows in out["later_seats"].values():  # against the best play: nothing to gain
        for row in rows.values():
            assert row["gap_tie_half"] >= 0 and row["gap_tie_lost"] >= 0
            assert row["differ_after_shut"] == 0
