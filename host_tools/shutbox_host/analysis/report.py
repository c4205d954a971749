# `shutbox report`: what recorded games say of each player, measured against the exact solver.
"""Read game logs (docs/log-format.md) and report, per player: games, turns, the average
score against optimal play's exact expectation, every decision's cost against the optimum,
and how much of the difference was luck.

``shutbox report LOG... [--html] [-o OUT] [--top N]`` reads logs recorded by ``shutbox log``
(lines with "t"), written by ``shutbox play --log FILE`` or by the web page: the same JSON
lines. The text report goes to stdout; ``-o OUT.png`` also writes the plots (matplotlib);
``--html`` makes one self-contained page instead (the plots embedded as data URIs), on
stdout or in OUT.

Definitions (all exact, from shutbox_host.solve.solver's min-expected play; docs/analysis.md
says the same in words):

- A turn's *optimal expectation* E0 is the expected final score of optimal play from the
  turn's start. V(x) below is that expectation from any position x (the open tiles, and in
  the locked one-die mode whether one die was chosen), before the dice are chosen.
- Every *decision* is measured against the optimum where it was made. A move (of a throw
  with more than one legal move: one legal move is no choice): the expected final score
  after it minus that after the best move of the same throw. A one-die choice (only where
  the rules leave it to the player): the expected final score of the dice chosen, Q(x, d),
  minus that of the better dice. Optimal decisions cost 0; equal moves cost 0 both.
- *Given away* (skill) is the sum of a turn's decision costs; *luck* is the rest of the
  difference: score = E0 + given away - luck, exactly. Luck is the sum, over the turn's
  throws, of Q(x, d) minus the best the throw allows (the expectation after its best move,
  or the score when it has no move): how much each throw lowered the optimal expectation
  (negative: raised it). Each throw's luck has mean 0 whatever the player does, so luck
  averages out over many turns, and given away does not.
- *The match measure*, in a game played as one round for the win (its settings record: no
  format, stakes or same throws; ties shared, rolled off, or replayed by 2): every seat's
  aim there is the win, not the lowest score (the box's hard computer and best hints play
  for it). Each decision also costs the chance to win the round it gives away: the seat's
  chance after the best choice minus that after its own, every seat playing the match's
  optimum from there and the seats before known (shutbox_host.solve.match: the seat's
  payout table of its final scores, solved by the solver's "payout" objective).

What is read: a game begins at its ``game`` record (the rules: tiles, one-die, one-die-mode,
moves, scoring, start) under the last ``settings`` record before it (the computer's level,
and the turn rules: unlucky-7, to-go and most-tiles, which the solver does not model:
games with one of them on are left out, as are games where one shows in the log: a
``rule`` record, or a throw whose legal moves differ from the rules'). A turn counts when
the log holds all of it, from its ``turn`` record (or a resume into its set-up) to its
``score``, every record agreeing with the last: a restart that resumes the turn where it
was keeps it (a throw logged again after the restart is read once). Turns that do not
count are listed with why. The computer's seats (the ``game`` record's ``computer``) are
reported as the computer (with its level when the settings record gives it); people's
seats as player 1 to 4.

Bad input: a file that cannot be read, an empty one, one with no record and a record of a
newer log format than this shutbox reads (its ``v``) are refused in one line. A line that
is not a record (not JSON, or not a record of the log) or a record with fields that do not
make sense is left out: the report is made from the others, then one line names the first
such line (file:line) and how many there were, and the exit status is 2.
"""

from __future__ import annotations

import base64
import html as _html
import io
import json
import sys
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from shutbox_host.analysis import log as _log
from shutbox_host.errors import UserError

TURN_RULES = ("unlucky-7", "to-go", "most-tiles")  # settings the solver does not model
TOP = 10  # the costliest decisions listed, by default


# ----- what the report holds -----


@dataclass
class Decision:
    """One decision of a player, measured against the optimum where it was made."""

    kind: str  # "move" or "dice"
    who: str
    where: str  # file:line of the record that shows it (the move, or the throw)
    game: str  # file#game number
    open_: int  # the open tiles
    locked: int  # one die chosen earlier in a locked turn
    throw: tuple[int, int] | None  # a move's throw (b == 0: one die); None for the dice
    chose: int  # the move's tiles; dice: 1 or 2
    best: int  # the best move's tiles; dice: 1 or 2
    loss: Fraction  # expected final score given away (0: optimal)
    chose_e: Fraction  # the expected final score of the choice
    best_e: Fraction  # ... and of the best one
    # in one round for the win: the chance to win the round given away against the match's
    # optimum there (0: match-optimal; None: not measured, see match_rules)
    win_loss: Fraction | None = None


@dataclass
class Turn:
    """One whole turn of a player, and what it says."""

    who: str
    seat: int
    where: str  # file:line of its start
    game: str
    var: object  # solver.Variant
    start: int
    score: int = 0
    optimal: Fraction = Fraction(0)  # E0: optimal play's expected final score from the start
    given: Fraction = Fraction(0)  # the decisions' costs, summed
    luck: Fraction = Fraction(0)  # optimal - score + given
    throws: list = field(default_factory=list)  # (dice, the throw's luck)
    decisions: list = field(default_factory=list)
    shut: bool = False
    p_win: Fraction | None = None  # one round for the win: the match-optimal chance to win


