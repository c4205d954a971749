# Rules of thumb a person can remember, each played exactly and ranked by what it costs.
"""Human-sized strategies for one variant (the box's default: nine tiles, one die once 7, 8
and 9 are shut), each evaluated exactly by the solver: a move rule (which legal set to shut)
and a dice rule (when to throw one die where the rules leave the choice) make a policy whose
final-score distribution solver.evaluate pushes forward in ints. Its cost is its exact
expected final score minus optimal play's; the card (`shutbox card --strategy`) lists the
rules by that cost, the best move of every opening throw and the best dice rule.

A move rule is a key over the result of a move (lower is better; ties keep the greedy order
of the solver's page's rule of thumb, the box's own order), so every rule is one exact policy.
"""

from __future__ import annotations

from fractions import Fraction

from shutbox_host.solve import solver


def _tiles(mask: int) -> list[int]:
    return [k + 1 for k in range(mask.bit_length()) if mask >> k & 1]


def _count(mask: int) -> int:
    return bin(mask).count("1")


def _greedy(m: int) -> tuple:
    """The solver's page's order as a key (lower first): highest top, fewest, higher tiles."""
    return tuple(-x for x in solver.greedy_key(m))


def _totals(var, s: int) -> int:
    """How many two-dice totals (2 to 12) some open set of *s* can make."""
    return sum(1 for t in range(2, 13) if any(m & s == m for m in solver._subsets_summing(t)))


def _ways(var, s: int) -> int:
    """How many of the 36 throws of two dice some open set of *s* can make (36 when shut)."""
    return 36 if s == 0 else solver.survival36(var)[0][s]


# (name, the rule in words, key(var, s, result) -> comparable, lower first). The move is
# s ^ result. Each rule breaks its own ties by greedy order (the min keeps the first).
# "highest" is the solver's page's rule of thumb (the solver's greedy policy), "odds" kleinpanic's
# survival ranking with two dice, "outs" the box maker's page's "count your outs".
MOVE_RULES = (
    ("highest", "Shut the highest tile you can: the total's own tile, else the set with the "
                "highest tile, then the fewest tiles (the usual rule of thumb)",
     lambda var, s, r: _greedy(s ^ r)),
    ("fewest", "Shut as few tiles as you can; among those, the set with the highest tile",
     lambda var, s, r: (_count(s ^ r), _greedy(s ^ r))),
    ("keep-1-2-3", "Keep the 1, 2 and 3 for last: use as few of them as you can, then the "
                   "highest tile",
     lambda var, s, r: (_count((s ^ r) & 7), _greedy(s ^ r))),
    ("keep-low", "Keep your small tiles: shut the set whose lowest tile is highest, then the "
                 "fewest tiles",
     lambda var, s, r: (-min(_tiles(s ^ r)), _count(s ^ r))),
    ("odds", "Leave the best odds for the next throw: the most of the 36 throws of two dice "
             "you can still play (7 comes 6 ways, 6 and 8 five, ... 2 and 12 one), then the "
             "highest tile",
     lambda var, s, r: (-_ways(var, r), _greedy(s ^ r))),
    ("outs", "Count your outs: leave the most totals from 2 to 12 you can still make, then "
             "the highest tile",
     lambda var, s, r: (-_totals(var, r) if r else -99, _greedy(s ^ r))),
    ("most", "Shut as many tiles as you can, then the highest tile",
     lambda var, s, r: (-_count(s ^ r), _greedy(s ^ r))),
    ("lowest", "Shut the lowest tiles you can: the set whose highest tile is lowest",
     lambda var, s, r: (max(_tiles(s ^ r)), _count(s ^ r))),
)

DICE_LIMITS = range(0, 16)  # "one die once the open tiles add up to k or less", k = 0..15


class Rule:
    """One strategy evaluated: its name, words, exact Result and cost against optimal play."""

    def __init__(self, name: str, words: str, result: solver.Result, best: solver.Result):
        self.name, self.words, self.result = name, words, result
        self.expected_score = result.expected_score
        self.p_shut = result.p_shut
        self.cost = result.expected_score - best.expected_score

    def as_json(self) -> dict:
        return {"name": self.name, "rule": self.words,
                "expected_score": float(self.expected_score),
                "expected_score_exact": str(self.expected_score),
                "p_shut": float(self.p_shut), "p_shut_exact": str(self.p_shut),
                "cost": float(self.cost), "cost_exact": str(self.cost)}


