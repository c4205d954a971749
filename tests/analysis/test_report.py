# `shutbox report`: known answers on constructed logs, whole games on the simulated box, bad input.
"""The report's figures against answers known without it: small boxes worked out by hand,
and games played by the firmware's own game (shutbox_host.analysis.games) where each
player's choices and what they cost come from the solver's optimal values
(solver.solve_values: another path than the report's solver.Analysis). Then whole games on
the simulated box (the real firmware under MicroPython: boxsim), with power cuts, and
`shutbox play --keys --log`, reported as PNG and HTML; and bad input, one line each.
"""

from __future__ import annotations

import base64
import json
import re
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shutbox import pins
from shutbox import variants as V
from shutbox.engine import Engine, Rules
from shutbox_host import cli
from shutbox_host.analysis import games, report
from shutbox_host.box import boxsim, play
from shutbox_host.box.plan import plan_game
from shutbox_host.errors import UserError
from shutbox_host.model.script import Script
from shutbox_host.solve import solver

PNG = b"\x89PNG\r\n\x1a\n"
RULES = {"one-die": "never", "one-die-mode": "optional", "moves": "any", "scoring": "sum",
         "start": "all-open"}


def constructed(tiles: int, turns, rules=None, settings=None) -> list[dict]:
    """A one-game log written by hand: *turns* is a list of (seat, steps), each step
    (dice, tiles shut or None, the throw's legal moves counted by hand)."""
    recs = [] if settings is None else [settings]
    recs.append({"ev": "game", "v": 1, "players": max(s for s, _ in turns), "tiles": tiles,
                 "rules": dict(RULES, **(rules or {}))})
    for seat, steps in turns:
        open_ = list(range(1, tiles + 1))
        recs.append({"ev": "turn", "player": seat, "open": list(open_)})
        for dice, shut, n in steps:
            recs.append({"ev": "throw", "player": seat, "dice": list(dice), "total": sum(dice),
                         "open": list(open_), "moves": n})
            if shut:
                open_ = [k for k in open_ if k not in shut]
                recs.append({"ev": "move", "player": seat, "dice": list(dice), "shut": shut,
                             "open": list(open_)})
        recs.append({"ev": "score", "player": seat, "score": sum(open_), "open": open_,
                     "shut_box": not open_, "throws": len(steps), "total": sum(open_)})
    return recs


def write(tmp_path: Path, recs: list[dict], name: str = "games.jsonl") -> Path:
    path = tmp_path / name
    games.write(recs, path)
    return path


def read(tmp_path: Path, recs: list[dict]) -> report.Report:
    return report.read_logs([write(tmp_path, recs)])


def shutbox(argv, capsys) -> tuple[int, str, str]:
    """Run the `shutbox` command line in process: (exit status, stdout, stderr)."""
    rc = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


# ----- known answers, worked out by hand -----


def test_two_tiles_by_hand(tmp_path):
    """Tiles 1 and 2, two dice always: only a 2 (shut the 2) or a 3 (shut both) plays, and
    from tile 1 alone nothing ever does: E0 = (1 x 1 + 2 x 0 + 33 x 3) / 36 = 100/36."""
    r = read(tmp_path, constructed(2, [
        (1, [((1, 2), [1, 2], 1)]),  # a 3: shut; the throw's luck is all of E0
        (2, [((1, 1), [2], 1), ((3, 4), None, 0)]),  # a 2, then nothing: score 1
    ]))
    t1, t2 = r.turns
    assert t1.optimal == t2.optimal == Fraction(100, 36)
    assert (t1.score, t1.given, t1.luck) == (0, 0, Fraction(100, 36))
    # the 2 left tile 1, worth 1 for sure: the throw took E from 100/36 to 1; the last
    # throw was no surprise (nothing could play)
    assert (t2.score, t2.given, t2.luck) == (1, 0, Fraction(64, 36))
    assert [x for _d, x in t2.throws] == [Fraction(64, 36), 0]
    assert not t1.decisions and not t2.decisions  # one legal move each time: no choice


