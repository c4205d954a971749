# `shutbox solve`: solve one variant exactly and print its figures (text or one JSON object).
"""Command line of the exact solver (shutbox_host.solve.solver)."""

from __future__ import annotations

import json
import sys
import time

from shutbox import variants as V
from shutbox_host.errors import UserError
from shutbox_host.solve import solver


def configure(parser):
    """Add the variant flags and the objective / policy choice."""
    parser.add_argument("--tiles", type=int, default=V.DEFAULT_TILES,
                        choices=range(V.MIN_TILES, V.MAX_TILES + 1), metavar="N",
                        help="tiles 1..N, N from 2 to 12 (default 9)")
    parser.add_argument("--one-die", choices=V.ONE_DIE, default="high-shut")
    parser.add_argument("--one-die-mode", choices=V.ONE_DIE_MODE, default="optional")
    parser.add_argument("--moves", choices=V.MOVES, default="any")
    parser.add_argument("--scoring", choices=V.SCORING, default="sum")
    parser.add_argument("--start", choices=V.START, default="all-open")
    how = parser.add_mutually_exclusive_group()
    how.add_argument("--objective", choices=solver.OBJECTIVES,
                     help="optimal play for this aim (default min-expected)")
    how.add_argument("--policy", choices=solver.POLICIES, help="evaluate a fixed way of playing")
    parser.add_argument("--target", type=int, metavar="T",
                        help="beat-target: the score to beat (strictly lower wins)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run(args):
    """Solve and print."""
    if args.objective == "beat-target" and args.target is None:
        raise UserError("--objective beat-target needs --target T (the score to beat)")
    if args.target is not None and args.objective != "beat-target":
        raise UserError("--target goes with --objective beat-target")
    var = solver.Variant.from_names(args.tiles, args.one_die, args.one_die_mode, args.moves,
                                    args.scoring, args.start)
    t0 = time.perf_counter()
    if args.policy:
        result = solver.solve(var, policy=args.policy)
    else:
        result = solver.solve(var, objective=args.objective or "min-expected",
                              target=args.target)
    took = time.perf_counter() - t0
    if args.json:
        out = result.as_json()
        out["solve_s"] = round(took, 3)
        json.dump(out, sys.stdout)
        print()
        return 0
    print("variant        %s, start %s" % (var.label(), V.START[var.start]))
    print("play           %s" % result.how)
    print("expected score %.4f" % float(result.expected_score))
    print("p(shut)        %.4f %%" % (100 * float(result.p_shut)))
    if result.p_beat_target is not None:
        print("p(score < %d)  %.4f %%" % (result.target, 100 * float(result.p_beat_target)))
    print("distribution   " + ", ".join("%d: %.4f" % (sc, float(p))
                                        for sc, p in result.distribution.items()))
    return 0
