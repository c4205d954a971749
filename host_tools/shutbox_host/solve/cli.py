# `shutbox solve`: solve one variant exactly and print its figures (text or one JSON object).
"""Command line of the exact solver (shutbox_host.solve.solver); the variant, objective and
target flags and their checks, shared with `shutbox advise`."""

from __future__ import annotations

import json
import sys
import time

from shutbox import variants as V
from shutbox_host.errors import UserError
from shutbox_host.solve import solver

OBJECTIVE_HELP = ("min-expected (the lowest expected final score, the default), max-shut (the "
                  "best chance of shutting the box), min-shut (the least chance of it), "
                  "beat-target (the best chance of a final score below --target)")


def configure_variant(parser):
    """Add the variant flags (the same names as the box's settings and the docs)."""
    parser.add_argument("--tiles", type=int, default=V.DEFAULT_TILES,
                        choices=range(V.MIN_TILES, V.MAX_TILES + 1), metavar="N",
                        help="tiles 1..N, N from 2 to 12 (default 9)")
    parser.add_argument("--one-die", choices=V.ONE_DIE, default="high-shut")
    parser.add_argument("--one-die-mode", choices=V.ONE_DIE_MODE, default="optional")
    parser.add_argument("--moves", choices=V.MOVES, default="any")
    parser.add_argument("--scoring", choices=V.SCORING, default="sum")
    parser.add_argument("--start", choices=V.START, default="all-open")


def configure_target(parser):
    """Add --target and --tie."""
    parser.add_argument("--target", type=int, metavar="T",
                        help="the score to beat: a final score strictly below T wins (with "
                             "another objective or a policy: its chances against T)")
    parser.add_argument("--tie", choices=solver.TIES,
                        help="a final score equal to T: a loss (the default) or half a win")


def configure(parser):
    """Add the variant flags and the objective / policy choice."""
    configure_variant(parser)
    how = parser.add_mutually_exclusive_group()
    how.add_argument("--objective", choices=solver.ALL_OBJECTIVES, help=OBJECTIVE_HELP)
    how.add_argument("--policy", choices=solver.POLICIES, help="evaluate a fixed way of playing")
    configure_target(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def variant_of(args) -> solver.Variant:
    """The variant the flags name."""
    return solver.Variant.from_names(args.tiles, args.one_die, args.one_die_mode, args.moves,
                                     args.scoring, args.start)


def check_start(var: solver.Variant) -> None:
    """UserError when the variant's start leaves no tile open (nothing to play)."""
    if var.start_mask() == 0:
        raise UserError("--start %s leaves no tile open on a %d-tile box: nothing to play"
                        % (V.START[var.start], var.tiles))


def check_target(var: solver.Variant, objective: str | None, target: int | None,
                 tie: str | None) -> str:
    """Return the tie rule; UserError for a missing or meaningless target (one line)."""
    if objective == "beat-target" and target is None:
        raise UserError("--objective beat-target needs --target T (the score to beat)")
    if target is None:
        if tie is not None:
            raise UserError("--tie goes with --target")
        return "loss"
    top = solver.score(var.full, var.scoring)
    if not 1 <= target <= top:
        raise UserError("--target %d is out of range: a final score below T wins, so T runs "
                        "from 1 to %d (every tile open) on this box" % (target, top))
    return tie or "loss"


def fig(value) -> str:
    """A probability or expectation for the text output: 6 significant digits."""
    return "%.6g" % float(value)


def pct(value) -> str:
    """A probability as a percentage, 6 significant digits."""
    return "%.6g %%" % (100 * float(value))


def run(args):
    """Solve and print."""
    var = variant_of(args)
    check_start(var)
    objective = None if args.policy else (args.objective or "min-expected")
    tie = check_target(var, objective, args.target, args.tie)
    t0 = time.perf_counter()
    if args.policy:
        result = solver.solve(var, policy=args.policy, target=args.target, tie=tie)
    else:
        result = solver.solve(var, objective=objective, target=args.target, tie=tie)
    took = time.perf_counter() - t0
    if args.json:
        out = result.as_json()
        out["solve_s"] = took
        json.dump(out, sys.stdout)
        print()
        return 0
    print("variant        %s, start %s" % (var.label(), V.START[var.start]))
    print("play           %s" % result.how)
    print("expected score %s" % fig(result.expected_score))
    print("p(shut)        %s" % pct(result.p_shut))
    if result.target is not None:
        print("p(score < %d)  %s" % (result.target, pct(result.p_beat_target)))
        print("p(score = %d)  %s" % (result.target, pct(result.p_tie_target)))
        if result.tie == "half":
            print("p(win)         %s (a tie counts half)" % pct(result.p_win))
    print("distribution   " + ", ".join("%d: %s" % (sc, fig(p))
                                        for sc, p in result.distribution.items()))
    return 0
