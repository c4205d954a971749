# The long game for 2: the exact values satisfy the game's equations, written out here.
"""shutbox_host.solve.longgame against the rules of seed 000's long game written out in the
test (engine_reference's subset search, a plain recursion over a turn with its extra turns):
the exact values the solver finds are a solution of the game's optimality equations, and the
float value iteration agrees with them."""

from __future__ import annotations

import json
from fractions import Fraction
from functools import cache

import engine_reference as ref
import pytest

from shutbox import variants as V
from shutbox_host import cli
from shutbox_host.solve import longgame
from shutbox_host.solve.solver import Variant


def _option_values(var, value, who, m, k, handover):
    """{one die?: A's chance} of *who*'s dice options at (m, k) of a turn (*value*: the
    turn's values, *handover*: the other's), from the rules (turn_values)."""
    full = (1 << var.tiles) - 1
    best = max if who == 0 else min
    free = m if who == 0 else full ^ m
    allowed = ref.one_die_allowed(free if who == 1 else m, var.one_die)
    out = {}
    for one in ([True] if allowed and var.one_die_mode == V.MODE_FORCED else
                [False, True] if allowed else [False]):
        throws = [(a, 0) for a in range(1, 7)] if one else [
            (a, b) for a in range(1, 7) for b in range(1, 7)]
        acc, again = Fraction(0), 0
        for a, b in throws:
            moves = ref.legal(free, var.moves, a, b)
            if moves:
                acc += best(value(m ^ mv, k + (a == b)) for mv in moves)
            elif a == b:
                again += 1
            else:
                acc += value(m, k - 1) if k else handover[m]
        out[one] = acc / (len(throws) - again)
    return out


def turn_values(var, who, handover):
    """V(mask, extra turns) of a turn of *who* (0: shuts, 1: opens), A's chance to win, the
    other's values at hand-over *handover*; written from the rules: two dice (a double
    earns an extra turn, one that cannot be played is thrown again), one die where the
    one-die rule allows it (on the shut tiles for the opener)."""
    goal, win = (0, Fraction(1)) if who == 0 else ((1 << var.tiles) - 1, Fraction(0))
    best = max if who == 0 else min

    @cache
    def value(m, k):
        if m == goal:
            return win
        return best(_option_values(var, value, who, m, k, handover).values())

    return value


# the variants solved exactly (in Fractions) and checked against the rules written out here
VARIANTS = [Variant(4), Variant(4, V.ONE_DIE_NEVER, moves=V.MOVES_KIDS),
            Variant(5, V.ONE_DIE_SUM_LE_6, V.MODE_FORCED)]


@pytest.mark.parametrize("var", VARIANTS)
def test_the_exact_values_solve_the_games_equations(var):
    game = longgame.LongGame(var)
    got = game.solve(exact=True)
    x, y = game.exact_x, game.exact_y
    full = (1 << var.tiles) - 1
    a = turn_values(var, 0, y)
    b = turn_values(var, 1, x)
    for m in range(1, full + 1):
        assert x[m] == a(m, 0), m
    for m in range(full):
        assert y[m] == b(m, 0), m
    assert y[full] == x[full]  # nothing to open: the box goes straight back
    assert got["p_first_exact"] == x[full] and 0 < x[full] < 1
    assert abs(got["p_first"] - float(x[full])) < 1e-13


@pytest.mark.parametrize("var", VARIANTS)
def test_the_bounds_hold_the_exact_chance(var):
    """bounds(): integer value iteration rounded down from 0 and up from 1 brackets the
    exact chance (solved in Fractions), a few units of 2**-64 apart; with 8 bits the
    bracket is wider and still holds it."""
    game = longgame.LongGame(var)
    exact = game.solve(exact=True)["p_first_exact"]
    low, high, n_low, n_high = game.bounds()
    assert low <= exact <= high and 0 < high - low < Fraction(1, 10 ** 15)
    assert low.denominator <= 2 ** 64 and 0 < n_low <= longgame.BOUND_SWEEPS
    low8, high8, _, _ = game.bounds(bits=8)
    assert low8 <= low and high <= high8 and low8 <= exact <= high8 and high8 - low8 > 2 ** -10