@dataclass
class Report:
    """Everything read from the logs."""

    files: list = field(default_factory=list)
    turns: list = field(default_factory=list)  # whole turns, in log order
    left_out: list = field(default_factory=list)  # (where, who, why) of turns not counted
    damaged: list = field(default_factory=list)  # (file, line, why, text) of lines not read
    games: dict = field(default_factory=dict)  # game id -> variant (every game read)
    first_t: str | None = None
    last_t: str | None = None

    def players(self) -> list[str]:
        """The players with whole turns: people by seat, then the computer."""
        names = {t.who for t in self.turns}
        return sorted(names, key=lambda w: (w.startswith("computer"), w))

    def variants(self) -> list:
        """The variants of the whole turns, in the order first played."""
        out: list = []
        for t in self.turns:
            if t.var not in out:
                out.append(t.var)
        return out


# ----- the exact solver, per variant -----

_ANALYSES: dict = {}


def analysis(var):
    """The solver's min-expected Analysis of *var* (made once per variant)."""
    from shutbox_host.solve import solver

    if var not in _ANALYSES:
        _ANALYSES[var] = solver.Analysis(var)
    return _ANALYSES[var]


_MATCHES: dict = {}


def match_rules(settings: dict | None, players) -> object | None:
    """The match.MatchRules of a game played as one round for the win (the box's match play:
    no format, stakes or same throws; ties shared, rolled off or, with 2 players, replayed),
    from its ``settings`` record by name; None when it is not one, or not known."""
    from shutbox_host.solve import match as M

    s = settings or {}
    if (not isinstance(players, int) or not 2 <= players <= M.MAX_PLAYERS
            or s.get("format") != "one-round" or s.get("stakes") != "off"
            or s.get("same-throws") != "off" or s.get("tie") not in M.TIE_RULES
            or s.get("tie") == "replay" and players != 2):
        return None
    return M.MatchRules(players, "share" if s["tie"] == "roll-off" else s["tie"],
                        s.get("shut-wins") == "on")


def match_analysis(var, rules, before: tuple):
    """The solver's Analysis of the seat after the final scores *before* in a round of
    *rules*: its expected payout is its chance to win the round (ties as the rules share
    them) under the match-optimal play of every seat (shutbox_host.solve.match)."""
    from shutbox_host.solve import match as M
    from shutbox_host.solve import solver

    key = (var, rules.players, rules.tie, rules.shut_wins)
    if key not in _MATCHES:
        _MATCHES[key] = [M.Match(var, rules), {}]
    m, seen = _MATCHES[key]
    table = m.payout(before)
    tkey = tuple(sorted(table.items()))
    if tkey not in seen:
        seen[tkey] = solver.Analysis(var, "payout", payout=table)
    return seen[tkey]


def variant_text(var) -> str:
    """The variant in words: '9 tiles, one-die high-shut optional, moves any, ...'."""
    n = var.names()
    return "%d tiles, one-die %s%s, moves %s, scoring %s, start %s" % (
        var.tiles, n["one-die"], "" if n["one-die"] == "never" else " " + n["one-die-mode"],
        n["moves"], n["scoring"], n["start"])


# ----- reading the logs -----


class _Bad(Exception):
    """A record whose fields do not make sense (the message says which)."""


def _int(rec: dict, key: str, lo: int, hi: int) -> int:
    v = rec.get(key)
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise _Bad("%s %r is not %d to %d" % (key, v, lo, hi))
    return v


def _mask(rec: dict, key: str, tiles: int) -> int:
    v = rec.get(key)
    if not isinstance(v, list):
        raise _Bad("%s is not a list of tiles" % key)
    m = 0
    for k in v:
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= tiles:
            raise _Bad("%s holds %r, not a tile of this %d-tile box" % (key, k, tiles))
        m |= 1 << (k - 1)
    return m


def _dice(rec: dict) -> tuple[int, int]:
    v = rec.get("dice")
    if (not isinstance(v, list) or not 1 <= len(v) <= 2
            or any(isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 6 for d in v)):
        raise _Bad("dice %r are not one or two dice of 1 to 6" % (v,))
    return (v[0], v[1]) if len(v) == 2 else (v[0], 0)


def tiles_text(mask: int) -> str:
    """'1 2 5', or 'none'."""
    return " ".join(str(k + 1) for k in range(mask.bit_length()) if mask >> k & 1) or "none"


def throw_text(throw: tuple[int, int]) -> str:
    """'5+4', or '6 (one die)'."""
    a, b = throw
    return "%d (one die)" % a if b == 0 else "%d+%d" % (a, b)


class _Game:
    """A game as read: its variant, seats, and why it is not analysed (None: it is)."""

    def __init__(self, gid: str, var, why: str | None, computer: set, level: str | None,
                 rules=None):
        self.gid = gid
        self.var = var
        self.why = why
        self.computer = computer
        self.level = level
        self.rules = rules  # one round for the win: its match.MatchRules (None: not one)
        self.scores: dict = {}  # seat -> its final score this round

    def who(self, seat: int) -> str:
        if seat in self.computer:
            return "computer (%s)" % self.level if self.level else "computer"
        return "player %d" % seat


