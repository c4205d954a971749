# Exact matches: every seat's chances and optimal play in one round of 2 to 4 players.
"""One round of a match, solved exactly: each player takes one turn in seat order and knows
the final scores of the seats before; every seat plays to maximise its own value of the match
(its chance to win, a draw or a roll-off counted as the box scores them; or its expected
stake). This is a game of perfect information played one turn after the other, so backward
induction over the seats solves it: the last seat's best play against every situation
before it (the scores so far), then the seat before it knowing how the last one will play,
and so on to seat 1. Each seat's turn is the solver's "payout" objective (shutbox_host.solve
.solver): its value of every final score it may end on, maximised in expectation, exactly in
ints; the distribution of its final score under that play carries the value back.

The rules are the box's (shutbox.rounds, the settings `tie`, `shut-wins`, `stakes`):

- The lowest final score wins. *shut_wins* on: a shut box (score 0) ends the round at once and
  that player wins; the seats after do not play. Off: it scores 0 and everyone plays.
- A tie for the lowest score: *share* (a draw: each of the m tied players gets 1/m of the
  win), *roll-off* (each throws one die, the lowest wins, ties throw again: each wins with
  chance 1/m, the same value as share), *replay* (the tied players play another round in
  the same order, again on a new tie: a tie of m < N players is worth to each what the
  m-player replay match is worth to its seat (seat order kept), solved first; a tie of all
  N is worth the match itself, each seat's value v_i the fixed point v = A + T v of its own
  round (A the decided outcomes, T the chance of a tie of all N), found exactly by policy
  iteration: see _replay).
- Stakes, 2 players (a zero-sum value: what seat 1 wins from seat 2, in stakes): *stake K*
  (cananian's pub game: the winner takes 1 stake from the loser, K stakes with a shut box)
  and *canoga* (the box's setting: the loser pays the difference of the scores, twice with
  a shut box; a player a shut box kept from playing counts as having shut nothing). A tie
  pays nothing.

Which equal moves a seat takes: the solver's rule (the lower expected score, then greedy
order), so every figure, the chances of a win, a tie and a loss too, is one exact number.

Readings: the seats play in seat order (the box's round one: seat 1 first); a seat's play may
depend on everything before it (the box shows the scores). The first-player edge of 2
players is seat 1's value minus seat 2's (the stake seat 1 wins per round); for more players,
seat 1's value minus a fair 1/N; played for stakes, seat 1's value itself (the stake it wins).
"""

from __future__ import annotations

import math
from fractions import Fraction

from shutbox import variants as V
from shutbox_host.solve import solver

TIE_RULES = ("share", "roll-off", "replay")  # shutbox.setnames.TIE
STAKES = ("win", "stake", "canoga")  # win: the chance to win; stake K; canoga
MAX_PLAYERS = 4
MAX_REPLAY_STEPS = 40  # policy iteration of the replay value: it settles in a few


class MatchRules:
    """The rules of one round (see the module docstring)."""

    def __init__(self, players: int = 2, tie: str = "share", shut_wins: bool = False,
                 stakes: str = "win", shut_pays=2):
        if not 2 <= players <= MAX_PLAYERS:
            raise ValueError("a match has 2 to %d players" % MAX_PLAYERS)
        if tie not in TIE_RULES:
            raise ValueError("unknown tie rule %r: choose one of %s" % (tie, ", ".join(TIE_RULES)))
        if stakes not in STAKES:
            raise ValueError("unknown stakes %r: choose one of %s" % (stakes, ", ".join(STAKES)))
        if stakes != "win" and players != 2:
            raise ValueError("stakes are solved for 2 players only")
        self.players = players
        self.tie = tie
        self.shut_wins = bool(shut_wins)
        self.stakes = stakes
        self.shut_pays = Fraction(shut_pays)

    def label(self) -> str:
        """A short label: ``2 players, tie share, shut-wins off``."""
        out = "%d players, tie %s, shut-wins %s" % (self.players, self.tie,
                                                     "on" if self.shut_wins else "off")
        if self.stakes == "stake":
            out += ", stake (a shut box pays %s)" % self.shut_pays
        elif self.stakes == "canoga":
            out += ", canoga stakes"
        return out

    def total(self) -> Fraction:
        """The sum of every seat's value: 1 for the chance to win, 0 for stakes."""
        return Fraction(1 if self.stakes == "win" else 0)


