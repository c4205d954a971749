# The generated tables: committed = fresh generation, and the engine's table play is optimal.
"""Table tests: the committed tables against a fresh generation (hint pack included, a file
a test) and `shutbox tables --check`, the pack directory, and
best_move / expected / choose_one_die read from the packs against the exact solver. The hint
pack's contents are checked in test_hints.py."""

from __future__ import annotations

import random
from array import array
from fractions import Fraction

import pytest

from shutbox import variants as V
from shutbox.engine import MAX_MOVES, Engine, Rules
from shutbox_host import cli
from shutbox_host.solve import engine_extra, solver, tablegen

HALF = Fraction(1, 2)
THROWS = [(a, b) for a in range(1, 7) for b in range(0, 7)]


@pytest.mark.parametrize("path", tablegen.paths(), ids=lambda p: p.name)
def test_committed_tables_equal_a_fresh_generation(path):
    """Each committed file equals a fresh generation (what `shutbox tables --check` compares),
    a file a test: the move table, the optimal-play packs and the hint pack t9.bin. t9.bin's
    match vectors, the longest part to generate, are taken here from the committed file and
    generated afresh in the next test, a variant a test (so the two test every byte)."""
    data = path.read_bytes()
    vectors = tablegen.read_vector_bytes(data) if path.name.startswith("t") else None
    assert tablegen.generate_one(path, vectors=vectors) == data


@pytest.fixture(scope="module")
def twins():
    """The optional variants' match vectors and plays, as `shutbox tables` keeps them for
    their locked and forced twins (match_vector_bytes' *twins*)."""
    return {}


@pytest.mark.parametrize("key", tablegen.offered_hints(9),
                         ids=lambda key: solver.Variant(9, *key).label())
def test_committed_match_vectors_equal_a_fresh_generation(key, twins):
    """Each variant's match vectors in the committed t9.bin equal a fresh generation (as
    `shutbox tables` makes it: a locked or forced variant after its optional twin, which the
    next test checks against a generation of its own)."""
    stored = tablegen.read_vector_bytes((tablegen.TABLES / "t9.bin").read_bytes())
    assert stored[key] == tablegen.match_vector_bytes(solver.Variant(9, *key), twins=twins)


def test_the_hint_pack_takes_a_locked_or_forced_variant_s_vectors_from_its_twin(monkeypatch):
    """hint_pack_bytes (what `shutbox tables` writes) on a 4-tile box, every variant of the
    hint pack: each variant's vectors are what match_vector_bytes gives it alone; where every
    play of the optional twin threw one die wherever allowed (sum-le-6 and sum-lt-6 here, as
    at 9 tiles) the locked and forced variants solve no seat play (the old code solved every
    variant's Matches anew, which this fails on), high-shut's solve theirs."""
    solves: dict = {}
    real = solver._Solved

    def counted(var, objective, *args, payout=None, **kw):
        if payout is not None:
            solves[var.key()[1:3]] = solves.get(var.key()[1:3], 0) + 1
        return real(var, objective, *args, payout=payout, **kw)

    monkeypatch.setattr(solver, "_Solved", counted)
    keys = tablegen.offered_hints(9)
    vectors = tablegen.read_vector_bytes(tablegen.hint_pack_bytes(4, keys=keys))
    for one_die, mode in {key[:2] for key in keys}:
        if one_die in (V.ONE_DIE_SUM_LE_6, V.ONE_DIE_SUM_LT_6) and mode != V.MODE_OPTIONAL:
            assert (one_die, mode) not in solves
        else:
            assert solves[one_die, mode] > 0
    monkeypatch.setattr(solver, "_Solved", real)
    for key in keys:  # an optional variant's are made alone there too
        if key[1] != V.MODE_OPTIONAL:
            assert vectors[key] == tablegen.match_vector_bytes(solver.Variant(4, *key)), key


def test_check_says_up_to_date_or_names_each_stale_file(monkeypatch, capsys):
    """`shutbox tables --check` over what generate() gives (the tests above check that it is
    the committed files): one line when every file is the same, else each stale one and
    exit 1."""
    fresh = {path: path.read_bytes() for path in tablegen.paths()}
    monkeypatch.setattr(tablegen, "generate", lambda: dict(fresh))
    assert cli.main(["tables", "--check"]) == 0, capsys.readouterr().err
    out = capsys.readouterr().out  # it says so, not nothing
    assert out.startswith("tables: up to date (5 files, ") and len(out.splitlines()) == 1, out
    fresh[tablegen.MOVETAB] += b"x"
    assert cli.main(["tables", "--check"]) == 1
    err = capsys.readouterr().err
    assert err == "stale: firmware/shutbox/tables/moves.bin (run `shutbox tables`)\n", err