class _TurnState:
    """A turn being read."""

    def __init__(self, game: _Game, seat: int, where: str, start: int):
        self.game = game
        self.seat = seat
        self.where = where
        self.s = start  # the open tiles now
        self.locked = 0
        self.pending: dict | None = None  # the throw to be played: its dice, moves, ...
        self.over = start == 0  # a throw with no move came, or the box is shut
        self.broken: str | None = None
        self.turn = Turn(game.who(seat), seat, where, game.gid, game.var, start)
        self.win = None  # one round for the win: the payout Analysis of the seat's match
        if game.why is None:
            self.turn.optimal = analysis(game.var).value(start)["expected_score"]
            before = tuple(game.scores.get(k) for k in range(1, seat))
            if game.rules is not None and None not in before and start == game.var.start_mask():
                self.win = match_analysis(game.var, game.rules, before)
                self.turn.p_win = self.win.value(start)["expected_payout"]


class _Reader:
    """Reads one file's records into a Report."""

    def __init__(self, name: str, report: Report):
        self.name = name
        self.report = report
        self.settings: dict | None = None
        self.game: _Game | None = None
        self.turn: _TurnState | None = None
        self.orphan: tuple[str, int] | None = None  # a turn whose start is not in the log
        self.ngames = 0
        self.line = 0
        self.damaged_game: str | None = None  # where the game record was that could not be read

    def where(self) -> str:
        return "%s:%d" % (self.name, self.line)

    # --- turns that do not count ---

    def leave(self, where: str, who: str, why: str) -> None:
        self.report.left_out.append((where, who, why))

    def drop_turn(self, why: str) -> None:
        """The turn being read does not count."""
        t = self.turn
        if t is not None:
            self.leave(t.where, t.turn.who, t.broken or why)
        self.turn = None

    def end_orphan(self) -> None:
        if self.orphan is not None:
            where, seat = self.orphan
            who = self.game.who(seat) if self.game else "player %d" % seat
            self.leave(where, who, "its start is not in this log")
            self.orphan = None

    def disqualify(self, why: str) -> None:
        """The game turns out to be one the solver does not model: none of its turns count."""
        g = self.game
        if g is None or g.why is not None:
            return
        g.why = why
        kept = []
        for t in self.report.turns:
            if t.game == g.gid:
                self.leave(t.where, t.who, why)
            else:
                kept.append(t)
        self.report.turns[:] = kept
        if self.turn is not None:
            self.turn.broken = why

    # --- records ---

    def record(self, rec: dict) -> None:
        ev = rec["ev"]
        t = rec.get("t")
        if isinstance(t, str):
            r = self.report
            r.first_t = t if r.first_t is None or t < r.first_t else r.first_t
            r.last_t = t if r.last_t is None or t > r.last_t else r.last_t
        handler = getattr(self, "on_" + ev, None)
        if handler is not None:
            handler(rec)

    def on_settings(self, rec: dict) -> None:
        names = rec.get("names")
        self.settings = _log.settings_names(rec) or (names if isinstance(names, dict) else None)

    def on_game(self, rec: dict) -> None:
        from shutbox_host.solve import solver

        self.end_game("a new game began before its score")
        self.game = None
        self.damaged_game = self.where()  # until the record is read
        self.ngames += 1
        gid = "%s#%d" % (self.name, self.ngames)
        tiles = _int(rec, "tiles", 2, 12)
        rules = rec.get("rules")
        why = None
        try:
            if not isinstance(rules, dict):
                raise ValueError("no rules")
            var = solver.Variant.from_names(tiles, rules.get("one-die"),
                                            rules.get("one-die-mode"), rules.get("moves"),
                                            rules.get("scoring"), rules.get("start"))
        except (ValueError, TypeError):
            raise _Bad("rules %r are not rules this shutbox knows" % (rules,)) from None
        s = self.settings or {}
        on = [r for r in TURN_RULES if s.get(r, "off") not in ("off", None)]
        if on:
            why = "played with %s, which the solver does not model" % " and ".join(on)
        seats = rec.get("computer", [])
        if not isinstance(seats, list) or any(
                isinstance(x, bool) or not isinstance(x, int) or not 1 <= x <= 4 for x in seats):
            raise _Bad("computer %r is not a list of seats" % (seats,))
        computer = set(seats)
        level = s.get("computer") if s.get("computer") not in (None, "off") else None
        self.game = _Game(gid, var, why, computer, level,
                          match_rules(self.settings, rec.get("players")))
        self.damaged_game = None
        self.report.games[gid] = var

    def end_game(self, why: str) -> None:
        if self.turn is not None:
            self.drop_turn(why)
        self.end_orphan()

    def on_winner(self, rec: dict) -> None:
        self.end_game("the game ended before its score")
        self.game = None
        self.damaged_game = None

    def on_turn(self, rec: dict) -> None:
        if self.turn is not None:
            if self.turn.s == self.turn.turn.start and not self.turn.turn.throws:
                self.turn = None  # a set-up resumed, then its turn record: the same turn
            else:
                self.drop_turn("the next turn began before its score")
        self.end_orphan()
        g = self.game
        seat = _int(rec, "player", 1, 4)
        if g is None:  # its throws and moves are skipped: no turn is being read
            self.leave(self.where(), "player %d" % seat, "its game record is damaged (%s)" % (
                self.damaged_game) if self.damaged_game else "its game's start is not in this log")
            return
        start = _mask(rec, "open", g.var.tiles)
        self.turn = _TurnState(g, seat, self.where(), start)
        if g.why is not None:
            self.turn.broken = g.why
        elif start != g.var.start_mask():
            self.turn.broken = "it does not begin at the variant's start"

    def on_resume(self, rec: dict) -> None:
        g = self.game
        seat = _int(rec, "player", 1, 4)
        state = rec.get("state")
        t = self.turn
        if g is None:
            return  # the game's start is not in this log: its turns say so
        s = _mask(rec, "open", g.var.tiles)
        if t is not None and t.seat == seat and t.s == s:
            return  # the turn goes on where it was
        if t is not None:
            self.drop_turn("a restart did not resume it where it was")
        self.end_orphan()
        if state == "setup":  # the turn's set-up: it starts here
            self.turn = _TurnState(g, seat, self.where(), g.var.start_mask())
            if g.why is not None:
                self.turn.broken = g.why
        elif state in ("ready", "rolling", "move"):
            self.orphan = (self.where(), seat)

    def _turn_of(self, rec: dict) -> _TurnState | None:
        """The turn a throw, move or score belongs to (None: one that does not count)."""
        seat = _int(rec, "player", 1, 4)
        t = self.turn
        if t is None:
            if self.orphan is None and self.game is not None:
                self.orphan = (self.where(), seat)
            return None
        if t.seat != seat:
            t.broken = t.broken or "a record of another player inside it (%s)" % self.where()
        return t

    def on_throw(self, rec: dict) -> None:
        t = self._turn_of(rec)
        if t is None or t.broken:
            return
        var = t.game.var
        a, b = _dice(rec)
        s = _mask(rec, "open", var.tiles)
        p = t.pending
        if p is not None:
            if p["dice"] == (a, b) and p["s"] == s:
                return  # the same throw logged again after a restart
            t.broken = "a throw before the last one was played (%s)" % self.where()
            return
        if s != t.s or t.over:
            t.broken = "a throw that does not follow from the turn so far (%s)" % self.where()
            return
        an = analysis(var)
        opts = an.options(s, t.locked)
        chosen = [o for o in opts if o["one_die"] == (b == 0)]
        if not chosen:
            t.broken = "%s where the rules do not allow it (%s)" % (
                "one die" if b == 0 else "two dice", self.where())
            return
        q = chosen[0]["expected_score"]
        if len(opts) == 2:  # the player chose the dice
            best = min(opts, key=lambda o: o["expected_score"])
            t.turn.decisions.append(Decision(
                "dice", t.turn.who, self.where(), t.game.gid, s, t.locked, None,
                1 if b == 0 else 2, 1 if best["one_die"] else 2, q - best["expected_score"],
                q, best["expected_score"]))
            if t.win is not None:  # the chance to win of the dice chosen, against the best
                wins = {o["one_die"]: o["expected_payout"] for o in t.win.options(s, t.locked)}
                t.turn.decisions[-1].win_loss = max(wins.values()) - wins[b == 0]
        moves = an.moves(s, a, b, t.locked)
        n = rec.get("moves")
        if n != len(moves):
            self.disqualify("a throw's legal moves differ from the rules (%s: %r, not %d): a "
                            "turn rule the solver does not model" % (self.where(), n,
                                                                     len(moves)))
            return
        from shutbox_host.solve import solver

        after = moves[0]["expected_score"] if moves else Fraction(solver.score(s, var.scoring))
        t.turn.throws.append(((a, b), q - after))
        if b == 0 and var.locked_layers == 2:
            t.locked = 1
        if moves:
            t.pending = {"dice": (a, b), "s": s, "moves": moves}
            if t.win is not None:
                t.pending["wins"] = {m["mask"]: m["expected_payout"]
                                     for m in t.win.moves(s, a, b, t.locked)}
        else:
            t.over = True

    def on_move(self, rec: dict) -> None:
        t = self._turn_of(rec)
        if t is None or t.broken:
            return
        var = t.game.var
        a, b = _dice(rec)
        shut = _mask(rec, "shut", var.tiles)
        left = _mask(rec, "open", var.tiles)
        p = t.pending
        if p is None or p["dice"] != (a, b) or shut & ~t.s or left != t.s & ~shut:
            t.broken = "a move that does not follow from the turn so far (%s)" % self.where()
            return
        chosen = [m for m in p["moves"] if m["mask"] == shut]
        if not chosen:
            t.broken = "a move the rules do not allow (%s)" % self.where()
            return
        best = p["moves"][0]
        if len(p["moves"]) > 1:  # a choice (a throw with one legal move leaves none)
            t.turn.decisions.append(Decision(
                "move", t.turn.who, self.where(), t.game.gid, t.s, t.locked, (a, b), shut,
                best["mask"], chosen[0]["expected_score"] - best["expected_score"],
                chosen[0]["expected_score"], best["expected_score"]))
            wins = p.get("wins")
            if wins is not None:  # the chance to win after it, against the best move's
                t.turn.decisions[-1].win_loss = max(wins.values()) - wins[shut]
        t.s = left
        t.pending = None
        t.over = left == 0

    def on_rule(self, rec: dict) -> None:
        rule = rec.get("rule")
        self.disqualify("played with %s, which the solver does not model" % (
            rule if isinstance(rule, str) else "a turn rule"))

    def on_score(self, rec: dict) -> None:
        from shutbox_host.solve import solver

        score = _int(rec, "score", 0, 1 << 62)
        if self.game is not None:  # the round's scores so far (the next seats' situation)
            self.game.scores[_int(rec, "player", 1, 4)] = score
        t = self._turn_of(rec)
        if t is None:
            self.end_orphan()
            return
        self.turn = None
        if not t.broken and t.game.why is None:
            var = t.game.var
            left = _mask(rec, "open", var.tiles)
            if not t.over or left != t.s or score != solver.score(t.s, var.scoring):
                t.broken = "its score does not follow from the turn (%s)" % self.where()
        if t.broken:
            self.leave(t.where, t.turn.who, t.broken)
            return
        turn = t.turn
        turn.score = score
        turn.shut = t.s == 0
        turn.given = sum((d.loss for d in turn.decisions), Fraction(0))
        turn.luck = turn.optimal + turn.given - score
        if turn.luck != sum((x for _d, x in turn.throws), Fraction(0)):
            raise AssertionError("luck does not add up in the turn at %s" % t.where)
        self.report.turns.append(turn)

    def end(self) -> None:
        """The file ends."""
        if self.turn is not None:
            self.drop_turn("the log ends before its score")
        self.end_orphan()


