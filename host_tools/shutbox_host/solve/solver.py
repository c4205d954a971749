# Exact solver of Shut the Box variants: optimal and heuristic play, solved with exact arithmetic.
"""Exact solution of one Shut the Box variant over the states (open mask, locked flag).

The state of a turn is the mask of open tiles (tile k = bit k-1) plus, in the `locked`
one-die mode, whether one die has been chosen (a second layer of states). Every move shuts
at least one tile, so a move's result is a smaller mask: the states are solved in
increasing mask order, each exactly once.

Arithmetic is exact, in ints. Every expectation is kept as ``G = E * 36**N`` (N tiles): the
expectation of a state with n open tiles has a denominator dividing 36**n (each throw has
probability w/36, a face of one die 6/36), so G is an integer for every state and the
recurrence ``G[s] = sum(w * G[s']) / 36`` divides exactly. Fractions are made only for the
result (``Result``, ``Analysis``), for the reader.

Where the speed comes from (the nine-tile min-expected solve with its exact distribution:
``shutbox bench --only solve``, figures in the README):

- One int key per state for every objective. min-expected's key is G; the others' key is
  ``L * big + G``, L the objective's expected loss x 36**N (max-shut: not shut; min-shut:
  shut; beat-target: a final score of T or more, or with ties half, 1 for T and 2 above)
  and big above every G: one recurrence, one int comparison per move, the tie-break on the
  expected score built in (``_Solved``).
- The rules as data, built once per rule from the firmware's own functions (cached for the
  process: ``_rows``, ``_scores``, ``_allowed``): per open mask, the throws grouped into
  slots (throws with the same candidate moves, for `any` one total, weighed in 36ths) with
  the legal results of each slot in greedy order, split into single results and tuples. A
  state then costs one C-level ``min(..., key=K.__getitem__)`` per slot with a choice and a
  ``sum(map(mul, weights, ...))`` (``_pass``), which also records the chosen results.
- The final-score distribution pushed forward from the start (``_forward``): one int per
  state (mass x 36**N, exact: a state with n >= 1 open tiles is reached after at most N - n
  throws, so its mass divides by 36), along the recorded choices; no distribution per state,
  no Fractions on the way. The random policy does the same with a common denominator.
- ``Analysis`` (shutbox advise) evaluates E, P(shut), P(score < T) and P(score = T) of the
  solved play in one backward pass, the four packed into one int in a base above each.

Readings this module pins down (see also docs/solver.md, "Rules engine and solver"):

- greedy (the solver's page, docs/rules.md: "close the high tiles first and use as few
  tiles as you can"): among the legal sets, take the one whose highest tile is highest;
  among those, the one with the fewest tiles; then the one whose tiles read from the top are
  highest (mask order). It averages 11.3733 on the standard box (the solver's page: 11.37).
  Reading "highest tiles first" as a plain comparison of the sets' tiles from the top down
  gives the same 11.3733; ranking "fewest tiles" first instead gives 11.3231, which is not
  the figure quoted.
  With a one-die choice, greedy throws one die whenever the rules allow it and the open
  tiles add up to 6 or less (``greedy_one_die``).
- random: every legal set is equally likely; with a one-die choice, one or two dice with
  probability 1/2 each.
- the box's computer levels are these rules (shutbox.engine, LEVEL_*): easy = policy random,
  medium = policy greedy, hard = objective min-expected; the tests check the engine's levels
  give exactly these distributions.
- Objectives: min-expected minimises the expected final score; max-shut maximises the chance
  of shutting the box, ties broken by the lower expected score; min-shut minimises that
  chance, ties broken the same way; beat-target maximises the chance of a final score
  strictly below T, ties broken by the lower expected score; with tie "half" a final score
  equal to T counts half a win (a draw; the play site of docs/rules.md: "halfway between a
  win and a loss"), so it maximises P(score < T) + P(score = T) / 2. Among equal moves the
  first in greedy order wins (the firmware does the same).
- max-expected (the worst play) maximises the expected final score; payout (a table of
  Fractions per final score, higher is better) maximises the expected payout: its loss is
  (the highest payout - the payout) x D, D the payouts' common denominator, so the ints of
  the recurrence stay exact (the match solver's seats play this objective).
- survive (a policy, kleinpanic's survival ranking): each throw takes the move whose
  position has the best chance that its next throw can be played (with the dice that give
  it), the first in greedy order on a tie; one die where that chance is strictly better.
  P(survive) of a position is (36 - the weight of its unplayable throws) / 36.
- Variant.max_tiles (host only): a move shuts at most that many tiles (candidate_masks'
  limit), Durango Bill's "at most two tiles a throw" with 2.
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

import math
from fractions import Fraction
from functools import cache, partial
from operator import mul

from shutbox import variants as V
from shutbox.engine import Engine, Rules, tile_sum
from shutbox_host.solve import engine_extra

PIPS = range(1, 7)
OBJECTIVES = ("min-expected", "max-shut", "beat-target")
# min-shut: the least chance of shutting the box (then the lowest expected score);
# max-expected: the worst play, the highest expected final score (a reference figure)
ALL_OBJECTIVES = OBJECTIVES + ("min-shut", "max-expected")
TIES = ("loss", "half")  # beat-target: a final score equal to the target loses / is half a win
# greedy: the solver's page's rule of thumb; random: any legal move; survive: the move whose
# position has the best chance that the next throw can be played (kleinpanic's survival ranking)
POLICIES = ("greedy", "random", "survive")


def _index(names, name):
    """Return the index of *name* in *names*, or raise ValueError naming the choices."""
    if name not in names:
        raise ValueError("unknown %r: choose one of %s" % (name, ", ".join(names)))
    return names.index(name)


class Variant(Rules):
    """A rule set as small ints: the firmware's own ``Rules`` plus the CLI's names, and the
    host's comparisons (the box's Rules carries only its attributes).

    *max_tiles* (host only, 0: no limit): a move shuts at most this many tiles (Durango
    Bill's "the number of digits that can be flipped on any dice roll is limited to two" is
    ``moves=any, max_tiles=2``); a throw whose every legal set is longer cannot be played.
    """

    def __init__(self, tiles=9, one_die=V.ONE_DIE_HIGH_SHUT, one_die_mode=V.MODE_OPTIONAL,
                 moves=V.MOVES_ANY, scoring=V.SCORING_SUM, start=V.START_ALL_OPEN,
                 max_tiles=0):
        super().__init__(tiles, one_die, one_die_mode, moves, scoring, start)
        if not (isinstance(max_tiles, int) and 0 <= max_tiles <= V.MAX_TILES):
            raise ValueError("bad max-tiles: %r" % (max_tiles,))
        self.max_tiles = max_tiles

    def key(self) -> tuple:
        """The variant as a tuple (tiles, one_die, one_die_mode, moves, scoring, start), with
        max_tiles after them when it is set."""
        k = engine_extra.key(self)
        return k + (self.max_tiles,) if self.max_tiles else k

    def __eq__(self, other):
        if isinstance(other, Variant):
            return self.key() == other.key()
        return isinstance(other, Rules) and self.key() == engine_extra.key(other)

    def __hash__(self):
        return hash(self.key())

    def __repr__(self):
        n = self.names()
        return "Rules(%d, %s, %s, %s, %s, %s%s)" % (
            self.tiles, n["one-die"], n["one-die-mode"], n["moves"], n["scoring"], n["start"],
            ", max-tiles %d" % self.max_tiles if self.max_tiles else "")

    @classmethod
    def from_names(cls, tiles=9, one_die="high-shut", one_die_mode="optional", moves="any",
                   scoring="sum", start="all-open", max_tiles=0):
        """Build a variant from the CLI names (ValueError names the choices)."""
        return cls(tiles, _index(V.ONE_DIE, one_die), _index(V.ONE_DIE_MODE, one_die_mode),
                   _index(V.MOVES, moves), _index(V.SCORING, scoring),
                   _index(V.START, start), max_tiles)

    def names(self) -> dict:
        """Return the variant as CLI names (with "max-tiles" when it is set)."""
        out = {"tiles": self.tiles, "one-die": V.ONE_DIE[self.one_die],
               "one-die-mode": V.ONE_DIE_MODE[self.one_die_mode],
               "moves": V.MOVES[self.moves], "scoring": V.SCORING[self.scoring],
               "start": V.START[self.start]}
        if self.max_tiles:
            out["max-tiles"] = self.max_tiles
        return out

    def label(self) -> str:
        """Return a short label such as ``9/high-shut/optional/any/sum`` (``.../max2`` with
        max_tiles 2)."""
        n = self.names()
        return "%d/%s/%s/%s/%s%s" % (self.tiles, n["one-die"], n["one-die-mode"], n["moves"],
                                     n["scoring"],
                                     "/max%d" % self.max_tiles if self.max_tiles else "")

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
    """Sort key of the solver's page's rule of thumb: higher is better (see module docstring)."""
    return (mask.bit_length(), -bin(mask).count("1"), mask)


@cache
def _subsets_summing(total: int, top: int = V.MAX_TILES) -> tuple[int, ...]:
    """Every non-empty set of tiles 1..top (as a mask) whose numbers add up to *total*, in
    mask order (cached). Built tile by tile from the top (with or without tile *top*), each
    checked with the engine's own tile_sum."""
    if total <= 0 or top <= 0:
        return ()
    out = list(_subsets_summing(total, top - 1))
    if top == total:
        out.append(1 << (top - 1))
    elif top < total:
        out += [m | 1 << (top - 1) for m in _subsets_summing(total - top, top - 1)]
    assert all(tile_sum(m) == total for m in out)
    return tuple(sorted(out))


