# Exact solver of Shut the Box variants: optimal and heuristic play, solved with exact arithmetic.
"""Exact solution of one Shut the Box variant over the states (open mask, locked flag).

The state of a turn is the mask of open tiles (tile k = bit k-1) plus, in the `locked`
one-die mode, whether one die has been chosen. Every move shuts at least one tile, so the
states are solved in order of the number of open tiles, each exactly once.

Arithmetic is exact. The value solver (``solve_values``) keeps every expectation as an int
``G = E * 36**N`` (N tiles): the expectation of a state with n open tiles has a denominator
dividing 36**n (each throw has probability w/36, one die 6/36), so G is an integer for every
state and the recurrence ``G[s] = sum(w * G[s']) / 36`` divides exactly. Comparing moves is
then a plain int comparison, with no per-move rescaling. Policies (greedy, random) and the
final-score distributions use ``fractions.Fraction``.

Readings this module pins down (see also README, "Rules engine and solver"):

- greedy (seed 001's "close the high tiles first and use as few tiles as you can"): among
  the legal sets, take the one whose highest tile is highest; among those, the one with the
  fewest tiles; then the one whose tiles read from the top are highest (mask order). It
  averages 11.3733 on the standard box (seed 001: 11.37). Reading "highest tiles first" as a
  plain comparison of the sets' tiles from the top down gives the same 11.3733; ranking
  "fewest tiles" first instead gives 11.3231, which is not the figure quoted.
  With a one-die choice, greedy throws one die whenever the rules allow it and the open
  tiles add up to 6 or less (``greedy_one_die``).
- random: every legal set is equally likely; with a one-die choice, one or two dice with
  probability 1/2 each.
- the box's computer levels are these rules (shutbox.engine, LEVEL_*): easy = policy random,
  medium = policy greedy, hard = objective min-expected; the tests check the engine's levels
  give exactly these distributions.
- Objectives: min-expected minimises the expected final score; max-shut maximises the chance
  of shutting the box, ties broken by the lower expected score; beat-target maximises the
  chance of a final score strictly below T, ties broken by the lower expected score. Among
  equal moves the first in greedy order wins (the firmware does the same).
- one-die rules: high-shut means every tile of 7 and up is shut (on boxes of 6 tiles or
  fewer it always holds); sum-le-6 / sum-lt-6 look at the sum of the open tile numbers
  (whatever the scoring). The one-die choice is made before the throw; on a tie two dice.
- locked mode: once one die is thrown it stays for the rest of the turn. A one-die rule that
  holds keeps holding (tiles only shut), so a locked turn never meets a state where one die
  is not allowed; the locked layer is defined there as "two dice now, one die as soon as
  allowed", which makes it equal to the forced mode's values (the table packs share them).
- moves other than `any` with one die thrown: the tile of that die.
- scoring digital: the open tiles read low to high as one number; tiles 10-12 add their two
  digits (1, 10, 12 open -> 11012).
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

from shutbox import variants as V
from shutbox.engine import Engine, Rules, tile_sum
from shutbox_host.solve import engine_extra

PIPS = range(1, 7)
OBJECTIVES = ("min-expected", "max-shut", "beat-target")
POLICIES = ("greedy", "random")


def _index(names, name):
    """Return the index of *name* in *names*, or raise ValueError naming the choices."""
    if name not in names:
        raise ValueError("unknown %r: choose one of %s" % (name, ", ".join(names)))
    return names.index(name)


class Variant(Rules):
    """A rule set as small ints: the firmware's own ``Rules`` plus the CLI's names, and the
    host's comparisons (the box's Rules carries only its attributes)."""

    def key(self) -> tuple:
        """The variant as a tuple (tiles, one_die, one_die_mode, moves, scoring, start)."""
        return engine_extra.key(self)

    def __eq__(self, other):
        return isinstance(other, Rules) and self.key() == engine_extra.key(other)

    def __hash__(self):
        return hash(self.key())

    def __repr__(self):
        n = self.names()
        return "Rules(%d, %s, %s, %s, %s, %s)" % (self.tiles, n["one-die"], n["one-die-mode"],
                                                   n["moves"], n["scoring"], n["start"])

    @classmethod
    def from_names(cls, tiles=9, one_die="high-shut", one_die_mode="optional", moves="any",
                   scoring="sum", start="all-open"):
        """Build a variant from the CLI names (ValueError names the choices)."""
        return cls(tiles, _index(V.ONE_DIE, one_die), _index(V.ONE_DIE_MODE, one_die_mode),
                   _index(V.MOVES, moves), _index(V.SCORING, scoring),
                   _index(V.START, start))

    def names(self) -> dict:
        """Return the variant as CLI names."""
        return {"tiles": self.tiles, "one-die": V.ONE_DIE[self.one_die],
                "one-die-mode": V.ONE_DIE_MODE[self.one_die_mode],
                "moves": V.MOVES[self.moves], "scoring": V.SCORING[self.scoring],
                "start": V.START[self.start]}

    def label(self) -> str:
        """Return a short label such as ``9/high-shut/optional/any/sum``."""
        n = self.names()
        return "%d/%s/%s/%s/%s" % (self.tiles, n["one-die"], n["one-die-mode"], n["moves"],
                                   n["scoring"])

    @property
    def full(self) -> int:
        return (1 << self.tiles) - 1

    @property
    def locked_layers(self) -> int:
        """2 when the locked flag matters (locked mode with a one-die rule), else 1."""
        return 2 if (self.one_die_mode == V.MODE_LOCKED and self.one_die != V.ONE_DIE_NEVER) else 1

    def start_mask(self) -> int:
        """Open mask at the start of a turn."""
        return start_mask(self.tiles, self.start)


# ----- rules as pure functions (the reference the firmware tables are generated from) -----

@cache
def _rules_engine(tiles: int, one_die: int, scoring: int, start: int) -> Engine:
    """The firmware's own engine for these rules, without tables: the rule functions below
    are the ones the box runs, so the tables are generated from the very same rules."""
    return Engine(Rules(tiles, one_die, V.MODE_OPTIONAL, V.MOVES_ANY, scoring, start),
                  tables_dir="/nonexistent-shutbox-tables", hints=False)


def start_mask(tiles: int, start: int) -> int:
    """Open tiles at the start of a turn under *start*."""
    return _rules_engine(tiles, V.ONE_DIE_NEVER, V.SCORING_SUM, start).start_open


def score(open_: int, scoring: int) -> int:
    """Final score of the open tiles under *scoring*."""
    return _rules_engine(V.MAX_TILES, V.ONE_DIE_NEVER, scoring, V.START_ALL_OPEN).score(open_)


def one_die_allowed(open_: int, tiles: int, one_die: int) -> bool:
    """True when the rules let the player throw one die with *open_* tiles open."""
    return _rules_engine(tiles, one_die, V.SCORING_SUM, V.START_ALL_OPEN).one_die_allowed(open_)


def greedy_key(mask: int) -> tuple:
    """Sort key of seed 001's rule of thumb: higher is better (see module docstring)."""
    return (mask.bit_length(), -bin(mask).count("1"), mask)