def _clip(text: str, n: int = 50) -> str:
    text = text.strip()
    return repr(text if len(text) <= n else text[:n] + "...")


def read_logs(paths) -> Report:
    """Read the logs *paths* into a Report; UserError (one line) for a file that cannot be
    read, is empty, holds no record, or is of a newer format than this shutbox reads."""
    report = Report()
    for path in paths:
        name = str(path)
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise UserError("cannot read %s: %s" % (name, exc.strerror or exc)) from None
        text = data.decode("utf-8", errors="replace")
        if not text.strip():
            raise UserError("%s is empty: no log records in it" % name)
        reader = _Reader(name, report)
        report.files.append(name)
        found = 0
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            reader.line = n
            try:
                rec = json.loads(line)
            except ValueError:
                rec = None
            if isinstance(rec, dict):
                v = rec.get("v")
                if isinstance(v, int) and not isinstance(v, bool) and v > _log.FORMAT:
                    raise UserError("%s:%d: log format %d, newer than this shutbox reads "
                                    "(%d): update shutbox" % (name, n, v, _log.FORMAT))
            try:
                rec = _log.parse_line(line)
            except ValueError as exc:
                report.damaged.append((name, n, str(exc), _clip(line)))
                continue
            found += 1
            try:
                reader.record(rec)
            except _Bad as exc:
                report.damaged.append((name, n, "a %s record whose %s" % (rec["ev"], exc),
                                       _clip(line)))
                if reader.turn is not None:
                    reader.turn.broken = reader.turn.broken or "a damaged record inside it " \
                        "(%s:%d)" % (name, n)
        reader.end()
        if not found:
            first = [d for d in report.damaged if d[0] == name][0]
            raise UserError("%s: no log records in it (line %d: %s: %s)" % (
                name, first[1], first[2], first[3]))
    return report


