# A brute-force solver of every objective: plain recursion over engine_reference's rules.
"""The reference the solver and `shutbox advise` are checked against (tests/solve/): written
from the objectives' definitions, sharing no code with shutbox_host.solve."""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import engine_reference as ref

from shutbox import variants as V

HALF = Fraction(1, 2)


def utility(objective: str, target: int | None, tie: str, payout: dict | None = None):
    """The objective's reward of a final score (higher is better), from its definition."""
    if objective == "payout":
        return lambda sc: Fraction(payout[sc])
    if objective == "max-shut":
        return lambda sc: Fraction(sc == 0)
    if objective == "min-shut":
        return lambda sc: Fraction(sc != 0)
    if objective == "max-expected":
        return lambda sc: Fraction(sc)
    if objective == "beat-target":
        return lambda sc: Fraction(sc < target) + (HALF * (sc == target) if tie == "half"
                                                   else 0)
    return lambda sc: Fraction(0)


def dice_options(var, s, locked):
    """The dice before a throw, read from the rules: [(one die, the locked flag after)]."""
    if not ref.one_die_allowed(s, var.one_die):
        return [(False, locked)]
    locked_mode = var.one_die_mode == V.MODE_LOCKED
    if var.one_die_mode == V.MODE_FORCED or (locked_mode and locked):
        return [(True, locked)]
    return [(False, 0), (True, 1 if locked_mode else 0)]


class Brute:
    """Optimal play of *var* (any object with the Rules attributes) by plain recursion: per
    (open, locked) the tuple (U, E, P(shut), P(score < T), P(score == T)) before the next
    throw, U the objective's expected reward. Moves are tried in the greedy order written
    out in engine_reference (the first best wins); one die only when strictly better."""

    def __init__(self, var, objective: str, target=None, tie="loss", payout=None):
        self.var, self.objective = var, objective
        self.u = utility(objective, target, tie, payout)
        self.t = -1 if target is None else target
        self.limit = getattr(var, "max_tiles", 0) or var.tiles  # tiles a move may shut

    def key(self, v):  # lower is better
        return (v[1],) if self.objective == "min-expected" else (-v[0], v[1])

    def end(self, s):
        sc = ref.score(s, self.var.scoring)
        return (self.u(sc), Fraction(sc), Fraction(sc == 0), Fraction(sc < self.t),
                Fraction(sc == self.t))

    def options(self, s, locked):
        return dice_options(self.var, s, locked)

    def ranked(self, s, a, b, nxt):
        """Legal moves of (a, b) in greedy order, then stably by the value they lead to."""
        legal = [m for m in ref.legal(s, self.var.moves, a, b)
                 if len(ref.tiles_of(m)) <= self.limit]
        moves = sorted(legal, reverse=True, key=lambda m: (
            max(ref.tiles_of(m)), -len(ref.tiles_of(m)), sorted(ref.tiles_of(m), reverse=True)))
        return sorted(moves, key=lambda m: self.key(self.value(s & ~m, nxt)))

    def option(self, s, one_die, nxt):
        throws = [(a, 0) for a in range(1, 7)] if one_die else [
            (a, b) for a in range(1, 7) for b in range(1, 7)]
        total = [Fraction(0)] * 5
        for a, b in throws:
            moves = self.ranked(s, a, b, nxt)
            v = self.value(s & ~moves[0], nxt) if moves else self.end(s)
            total = [x + y / len(throws) for x, y in zip(total, v, strict=True)]
        return tuple(total)

    @cache  # noqa: B019 (one instance per test)
    def value(self, s, locked):
        if s == 0:
            return self.end(0)
        best = None
        for one_die, nxt in self.options(s, locked):
            v = self.option(s, one_die, nxt)
            if best is None or self.key(v) < self.key(best):
                best = v
        return best