@cache
def _subsets_summing(total: int, top: int = V.MAX_TILES) -> tuple[int, ...]:
    """Every set of tiles 1..top (as a mask) whose numbers add up to *total* (cached)."""
    out = []
    for mask in range(1, 1 << min(top, total)):
        if tile_sum(mask) == total:
            out.append(mask)
    return tuple(out)


def candidate_masks(moves: int, a: int, b: int) -> list[int]:
    """Every move mask a throw (a, b) may shut on a full 12-tile box, best greedy move first.

    (a, b): two dice, or one die *a* with b == 0. The legal moves in a position are the
    candidates whose tiles are all open.
    """
    if moves == V.MOVES_ANY:
        found = list(_subsets_summing(a + b))
    elif b == 0:
        found = [1 << (a - 1)]
    else:
        total = 1 << (a + b - 1)
        da, db = 1 << (a - 1), 1 << (b - 1)
        if moves == V.MOVES_DICE_OR_TOTAL:
            found = [total] + ([da | db] if a != b else [])
        elif moves == V.MOVES_ONE_TILE:
            found = [total, da, db]
        else:  # kids: the total, one die, or both dice (a double cannot shut a tile twice)
            found = [total, da, db] + ([da | db] if a != b else [])
    return sorted(set(found), key=greedy_key, reverse=True)


