# `shutbox advise`: every legal move of a throw ranked by the exact solver, or a turn played along.
"""Advice for any position of any variant (2 to 12 tiles), from the exact solver.

``shutbox advise --open TILES --throw A,B`` ranks every legal move of the throw by the
objective (min-expected, max-shut, min-shut, max-expected, beat-target; ``--target T`` and
``--tie``; ``--payout TABLE``; ``survive``: kleinpanic's survival ranking; ``--match --seat K
--scores ...``: the seat's best move for the match), each with the expected final score,
P(shut), P(survive) (the chance that the next throw can be played) and, with a target,
P(score < T) (and the win chance with ties counted half), with a payout or a match the
expected payout (the match value), all of the objective's play from there. Without
``--throw`` it says whether to throw one die or two, with the value of each. Interactive
(``--interactive``, or without ``--throw`` when stdin is a terminal): type each throw (``5,4``
or ``54``, ``6`` for one die), get the ranked moves, pick one by its letter (Enter: the best)
or type the tiles you shut (``4 5``), and go on from the new position; a new turn starts when
one ends; ``u`` undoes the last move (or the throw, at its move), ``o TILES`` sets the open
tiles (``o 1 2 5``; ``o 1 2 5 locked`` in a locked one-die turn). Bad input is one line: an
error on the command line (exit 2), a message and the same question again in the
interactive mode.
"""

from __future__ import annotations

import json
import re
import sys
from fractions import Fraction

from shutbox import variants as V
from shutbox_host.errors import UserError
from shutbox_host.solve import cli as solve_cli
from shutbox_host.solve import match as M
from shutbox_host.solve import solver

AIMS = {"min-expected": "the lowest expected final score",
        "max-shut": "the best chance of shutting the box",
        "min-shut": "the least chance of shutting the box",
        "max-expected": "the highest expected final score (the worst play)",
        "survive": "the best chance that the next throw can be played (survival ranking)",
        "payout": "the highest expected payout",
        "beat-target": "the best chance of a final score below %d"}
OBJECTIVES = solver.ALL_OBJECTIVES + ("survive",)
FIGURES = ("expected_score", "p_shut", "p_survive", "p_beat_target", "p_tie_target", "p_win",
           "expected_payout")
LETTERS = "abcdefghijklmnop"  # more than MAX_MOVES (15) legal moves never happen
HELP = ("type the dice (5,4 or 54; 6 for one die), then a move's letter (Enter: the best) "
        "or the tiles you shut (4 5); u: undo; o TILES: set the open tiles (o 1 2 5); "
        "n: a new turn; q: quit")