def candidate_masks(moves: int, a: int, b: int, limit: int = 0) -> list[int]:
    """Every move mask a throw (a, b) may shut on a full 12-tile box, best greedy move first.

    (a, b): two dice, or one die *a* with b == 0. The legal moves in a position are the
    candidates whose tiles are all open. *limit* (0: none): only sets of at most that many
    tiles (Variant.max_tiles).
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
    if limit:
        found = [m for m in found if bin(m).count("1") <= limit]
    return sorted(set(found), key=greedy_key, reverse=True)


def legal_moves(open_: int, moves: int, a: int, b: int, limit: int = 0) -> list[int]:
    """The legal move masks for throw (a, b), best greedy move first (*limit*: see
    candidate_masks)."""
    return [m for m in candidate_masks(moves, a, b, limit) if m & ~open_ == 0]


def greedy_one_die(open_: int) -> bool:
    """Greedy's one-die choice where the rules leave it free: when the open tiles sum to <= 6."""
    return tile_sum(open_) <= 6


# ----- throws grouped by their candidate list -----

def throw_groups(moves: int, limit: int = 0):
    """Return (two, one): lists of (weight, candidates) for two dice (weights /36) and one die.

    Throws with the same candidate list are merged (for `any` only the total matters).
    """
    two: dict[tuple, int] = {}
    for a in PIPS:
        for b in PIPS:
            key = tuple(candidate_masks(moves, a, b, limit))
            two[key] = two.get(key, 0) + 1
    one = [(1, tuple(candidate_masks(moves, a, 0, limit))) for a in PIPS]
    return [(w, c) for c, w in two.items()], one