def legal_moves(open_: int, moves: int, a: int, b: int) -> list[int]:
    """The legal move masks for throw (a, b), best greedy move first."""
    return [m for m in candidate_masks(moves, a, b) if m & ~open_ == 0]


def greedy_one_die(open_: int) -> bool:
    """Greedy's one-die choice where the rules leave it free: when the open tiles sum to <= 6."""
    return tile_sum(open_) <= 6


# ----- throws grouped by their candidate list -----

def throw_groups(moves: int):
    """Return (two, one): lists of (weight, candidates) for two dice (weights /36) and one die.

    Throws with the same candidate list are merged (for `any` only the total matters).
    """
    two: dict[tuple, int] = {}
    for a in PIPS:
        for b in PIPS:
            key = tuple(candidate_masks(moves, a, b))
            two[key] = two.get(key, 0) + 1
    one = [(1, tuple(candidate_masks(moves, a, 0))) for a in PIPS]
    return [(w, c) for c, w in two.items()], one


class _Ctx:
    """Per-variant constants shared by the solvers."""

    def __init__(self, var: Variant):
        self.var = var
        self.n = var.tiles
        self.size = 1 << var.tiles
        self.two, self.one = throw_groups(var.moves)
        self.allowed = [one_die_allowed(s, var.tiles, var.one_die) for s in range(self.size)]
        self.scores = [score(s, var.scoring) for s in range(self.size)]
        # states in order of open-tile count: every successor comes earlier
        self.order = sorted(range(self.size), key=lambda s: bin(s).count("1"))

    def options(self, s: int, locked: int):
        """The dice options before a throw: list of (one_die, next_locked) pairs."""
        var = self.var
        if not self.allowed[s]:
            return [(False, locked)]
        mode = var.one_die_mode
        if mode == V.MODE_FORCED or (mode == V.MODE_LOCKED and locked):
            return [(True, locked)]
        nxt = 1 if mode == V.MODE_LOCKED else 0
        return [(False, 0), (True, nxt)]


class Values:
    """Exact optimal values of a variant for one objective (see ``solve_values``)."""

    def __init__(self, var, scale, keys, one_die_best, choice):
        self.var = var
        self.scale = scale  # keys[l][s] are exact values times this int
        self.keys = keys  # keys[locked][state]: comparable exact value (lower is better)
        self.one_die_best = one_die_best  # [locked][state] -> bool: throw one die here
        self.choice = choice  # (locked, state, one_die, candidates) -> chosen move

    def expected(self, s: int, locked: int = 0) -> Fraction:
        """Exact expected final score of (s, locked) (min-expected objective only)."""
        return Fraction(self.keys[locked][s], self.scale)


def _best_after(s: int, cands, table):
    """The lowest ``table[s ^ m]`` over the candidate moves *m* legal from the open tiles *s*
    (the first one on a tie), and that move: (value, m); (None, 0) when none is legal."""
    best, bm = None, 0
    for m in cands:
        if m & ~s == 0:
            v = table[s ^ m]
            if best is None or v < best:
                best, bm = v, m
    return best, bm


def solve_values(var: Variant) -> Values:
    """Solve min-expected exactly with ints G = E * 36**N; record the optimal decisions.

    Among equal successors the first candidate (greedy order) is chosen; one die is chosen
    only when strictly better than two.
    """
    ctx = _Ctx(var)
    scale = 36 ** ctx.n
    layers = var.locked_layers
    G = [[0] * ctx.size for _ in range(layers)]
    one_best = [[False] * ctx.size for _ in range(layers)]
    scores_scaled = [sc * scale for sc in ctx.scores]

    def throw_value(s, groups, weight_mul, g_next):
        total = 0
        for w, cands in groups:
            best = _best_after(s, cands, g_next)[0]
            total += w * weight_mul * (scores_scaled[s] if best is None else best)
        return total

    for s in ctx.order:
        for locked in range(layers):
            if s == 0:
                continue  # box shut: value 0
            best = None
            best_one = False
            for one_die, nxt in ctx.options(s, locked):
                if one_die:
                    v = throw_value(s, ctx.one, 6, G[nxt])
                else:
                    v = throw_value(s, ctx.two, 1, G[nxt])
                if best is None or v < best:
                    best, best_one = v, one_die
            q, r = divmod(best, 36)
            assert r == 0, "exact division failed"
            G[locked][s] = q
            one_best[locked][s] = best_one

    def choice(locked, s, one_die, cands):
        nxt = locked
        if one_die and var.one_die_mode == V.MODE_LOCKED:
            nxt = 1
        return _best_after(s, cands, G[nxt] if layers == 2 else G[0])[1]

    return Values(var, scale, G, one_best, choice)


