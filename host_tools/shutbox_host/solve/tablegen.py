# `shutbox tables`: writes the firmware's generated move table, optimal-play and hint packs.
"""Generate firmware/shutbox/tables/moves.bin, nN.bin and tN.bin (solver).

tables/moves.bin: the candidate moves, uint16 little-endian words (the engine reads its
rule's block straight into its array with seek + readinto: no module, no temporary copy):
  words 0..4  the word offset of each `moves` rule's block, then the end of the last block
  block       49 start words, then 49 end words, indexed by throw code a * 7 + b (b == 0:
              one die): the code's candidates are words start..end-1 of the block (offsets
              within the block); then the candidate move masks of every throw, best greedy
              move first. Throws with the same list (for `any`, the same total) share them.
The engine keeps the block of its rule as one array('H').

tables/nN.bin, one pack per tile count N, little-endian:
  header     b"STB1", tiles u8, variant count u8, 2 reserved bytes
  directory  per variant 16 bytes: one_die u8, one_die_mode u8, moves u8, scoring u8,
             layers u8, ewidth u8, 2 reserved, then per layer the offset (u32) of its block
  blocks     per layer (locked flag 0, and 1 in the locked mode): 2**N uint16 entries
             indexed by open mask, then 2**N expected values of ewidth bytes each.
             entry bits 0-13: dense rank of the exact expected final score among the
             layer's states (equal values share a rank, lower is better); bit 15: throwing
             one die is strictly better than two here (the optimal one-die choice).
             expected: the exact expected final score x 1000, rounded half up.
             Identical blocks are stored once and shared by several directory entries.
`start` changes only where a turn begins, not the value of a state: it has no table. A
variant with one-die `never` is stored once, under mode `optional`; `layers` is 2 only for
the locked mode (the second layer: one die already chosen).

tables/tN.bin, the beat-target hint pack for N tiles (only t9.bin: `any` moves, sum and
count scoring, every one-die rule and mode), little-endian:
  header     b"STH1", tiles u8, variant count u8, 2 reserved bytes
  directory  per variant 12 bytes: one_die u8, one_die_mode u8, moves u8, scoring u8,
             layers u8, targets u8 (the highest score: targets T = 1..targets are stored),
             situations u8 (the match situations' rows after the targets'), flags u8 (bit 0:
             the later-seat rows follow them; bit 1: then the vectors' offset), offset (u32)
             of the variant's index
  index      per target T = 1..targets, then per match situation, per layer 4 bytes: the
             block's offset / 2 (u16: blocks start at even offsets below 128 KB), then u16
             cut << 10 | count (the block holds the `count` states whose tile sum is at
             least `cut`; 0xFFFF: no block, the box keeps its other play); padded to an
             even length
  blocks     for the `count` open masks whose tile sum is at least `cut`, in mask order,
             one uint16 entry each:
             bits 0-9: the chance to win x 1000 under optimal beat-target play, a final
             score below T a win and one equal to T half a win (a tie, as ties shared or
             rolled off between two players are worth), P(score < T) + P(score = T) / 2,
             rounded half up (1023 is never stored: the engine marks the states left out
             with it);
             bits 10-14: dense rank of the exact key (-P, E) among the stored states of the
             same layer with the same tile sum (lower is better; E is the expected final
             score of that play), so rounding P never decides a move;
             bit 15: throwing one die is strictly better than two (the beat-target choice).
             Identical blocks are stored once.
  situations the match-optimal blocks (one round for the win), indexed after the targets'
             rows, per situation k = 0..situations-1 and layer an index entry as above:
             k = 0 (MATCH_SHUT), every variant: any later seat after a shut box (shut-wins
             off), the target 0 of the rows above (only a shut box ties: half a win, the
             best chance of one, the match's play in every seat and under every tie rule);
             k = 1 + (players - 2) * 4 + replay * 2 + shut_wins, only the MATCH_KEYS
             variants (situations 13, the others 1), the start all open: seat 1 of 2, 3 or
             4 players (replay: the tie rule `replay`, solved for 2 players only, no block
             for 3 and 4; share and roll-off are worth the same). The seat-1 blocks are the
             hint blocks' kind, with P the seat's value of the match (its chance to win, a
             tie worth as the tie rule makes it) x 1000 and the rank of the match solver's
             key (shutbox_host.solve.match); a state is left out where the value is 1 and
             min-expected play is the same (the cut, as above). Seat 2 of 2 needs no block
             of its own: under ties shared or rolled off its match play is the target rows'
             (a tie half a win).
  later      the MATCH_KEYS variants (one layer), after their situations' rows: the offset (u32)
             of the variant's patches' area, then a u16 row per later-seat situation of 3
             and 4 players under ties shared or rolled off, row ((players - 3) * 2 +
             shut_wins) * 6 + slot) * (targets + 1) + S, S the best score so far (1..targets;
             0 unused: MATCH_SHUT), slot (seat - 1) * (seat - 2) / 2 + holders - 1 (seat
             2..4; holders: the seats sharing S): the offset of its list in the area, 0 for
             none (beat-target S, a tie half, is already the match's play there).
  vectors at (flag bit 1, every variant of tables/t9.bin) a
             variant's index rows (and later rows) are followed by the offset (u32) of its
             match vectors (see VEC_SLOTS below; identical ones stored once, after the area),
             from which shutbox.payout computes the match's play of every seat (every
             variant, every tie rule) where the pack has no block or patch for it.
  area       (after the blocks) each distinct tile sum's patch once: the sum d (u8), then for
             each state of tile sum d in mask order a byte, bits 0-4 the dense rank of the
             match solver's key among those states, bit 5 one die (the seat's match play);
             then each distinct list once: a count (u8), then the offset (u16, in the area) of
             each of its sums' patches. The box loads target S's block, then overwrites the
             listed sums' states' rank and one-die bits (P kept: the chance to beat S; 1000
             for a state the block left out). A later seat's match play weighs the seats
             still to play (shutbox_host.solve.match), so it differs from beat-target S in
             some tile sums; re-ranking a whole tile sum makes every choice among its states
             the match's, and only the sums where some choice (a throw's move from some state
             into the sum, or a one-die choice at one of its states) differs are listed.
Why this is enough: with `any` moves every candidate of a throw shuts tiles adding up to
the throw, so the states a choice compares all have the same tile sum, and ranks within a
tile sum order them. `cut` is chosen so that every state left out (a lower tile sum) is
trivial: P == 1, E equals the min-expected value and the one-die choice is the same, so
there the min-expected table (nN.bin) gives the same decisions. The engine reads a block
into the tail of a buffer indexed by open mask and spreads it out in place, marking the
states left out. A target above the highest score is beaten always and a target <= 0
never: min-expected play again, with no block.
"""