def test_the_dice_choice_by_hand(tmp_path):
    """Tiles 1 and 2, one die allowed (sum-le-6), optional. One die: a 1 leaves {2}
    (then one die: 5/3), a 2 leaves {1} (5/6), a 3 shuts both, 4 to 6 score 3:
    Q1 = 69/36. Two dice: a 2 leaves {1}, a 3 shuts, the rest score 3: Q2 = 599/216.
    Two dice give away 599/216 - 414/216 = 185/216."""
    r = read(tmp_path, constructed(2, [(1, [((1, 2), [1, 2], 1)])], {"one-die": "sum-le-6"}))
    (t,) = r.turns
    (d,) = t.decisions
    assert (d.kind, d.chose, d.best) == ("dice", 2, 1)
    assert d.loss == Fraction(185, 216) == t.given
    assert t.optimal == Fraction(69, 36)
    assert t.luck == Fraction(599, 216)  # 69/36 + 185/216 - 0
    (p,) = report.players(r)
    assert (p.decisions, p.short, p.given_total) == (1, 1, Fraction(185, 216))


def test_a_move_by_hand(tmp_path):
    """Tiles 1 to 3, two dice: a 3 shuts the 3 (leaving {1, 2}: 100/36) or 1 and 2
    (leaving {3}: 2/36 x 0 + 34/36 x 3 = 102/36): shutting 1 and 2 gives away 1/18."""
    r = read(tmp_path, constructed(3, [(1, [((1, 2), [1, 2], 2), ((2, 1), [3], 1)])]))
    (t,) = r.turns
    (d,) = t.decisions
    assert (d.kind, d.chose, d.best, d.throw) == ("move", 0b011, 0b100, (1, 2))
    assert (d.chose_e, d.best_e, d.loss) == (Fraction(102, 36), Fraction(100, 36),
                                             Fraction(1, 18))
    assert t.score == 0 and t.luck == t.optimal + Fraction(1, 18)
    out = report.text(r)
    assert re.search(r"0\.056 +player 1 +\S+:4 +open 1 2 3, threw 1\+2 +shut 1 2 +"
                     r"shut 3 \(E 2\.778\)", out), out
    # --top 0 lists no decision, and never says every one was optimal when one was not
    for text in (report.text(r, 0), report.page(r, PNG, 0)):
        assert "optimal." not in text and "every decision optimal" not in text
        assert "none listed (--top 0)" in text.lower()
    optimal = read(tmp_path, constructed(3, [(1, [((1, 2), [3], 2), ((1, 1), [2], 1)])]))
    assert "Costliest decisions: none, every decision optimal" in report.text(optimal, 0)


# ----- the firmware's game on CPython: choices the solver prices -----


def _layer(var, locked: bool, one: bool) -> int:
    return 1 if var.locked_layers == 2 and (locked or one) else 0


class Priced:
    """A player who plays the box's optimal moves, except: *moves* "worst" takes the move
    with the highest expected final score; *dice* "worst" throws the worse dice. It sums
    what its choices gave away from solver.solve_values (exact), as it plays."""

    def __init__(self, rules: Rules, moves="best", dice="best"):
        self.var = solver.Variant(rules.tiles, rules.one_die, rules.one_die_mode, rules.moves,
                                  rules.scoring, rules.start)
        self.values = solver.solve_values(self.var)
        self.engine = Engine(rules)
        self.how = (moves, dice)
        self.given = Fraction(0)
        self.short = 0

    def e(self, s: int, locked: bool, one: bool) -> Fraction:
        return self.values.expected(s, _layer(self.var, locked, one))

    def q(self, s: int, locked: bool, one: bool) -> Fraction:
        """The expected final score of throwing one die (or two) from *s*, then the best."""
        throws = [(a, 0) for a in range(1, 7)] if one else [
            (a, b) for a in range(1, 7) for b in range(1, 7)]
        total = Fraction(0)
        for a, b in throws:
            ms = solver.legal_moves(s, self.var.moves, a, b)
            total += min(self.e(s ^ m, locked, one) for m in ms) if ms else solver.score(
                s, self.var.scoring)
        return total / len(throws)

    def one_die(self, open_: int, locked: bool) -> bool:
        one = self.engine.choose_one_die(open_, locked)
        if self.how[1] == "worst":
            one = not one
        loss = self.q(open_, locked, one) - self.q(open_, locked, not one)
        if loss > 0:
            self.given += loss
            self.short += 1
        return one

    def move(self, open_: int, a: int, b: int, locked: bool, allowed: list[int]) -> int:
        es = {m: self.e(open_ ^ m, locked, b == 0) for m in allowed}
        pick = max if self.how[0] == "worst" else min
        m = pick(allowed, key=es.__getitem__)
        loss = es[m] - min(es.values())
        if loss > 0:
            self.given += loss
            self.short += 1
        return m