class TargetValues:
    """Exact beat-target values of a variant as ints (see ``solve_target_values``).

    p[locked][s] = P(final score < target) * scale and e[locked][s] = E(final score) * scale
    under optimal beat-target play; key(locked, s) orders states like the solver's
    (-P, E) key (lower is better).
    """

    def __init__(self, var, target, scale, p, e, keys, one_die_best):
        self.var = var
        self.target = target
        self.scale = scale
        self.p = p
        self.e = e
        self.keys = keys  # keys[locked][s]: one int, ordered as (-P, E)
        self.one_die_best = one_die_best

    def p_beat(self, s: int, locked: int = 0) -> Fraction:
        """Exact P(final score < target) from (s, locked)."""
        return Fraction(self.p[locked][s], self.scale)

    def expected(self, s: int, locked: int = 0) -> Fraction:
        """Exact expected final score of beat-target play from (s, locked)."""
        return Fraction(self.e[locked][s], self.scale)

    def choice(self, nxt: int, s: int, cands) -> int:
        """The chosen move among *cands* (greedy order) when the next layer is *nxt* (0: none)."""
        k = self.keys[nxt]
        best, bm = None, 0
        for m in cands:
            if m & ~s == 0 and (best is None or k[s ^ m] < best):
                best, bm = k[s ^ m], m
        return bm


def _successors(tiles: int, moves: int):
    """Per open mask, for two dice and for one die: ([(weight, successors)], no-move weight).

    Successors are listed in greedy order of their moves; throw groups without a legal move
    only add to the no-move weight. Cached: every target of every variant shares them.
    """
    key = (tiles, moves)
    if key not in _SUCC:
        two, one = throw_groups(moves)
        out = []
        for s in range(1 << tiles):
            row = []
            for groups in (two, one):
                lst, none = [], 0
                for w, cands in groups:
                    succ = tuple(s ^ m for m in cands if m & s == m)
                    if succ:
                        lst.append((w, succ))
                    else:
                        none += w
                row.append((lst, none))
            out.append(row)
        _SUCC[key] = out
    return _SUCC[key]


_SUCC: dict = {}


def solve_target_values(var: Variant, target: int) -> TargetValues:
    """Solve beat-target exactly with ints P * 36**N and E * 36**N (as solve_values does).

    The same decisions as ``solve(var, "beat-target", target=T)`` (Fractions there): the
    highest chance of a final score strictly below *target*, then the lowest expected score;
    the first candidate in greedy order among equals; one die only when strictly better.
    Fast enough to solve every target of every offered variant when the tables are built.
    """
    ctx = _Ctx(var)
    size = ctx.size
    scale = 36 ** ctx.n
    layers = var.locked_layers
    big = (max(ctx.scores) + 1) * scale  # above every E * scale: key = (scale - P) * big + E
    end_p = [scale if sc < target else 0 for sc in ctx.scores]  # the turn ends here
    end_e = [sc * scale for sc in ctx.scores]
    succ = _successors(var.tiles, var.moves)
    P = [[0] * size for _ in range(layers)]
    E = [[0] * size for _ in range(layers)]
    K = [[0] * size for _ in range(layers)]
    one_best = [[False] * size for _ in range(layers)]
    for locked in range(layers):
        P[locked][0] = end_p[0]
        K[locked][0] = (scale - end_p[0]) * big
    for s in ctx.order:
        if s == 0:
            continue
        for locked in range(layers):
            best = None
            for one_die, nxt in ctx.options(s, locked):
                lst, none = succ[s][1 if one_die else 0]
                kn, pn, en = K[nxt], P[nxt], E[nxt]
                tp = none * end_p[s]
                te = none * end_e[s]
                for w, cands in lst:
                    bs = cands[0]
                    if len(cands) > 1:
                        bk = kn[bs]
                        for c in cands:
                            if kn[c] < bk:
                                bk, bs = kn[c], c
                    tp += w * pn[bs]
                    te += w * en[bs]
                mul = 6 if one_die else 1
                qp, rp = divmod(tp * mul, 36)
                qe, re_ = divmod(te * mul, 36)
                assert rp == 0 and re_ == 0, "exact division failed"
                k = (scale - qp) * big + qe
                if best is None or k < best[0]:
                    best = (k, qp, qe, one_die)
            K[locked][s], P[locked][s], E[locked][s], one_best[locked][s] = best
    return TargetValues(var, target, scale, P, E, K, one_best)