class SeatFigures:
    """One seat's figures: value (the chance to win, ties as the rules score them; or the
    stake won), p_win (the lowest score alone, or a shut box with shut-wins), p_tie (the
    lowest score shared: a draw, a roll-off or a replay follows), p_lose, p_win_shut (won
    with a shut box), p_play (the seat takes its turn: not with a shut box before it and
    shut-wins), expected_score (of the turns it plays)."""

    def __init__(self):
        self.value = Fraction(0)
        self.p_win = self.p_tie = self.p_lose = self.p_win_shut = Fraction(0)
        self.p_play = Fraction(0)
        self.score_mass = Fraction(0)  # sum of P x score of its turns

    @property
    def expected_score(self) -> Fraction:
        return self.score_mass / self.p_play if self.p_play else Fraction(0)

    def as_json(self) -> dict:
        out = {}
        for name in ("value", "p_win", "p_tie", "p_lose", "p_win_shut", "p_play",
                     "expected_score"):
            v = getattr(self, name)
            out[name] = float(v)
            out[name + "_exact"] = str(v)
        return out


class Match:
    """One round of *rules* on variant *var*, solved (see the module docstring).

    values(scores): every seat's value once the seats before have the final *scores* (a
    tuple, seat order), under optimal play from there; payout(scores): the value to the
    seat to play of each final score it may end on (the "payout" table its optimal play
    maximises: `shutbox advise --match` plays it). seats: SeatFigures per seat.
    """

    def __init__(self, var: solver.Variant, rules: MatchRules, tie_value=None,
                 subs: dict | None = None, plays: Plays | None = None):
        self.var = var
        self.rules = rules
        self.n = rules.players
        self.finals = sorted(set(solver._scores(var.tiles, var.scoring)))
        self.start_score = solver.score(var.start_mask(), var.scoring)
        self._values: dict = {}
        # a seat's play per payout table: *plays* shares them between the Matches of one
        # variant (replay's steps and its smaller matches meet many of the same tables)
        self._plays = Plays(var) if plays is None else plays
        if self._plays.var != var:
            raise ValueError("the plays are another variant's")
        self._interned: dict = {}
        self._play_at: dict = {}  # each situation's play (_play), found once
        self.solves = 0
        self.p_all_tie = Fraction(0)  # the chance the round ends in a tie of every seat
        if rules.tie == "replay" and subs is None:
            subs = _replay_subs(var, rules, self._plays)
        self._subs = subs or {}  # replay: m < N tied seats' values, the m-player match's
        last = None
        if rules.tie == "replay" and tie_value is None:
            tie_value, self.replay_steps, last = _replay(var, rules, self._subs, self._plays)
        # replay: the value of a tie of every seat (2 players: seat 1's, a Fraction; more:
        # a tuple, each seat's)
        self.tie_value = tie_value
        if last is not None:  # the replay's last step solved this very round: keep it
            self._values, self._interned, self._play_at = (last._values, last._interned,
                                                           last._play_at)
            self.seats, self.p_all_tie = last.seats, last.p_all_tie
            return
        self.seats = [SeatFigures() for _ in range(self.n)]
        self._forward()
        want = self.values(())
        for seat, v in zip(self.seats, want, strict=True):
            if seat.value != v:  # the forward pass and the recursion are two computations
                raise AssertionError("the match's values do not add up")

    # ----- the situations of a round -----
    #
    # A situation is a key: for chances to win (seats played, the lowest score, the seats
    # holding it), as ties are shared alike whoever holds them; for stakes the scores so
    # far. Every value and play is a function of the key alone.

    def _child(self, key: tuple, y: int) -> tuple:
        """The situation after the seat to play in *key* ends its turn on *y*."""
        if self.rules.stakes != "win":
            return key + (y,)
        if not key:
            return (1, y, (0,))
        n, low, holders = key
        if y < low:
            return (n + 1, y, (n,))
        if y == low:
            return (n + 1, low, holders + (n,))
        return (n + 1, low, holders)

    def key(self, scores: tuple) -> tuple:
        """The situation of a round whose seats so far ended on *scores*."""
        key: tuple = ()
        for y in scores:
            key = self._child(key, y)
        return key

    def _played(self, key: tuple) -> int:
        return len(key) if self.rules.stakes != "win" else (key[0] if key else 0)

    def _over(self, key: tuple) -> bool:
        """The round is over: every seat played, or a shut box with shut-wins ended it."""
        if not key:
            return False
        if self.rules.stakes != "win":
            return len(key) == self.n or (self.rules.shut_wins and key[-1] == 0)
        return key[0] == self.n or (self.rules.shut_wins and key[1] == 0)

    def _outcome(self, key: tuple) -> tuple[tuple, bool]:
        """(the winners, won with a shut box) of a round over in *key* (with shut-wins a
        score of 0 only comes from the shut box that ended it, its holder the last seat)."""
        if self.rules.stakes == "win":
            return key[2], key[1] == 0
        if self.rules.shut_wins and key[-1] == 0:
            return (len(key) - 1,), True
        low = min(key)
        return tuple(i for i, sc in enumerate(key) if sc == low), low == 0

    def _end(self, key: tuple) -> tuple:
        """Every seat's value of a round over in *key*."""
        r, n = self.rules, self.n
        win, shut = self._outcome(key)
        if r.stakes == "win":
            if len(win) > 1 and r.tie == "replay":
                if n == 2:
                    return (self.tie_value, 1 - self.tie_value)
                tied = self.tie_value if len(win) == n else self._subs[len(win)]
                out = [Fraction(0)] * n
                for i, w in enumerate(win):  # the tied seats in seat order
                    out[w] = tied[i]
                return tuple(out)
            share = Fraction(1, len(win))
            return tuple(share if i in win else Fraction(0) for i in range(n))
        if len(win) > 1:  # a tie pays nothing; replay: the match again
            v = self.tie_value if r.tie == "replay" else Fraction(0)
            return (v, -v)
        w = win[0]
        other = self.start_score if len(key) == 1 else key[1 - w]  # not played: shut nothing
        if r.stakes == "stake":
            pay = r.shut_pays if shut else Fraction(1)
        else:  # canoga: the difference, twice with a shut box
            pay = Fraction((other - key[w]) * (2 if shut else 1))
        return (pay, -pay) if w == 0 else (-pay, pay)

    def _intern(self, v: tuple) -> tuple:
        """One tuple object per distinct value (so equal values group by identity)."""
        k = tuple((x.numerator, x.denominator) for x in v)
        return self._interned.setdefault(k, v)

    # ----- backward: each seat's best play -----

    def payout(self, scores: tuple = ()) -> dict:
        """{final score: the value to the seat to play of ending its turn on it}, the seats
        before having *scores*."""
        return self._payout(self.key(scores))

    def _payout(self, key: tuple) -> dict:
        j = self._played(key)
        child = self._child
        return {y: self._value(child(key, y))[j] for y in self.finals}

    def values(self, scores: tuple = ()) -> tuple:
        """Every seat's value with the seats before having final *scores*, optimal play on
        (the round's end values when it is over)."""
        return self._value(self.key(scores))

    def _value(self, key: tuple) -> tuple:
        got = self._values.get(key)
        if got is None:
            if self._over(key):
                got = self._end(key)
            else:
                masses, total = self._play(key)
                by_value: dict = {}  # id of a value -> [its chance x total, the value]
                for y, m in masses.items():
                    v = self._value(self._child(key, y))
                    slot = by_value.get(id(v))
                    if slot is None:
                        by_value[id(v)] = [m, v]
                    else:
                        slot[0] += m
                got = tuple(_mean(by_value.values(), total, i) for i in range(self.n))
            got = self._values[key] = self._intern(got)
        return got

    def play(self, scores: tuple = ()) -> tuple[dict, int]:
        """({score: mass}, total): the final-score distribution (mass / total) of the seat
        to play after *scores*, under its optimal play."""
        return self._play(self.key(scores))

    def _play(self, key: tuple) -> tuple[dict, int]:
        got = self._play_at.get(key)
        if got is None:
            table = self._payout(key)
            tkey = tuple((table[y].numerator, table[y].denominator) for y in self.finals)
            got = self._plays.get(tkey)
            if got is None:
                got, solved = self._plays.take(tkey, table)
                self.solves += solved
            self._play_at[key] = got
        return got

    # ----- forward: who wins how often -----

    def _forward(self) -> None:
        """Push the round's probability seat by seat over the situations, the scores that
        lead to the same situation added up in ints first, and add up each seat's
        outcomes."""
        level = {(): Fraction(1)}
        while level:
            nxt: dict = {}
            for key, p in level.items():
                seat = self.seats[self._played(key)]
                seat.p_play += p
                masses, total = self._play(key)
                seat.score_mass += p * Fraction(sum(y * m for y, m in masses.items()), total)
                groups: dict = {}  # a situation, or an end (its value and outcome)
                for y, m in masses.items():
                    k = self._child(key, y)
                    if self._over(k):
                        k = (id(self._value(k)), self._outcome(k), k)
                        slot = groups.get(k[:2])
                        if slot is None:
                            groups[k[:2]] = [m, k[2]]
                        else:
                            slot[0] += m
                    else:
                        groups[k] = groups.get(k, 0) + m
                for k, m in groups.items():
                    if isinstance(m, list):  # an end
                        self._account(m[1], p * Fraction(m[0], total))
                    else:
                        nxt[k] = nxt.get(k, 0) + p * Fraction(m, total)
            level = nxt

    def _account(self, key: tuple, p: Fraction) -> None:
        """Add a round over in *key* (or any end with its value and outcome), with chance
        *p*, to every seat's figures."""
        ends = self._value(key)
        win, shut = self._outcome(key)
        if len(win) == self.n:
            self.p_all_tie += p
        for i, seat in enumerate(self.seats):
            seat.value += p * ends[i]
            if i not in win:
                seat.p_lose += p
            elif len(win) > 1:
                seat.p_tie += p
            else:
                seat.p_win += p
                if shut:
                    seat.p_win_shut += p

    def value_if(self, seat: int, payout_of) -> Fraction:
        """*seat*'s value (0-based) when it alone plays for another aim: in each situation
        it maximises payout_of(scores) (a payout table) while the other seats keep their
        best play (2 players: what the box's min-expected seat 1, or a hint that counts a
        tie as lost, costs against the match-optimal play)."""
        if self.n != 2:
            raise ValueError("value_if is for 2 players")
        if seat == 0:
            masses, total = seat_play(self.var, payout_of(()))
            return sum((Fraction(mm, total) * self.values((x,))[0]
                        for x, mm in masses.items()), Fraction(0))
        masses, total = self.play(())
        out = Fraction(0)
        for x, mx in masses.items():
            if self._over(self.key((x,))):
                out += Fraction(mx, total) * self.values((x,))[1]
                continue
            m2, t2 = seat_play(self.var, payout_of((x,)))
            out += Fraction(mx, total) * sum(
                (Fraction(my, t2) * self.values((x, y))[1] for y, my in m2.items()),
                Fraction(0))
        return out

    # ----- the figures -----

    def edge(self) -> Fraction:
        """Seat 1's value minus seat 2's (2 players: the stake seat 1 wins a round played
        for one), or minus a fair share (more); with stakes, seat 1's value (what it wins)."""
        if self.rules.stakes != "win":
            return self.seats[0].value
        if self.n == 2:
            return self.seats[0].value - self.seats[1].value
        return self.seats[0].value - self.rules.total() / self.n

    def as_json(self) -> dict:
        out = {"variant": self.var.names(), "players": self.n, "tie": self.rules.tie,
               "shut_wins": self.rules.shut_wins, "stakes": self.rules.stakes,
               "seats": [s.as_json() for s in self.seats],
               "edge": float(self.edge()), "edge_exact": str(self.edge()),
               "solves": self.solves}
        if self.rules.stakes == "stake":
            out["shut_pays"] = str(self.rules.shut_pays)
        if self.rules.tie == "replay":
            out["replay_steps"] = self.replay_steps
        return out


