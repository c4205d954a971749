# `shutbox bench --only strategy`: matches, fair stakes, the strategy card and the long game.
"""The figures of the game as played against others and by people, all exact (the solver's
ints and Fractions; floats only to write them down), with the time each solve takes.

- match_solve_s: one round of the box's default rules (nine tiles, one die once 7, 8 and 9
  are shut, optional; tie share, shut-wins off) solved for 2, 3 and 4 players (every seat's
  best play and chances), wall seconds (2 players: best of MATCH_RUNS).
- match_default: for 2 players, each tie rule x shut-wins: seat 1's and seat 2's value (the
  chance to win, ties as the rule scores them), seat 1's chances of a win, a tie and a loss,
  the edge (seat 1's value minus seat 2's).
- match_one_die: the edge under each one-die rule and mode, tie share, shut-wins off / on.
- match_players: every seat's value for 3 and 4 players (tie share, shut-wins off / on).
- fair_shut_pays: the stakes a shut box must pay (a win 1) for an even round, default rules,
  shut-wins on / off (None: none does), and the steps of its policy iteration.
- match_gain: what the match-optimal play is worth against plainer play, 2 players, tie
  share, shut-wins off: seat 1's value minus that of min-expected play (the hard computer,
  the best-move hint before the match's play), seat 2's minus that of the beat-target play
  that counts a tie as lost (the box's blocks before they counted it half), both replying
  to the other seat's best play; seat2_vs_box: seat 2's against the box's play now (a tie
  counted half, after a shut box the best chance of one), seat2_after_shut what the best
  chance of a shut box gained over the tie-lost play after one; under the tie rule replay
  (where the box plays seat 2 as the match does, shutbox.payout), seat2_replay_vs_box
  against the target play above (a tie counted half, after a shut box the best chance of
  one) and seat2_replay_vs_tie_half against the play that counts a tie half throughout.
- seat2_tables: seat 2 of 2's match play against the target plays, a tie lost or half (the
  choices that differ, over every score of seat 1) and the flash separate exact blocks
  would have taken, beside the room of a nine-tile Pico W's deploy (seat2_tables(),
  matchtables.seat2).
- shut_rows: a shut box to tie on every variant of the hint pack: the flash of target-0
  blocks for all of them, and the chance of a shut box the aim below 1 gives away where the
  pack has none (matchtables.shut_rows).
- later_seats: every later seat of 3 and 4 players (ties shared, shut-wins off / on) against
  the box's target play with a tie counted as lost (before) and half (now): the choices in
  which the match solver's play differs, over every situation the seat meets with a score
  to beat, and the chance to win the seat gives away playing that way in every situation
  (matchtables.later_seats).
- fair_tie: the share of a tie seat 1 must get for an even round (shut-wins off / on), and
  the edge when seat 1 wins a tie on two dice of 7 or less (21 of 36: a rule a table can
  play with the box's dice).
- strategy_card: shutbox_host.solve.strategy's rules (expected score, p(shut), cost against
  optimal play), the best dice limit and the optimal play's figures; worst play's too.
- at_most_two: the best chance of a shut box with at most two tiles a move (Durango Bill's
  variant: one die forced once the open tiles add up to 6 or less).
- long_game: the first player's chance in the long game for 2 (shutbox_host.solve.longgame)
  on the default box in floats (value iteration: its sweeps, last change and seconds), its
  proven bounds there (bounds: low, high, their gap, the sweeps, the seconds), and
  exactly on boxes of 4 to LONG_EXACT_MAX tiles (the chance, its denominator's digits, the
  seconds).
- soak (``--soak``): match_table_bytes: the flash the box's tables for match-optimal play
  would take (shutbox_host.solve.matchtables, one-byte blocks), for the default variant;
  later_seat_blocks: the exact blocks of its later seats of 3 and 4 players in the hint
  pack's format (matchtables.later_blocks);
  and cananian's pub game (digital scoring, one die forced at 6 or less, a shut
  box wins at once and pays K stakes): seat 1's stake at K = 2 and 4, its chance of a tie,
  and the exact fair K, with the time of one such round (512 final scores: 512 solves).
"""

from __future__ import annotations

import time
from fractions import Fraction

from shutbox import variants as V
from shutbox_host.solve import longgame, matchtables, solver, strategy
from shutbox_host.solve import match as M

