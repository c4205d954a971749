# The rules engine on CPython against the brute-force reference (subset search), all variants.
"""Engine tests: legal moves, end of turn, greedy, scoring, one-die rules and start masks."""

from __future__ import annotations

import json
import random
from array import array
from fractions import Fraction
from pathlib import Path

import engine_reference as ref
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shutbox import variants as V
from shutbox.engine import MAX_MOVES, Engine, Rules
from shutbox_host import mp
from shutbox_host.bench import engine as bench_engine
from shutbox_host.solve import engine_extra, solver, tablegen
from shutbox_host.solve.tablegen import TABLES

TILE_COUNTS = range(V.MIN_TILES, V.MAX_TILES + 1)
THROWS = ref.throws()

rules_st = st.builds(
    Rules,
    tiles=st.integers(V.MIN_TILES, V.MAX_TILES),
    one_die=st.integers(0, len(V.ONE_DIE) - 1),
    one_die_mode=st.integers(0, len(V.ONE_DIE_MODE) - 1),
    moves=st.integers(0, len(V.MOVES) - 1),
    scoring=st.integers(0, len(V.SCORING) - 1),
    start=st.integers(0, len(V.START) - 1),
)


@st.composite
def situations(draw):
    """A variant, an open mask of its tiles and a throw."""
    rules = draw(rules_st)
    open_ = draw(st.integers(0, (1 << rules.tiles) - 1))
    a, b = draw(st.sampled_from(THROWS))
    return rules, open_, a, b


_engines: dict = {}


def engine_for(rules, tables_dir=None):
    """One engine per variant (loading a table is done once)."""
    key = (engine_extra.key(rules), tables_dir)
    if key not in _engines:
        _engines[key] = Engine(rules, tables_dir)
    return _engines[key]


def legal_list(eng, open_, a, b):
    buf = array("H", [0] * MAX_MOVES)
    n = eng.legal_into(open_, a, b, buf)
    return list(buf[:n])


def test_default_rules():
    r = Rules()
    assert engine_extra.key(r) == (9, V.ONE_DIE_HIGH_SHUT, V.MODE_OPTIONAL, V.MOVES_ANY,
                                   V.SCORING_SUM, V.START_ALL_OPEN)
    eng = Engine()
    assert engine_extra.key(eng.rules) == engine_extra.key(r)
    assert eng.full == 0x1FF and eng.start_open == 0x1FF


@pytest.mark.parametrize("bad", [dict(tiles=1), dict(tiles=13), dict(one_die=4),
                                 dict(one_die_mode=3), dict(moves=-1), dict(scoring=3),
                                 dict(start=4), dict(moves="any")])
def test_rules_reject_bad_values(bad):
    with pytest.raises(ValueError):
        Rules(**bad)


@pytest.mark.parametrize("moves", range(len(V.MOVES)))
@pytest.mark.parametrize("tiles", [2, 3, 4, 5])
def test_legal_moves_exhaustive_small_boxes(moves, tiles):
    """Every open mask and every throw of a small box, against the subset search."""
    eng = engine_for(Rules(tiles=tiles, moves=moves))
    for open_ in range(1 << tiles):
        for a, b in THROWS:
            want = ref.legal(open_, moves, a, b)
            got = legal_list(eng, open_, a, b)
            assert len(got) == len(set(got)) and set(got) == want, (open_, a, b)
            assert engine_extra.has_move(eng, open_, a, b) == bool(want)
            assert eng.greedy_move(open_, a, b) == ref.greedy(open_, moves, a, b)


@pytest.mark.parametrize("moves", range(len(V.MOVES)))
@pytest.mark.parametrize("tiles", [9, 10, 12])
def test_legal_moves_full_box(moves, tiles):
    eng = engine_for(Rules(tiles=tiles, moves=moves))
    full = (1 << tiles) - 1
    for a, b in THROWS:
        assert set(legal_list(eng, full, a, b)) == ref.legal(full, moves, a, b)