def test_the_long_game_on_the_command_line(capsys):
    assert cli.main(["solve", "--long-game", "--tiles", "4", "--exact", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    want = longgame.LongGame(Variant(4)).solve(exact=True)["p_first_exact"]
    assert Fraction(out["p_first_exact"]) == want
    assert cli.main(["solve", "--long-game", "--tiles", "4", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert Fraction(out["p_first_low"]) <= want <= Fraction(out["p_first_high"])
    assert abs(out["p_first"] - float(want)) < 1e-13
    assert cli.main(["solve", "--long-game", "--tiles", "4"]) == 0
    assert "proven         between 0.606154183516" in capsys.readouterr().out
    for argv, words in ((["--long-game", "--exact"], "exactly up to 7 tiles"),
                        (["--exact"], "--exact goes with --long-game"),
                        (["--long-game", "--one-die-mode", "locked"], "optional or forced"),
                        (["--long-game", "--match"], "leave out --match")):
        assert cli.main(["solve", *argv]) == 2
        err = capsys.readouterr().err
        assert words in err and err.count("\n") == 1


def test_the_box_s_long_game_is_the_solver_s(tmp_path):
    """The firmware's long game (shutbox.long, on a 4-tile box: one die optional where the
    high-shut rule allows it) played by both seats with the solver's exact optimal play:
    at every throw the box's player, extra turns due, tiles and legal moves are the model's
    (the solver's readings, written out above), and player 1 wins as often as the solver's
    exact chance says (within 4.5 standard deviations over 3000 games)."""
    import random

    from shutbox import long, setfile
    from shutbox.dice import Dice
    from shutbox.engine import Engine
    from shutbox.game import GAME_END, MOVE, READY, ROLLING, TURN_END
    from shutbox.settings import Settings

    var = Variant(4)
    game = longgame.LongGame(var)
    p_first = game.solve(exact=True)["p_first_exact"]
    x, y = game.exact_x, game.exact_y
    values = [turn_values(var, 0, y), turn_values(var, 1, x)]
    handovers = [y, x]

    @cache  # the same few states recur in every game: their options worked out once
    def options(who, m, k):
        return _option_values(var, values[who], who, m, k, handovers[who])

    full = (1 << var.tiles) - 1
    rng = random.Random(27)
    settings = Settings(players=2, long=1)
    eng = Engine(setfile.rules(settings, var.tiles))
    wins = games = 0
    while games < 3000:
        levels = full
        now = 1000
        g = long.Game(eng, Dice(lambda n: bytes(rng.randrange(6) for _ in range(n)), 1),
                      settings, levels, now)
        who, m, k = 0, full, 0  # the model: whose turn, the tiles up, extra turns due
        while g.state != GAME_END:
            if g.state == TURN_END:
                now += 800
                g.roll(False, now)
                continue
            assert g.state <= READY and (g.player, g.open_ ^ g.inv, g.score) == (who, m, k)
            opts = options(who, m, k)
            pick = max if who == 0 else min
            one = pick(opts, key=lambda o: opts[o])
            g.roll(one, now)
            assert g.state == ROLLING and (g.b == 0) == one
            now += 700
            g.tick(now)
            a, b = g.a, g.b
            free = m if who == 0 else full ^ m
            moves = ref.legal(free, var.moves, a, b)
            dbl = b != 0 and a == b
            if not moves:
                assert g.state == TURN_END
                if not dbl:
                    who, k = (who, k - 1) if k else (1 - who, 0)
                continue
            assert g.state == MOVE and set(g.legal[:g.moves]) == moves
            mv = pick(moves, key=lambda mv: values[who](m ^ mv, k + dbl))
            levels ^= mv
            now += 100
            g.tiles_changed(levels, now)
            m, k = m ^ mv, k + dbl
            if m in (0, full):
                assert g.state == GAME_END and g.winners == (1 if m == 0 else 2)
        wins += g.winners == 1
        games += 1
    p = float(p_first)
    assert abs(wins / games - p) < 4.5 * (p * (1 - p) / games) ** 0.5, (wins / games, p)
