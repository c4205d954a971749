# What match-optimal play would cost the box: its table blocks built and measured, not shipped.
"""The tables the box would need to play the match-optimal move (the hard computer and the
best-move hints) in every seat of a one-round match, built from the match solver and
measured in bytes (docs/solver.md's design note): the box reads seat 1's blocks and the later
seats' patches over the target blocks instead (tablegen), not these.

A seat's best play is the solver's payout objective for its value of each final score
(shutbox_host.solve.match): seat 1 has one such table per match rule set (players; ties
share or roll-off, or replay; shut-wins); a later seat one per situation before it (the
score to beat and how many share it). With `any` moves every move of a throw leaves the same
tile sum (as tablegen's hint pack relies on), so a block needs, per open mask and layer,
only the rank of its key among the states of its tile sum (lower is better) and the one-die
bit: one byte a state (bits 0-6 the rank, bit 7 one die), 512 bytes a layer on nine tiles,
against the 2 bytes of the min-expected pack's rank and of the hint pack's entry. A second
byte of value x 250 (0-250: the match value, the chance to win) lets the box show it, as
the hint pack's p_beat does. Identical blocks are stored once.
"""

from __future__ import annotations

import hashlib
from fractions import Fraction
from itertools import product

from shutbox import variants as V
from shutbox_host.solve import match as M
from shutbox_host.solve import solver

RANK_BITS = 7
ONE_DIE_BIT = 0x80


def block(var, payout: dict) -> list[bytes]:
    """The one-byte blocks (one per layer) of the play maximising *payout*."""
    sol = solver._Solved(var, "payout", payout=payout)
    sums = [solver.tile_sum(s) for s in range(1 << var.tiles)]
    out = []
    for lk, keys in enumerate(sol.K):
        groups: dict = {}
        for s, k in enumerate(keys):
            groups.setdefault(sums[s], set()).add(k)
        rank = {t: {k: i for i, k in enumerate(sorted(ks))} for t, ks in groups.items()}
        data = bytearray()
        for s, k in enumerate(keys):
            r = rank[sums[s]][k]
            if r >= 1 << RANK_BITS:
                raise ValueError("more than %d ranks in a tile sum" % (1 << RANK_BITS))
            data.append(r | (ONE_DIE_BIT if sol.flags[lk][s] else 0))
        out.append(bytes(data))
    return out


def match_blocks(var, rules: M.MatchRules) -> dict:
    """{(seat, situation): [layer blocks]} of every seat of one rule set: seat 1, and each
    later seat in every situation it can meet (its payout tables as the Match found them)."""
    m = M.Match(var, rules)
    out = {}
    seen = {}
    for key in list(m._values):  # every situation solved: the seat to play in each
        if m._over(key):
            continue
        table = m._payout(key)
        tkey = tuple((table[y].numerator, table[y].denominator) for y in m.finals)
        if tkey not in seen:
            seen[tkey] = block(var, table)
        out[(m._played(key) + 1, key)] = seen[tkey]
    return out


RULE_SETS = [(2, "share", False), (2, "share", True), (2, "replay", False),
             (2, "replay", True), (3, "share", False), (3, "share", True),
             (4, "share", False), (4, "share", True)]


def sizes(variants) -> dict:
    """Bytes of flash for the one-byte blocks of *variants* (with the value byte they
    double), identical blocks stored once: seat 1's, every seat's, and per rule set (players
    / tie / shut-wins) the blocks of seat 1 and of the later seats (each situation's)."""
    first: dict = {}
    every: dict = {}
    per_set: dict = {}
    for var, (players, tie, wins) in product(variants, RULE_SETS):
        got = match_blocks(var, M.MatchRules(players, tie, wins))
        label = "%d/%s/%s" % (players, tie, "on" if wins else "off")
        row = per_set.setdefault(label, {"seat1": {}, "later": {}, "situations": 0})
        for (seat, _key), layers in got.items():
            data = b"".join(layers)
            h = hashlib.sha1(data).digest()
            every[h] = len(data)
            row["seat1" if seat == 1 else "later"][h] = len(data)
            row["situations"] += 1
            if seat == 1:
                first[h] = len(data)
    return {"seat1_bytes": sum(first.values()), "all_seats_bytes": sum(every.values()),
            "per_rule_set": {k: {"seat1_bytes": sum(r["seat1"].values()),
                                 "later_bytes": sum(r["later"].values()),
                                 "situations": r["situations"]} for k, r in per_set.items()},
            "variants": len(variants), "layer_bytes": 1 << variants[0].tiles}