# ----- the figures -----


@dataclass
class Player:
    """One player's figures over their whole turns."""

    who: str
    games: int
    turns: int
    score: Fraction  # average final score
    optimal: Fraction  # average optimal expectation of the same turns
    given: Fraction  # average given away per turn
    luck: Fraction  # average luck per turn
    decisions: int
    short: int  # decisions that gave something away
    given_total: Fraction
    shut: int  # turns that shut the box
    # the match measure, over the turns of games played as one round for the win
    win_turns: int = 0
    win_decisions: int = 0
    win_short: int = 0  # decisions short of the match's optimum
    win_given: Fraction = Fraction(0)  # the chance to win given away, summed


def players(report: Report) -> list[Player]:
    """Every player's figures, people first."""
    out = []
    for who in report.players():
        ts = [t for t in report.turns if t.who == who]
        n = len(ts)
        ds = [d for t in ts for d in t.decisions]
        total = sum((t.given for t in ts), Fraction(0))
        wins = [d.win_loss for d in ds if d.win_loss is not None]
        out.append(Player(
            who, len({t.game for t in ts}), n,
            Fraction(sum(t.score for t in ts), n), sum((t.optimal for t in ts), Fraction(0)) / n,
            total / n, sum((t.luck for t in ts), Fraction(0)) / n, len(ds),
            sum(1 for d in ds if d.loss > 0), total, sum(1 for t in ts if t.shut),
            sum(1 for t in ts if t.p_win is not None), len(wins), sum(1 for w in wins if w > 0),
            sum(wins, Fraction(0))))
    return out


def pp(x) -> str:
    """A chance as percentage points, 3 decimals."""
    return "%.3f" % (100 * float(x))


def _none_listed(report: Report, top: int) -> str:
    """Why no costly decision is listed: none gave anything away, or --top 0 asked for none."""
    if costliest(report, 1):
        return "none listed (--top %d)" % top
    return "none, every decision optimal"


def costliest(report: Report, top: int = TOP) -> list[Decision]:
    """The *top* decisions that gave most away (in log order among equals)."""
    ds = [d for t in report.turns for d in t.decisions if d.loss > 0]
    return sorted(ds, key=lambda d: -d.loss)[:top]


