# The long game for 2 (the house-rules page): one shuts, the other reopens; who is likely to win.
"""The house-rules page's long game for two players, solved: the first player (A) plays a
turn by the usual rules, trying to shut the box; when A is stopped, the second (B) takes the
box as it is and opens shut tiles that add up to each throw; when B is stopped the box goes
back to A, and so on (the page's suggestion, "passing the box back and forth"). The first to
shut the box (A) or to open it all (B) wins.

Readings (the page leaves them open; docs/solver.md says the same):

- A double gives an extra turn: every double thrown (played or not) earns its thrower one
  more turn from the box as it is, taken when the current turn ends. A double that cannot
  be played therefore never stops its thrower; a stopped player with extra turns left
  throws again. One die is never a double.
- One die: A by the variant's one-die rule on the open tiles, B by the same rule on the shut
  tiles (mirrored, as the box's Open the Box); `optional` or `forced` (a `locked` mode is
  refused: it would need a layer per player and stint).
- Moves: the variant's moves rule, on the open tiles for A and on the shut tiles for B.
- The box handed to B with every tile open (A stopped at once on a small box) has nothing
  to open: B is stopped at once and the box goes back.

Why not exact on nine tiles: play can go round and round (A shuts, B reopens, A shuts...),
so the values are not found by one backward pass like a turn's: they solve a system of
equations with a cycle through every position a player can be stopped in: 2 x (2**N - 1)
unknowns, 1,022 for nine tiles. Under fixed play that is a linear system with exact rational
coefficients (denominators powers of 36); eliminating 1,022 unknowns in Fractions is about
3.6e8 operations on numbers of thousands of digits: out of reach here. So:

- ``solve(var)``: value iteration in floats over the hand-over positions (each player's turn
  solved by one backward pass given the other's values) until no value moves by 1e-15; the
  first player's chance is a float, its last change reported.
- ``solve(var, exact=True)`` (boxes of up to EXACT_MAX_TILES tiles: 7 tiles, 254
  unknowns, take a minute here): the play of the float solution, its linear system solved
  exactly, then checked exactly: every choice of that play is best against the exact values
  (no player gains by another move or another choice of dice), so the values are the
  game's (exact_x, exact_y: A's chance when A, or B, starts a turn at each mask).
"""

from __future__ import annotations

from fractions import Fraction

from shutbox import variants as V
from shutbox_host.solve import solver

A, B = 0, 1  # the shutter (the first player) and the opener
EPS = 1e-15
EXACT_MAX_TILES = 7
MAX_SWEEPS = 100000
BOUND_BITS = 64  # bounds(): the values in units of 2**-64
BOUND_SWEEPS = 2000
TIE_EPS = 1e-12  # float values closer than this are equal when the play is read off


def _groups(var):
    """(two, one): two dice as [(weight of 36, candidates, double)], one die as [(6,
    candidates)] (each face 6/36)."""
    limit = solver.max_tiles(var)
    two: dict = {}
    for a in range(1, 7):
        for b in range(1, 7):
            key = (tuple(solver.candidate_masks(var.moves, a, b, limit)), a == b)
            two[key] = two.get(key, 0) + 1
    one = [(6, tuple(solver.candidate_masks(var.moves, a, 0, limit))) for a in range(1, 7)]
    return [(w, c, d) for (c, d), w in two.items()], one


class Form:
    """An exact affine form: const + sum of coef x unknown (unknowns by index)."""

    __slots__ = ("c", "v")

    def __init__(self, c=Fraction(0), v=None):
        self.c, self.v = Fraction(c), dict(v or {})

    def add(self, other: Form, w) -> None:
        self.c += w * other.c
        for i, x in other.v.items():
            self.v[i] = self.v.get(i, 0) + w * x

    def scaled(self, k) -> Form:
        return Form(self.c * k, {i: x * k for i, x in self.v.items()})