MATCH_RUNS = 3
DEPLOY_BUDGET = 416 * 1024  # a nine-tile Pico W's deploy (tests/pico/test_lean.py)
TILES = 9  # the tests set a small box
LONG_EXACT = (4, 5, 6)  # box sizes whose long game is solved exactly here (7 takes minutes)


def _secs(fn, runs: int = 1):
    """(the result, the best wall seconds of *runs* calls)."""
    best, out = float("inf"), None
    for _ in range(runs):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return out, best


def _row(m: M.Match) -> dict:
    a, b = m.seats[0], m.seats[1]
    return {"v1": float(a.value), "v2": float(b.value), "win1": float(a.p_win),
            "tie": float(a.p_tie), "lose1": float(a.p_lose), "edge": float(m.edge())}


def _box_seat2(finals, tie: str = "half"):
    """Seat 2's aim on the box (shutbox.target): the best chance to beat seat 1's score x,
    a tie counted half (*tie* "loss": lost, the box's blocks before); after a shut box
    (x = 0) the best chance of one."""
    return lambda sc: matchtables._box_later(sc[0], tie, finals)


def seat2_tables(var) -> dict:
    """What seat 2 of 2's match play would cost the box (matchtables.seat2) beside the room
    a nine-tile Pico W's deploy has (the release `shutbox flash` writes, without the
    companion, against tests/pico/test_lean.py's 416 KB)."""
    from shutbox_host.pico import flash, fsimage

    out = matchtables.seat2(var)
    deployed = flash.prepare(flash.mp.FIRMWARE, fsimage.BOARD_MPY).deployed_bytes
    out.update(deploy_bytes=deployed, deploy_budget=DEPLOY_BUDGET,
               deploy_room=DEPLOY_BUDGET - deployed)
    return out


def match_figures(var) -> dict:
    """The match figures of the module docstring for *var*."""
    out: dict = {"match_solve_s": {}}
    m2, t = _secs(lambda: M.Match(var, M.MatchRules(2)), MATCH_RUNS)
    out["match_solve_s"]["2 players"] = round(t, 3)
    players = {}
    for n in (3, 4):
        for wins in (False, True):
            m, t = _secs(lambda n=n, w=wins: M.Match(var, M.MatchRules(n, "share", w)))
            if not wins:
                out["match_solve_s"]["%d players" % n] = round(t, 2)
            players["%d/%s" % (n, "on" if wins else "off")] = [float(s.value) for s in m.seats]
    out["match_players"] = players
    rows = {}
    for tie in M.TIE_RULES:
        for wins in (False, True):
            m = m2 if (tie != "replay" and not wins) else M.Match(
                var, M.MatchRules(2, "share" if tie == "roll-off" else tie, wins))
            row = _row(m)
            if tie == "replay":
                row["steps"] = m.replay_steps
            rows["%s/%s" % (tie, "on" if wins else "off")] = row
    out["match_default"] = rows
    finals = m2.finals
    lowest = {y: -Fraction(y) for y in finals}  # min-expected as a payout
    lost = m2.seats[1].value - m2.value_if(
        1, lambda sc: {y: Fraction(int(y < sc[0])) for y in finals})
    mr = M.Match(var, M.MatchRules(2, "replay"))
    out["match_gain"] = {
        "seat1_vs_min_expected": float(m2.seats[0].value - m2.value_if(0, lambda sc: lowest)),
        "seat2_vs_tie_lost": float(lost),
        "seat2_vs_box": float(m2.seats[1].value - m2.value_if(1, _box_seat2(finals))),
        "seat2_after_shut": float(lost - m2.seats[1].value + m2.value_if(
            1, _box_seat2(finals, "loss"))),
        "seat2_replay_vs_box": float(mr.seats[1].value - mr.value_if(1, _box_seat2(finals))),
        "seat2_replay_vs_tie_half": float(mr.seats[1].value - mr.value_if(
            1, lambda sc: {y: Fraction(2 * int(y < sc[0]) + int(y == sc[0]), 2)
                           for y in finals}))}
    edges = {}
    for one_die in range(len(V.ONE_DIE)):
        modes = [V.MODE_OPTIONAL] if one_die == V.ONE_DIE_NEVER else range(len(V.ONE_DIE_MODE))
        for mode in modes:
            v = solver.Variant(var.tiles, one_die, mode)
            edges["%s/%s" % (V.ONE_DIE[one_die], V.ONE_DIE_MODE[mode])] = {
                ("on" if w else "off"): float(M.Match(v, M.MatchRules(2, "share", w)).edge())
                for w in (False, True)}
    out["match_one_die"] = edges
    fair = {}
    for wins in (True, False):
        (k, steps), t = _secs(lambda w=wins: M.fair_shut_payout(var, w))
        fair["on" if wins else "off"] = {"shut_pays": None if k is None else float(k),
                                         "steps": steps, "s": round(t, 2)}
    out["fair_shut_pays"] = fair
    ties = {}
    for wins in (False, True):
        t, steps = M.fair_tie_value(var, wins)
        seven = M.Match(var, M.MatchRules(2, "replay", wins), tie_value=Fraction(21, 36))
        ties["on" if wins else "off"] = {"share": None if t is None else float(t),
                                         "steps": steps, "edge_7_or_less": float(seven.edge())}
    out["fair_tie"] = ties
    return out