def objective_values(var: Variant, objective: str, target: int | None = None) -> Values:
    """Exact values of an objective: keys[locked][s] (for max-shut and beat-target the pair
    (-P, E) of Fractions, lower is better), one_die_best, choice(locked, s, one_die, cands)."""
    if objective not in OBJECTIVES:
        raise ValueError("unknown objective %r" % objective)
    return _objective_keys(var, objective, target)


# ----- generic evaluation: decisions -> final-score distribution -----

def _objective_keys(var: Variant, objective: str, target: int | None):
    """Solve an objective exactly; return a Values whose keys order states (lower better)."""
    if objective == "min-expected":
        return solve_values(var)
    ctx = _Ctx(var)
    layers = var.locked_layers
    # key = (-P(success), E): maximise the chance, then minimise the expected score.
    if objective == "max-shut":
        success = [1 if sc == 0 else 0 for sc in ctx.scores]
        # a shut box always scores 0; other states may score 0 only under no scoring we have
    else:
        success = [1 if sc < target else 0 for sc in ctx.scores]
    K = [[None] * ctx.size for _ in range(layers)]
    one_best = [[False] * ctx.size for _ in range(layers)]
    zero = (Fraction(-success[0]), Fraction(ctx.scores[0]))

    def throw_value(s, groups, denom, k_next):
        p = Fraction(0)
        e = Fraction(0)
        for w, cands in groups:
            best = _best_after(s, cands, k_next)[0]
            if best is None:
                best = (Fraction(-success[s]), Fraction(ctx.scores[s]))
            p += w * best[0]
            e += w * best[1]
        return (p / denom, e / denom)

    for s in ctx.order:
        for locked in range(layers):
            if s == 0:
                K[locked][s] = zero
                continue
            best, best_one = None, False
            for one_die, nxt in ctx.options(s, locked):
                if one_die:
                    v = throw_value(s, ctx.one, 6, K[nxt])
                else:
                    v = throw_value(s, ctx.two, 36, K[nxt])
                if best is None or v < best:
                    best, best_one = v, one_die
            K[locked][s] = best
            one_best[locked][s] = best_one

    def choice(locked, s, one_die, cands):
        nxt = 1 if (one_die and var.one_die_mode == V.MODE_LOCKED) else locked
        return _best_after(s, cands, K[nxt] if layers == 2 else K[0])[1]

    return Values(var, 1, K, one_best, choice)


def distribution(var: Variant, dice_policy, move_policy) -> dict[int, Fraction]:
    """Final-score distribution from the start state, pushing probability forward.

    dice_policy(s, locked) -> list of (probability, one_die, next_locked);
    move_policy(s, locked, one_die, candidates) -> list of (probability, move mask); an empty
    list (no legal move) ends the turn.
    """
    ctx = _Ctx(var)
    mass: dict[tuple[int, int], Fraction] = {(var.start_mask(), 0): Fraction(1)}
    dist: dict[int, Fraction] = {}
    # process states with more open tiles first: every successor has fewer
    for s in reversed(ctx.order):
        for locked in (0, 1):
            p = mass.pop((s, locked), None)
            if p is None:
                continue
            if s == 0:
                dist[0] = dist.get(0, Fraction(0)) + p
                continue
            for pd, one_die, nxt in dice_policy(s, locked):
                groups, denom = (ctx.one, 6) if one_die else (ctx.two, 36)
                for w, cands in groups:
                    pt = p * pd * Fraction(w, denom)
                    moves = move_policy(s, nxt, one_die, cands)
                    if not moves:
                        sc = ctx.scores[s]
                        dist[sc] = dist.get(sc, Fraction(0)) + pt
                        continue
                    for pm, m in moves:
                        key = (s ^ m, nxt)
                        mass[key] = mass.get(key, Fraction(0)) + pt * pm
    assert not mass
    return dict(sorted(dist.items()))