VARIANTS = [Rules(), Rules(one_die=V.ONE_DIE_SUM_LE_6, one_die_mode=V.MODE_LOCKED),
            Rules(one_die=V.ONE_DIE_SUM_LT_6, one_die_mode=V.MODE_FORCED, moves=V.MOVES_KIDS,
                  scoring=V.SCORING_COUNT),
            Rules(one_die=V.ONE_DIE_NEVER, moves=V.MOVES_ONE_TILE, start=V.START_ODD_OPEN)]


def _options(rules: Rules) -> dict:
    return {"one_die": rules.one_die, "one_die_mode": rules.one_die_mode,
            "moves": rules.moves, "scoring": rules.scoring, "start": rules.start}


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: "%d%d%d%d%d" % (
    r.one_die, r.one_die_mode, r.moves, r.scoring, r.start))
def test_an_optimal_player_gives_nothing_away(tmp_path, rules):
    """The box's optimal play (its tables, the hard level's choices) gives away exactly 0 in
    every decision, and luck is the whole difference to the score."""
    recs = games.play(15, 2, "best", seed=7, **_options(rules))
    r = read(tmp_path, recs)
    assert len(r.turns) == 30 and not r.left_out and not r.damaged
    assert sum(len(t.decisions) for t in r.turns) > 20  # there were choices to make
    for t in r.turns:
        assert t.given == 0 and all(d.loss == 0 for d in t.decisions)
        assert t.luck == t.optimal - t.score
    scores = [x["score"] for x in recs if x["ev"] == "score"]
    assert [t.score for t in r.turns] == scores
    start = solver.solve_values(solver.Variant(9, *_options(rules).values()))
    assert {t.optimal for t in r.turns} == {start.expected(r.turns[0].start)}


@pytest.mark.parametrize("rules", VARIANTS[:3], ids=lambda r: "%d%d%d%d%d" % (
    r.one_die, r.one_die_mode, r.moves, r.scoring, r.start))
def test_a_player_of_known_mistakes_gives_away_exactly_their_cost(tmp_path, rules):
    """Player 1 always takes the worst move, player 2 always the worse dice: the report's
    figures are the solver's differences, summed as they played."""
    worst_move, worst_dice = Priced(rules, moves="worst"), Priced(rules, dice="worst")
    recs = games.play(12, 2, [worst_move, worst_dice], seed=3, **_options(rules))
    r = read(tmp_path, recs)
    p1, p2 = report.players(r)
    assert (p1.who, p2.who) == ("player 1", "player 2")
    assert (p1.given_total, p1.short) == (worst_move.given, worst_move.short)
    assert worst_move.short > 10
    assert (p2.given_total, p2.short) == (worst_dice.given, worst_dice.short)
    if rules.one_die != V.ONE_DIE_NEVER and rules.one_die_mode != V.MODE_FORCED:
        assert worst_dice.short > 0
    for t in r.turns:  # the split: score = optimal expectation + given away - luck
        assert t.score == t.optimal + t.given - t.luck
    worst = report.costliest(r, 3)
    assert [d.loss for d in worst] == sorted(
        (d.loss for t in r.turns for d in t.decisions), reverse=True)[:3]