def configure(parser):
    """Add the position, the variant, the objective and the output flags."""
    parser.add_argument("--open", metavar="TILES",
                        help="the open tiles, e.g. 1,2,5 or '1 2 5' or all (default: the "
                             "variant's start)")
    parser.add_argument("--throw", metavar="A,B",
                        help="the dice thrown: 5,4 or 54 for two dice, 6 for one die")
    parser.add_argument("--locked", action="store_true",
                        help="one-die-mode locked: one die was chosen earlier this turn")
    solve_cli.configure_variant(parser)
    parser.add_argument("--objective", choices=OBJECTIVES, default="min-expected",
                        help=solve_cli.OBJECTIVE_HELP + ", survive (the move that leaves the "
                        "best chance that the next throw can be played)")
    solve_cli.configure_target(parser)
    parser.add_argument("--payout", metavar="TABLE", help=solve_cli.PAYOUT_HELP)
    solve_cli.configure_match(parser, advise=True)
    parser.add_argument("--seat", type=int, default=1, metavar="K",
                        help="with --match: the seat to advise (default 1)")
    parser.add_argument("--scores", metavar="S1,S2",
                        help="with --match: the final scores of the seats before --seat")
    parser.add_argument("-i", "--interactive", action="store_true",
                        help="type throws and moves one after the other (the default without "
                             "--throw when stdin is a terminal)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


# ----- reading what the user types -----

def _words(text: str) -> list[str]:
    """The words of *text* split at commas and spaces."""
    return [w for w in re.split(r"[,\s]+", text.strip()) if w]


def parse_tiles(text: str, tiles: int, what: str = "--open") -> int:
    """The mask of the tiles *text* names (1,2,5 or '1 2 5'; `all` for every tile)."""
    words = _words(text)
    if not words:
        raise UserError("%s: name the tiles, e.g. 1,2,5" % what)
    if words == ["all"]:
        return (1 << tiles) - 1
    mask = 0
    for w in words:
        if not w.isdigit():
            raise UserError("%s: %r is not a tile number (tiles look like 1,2,5)" % (what, w))
        t = int(w)
        if not 1 <= t <= tiles:
            raise UserError("%s: there is no tile %d on a %d-tile box (tiles 1 to %d)"
                            % (what, t, tiles, tiles))
        mask |= 1 << (t - 1)
    return mask


def parse_throw(text: str) -> tuple[int, int]:
    """(a, b) for two dice, (a, 0) for one die, from 5,4 / '5 4' / 54 / 6."""
    words = _words(text)
    if len(words) == 1 and len(words[0]) > 1 and words[0].isdigit():
        words = list(words[0])  # 54: two dice (a throw is never a total)
    if not 1 <= len(words) <= 2:
        raise UserError("a throw is one die or two, not %r (e.g. 5,4 or 54; 6 for one die)"
                        % text.strip())
    dice = []
    for w in words:
        if not w.isdigit() or not 1 <= int(w) <= 6:
            raise UserError("a die shows 1 to 6, not %r" % w)
        dice.append(int(w))
    return dice[0], dice[1] if len(dice) == 2 else 0


# ----- the rules at a position -----

def _not_allowed(var: solver.Variant) -> str:
    """Why one die is not allowed (the one-die rule, in words)."""
    return {V.ONE_DIE_NEVER: "this variant always throws two dice (one-die never)",
            V.ONE_DIE_HIGH_SHUT: "one die only once every tile of 7 and up is shut "
                                 "(one-die high-shut)",
            V.ONE_DIE_SUM_LE_6: "one die only once the open tiles add up to 6 or less "
                                "(one-die sum-le-6)",
            V.ONE_DIE_SUM_LT_6: "one die only once the open tiles add up to less than 6 "
                                "(one-die sum-lt-6)"}[var.one_die]


def dice_rule(var: solver.Variant, s: int, locked: bool) -> tuple[str, str]:
    """("two" | "one" | "free", why): the dice the rules allow before the next throw."""
    if not solver.one_die_allowed(s, var.tiles, var.one_die):
        return "two", _not_allowed(var)
    if var.one_die_mode == V.MODE_FORCED:
        return "one", "one die must be thrown whenever it is allowed (one-die-mode forced)"
    if var.one_die_mode == V.MODE_LOCKED and locked:
        return "one", "one die was chosen earlier this turn (one-die-mode locked)"
    return "free", "one die or two, the player's choice"


def check_throw(var: solver.Variant, s: int, locked: bool, throw: tuple[int, int]) -> None:
    """UserError when the rules do not allow this many dice here."""
    rule, why = dice_rule(var, s, locked)
    if throw[1] == 0 and rule == "two":
        raise UserError("one die is not allowed here: " + why)
    if throw[1] != 0 and rule == "one":
        raise UserError("throw one die here: " + why)


def check_locked(var: solver.Variant, s: int, locked: bool) -> None:
    """UserError for --locked where it cannot hold."""
    if not locked:
        return
    if var.locked_layers != 2:
        raise UserError("--locked goes with --one-die-mode locked and a one-die rule")
    if not solver.one_die_allowed(s, var.tiles, var.one_die):
        raise UserError("--locked: one die cannot have been chosen with these tiles open: "
                        + _not_allowed(var))


# ----- what the advice says -----

def tiles_text(mask: int) -> str:
    """'1 2 5', or '-' for none."""
    return " ".join(str(k + 1) for k in range(mask.bit_length()) if mask >> k & 1) or "-"


def tiles_list(mask: int) -> list[int]:
    """The tile numbers of a mask, low to high."""
    return [k + 1 for k in range(mask.bit_length()) if mask >> k & 1]


class Advisor:
    """One variant and objective solved, and its answers in words or as JSON.

    *payout*: {final score: Fraction} (objective "payout"); *aim*: its words (a match seat's).
    """

    def __init__(self, var: solver.Variant, objective: str, target: int | None, tie: str,
                 payout: dict | None = None, aim: str | None = None):
        self.var = var
        self.objective = "payout" if payout is not None else objective
        self.target = target
        self.tie = tie
        self.payout = payout
        self.payout_aim = aim
        if objective == "survive":
            self.analysis = solver.Analysis(var, target=target, tie=tie, policy="survive")
        else:
            self.analysis = solver.Analysis(var, self.objective, target, tie, payout)

    def aim(self) -> str:
        """The variant and what the play aims for, in words."""
        text = self.payout_aim or AIMS[self.objective]
        if self.objective == "beat-target":
            text = text % self.target + (", a tie half a win" if self.tie == "half" else "")
        return "%s, %s" % (self.var.label(), text)

    def main_figure(self, values: dict) -> Fraction:
        """The quantity the objective ranks by first (lower is better for the sign)."""
        if self.objective == "min-expected":
            return values["expected_score"]
        if self.objective == "max-expected":
            return -values["expected_score"]
        if self.objective == "max-shut":
            return -values["p_shut"]
        if self.objective == "min-shut":
            return values["p_shut"]
        if self.objective == "survive":
            return -values["p_survive"]
        if self.objective == "payout":
            return -values["expected_payout"]
        return -values["p_win"]

    def columns(self) -> list[tuple[str, str, bool]]:
        """(key, heading, is a probability) of the figures shown."""
        cols = []
        if self.payout is not None:
            cols.append(("expected_payout", "value" if self.payout_aim else "E(payout)",
                         False))
        cols += [("expected_score", "E(score)", False), ("p_shut", "p(shut)", True),
                 ("p_survive", "p(survive)", True)]
        if self.target is not None:
            cols.append(("p_beat_target", "p(< %d)" % self.target, True))
            if self.tie == "half":
                cols.append(("p_win", "p(win)", True))
        return cols

    def figures_text(self, values: dict) -> str:
        """The figures of one position or choice, in columns."""
        return "  ".join("%-10s" % (solve_cli.pct(values[k]) if prob else solve_cli.fig(values[k]))
                         for k, _h, prob in self.columns())

    def heading(self) -> str:
        """The columns' headings."""
        return "  ".join("%-10s" % h for _k, h, _p in self.columns()).rstrip()

    def cost_text(self, values: dict, best: dict) -> str:
        """How much worse than the best, in the objective's own figure."""
        d = self.main_figure(values) - self.main_figure(best)
        if d == 0 and self.objective == "survive":  # greedy order decides, not the score
            return "as good"
        if d == 0:  # then the expected score decides
            e = values["expected_score"] - best["expected_score"]
            return "as good" if e == 0 else "E +%s" % solve_cli.fig(e)
        if self.objective in ("min-expected", "max-expected"):
            return "%s%s" % ("+" if self.objective == "min-expected" else "-",
                             solve_cli.fig(abs(d)))
        if self.objective == "payout":
            return "-%s" % solve_cli.fig(d)
        return "%s%.6g pt" % ("+" if self.objective == "min-shut" else "-", 100 * float(abs(d)))

    # --- the three answers ---

    def position_text(self, s: int, locked: bool) -> str:
        """The open tiles and what optimal play gives from them."""
        v = self.analysis.value(s, locked)
        return "open %s: %s" % (tiles_text(s), ", ".join(
            "%s %s" % (h, solve_cli.pct(v[k]) if p else solve_cli.fig(v[k]))
            for k, h, p in self.columns()))

    def dice_lines(self, s: int, locked: bool) -> list[str]:
        """Before a throw: the dice the rules impose, or both choices with their figures."""
        rule, why = dice_rule(self.var, s, locked)
        opts = self.analysis.options(s, locked)
        if rule != "free":
            return ["%s: %s" % ("one die" if rule == "one" else "two dice", why)]
        best = next(o for o in opts if o["best"])
        lines = ["%-10s  %s" % ("dice", self.heading())]
        for o in opts:
            name = "one die" if o["one_die"] else "two dice"
            lines.append("%-10s  %s  %s" % (name, self.figures_text(o),
                                            "best" if o["best"] else self.cost_text(o, best)))
        return lines

    def move_lines(self, s: int, throw: tuple[int, int], moves: list[dict]) -> list[str]:
        """The ranked moves of a throw as a table (or the end of the turn)."""
        if not moves:
            return ["no move makes %s with %s open: the turn is over, final score %d"
                    % (throw_text(throw), tiles_text(s), solver.score(s, self.var.scoring))]
        width = max(4, *(len(tiles_text(m["mask"])) for m in moves)) + 2
        leaves = max(6, *(len(tiles_text(m["result"])) for m in moves)) + 2
        lines = ["   %s%s%s" % ("shut".ljust(width), "leaves".ljust(leaves), self.heading())]
        for i, m in enumerate(moves):
            lines.append("%s  %s%s%s  %s" % (
                LETTERS[i], tiles_text(m["mask"]).ljust(width),
                tiles_text(m["result"]).ljust(leaves), self.figures_text(m),
                "best" if m["best"] else self.cost_text(m, moves[0])))
        return lines

    # --- JSON ---

    @staticmethod
    def values_json(values: dict) -> dict:
        """The exact figures as floats (full precision) and as fraction strings."""
        out: dict = {}
        for k in FIGURES:
            if k in values:
                out[k] = float(values[k])
                out[k + "_exact"] = str(values[k])
        return out

    def as_json(self, s: int, locked: bool, throw: tuple[int, int] | None) -> dict:
        """The position's advice as one JSON-ready dict (the moves, or the dice)."""
        out = {"variant": self.var.names(), "objective": self.objective, "open": tiles_list(s),
               "locked": locked, "value": self.values_json(self.analysis.value(s, locked))}
        if self.target is not None:
            out["target"] = self.target
            out["tie"] = self.tie
        if self.payout is not None:
            out["payout"] = {str(sc): str(v) for sc, v in sorted(self.payout.items())}
        rule, why = dice_rule(self.var, s, locked)
        if throw is None:
            out["dice_rule"] = {"free": "choose", "one": "one die", "two": "two dice"}[rule]
            out["dice_rule_why"] = why
            out["dice"] = [dict(self.values_json(o), dice=1 if o["one_die"] else 2,
                                best=o["best"]) for o in self.analysis.options(s, locked)]
            return out
        out["throw"] = [throw[0]] if throw[1] == 0 else list(throw)
        moves = self.analysis.moves(s, *throw, locked=locked)
        out["moves"] = [dict(self.values_json(m), shut=tiles_list(m["mask"]),
                             leaves=tiles_list(m["result"]), best=m["best"]) for m in moves]
        if not moves:
            out["turn_over"] = True
            out["final_score"] = solver.score(s, self.var.scoring)
        return out


def throw_text(throw: tuple[int, int]) -> str:
    """'5+4', or '6 (one die)'."""
    a, b = throw
    return "%d (one die)" % a if b == 0 else "%d+%d" % (a, b)


# ----- the interactive turn -----

def _move_of(answer: str, moves: list[dict], tiles: int) -> dict:
    """The move an answer names: Enter (the best), a letter, or the tiles shut."""
    answer = answer.strip().lower()
    if answer == "":
        return moves[0]
    if len(answer) == 1 and answer in LETTERS:
        i = LETTERS.index(answer)
        if i >= len(moves):
            raise UserError("no move %s: choose a to %s" % (answer, LETTERS[len(moves) - 1]))
        return moves[i]
    mask = parse_tiles(answer, tiles, "move")
    for m in moves:
        if m["mask"] == mask:
            return m
    raise UserError("shutting %s is not a legal move for this throw" % tiles_text(mask))


def _set_position(adv: Advisor, words: list[str]) -> tuple[int, bool]:
    """The position `o TILES [locked]` names (UserError when it cannot be played)."""
    locked = bool(words) and words[-1] in ("l", "locked")
    if locked:
        words = words[:-1]
    if not words:
        raise UserError("o: name the open tiles, e.g. o 1 2 5")
    s = parse_tiles(" ".join(words), adv.var.tiles, "o")
    check_locked(adv.var, s, locked)
    return s, locked


def interact(adv: Advisor, s: int, locked: bool, stdin, stdout) -> int:
    """Play turns along: read throws and moves from *stdin* until q or the end of input.

    Each position a move leaves is kept, so `u` goes back a move at a time (also across the
    end of a turn); at a move's question `u` takes the throw back. `o TILES` sets the
    position (undo returns from it too).
    """
    var = adv.var
    history: list[tuple[int, bool]] = []  # the positions before each move (and each `o`)

    def say(text=""):  # one line out
        stdout.write(text + "\n")

    def ask(prompt):  # a prompt, then one line in (None at the end of the input)
        stdout.write(prompt)
        stdout.flush()
        line = stdin.readline()
        if not line:
            say()
            return None
        return line.strip()

    say("shutbox advise: " + adv.aim())
    say(HELP)
    while True:
        say(adv.position_text(s, locked))
        for line in adv.dice_lines(s, locked):
            say("  " + line)
        answer = ask("throw> ")
        if answer is None or answer.lower() in ("q", "quit", "exit"):
            return 0
        words = answer.lower().split()
        if answer.lower() in ("n", "new"):
            history.append((s, locked))
            s, locked = var.start_mask(), False
            say("new turn")
            continue
        if answer.lower() in ("u", "undo"):
            if not history:
                say("error: nothing to undo")
                continue
            s, locked = history.pop()
            say("undone: open %s" % tiles_text(s))
            continue
        if words and words[0] in ("o", "open", "set"):
            try:
                pos = _set_position(adv, words[1:])
            except UserError as exc:
                say("error: %s" % exc)
                continue
            history.append((s, locked))
            s, locked = pos
            continue
        if answer in ("", "?", "h", "help"):
            say(HELP)
            continue
        try:
            throw = parse_throw(answer)
            check_throw(var, s, locked, throw)
        except UserError as exc:
            say("error: %s" % exc)
            continue
        moves = adv.analysis.moves(s, *throw, locked=locked)
        for line in adv.move_lines(s, throw, moves):
            say("  " + line)
        if not moves:
            say("new turn")
            history.append((s, locked))
            s, locked = var.start_mask(), False
            continue
        move = None
        while move is None:
            answer = ask("move [a]> ")
            if answer is None or answer.lower() in ("q", "quit", "exit"):
                return 0
            if answer.lower() in ("u", "undo"):
                say("throw taken back")
                break
            try:
                move = _move_of(answer, moves, var.tiles)
            except UserError as exc:
                say("error: %s" % exc)
        if move is None:
            continue
        say("shut %s" % tiles_text(move["mask"]))
        history.append((s, locked))
        s = move["result"]
        if throw[1] == 0 and var.locked_layers == 2:
            locked = True
        if s == 0:
            say("box shut: final score 0")
            say("new turn")
            s, locked = var.start_mask(), False


def match_advisor(args, var: solver.Variant, tie: str) -> Advisor:
    """The Advisor of --match: the seat's best play for the match (UserError for a seat or
    scores that do not fit)."""
    for flag, value in (("--objective", args.objective != "min-expected"),
                        ("--target", args.target is not None), ("--payout", args.payout)):
        if value:
            raise UserError("--match plays for the match: leave out %s" % flag)
    rules = solve_cli.match_rules(args, args.tie_rule or "share", args.shut_wins == "on")
    if not 1 <= args.seat <= rules.players:
        raise UserError("--seat %d: seats run from 1 to %d" % (args.seat, rules.players))
    scores = tuple(int(w) for w in _words(args.scores or "") if w.isdigit())
    if len(scores) != len(_words(args.scores or "")):
        raise UserError("--scores: final scores are whole numbers, e.g. --scores 12,9")
    if len(scores) != args.seat - 1:
        raise UserError("--seat %d plays after %d seat%s: give their final scores with "
                        "--scores" % (args.seat, args.seat - 1, "" if args.seat == 2 else "s")
                        if args.seat > 1 else "--seat 1 plays first: leave out --scores")
    finals = solve_cli.finals(var)
    for sc in scores:
        if sc not in finals:
            raise UserError("--scores: no turn ends on a score of %d on this box" % sc)
    if rules.shut_wins and 0 in scores:
        raise UserError("--scores: with --shut-wins on a shut box (0) ends the round")
    m = M.Match(var, rules)
    aim = "seat %d of %s%s: the best %s" % (
        args.seat, rules.label(), "" if not scores else ", after " + ", ".join(
            "seat %d %d" % (i + 1, sc) for i, sc in enumerate(scores)),
        "chance to win the match" if rules.stakes == "win" else "expected stake")
    return Advisor(var, "payout", None, tie, m.payout(scores), aim)


def run(args):
    """Advise on one throw, on the dice, or interactively."""
    var = solve_cli.variant_of(args)
    if args.open is None:
        solve_cli.check_start(var)
        s = var.start_mask()
    else:
        s = parse_tiles(args.open, var.tiles)
    tie = solve_cli.check_target(var, args.objective, args.target, args.tie)
    check_locked(var, s, args.locked)
    throw = parse_throw(args.throw) if args.throw is not None else None
    if throw is not None:
        check_throw(var, s, args.locked, throw)
    interactive = args.interactive or (throw is None and not args.json and sys.stdin.isatty())
    if interactive and (throw is not None or args.json):
        raise UserError("--interactive reads the throws itself and prints text: leave out "
                        "--throw and --json")
    if args.match:
        adv = match_advisor(args, var, tie)
    else:
        for flag in ("tie_rule", "shut_wins", "scores"):
            if getattr(args, flag) is not None:
                raise UserError("--%s goes with --match" % flag.replace("_", "-"))
        if args.seat != 1:
            raise UserError("--seat goes with --match")
        payout = solve_cli.parse_payout(args.payout, var) if args.payout else None
        if payout is not None and args.objective != "min-expected":
            raise UserError("--payout is the objective: leave out --objective")
        adv = Advisor(var, args.objective, args.target, tie, payout)
    if interactive:
        solve_cli.check_start(var)  # each new turn starts there
        return interact(adv, s, args.locked, sys.stdin, sys.stdout)
    if args.json:
        json.dump(adv.as_json(s, args.locked, throw), sys.stdout)
        print()
        return 0
    print(adv.aim())
    print(adv.position_text(s, args.locked))
    if throw is None:
        for line in adv.dice_lines(s, args.locked):
            print(line)
        return 0
    print("throw %s" % throw_text(throw))
    for line in adv.move_lines(s, throw, adv.analysis.moves(s, *throw, locked=args.locked)):
        print(line)
    return 0