def hint_variants(tiles: int = 9) -> list:
    """The variants the beat-target hint pack covers (tablegen.offered_hints)."""
    from shutbox_host.solve import tablegen

    return [solver.Variant(tiles, *key) for key in tablegen.offered_hints(tiles)]


def default_variant_sizes(tiles: int = 9) -> dict:
    """sizes() of the box's default variant only (a quick figure; every hint variant is
    `sizes(hint_variants())`)."""
    return sizes([solver.Variant(tiles, V.ONE_DIE_HIGH_SHUT)])


def _choices(var, sol) -> list:
    """Every choice of the play *sol* (its chooser's move for each open mask, layer and
    throw, one die or two; and its one-die choice where the rules give one), in one order."""
    choose = solver._chooser(var, sol.K)
    throws = [(a, b) for a in range(1, 7) for b in range(7) if b == 0 or b >= a]
    cands = {t: solver.candidate_masks(var.moves, *t) for t in throws}
    out = []
    for lk in range(var.locked_layers):
        for s in range(1 << var.tiles):
            if solver.one_die_allowed(s, var.tiles, var.one_die):
                out.append(sol.flags[lk][s])
            out += [choose(lk, s, b == 0, cands[a, b]) for a, b in throws]
    return out


def seat2(var) -> dict:
    """Seat 2 of 2 players (shut-wins off) against the plays the box could read instead, over
    every score x seat 1 can end on but 0 (after a shut box the aim at a final score below 1 is
    the match's play: differ_after_shut checks it):

    - differ_tie_lost / differ_tie_half / differ_replay_tie_half: the choices (_choices)
      in which the match solver's play (ties share; replay) differs from beat-target x with a
      tie counted as lost (the hint pack's blocks before) and with a tie counted half (the
      hint pack's blocks now);
    - half_two_byte_bytes: the tie-half blocks for every x in the hint pack's format (two bytes
      a state above the cut, the index rows not counted); half_one_byte_bytes: one byte a
      state (a rank and the one-die bit, no chance to win);
    - patch_bytes: 4 bytes (a state and throw, a move) for each choice in which the match's
      play differs from the tie-lost blocks the box has, ties share; with replay's own
      lists where they differ from share's (replay_patch_bytes)."""
    from shutbox_host.solve import tablegen

    share = M.Match(var, M.MatchRules(2, "share", False))
    replay = M.Match(var, M.MatchRules(2, "replay", False))
    minexp = solver.solve_values(var)
    top = solver.score((1 << var.tiles) - 1, var.scoring)
    out = {"differ_tie_lost": 0, "differ_tie_half": 0, "differ_replay_tie_half": 0,
           "half_two_byte_bytes": 0, "patch_bytes": 0, "replay_patch_bytes": 0}
    for x in range(1, top + 1):
        lost = _choices(var, solver._Solved(var, "beat-target", x))
        half = _choices(var, solver._Solved(var, "beat-target", x, tie="half"))
        got = _choices(var, solver._Solved(var, "payout", payout=share.payout((x,))))
        rep = _choices(var, solver._Solved(var, "payout", payout=replay.payout((x,))))
        d = sum(g != h for g, h in zip(got, lost, strict=True))
        out["differ_tie_lost"] += d
        out["differ_tie_half"] += sum(g != h for g, h in zip(got, half, strict=True))
        r = sum(g != h for g, h in zip(rep, half, strict=True))
        out["differ_replay_tie_half"] += r
        out["patch_bytes"] += 4 * d
        if r:
            out["replay_patch_bytes"] += 4 * sum(g != h for g, h in zip(rep, lost, strict=True))
        out["half_two_byte_bytes"] += sum(len(b) for _, b in tablegen.payout_blocks(
            var, share.payout((x,)), minexp))
    shut = _choices(var, solver._Solved(var, "payout", payout=share.payout((0,))))
    one = _choices(var, solver._Solved(var, "beat-target", 1))
    out["differ_after_shut"] = sum(g != h for g, h in zip(shut, one, strict=True))
    out["half_one_byte_bytes"] = out["half_two_byte_bytes"] // 2
    return out