# ----- the rules as data: the firmware's answers, asked once per rule -----

@cache
def _scores(tiles: int, scoring: int) -> tuple[int, ...]:
    """The final score of every open mask of a *tiles* box (the firmware's Engine.score)."""
    eng = _rules_engine(tiles, V.ONE_DIE_NEVER, scoring, V.START_ALL_OPEN)
    return tuple(map(eng.score, range(1 << tiles)))


@cache
def _allowed(tiles: int, one_die: int) -> bytes:
    """Per open mask, 1 where the rules allow one die (the firmware's one_die_allowed)."""
    eng = _rules_engine(tiles, one_die, V.SCORING_SUM, V.START_ALL_OPEN)
    return bytes(map(eng.one_die_allowed, range(1 << tiles)))


def max_tiles(var) -> int:
    """The move limit of *var* (Variant.max_tiles; 0 for the box's own Rules: none)."""
    return getattr(var, "max_tiles", 0)


def var_rows(var) -> tuple:
    """_rows of a variant (its tiles, moves rule and move limit)."""
    return _rows(var.tiles, var.moves, max_tiles(var))


@cache
def _rows(tiles: int, moves: int, limit: int = 0) -> tuple:
    """Per open mask, its throws for two dice and for one die: ((single, multi, w, none),
    (single, multi, w, none)).

    The throws are grouped into slots: a list of candidate moves that several throws share
    (for `any`, one total), weighed in 36ths (each face of one die weighs 6/36). At a state,
    *single* holds the result (the open mask after the move) of each slot with one legal
    move, *multi* a tuple of the results of each slot with more, in greedy order; *w* the
    weights of those slots in that order (single first); *none* the weight of the throws
    with no legal move (the turn ends).
    """
    size = 1 << tiles
    full = size - 1
    out = []
    for groups, mul_ in zip(throw_groups(moves, limit), (1, 6), strict=True):
        weight: dict[tuple, int] = {}
        for w, cands in groups:
            key = tuple(m for m in cands if m & full == m)
            weight[key] = weight.get(key, 0) + w * mul_
        off = weight.pop((), 0)  # throws no tile of this box can make
        slots = list(weight.items())
        rows = []
        for s in range(size):
            single, multi, ws, wm = [], [], [], []
            none = off
            for cands, w in slots:
                res = [s ^ m for m in cands if m & s == m]
                if not res:
                    none += w
                elif len(res) == 1:
                    single.append(res[0])
                    ws.append(w)
                else:
                    multi.append(tuple(res))
                    wm.append(w)
            rows.append((tuple(single), tuple(multi), tuple(ws + wm), none))
        out.append(rows)
    return tuple(zip(*out, strict=True))


class _Ctx:
    """Per-variant constants: throw groups, scores, one-die rule, dice options."""

    def __init__(self, var: Variant):
        self.var = var
        self.n = var.tiles
        self.size = 1 << var.tiles
        self.two, self.one = throw_groups(var.moves, max_tiles(var))
        self.allowed = [bool(a) for a in _allowed(var.tiles, var.one_die)]
        self.scores = _scores(var.tiles, var.scoring)
        # states in order of open-tile count: every successor comes earlier
        self.order = sorted(range(self.size), key=lambda s: bin(s).count("1"))

    def options(self, s: int, locked: int):
        """The dice options before a throw: list of (one_die, next_locked) pairs."""
        return _options(self.var, self.allowed[s], locked)


def _options(var: Variant, allowed, locked: int):
    """The dice options before a throw: list of (one_die, next_locked) pairs."""
    if not allowed:
        return [(False, locked)]
    mode = var.one_die_mode
    if mode == V.MODE_FORCED or (mode == V.MODE_LOCKED and locked):
        return [(True, locked)]
    return [(False, 0), (True, 1 if mode == V.MODE_LOCKED else 0)]


# ----- the recurrence: one int key per state -----

_FREE, _ONE, _LOCK0 = 0, 1, 2  # _pass, where one die is allowed: choose / throw it / choose,
# with the one-die results in the other (locked) layer


def _pass(rows, term, allowed, how: int, K: list, other: list | None = None):
    """Fill one layer K (lower is better) in increasing mask order; return (one-die flags,
    chosen results).

    K[s] = the best dice option's (sum of weight x lowest successor key + no-move weight x
    term[s]) / 36. Every move clears bits, so successors are smaller masks, solved before.
    chosen[s]: the results of the option taken, aligned with its slots' weights (the first
    lowest in greedy order in each slot). One die only when strictly better than two.
    """
    size = len(rows)
    flags = bytearray(size)
    chosen: list = [()] * size
    get = K.__getitem__
    pick = partial(min, key=get)  # a slot's lowest result, the first on a tie
    opick = partial(min, key=other.__getitem__) if other is not None else pick
    oget = other.__getitem__ if other is not None else get
    K[0] = term[0]  # box shut: no throw
    for s in range(1, size):
        two, one = rows[s]
        if allowed[s] and how == _ONE:
            single, multi, w, none = one
            ch = single + tuple(map(pick, multi)) if multi else single
            acc = none * term[s] + sum(map(mul, w, map(get, ch)))
            flags[s] = 1
        else:
            single, multi, w, none = two
            ch = single + tuple(map(pick, multi)) if multi else single
            acc = none * term[s] + sum(map(mul, w, map(get, ch)))
            if allowed[s]:
                single, multi, w, none = one
                c1 = single + tuple(map(opick, multi)) if multi else single
                a1 = none * term[s] + sum(map(mul, w, map(oget, c1)))
                if a1 < acc:
                    acc, ch = a1, c1
                    flags[s] = 1
        q, r = divmod(acc, 36)
        if r:
            raise AssertionError("exact division failed")
        K[s] = q
        chosen[s] = ch
    return flags, chosen


