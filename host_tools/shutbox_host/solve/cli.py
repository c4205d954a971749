# `shutbox solve`: solve one variant exactly and print its figures (text or one JSON object).
"""Command line of the exact solver (shutbox_host.solve.solver) and of the match solver
(shutbox_host.solve.match, ``--match``); the variant, objective, target, payout and match
flags and their checks, shared with `shutbox advise`."""

from __future__ import annotations

import json
import re
import sys
import time
from fractions import Fraction

from shutbox import variants as V
from shutbox_host.errors import UserError
from shutbox_host.solve import longgame as LG
from shutbox_host.solve import match as M
from shutbox_host.solve import solver

OBJECTIVE_HELP = ("min-expected (the lowest expected final score, the default), max-shut (the "
                  "best chance of shutting the box), min-shut (the least chance of it), "
                  "max-expected (the worst play: the highest expected final score), "
                  "beat-target (the best chance of a final score below --target)")
PAYOUT_HELP = ("a payout per final score, higher is better: SCORE=VALUE pairs such as "
               "'0=100' or '0=10,1=5,2=2' (shut=VALUE is score 0; *=VALUE every score not "
               "named, else 0); values may be 5, 2.5 or 1/3. Alone: the play that maximises "
               "the expected payout; with --objective or --policy: that play's payout")


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
    parser.add_argument("--max-tiles", type=int, default=0, metavar="K",
                        help="a move shuts at most K tiles (Durango Bill's variant: 2; "
                             "default: no limit)")


def configure_target(parser):
    """Add --target and --tie."""
    parser.add_argument("--target", type=int, metavar="T",
                        help="the score to beat: a final score strictly below T wins (with "
                             "another objective or a policy: its chances against T)")
    parser.add_argument("--tie", choices=solver.TIES,
                        help="a final score equal to T: a loss (the default) or half a win")


def configure_match(parser, advise: bool = False):
    """Add the match flags (--match and the rules of its round)."""
    parser.add_argument("--match", action="store_true",
                        help="one round of a match: every seat's chances, each seat playing "
                             "its best knowing the scores before it" if not advise else
                             "play the seat's best move for the match (--seat, --scores)")
    parser.add_argument("--players", type=int, default=2, choices=range(2, M.MAX_PLAYERS + 1),
                        metavar="N", help="players in the round, 2 to %d (default 2)"
                        % M.MAX_PLAYERS)
    parser.add_argument("--tie-rule", choices=M.TIE_RULES,
                        help="a tie for the win: share (a draw), roll-off, replay (the box's "
                             "`tie` setting; default: %s)" % ("share" if advise else "each"))
    parser.add_argument("--shut-wins", choices=("off", "on"),
                        help="shutting the box wins at once (default: %s)"
                        % ("off" if advise else "both"))
    parser.add_argument("--stakes", choices=M.STAKES, default="win",
                        help="what a seat plays for: win (the chance to win, the default), "
                             "stake (a win takes 1 stake, a shut box --shut-pays), canoga "
                             "(the difference of the scores, twice with a shut box); 2 players")
    parser.add_argument("--shut-pays", default="2", metavar="K",
                        help="with --stakes stake: the stakes a shut box wins (default 2)")
    if not advise:
        parser.add_argument("--fair", action="store_true",
                            help="also the fair payout of a shut box (2 players, stake)")


def configure(parser):
    """Add the variant flags and the objective / policy choice."""
    configure_variant(parser)
    how = parser.add_mutually_exclusive_group()
    how.add_argument("--objective", choices=solver.ALL_OBJECTIVES, help=OBJECTIVE_HELP)
    how.add_argument("--policy", choices=solver.POLICIES,
                     help="evaluate a fixed way of playing: greedy (the rule of thumb), "
                          "random, survive (the best chance that the next throw can be played)")
    configure_target(parser)
    parser.add_argument("--payout", metavar="TABLE", help=PAYOUT_HELP)
    configure_match(parser)
    parser.add_argument("--long-game", action="store_true",
                        help="the house-rules page's long game for 2 (one shuts, the other "
                             "reopens): the first player's chance (floats; --exact: exactly, "
                             "up to %d tiles)" % LG.EXACT_MAX_TILES)
    parser.add_argument("--exact", action="store_true", help="with --long-game: exactly")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def variant_of(args) -> solver.Variant:
    """The variant the flags name."""
    limit = getattr(args, "max_tiles", 0)
    if not 0 <= limit <= args.tiles:
        raise UserError("--max-tiles %d: a move shuts 1 to %d tiles (0: no limit)"
                        % (limit, args.tiles))
    return solver.Variant.from_names(args.tiles, args.one_die, args.one_die_mode, args.moves,
                                     args.scoring, args.start, limit)