from __future__ import annotations

import struct
import sys
import time
from fractions import Fraction
from itertools import product
from pathlib import Path

from shutbox import variants as V
from shutbox_host.errors import UserError
from shutbox_host.solve import match, solver

ROOT = Path(__file__).resolve().parents[3]
FIRMWARE = ROOT / "firmware" / "shutbox"
TABLES = FIRMWARE / "tables"
MOVETAB = TABLES / "moves.bin"
MAGIC = b"STB1"
HEADER = struct.Struct("<4sBBH")
ENTRY = struct.Struct("<BBBBBBHII")  # key, layers, ewidth, reserved, layer offsets
ONE_DIE_FLAG = 0x8000
RANK_MASK = 0x3FFF


def throw_codes():
    """Every throw (a, b) with its code a * 7 + b, b == 0 meaning one die."""
    for a in range(1, 7):
        for b in range(0, 7):
            yield a, b, a * 7 + b


def movetab_block(moves: int) -> list[int]:
    """The words of one moves rule's block: 49 starts, 49 ends, then the candidate masks."""
    bounds = [0] * 98
    masks: list[int] = []
    slices: dict[tuple, int] = {}
    for a, b, code in throw_codes():
        cands = tuple(solver.candidate_masks(moves, a, b))
        if cands not in slices:
            slices[cands] = 98 + len(masks)
            masks.extend(cands)
        bounds[code] = slices[cands]
        bounds[49 + code] = slices[cands] + len(cands)
    return bounds + masks


def movetab_words() -> list[int]:
    """Every word of moves.bin: the block offsets, then one block per moves rule."""
    blocks = [movetab_block(moves) for moves in range(len(V.MOVES))]
    offsets = [len(blocks) + 1]
    for block in blocks:
        offsets.append(offsets[-1] + len(block))
    words = offsets + [w for block in blocks for w in block]
    assert max(words) < 1 << 16
    return words


def max_moves() -> int:
    """Most candidates any throw has under any rule (an upper bound on legal moves)."""
    return max(len(solver.candidate_masks(m, a, b))
               for m in range(len(V.MOVES)) for a, b, _ in throw_codes())


def movetab_bytes() -> bytes:
    """The content of firmware/shutbox/tables/moves.bin."""
    return b"".join(struct.pack("<H", w) for w in movetab_words())


# ----- the optimal-play table packs -----

# The variants the box offers, per tile count. Nine tiles: every combination (4 one-die
# rules x 3 modes x 4 moves x 3 scorings; `never` needs no mode: 120 tables). Ten tiles:
# `any` moves with every one-die rule, mode and scoring. Twelve tiles: `any` moves with every
# one-die rule and mode, sum and count scoring; digital is left out there because its
# expectations need 7 bytes a state (216 KB more flash for a score read as a 15-digit
# number). Anything else (other tile counts, other moves on 10/12) plays without a table:
# best_move falls back to greedy.
PACK_TILES = (9, 10, 12)


def offered(tiles: int):
    """The (one_die, one_die_mode, moves, scoring) keys of the pack for *tiles*."""
    if tiles == 9:
        moves_rules, scorings = range(len(V.MOVES)), range(len(V.SCORING))
    elif tiles == 10:
        moves_rules, scorings = (V.MOVES_ANY,), range(len(V.SCORING))
    elif tiles == 12:
        moves_rules, scorings = (V.MOVES_ANY,), (V.SCORING_SUM, V.SCORING_COUNT)
    else:
        return []
    keys = []
    for moves, scoring, one_die in product(moves_rules, scorings, range(len(V.ONE_DIE))):
        modes = (V.MODE_OPTIONAL,) if one_die == V.ONE_DIE_NEVER else range(len(V.ONE_DIE_MODE))
        for mode in modes:
            keys.append((one_die, mode, moves, scoring))
    return keys


