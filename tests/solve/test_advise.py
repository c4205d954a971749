# `shutbox advise`: ranked moves and dice against a brute force and the box; the interactive turn.
"""advise on the command line (text and JSON), interactively through stdin and through a real
pseudo-terminal, on every tile count, and its one-line refusals."""

from __future__ import annotations

import io
import json
import os
import pty
import select
import subprocess
import sys
import time
from fractions import Fraction

import engine_reference as ref
import pytest
from solve_reference import Brute

from shutbox import variants as V
from shutbox.engine import Engine, Rules
from shutbox_host import cli
from shutbox_host.solve import cli as solve_cli
from shutbox_host.solve import solver
from shutbox_host.solve.solver import Variant


def advise_json(capsys, *argv) -> dict:
    assert cli.main(["advise", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def mask(tiles) -> int:
    return ref.mask_of(tiles)


# ----- one throw, one position -----

def test_seed_001_example_min_expected_and_max_shut(capsys):
    """Standard box, 8 shut, a throw of 5 + 3: lowest expected score shuts 1 and 7; the best
    chance of a shut box shuts 3 and 5 (6.0 % against 5.9 %, as the box's hint tables say)."""
    pos = ["--one-die", "never", "--open", "1,2,3,4,5,6,7,9", "--throw", "5,3"]
    low = advise_json(capsys, *pos)
    assert low["moves"][0]["shut"] == [1, 7] and low["moves"][0]["best"]
    shut = advise_json(capsys, *pos, "--objective", "max-shut")
    assert shut["moves"][0]["shut"] == [3, 5]
    p = {tuple(m["shut"]): Fraction(m["p_shut_exact"]) for m in shut["moves"]}
    assert round(1000 * p[(3, 5)]) == 60 and round(1000 * p[(1, 7)]) == 59
    assert [m["best"] for m in shut["moves"]] == [True] + [False] * (len(shut["moves"]) - 1)


@pytest.mark.parametrize("argv", [
    ["--tiles", "6", "--open", "1,2,4,6", "--throw", "3,4"],
    ["--tiles", "6", "--open", "1 2 3", "--throw", "3", "--one-die", "sum-le-6",
     "--objective", "min-shut"],
    ["--tiles", "5", "--open", "all", "--throw", "2,2", "--moves", "kids", "--scoring",
     "digital", "--objective", "beat-target", "--target", "30", "--tie", "half"],
    ["--tiles", "6", "--open", "1,2,3", "--throw", "2", "--one-die-mode", "locked",
     "--locked", "--objective", "max-shut", "--target", "3"],
])
def test_moves_match_the_brute_force(argv, capsys):
    """Every legal move, in the brute force's order, with its exact figures."""
    out = advise_json(capsys, *argv)
    names = out["variant"]
    var = Variant.from_names(names["tiles"], names["one-die"], names["one-die-mode"],
                             names["moves"], names["scoring"], names["start"])
    brute = Brute(var, out["objective"], out.get("target"), out.get("tie", "loss"))
    s = mask(out["open"])
    a, b = (out["throw"] + [0])[:2]
    nxt = 1 if var.locked_layers == 2 and (out["locked"] or b == 0) else 0
    want = brute.ranked(s, a, b, nxt)
    assert [mask(m["shut"]) for m in out["moves"]] == want and want
    for m in out["moves"]:
        _u, e, shut, lt, _eq = brute.value(mask(m["leaves"]), nxt)
        assert Fraction(m["expected_score_exact"]) == e
        assert Fraction(m["p_shut_exact"]) == shut and m["p_shut"] == float(shut)
        if "target" in out:
            assert Fraction(m["p_beat_target_exact"]) == lt


def test_the_dice_before_a_throw(capsys):
    """Without --throw: both dice options with their values, the better one marked."""
    out = advise_json(capsys, "--open", "1,2,3,4,5,6")
    brute = Brute(Variant(), "min-expected")
    assert out["dice_rule"] == "choose" and [d["dice"] for d in out["dice"]] == [2, 1]
    for d, one_die in zip(out["dice"], (False, True), strict=True):
        assert Fraction(d["expected_score_exact"]) == brute.option(0b111111, one_die, 0)[1]
    best = min(out["dice"], key=lambda d: Fraction(d["expected_score_exact"]))
    assert best["best"] and sum(d["best"] for d in out["dice"]) == 1
    assert Fraction(out["value"]["expected_score_exact"]) == brute.value(0b111111, 0)[1]
    one = advise_json(capsys, "--open", "1,9")
    assert one["dice_rule"] == "two dice" and len(one["dice"]) == 1
    assert "7 and up" in one["dice_rule_why"]
    forced = advise_json(capsys, "--open", "1,2", "--one-die-mode", "forced")
    assert forced["dice_rule"] == "one die" and forced["dice"][0]["dice"] == 1


def test_text_output(capsys):
    assert cli.main(["advise", "--throw", "5,4"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "9/high-shut/optional/any/sum, the lowest expected final score"
    assert out[2] == "throw 5+4"
    assert out[4].startswith("a  9 ") and out[4].endswith("best")
    assert len(out) == 4 + 8  # the eight ways to make 9 from a full box
    assert cli.main(["advise", "--open", "1,2,4", "--throw", "6,6"]) == 0
    assert "the turn is over, final score 7" in capsys.readouterr().out


@pytest.mark.parametrize("tiles,extra", [
    (2, []), (3, ["--one-die", "sum-lt-6"]), (7, ["--moves", "one-tile"]),
    (9, ["--one-die-mode", "locked", "--scoring", "count"]), (10, ["--one-die", "sum-le-6"]),
    (12, []), (12, ["--one-die-mode", "locked", "--locked", "--open", "1,2,3,4,5,6"]),
])
def test_every_tile_count_agrees_with_the_box(tiles, extra, capsys):
    """The best move equals the box's own best_move where it has a table (9, 10, 12 tiles),
    and the first solver choice everywhere."""
    argv = ["--tiles", str(tiles), *extra]
    if "--open" not in extra:
        argv += ["--open", "all"]
    for a, b in ((1, 1), (6, 5), (3, 4), (2, 6)):
        if "--locked" in extra:
            b = 0  # one die, locked in
        out = advise_json(capsys, *argv, "--throw", "%d,%d" % (a, b) if b else str(a))
        names = out["variant"]
        var = Variant.from_names(tiles, names["one-die"], names["one-die-mode"],
                                 names["moves"], names["scoring"], names["start"])
        rules_kw = dict(zip(("tiles", "one_die", "one_die_mode", "moves", "scoring"),
                            var.key()[:5], strict=True))
        eng = Engine(Rules(**rules_kw))
        s = mask(out["open"])
        best = mask(out["moves"][0]["shut"]) if out["moves"] else 0
        want = solver.solve_values(var).choice(int(out["locked"]), s, b == 0,
                                               solver.candidate_masks(var.moves, a, b))
        assert best == want
        if eng.has_table:
            assert best == eng.best_move(s, a, b, out["locked"])


def test_beat_target_chances_match_the_box_hints(capsys):
    """The box's target tables count a tie with the target as half a win: advise's
    ``--tie half`` chance."""
    eng = Engine(Rules())
    assert eng.set_target(12)
    for tiles in ("1,2,3,4,5,6,7,8,9", "2,3,5,8", "1,4,6"):
        out = advise_json(capsys, "--open", tiles, "--objective", "beat-target",
                          "--target", "12", "--tie", "half")
        p = Fraction(out["value"]["p_win_exact"])
        assert eng.p_beat(mask(out["open"])) == int(p * 1000 + Fraction(1, 2))


# ----- interactive -----

def run_interactive(monkeypatch, capsys, text: str, *argv) -> list[str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    assert cli.main(["advise", "-i", *argv]) == 0
    return capsys.readouterr().out.splitlines()


def test_interactive_turn_through_stdin(monkeypatch, capsys):
    """Bad throws and moves are refused and asked again; a letter, Enter or the tiles pick a
    move; the position follows; q quits."""
    never = Variant(one_die=V.ONE_DIE_NEVER)
    an = solver.Analysis(never)
    second = an.moves(511, 5, 4)[1]  # b)
    s = second["result"]
    then = an.moves(s, 6, 6)[0]
    script = "7\n0,3\n6\n54\nz\nb\n66\n1 8\n\nq\n"
    text = "\n".join(run_interactive(monkeypatch, capsys, script, "--one-die", "never"))
    assert text.startswith("shutbox advise: 9/never/optional/any/sum")
    assert "error: a die shows 1 to 6, not '7'" in text
    assert "error: a die shows 1 to 6, not '0'" in text
    assert "error: one die is not allowed here: this variant always throws two dice" in text
    assert "error: move: 'z' is not a tile number (tiles look like 1,2,5)" in text
    assert "shut %s\nopen %s:" % (tiles(second["mask"]), tiles(s)) in text
    assert "error: shutting 1 8 is not a legal move for this throw" in text
    assert "shut %s\nopen %s:" % (tiles(then["mask"]), tiles(then["result"])) in text
    assert text.rstrip().endswith("throw>")


def tiles(m: int) -> str:
    return " ".join(map(str, ref.tiles_of(m)))


def test_interactive_plays_a_turn_to_its_end(monkeypatch, capsys):
    """Four tiles: a throw with no move ends the turn with its score, then a new turn; the
    end of the input ends the session."""
    out = run_interactive(monkeypatch, capsys, "6,6\n1,1\n\n1,2\n\n", "--tiles", "4")
    text = "\n".join(out)
    assert "no move makes 6+6 with 1 2 3 4 open: the turn is over, final score 10\n" \
           "new turn\nopen 1 2 3 4:" in text
    assert "shut 2\nopen 1 3 4:" in text and "shut 3\nopen 1 4:" in text


def test_interactive_locked_mode_follows_the_lock(monkeypatch, capsys):
    var = Variant(6, V.ONE_DIE_HIGH_SHUT, V.MODE_LOCKED)
    best = solver.Analysis(var).moves(0b11101, 4, 0, locked=1)[0]
    out = run_interactive(monkeypatch, capsys, "2\n\n3,3\n4\n\nq\n", "--tiles", "6",
                          "--one-die-mode", "locked", "--open", "1,2,3,4,5")
    text = "\n".join(out)
    assert "shut 2\nopen 1 3 4 5:" in text
    assert "  one die: one die was chosen earlier this turn (one-die-mode locked)" in text
    assert "error: throw one die here: one die was chosen earlier this turn" in text
    assert "shut %s\nopen %s:" % (tiles(best["mask"]), tiles(best["result"])) in text


def test_interactive_undo_and_set_a_position(monkeypatch, capsys):
    """u goes back a move at a time (across the end of a turn too), and at a move's question
    takes the throw back; o TILES sets the position (locked where that can hold); each
    position shows P(survive). Bad positions are refused and the session goes on."""
    var = Variant(6, V.ONE_DIE_SUM_LE_6, V.MODE_LOCKED)
    an = solver.Analysis(var)
    script = ("u\n6,6\n\nu\no 1 2 9\no 1 2 3 locked\n2,2\no 1 2 3 locked\n3\nu\nu\nu\n"
              "o\n5,4\n\nq\n")
    text = "\n".join(run_interactive(monkeypatch, capsys, script, "--tiles", "6",
                                     "--one-die", "sum-le-6", "--one-die-mode", "locked"))
    assert "error: nothing to undo" in text
    first = an.moves(63, 6, 6)[0]
    assert "shut %s\nopen %s:" % (tiles(first["mask"]), tiles(first["result"])) in text
    assert "undone: open 1 2 3 4 5 6" in text
    assert "error: o: there is no tile 9 on a 6-tile box" in text
    assert "error: throw one die here: one die was chosen earlier this turn" in text
    locked = an.value(0b111, 1)
    assert "open 1 2 3: E(score) %s, p(shut) %s, p(survive) %s" % (
        solve_cli.fig(locked["expected_score"]), solve_cli.pct(locked["p_shut"]),
        solve_cli.pct(locked["p_survive"])) in text
    assert "throw taken back\nopen 1 2 3:" in text
    assert "undone: open 1 2 3\n" in text  # the first o undone, then the second
    assert text.count("undone: open 1 2 3 4 5 6") == 2
    nine = an.moves(63, 5, 4)[0]
    assert "shut %s\nopen %s:" % (tiles(nine["mask"]), tiles(nine["result"])) in text
    assert "error: o: name the open tiles" in text
    assert text.rstrip().endswith("throw>")


def test_interactive_on_a_real_terminal():
    """Without --throw and with a terminal on stdin, advise asks for throws by itself."""
    best = solver.Analysis(Variant(5)).moves(31, 3, 2)[0]
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "shutbox_host.cli", "advise", "--tiles",
                             "5"], stdin=follower, stdout=follower, stderr=follower,
                            close_fds=True)
    os.close(follower)
    seen = b""

    def until(words: bytes):
        nonlocal seen
        deadline = time.monotonic() + 60
        while words not in seen:
            left = deadline - time.monotonic()
            assert left > 0, seen.decode(errors="replace")
            if select.select([leader], [], [], left)[0]:
                try:
                    seen += os.read(leader, 4096)
                except OSError:  # the child closed the terminal
                    break
        assert words in seen, seen.decode(errors="replace")

    try:
        until(b"throw> ")
        os.write(leader, b"32\n")
        until(b"move [a]> ")
        os.write(leader, b"\n")
        until(("shut %s" % tiles(best["mask"])).encode())
        os.write(leader, b"q\n")
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(leader)


# ----- bad input -----

@pytest.mark.parametrize("argv,words", [
    (["--open", "1,2,13"], "there is no tile 13 on a 9-tile box"),
    (["--open", "x"], "'x' is not a tile number"),
    (["--open", ","], "--open: name the tiles"),
    (["--tiles", "4", "--open", "5"], "there is no tile 5 on a 4-tile box"),
    (["--throw", "7,1"], "a die shows 1 to 6, not '7'"),
    (["--throw", "0"], "a die shows 1 to 6, not '0'"),
    (["--throw", "1,2,3"], "a throw is one die or two"),
    (["--throw", "543"], "a throw is one die or two"),
    (["--throw", "6"], "one die is not allowed here"),
    (["--one-die", "never", "--open", "1", "--throw", "1"], "always throws two dice"),
    (["--one-die-mode", "forced", "--open", "1,2", "--throw", "1,1"], "throw one die here"),
    (["--objective", "beat-target"], "needs --target"),
    (["--objective", "beat-target", "--target", "0"], "out of range"),
    (["--target", "46"], "T runs from 1 to 45"),
    (["--tie", "half"], "--tie goes with --target"),
    (["--locked", "--open", "1,2"], "--locked goes with --one-die-mode locked"),
    (["--locked", "--one-die-mode", "locked", "--open", "1,9"], "cannot have been chosen"),
    (["-i", "--throw", "5,4"], "leave out --throw"),
    (["--tiles", "3", "--start", "low-three-shut"], "leaves no tile open"),
    (["-i", "--tiles", "2", "--start", "low-three-shut", "--open", "1"], "nothing to play"),
])
def test_bad_input_is_one_line_and_exit_2(argv, words, capsys):
    assert cli.main(["advise", *argv]) == 2
    captured = capsys.readouterr()
    assert words in captured.err and len(captured.err.strip().splitlines()) == 1, captured.err
    assert captured.out == ""


def test_bad_flags_exit_2(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["advise", "--tiles", "13"])
    assert exc.value.code == 2
    with pytest.raises(SystemExit):
        cli.main(["advise", "--objective", "most-tiles"])
    assert "error:" in capsys.readouterr().err