def test_generation_includes_the_hint_pack(monkeypatch):
    """generate() (what `--check` compares) writes t9.bin beside the optimal-play packs, each
    of paths() (what the tests compare a file a test) by generate_one."""
    monkeypatch.setattr(tablegen, "pack_bytes", lambda tiles, timings=None: b"n%d" % tiles)
    monkeypatch.setattr(tablegen, "hint_pack_bytes", lambda tiles: b"t%d" % tiles)
    files = tablegen.generate()
    assert list(files) == tablegen.paths() and len(files) == 5
    assert all(files[p] == tablegen.generate_one(p) for p in files)
    assert files[tablegen.TABLES / "t9.bin"] == b"t9"
    assert files[tablegen.TABLES / "n9.bin"] == b"n9" and tablegen.MOVETAB in files


def test_check_reports_a_stale_file(tmp_path):
    p = tmp_path / "movetab.py"
    p.write_bytes(b"old")
    assert tablegen.stale({p: b"new"}) == [p]
    assert tablegen.stale({p: b"old"}) == []
    assert tablegen.stale({tmp_path / "missing.bin": b"x"}) == [tmp_path / "missing.bin"]


def test_movetab_is_deterministic():
    assert tablegen.movetab_bytes() == tablegen.movetab_bytes()
    assert tablegen.max_moves() == MAX_MOVES == 15  # 12 = 15 ways with distinct tiles


def test_every_offered_variant_has_a_table():
    for tiles in tablegen.PACK_TILES:
        data = (tablegen.TABLES / ("n%d.bin" % tiles)).read_bytes()
        directory = tablegen.read_directory(data)
        assert sorted(directory) == sorted(tablegen.offered(tiles))
        for layers, ewidth, off0, off1 in directory.values():
            block = (2 + ewidth) << tiles
            assert off0 + block <= len(data) and (layers == 1 or off1 + block <= len(data))
    # nine tiles: every combination, modes included (never ignores the mode)
    for one_die in range(len(V.ONE_DIE)):
        for mode in range(len(V.ONE_DIE_MODE)):
            for moves in range(len(V.MOVES)):
                for scoring in range(len(V.SCORING)):
                    eng = Engine(Rules(9, one_die, mode, moves, scoring))
                    assert eng.has_table and engine_extra.table_bytes(eng) > 0