def _keys(var: Variant, term: list) -> tuple[list, list, list]:
    """The keys, one-die flags and chosen results of every layer for terminal keys *term*."""
    rows = var_rows(var)
    allowed = _allowed(var.tiles, var.one_die)
    size = 1 << var.tiles
    if var.locked_layers == 2:
        # layer 1 (one die chosen): one die wherever allowed, as in the forced mode
        k1 = [0] * size
        f1, c1 = _pass(rows, term, allowed, _ONE, k1)
        k0 = [0] * size
        f0, c0 = _pass(rows, term, allowed, _LOCK0, k0, k1)
        return [k0, k1], [f0, f1], [c0, c1]
    k = [0] * size
    f, c = _pass(rows, term, allowed, _ONE if var.one_die_mode == V.MODE_FORCED else _FREE, k)
    return [k], [f], [c]


def _loss(objective: str, target: int | None, tie: str, top: int):
    """The objective's loss of a final score (an int, lower is better) and its largest
    value; (None, 0) for min-expected (the score itself, with no tie-break). *top*: the
    highest final score of the box."""
    if objective == "min-expected":
        return None, 0
    if objective == "max-shut":
        return (lambda sc: 0 if sc == 0 else 1), 1
    if objective == "min-shut":
        return (lambda sc: 1 if sc == 0 else 0), 1
    if objective == "max-expected":
        return (lambda sc: top - sc), top
    if target is None:
        raise ValueError("beat-target needs a target")
    if tie == "half":
        return (lambda sc: 0 if sc < target else (1 if sc == target else 2)), 2
    return (lambda sc: 0 if sc < target else 1), 1


def _check(objective: str, tie: str) -> None:
    """ValueError for an objective or a tie rule the solver does not know."""
    if objective not in ALL_OBJECTIVES and objective != "payout":
        raise ValueError("unknown objective %r" % objective)
    if tie not in TIES:
        raise ValueError("unknown tie rule %r" % tie)