def test_seed_example_eight_on_a_full_box():
    """Seed 001: a throw of 8 on a full box closes 8, 1-7, 2-6, 3-5, 1-2-5 or 1-3-4."""
    eng = engine_for(Rules(one_die=V.ONE_DIE_NEVER))
    got = {tuple(ref.tiles_of(m)) for m in legal_list(eng, eng.full, 5, 3)}
    assert got == {(8,), (1, 7), (2, 6), (3, 5), (1, 2, 5), (1, 3, 4)}
    dot = engine_for(Rules(moves=V.MOVES_DICE_OR_TOTAL))
    assert {tuple(ref.tiles_of(m)) for m in legal_list(dot, dot.full, 5, 3)} == {(8,), (3, 5)}
    assert legal_list(dot, dot.full, 3, 3) == [ref.mask_of([6])]  # no tile shut twice


@settings(max_examples=400, deadline=None)
@given(situations())
def test_legal_moves_match_subset_search(sit):
    rules, open_, a, b = sit
    eng = engine_for(rules)
    want = ref.legal(open_, rules.moves, a, b)
    got = legal_list(eng, open_, a, b)
    assert len(got) <= MAX_MOVES
    assert len(got) == len(set(got)) and set(got) == want
    assert engine_extra.has_move(eng, open_, a, b) == bool(want)
    assert eng.greedy_move(open_, a, b) == ref.greedy(open_, rules.moves, a, b)
    for m in want:
        assert eng.is_legal(open_, a, b, m)
        assert (open_ & ~m) | m == open_ and open_ & ~m != open_  # applying shuts tiles


@settings(max_examples=300, deadline=None)
@given(situations(), st.integers(1, (1 << 12) - 1))
def test_is_legal_rejects_everything_else(sit, mask):
    rules, open_, a, b = sit
    eng = engine_for(rules)
    assert eng.is_legal(open_, a, b, mask) == (mask in ref.legal(open_, rules.moves, a, b))


@settings(max_examples=300, deadline=None)
@given(rules_st, st.integers(0, (1 << 12) - 1))
def test_score_and_one_die_rule(rules, open_):
    eng = engine_for(rules)
    open_ &= eng.full
    assert eng.score(open_) == ref.score(open_, rules.scoring)
    assert eng.one_die_allowed(open_) == ref.one_die_allowed(open_, rules.one_die)


@pytest.mark.parametrize("tiles", TILE_COUNTS)
@pytest.mark.parametrize("start", range(len(V.START)))
def test_start_masks(tiles, start):
    eng = Engine(Rules(tiles=tiles, start=start), tables_dir="/nonexistent")
    assert eng.start_open == ref.start_open(tiles, start)
    assert eng.full == (1 << tiles) - 1


def test_scoring_examples():
    """Seed 000's tables: 1,5,9 -> 15 / 159 / 3; 1,2,5 -> 125; tiles 10-12 add two digits."""
    m = ref.mask_of
    for scoring, want in ((V.SCORING_SUM, 15), (V.SCORING_DIGITAL, 159), (V.SCORING_COUNT, 3)):
        assert engine_for(Rules(scoring=scoring)).score(m([1, 5, 9])) == want
    dig = engine_for(Rules(tiles=12, scoring=V.SCORING_DIGITAL))
    assert dig.score(m([1, 2, 5])) == 125
    assert dig.score(m([1, 10, 12])) == 11012
    assert dig.score((1 << 12) - 1) == 123456789101112  # beyond a MicroPython small int
    assert dig.score(0) == 0


def test_no_table_falls_back_to_greedy(tmp_path):
    """Without a table pack best_move is greedy and expected() says -1."""
    eng = Engine(Rules(), tables_dir=str(tmp_path))
    assert not eng.has_table and engine_extra.table_bytes(eng) == 0
    for open_ in (eng.full, 0x0F3, 0x1A5):
        for a, b in THROWS:
            assert eng.best_move(open_, a, b) == eng.greedy_move(open_, a, b)
    assert eng.expected(eng.full) == -1
    # greedy one-die choice: when the open tiles add up to 6 or less
    assert eng.choose_one_die(ref.mask_of([1, 5])) is True
    assert eng.choose_one_die(ref.mask_of([1, 6])) is False
    assert eng.choose_one_die(ref.mask_of([1, 7])) is False  # not allowed: 7 open