def num(x) -> str:
    """An expected score for the reader: 3 decimals (4 significant digits past a million)."""
    x = float(x)
    return "%.3f" % x if abs(x) < 1e6 else "%.4g" % x


def signed(x) -> str:
    x = float(x)
    return ("%+.3f" % x if abs(x) < 1e6 else "%+.4g" % x).replace("-0.000", "+0.000")


def decision_texts(d: Decision) -> tuple[str, str, str]:
    """(the situation, what was chosen, the better choice) in words."""
    if d.kind == "dice":
        name = {1: "one die", 2: "two dice"}
        return ("open %s, the dice to throw" % tiles_text(d.open_), name[d.chose],
                "%s (E %s)" % (name[d.best], num(d.best_e)))
    return ("open %s, threw %s" % (tiles_text(d.open_), throw_text(d.throw)),
            "shut %s" % tiles_text(d.chose), "shut %s (E %s)" % (tiles_text(d.best),
                                                                  num(d.best_e)))


def _table(rows: list[list[str]], right: set) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = []
    for r in rows:
        cells = [c.rjust(w) if i in right else c.ljust(w)
                 for i, (c, w) in enumerate(zip(r, widths, strict=True))]
        out.append("  " + "  ".join(cells).rstrip())
    return out


def summary(report: Report) -> str:
    """The report's first line: what was read."""
    games = {t.game for t in report.turns}
    text = "%d log%s, %d game%s, %d whole turn%s" % (
        len(report.files), "" if len(report.files) == 1 else "s", len(games),
        "" if len(games) == 1 else "s", len(report.turns), "" if len(report.turns) == 1 else "s")
    if report.left_out:
        text += " (%d more left out: see the end)" % len(report.left_out)
    if report.first_t:
        text += "; recorded %s to %s UTC" % (report.first_t[:16].replace("T", " "),
                                             report.last_t[:16].replace("T", " "))
    return text


def text(report: Report, top: int = TOP) -> str:
    """The report in plain text."""
    lines = ["shutbox report: " + summary(report), ""]
    lines.append("Variants (optimal play: the lowest expected final score, exact)")
    for var in report.variants():
        v = analysis(var).value(var.start_mask())
        games = len({t.game for t in report.turns if t.var == var})
        lines.append("  %s: %d game%s; optimal E(score) %s, p(shut) %.2f %%" % (
            variant_text(var), games, "" if games == 1 else "s", num(v["expected_score"]),
            100 * float(v["p_shut"])))
    ps = players(report)
    lines += ["", "Players (per turn: the average score, optimal play's expectation from the same "
              "starts,", "what the decisions gave away, luck; shut: turns that shut the box)"]
    rows = [["who", "games", "turns", "avg score", "optimal E", "given away", "luck",
             "shut"]]
    for p in ps:
        rows.append([p.who, str(p.games), str(p.turns), num(p.score), num(p.optimal),
                     num(p.given), signed(p.luck), "%d" % p.shut])
    lines += _table(rows, {1, 2, 3, 4, 5, 6, 7})
    lines += ["", "Decisions (each move and each one-die choice against the optimum there)"]
    rows = [["who", "decisions", "short of optimal", "given away", "per decision"]]
    for p in ps:
        rows.append([p.who, str(p.decisions), str(p.short), num(p.given_total),
                     num(p.given_total / p.decisions) if p.decisions else "-"])
    lines += _table(rows, {1, 2, 3, 4})
    if any(p.win_turns for p in ps):
        lines += ["", "In one round for the win (the match measure: each decision against the "
                  "match-optimal one there,", "the chance to win the round given away, in "
                  "percentage points; the seats before known)"]
        rows = [["who", "turns", "decisions", "short of the match's best", "chance given away",
                 "per decision"]]
        for p in ps:
            if p.win_turns:
                rows.append([p.who, str(p.win_turns), str(p.win_decisions), str(p.win_short),
                             pp(p.win_given), pp(p.win_given / p.win_decisions)
                             if p.win_decisions else "-"])
        lines += _table(rows, {1, 2, 3, 4, 5})
    lines += ["", "Luck against skill (per turn: average score = optimal E + given away - luck)"]
    for p in ps:
        luck = num(p.luck) if p.luck >= 0 else "(%s)" % num(p.luck)
        lines.append("  %s: %s = %s + %s - %s" % (p.who, num(p.score), num(p.optimal),
                                                  num(p.given), luck))
    worst = costliest(report, top)
    lines += ["", "Costliest decisions" + ("" if worst else ": " + _none_listed(report, top))]
    if worst:
        rows = [["given away", "who", "where", "situation", "chose", "better"]]
        for d in worst:
            situation, chose, better = decision_texts(d)
            rows.append([num(d.loss), d.who, d.where, situation, chose, better])
        lines += _table(rows, {0})
    if report.left_out:
        lines += ["", "Left out (turns the report does not count)"]
        for where, who, why in report.left_out:
            lines.append("  %s: %s's turn: %s" % (where, who, why))
    return "\n".join(lines) + "\n"


# ----- the plots -----