def test_expected_values_are_stored_as_narrow_as_their_moves_rule_and_scoring_allow():
    """Each variant's expected values x 1000 take the fewest bytes that hold the largest of
    its moves rule and scoring (digital scoring with `any` moves: 4 bytes, with `kids` 5; a
    width per scoring alone gave every digital variant 5, which this fails on)."""
    for tiles in tablegen.PACK_TILES:
        directory = tablegen.read_directory((tablegen.TABLES / ("n%d.bin" % tiles)).read_bytes())
        most: dict = {}
        for key in directory:
            var = solver.Variant(tiles, *key)
            top = max(max(e) for _ranks, e in tablegen.layer_blocks(var))
            most[key[2:]] = max(most.get(key[2:], 0), top)
        for key, (_layers, ewidth, _o0, _o1) in directory.items():
            assert ewidth == max(1, (most[key[2:]].bit_length() + 7) // 8), (tiles, key)
        if tiles == 9:
            digital = {k[2]: w for k, (_l, w, _a, _b) in directory.items()
                       if k[3] == V.SCORING_DIGITAL}
            assert (digital[V.MOVES_ANY], digital[V.MOVES.index("dice-or-total")]) == (4, 5)


def test_the_match_vectors_read_back_as_generated():
    """A pack with the match vectors (shutbox.payout's; tables/t9.bin holds every variant's
    of the pack) holds each variant's as match_vectors gives them, after its index rows
    (after the default variant's later rows: test_payout_play reads them there), and their
    values are the match solver's: the last seat's share of a tie, and a seat's value holding
    a score."""
    hints = tablegen.offered_hints(9)
    key = hints[10]  # never/optional/any/count
    data = tablegen.hint_pack_bytes(9, keys=[key], vectors=True)
    assert len(tablegen.read_vectors(data)) == 1
    got = tablegen.read_vector_values(data, key)
    assert got == tablegen.match_vectors(solver.Variant(9, *key))
    t9 = (tablegen.TABLES / "t9.bin").read_bytes()
    assert sorted(tablegen.read_vectors(t9)) == sorted(hints)
    assert tablegen.read_vector_values(t9, key) == got
    share = got[0]  # ties shared, shut-wins off
    assert share[0] == [tablegen.VEC_SCALE, *(round(tablegen.VEC_SCALE / h) for h in (2, 3, 4))]
    assert share[1][tablegen.vec_row(1, 1)][9] == 0  # ending on 9 of 9 open: seat 2 beats it


def test_the_hint_pack_is_its_index_and_distinct_blocks_only():
    """tables/t9.bin holds its header and directory, four bytes an index row, each distinct
    block once (padded to a multiple of four bytes), each distinct later-seat patch once and
    each distinct set of match vectors once: no byte read by no row (bench.engine.hint_parts)."""
    from shutbox_host.bench import engine as bench

    parts = bench.hint_parts()
    assert parts["pad"] == 0 and parts["bytes"] == (
        parts["head"] + parts["index"] + parts["align"] + parts["blocks"]
        + parts["later_records"] + parts["vectors"])
    assert parts["align"] < 4 * (1 + parts["distinct_blocks"])
    pack = tablegen.read_hint_pack((tablegen.TABLES / "t9.bin").read_bytes(), True)
    rows = sum(layers * len(index) for layers, _t, index in pack.values())
    # the later seats' rows: the default variant's alone, the area's offset and two bytes for
    # each of 4 rule sets x 6 seats and holders x 46 scores to beat; a vectors' entry for
    # every variant of the pack (their values: the test above)
    vec_rows = tablegen.VEC_AT.size * len(pack)
    assert parts["index"] == 4 * rows + parts["later_rows"] + vec_rows
    assert 0 < parts["distinct_vectors"] <= len(pack) and parts["vectors"] > 0
    assert parts["later_rows"] == 4 + 2 * 1104
    assert parts["later_records"] == parts["later_sum_bytes"] + parts["later_list_bytes"]
    assert parts["shut_distinct"] == 8 and parts["shut_rows"] == 4 * sum(
        layers for layers, _t, _i in pack.values())  # MATCH_SHUT: every variant, every layer


@pytest.mark.parametrize("rules", [Rules(tiles=11), Rules(tiles=10, moves=V.MOVES_KIDS),
                                   Rules(tiles=12, scoring=V.SCORING_DIGITAL)])
def test_variants_not_offered_play_greedy(rules):
    eng = Engine(rules)
    assert not eng.has_table
    assert eng.best_move(eng.full, 6, 5) == eng.greedy_move(eng.full, 6, 5)


def check_against_solver(rules: Rules, states):
    """best_move, expected and choose_one_die of the table vs the exact solver."""
    eng = Engine(rules)
    assert eng.has_table
    var = solver.Variant(rules.tiles, rules.one_die, rules.one_die_mode, rules.moves,
                         rules.scoring)
    values = solver.solve_values(var)
    layers = var.locked_layers
    buf = array("H", [0] * MAX_MOVES)
    for s in states:
        for locked in range(layers):
            e = values.expected(s, locked)
            assert eng.expected(s, bool(locked)) == int(e * 1000 + HALF)  # rounded half up
            free = rules.one_die_mode == V.MODE_OPTIONAL or (
                rules.one_die_mode == V.MODE_LOCKED and not locked)
            if free and solver.one_die_allowed(s, var.tiles, var.one_die):
                assert eng.choose_one_die(s, bool(locked)) == values.one_die_best[locked][s]
            for a, b in THROWS:
                nxt = 1 if (layers == 2 and (locked or b == 0)) else 0
                g = values.keys[nxt]
                n = eng.legal_into(s, a, b, buf)
                got = eng.best_move(s, a, b, bool(locked))
                if n == 0:
                    assert got == 0
                    continue
                legal = list(buf[:n])  # greedy order
                best = min(g[s ^ m] for m in legal)
                assert got == next(m for m in legal if g[s ^ m] == best), (s, a, b, locked)


@pytest.mark.parametrize("key", [
    (V.ONE_DIE_NEVER, V.MODE_OPTIONAL, V.MOVES_ANY, V.SCORING_SUM),
    (V.ONE_DIE_HIGH_SHUT, V.MODE_OPTIONAL, V.MOVES_ANY, V.SCORING_SUM),
    (V.ONE_DIE_HIGH_SHUT, V.MODE_LOCKED, V.MOVES_ANY, V.SCORING_DIGITAL),
    (V.ONE_DIE_SUM_LE_6, V.MODE_FORCED, V.MOVES_DICE_OR_TOTAL, V.SCORING_COUNT),
    (V.ONE_DIE_SUM_LT_6, V.MODE_LOCKED, V.MOVES_ONE_TILE, V.SCORING_SUM),
    (V.ONE_DIE_HIGH_SHUT, V.MODE_OPTIONAL, V.MOVES_KIDS, V.SCORING_DIGITAL),
])
def test_nine_tile_tables_play_optimally_everywhere(key):
    check_against_solver(Rules(9, *key), range(512))


@pytest.mark.parametrize("tiles,key", [
    (10, (V.ONE_DIE_SUM_LE_6, V.MODE_OPTIONAL, V.MOVES_ANY, V.SCORING_DIGITAL)),
    (12, (V.ONE_DIE_HIGH_SHUT, V.MODE_LOCKED, V.MOVES_ANY, V.SCORING_SUM)),
    (12, (V.ONE_DIE_NEVER, V.MODE_OPTIONAL, V.MOVES_ANY, V.SCORING_COUNT)),
])
def test_big_box_tables_play_optimally(tiles, key):
    rng = random.Random(tiles * 1000 + sum(key))
    states = [(1 << tiles) - 1] + [rng.randrange(1 << tiles) for _ in range(120)]
    check_against_solver(Rules(tiles, *key), states)


def test_random_sample_of_offered_variants():
    """A few more offered variants at random (seeded), on a sample of states."""
    rng = random.Random(2)
    for tiles in tablegen.PACK_TILES:
        for key in rng.sample(tablegen.offered(tiles), 3):
            states = [rng.randrange(1 << tiles) for _ in range(40)]
            check_against_solver(Rules(tiles, *key), states)