def finals(var: solver.Variant) -> list[int]:
    """Every final score a turn of *var* may end on."""
    return sorted(set(solver._scores(var.tiles, var.scoring)))


def parse_number(text: str, what: str) -> Fraction:
    """An exact number from 5, -2.5 or 1/3; UserError naming *what* otherwise."""
    try:
        return Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        raise UserError("%s: %r is not a number (write 5, 2.5 or 1/3)" % (what, text)) from None


def parse_payout(text: str, var: solver.Variant) -> dict:
    """{final score: Fraction} from --payout's SCORE=VALUE list (see PAYOUT_HELP)."""
    scores = finals(var)
    table: dict = {}
    rest = Fraction(0)
    items = [w for w in re.split(r"[,\s]+", text.strip()) if w]
    if not items:
        raise UserError("--payout: give SCORE=VALUE pairs, e.g. 0=100")
    for item in items:
        if "=" not in item:
            raise UserError("--payout: %r is not SCORE=VALUE (e.g. 0=100)" % item)
        key, value = item.split("=", 1)
        v = parse_number(value, "--payout " + key)
        if key == "*":
            rest = v
            continue
        if key == "shut":
            key = "0"
        if not key.isdigit():
            raise UserError("--payout: %r is not a final score" % key)
        sc = int(key)
        if sc not in scores:
            raise UserError("--payout: no turn ends on a score of %d on this box (%s)"
                            % (sc, V.SCORING[var.scoring] + " scoring"))
        table[sc] = v
    return {sc: table.get(sc, rest) for sc in scores}


def match_rules(args, tie: str, shut_wins: bool) -> M.MatchRules:
    """The round's rules from the flags (UserError for a combination it does not solve)."""
    try:
        return M.MatchRules(args.players, tie, shut_wins, args.stakes,
                            parse_number(args.shut_pays, "--shut-pays"))
    except ValueError as exc:
        raise UserError(str(exc)) from None


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
    if args.exact and not args.long_game:
        raise UserError("--exact goes with --long-game (every other figure is exact)")
    if args.long_game:
        return run_long_game(args, var)
    if args.match:
        if args.objective or args.policy or args.target is not None or args.payout:
            raise UserError("--match solves every seat's own best play: leave out "
                            "--objective, --policy, --target and --payout")
        return run_match(args, var)
    for flag in ("tie_rule", "shut_wins"):
        if getattr(args, flag) is not None:
            raise UserError("--%s goes with --match" % flag.replace("_", "-"))
    payout = parse_payout(args.payout, var) if args.payout else None
    objective = None if args.policy else (args.objective or (
        "payout" if payout else "min-expected"))
    tie = check_target(var, objective, args.target, args.tie)
    t0 = time.perf_counter()
    if args.policy:
        result = solver.solve(var, policy=args.policy, target=args.target, tie=tie,
                              payout=payout)
    else:
        result = solver.solve(var, objective=objective, target=args.target, tie=tie,
                              payout=payout)
    took = time.perf_counter() - t0
    if args.json:
        out = result.as_json()
        out["solve_s"] = took
        json.dump(out, sys.stdout)
        print()
        return 0
    print("variant        %s, start %s" % (var.label(), V.START[var.start]))
    print("play           %s" % result.how)
    if result.payout is not None:
        print("expected payout %s" % fig(result.expected_payout))
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


# ----- --match -----

def match_cases(args) -> list[tuple[str, bool]]:
    """The (tie rule, shut-wins) rows asked for: the one named, or every one."""
    ties = [args.tie_rule] if args.tie_rule else list(M.TIE_RULES)
    wins = [args.shut_wins == "on"] if args.shut_wins else [False, True]
    return [(t, w) for t in ties for w in wins]


def solve_matches(var: solver.Variant, args) -> list[M.Match]:
    """One solved Match per row (share and roll-off play alike: solved once)."""
    out, done = [], {}
    for tie, wins in match_cases(args):
        rules = match_rules(args, tie, wins)
        same = ("share" if tie == "roll-off" else tie, wins)
        if same not in done:
            done[same] = M.Match(var, match_rules(args, same[0], wins))
        m = done[same]
        if tie != same[0]:  # the same play and figures under another name
            m = _renamed(m, rules)
        out.append(m)
    return out


def _renamed(m: M.Match, rules: M.MatchRules) -> M.Match:
    """A shallow copy of *m* reporting *rules* (roll-off is share's play, renamed)."""
    twin = object.__new__(M.Match)
    twin.__dict__.update(m.__dict__)
    twin.rules = rules
    return twin