class LongGame:
    """One variant's long game (see the module docstring)."""

    def __init__(self, var):
        if var.one_die != V.ONE_DIE_NEVER and var.one_die_mode == V.MODE_LOCKED:
            raise ValueError("the long game is solved with one-die-mode optional or forced")
        self.var = var
        self.n = var.tiles
        self.full = (1 << var.tiles) - 1
        self.two, self.one = _groups(var)
        allowed = solver._allowed(var.tiles, var.one_die)
        # the dice a player may throw: (two dice?, one die?) per mask, for each player
        self.allowed = [allowed, [allowed[self.full ^ m] for m in range(self.full + 1)]]
        self.k_max = self.n  # extra turns pending: each comes from a double that was played
        # masks in the order each player's backward pass needs them (results first)
        by_count = sorted(range(self.full + 1), key=lambda m: bin(m).count("1"))
        self.order = [by_count, by_count[::-1]]
        self._opts: list[dict] = [{}, {}]

    # ----- one player's turn (with its extra turns), given the other's values -----

    def _dice(self, who: int, m: int) -> list[bool]:
        """The dice options of *who* at *m*: [False] (two), [True] (one) or both."""
        if not self.allowed[who][m]:
            return [False]
        if self.var.one_die_mode == V.MODE_FORCED:
            return [True]
        return [False, True]

    def _options(self, who: int, m: int) -> list[tuple]:
        """*who*'s dice options at *m* as data: [(one die?, [(weight, results, double)] of
        the throws with a move, weight of the unplayable doubles, of the other unplayable
        throws)], in 36ths (cached)."""
        got = self._opts[who].get(m)
        if got is None:
            movable = m if who == A else self.full ^ m
            got = []
            for one in self._dice(who, m):
                groups = [(w, c, False) for w, c in self.one] if one else self.two
                moves, loops, fail = [], 0, 0
                for w, cands, dbl in groups:
                    res = tuple(m ^ mv for mv in cands if mv & movable == mv)
                    if res:
                        moves.append((w, res, int(dbl)))
                    elif dbl:
                        loops += w
                    else:
                        fail += w
                got.append((one, moves, loops, fail))
            self._opts[who][m] = got
        return got

    def stint(self, who: int, handover: list, forms: list | None = None, eps=TIE_EPS,
              up: bool | None = None, one: int = 1):
        """The values of *who*'s positions (mask, extra turns pending) before a throw, given
        the other player's values at hand-over *handover* (by mask: floats, or Fractions
        with *eps* 0 for exact play); return (the entry values by mask, their Forms when
        *forms* gives the hand-over's as affine forms, else None).

        Values are A's chance to win: A picks the highest, B the lowest; values within *eps*
        are equal and the first stays (greedy order; two dice before one). With *up* False
        or True the values are ints, the chance x *one* (*eps* 0), each position's rounded
        down or up: bounds of the values (``bounds``). With *forms*
        the choices are the numbers' and the forms follow them (the play fixed). Extra
        turns pending come from doubles played this stint, so at most the tiles turned so
        far: positions with more are never met and not solved."""
        full, n = self.full, self.n
        sign = 1 if who == A else -1
        goal = 0 if who == A else full
        win = one if who == A else 0
        exact = not isinstance(handover[full], float)
        val = [[None] * (full + 1) for _ in range(n + 2)]  # val[k][m]
        form = [[None] * (full + 1) for _ in range(n + 2)] if forms is not None else None
        for m in self.order[who]:
            turned = n - bin(m).count("1") if who == A else bin(m).count("1")
            if m == goal:
                for k in range(n + 2):
                    val[k][m] = win
                    if form is not None:
                        form[k][m] = Form(win)
                continue
            opts = self._options(who, m)
            for k in range(min(turned, n) + 1):
                best = None
                for one, moves, loops, fail in opts:
                    acc = fail * (val[k - 1][m] if k else handover[m])
                    picks = []
                    for w, res, dbl in moves:
                        row = val[k + dbl]
                        pick = res[0]
                        pv = row[pick]
                        for r in res[1:]:
                            if sign * (row[r] - pv) > eps:
                                pick, pv = r, row[r]
                        acc += w * pv
                        picks.append((w, k + dbl, pick))
                    if up is not None:  # a bound: rounded down, or up
                        v = -(-acc // (36 - loops)) if up else acc // (36 - loops)
                    else:
                        v = Fraction(acc, 36 - loops) if exact else acc / (36 - loops)
                    if best is None or sign * (v - best[0]) > eps:
                        best = (v, one, picks, loops, fail)
                val[k][m] = best[0]
                if form is not None:
                    _v, _one, picks, loops, fail = best
                    f = Form()
                    if fail:
                        f.add(form[k - 1][m] if k else forms[m], Fraction(fail))
                    for w, kk, pick in picks:
                        f.add(form[kk][pick], Fraction(w))
                    form[k][m] = f.scaled(Fraction(1, 36 - loops))
        entry = list(val[0])
        return entry, (None if form is None else list(form[0]))

    # ----- the whole game -----

    def solve(self, exact: bool = False) -> dict:
        """The first player's chance (see the module docstring); with *exact* also the
        exact Fraction, checked."""
        if exact and self.n > EXACT_MAX_TILES:
            raise ValueError("the long game is solved exactly up to %d tiles (a system of "
                             "2 x (2**N - 1) exact equations: %d for %d tiles)"
                             % (EXACT_MAX_TILES, 2 * self.full, self.n))
        full = self.full
        xa = [0.5] * (full + 1)  # A's chance when A starts a turn at m
        sweeps, change = 0, 1.0
        while change > EPS and sweeps < MAX_SWEEPS:
            yb, _ = self.stint(B, xa)  # A's chance when B starts a turn at m
            yb[full] = xa[full]  # nothing to open: straight back to A
            nxa, _ = self.stint(A, yb)
            nxa[0] = 1.0
            change = max(abs(p - q) for p, q in zip(nxa, xa, strict=True))
            xa, sweeps = nxa, sweeps + 1
        out = {"p_first": xa[full], "sweeps": sweeps, "last_change": change}
        if exact:
            out["p_first_exact"] = self._exact(xa)
        return out

    def bounds(self, bits: int = BOUND_BITS, sweeps: int = BOUND_SWEEPS) -> tuple:
        """A's chance between two exact bounds: (low, high) Fractions with denominator
        2**bits, and the sweeps each took.

        Value iteration in integers (the chance x 2**bits), every position rounded down from
        0 everywhere for the low bound, up from 1 everywhere for the high one: the game's
        operator is monotone and the rounded ones stay below (above) it, so every sweep's
        values are bounds of the least (greatest) fixed point, and the chance to win lies
        between those. It stops when a sweep changes nothing, or after *sweeps*; any sweep's
        values are bounds, so the result is proven whatever the float solution says."""
        one = 1 << bits
        full = self.full
        out = []
        for up in (False, True):
            xa = [one if up else 0] * (full + 1)
            xa[0] = one
            n = 0
            while n < sweeps:
                yb, _ = self.stint(B, xa, eps=0, up=up, one=one)
                yb[full] = xa[full]
                nxa, _ = self.stint(A, yb, eps=0, up=up, one=one)
                nxa[0] = one
                n += 1
                if nxa == xa:
                    break
                xa = nxa
            out.append((Fraction(xa[full], one), n))
        return out[0][0], out[1][0], out[0][1], out[1][1]

    def _exact(self, xa: list[float]) -> Fraction:
        """The exact chance: the float play's linear system solved in Fractions, then every
        choice checked against the exact values."""
        full = self.full
        nx = full + 1
        yb, _ = self.stint(B, xa)
        yb[full] = xa[full]
        fx = [Form(0, {m: 1}) for m in range(nx)]  # x_m: A starts a turn at m
        fy = [Form(0, {nx + m: 1}) for m in range(nx)]  # y_m: B starts a turn at m
        fy[full] = fx[full]
        _, ya = self.stint(A, yb, fy)
        _, yb2 = self.stint(B, xa, fx)
        rows = {m: ya[m] for m in range(1, nx)}  # x_m = A's turn at m (x_0: A has won)
        rows.update({nx + m: yb2[m] for m in range(full)})  # y_m = B's turn at m
        rows[0] = Form(1)
        sol = _solve_linear(rows)
        x = [sol[m] for m in range(nx)]
        y = [sol[nx + m] for m in range(full)] + [x[full]]
        # the check: against the exact values no other choice is better for either player
        ex_y, _ = self.stint(B, x, eps=0)
        ex_y[full] = x[full]
        ex_x, _ = self.stint(A, y, eps=0)
        ex_x[0] = 1
        if ex_x != x or ex_y != y:
            raise ArithmeticError("the float play is not the exact optimum")
        self.exact_x, self.exact_y = x, y
        return x[full]


def _solve_linear(rows: dict) -> dict:
    """Solve unknown_i = form_i (every form affine in the unknowns) exactly by Gaussian
    elimination in Fractions; return {unknown: value}."""
    # as equations: unknown_i - sum coef x unknown_j = const
    eqs = {}
    for i, form in rows.items():
        coeffs = {j: -c for j, c in form.v.items() if j in rows}
        coeffs[i] = coeffs.get(i, 0) + 1
        const = form.c
        eqs[i] = (coeffs, const)
    order = list(eqs)
    solved: dict = {}
    for i in order:
        coeffs, const = eqs.pop(i)
        piv = coeffs.pop(i)
        coeffs = {j: c / piv for j, c in coeffs.items() if c}
        const = const / piv
        solved[i] = (coeffs, const)
        for r, (rc, rk) in eqs.items():
            f = rc.pop(i, 0)
            if f:
                for j, c in coeffs.items():
                    rc[j] = rc.get(j, 0) - f * c
                eqs[r] = (rc, rk - f * const)
    out: dict = {}
    for i in reversed(order):
        coeffs, const = solved[i]
        out[i] = const - sum(c * out[j] for j, c in coeffs.items())
    return out