def layer_blocks(var: solver.Variant):
    """Return [(ranks bytes, exp1000 list)] per locked layer of one variant."""
    values = solver.solve_values(var)
    size = 1 << var.tiles
    scale = values.scale
    out = []
    for lk in range(var.locked_layers):
        keys = values.keys[lk]
        rank_of = {g: i for i, g in enumerate(sorted(set(keys)))}
        assert len(rank_of) <= RANK_MASK + 1
        ranks = bytearray()
        for s in range(size):
            r = rank_of[keys[s]]
            if values.one_die_best[lk][s]:
                r |= ONE_DIE_FLAG
            ranks += struct.pack("<H", r)
        exp1000 = [(2 * 1000 * g + scale) // (2 * scale) for g in keys]
        out.append((bytes(ranks), exp1000))
    return out


def pack_bytes(tiles: int, timings: dict | None = None, sizes: dict | None = None) -> bytes:
    """The table pack for *tiles*: header, directory and the variants' layer blocks.

    Identical layer blocks are stored once (e.g. the locked mode's second layer is the
    forced mode's table, and some one-die rules give equal tables). *sizes* receives the
    bytes each variant loads (its table_bytes on the box).
    """
    keys = offered(tiles)
    solved = []
    for key in keys:
        var = solver.Variant(tiles, *key)
        t0 = time.perf_counter()
        solved.append(layer_blocks(var))
        if timings is not None:
            timings[var.label()] = time.perf_counter() - t0
    # one expected-value width per moves rule and scoring (equal tables, which only one-die
    # rules and modes share, give equal bytes), each as narrow as its values allow (digital
    # scoring needs 4 bytes with `any` moves, 5 with another rule)
    ewidth = {}
    for key, layers in zip(keys, solved, strict=True):
        need = max(max(e).bit_length() for _, e in layers)
        ewidth[key[2:]] = max(ewidth.get(key[2:], 1), (need + 7) // 8)
    offset = HEADER.size + ENTRY.size * len(keys)
    blocks: dict[bytes, int] = {}
    head = [HEADER.pack(MAGIC, tiles, len(keys), 0)]
    for key, layers in zip(keys, solved, strict=True):
        ew = ewidth[key[2:]]
        offs = [0, 0]
        for lk, (ranks, exp1000) in enumerate(layers):
            block = ranks + b"".join(e.to_bytes(ew, "little") for e in exp1000)
            if block not in blocks:
                blocks[block] = offset
                offset += len(block)
            offs[lk] = blocks[block]
        head.append(ENTRY.pack(*key, len(layers), ew, 0, offs[0], offs[1]))
        if sizes is not None:
            var = solver.Variant(tiles, *key)
            sizes[var.label()] = len(layers) * (2 + ew) << tiles
    return b"".join(head) + b"".join(blocks)


# ----- the beat-target hint packs -----

HINT_MAGIC = b"STH1"
HINT_ENTRY = struct.Struct("<BBBBBBBBI")  # key, layers, targets, situations, 0, index offset
HINT_INDEX = struct.Struct("<HH")  # block offset >> HINT_ALIGN, cut << 10 | state count
HINT_ALIGN = 1  # the blocks start at even offsets: the index reaches 128 KB
HINT_CUT_SHIFT = 10
HINT_NO_BLOCK = 0xFFFF  # an index row's second word: no block
HINT_TILES = (9,)
HINT_SCALE = 1000  # P(final score < T) is stored x 1000
HINT_P_MASK = 0x3FF
HINT_RANK_SHIFT = 10
HINT_RANK_MAX = 31
HINT_LATER = 1  # a directory entry's flags (byte 7): the later-seat rows follow its index
HINT_VECTORS = 2  # ... then the offset of its match vectors (shutbox.payout)


def offered_hints(tiles: int):
    """The (one_die, one_die_mode, moves, scoring) keys with beat-target hints for *tiles*.

    Nine tiles, `any` moves, sum and count scoring, every one-die rule and mode: 20 variants
    (see the README for the flash this costs). Digital scoring has too many targets; other
    moves rules break the equal-tile-sum property the compact blocks rely on.
    """
    if tiles not in HINT_TILES:
        return []
    keys = []
    for scoring, one_die in product((V.SCORING_SUM, V.SCORING_COUNT), range(len(V.ONE_DIE))):
        modes = (V.MODE_OPTIONAL,) if one_die == V.ONE_DIE_NEVER else range(len(V.ONE_DIE_MODE))
        for mode in modes:
            keys.append((one_die, mode, V.MOVES_ANY, scoring))
    return keys


def hint_blocks(var: solver.Variant, target: int, minexp: solver.Values,
                tv: solver.TargetValues | None = None) -> list[tuple[int, bytes]]:
    """(cut, block) of each locked layer of *var* for *target*, a tie counted half (see the
    module docstring); *tv*: its solve_target_values, when solved already."""
    tv = solver.solve_target_values(var, target, "half") if tv is None else tv
    scale = tv.pscale
    assert tv.scale == minexp.scale
    order = range(1 << var.tiles)
    sums = [solver.tile_sum(s) for s in order]
    out = []
    for lk in range(var.locked_layers):
        p, e, k, flag = tv.p[lk], tv.e[lk], tv.keys[lk], tv.one_die_best[lk]
        g, gflag = minexp.keys[lk], minexp.one_die_best[lk]
        hard = [sums[s] for s in order if not (p[s] == scale and e[s] == g[s]
                                                and flag[s] == gflag[s])]
        cut = min(hard) if hard else max(sums) + 1
        stored = [s for s in order if sums[s] >= cut]
        by_sum: dict[int, list[int]] = {}
        for s in stored:
            by_sum.setdefault(sums[s], []).append(k[s])
        rank = {}
        for total, keys in by_sum.items():
            dense = {key: i for i, key in enumerate(sorted(set(keys)))}
            assert len(dense) <= HINT_RANK_MAX + 1
            rank[total] = dense
        entries = bytearray()
        for s in stored:
            entry = (2 * HINT_SCALE * p[s] + scale) // (2 * scale)  # rounded half up
            entry |= rank[sums[s]][k[s]] << HINT_RANK_SHIFT
            if flag[s]:
                entry |= ONE_DIE_FLAG
            entries += struct.pack("<H", entry)
        out.append((cut, bytes(entries)))
    return out


# The variants with seat-1 match blocks: the box's default (the flash of the others: see
# docs/solver.md's design note). Every variant has MATCH_SHUT.
MATCH_KEYS = ((V.ONE_DIE_HIGH_SHUT, V.MODE_OPTIONAL, V.MOVES_ANY, V.SCORING_SUM),)
# After a shut box (shut-wins off) a later seat can only tie it: the target-0 block (half the
# chance of a shut box), situation 0 of every variant.
MATCH_SHUT = 0
MATCH_SEAT1 = 1  # seat-1 situations: 1 + (players - 2) * 4 + replay * 2 + shut_wins
MATCH_TIE_RULES = ("share", "replay")  # the box's tie ints: share 0, roll-off 1 (as share),
# replay 2
MATCH_SITUATIONS = MATCH_SEAT1 + 12


def payout_blocks(var: solver.Variant, payout: dict,
                  minexp: solver.Values) -> list[tuple[int, bytes]]:
    """(cut, block) of each locked layer for the play that maximises *payout* (a final
    score's value to the seat, Fractions in 0..1), in the hint blocks' format with P the
    value x 1000 (see the module docstring)."""
    sol = solver._Solved(var, "payout", payout=payout)
    sums = [solver.tile_sum(s) for s in range(1 << var.tiles)]
    out = []
    for lk, keys in enumerate(sol.K):
        p = [sol.payout_of(k) for k in keys]
        e = [sol.split(k)[1] for k in keys]
        flag, g, gflag = sol.flags[lk], minexp.keys[lk], minexp.one_die_best[lk]
        assert sol.scale == minexp.scale
        hard = [sums[s] for s in range(len(keys))
                if not (p[s] == 1 and e[s] == g[s] and flag[s] == gflag[s])]
        cut = min(hard) if hard else max(sums) + 1
        stored = [s for s in range(len(keys)) if sums[s] >= cut]
        by_sum: dict[int, set] = {}
        for s in stored:
            by_sum.setdefault(sums[s], set()).add(keys[s])
        rank = {t: {k: i for i, k in enumerate(sorted(ks))} for t, ks in by_sum.items()}
        entries = bytearray()
        for s in stored:
            r = rank[sums[s]][keys[s]]
            assert r <= HINT_RANK_MAX
            v = p[s] * HINT_SCALE
            entry = (2 * v.numerator + v.denominator) // (2 * v.denominator)  # half up
            entry |= r << HINT_RANK_SHIFT
            if flag[s]:
                entry |= ONE_DIE_FLAG
            entries += struct.pack("<H", entry)
        out.append((cut, bytes(entries)))
    return out


def match_payouts(var: solver.Variant, matches: dict | None = None,
                  plays: match.Plays | None = None) -> list[dict | None]:
    """The payout table of every seat-1 match situation of *var* (None: no block), in the
    pack's order from MATCH_SEAT1 (see the module docstring); *matches* receives each
    solved Match under (players, tie, shut_wins); *plays*: the seats' plays, shared by the
    Matches (match.Match's)."""
    out: list[dict | None] = [None] * (MATCH_SITUATIONS - MATCH_SEAT1)
    plays = match.Plays(var) if plays is None else plays
    for players in range(2, match.MAX_PLAYERS + 1):
        for r, tie in enumerate(MATCH_TIE_RULES):
            if tie == "replay" and players != 2:
                continue
            for wins in (0, 1):
                m = match.Match(var, match.MatchRules(players, tie, bool(wins)), plays=plays)
                out[(players - 2) * 4 + r * 2 + wins] = m.payout(())
                if matches is not None:
                    matches[players, tie, wins] = m
    return out


# Later seats of 3 and 4 players (ties shared or rolled off): patches over the target blocks.
# A later seat's match play is a payout of its own (the seats after it weigh in), not the
# beat-target play of the best score so far; its block would be the pack's largest part, so
# the pack stores only where the two differ: the tile sums whose states the box would order
# (or choose the dice at) otherwise, re-ranked. Rows: rule set (players - 3) * 2 + shut_wins,
# then the seat and the holders of the best score (LATER_SLOT), then that score 0..targets.
LATER_PLAYERS = (3, 4)
LATER_SLOTS = 6  # seat 2 (1 holder); seat 3 (1, 2 holders); seat 4 (1, 2, 3 holders)
LATER_AREA = struct.Struct("<I")  # before the rows: the offset of the patches' area
LATER_ROW = struct.Struct("<H")  # a situation's patch list, from the area's start; 0: none
LATER_REF = struct.Struct("<H")  # a patch list's tile sum: its bytes, from the area's start
LATER_FLAG = 0x20  # a patch byte: rank within the tile sum (bits 0-4), one die (bit 5)


def later_slot(seat: int, holders: int) -> int:
    """The row slot of *seat* (2..4) with *holders* seats sharing the best score so far."""
    return (seat - 1) * (seat - 2) // 2 + holders - 1


def later_row(players: int, shut_wins: int, seat: int, holders: int, low: int,
              targets: int) -> int:
    """A later-seat situation's row (shutbox.target computes the same)."""
    return ((((players - 3) * 2 + shut_wins) * LATER_SLOTS + later_slot(seat, holders))
            * (targets + 1) + low)


def _pick_shapes(var: solver.Variant) -> dict:
    """{(layer, tile sum): the distinct lists of states a choice picks among (a throw's legal
    results from one state, in greedy order), as indices into that sum's states in mask
    order}; the layer is the results' (the second in the locked mode after one die)."""
    sums = [solver.tile_sum(s) for s in range(1 << var.tiles)]
    where = {}
    for s in range(1 << var.tiles):
        where[s] = sum(1 for u in range(s) if sums[u] == sums[s])
    one = var.locked_layers - 1  # the layer one die's results are in
    shapes: dict = {}
    for a, b, _code in throw_codes():
        if b and b < a:
            continue
        cands = solver.candidate_masks(var.moves, a, b)
        for s in range(1 << var.tiles):
            got = tuple(where[s ^ m] for m in cands if m & ~s == 0)
            if got:
                shapes.setdefault((0 if b else one, sums[s] - a - b), set()).add(got)
    return shapes


def _first_best(keys: list, shape: tuple) -> int:
    """The index the box picks among *shape*: the lowest key, the first on a tie."""
    return min(shape, key=lambda i: (keys[i], shape.index(i)))


def _dense(keys: list) -> list:
    """Each key's dense rank among *keys*."""
    rank = {k: i for i, k in enumerate(sorted(set(keys)))}
    return [rank[k] for k in keys]


def later_patch(var: solver.Variant, payout: dict, box: dict, shapes: dict) -> tuple:
    """The patch record of a later seat whose match play maximises *payout*, over the
    box's play without it: *box* per tile sum, per layer, the (keys, one-die flags) of its
    states in mask order (the target block's above its cut, min-expected play's below): per
    tile sum where some choice differs in some layer a tile sum's patch, the sum then a byte
    a state in mask order, layer after layer (its rank by the match's key among the sum's
    states of that layer, its one-die bit); () where no choice differs."""
    sol = solver._Solved(var, "payout", payout=payout)
    sums = [solver.tile_sum(s) for s in range(1 << var.tiles)]
    need = []
    for d, layers in box.items():
        for lk, (states, bk, bf) in enumerate(layers):
            mk = [sol.K[lk][s] for s in states]
            if lk == 0 and any(bool(sol.flags[0][s]) != f for s, f, allowed in bf
                               if allowed):
                need.append(d)  # a one-die choice differs (only layer 0 has one)
                break
            if _dense(mk) != _dense(bk) and any(
                    _first_best(bk, sh) != _first_best(mk, sh)
                    for sh in shapes.get((lk, d), ())):
                need.append(d)  # a move differs
                break
    out = []
    for d in need:
        states = [s for s in range(1 << var.tiles) if sums[s] == d]
        data = bytearray([d])
        for lk in range(var.locked_layers):
            dense = {k: i for i, k in enumerate(sorted({sol.K[lk][s] for s in states}))}
            assert len(dense) <= HINT_RANK_MAX + 1
            data += bytes(dense[sol.K[lk][s]] | (LATER_FLAG if sol.flags[lk][s] else 0)
                          for s in states)
        out.append(bytes(data))
    return tuple(out)


def later_records(var: solver.Variant, minexp: solver.Values, matches: dict,
                  solved: dict | None = None) -> list[tuple]:
    """The patches of every later-seat row (later_patch; (): none; see later_row), from the
    solved *matches* {(players, shut_wins): Match}; *solved*: {target: (its
    solve_target_values, its hint_blocks)} where known already."""
    solved = {} if solved is None else solved
    full = (1 << var.tiles) - 1
    targets = solver.score(full, var.scoring)
    rows: list[tuple] = [()] * later_row(LATER_PLAYERS[-1] + 1, 0, 2, 1, 0, targets)
    shapes = _pick_shapes(var)
    sums = [solver.tile_sum(s) for s in range(full + 1)]
    boxes = {}
    for t in range(1, targets + 1):
        if t not in solved:
            tv = solver.solve_target_values(var, t, "half")
            solved[t] = tv, hint_blocks(var, t, minexp, tv)
        tv = solved[t][0]
        cuts = [cut for cut, _block in solved[t][1]]
        boxes[t] = {}
        for d in sorted(set(sums)):
            states = [s for s in range(full + 1) if sums[s] == d]
            layers = []
            for lk, cut in enumerate(cuts):
                play = tv if d >= cut else minexp
                layers.append((states, [play.keys[lk][s] for s in states],
                               [(s, bool(play.one_die_best[lk][s]),
                                 solver.one_die_allowed(s, var.tiles, var.one_die))
                                for s in states]))
            boxes[t][d] = layers
    done: dict = {}
    seen: dict = {}
    for (players, wins), m in matches.items():
        for key in list(m._values):
            if m._over(key) or m._played(key) == 0 or key[1] == 0:
                continue  # seat 1's blocks; after a shut box MATCH_SHUT is the match's play
            low = key[1]
            pay = m._payout(key)
            pk = (low, tuple(pay[y] for y in m.finals))
            if pk not in done:
                done[pk] = later_patch(var, pay, boxes[low], shapes)
            r = later_row(players, wins, m._played(key) + 1, len(key[2]), low, targets)
            assert r not in seen or seen[r] == pk  # the holders alike: one payout
            seen[r] = pk
            rows[r] = done[pk]
    return rows


# Every other variant's match play is computed on the box (shutbox.payout: the payout
# objective's pass in small ints) from the payout of each final score, which a seat's
# situation gives from a few vectors: a seat that ends below the best score so far holds it
# alone, one that ends on it joins its h - 1 holders, one above it has lost; what holding it
# is worth depends only on the seats still to play (r) and the holders (h, the seat the last
# of them: replay replays the tied in seat order), the same in a round of any size. So per
# rule set (VEC_SETS: ties shared or rolled off, or replayed; shut-wins off, on) the value of
# holding each score y for each slot (r, h), r + h <= 4, x 2**23 (VEC_SCALE), rounded half up,
# u24 little-endian: first the last seat's (r = 0, h = 1..4), one value each (it is the same
# for every y: a win, or the tie's share), then a row of targets + 1 values (y = 0..targets)
# for each slot with r >= 1 in VEC_SLOTS' order. Seat 1 of n plays slot (n - 1, 1); a later
# seat with r seats after it and h - 1 holders of the best score S: slot (r, 1) below S,
# slot (r, h) at S, 0 above.
VEC_SLOTS = ((1, 1), (1, 2), (1, 3), (2, 1), (2, 2), (3, 1))
VEC_LAST = 4  # the last seat's values: h = 1..4
VEC_SETS = (("share", False), ("share", True), ("replay", False), ("replay", True))
VEC_SCALE = 1 << 23
VEC_AT = struct.Struct("<I")  # after a variant's index and later rows: its vectors' offset


def vec_row(r: int, h: int) -> int:
    """The row of slot (r, h), r >= 1, among a set's (shutbox.payout computes the same)."""
    return r * 4 - r * (r - 1) // 2 + h - 5


def _fixed(v) -> int:
    """*v* (a Fraction 0..1) x VEC_SCALE, rounded half up."""
    v = v * VEC_SCALE
    return (2 * v.numerator + v.denominator) // (2 * v.denominator)


def match_vectors(var: solver.Variant, matches: dict | None = None,
                  plays: match.Plays | None = None) -> list[tuple]:
    """Per rule set (VEC_SETS) the last seat's values (h = 1..4) and the rows of VEC_SLOTS
    (each a value per final score 0..targets), as ints x VEC_SCALE; *matches* caches the
    solved Match of (players, tie, shut_wins), *plays* the seats' plays (match.Match's)."""
    matches = {} if matches is None else matches
    targets = solver.score((1 << var.tiles) - 1, var.scoring)
    # the seats' plays, shared by the variant's matches
    plays = match.Plays(var) if plays is None else plays

    def value(tie, wins, r, h, y):
        # a round of 4 holds every slot: the seat 3 - r, the last of h holders of y
        if r + h < 2:  # the last seat alone below the best score: it wins
            return Fraction(1)
        key = (match.MAX_PLAYERS, tie, int(wins))
        if key not in matches:
            matches[key] = match.Match(var, match.MatchRules(key[0], tie, wins), plays=plays)
        j = key[0] - r  # the seats played, this one the last of them
        return matches[key]._value((j, y, tuple(range(j - h, j))))[j - 1]

    out = []
    for tie, wins in VEC_SETS:
        # the last seat: a tie's worth does not depend on the score (y = 1: never a shut box
        # with shut-wins on, which ends the round)
        last = [_fixed(value(tie, wins, 0, h, 1)) for h in range(1, VEC_LAST + 1)]
        rows = []
        for i, (r, h) in enumerate(VEC_SLOTS):
            assert vec_row(r, h) == i
            rows.append([_fixed(value(tie, wins, r, h, y)) for y in range(targets + 1)])
        out.append((last, rows))
    return out


def match_vector_bytes(var: solver.Variant, matches: dict | None = None,
                       plays: match.Plays | None = None, twins: dict | None = None) -> bytes:
    """match_vectors as the pack stores them (u24 values, set after set).

    *twins*: {an optional variant's key: (its vectors, its match.Plays)}, this variant's
    added when its one die is optional. A locked or forced variant then first has its
    optional twin's (generated into *twins* if missing): where every play of the twin threw
    one die wherever allowed, its vectors are the twin's (match.Plays: its Matches would
    take every play from the twin, so every value is the same; the sum-le-6 and sum-lt-6
    variants of the hint pack); elsewhere its plays take the tables they share with the
    twin's from it. *plays* (with *twins*: the variant's own, its twin set): the seats'
    plays."""
    twin = None
    if twins is not None and var.one_die_mode != V.MODE_OPTIONAL:
        key = match.optional_twin(var).key()
        if key not in twins:
            match_vector_bytes(match.optional_twin(var), twins=twins)
        data, twin = twins[key]
        if twin.every_one:
            return data
    if plays is None:
        plays = match.Plays(var, twin)
    out = bytearray()
    for last, rows in match_vectors(var, matches, plays):
        for w in last + [w for row in rows for w in row]:
            out += w.to_bytes(3, "little")
    if twins is not None and var.one_die_mode == V.MODE_OPTIONAL:
        twins[var.key()] = (bytes(out), plays)
    return bytes(out)


def hint_pack_bytes(tiles: int, sizes: dict | None = None, keys: list | None = None,
                    vectors: bool = True, given: dict | None = None) -> bytes:
    """The beat-target hint pack for *tiles* (*keys*: these variants only, default every one
    offered_hints gives); *sizes* receives each variant's flash bytes (its index, blocks and
    later-seat patches, counting shared ones in full); *vectors*: with every variant's match
    vectors (shutbox.payout reads them where the pack has no block or patch); *given*: the
    match_vector_bytes of some variants {key: bytes}, generated elsewhere (the tests check
    them a variant a test: they are the pack's longest part to generate)."""
    given = {} if given is None else given
    keys = offered_hints(tiles) if keys is None else keys
    full = (1 << tiles) - 1
    per_variant = []  # (key, layers, targets, [[block per layer] per target], later records)
    vecs = []  # each variant's match vectors (match_vector_bytes), with *vectors*
    twins: dict = {}  # the optional variants' vectors and plays (match_vector_bytes)
    for key in keys:
        var = solver.Variant(tiles, *key)
        minexp = solver.solve_values(var)
        targets = solver.score(full, key[3])
        assert 0 < targets < 256
        # the target values solved once for the blocks and the later-seat patches
        tvs = {t: solver.solve_target_values(var, t, "half") for t in range(targets + 1)}
        rows = [hint_blocks(var, t, minexp, tvs[t]) for t in range(1, targets + 1)]
        rows.append(hint_blocks(var, 0, minexp, tvs[0]))  # MATCH_SHUT
        later: list[tuple] = []
        solved: dict = {}
        # the seats' plays, shared by the variant's matches (and its optional twin's)
        twin = twins.get(match.optional_twin(var).key()) if key[1] != V.MODE_OPTIONAL else None
        plays = match.Plays(var, None if twin is None else twin[1])
        if key in MATCH_KEYS:
            rows += [None if pay is None else payout_blocks(var, pay, minexp)
                     for pay in match_payouts(var, solved, plays)]
            later = later_records(var, minexp, {(p, w): solved[p, "share", w]
                                                for p in LATER_PLAYERS for w in (0, 1)},
                                  {t: (tvs[t], rows[t - 1]) for t in range(1, targets + 1)})
        del tvs
        if vectors:
            vecs.append(given[key] if key in given
                        else match_vector_bytes(var, solved, plays, twins))
        per_variant.append((key, var.locked_layers, targets, rows, later))
    offset = HEADER.size + HINT_ENTRY.size * len(keys)
    head = [HEADER.pack(HINT_MAGIC, tiles, len(keys), 0)]
    for key, layers, targets, blocks_t, later in per_variant:
        head.append(HINT_ENTRY.pack(*key, layers, targets, len(blocks_t) - targets,
                                    (HINT_LATER if later else 0)
                                    | (HINT_VECTORS if vectors else 0), offset))
        offset += HINT_INDEX.size * layers * len(blocks_t)
        offset += LATER_AREA.size + LATER_ROW.size * len(later) if later else 0
        offset += VEC_AT.size if vectors else 0
    offset += -offset % (1 << HINT_ALIGN)  # the index gives offset >> HINT_ALIGN
    blocks: dict[bytes, int] = {}
    index_bytes = []
    for key, layers, _targets, blocks_t, _later in per_variant:
        used = HINT_INDEX.size * layers * len(blocks_t)
        for layer_blocks_ in blocks_t:
            if layer_blocks_ is None:  # a match situation without a block
                index_bytes += [HINT_INDEX.pack(0, HINT_NO_BLOCK)] * layers
                continue
            for cut, block in layer_blocks_:
                if block not in blocks:
                    blocks[block] = offset
                    offset += len(block) + -len(block) % (1 << HINT_ALIGN)
                used += len(block)
                count = len(block) // 2
                assert blocks[block] < 1 << 16 + HINT_ALIGN and count < 1 << HINT_CUT_SHIFT
                index_bytes.append(HINT_INDEX.pack(blocks[block] >> HINT_ALIGN,
                                                   cut << HINT_CUT_SHIFT | count))
        index_bytes.append(b"")  # the later rows and the vectors' offset: known once the
        # blocks are placed
        if sizes is not None:
            sizes[solver.Variant(tiles, *key).label()] = used
    area = []  # the later seats' patches: each tile sum's once, then each list once
    slots = [i for i, b in enumerate(index_bytes) if b == b""]
    for at, (key, _layers, _targets, _blocks_t, later) in zip(slots, per_variant, strict=True):
        if later:
            index_bytes[at] = later_area(later, offset, area)
            offset += len(area[-1])
            if sizes is not None:
                sizes[solver.Variant(tiles, *key).label()] += len(index_bytes[at] + area[-1])
    placed: dict[bytes, int] = {}  # the vectors, each distinct set once
    for at, (key, *_rest), vec in zip(slots, per_variant, vecs, strict=vectors):
        if vec not in placed:
            placed[vec] = offset
            offset += len(vec)
        index_bytes[at] += VEC_AT.pack(placed[vec])
        if sizes is not None:
            sizes[solver.Variant(tiles, *key).label()] += VEC_AT.size + len(vec)
    head_bytes = b"".join(head) + b"".join(index_bytes)
    return (head_bytes + bytes(-len(head_bytes) % (1 << HINT_ALIGN))
            + b"".join(b + bytes(-len(b) % (1 << HINT_ALIGN)) for b in blocks)
            + b"".join(area) + b"".join(placed))


def later_area(later: list[tuple], offset: int, area: list) -> bytes:
    """A variant's later rows (the area's offset, then a row per situation) for its patches
    *later* (later_records), the area placed at *offset* and appended to *area*: each
    distinct tile sum's patch once, then each distinct list (a count, then the offset of
    each of its sums' patches from the area's start) once."""
    data = bytearray()
    sums: dict[bytes, int] = {}
    for rec in later:
        for patch in rec:
            if patch not in sums:
                sums[patch] = len(data)
                data += patch
    lists: dict[tuple, int] = {}
    rows = []
    for rec in later:
        if rec and rec not in lists:
            lists[rec] = len(data)
            data += bytes([len(rec)]) + b"".join(LATER_REF.pack(sums[p]) for p in rec)
        rows.append(LATER_ROW.pack(lists[rec] if rec else 0))
    assert len(data) < 1 << 16 and 0 not in lists.values()
    area.append(bytes(data))
    return LATER_AREA.pack(offset) + b"".join(rows)


def _entries(data: bytes, magic: bytes, entry, what: str):
    """The directory entries of a pack (*entry*: its struct), after checking its magic."""
    m, _tiles, count, _ = HEADER.unpack_from(data, 0)
    if m != magic:
        raise ValueError("not a shutbox " + what)
    for i in range(count):
        yield entry.unpack_from(data, HEADER.size + i * entry.size)


def read_hint_pack(data: bytes, situations: bool = False) -> dict:
    """Parse a hint pack: {key: (layers, targets, [[(offset, count, cut, none)] per layer] per
    target)} (none 1: no block); *situations*: the match situations' rows follow the
    targets'."""
    out = {}
    for f in _entries(data, HINT_MAGIC, HINT_ENTRY, "hint pack"):
        layers, targets, at = f[4], f[5], f[8]
        index = []
        for _t in range(targets + (f[6] if situations else 0)):
            row = []
            for _lk in range(layers):
                half, word = HINT_INDEX.unpack_from(data, at)
                at += HINT_INDEX.size
                if word == HINT_NO_BLOCK:
                    row.append((0, 0, 0, 1))
                else:
                    row.append((half << HINT_ALIGN, word & (1 << HINT_CUT_SHIFT) - 1,
                                word >> HINT_CUT_SHIFT, 0))
            index.append(row)
        out[f[:4]] = (layers, targets, index)
    return out


def read_later(data: bytes) -> dict:
    """The later-seat patches of a hint pack: {key: ([each row's list offset, 0: none],
    {list offset: its bytes}, {tile sum patch offset: its bytes})} (offsets in the file) for
    the variants that have them."""
    out = {}
    tiles = data[4]
    count = {}
    for st in range(1 << tiles):
        count[solver.tile_sum(st)] = count.get(solver.tile_sum(st), 0) + 1
    for f in _entries(data, HINT_MAGIC, HINT_ENTRY, "hint pack"):
        if not f[7] & HINT_LATER:
            continue
        targets = f[5]
        at = f[8] + (targets + f[6]) * f[4] * HINT_INDEX.size
        area = LATER_AREA.unpack_from(data, at)[0]
        at += LATER_AREA.size
        rows = [LATER_ROW.unpack_from(data, at + LATER_ROW.size * r)[0]
                for r in range(later_row(LATER_PLAYERS[-1] + 1, 0, 2, 1, 0, targets))]
        lists, sums = {}, {}
        for off in set(rows) - {0}:
            n = data[area + off]
            lists[area + off] = 1 + LATER_REF.size * n
            for i in range(n):
                p = area + LATER_REF.unpack_from(data, area + off + 1 + LATER_REF.size * i)[0]
                sums[p] = 1 + count[data[p]]
        out[f[:4]] = ([area + o if o else 0 for o in rows], lists, sums)
    return out


def read_vectors(data: bytes) -> dict:
    """The match vectors of a hint pack: {key: (their offset, their bytes)}."""
    out = {}
    for f in _entries(data, HINT_MAGIC, HINT_ENTRY, "hint pack"):
        if not f[7] & HINT_VECTORS:
            continue
        targets = f[5]
        at = f[8] + (targets + f[6]) * f[4] * HINT_INDEX.size
        if f[7] & HINT_LATER:
            at += LATER_AREA.size + LATER_ROW.size * later_row(LATER_PLAYERS[-1] + 1, 0, 2, 1,
                                                               0, targets)
        size = len(VEC_SETS) * 3 * (VEC_LAST + len(VEC_SLOTS) * (targets + 1))
        out[f[:4]] = (VEC_AT.unpack_from(data, at)[0], size)
    return out


def read_vector_values(data: bytes, key: tuple) -> list[tuple]:
    """The match vectors of variant *key* read back (match_vectors' shape)."""
    f = next(e for e in _entries(data, HINT_MAGIC, HINT_ENTRY, "hint pack") if e[:4] == key)
    at, _size = read_vectors(data)[key]
    targets = f[5]

    def word(i):
        return int.from_bytes(data[at + 3 * i:at + 3 * i + 3], "little")

    out, i = [], 0
    for _set in VEC_SETS:
        last = [word(i + h) for h in range(VEC_LAST)]
        i += VEC_LAST
        rows = []
        for _slot in VEC_SLOTS:
            rows.append([word(i + y) for y in range(targets + 1)])
            i += targets + 1
        out.append((last, rows))
    return out


def read_directory(data: bytes) -> dict:
    """Parse a pack: {(one_die, mode, moves, scoring): (layers, ewidth, off0, off1)}."""
    out = {}
    for f in _entries(data, MAGIC, ENTRY, "table pack"):
        out[f[:4]] = (f[4], f[5], f[7], f[8])
    return out


def read_vector_bytes(data: bytes) -> dict:
    """The match vectors of a hint pack as stored: {key: their bytes} (match_vector_bytes')."""
    return {key: data[at:at + size] for key, (at, size) in read_vectors(data).items()}


def paths() -> list[Path]:
    """Every generated file, in generate()'s order."""
    return ([MOVETAB] + [TABLES / ("n%d.bin" % tiles) for tiles in PACK_TILES]
            + [TABLES / ("t%d.bin" % tiles) for tiles in HINT_TILES])


def generate_one(path: Path, timings: dict | None = None, vectors: dict | None = None) -> bytes:
    """The content of the generated file *path* (one of paths()); *vectors*: a hint pack's
    match vectors generated elsewhere (hint_pack_bytes' *given*)."""
    if path == MOVETAB:
        return movetab_bytes()
    tiles = int(path.stem[1:])
    if path.name.startswith("n"):
        return pack_bytes(tiles, timings)
    t0 = time.perf_counter()
    data = hint_pack_bytes(tiles) if vectors is None else hint_pack_bytes(tiles, given=vectors)
    if timings is not None:
        timings["hints %d" % tiles] = time.perf_counter() - t0
    return data


def generate(timings: dict | None = None) -> dict[Path, bytes]:
    """Every generated file, path -> content."""
    return {path: generate_one(path, timings) for path in paths()}


def stale(files: dict[Path, bytes]) -> list[Path]:
    """The generated files whose committed content differs from *files*."""
    return [p for p, data in files.items() if not p.exists() or p.read_bytes() != data]


def configure(parser):
    """Add the tables flags."""
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if the committed files differ from a fresh generation")


def run(args):
    """Write (or check) the generated files."""
    t0 = time.perf_counter()
    files = generate()
    took = time.perf_counter() - t0
    if args.check:
        bad = stale(files)
        for p in bad:
            print("stale: %s (run `shutbox tables`)" % p.relative_to(ROOT), file=sys.stderr)
        if not bad:
            print("tables: up to date (%d files, generated again in %.1f s)" % (len(files), took))
        return 1 if bad else 0
    if not FIRMWARE.is_dir():
        raise UserError("firmware folder not found: %s" % FIRMWARE)
    TABLES.mkdir(parents=True, exist_ok=True)
    for p, data in files.items():
        if not p.exists() or p.read_bytes() != data:
            p.write_bytes(data)
        print("%-40s %7d bytes" % (p.relative_to(ROOT), len(data)))
    print("generated in %.1f s" % took)
    return 0
