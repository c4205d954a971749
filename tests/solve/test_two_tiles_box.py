# The box's play under two-tiles against the exact optimum under that rule (the solver's).
"""On the box, two-tiles filters the legal moves (shutbox.rounds) and the hints and the hard
computer pick among those left by the standard game's tables (shutbox.engine): not the exact
optimum under the limit. This measures that play exactly (the solver's policy evaluation):
a little worse than the optimum, never better, and close (docs/playing.md says so)."""

from __future__ import annotations

from shutbox_host.solve import solver


def test_the_box_s_two_tiles_play_is_close_to_the_optimum():
    std = solver.Variant(9)  # the box's default rules: its tables
    two = solver.Variant(9, max_tiles=2)
    vals = solver.solve_values(std)

    def key(lk, s, r):  # the state a move leaves, by the standard game's value
        return vals.keys[lk][r]

    def flags(lk, s, opts):  # one die where the standard game's tables say so
        return int(vals.one_die_best[lk][s])

    fl, ch = solver.rank_choices(two, key, flags)
    box = solver.evaluate(two, fl, ch)
    best = solver.solve(two)
    assert best.expected_score < box.expected_score < best.expected_score + 0.1
    assert box.p_shut < best.p_shut
    # the same choice on the standard game is its optimum: the evaluation is the box's play
    fl, ch = solver.rank_choices(std, key, flags)
    assert solver.evaluate(std, fl, ch).expected_score == solver.solve(std).expected_score