def test_mode_forced_and_locked_choose_one_die(tmp_path):
    for tables_dir in (None, str(tmp_path)):
        forced = Engine(Rules(one_die_mode=V.MODE_FORCED), tables_dir)
        locked = Engine(Rules(one_die_mode=V.MODE_LOCKED), tables_dir)
        open_ = ref.mask_of([1, 2, 3, 4, 5, 6])
        assert forced.choose_one_die(open_)
        assert locked.choose_one_die(open_, locked=True)
        assert not forced.choose_one_die(forced.full)
        never = Engine(Rules(one_die=V.ONE_DIE_NEVER), tables_dir)
        assert not never.choose_one_die(ref.mask_of([1]))


def test_one_die_moves_for_every_rule():
    """With one die thrown, every rule but `any` shuts the tile of that die."""
    for moves in range(1, len(V.MOVES)):
        eng = engine_for(Rules(moves=moves))
        for a in range(1, 7):
            assert legal_list(eng, eng.full, a, 0) == [1 << (a - 1)]
    eng = engine_for(Rules())
    assert {tuple(ref.tiles_of(m)) for m in legal_list(eng, eng.full, 4, 0)} == {
        (4,), (1, 3)}


def test_a_full_turn_ends():
    """Playing best moves from the start always ends (each move shuts a tile)."""
    eng = engine_for(Rules())
    seq = [(6, 6), (5, 4), (3, 1), (2, 2), (1, 1), (6, 5), (1, 0), (2, 0)]
    open_ = eng.start_open
    for a, b in seq:
        if not engine_extra.has_move(eng, open_, a, b):
            break
        m = eng.best_move(open_, a, b)
        assert eng.is_legal(open_, a, b, m)
        open_ &= ~m
    assert eng.score(open_) == ref.score(open_, V.SCORING_SUM)


# ----- the same vectors and the allocation proof under the real micropython -----

MP_DIR = Path(__file__).resolve().parents[1] / "mp"
HALF = Fraction(1, 2)


@pytest.fixture(scope="module")
def mpy(tmp_path_factory):
    """The engine compiled with mpy-cross, as `shutbox flash` puts it on the Pico: compiling
    engine.py from source on the box would need more than a 64 KB heap."""
    return bench_engine.mpy_tree(tmp_path_factory.mktemp("mpy"))