def _mean(weighed, total: int, i: int) -> Fraction:
    """sum(m * v[i]) / total over the [m, v] of *weighed*, exact: the numerators over their
    least common denominator summed as ints (one Fraction, not one a term)."""
    den = math.lcm(*(v[i].denominator for _m, v in weighed))
    return Fraction(sum(m * v[i].numerator * (den // v[i].denominator) for m, v in weighed),
                    den * total)


def seat_play(var: solver.Variant, payout: dict) -> tuple[dict, int]:
    """({score: mass}, total): the final-score distribution (mass / total, exact ints) of the
    play that maximises the expected *payout* (the solver's payout objective and its
    tie-breaks)."""
    return _seat_play(var, payout)[0]


def _seat_play(var: solver.Variant, payout: dict,
               pushed: dict | None = None) -> tuple[tuple[dict, int], bool]:
    """(seat_play, whether that play throws one die at every state that allows it, in the
    turn's first layer). *pushed*: {a play's one-die flags and chosen results: its seat_play}
    of the plays met before (payout tables that differ often play alike, a play the same
    distribution): each pushed once."""
    sol = solver._Solved(var, "payout", payout=payout)
    key = (tuple(map(bytes, sol.flags)), tuple(map(tuple, sol.chosen)))
    play = None if pushed is None else pushed.get(key)
    if play is None:
        play = (dict(sorted(solver._forward(var, sol.flags, sol.chosen).items())),
                36 ** var.tiles)
        if pushed is not None:
            pushed[key] = play
    # the pass flags one die only where the rules allow it (not at 0, the shut box)
    return play, sol.flags[0][1:] == solver._allowed(var.tiles, var.one_die)[1:]


class Plays(dict):
    """The seats' plays of one variant, {payout table: seat_play}, shared by its Matches.

    *twin*: the Plays of the same variant with one die optional, for a variant in the locked
    or the forced mode. Where the optional play of a table throws one die at every state
    that allows it (strictly better there: the solver's tie rule), the other two modes play
    that table the same way: the forced mode's recurrence has, at every state, the option
    the optional one took (one die where allowed, two elsewhere), so the same keys and
    results state by state up from the shut box; the locked mode's second layer (one die
    chosen) is the forced mode, and its first layer has the optional mode's two options at
    the same keys, so it takes one die at the same states and the same results. One play,
    one final-score distribution: take() takes it from the twin, not solved again.

    every_one: every play here throws one die wherever the rules allow it. When that holds
    for the twin's plays of some Matches, the same Matches of this variant meet the same
    tables (the same situations and values, by induction from the round's end), each taken
    from the twin: their values are the twin's Matches' (tablegen.match_vector_bytes takes
    the twin's vectors then)."""

    def __init__(self, var: solver.Variant, twin: Plays | None = None):
        super().__init__()
        if twin is not None and (
                var.one_die_mode == V.MODE_OPTIONAL or twin.var != optional_twin(var)):
            raise ValueError("the twin of a locked or forced variant is its optional one")
        self.var = var
        self.twin = twin
        self.one: dict = {}  # table -> its play throws one die wherever allowed
        self.taken = 0  # plays taken from the twin
        self._pushed: dict = {}  # _seat_play's

    @property
    def every_one(self) -> bool:
        return all(self.one.values())

    def take(self, tkey: tuple, table: dict) -> tuple[tuple[dict, int], bool]:
        """(the play of payout *table*, whose key is *tkey*; whether it was solved here, not
        found or taken from the twin)."""
        got = self.get(tkey)
        if got is not None:
            return got, False
        twin = self.twin
        if twin is not None and twin.one.get(tkey):
            self[tkey], self.one[tkey] = twin[tkey], True
            self.taken += 1
            return self[tkey], False
        self[tkey], self.one[tkey] = _seat_play(self.var, table, self._pushed)
        return self[tkey], True


def optional_twin(var: solver.Variant) -> solver.Variant:
    """*var* with one die optional (its other rules the same)."""
    return solver.Variant(var.tiles, var.one_die, V.MODE_OPTIONAL, var.moves, var.scoring,
                          var.start, var.max_tiles)


def _replay_subs(var: solver.Variant, rules: MatchRules, plays: Plays) -> dict:
    """{m: the m-player replay match's seat values} for 2 <= m < the round's players (a tie
    of m seats is replayed by them alone: that match, seat order kept)."""
    out = {}
    for m in range(2, rules.players):
        sub = Match(var, MatchRules(m, "replay", rules.shut_wins), subs=out, plays=plays)
        out[m] = sub.values(())
    return out


def _replay(var: solver.Variant, rules: MatchRules, subs: dict,
            plays: Plays | None = None) -> tuple[Fraction | tuple, int, Match]:
    """(v, steps, round): the value of a tie of every seat under the replay rule (2 players:
    seat 1's, a Fraction; more: each seat's, a tuple), the policy iteration steps it took
    and the last step's round (the Match with its tie worth v).

    A round tied by every seat is played again by the same players in the same order, so its
    value is the match's own: v = A + T v, A the value of the round's decided outcomes (a tie
    of fewer seats worth their own match's values, *subs*) and T its chance of a tie of
    every seat, both under the play that is optimal when that tie is worth v. Start from an
    even split (chances) or 0 (stakes); solve the round with the tie worth v, take the v at
    which that round's A + T v equals v, again until it no longer moves: then the play is
    optimal for its own tie value (no seat gains from a tie worth what it is) and v is exact.
    """
    n = rules.players
    v: Fraction | tuple = rules.total() / 2
    if n > 2:
        v = tuple(rules.total() / n for _ in range(n))
    for step in range(1, MAX_REPLAY_STEPS + 1):
        m = Match(var, rules, tie_value=v, subs=subs, plays=plays)
        t = m.p_all_tie
        if n == 2:  # seat 1's decided outcomes' part of its value
            nv: Fraction | tuple = (m.seats[0].value - t * v) / (1 - t)
        else:
            nv = tuple((seat.value - t * w) / (1 - t) for seat, w in zip(m.seats, v, strict=True))
        if nv == v:
            return v, step, m
        v = nv
    raise RuntimeError("the replay value did not settle in %d steps" % MAX_REPLAY_STEPS)


def fair_shut_payout(var: solver.Variant, shut_wins: bool = True) -> tuple[Fraction | None, int]:
    """(K, steps): the stakes a shut box must pay (a plain win pays 1) for seat 1's expected
    stake to be 0 with both seats playing their best for that K. None when the stake reaches
    a K at which seat 1 wins by a shut box no more often than seat 2 (without shut-wins seat
    2 ties a shut box by shutting it too): paying more then gains seat 1 nothing.

    Policy iteration on K: under fixed play seat 1's stake is A + B K (B: its chance of a
    win with a shut box minus seat 2's), so K = -A / B; solve again at that K until it no
    longer moves.
    """
    k = Fraction(2)
    for step in range(1, MAX_REPLAY_STEPS + 1):
        m = Match(var, MatchRules(2, "share", shut_wins, "stake", k))
        s1, s2 = m.seats
        b = s1.p_win_shut - s2.p_win_shut
        if b <= 0:
            return None, step
        a = s1.value - b * k
        nk = -a / b
        if nk == k:
            return k, step
        k = nk
    raise RuntimeError("the fair payout did not settle in %d steps" % MAX_REPLAY_STEPS)


def fair_tie_value(var: solver.Variant, shut_wins: bool = False) -> tuple[Fraction | None, int]:
    """(t, steps): the share of a tie seat 1 must get (seat 2 the rest) for a round of 2
    players to be even (each wins with chance 1/2) with both playing their best for it;
    None when no share from 0 to 1 does it. Policy iteration on t as in _replay: under fixed
    play seat 1's value is A + T t (T: the chance of a tie), so t = (1/2 - A) / T."""
    t = Fraction(1, 2)
    for step in range(1, MAX_REPLAY_STEPS + 1):
        m = Match(var, MatchRules(2, "replay", shut_wins), tie_value=t)
        s1 = m.seats[0]
        if not s1.p_tie:
            return None, step
        a = s1.value - s1.p_tie * t
        nt = (Fraction(1, 2) - a) / s1.p_tie
        if not 0 <= nt <= 1:
            return None, step
        if nt == t:
            return t, step
        t = nt
    raise RuntimeError("the fair tie share did not settle in %d steps" % MAX_REPLAY_STEPS)