def _box_later(low: int, tie: str, finals) -> dict:
    """The payout table a later seat's target play maximises on the box, the best score so
    far *low*: a final score below it a win, one equal to it half a win (tie "half") or
    lost ("loss"); after a shut box (low 0) the best chance of one either way."""
    if low == 0:
        return {y: Fraction(int(y == 0)) for y in finals}
    tied = Fraction(1, 2) if tie == "half" else Fraction(0)
    return {y: Fraction(1) if y < low else tied if y == low else Fraction(0) for y in finals}


def later_seats(var, players: int, shut_wins: bool = False) -> dict:
    """Every later seat of one round of *players* (ties shared or rolled off) against the
    box's target play, a tie counted as lost and counted half: per seat (2..players) the
    situations it meets, the choices (_choices) in which the match solver's play differs
    from each over every situation it meets with a score to beat (after a shut box both are
    the match's play: differ_after_shut), and the seat's chance to win given away when it
    alone plays that way in every situation while every other seat keeps its best play
    (gap_tie_lost, gap_tie_half: fractions of a win)."""
    m = M.Match(var, M.MatchRules(players, "share", shut_wins))
    finals = m.finals
    out = {}
    level = {(): Fraction(1)}
    for seat in range(players):
        if seat:
            row = {"situations": 0, "differ_tie_lost": 0, "differ_tie_half": 0,
                   "differ_after_shut": 0, "gap_tie_lost": Fraction(0),
                   "gap_tie_half": Fraction(0)}
            for key, p in level.items():
                row["situations"] += 1
                got = _choices(var, solver._Solved(var, "payout", payout=m._payout(key)))
                best = m._value(key)[seat]
                for tie in ("loss", "half"):
                    table = _box_later(key[1], tie, finals)
                    play = _choices(var, solver._Solved(var, "payout", payout=table))
                    d = sum(g != h for g, h in zip(got, play, strict=True))
                    if key[1] == 0:
                        row["differ_after_shut"] += d if tie == "half" else 0
                    else:
                        row["differ_tie_" + ("lost" if tie == "loss" else "half")] += d
                    masses, total = M.seat_play(var, table)
                    v = sum((Fraction(mm, total) * m._value(m._child(key, y))[seat]
                             for y, mm in masses.items()), Fraction(0))
                    row["gap_tie_" + ("lost" if tie == "loss" else "half")] += p * (best - v)
            out["seat%d" % (seat + 1)] = row
        nxt: dict = {}
        for key, p in level.items():
            masses, total = m._play(key)
            for y, mm in masses.items():
                k = m._child(key, y)
                if not m._over(k):
                    nxt[k] = nxt.get(k, 0) + p * Fraction(mm, total)
        level = nxt
    return out


def shut_rows(tiles: int = 9) -> dict:
    """A shut box to tie on every variant of the hint pack: the flash its target-0 blocks
    take (distinct blocks, tablegen's format: MATCH_SHUT) and, on the variants that had
    none before (all but tablegen.MATCH_KEYS), what the box's aim there then (beat-target 1,
    a tie half) gave away in the chance of a shut box against the best chance of one: the
    most over those variants and where."""
    from shutbox_host.solve import tablegen

    blocks: dict = {}
    worst, where = Fraction(0), ""
    for key in tablegen.offered_hints(tiles):
        var = solver.Variant(tiles, *key)
        for _cut, b in tablegen.hint_blocks(var, 0, solver.solve_values(var)):
            blocks[b] = len(b)
        if key in tablegen.MATCH_KEYS:
            continue
        lost = (solver.solve(var, "max-shut").p_shut
                - solver.solve(var, "beat-target", target=1, tie="half").p_shut)
        if lost > worst:
            worst, where = lost, var.label()
    return {"row_bytes": sum(blocks.values()), "row_blocks": len(blocks),
            "aim_below_1_p_shut_lost": float(worst), "aim_below_1_worst": where}