def matplotlib():
    """(Figure, FigureCanvasAgg) of matplotlib, the plotting stack; UserError without it."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise UserError("the plots (-o OUT.png, --html) need matplotlib, which `make venv` "
                        "installs (requirements-plots.txt); without -o and --html the report "
                        "is text") from None
    return Figure, FigureCanvasAgg


def figure_png(report: Report) -> bytes:
    """The plots as one PNG: per variant, each player's final scores over optimal play's
    exact distribution; then each player's expected score given away, turn by turn."""
    from shutbox_host.solve import solver

    Figure, FigureCanvasAgg = matplotlib()
    variants = report.variants()
    names = report.players()
    colours = {w: "C%d" % i for i, w in enumerate(names)}
    height = 3.4 * (len(variants) + 1)  # inches: a panel each
    fig = Figure(figsize=(9, height))
    FigureCanvasAgg(fig)
    # fixed margins (in inches, as fractions): a layout engine would draw everything twice
    fig.subplots_adjust(left=0.075, right=0.985, top=1 - 0.3 / height, bottom=0.5 / height,
                        hspace=0.42)
    axes = fig.subplots(len(variants) + 1, 1, squeeze=False)[:, 0]
    for ax, var in zip(axes, variants, strict=False):
        dist = solver.solve(var).distribution
        top = solver.score(var.full, var.scoring)
        who = [w for w in names if any(t.who == w and t.var == var for t in report.turns)]
        if top <= 100:  # every score its bar: optimal play's behind, each player's in front
            xs = list(range(top + 1))
            ax.stairs([float(dist.get(x, 0)) for x in xs], [x - 0.5 for x in xs] + [top + 0.5],
                      fill=True, color="0.85", label="optimal play (exact)")
            width = 0.8 / max(1, len(who))
            for i, w in enumerate(who):
                sc = [t.score for t in report.turns if t.who == w and t.var == var]
                seen = sorted(set(sc))
                ax.bar([x - 0.4 + width * (i + 0.5) for x in seen],
                       [sc.count(x) / len(sc) for x in seen], width=width, color=colours[w],
                       label="%s (%d turns)" % (w, len(sc)))
            ax.set_xlabel("final score of a turn")
            ax.set_ylabel("share of turns")
            ax.set_xlim(-1, top + 1)
        else:  # digital scoring: too many scores for bars: the cumulative distribution
            xs = sorted(dist)
            acc, cum = Fraction(0), []
            for x in xs:
                acc += dist[x]
                cum.append(float(acc))
            ax.step([x + 1 for x in xs], cum, where="post", color="0.5",
                    label="optimal play (exact)")
            for w in who:
                sc = sorted(t.score for t in report.turns if t.who == w and t.var == var)
                ax.step([x + 1 for x in sc], [(i + 1) / len(sc) for i in range(len(sc))],
                        where="post", color=colours[w], label="%s (%d turns)" % (w, len(sc)))
            ax.set_xscale("log")
            ax.set_xlabel("final score of a turn + 1 (log scale)")
            ax.set_ylabel("share of turns at or below")
        ax.set_title("Final scores, %s" % variant_text(var), fontsize=10)
        ax.legend(fontsize=8)
    ax = axes[-1]
    for w in names:
        given = [float(t.given) for t in report.turns if t.who == w]
        ax.plot(range(1, len(given) + 1), given, marker="o", markersize=3.5, linewidth=1,
                color=colours[w], label=w)
    ax.set_title("Expected score given away per turn (0: every decision optimal)", fontsize=10)
    ax.set_xlabel("the player's turn")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_ylabel("given away")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, metadata={"Software": None})
    return buf.getvalue()


# ----- the page -----

_CSS = """body{font-family:system-ui,sans-serif;max-width:62em;margin:1em auto;padding:0 1em;
color:#222}h1{font-size:1.5em}h2{font-size:1.15em;margin-top:1.6em}table{border-collapse:
collapse;margin:.5em 0}td,th{padding:.2em .6em;border-bottom:1px solid #ddd;text-align:left}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}img{max-width:100%}
p.note{color:#555;font-size:.92em}"""


def _html_table(rows: list[list[str]], right: set) -> str:
    def cell(tag: str, i: int, c: str) -> str:
        cls = ' class="n"' if i in right else ""
        return "<%s%s>%s</%s>" % (tag, cls, _html.escape(c), tag)

    head = "".join(cell("th", i, c) for i, c in enumerate(rows[0]))
    body = "".join("<tr>%s</tr>" % "".join(cell("td", i, c) for i, c in enumerate(r))
                   for r in rows[1:])
    return "<table><tr>%s</tr>%s</table>" % (head, body)