def run_match(args, var: solver.Variant) -> int:
    """`shutbox solve --match`: every seat's chances, the edge, optionally the fair payout."""
    if args.fair and (args.players != 2 or args.stakes != "win"):
        raise UserError("--fair finds the stake of a shut box for 2 players: leave out "
                        "--players and --stakes")
    t0 = time.perf_counter()
    matches = solve_matches(var, args)
    fair = []
    if args.fair:
        for wins in ([args.shut_wins == "on"] if args.shut_wins else [False, True]):
            k, steps = M.fair_shut_payout(var, wins)
            fair.append((wins, k, steps))
    took = time.perf_counter() - t0
    if args.json:
        out = {"variant": var.names(), "matches": [m.as_json() for m in matches],
               "solve_s": took}
        if fair:
            out["fair_shut_pays"] = [{"shut_wins": w, "shut_pays": None if k is None
                                      else float(k), "shut_pays_exact": str(k),
                                      "steps": st} for w, k, st in fair]
        json.dump(out, sys.stdout)
        print()
        return 0
    stake = args.stakes != "win"
    print("variant        %s, start %s" % (var.label(), V.START[var.start]))
    print("match          %d players, one round%s" % (args.players, {
        "win": "", "stake": ", a win takes 1 stake, a shut box %s" % fig(
            parse_number(args.shut_pays, "--shut-pays")),
        "canoga": ", canoga stakes"}[args.stakes]))
    print("value: %s" % ("the stakes won per round (the other seat loses them)" if stake else
                         "the chance to win (a shared win counts 1/m of m players; replay: "
                         "the replays counted in)"))
    head = "%-9s %-9s" % ("tie", "shut-wins")
    for i in range(args.players):
        head += "  %-34s" % ("seat %d: value  win  tie  lose" % (i + 1))
    print(head.rstrip() + "  edge")
    for m in matches:
        row = "%-9s %-9s" % (m.rules.tie, "on" if m.rules.shut_wins else "off")
        for seat in m.seats:
            val = fig(seat.value) if stake else pct(seat.value)
            row += "  %-34s" % ("%s %s %s %s" % (val, pct(seat.p_win), pct(seat.p_tie),
                                                  pct(seat.p_lose)))
        print(row + "  " + (fig(m.edge()) if stake else pct(m.edge())))
    for wins, k, _steps in fair:
        if k is None:
            print("fair payout    shut-wins %s: none (seat 1 does not win by shutting the box "
                  "more often than seat 2)" % ("on" if wins else "off"))
        else:
            print("fair payout    shut-wins %s: a shut box pays %s stakes (%s), a win 1"
                  % ("on" if wins else "off", fig(k), k))
    return 0


# ----- --long-game -----

def _digits(x: Fraction, up: bool, n: int = 19) -> str:
    """*x* in [0, 1] with *n* decimals, rounded down (or *up*): a bound stays a bound."""
    q, r = divmod(x.numerator * 10 ** n, x.denominator)
    q += 1 if up and r else 0
    return "%d.%0*d" % (q // 10 ** n, n, q % 10 ** n)


def run_long_game(args, var: solver.Variant) -> int:
    """`shutbox solve --long-game`: the first player's chance in the long game for 2."""
    if args.match or args.objective or args.policy or args.payout or args.target is not None:
        raise UserError("--long-game solves its own game: leave out --match, --objective, "
                        "--policy, --payout and --target")
    if var.start != V.START_ALL_OPEN:
        raise UserError("--long-game starts with every tile open: leave out --start")
    try:
        game = LG.LongGame(var)
        t0 = time.perf_counter()
        out = game.solve(exact=args.exact)
        if not args.exact:  # the float proven: exact bounds a few units of 2**-64 apart
            low, high, _, _ = game.bounds()
            out["p_first_low"], out["p_first_high"] = low, high
    except ValueError as exc:
        raise UserError(str(exc)) from None
    out["solve_s"] = time.perf_counter() - t0
    if args.json:
        for key in ("p_first_exact", "p_first_low", "p_first_high"):
            if key in out:  # exact Fractions as text
                out[key] = str(out.pop(key))
        out["variant"] = var.names()
        json.dump(out, sys.stdout)
        print()
        return 0
    print("variant        %s (the long game for 2: the first player shuts, the second "
          "reopens)" % var.label())
    if "p_first_exact" in out:
        print("first player   %s (exactly %s)" % (pct(out["p_first_exact"]),
                                                  out["p_first_exact"]))
    else:
        print("first player   %.13f (floats: value iteration, %d sweeps, the last changed "
              "it by %.1g)" % (out["p_first"], out["sweeps"], out["last_change"]))
        print("proven         between %s and %s (exact bounds, %.1g apart)" % (
            _digits(out["p_first_low"], False), _digits(out["p_first_high"], True),
            out["p_first_high"] - out["p_first_low"]))
    return 0