def test_the_computer_is_reported_as_the_computer(tmp_path):
    """The hard computer (its seat in the game record, its level in the settings record)
    plays the optimum: it gives nothing away; the easy one, at random, does. (In rounds: in
    one round for the win it plays for the win, which the report's expected score does not
    measure.)"""
    r = read(tmp_path, games.play(6, 1, "greedy", seed=2, computer=3, format=1))
    assert r.players() == ["player 1", "computer (hard)"]
    (cpu,) = [p for p in report.players(r) if p.who == "computer (hard)"]
    assert cpu.turns == 18 and cpu.given_total == 0 and cpu.decisions > 5  # 3 rounds a game
    r = report.read_logs([write(tmp_path, games.play(6, 3, "best", seed=2, computer=1))])
    assert r.players() == ["player 1", "player 2", "player 3", "computer (easy)"]
    (cpu,) = [p for p in report.players(r) if p.who.startswith("computer")]
    assert cpu.given_total > 0


def test_turn_rules_the_solver_does_not_model_are_left_out(tmp_path):
    """Unlucky-7 named by the settings record: the game is left out, saying why. Without a
    settings record, a rule record or a throw whose moves differ from the rules' gives the
    rule away, and the game's turns (before it too) are left out."""
    r = read(tmp_path, games.play(3, 2, "best", seed=1, unlucky7=1))
    assert not r.turns and len(r.left_out) == 6
    assert all("unlucky-7, which the solver does not model" in why for _w, _p, why in r.left_out)
    to_go = games.play(4, 2, "best", seed=1, to_go=1)[1:]  # no settings record
    r = read(tmp_path, to_go)
    assert not r.turns and len(r.left_out) == 8, r.left_out
    assert all("a turn rule the solver does not model" in why or "played with 2-to-go" in why
               for _w, _p, why in r.left_out)
    r = read(tmp_path, games.play(2, 1, "best", seed=1) + to_go)  # a plain game first
    assert len(r.turns) == 2 and len(r.left_out) == 8


# ----- logs as the box, make play and the recorder write them -----


def _box_game(players: int, seed: int, strategy: str) -> boxsim.Run:
    s, expect = plan_game(players, seed, strategy)
    s.wait(300)
    r = boxsim.run(s, "--players", str(players), heapsize="80k")
    assert r.returncode == 0, r.stderr
    assert [e["score"] for e in r.events("score")] == expect["scores"]
    return r