def play(var, move_key, dice_limit: int | None) -> solver.Result:
    """The exact Result of a move rule (key(var, s, result)) with one die, where the rules
    leave it free, once the open tiles add up to *dice_limit* or less (None: never)."""
    sums = [solver.tile_sum(s) for s in range(1 << var.tiles)]
    flags, chosen = solver.rank_choices(
        var, lambda lk, s, r: move_key(var, s, r),
        lambda lk, s, opts: int(dice_limit is not None and sums[s] <= dice_limit))
    return solver.evaluate(var, flags, chosen)


class Card:
    """Everything the strategy card says about *var* (see the module docstring).

    optimal: the Result of optimal play (min-expected); rules: the move rules, each with the
    dice rule of the best of them, best first; dice: the dice rules with the best move rule,
    best first (the first is the one the card gives); openings: (total, best set, its
    expected final score) for every two-dice total on the start; one_die_states: (where
    optimal play throws one die, where it may).
    """

    def __init__(self, var=None):
        self.var = var = var if var is not None else solver.Variant(9)
        self.optimal = solver.solve(var)
        self.worst = solver.solve(var, "max-expected")
        self.random = solver.solve(var, policy="random")
        values = solver.solve_values(var)
        self.choice = values
        may = [s for s in range(1, 1 << var.tiles)
               if solver.one_die_allowed(s, var.tiles, var.one_die)]
        self.one_die_states = (sum(values.one_die_best[0][s] for s in may), len(may))
        # the dice rule first, with the plain rule of thumb; then every move rule with it
        first = MOVE_RULES[0]
        self.dice = self._dice(first)
        limit = self.dice[0][0]
        rules = [Rule(name, words, play(var, key, limit), self.optimal)
                 for name, words, key in MOVE_RULES]
        self.rules = sorted(rules, key=lambda r: r.cost)
        best = next(r for r in MOVE_RULES if r[0] == self.rules[0].name)
        if best is not first:
            self.dice = self._dice(best)
        self.dice_limit = self.dice[0][0]
        self.openings = self._openings(values)

    def _dice(self, rule) -> list[tuple]:
        """[(limit or None, Result, cost)] of the dice rules with move rule *rule*, best first
        (equal costs: the lower limit)."""
        out = []
        for limit in [None, *DICE_LIMITS]:
            res = play(self.var, rule[2], limit)
            out.append((limit, res, res.expected_score - self.optimal.expected_score))
        return sorted(out, key=lambda d: (d[2], -1 if d[0] is None else d[0]))

    def _openings(self, values) -> list[tuple]:
        """(total, best set, expected final score) of each total on the start box."""
        var = self.var
        s = var.start_mask()
        an = solver.Analysis(var)
        out = []
        for total in range(2, 13):
            a, b = (total - 1, 1) if total <= 7 else (6, total - 6)
            moves = an.moves(s, a, b)
            if moves:
                out.append((total, moves[0]["mask"], moves[0]["expected_score"]))
        return out

    def dice_words(self) -> str:
        """The best dice rule in words."""
        limit = self.dice_limit
        if limit is None:
            return "Never throw one die"
        return "Throw one die (when allowed) once the open tiles add up to %d or less" % limit

    def as_json(self) -> dict:
        """The card's figures as floats (the bench's strategy_card): each rule by name with
        its rank, each dice limit's cost ("never": no one die), the best limit, where optimal
        play throws one die, and optimal, random and worst play's figures."""
        def figs(res):
            return {"expected_score": float(res.expected_score), "p_shut": float(res.p_shut)}

        return {"variant": self.var.names(),
                "rules": {r.name: dict(figs(r.result), cost=float(r.cost), rank=i + 1)
                          for i, r in enumerate(self.rules)},
                "dice_cost": {("never" if lim is None else str(lim)): float(c)
                              for lim, _r, c in self.dice},
                "dice_limit": self.dice_limit, "one_die_states": list(self.one_die_states),
                "openings": {str(t): _tiles(m) for t, m, _e in self.openings},
                "optimal": figs(self.optimal), "worst": figs(self.worst),
                "random": figs(self.random)}


def pct(value: Fraction) -> str:
    """A chance as a percentage with 2 decimals."""
    return "%.2f %%" % (100 * float(value))