def later_seat_figures(var) -> dict:
    """matchtables.later_seats for 3 and 4 players, shut-wins off and on, in floats."""
    out = {}
    for players in (3, 4):
        for wins in (False, True):
            got = matchtables.later_seats(var, players, wins)
            out["%d/%s" % (players, "on" if wins else "off")] = {
                seat: {k: v if isinstance(v, int) else float(v) for k, v in row.items()}
                for seat, row in got.items()}
    return out


def card_figures(var) -> dict:
    """The strategy card's figures (see shutbox_host.solve.strategy)."""
    card, t = _secs(lambda: strategy.Card(var))
    return {"strategy_card": dict(card.as_json(), s=round(t, 2))}


def long_game_figures() -> dict:
    """The long game's figures (see the module docstring)."""
    got, t = _secs(lambda: longgame.LongGame(solver.Variant(TILES)).solve())
    out = {"float": {"p_first": got["p_first"], "sweeps": got["sweeps"],
                     "last_change": got["last_change"], "s": round(t, 1)}}
    (low, high, sweeps, _), t = _secs(lambda: longgame.LongGame(solver.Variant(TILES)).bounds())
    out["bounds"] = {"low": float(low), "high": float(high), "gap": float(high - low),
                     "sweeps": sweeps, "s": round(t, 1)}
    for tiles in LONG_EXACT:
        got, t = _secs(lambda n=tiles: longgame.LongGame(solver.Variant(n)).solve(exact=True))
        exact = got["p_first_exact"]
        out[str(tiles)] = {"p_first": float(exact), "digits": len(str(exact.denominator)),
                           "s": round(t, 2)}
    return {"long_game": out}


def cananian() -> dict:
    """cananian's pub game (see the module docstring)."""
    var = solver.Variant(TILES, V.ONE_DIE_SUM_LE_6, V.MODE_FORCED, scoring=V.SCORING_DIGITAL)
    two, t = _secs(lambda: M.Match(var, M.MatchRules(2, "share", True, "stake", 2)))
    four = M.Match(var, M.MatchRules(2, "share", True, "stake", 4))
    k, steps = M.fair_shut_payout(var, True)
    return {"cananian": {"stake2": float(two.seats[0].value), "tie": float(two.seats[0].p_tie),
                         "stake4": float(four.seats[0].value),
                         "fair": None if k is None else float(k), "steps": steps,
                         "solve_s": round(t, 1)}}


def figures(soak=False) -> dict:
    """Every figure of this part (see the module docstring)."""
    var = solver.Variant(TILES)
    out = match_figures(var)
    out["seat2_tables"] = seat2_tables(var)
    out["later_seats"] = later_seat_figures(var)
    out["shut_rows"] = matchtables.shut_rows(TILES)
    out.update(card_figures(var))
    two = solver.Variant(TILES, V.ONE_DIE_SUM_LE_6, V.MODE_FORCED, max_tiles=2)
    out["at_most_two_p_shut_pct"] = float(100 * solver.solve(two, "max-shut").p_shut)
    out.update(long_game_figures())
    if soak:
        out["match_table_bytes"] = matchtables.default_variant_sizes(TILES)
        out["later_seat_blocks"] = matchtables.later_blocks(var)
        out["payout_play"] = matchtables.payout_play(TILES)
        out.update(cananian())
    return out