def test_a_whole_game_on_the_box_makes_the_png_and_the_html(tmp_path, capsys):
    """A game played by the tests on the simulated box: the text, the PNG and one
    self-contained HTML page (no http(s) reference: the plots are a data URI)."""
    r = _box_game(2, 11, "best")
    log = write(tmp_path, r.log, "box.jsonl")
    rc, out, err = shutbox(["report", log, "-o", tmp_path / "plots.png"], capsys)
    assert rc == 0 and not err
    assert "player 1" in out and "player 2" in out
    assert re.search(r"player 1 +1 +1 +\d+\.000 +11\.009 +0\.000", out), out  # optimal
    png = (tmp_path / "plots.png").read_bytes()
    assert png.startswith(PNG) and len(png) > 10000
    rc, out, err = shutbox(["report", log, "--html", "-o", tmp_path / "r.html"], capsys)
    assert rc == 0 and not err and "r.html" in out
    page = (tmp_path / "r.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert not re.search(r"https?:", page, re.I)  # (base64 has no colon)
    srcs = re.findall(r'src="([^"]*)"', page)
    assert srcs and all(s.startswith("data:image/png;base64,") for s in srcs)
    assert base64.b64decode(srcs[0].split(",", 1)[1]).startswith(PNG)
    rest = re.sub(r'src="data:[^"]*"', "", page)
    assert "//" not in rest and "url(" not in rest and "href" not in rest
    assert not re.search(r"<(link|script|iframe|object)\b", rest)
    for p in report.players(report.read_logs([log])):
        assert "<td>%s</td>" % p.who in page


def test_power_cuts_all_through_a_game_change_no_figure(tmp_path):
    """The box restarted after every throw and move (the game resumes each time, a throw cut
    while rolling is logged again): the same whole turns and figures as without the cuts."""
    plain, _expect = plan_game(2, seed=4, strategy="random")
    cuts = Script()
    held = False
    for line in plain.lines:
        cuts.lines.append(line)
        w = line.split()
        if w[0] == "p" and int(w[1]) == pins.ROLL_PIN:
            held = int(w[2]) == pins.SWITCH_ACTIVE
        if w[0] == "w" and int(w[1]) >= 100 and not held:
            cuts.lines.append("r")  # the power cut, and back on
            cuts.wait(700)
    runs = []
    for name, script in (("a", plain), ("b", cuts)):
        run = boxsim.run(script, "--players", "2", "--flash", str(tmp_path / name),
                         "--powerup", heapsize="128k")
        assert run.returncode == 0, run.stderr[-2000:]
        runs.append(run)
    assert len(runs[1].events("resume")) > 10
    a, b = (report.read_logs([write(tmp_path, run.log, n + ".jsonl")])
            for n, run in zip("ab", runs, strict=True))
    assert not a.left_out and not b.left_out and len(a.turns) == 2
    key = [(t.who, t.score, t.optimal, t.given, t.luck, len(t.decisions)) for t in a.turns]
    assert key == [(t.who, t.score, t.optimal, t.given, t.luck, len(t.decisions))
                   for t in b.turns]


def test_make_plays_log_is_reported(tmp_path, capsys):
    """`shutbox play --log FILE` (make play, scripted here) appends the firmware's records;
    the report reads them: a 12 shut as 1 2 9 gives away what the solver says."""
    log = tmp_path / "play.jsonl"
    argv = ["play", "--players", "1", "--dice", "6,6,1,1,1,1", "--keys", " 129 .", "--log", log]
    assert shutbox(argv, capsys)[0] == 0
    recs = [json.loads(x) for x in log.read_text().splitlines()]
    assert [x["ev"] for x in recs][:3] == ["settings", "game", "turn"]
    r = report.read_logs([log])
    (t,) = r.turns
    var = solver.Variant.from_names()
    v = solver.solve_values(var)
    assert t.decisions[0].loss == v.expected(0b011111100) - v.expected(0b011111011)
    assert shutbox(argv, capsys)[0] == 0  # a second session: appended
    assert len(report.read_logs([log]).turns) == 2
    assert play.open_log(None) is None


def test_a_recorded_log_with_times_and_links(tmp_path, capsys):
    """A log as `shutbox log` records it: "t" on every line, link records, the settings by
    name; the report says when it was recorded."""
    recs = games.play(2, 2, "best", seed=5)
    out = []
    for i, rec in enumerate(recs):
        if i == 0:
            out.append({"t": "2026-05-01T18:03:11.402Z", "ev": "link", "state": "open",
                        "port": "/dev/ttyACM0"})
            rec = dict(rec, names={"players": "2", "computer": "off", "code": "off"})
        out.append(dict({"t": "2026-05-01T18:%02d:%02d.000Z" % (4 + i // 60, i % 60)}, **rec))
    out.append({"t": "2026-05-01T19:00:00.000Z", "ev": "link", "state": "lost",
                "port": "/dev/ttyACM0"})
    rc, text, err = shutbox(["report", write(tmp_path, out)], capsys)
    assert rc == 0 and not err
    assert "2 logs" not in text and "1 log, 2 games, 4 whole turns" in text
    assert "recorded 2026-05-01 18:03 to 2026-05-01 19:00 UTC" in text


def test_digital_scores_plot_as_a_cumulative_distribution(tmp_path):
    recs = games.play(3, 1, "greedy", seed=4, scoring=V.SCORING_DIGITAL)
    png = report.figure_png(read(tmp_path, recs))
    assert png.startswith(PNG)


# ----- bad input: one line, exit 2 -----


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("shutbox report: error: ")
    return lines[0]


def test_a_line_that_is_not_json_is_named_and_the_rest_reported(tmp_path, capsys):
    recs = games.play(2, 1, "best", seed=9)
    path = write(tmp_path, recs)
    lines = path.read_text().splitlines()
    lines.insert(len(lines) - 1, "{\"ev\": \"winner\", \"play")  # cut short (line n - 1)
    lines.insert(3, "MicroPython v1.28.0 on 2026-05-01; Raspberry Pi Pico")
    path.write_text("\n".join(lines) + "\n")
    before = path.read_bytes()
    rc, out, err = shutbox(["report", path], capsys)
    assert rc == 2
    line = _one_line(err)
    assert "%s:4: not a JSON record: 'MicroPython v1.28" % path in line
    assert "(and 1 more line)" in line and "the report is made from the other lines" in line
    assert "1 log, 2 games, 2 whole turns" in out  # line 4 held no record of a turn
    assert path.read_bytes() == before  # nothing is lost or changed


def test_a_damaged_record_in_a_turn_leaves_that_turn_out(tmp_path, capsys):
    recs = games.play(2, 1, "best", seed=9)
    i = next(i for i, x in enumerate(recs) if x["ev"] == "move")
    recs[i] = dict(recs[i], dice=[7, 1])
    rc, out, err = shutbox(["report", write(tmp_path, recs)], capsys)
    assert rc == 2
    assert "games.jsonl:%d: a move record whose dice [7, 1] are not one or two dice" % (
        i + 1) in _one_line(err)
    assert "1 whole turn (1 more left out" in out
    assert "a damaged record inside it" in out


def test_a_newer_format_is_refused(tmp_path, capsys):
    recs = games.play(1, 1, "best", seed=9)
    recs[1]["v"] = 4
    rc, out, err = shutbox(["report", write(tmp_path, recs)], capsys)
    assert rc == 2 and not out
    assert "games.jsonl:2: log format 4, newer than this shutbox reads (3): update shutbox" \
        in _one_line(err)


@pytest.mark.parametrize("content,says", [
    ("", "is empty: no log records in it"),
    ("\n  \n", "is empty: no log records in it"),
    ("hello\nworld\n", "no log records in it (line 1: not a JSON record: 'hello')"),
    ('{"ev": "link", "state": "open", "port": "x"}\n', "no whole turn to report in"),
])
def test_an_empty_log_says_so(tmp_path, capsys, content, says):
    path = tmp_path / "empty.jsonl"
    path.write_text(content)
    rc, out, err = shutbox(["report", path], capsys)
    assert rc == 2 and not out
    assert says in _one_line(err)


def test_a_missing_file_and_bad_options(tmp_path, capsys):
    rc, out, err = shutbox(["report", tmp_path / "nope.jsonl"], capsys)
    assert rc == 2 and "cannot read %s: No such file or directory" % (
        tmp_path / "nope.jsonl") in _one_line(err)
    rc, out, err = shutbox(["report", tmp_path], capsys)
    assert rc == 2 and "cannot read %s: Is a directory" % tmp_path in _one_line(err)
    log = write(tmp_path, games.play(1, 1, "best", seed=9))
    rc, out, err = shutbox(["report", log, "-o", tmp_path / "out.txt"], capsys)
    assert rc == 2 and "without --html OUT is the plots' PNG" in _one_line(err)
    rc, out, err = shutbox(["report", log, "-o", tmp_path / "no" / "dir.png"], capsys)
    assert rc == 2 and "cannot write" in _one_line(err)
    rc, out, err = shutbox(["play", "--keys", " ", "--log", tmp_path / "no" / "x.jsonl"],
                           capsys)
    assert rc == 2 and "--log %s: No such file or directory" % (tmp_path / "no" / "x.jsonl") \
        in err


def test_the_bench_part_runs_and_names_its_figures(monkeypatch):
    from shutbox_host.bench import report as bench_report

    for name, value in (("GAMES", 3), ("CLI_RUNS", 1), ("READ_RUNS", 1)):
        monkeypatch.setattr(bench_report, name, value)
    out = bench_report.figures()
    for key in ("report_cli_s_100_games", "report_png_cli_s_100_games",
                "report_html_cli_s_100_games", "report_read_ms_100_games",
                "report_log_records_100_games"):
        assert out[key] > 0, key


def test_without_matplotlib_the_plots_say_how_to_get_it(tmp_path, capsys, monkeypatch):
    log = write(tmp_path, games.play(1, 1, "best", seed=9))
    for name in ("matplotlib", "matplotlib.figure", "matplotlib.backends.backend_agg"):
        monkeypatch.setitem(sys.modules, name, None)  # import fails, as where it is missing
    rc, out, err = shutbox(["report", log, "--html"], capsys)
    assert rc == 2 and not out
    assert "need matplotlib, which `make venv` installs (requirements-plots.txt)" in _one_line(
        err)
    rc, out, err = shutbox(["report", log], capsys)  # the text needs none of it
    assert rc == 0 and "1 whole turn" in out


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_any_damage_to_a_log_is_a_report_or_one_line(tmp_path_factory, data):
    """Fields of a real log's records changed at random (values of other types, out of
    range, removed), lines cut or dropped: the report is made or refused in one line,
    never a traceback, and a turn it counts still adds up."""
    recs = _FUZZ_LOG
    lines = [json.dumps(x) for x in recs]
    for _ in range(data.draw(st.integers(1, 6))):
        i = data.draw(st.integers(0, len(lines) - 1))
        how = data.draw(st.sampled_from(["field", "drop", "cut", "remove"]))
        rec = json.loads(lines[i]) if lines[i].startswith("{") and lines[i].endswith("}") \
            else None
        if how == "drop":
            del lines[i]
        elif how == "cut":
            lines[i] = lines[i][:data.draw(st.integers(0, max(0, len(lines[i]) - 1)))]
        elif rec is not None:
            key = data.draw(st.sampled_from(sorted(rec)))
            if how == "remove":
                del rec[key]
            else:
                rec[key] = data.draw(_VALUES)
            lines[i] = json.dumps(rec)
    path = tmp_path_factory.mktemp("fuzz") / "games.jsonl"
    path.write_text("\n".join(lines) + "\n")
    try:
        r = report.read_logs([path])
    except UserError as exc:
        assert "\n" not in str(exc)
        return
    for t in r.turns:
        assert t.score == t.optimal + t.given - t.luck and t.given >= 0
    if r.turns:
        report.text(r)


_FUZZ_LOG = games.play(2, 2, ["best", "random"], seed=6, computer=2)
_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-3, 20), st.text(max_size=4),
                    st.lists(st.integers(-1, 13), max_size=4),
                    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))


def test_one_round_for_the_win_is_measured_by_the_chance_to_win(tmp_path):
    """One round for the win (no format, stakes or same throws): each decision also costs
    the chance to win the round it gives away against the match's optimum. The hard computer
    plays for the win (the firmware's match tables): it gives no chance away, where the
    expected score says it gives some; a player of the lowest expected score gives some away.
    Each turn's starting chance is the match solver's value of that seat."""
    from shutbox_host.solve import match as M

    r = read(tmp_path, games.play(20, 1, "best", seed=3, computer=3))
    ps = {p.who: p for p in report.players(r)}
    cpu, person = ps["computer (hard)"], ps["player 1"]
    assert cpu.win_turns == person.win_turns == 20 and cpu.win_decisions > 50
    assert cpu.win_given == 0 and cpu.given_total > 0  # it plays for the win, not for E
    assert person.win_given > 0 and person.given_total == 0  # ... and the other way round
    m = M.Match(solver.Variant(), M.MatchRules(2))
    for t in r.turns:
        before = () if t.seat == 1 else (next(
            u.score for u in r.turns if u.game == t.game and u.seat == 1),)
        assert t.p_win == m.values(before)[t.seat - 1]
    assert all(d.win_loss >= 0 for t in r.turns for d in t.decisions)
    out = report.text(r)
    assert "In one round for the win" in out and re.search(r"computer \(hard\) +20 +\d+ +0 +"
                                                           r"0\.000 +0\.000", out), out


@pytest.mark.parametrize("options", [{"format": 1}, {"stakes": 1}, {"same_throws": 1}],
                         ids=["three rounds", "stakes", "same throws"])
def test_other_games_have_no_match_measure(tmp_path, options):
    """A game of rounds, for stakes or with the same throws is not one round for the win:
    the expected score alone judges it (and a log without its settings record too)."""
    r = read(tmp_path, games.play(3, 2, "best", seed=1, **options))
    assert r.turns and all(t.p_win is None for t in r.turns)
    assert all(d.win_loss is None for t in r.turns for d in t.decisions)
    assert "In one round for the win" not in report.text(r)
    recs = [x for x in games.play(3, 2, "best", seed=1) if x["ev"] != "settings"]
    r = read(tmp_path, recs)
    assert r.turns and all(t.p_win is None for t in r.turns)
