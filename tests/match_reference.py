# A brute force of a match's round: every seat's best reply by plain recursion, small boxes.
"""The reference the match solver is checked against (tests/solve/test_match.py): written
from the rules of a round (shutbox.rounds) and engine_reference's subset search, sharing no
code with shutbox_host.solve. Slow on purpose: every score tuple is its own situation, every
seat's turn a fresh recursion over (open tiles, locked)."""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import engine_reference as ref
from solve_reference import dice_options


class Turn:
    """One turn played for the best expected *utility* of its final score (ties: the lower
    expected score, then the first move in greedy order; one die only when strictly
    better): per (open, locked) the pair (U, E) and the final-score distribution."""

    def __init__(self, var, utility):
        self.var, self.u = var, utility

    def end(self, s):
        sc = ref.score(s, self.var.scoring)
        return self.u(sc), Fraction(sc), {sc: Fraction(1)}

    def options(self, s, locked):
        return dice_options(self.var, s, locked)

    def legal(self, s, a, b):
        moves = [m for m in ref.legal(s, self.var.moves, a, b)
                 if len(ref.tiles_of(m)) <= (getattr(self.var, "max_tiles", 0) or 99)]
        return sorted(moves, reverse=True, key=lambda m: (
            max(ref.tiles_of(m)), -len(ref.tiles_of(m)), sorted(ref.tiles_of(m), reverse=True)))

    def option(self, s, one_die, nxt):
        # (a, b) and (b, a) allow the same moves under every rule: each pair once, weighed
        throws = [((a, 0), Fraction(1, 6)) for a in range(1, 7)] if one_die else [
            ((a, b), Fraction(1 if a == b else 2, 36)) for a in range(1, 7)
            for b in range(a, 7)]
        u = e = Fraction(0)
        dist: dict = {}
        for (a, b), w in throws:
            best = None
            for m in self.legal(s, a, b):
                v = self.value(s & ~m, nxt)
                if best is None or (-v[0], v[1]) < (-best[0], best[1]):
                    best = v
            if best is None:
                best = self.end(s)
            u += best[0] * w
            e += best[1] * w
            for sc, p in best[2].items():
                dist[sc] = dist.get(sc, 0) + p * w
        return u, e, dist

    @cache  # noqa: B019 (one instance per utility)
    def value(self, s, locked=0):
        if s == 0:
            return self.end(0)
        best = None
        for one_die, nxt in self.options(s, locked):
            v = self.option(s, one_die, nxt)
            if best is None or (-v[0], v[1]) < (-best[0], best[1]):
                best = v
        return best


def finals(var) -> list[int]:
    """Every final score a turn of *var* can end on (any open set)."""
    return sorted({ref.score(s, var.scoring) for s in range(1 << var.tiles)})


class Round:
    """One round of *players* seats on *var*, every seat replying best to the scores before
    it. *tie*: "share" / "roll-off" (a tie of m players is worth 1/m to each) or "replay"
    (2 players: a tie is worth *tie_value* to seat 1, 1 - it to seat 2); *stakes*: "win" (the
    values are chances to win; replay with more players: *tie_value* maps the count m of tied
    seats to their values in seat order, the m-player replay match's, m = *players* the
    round's own) or, 2 players, "stake" (a win pays 1, a shut box
    *shut_pays*) or "canoga" (the loser pays the difference, twice when the winner shut;
    seat 2 kept from playing by a shut box counts as having shut nothing); a tie pays
    nothing, or *tie_value* with replay."""

    def __init__(self, var, players=2, tie="share", shut_wins=False, stakes="win",
                 shut_pays=2, tie_value=None):
        self.var, self.n, self.tie, self.shut_wins = var, players, tie, shut_wins
        self.stakes, self.shut_pays, self.tie_value = stakes, Fraction(shut_pays), tie_value
        self.start = ref.score(ref.start_open(var.tiles, var.start), var.scoring)
        self.turns: dict = {}

    def end(self, scores):
        """Every seat's value when the round ends with *scores* (shorter: a shut box ended
        it, with shut-wins)."""
        n = self.n
        if len(scores) < n or (self.shut_wins and scores[-1] == 0):
            winners = [len(scores) - 1]
        else:
            low = min(scores)
            winners = [i for i in range(n) if scores[i] == low]
        if self.stakes == "win":
            if len(winners) > 1:
                if self.tie == "replay" and n == 2:
                    return (self.tie_value, 1 - self.tie_value)
                if self.tie == "replay":
                    tied = self.tie_value[len(winners)]
                    return tuple(tied[winners.index(i)] if i in winners else Fraction(0)
                                 for i in range(n))
                return tuple(Fraction(1, len(winners)) if i in winners else Fraction(0)
                             for i in range(n))
            return tuple(Fraction(i == winners[0]) for i in range(n))
        if len(winners) > 1:
            v = self.tie_value if self.tie == "replay" else Fraction(0)
            return (v, -v)
        w = winners[0]
        other = self.start if len(scores) == 1 else scores[1 - w]
        shut = scores[w] == 0
        if self.stakes == "stake":
            pay = self.shut_pays if shut else Fraction(1)
        else:
            pay = Fraction((other - scores[w]) * (2 if shut else 1))
        return (pay, -pay) if w == 0 else (-pay, pay)

    def turn(self, scores):
        """The distribution of the final score of the seat after *scores*, playing best."""
        j = len(scores)
        table = {y: self.values(scores + (y,))[j] for y in finals(self.var)}
        key = tuple(sorted(table.items()))
        if key not in self.turns:
            t = Turn(self.var, lambda y: table[y])
            self.turns[key] = t.value(ref.start_open(self.var.tiles, self.var.start))[2]
        return self.turns[key]

    @cache  # noqa: B019 (one instance per round)
    def values(self, scores=()):
        if len(scores) == self.n or (self.shut_wins and scores and scores[-1] == 0):
            return self.end(scores)
        out = [Fraction(0)] * self.n
        for y, p in self.turn(scores).items():
            for i, v in enumerate(self.values(scores + (y,))):
                out[i] += p * v
        return tuple(out)

    def outcomes(self, scores=(), p=Fraction(1), out=None):
        """{seat: [P(win alone), P(tie for the win), P(lose)]} by walking every score tuple."""
        if out is None:
            out = {i: [Fraction(0)] * 3 for i in range(self.n)}
        if len(scores) == self.n or (self.shut_wins and scores and scores[-1] == 0):
            if len(scores) < self.n or (self.shut_wins and scores[-1] == 0):
                winners = [len(scores) - 1]
            else:
                winners = [i for i in range(self.n) if scores[i] == min(scores)]
            for i in range(self.n):
                k = 2 if i not in winners else (1 if len(winners) > 1 else 0)
                out[i][k] += p
            return out
        for y, q in self.turn(scores).items():
            self.outcomes(scores + (y,), p * q, out)
        return out