def mp_variants():
    """Variants for the MicroPython vectors: every moves rule at every tile count (rotating
    the other options), plus offered variants that have a table (12 tiles: not locked, whose
    two layers need more than a 64 KB heap of .py source; see test_largest_table_fits)."""
    out = []
    i = 0
    for tiles in TILE_COUNTS:
        for moves in range(len(V.MOVES)):
            out.append(Rules(tiles, i % 4, i // 4 % 3, moves, i % 3, i // 3 % 4))
            i += 1
    out += [Rules(9, *key) for key in tablegen.offered(9)[::9]]
    out += [Rules(10, *key) for key in tablegen.offered(10)[::7]]
    out += [Rules(12, *key) for key in tablegen.offered(12)
            if key[1] != V.MODE_LOCKED][::5]
    return out


def vector_lines(rules, rng, cases):
    """JSON lines for one variant, from the reference and (with a table) the exact solver."""
    eng = Engine(rules)  # only to know whether the box offers a table for it
    values = None
    var = solver.Variant(*engine_extra.key(rules))
    if eng.has_table:
        values = solver.solve_values(var)
    yield json.dumps({"rules": list(engine_extra.key(rules)), "table": eng.has_table})
    layers = var.locked_layers
    for _ in range(cases):
        open_ = rng.randrange(1 << rules.tiles)
        a, b = rng.choice(THROWS)
        locked = layers == 2 and rng.random() < 0.5
        legal = sorted(ref.legal(open_, rules.moves, a, b))
        greedy = ref.greedy(open_, rules.moves, a, b)
        allowed = ref.one_die_allowed(open_, rules.one_die)
        mode = rules.one_die_mode
        if not allowed:
            choose = False
        elif mode == V.MODE_FORCED or (mode == V.MODE_LOCKED and locked):
            choose = True
        elif values is None:
            choose = sum(ref.tiles_of(open_)) <= 6
        else:
            choose = values.one_die_best[int(locked)][open_]
        if values is None:
            best, expected = greedy, -1
        else:
            nxt = 1 if layers == 2 and (locked or b == 0) else 0
            cands = [m for m in solver.candidate_masks(rules.moves, a, b) if m in legal]
            g = values.keys[nxt]
            best = min(cands, key=lambda m: g[open_ ^ m]) if cands else 0
            expected = int(values.expected(open_, int(locked)) * 1000 + HALF)
        yield json.dumps([open_, a, b, locked, legal, greedy, best, bool(legal),
                          ref.score(open_, rules.scoring), allowed, choose, expected])


def test_vectors_under_micropython(tmp_path, mpy):
    """The reference's answers, checked by the engine running on micropython (64 KB heap)."""
    rng = random.Random(1234)
    path = tmp_path / "vectors.jsonl"
    with path.open("w") as f:
        for rules in mp_variants():
            for line in vector_lines(rules, rng, 30):
                f.write(line + "\n")
    r = mp.run(MP_DIR / "engine_vectors.py", str(path), heapsize="64k", extra_path=[mpy],
               timeout=120)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "FAIL 0" in r.stdout
    assert int(r.stdout.split("VECTORS")[1].split()[0]) == 30 * len(mp_variants())


HEAPLOCK_RULES = [
    "9,1,0,0,0,0",  # the default, with its table
    "9,1,1,0,0,0",  # locked mode: two layers
    "9,0,0,2,1,0",  # one-tile moves, digital scoring (small ints on nine tiles)
    "9,3,2,3,2,2",  # kids, forced one die, count, odd tiles open
    "12,2,0,0,0,0",  # twelve tiles with a table
    "11,1,0,1,0,1",  # no table: greedy fallback
]


def test_per_throw_path_allocates_nothing(mpy):
    """legal_into, best_move, greedy_move, is_legal, choose_one_die and applying a move run
    whole turns between micropython.heap_lock() and heap_unlock()."""
    r = mp.run(MP_DIR / "engine_heaplock.py", "200", str(TABLES), *HEAPLOCK_RULES,
               heapsize="64k", extra_path=[mpy], timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "ALLOC" not in r.stdout and r.stdout.strip().endswith("OK")
    assert r.stdout.count("table") == 5 and "greedy" in r.stdout


def test_heaplock_script_catches_an_allocation(tmp_path):
    """The heap-lock harness itself fails when something allocates under the lock."""
    script = tmp_path / "alloc.py"
    script.write_text("import micropython\nmicropython.heap_lock()\ntry:\n"
                      "    x = [1, 2, 3]\n    print('NO')\nexcept MemoryError:\n"
                      "    print('ALLOC')\nmicropython.heap_unlock()\n")
    r = mp.run(script, heapsize="64k")
    assert "ALLOC" in r.stdout


def test_largest_table_fits_a_64k_heap(mpy):
    """12 tiles, locked mode (32 KB of table) loads on a 64 KB heap from mpy-cross bytecode,
    as the Pico holds the firmware, and plays a turn without allocating."""
    r = mp.run(MP_DIR / "engine_heaplock.py", "20", str(TABLES), "12,1,1,0,0,0",
               heapsize="64k", extra_path=[mpy], timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "12,1,1,0,0,0 table" in r.stdout