class Result:
    """What `shutbox solve` reports for a variant and an objective or policy."""

    def __init__(self, var, how, dist, target=None, exact_expected=None):
        self.var = var
        self.how = how
        self.distribution = dist
        self.target = target
        self.expected_score = sum((sc * p for sc, p in dist.items()), Fraction(0))
        if exact_expected is not None:
            assert exact_expected == self.expected_score
        self.p_shut = dist.get(0, Fraction(0))
        self.p_beat_target = None
        if target is not None:
            self.p_beat_target = sum((p for sc, p in dist.items() if sc < target), Fraction(0))

    def p_at_most(self, limit: int) -> Fraction:
        """P(final score <= limit)."""
        return sum((p for sc, p in self.distribution.items() if sc <= limit), Fraction(0))

    def as_json(self) -> dict:
        """A JSON-ready dict: floats rounded to 6 places plus the exact fractions as strings."""
        out = {"variant": self.var.names(), "how": self.how,
               "expected_score": round(float(self.expected_score), 6),
               "expected_score_exact": str(self.expected_score),
               "p_shut": round(float(self.p_shut), 6), "p_shut_exact": str(self.p_shut),
               "distribution": {str(sc): round(float(p), 9)
                                for sc, p in self.distribution.items()},
               "distribution_exact": {str(sc): str(p) for sc, p in self.distribution.items()}}
        if self.target is not None:
            out["target"] = self.target
            out["p_beat_target"] = round(float(self.p_beat_target), 6)
            out["p_beat_target_exact"] = str(self.p_beat_target)
        return out


def _option_dice(var, ctx, s, locked, pick_one):
    """dice_policy helper: the option list for a state, choosing with pick_one(options)."""
    opts = ctx.options(s, locked)
    if len(opts) == 1:
        one_die, nxt = opts[0]
        return [(Fraction(1), one_die, nxt)]
    return pick_one(opts)


def solve(var: Variant, objective: str | None = None, target: int | None = None,
          policy: str | None = None) -> Result:
    """Solve *var* for an objective (optimal play) or evaluate a policy, exactly."""
    ctx = _Ctx(var)
    if policy is not None:
        if policy == "greedy":
            def dice(s, locked):
                def pick(opts):
                    want = greedy_one_die(s)
                    for one_die, nxt in opts:
                        if one_die == want:
                            return [(Fraction(1), one_die, nxt)]
                    return [(Fraction(1),) + opts[0]]
                return _option_dice(var, ctx, s, locked, pick)

            def move(s, locked, one_die, cands):
                for m in cands:
                    if m & ~s == 0:
                        return [(Fraction(1), m)]
                return []
        elif policy == "random":
            def dice(s, locked):
                return _option_dice(var, ctx, s, locked, lambda opts: [
                    (Fraction(1, len(opts)), o, n) for o, n in opts])

            def move(s, locked, one_die, cands):
                legal = [m for m in cands if m & ~s == 0]
                return [(Fraction(1, len(legal)), m) for m in legal]
        else:
            raise ValueError("unknown policy %r" % policy)
        return Result(var, "policy " + policy, distribution(var, dice, move), target)
    if objective not in OBJECTIVES:
        raise ValueError("unknown objective %r" % objective)
    if objective == "beat-target" and target is None:
        raise ValueError("beat-target needs a target")
    values = _objective_keys(var, objective, target)

    def dice_opt(s, locked):
        opts = ctx.options(s, locked)
        if len(opts) == 1:
            return [(Fraction(1),) + opts[0]]
        want = values.one_die_best[locked][s]
        for one_die, nxt in opts:
            if one_die == want:
                return [(Fraction(1), one_die, nxt)]
        raise AssertionError("no option")

    def move_opt(s, locked, one_die, cands):
        # `locked` here is already the next-locked flag of the chosen dice option
        m = values.choice(locked, s, False, cands)
        return [(Fraction(1), m)] if m else []

    exact = None
    if objective == "min-expected":
        exact = values.expected(var.start_mask(), 0)
    return Result(var, "objective " + objective, distribution(var, dice_opt, move_opt),
                  target, exact)