def later_blocks(var, tiles: int = 9) -> dict:
    """The exact blocks every later seat of 3 and 4 players (ties shared, shut-wins off and
    on) would need on the box for *var*, in tables/t9.bin's format (tablegen.payout_blocks:
    two bytes a state above the cut; one byte a state would halve it), identical blocks
    stored once: per rule set the situations with a score to beat above 0 (after a shut box
    every variant reads MATCH_SHUT), the distinct payouts among them, their blocks' bytes and
    index rows; all of them together (two_byte)."""
    from shutbox_host.solve import tablegen

    minexp = solver.solve_values(var)
    out: dict = {}
    every: dict = {}
    for players in (3, 4):
        for wins in (False, True):
            m = M.Match(var, M.MatchRules(players, "share", wins))
            seen: dict = {}
            rows = 0
            for key in list(m._values):
                if m._over(key) or m._played(key) == 0 or key[1] == 0:
                    continue
                rows += 1
                table = m._payout(key)
                tkey = tuple(table[y] for y in m.finals)
                if tkey not in seen:
                    seen[tkey] = tablegen.payout_blocks(var, table, minexp)
            blocks = {b for layers in seen.values() for _cut, b in layers}
            out["%d/%s" % (players, "on" if wins else "off")] = {
                "situations": rows, "payouts": len(seen),
                "two_byte": sum(len(b) for b in blocks),
                "index": rows * tablegen.HINT_INDEX.size * var.locked_layers}
            every.update((b, len(b)) for b in blocks)
    out["two_byte"] = sum(every.values())
    out["one_byte"] = out["two_byte"] // 2
    return out


def payout_play(tiles: int = 9, keys: list | None = None) -> dict:
    """What computing the match's play on the box (shutbox.payout, from tablegen's vectors)
    gives and costs, every variant of the hint pack (*keys*: these only): seat 1 of 2, 3 and
    4 players under every rule set of the vectors (ties shared or rolled off, or replayed;
    shut-wins off, on), its moves and one-die choices in every state of every layer against
    the host match solver's (choices, differ), its value x 1000 against the exact one's
    rounded half up (p_differ), and the flash the vectors take (each variant's, identical
    ones once, with the 4 bytes of a directory's pointer to them)."""
    from shutbox.engine import Engine, Rules
    from shutbox.payout import best
    from shutbox_host.solve import tablegen

    keys = tablegen.offered_hints(tiles) if keys is None else keys
    out = {"situations": 0, "choices": 0, "differ": 0, "p_differ": 0, "variants": len(keys)}
    stored: dict = {}
    for key in keys:
        var = solver.Variant(tiles, *key)
        matches: dict = {}
        vec = tablegen.match_vectors(var, matches)
        stored[tablegen.match_vector_bytes(var, matches)] = 1
        eng = Engine(Rules(tiles, *key))
        for (tie, wins), (_last, rows) in zip(tablegen.VEC_SETS, vec, strict=True):
            for n in range(2, M.MAX_PLAYERS + 1):
                m = matches.get((n, tie, int(wins))) or M.Match(var, M.MatchRules(n, tie, wins))
                sol = solver._Solved(var, "payout", payout=m.payout(()))
                assert best(eng, rows[tablegen.vec_row(n - 1, 1)])
                got = _box_choices(var, eng)
                want = _choices(var, sol)
                out["situations"] += 1
                out["choices"] += len(want)
                out["differ"] += sum(g != w for g, w in zip(got, want, strict=True))
                out["p_differ"] += sum(
                    eng.p_beat(s, lk == 1) != _half_up(sol.payout_of(sol.K[lk][s]))
                    for lk in range(var.locked_layers) for s in range(1 << tiles))
    out["vector_bytes"] = sum(len(b) for b in stored) + 4 * len(keys)
    return out


def _half_up(v) -> int:
    v = v * 1000
    return (2 * v.numerator + v.denominator) // (2 * v.denominator)


def _box_choices(var, eng) -> list:
    """Every choice of the engine's target play (after shutbox.payout.best), in _choices'
    order: its one-die choice where the rules give one, then its move for each throw (a
    shut box throws nothing: no dice, as the solver's flags say)."""
    throws = [(a, b) for a in range(1, 7) for b in range(7) if b == 0 or b >= a]
    out = []
    for lk in range(var.locked_layers):
        for s in range(1 << var.tiles):
            if solver.one_die_allowed(s, var.tiles, var.one_die):
                out.append(int(eng.choose_one_die_target(s, lk == 1)) if s else 0)
            out += [eng.best_move_target(s, a, b, lk == 1) for a, b in throws]
    return out