def payout_ints(payout: dict, scores) -> tuple[dict, int]:
    """({score: int}, D): a payout table of Fractions over *scores* as ints x D, D the
    least common denominator. ValueError when a score has no payout."""
    missing = sorted(set(scores) - set(payout))
    if missing:
        raise ValueError("the payout table has no entry for the final score %d" % missing[0])
    fr = {sc: Fraction(payout[sc]) for sc in set(scores)}
    d = math.lcm(1, *(f.denominator for f in fr.values()))
    return {sc: f.numerator * (d // f.denominator) for sc, f in fr.items()}, d


class _Solved:
    """One objective solved: keys K[layer][s] = L * big + E as ints (L: the expected loss x
    36**N, E: the expected final score x 36**N; big = 0 for min-expected, where K = E), the
    one-die flags, the chosen results (see _pass) and the terminal keys.

    objective "payout" (with *payout*, {final score: Fraction}, higher is better): the loss
    of a final score is (the highest payout - its payout) x D (D: payout_ints), so the play
    maximises the expected payout, ties broken by the lower expected score.
    """

    def __init__(self, var: Variant, objective: str, target: int | None = None,
                 tie: str = "loss", payout: dict | None = None):
        if payout is not None:
            objective = "payout"
        _check(objective, tie)
        self.var = var
        self.objective = objective
        self.target = target
        self.tie = tie
        scores = _scores(var.tiles, var.scoring)
        self.scale = scale = 36 ** var.tiles
        self.payout_d = self.payout_top = 0
        if objective == "payout":
            if payout is None:
                raise ValueError("the payout objective needs a payout table")
            ints, self.payout_d = payout_ints(payout, scores)
            self.payout_top = top = max(ints.values())
            loss, lmax = (lambda sc: top - ints[sc]), top - min(ints.values())
        else:
            loss, lmax = _loss(objective, target, tie, max(scores))
        if loss is None:
            self.big = 0
            self.term = [sc * scale for sc in scores]
            self.loss_max = 0
        else:
            self.big = big = (max(scores) + 1) * scale  # above every E x scale
            term = {sc: (loss(sc) * big + sc) * scale for sc in set(scores)}  # each score once
            self.term = [term[sc] for sc in scores]
            self.loss_max = max(lmax, 1)
        self.K, self.flags, self.chosen = _keys(var, self.term)

    def split(self, key: int) -> tuple[int, int]:
        """(L, E) of a key, both x scale (L = E for min-expected)."""
        if not self.big:
            return key, key
        return divmod(key, self.big)

    def payout_of(self, key: int) -> Fraction:
        """The expected payout of a key (objective "payout")."""
        loss = self.split(key)[0]
        return Fraction(self.payout_top * self.scale - loss, self.scale * self.payout_d)


# ----- the final-score distribution, pushed forward from the start -----

def _forward(var: Variant, flags: list, chosen: list) -> dict[int, int]:
    """The final-score distribution from the start as {score: probability x 36**N}.

    flags[layer][s]: one die at (s, layer); chosen[layer][s]: the results of that option,
    aligned with its slots' weights. One int per state: mass x 36**N; a state with n open
    tiles is reached after at most N - n throws, so its mass divides by 36 (n >= 1).
    """
    rows = var_rows(var)
    scores = _scores(var.tiles, var.scoring)
    layers = len(flags)
    mass = [[0] * (1 << var.tiles) for _ in range(layers)]
    start = var.start_mask()
    mass[0][start] = 36 ** var.tiles
    dist: dict[int, int] = {}
    for s in range(start, 0, -1):
        for lk in range(layers):
            p = mass[lk][s]
            if not p:
                continue
            one = flags[lk][s]
            _single, _multi, w, none = rows[s][one]
            p, r = divmod(p, 36)
            if r:
                raise AssertionError("exact division failed")
            if none:
                sc = scores[s]
                dist[sc] = dist.get(sc, 0) + none * p
            out = mass[layers - 1 if one else lk]  # locked mode: one die locks it in
            for b, wb in zip(chosen[lk][s], w, strict=True):
                out[b] += wb * p
    shut = sum(mass[lk][0] for lk in range(layers))
    if shut:
        dist[0] = dist.get(0, 0) + shut
    return dist


def _greedy(var: Variant) -> tuple[list, list]:
    """The greedy policy per layer: (one-die flags, chosen results). One die where imposed,
    or where free and the open tiles add up to 6 or less (greedy_one_die); the first legal
    move of each slot."""
    rows = var_rows(var)
    allowed = _allowed(var.tiles, var.one_die)
    flags, chosen = [], []
    for lk in range(var.locked_layers):
        fl = bytearray(1 << var.tiles)
        ch: list = [()] * (1 << var.tiles)
        for s in range(1, 1 << var.tiles):
            opts = _options(var, allowed[s], lk)
            one = opts[0][0] if len(opts) == 1 else greedy_one_die(s)
            single, multi, _w, _none = rows[s][one]
            fl[s] = one
            ch[s] = single + tuple(res[0] for res in multi)
        flags.append(fl)
        chosen.append(ch)
    return flags, chosen


def survival36(var) -> tuple[tuple, tuple]:
    """36 x P(the next throw can be played) of every open mask: (two dice, one die). A shut
    box counts as surviving (nothing is left to throw for)."""
    return _survival36(var.tiles, var.moves, max_tiles(var))


@cache
def _survival36(tiles: int, moves: int, limit: int) -> tuple[tuple, tuple]:
    rows = _rows(tiles, moves, limit)
    two, one = [36 - row[0][3] for row in rows], [36 - row[1][3] for row in rows]
    two[0] = one[0] = 36
    return tuple(two), tuple(one)


class Policy:
    """A fixed way of playing, in the shape Analysis and _forward read (flags[layer][s]: one
    die; chosen[layer][s]: the result taken in each slot, aligned with the slots' weights),
    with K[layer][s] the key that ranks the results of a throw (lower first; equal keys keep
    greedy order) and term (keys of the end states, for the options' keys)."""

    big = 0

    def __init__(self, var, objective: str, flags: list, chosen: list, K: list, term: list,
                 target: int | None = None, tie: str = "loss"):
        self.var = var
        self.objective = objective
        self.flags, self.chosen, self.K, self.term = flags, chosen, K, term
        self.scale = 36 ** var.tiles
        self.target = target
        self.tie = tie

    def split(self, key: int) -> tuple[int, int]:
        return key, key


def rank_choices(var, key_of, flags_of) -> tuple[list, list]:
    """(flags, chosen) of a policy that takes, in each slot, the result with the lowest
    key_of(layer, s, result) (the first in greedy order on a tie) and throws one die where
    flags_of(layer, s, options) says (options: _options' list, more than one entry)."""
    rows = var_rows(var)
    allowed = _allowed(var.tiles, var.one_die)
    layers = var.locked_layers
    flags, chosen = [], []
    for lk in range(layers):
        fl = bytearray(1 << var.tiles)
        ch: list = [()] * (1 << var.tiles)
        for s in range(1, 1 << var.tiles):
            opts = _options(var, allowed[s], lk)
            one = opts[0][0] if len(opts) == 1 else flags_of(lk, s, opts)
            single, multi, _w, _none = rows[s][one]
            nxt = layers - 1 if one else lk
            fl[s] = one
            ch[s] = single + tuple(min(res, key=lambda r, n=nxt, s=s: key_of(n, s, r))
                                   for res in multi)
        flags.append(fl)
        chosen.append(ch)
    return flags, chosen


def survive_policy(var, target: int | None = None, tie: str = "loss") -> Policy:
    """kleinpanic's survival ranking as a policy: each throw takes the move that leaves the
    best chance that the next throw can be played (with the dice that give it), the first
    in greedy order on a tie; one die where it gives a strictly better chance than two."""
    two, one = survival36(var)
    layers = var.locked_layers
    allowed = _allowed(var.tiles, var.one_die)
    size = 1 << var.tiles
    # the chance of each state in each layer, with the dice the policy throws there
    best = []
    for lk in range(layers):
        row = []
        for s in range(size):
            opts = _options(var, allowed[s], lk)
            row.append(max(one[s] if o else two[s] for o, _n in opts))
        best.append(row)
    keys = [[36 - b for b in row] for row in best]
    flags, chosen = rank_choices(
        var, lambda lk, s, r: keys[lk][r], lambda lk, s, opts: int(one[s] > two[s]))
    return Policy(var, "survive", flags, chosen, keys, [36] * size, target, tie)


def _forward_random(var: Variant) -> tuple[dict[int, int], int]:
    """The random policy's distribution: ({score: probability x D**N}, D**N).

    Each throw's probability is (1 or 1/2 for the coin) x weight/36 x 1/(legal moves), a
    multiple of 1/D with D = 72 x the lcm of the move counts: exact ints again.
    """
    rows = var_rows(var)
    scores = _scores(var.tiles, var.scoring)
    allowed = _allowed(var.tiles, var.one_die)
    layers = var.locked_layers
    lcm = math.lcm(1, *{len(res) for row in rows for opt in row for res in opt[1]})
    d = 72 * lcm
    total = d ** var.tiles
    mass = [[0] * (1 << var.tiles) for _ in range(layers)]
    start = var.start_mask()
    mass[0][start] = total
    dist: dict[int, int] = {}
    for s in range(start, 0, -1):
        for lk in range(layers):
            p = mass[lk][s]
            if not p:
                continue
            p, r = divmod(p, d)
            if r:
                raise AssertionError("exact division failed")
            opts = _options(var, allowed[s], lk)
            q = (2 if len(opts) == 1 else 1) * lcm * p  # the coin, when there is a choice
            for one_die, nxt in opts:
                single, multi, w, none = rows[s][one_die]
                if none:
                    sc = scores[s]
                    dist[sc] = dist.get(sc, 0) + none * q
                out = mass[nxt]
                for b, wb in zip(single, w, strict=False):  # w: single's first
                    out[b] += wb * q
                for res, wb in zip(multi, w[len(single):], strict=True):
                    share = wb * q // len(res)
                    for b in res:
                        out[b] += share
    shut = sum(mass[lk][0] for lk in range(layers))
    if shut:
        dist[0] = dist.get(0, 0) + shut
    return dist, total


# ----- what the tables, the tests and the host tools read -----

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


def _chooser(var: Variant, K: list):
    """choice(locked, s, one_die, cands): the candidate legal from *s* with the lowest key
    of the next layer (the first, in greedy order, on a tie); 0 when none is legal."""
    locked_mode = var.locked_layers == 2

    def choice(locked, s, one_die, cands):
        k = K[1 if (locked_mode and (locked or one_die)) else 0]
        best, bm = None, 0
        for m in cands:
            if m & ~s == 0 and (best is None or k[s ^ m] < best):
                best, bm = k[s ^ m], m
        return bm

    return choice


def solve_values(var: Variant) -> Values:
    """Solve min-expected exactly with ints G = E * 36**N; record the optimal decisions.

    Among equal successors the first candidate (greedy order) is chosen; one die is chosen
    only when strictly better than two.
    """
    sol = _Solved(var, "min-expected")
    return Values(var, sol.scale, sol.K, [[bool(f) for f in fl] for fl in sol.flags],
                  _chooser(var, sol.K))


class TargetValues:
    """Exact beat-target values of a variant as ints (see ``solve_target_values``).

    p[locked][s] = P(final score < target) * pscale (tie "half": P(final score < target) +
    P(final score = target) / 2, pscale twice scale) and e[locked][s] = E(final score) *
    scale under optimal beat-target play; key(locked, s) orders states like the solver's
    (-P, E) key (lower is better).
    """

    def __init__(self, var, target, scale, p, e, keys, one_die_best, pscale=None):
        self.var = var
        self.target = target
        self.scale = scale
        self.pscale = scale if pscale is None else pscale
        self.p = p
        self.e = e
        self.keys = keys  # keys[locked][s]: one int, ordered as (-P, E)
        self.one_die_best = one_die_best

    def p_beat(self, s: int, locked: int = 0) -> Fraction:
        """Exact P(final score < target) from (s, locked), a tie counted half with tie
        "half"."""
        return Fraction(self.p[locked][s], self.pscale)

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


def solve_target_values(var: Variant, target: int, tie: str = "loss") -> TargetValues:
    """Solve beat-target exactly with ints P * 36**N and E * 36**N (one key per state).

    The highest chance of a final score strictly below *target* (tie "half": plus half the
    chance of one equal to it), then the lowest expected score; the first candidate in
    greedy order among equals; one die only when strictly better. The key is (the expected
    loss) * big + E. Fast enough to solve every target of every offered variant when the
    tables are built.
    """
    sol = _Solved(var, "beat-target", target, tie)
    scale, big = sol.scale, sol.big
    lmax = sol.loss_max  # 1, or 2 with tie "half" (a tie loses 1, a loss 2)
    p, e = [], []
    for k in sol.K:
        le = [divmod(key, big) for key in k]
        p.append([lmax * scale - x[0] for x in le])
        e.append([x[1] for x in le])
    return TargetValues(var, target, scale, p, e, sol.K,
                        [[bool(f) for f in fl] for fl in sol.flags], lmax * scale)


def objective_values(var: Variant, objective: str, target: int | None = None,
                     tie: str = "loss") -> Values:
    """Exact values of an objective: keys[locked][s] (for the other objectives the pair
    (-U, E) of Fractions, U the chance of success, a tie counting half with tie="half", E
    the expected final score; lower is better), one_die_best, choice(locked, s, one_die,
    cands)."""
    if objective == "min-expected":
        return solve_values(var)
    sol = _Solved(var, objective, target, tie)
    scale, lmax = sol.scale, sol.loss_max
    keys = []
    for k in sol.K:
        row = []
        for key in k:
            ls, es = sol.split(key)
            row.append((Fraction(ls, scale * lmax) - 1, Fraction(es, scale)))
        keys.append(row)
    return Values(var, 1, keys, [[bool(f) for f in fl] for fl in sol.flags],
                  _chooser(var, sol.K))


# ----- generic evaluation: decisions -> final-score distribution -----

def distribution(var: Variant, dice_policy, move_policy) -> dict[int, Fraction]:
    """Final-score distribution from the start state of any policy, pushing probability
    forward in Fractions (the tests' way to check the engine's own choices).

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


# ----- any position: what each choice gives (shutbox advise) -----

class Analysis:
    """Optimal play of one objective (or a policy's play) from every position, and what it
    gives there.

    For each state (open mask, layer): the expected final score, P(shut) and, with a target,
    P(score < T) and P(score = T), all of the objective's optimal play, exact. They come from
    one backward pass over the solved choices with the four quantities packed into one int
    (each below the base BASE, so sums of weighted values never mix them up). With a
    *payout* table (objective "payout") also the expected payout; *policy* "survive" plays
    kleinpanic's survival ranking instead of an objective. Every position also gives
    P(survive): the chance that its next throw can be played, with the dice the play throws.
    """

    def __init__(self, var: Variant, objective: str = "min-expected",
                 target: int | None = None, tie: str = "loss", payout: dict | None = None,
                 policy: str | None = None):
        if objective == "beat-target" and target is None:
            raise ValueError("beat-target needs a target")
        self.var = var
        if policy == "survive" or objective == "survive":
            self.sol = sol = survive_policy(var, target, tie)
        elif policy is not None:
            raise ValueError("unknown policy %r" % policy)
        else:
            self.sol = sol = _Solved(var, objective, target, tie, payout)
        scores = _scores(var.tiles, var.scoring)
        scale = sol.scale
        self.base = base = (max(scores) + 1) * scale + 1
        t = -1 if target is None else target
        self.vterm = [scale * (sc + base * ((sc == 0) + base * ((sc < t) + base * (sc == t))))
                      for sc in scores]
        self.surv = survival36(var)
        rows = var_rows(var)
        layers = len(sol.K)
        self.V = V = [[0] * (1 << var.tiles) for _ in range(layers)]
        for lk in reversed(range(layers)):  # layer 0 reads layer 1 after one die
            out = V[lk]
            out[0] = self.vterm[0]
            for s in range(1, 1 << var.tiles):
                one = sol.flags[lk][s]
                _single, _multi, w, none = rows[s][one]
                vn = V[layers - 1 if one else lk]
                acc = none * self.vterm[s] + sum(map(mul, w, map(vn.__getitem__,
                                                                 sol.chosen[lk][s])))
                out[s], r = divmod(acc, 36)
                if r:
                    raise AssertionError("exact division failed")

    def _values(self, packed: int, key: int, s: int, one: int) -> dict:
        """The exact quantities of a packed value (*key*: its state's key; *s*, *one*: the
        state and the dice thrown there, for P(survive))."""
        scale, base = self.sol.scale, self.base
        e, rest = packed % base, packed // base
        shut, rest = rest % base, rest // base
        beat, tie = rest % base, rest // base
        out = {"expected_score": Fraction(e, scale), "p_shut": Fraction(shut, scale),
               "p_survive": Fraction(self.surv[one][s], 36)}
        if self.sol.target is not None:
            out["p_beat_target"] = Fraction(beat, scale)
            out["p_tie_target"] = Fraction(tie, scale)
            out["p_win"] = out["p_beat_target"] + (
                out["p_tie_target"] / 2 if self.sol.tie == "half" else 0)
        if self.sol.objective == "payout":
            out["expected_payout"] = self.sol.payout_of(key)
        return out

    def value(self, s: int, locked: int = 0) -> dict:
        """What optimal play gives from (s, locked), before the next throw."""
        lk = min(locked, len(self.V) - 1)
        return self._values(self.V[lk][s], self.sol.K[lk][s], s, self.sol.flags[lk][s])

    def options(self, s: int, locked: int = 0) -> list[dict]:
        """The dice options before a throw: {"one_die", "best", "key", values...} each (one
        option where the rules leave no choice; two dice first)."""
        sol, var = self.sol, self.var
        rows = var_rows(var)
        layers = len(sol.K)
        lk = min(locked, layers - 1)
        out = []
        for one_die, _nxt in _options(var, _allowed(var.tiles, var.one_die)[s], lk):
            nxt = layers - 1 if one_die else lk
            single, multi, w, none = rows[s][one_die]
            k = sol.K[nxt]
            res = single + tuple(min(r, key=k.__getitem__) for r in multi)
            key = none * sol.term[s] + sum(map(mul, w, map(k.__getitem__, res)))
            val = none * self.vterm[s] + sum(map(mul, w, map(self.V[nxt].__getitem__, res)))
            entry = {"one_die": bool(one_die), "key": key // 36}
            entry.update(self._values(val // 36, key // 36, s, one_die))
            out.append(entry)
        for entry in out:
            entry["best"] = entry["one_die"] == bool(sol.flags[lk][s])
        return out

    def moves(self, s: int, a: int, b: int, locked: int = 0) -> list[dict]:
        """Every legal move of throw (a, b) (b == 0: one die) from open tiles *s*, best first:
        {"mask", "result", "key", "best", values...}. Equal moves keep greedy order: the
        first is the one optimal play (and the box) takes."""
        sol = self.sol
        layers = len(sol.K)
        nxt = layers - 1 if b == 0 else min(locked, layers - 1)
        k, vals, fl = sol.K[nxt], self.V[nxt], sol.flags[nxt]
        out = []
        for m in legal_moves(s, self.var.moves, a, b, max_tiles(self.var)):
            r = s ^ m
            entry = {"mask": m, "result": r, "key": k[r]}
            entry.update(self._values(vals[r], k[r], r, fl[r]))
            out.append(entry)
        out.sort(key=lambda e: e["key"])
        for i, entry in enumerate(out):
            entry["best"] = i == 0
        return out


class Result:
    """What `shutbox solve` reports for a variant and an objective or policy.

    Built from exact ints (probability x *total* per final score); the Fractions are made
    here, for the reader.
    """

    def __init__(self, var, how, masses: dict[int, int], total: int, target=None,
                 tie="loss", exact_expected=None, payout: dict | None = None):
        self.var = var
        self.how = how
        self.target = target
        self.tie = tie
        items = sorted(masses.items())
        self.distribution = {sc: Fraction(m, total) for sc, m in items}
        self.payout = payout
        self.expected_payout = None if payout is None else sum(
            (p * Fraction(payout[sc]) for sc, p in self.distribution.items()), Fraction(0))
        weighted = sum(sc * m for sc, m in items)
        if exact_expected is not None and weighted != exact_expected:
            raise AssertionError("the distribution's mean is not the solved expectation")
        self.expected_score = Fraction(weighted, total)
        self.p_shut = Fraction(masses.get(0, 0), total)
        self.p_beat_target = self.p_tie_target = self.p_win = None
        if target is not None:
            self.p_beat_target = Fraction(sum(m for sc, m in items if sc < target), total)
            self.p_tie_target = Fraction(masses.get(target, 0), total)
            self.p_win = self.p_beat_target + (self.p_tie_target / 2 if tie == "half" else 0)

    def p_at_most(self, limit: int) -> Fraction:
        """P(final score <= limit)."""
        return sum((p for sc, p in self.distribution.items() if sc <= limit), Fraction(0))

    def as_json(self) -> dict:
        """A JSON-ready dict: floats at full precision plus the exact fractions as strings."""
        out = {"variant": self.var.names(), "how": self.how,
               "expected_score": float(self.expected_score),
               "expected_score_exact": str(self.expected_score),
               "p_shut": float(self.p_shut), "p_shut_exact": str(self.p_shut),
               "distribution": {str(sc): float(p) for sc, p in self.distribution.items()},
               "distribution_exact": {str(sc): str(p) for sc, p in self.distribution.items()}}
        if self.target is not None:
            out["target"] = self.target
            out["tie"] = self.tie
            for name in ("p_beat_target", "p_tie_target", "p_win"):
                value = getattr(self, name)
                out[name] = float(value)
                out[name + "_exact"] = str(value)
        if self.payout is not None:
            out["payout"] = {str(sc): str(Fraction(v)) for sc, v in sorted(self.payout.items())}
            out["expected_payout"] = float(self.expected_payout)
            out["expected_payout_exact"] = str(self.expected_payout)
        return out


def solve(var: Variant, objective: str | None = None, target: int | None = None,
          policy: str | None = None, tie: str = "loss", payout: dict | None = None) -> Result:
    """Solve *var* for an objective (optimal play, min-expected by default) or evaluate a
    policy, exactly.

    *target*: the score to beat (beat-target needs it; with another objective or a policy
    the result also gives the chances against it); *tie*: "loss" (a final score equal to the
    target loses) or "half" (it counts half a win, for beat-target play and p_win).
    *payout*: {final score: Fraction}: without an objective or a policy, the play that
    maximises the expected payout (objective "payout"); with one, the expected payout of
    that play.
    """
    if tie not in TIES:
        raise ValueError("unknown tie rule %r" % tie)
    if payout is not None:
        payout_ints(payout, _scores(var.tiles, var.scoring))  # every score has a payout
    if policy is not None:
        if policy == "greedy":
            total = 36 ** var.tiles
            masses = _forward(var, *_greedy(var))
        elif policy == "random":
            masses, total = _forward_random(var)
        elif policy == "survive":
            total = 36 ** var.tiles
            pol = survive_policy(var)
            masses = _forward(var, pol.flags, pol.chosen)
        else:
            raise ValueError("unknown policy %r" % policy)
        return Result(var, "policy " + policy, masses, total, target, tie, payout=payout)
    if objective is None:
        objective = "payout" if payout is not None else "min-expected"
    if objective not in ALL_OBJECTIVES and objective != "payout":
        raise ValueError("unknown objective %r" % objective)
    if objective == "beat-target" and target is None:
        raise ValueError("beat-target needs a target")
    sol = _Solved(var, objective, target, tie, payout if objective == "payout" else None)
    return evaluate(var, sol.flags, sol.chosen, "objective " + objective, target, tie,
                    payout, sol.split(sol.K[0][var.start_mask()])[1])


def evaluate(var: Variant, flags: list, chosen: list, how: str = "policy",
             target: int | None = None, tie: str = "loss", payout: dict | None = None,
             exact_expected: int | None = None) -> Result:
    """The exact Result of any play given as (flags, chosen) (see _forward): the policy
    evaluation of a solved objective or of a rule of thumb."""
    masses = _forward(var, flags, chosen)
    return Result(var, how, masses, 36 ** var.tiles, target, tie, exact_expected, payout)