def page(report: Report, png: bytes, top: int = TOP) -> str:
    """The report as one self-contained HTML page (the plots embedded as a data URI)."""
    e = _html.escape
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             "<title>shutbox report</title><style>%s</style></head><body>" % _CSS,
             "<h1>shutbox report</h1>", "<p>%s</p>" % e(summary(report))]
    rows = [["variant", "games", "optimal E(score)", "optimal p(shut)"]]
    for var in report.variants():
        v = analysis(var).value(var.start_mask())
        rows.append([variant_text(var), str(len({t.game for t in report.turns if t.var == var})),
                     num(v["expected_score"]), "%.2f %%" % (100 * float(v["p_shut"]))])
    parts += ["<h2>Variants</h2>", _html_table(rows, {1, 2, 3})]
    ps = players(report)
    rows = [["who", "games", "turns", "average score", "optimal E", "given away", "luck",
             "shut the box", "decisions", "short of optimal", "per decision"]]
    for p in ps:
        rows.append([p.who, str(p.games), str(p.turns), num(p.score), num(p.optimal),
                     num(p.given), signed(p.luck), str(p.shut), str(p.decisions), str(p.short),
                     num(p.given_total / p.decisions) if p.decisions else "-"])
    parts += ["<h2>Players</h2>", _html_table(rows, set(range(1, 11))),
              '<p class="note">Per turn: the average final score; optimal E, the expected score '
              "of optimal play from the same starts; given away, the expected score the "
              "decisions (every move, every one-die choice) lost against the optimum where each "
              "was made; luck, the rest: average score = optimal E + given away - luck "
              "(positive: the dice helped).</p>"]
    if any(p.win_turns for p in ps):
        rows = [["who", "turns", "decisions", "short of the match's best",
                 "chance given away (points)", "per decision"]]
        rows += [[p.who, str(p.win_turns), str(p.win_decisions), str(p.win_short),
                  pp(p.win_given), pp(p.win_given / p.win_decisions) if p.win_decisions
                  else "-"] for p in ps if p.win_turns]
        parts += ["<h2>In one round for the win</h2>", _html_table(rows, set(range(1, 6))),
                  '<p class="note">The match measure: each decision against the match-optimal '
                  "one there (every seat playing for the win, the seats before known), the "
                  "chance to win the round it gave away, in percentage points.</p>"]
    parts.append("<h2>Luck against skill</h2><p>Per turn: average score = optimal E + given "
                 "away - luck.</p><ul>")
    for p in ps:
        luck = num(p.luck) if p.luck >= 0 else "(%s)" % num(p.luck)
        parts.append("<li>%s: %s = %s + %s - %s</li>" % (e(p.who), num(p.score), num(p.optimal),
                                                        num(p.given), luck))
    parts += ["</ul>", "<h2>Plots</h2>",
              '<img alt="final scores against optimal play, and the score given away per turn" '
              'src="data:image/png;base64,%s">' % base64.b64encode(png).decode("ascii")]
    worst = costliest(report, top)
    parts.append("<h2>Costliest decisions</h2>")
    if worst:
        rows = [["given away", "who", "where", "situation", "chose", "better"]]
        for d in worst:
            situation, chose, better = decision_texts(d)
            rows.append([num(d.loss), d.who, d.where, situation, chose, better])
        parts.append(_html_table(rows, {0}))
    else:
        parts.append("<p>%s.</p>" % e(_none_listed(report, top).capitalize()))
    rows = [["where", "who", "score", "optimal E", "given away", "luck", "throws"]]
    for t in report.turns:
        rows.append([t.where, t.who, str(t.score), num(t.optimal), num(t.given), signed(t.luck),
                     " ".join(throw_text(d).replace(" (one die)", "") for d, _x in t.throws)])
    parts += ["<h2>Turns</h2>", _html_table(rows, {2, 3, 4, 5})]
    if report.left_out:
        rows = [["where", "who", "why it is left out"]] + [list(x) for x in report.left_out]
        parts += ["<h2>Left out</h2>", _html_table(rows, set())]
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


# ----- the command -----


def configure(parser) -> None:
    """Options of `shutbox report`."""
    parser.add_argument("logs", nargs="+", metavar="LOG",
                        help="game logs (shutbox log, shutbox play --log, the web page)")
    parser.add_argument("--html", action="store_true",
                        help="one self-contained HTML page, the plots embedded (to OUT, or "
                        "stdout)")
    parser.add_argument("-o", "--output", metavar="OUT",
                        help="with --html the page; else the plots as a PNG (OUT.png), the "
                        "text still on stdout")
    parser.add_argument("--top", type=int, default=TOP, metavar="N",
                        help="list the N costliest decisions (default %d)" % TOP)


def _write(path: str, data: bytes) -> None:
    try:
        Path(path).write_bytes(data)
    except OSError as exc:
        raise UserError("cannot write %s: %s" % (path, exc.strerror or exc)) from None


def run(args) -> int:
    """Read the logs, print the report (and write the plots or the page)."""
    out = args.output
    if out and not args.html and not out.lower().endswith(".png"):
        raise UserError("-o %s: without --html OUT is the plots' PNG: name it .png, or add "
                        "--html for the page" % out)
    if args.top < 0:
        raise UserError("--top %d: give 0 or more" % args.top)
    if out or args.html:
        matplotlib()  # said before anything is read or written
    report = read_logs(args.logs)
    if not report.turns:
        why = report.left_out[0][2] if report.left_out else "no turn in it"
        raise UserError("no whole turn to report in %s (%d left out; the first: %s)" % (
            ", ".join(args.logs), len(report.left_out), why))
    if args.html:
        doc = page(report, figure_png(report), args.top)
        if out:
            _write(out, doc.encode("utf-8"))
            print("shutbox report: %s (%s)" % (out, summary(report)))
        else:
            sys.stdout.write(doc)
    else:
        sys.stdout.write(text(report, args.top))
        if out:
            _write(out, figure_png(report))
    if report.damaged:
        name, n, why, line = report.damaged[0]
        more = len(report.damaged) - 1
        raise UserError("%s:%d: %s: %s%s; left out, the report is made from the other lines"
                        % (name, n, why, line, " (and %d more line%s)" % (
                            more, "" if more == 1 else "s") if more else ""))
    return 0
