# Beat-target hints, post-turn analysis and computer levels: the engine against the exact solver.
"""Hint tests: tables/t9.bin against the solver's beat-target objective (a tie with the target
counted half: the box's), move_loss and
one_die_loss against exact values, the computer levels against the solver's policies (exact
distributions on CPython, averages of many turns under the real micropython), heap_lock."""

from __future__ import annotations

import math
import random
from array import array
from fractions import Fraction
from pathlib import Path

import pytest

from shutbox import variants as V
from shutbox.engine import (
    LEVEL_EASY,
    LEVEL_HARD,
    LEVEL_MEDIUM,
    MAX_MOVES,
    P_SCALE,
    Engine,
    Rules,
)
from shutbox_host import mp
from shutbox_host.bench import engine as bench_engine
from shutbox_host.solve import engine_extra, solver, tablegen
from shutbox_host.solve.engine_extra import LEVELS
from shutbox_host.solve.tablegen import TABLES

HALF = Fraction(1, 2)
THROWS = [(a, b) for a in range(1, 7) for b in range(0, 7)]
MP_DIR = Path(__file__).resolve().parents[1] / "mp"
HINTED = tablegen.offered_hints(9)

NEVER, HIGH, LE6, LT6 = (V.ONE_DIE_NEVER, V.ONE_DIE_HIGH_SHUT, V.ONE_DIE_SUM_LE_6,
                         V.ONE_DIE_SUM_LT_6)
OPT, LOCKED, FORCED = V.MODE_OPTIONAL, V.MODE_LOCKED, V.MODE_FORCED
ANY, SUM, COUNT = V.MOVES_ANY, V.SCORING_SUM, V.SCORING_COUNT


def cands_of(moves):
    """Candidate lists per throw (greedy order), computed once per moves rule."""
    return {(a, b): solver.candidate_masks(moves, a, b) for a, b in THROWS}


def free_choice(var, s, locked):
    """True when the player chooses between one and two dice in (s, locked)."""
    if not solver.one_die_allowed(s, var.tiles, var.one_die):
        return False
    return var.one_die_mode == OPT or (var.one_die_mode == LOCKED and not locked)


# ----- the pack -----

def test_hint_pack_directory_and_flash_budget():
    data = (TABLES / "t9.bin").read_bytes()
    pack = tablegen.read_hint_pack(data)
    assert sorted(pack) == sorted(HINTED) and len(HINTED) == 20
    sums = [solver.tile_sum(s) for s in range(512)]
    for key, (layers, targets, index) in pack.items():
        assert layers == solver.Variant(9, *key).locked_layers
        assert targets == solver.score(511, key[3])  # T = 1 .. the highest score
        for row in index:
            for off, count, cut, _ in row:
                assert off + 2 * count <= len(data)
                assert count == sum(1 for t in sums if t >= cut)
    total = sum(p.stat().st_size for p in TABLES.glob("*.bin"))  # moves.bin included
    assert total < 800_000, total  # the flash budget for every generated table


def test_hints_for_every_offered_variant_only():
    for key in HINTED:
        eng = Engine(Rules(9, *key))
        assert eng.set_target(10) and eng.p_beat(eng.full) > 0
    for rules in (Rules(9, HIGH, OPT, V.MOVES_KIDS, SUM), Rules(9, HIGH, OPT, ANY,
                                                              V.SCORING_DIGITAL),
                  Rules(10), Rules(12), Rules(4)):
        eng = Engine(rules)
        assert not eng.set_target(10)
        assert eng.p_beat(eng.full) == -1
        assert eng.best_move_target(eng.full, 6, 5) == eng.best_move(eng.full, 6, 5)
        assert eng.choose_one_die_target(1) == eng.choose_one_die(1)


def test_hints_can_be_left_out():
    eng = Engine(Rules(), hints=False)
    assert eng.has_table and len(eng._hp) == 0
    assert not eng.set_target(12) and eng.p_beat(511) == -1
    assert eng.best_move_target(511, 6, 6) == eng.best_move(511, 6, 6)
    assert len(Engine(Rules())._hp) == 512 and len(Engine(Rules(9, HIGH, LOCKED))._hp) == 1024


def test_missing_hint_pack_falls_back(tmp_path):
    (tmp_path / "n9.bin").write_bytes((TABLES / "n9.bin").read_bytes())
    eng = Engine(Rules(), str(tmp_path))
    assert eng.has_table and not eng.set_target(12) and eng.p_beat(511) == -1


# ----- best_move_target, p_beat, choose_one_die_target against the solver -----

def check_target(rules: Rules, target: int, states) -> None:
    """Every state and throw against the solver's beat-target objective (Fractions), a tie
    counted half (target 0 is no target: min-expected play, which counting a tie as lost
    gives there)."""
    eng = Engine(rules)
    assert eng.set_target(target)
    var = solver.Variant(*engine_extra.key(rules))
    ref = solver.objective_values(var, "beat-target", target, "half" if target > 0 else "loss")
    layers = var.locked_layers
    cands = cands_of(rules.moves)
    for s in states:
        for locked in range(layers):
            p = -ref.keys[locked][s][0]
            assert eng.p_beat(s, bool(locked)) == int(p * P_SCALE + HALF), (s, locked)
            if free_choice(var, s, locked):
                assert eng.choose_one_die_target(s, bool(locked)) == \
                    ref.one_die_best[locked][s], (s, locked)
            for (a, b), cs in cands.items():
                nxt = 1 if layers == 2 and (locked or b == 0) else 0
                want = ref.choice(nxt, s, False, cs)
                assert eng.best_move_target(s, a, b, bool(locked)) == want, (s, a, b, locked)


TARGET_CASES = [
    ((NEVER, OPT, ANY, SUM), (1, 2, 11, 12, 25, 44, 45)),
    ((HIGH, OPT, ANY, SUM), (1, 9, 12, 20, 30)),
    ((HIGH, LOCKED, ANY, SUM), (1, 10, 16)),
    ((LE6, FORCED, ANY, SUM), (7, 13)),
    ((LT6, LOCKED, ANY, SUM), (5, 22)),
    ((HIGH, OPT, ANY, COUNT), (1, 2, 3, 5, 9)),
    ((NEVER, OPT, ANY, COUNT), (4,)),
    ((LE6, LOCKED, ANY, COUNT), (2, 6)),
    ((LT6, FORCED, ANY, COUNT), (3,)),
]


@pytest.mark.parametrize("key,targets", TARGET_CASES)
def test_beat_target_hints_are_the_solvers_everywhere(key, targets):
    for target in targets:
        check_target(Rules(9, *key), target, range(512))


@pytest.mark.parametrize("key,target", [((HIGH, OPT, ANY, SUM), 0),
                                        ((HIGH, LOCKED, ANY, SUM), 46),
                                        ((NEVER, OPT, ANY, COUNT), 10)])
def test_targets_out_of_range_play_min_expected(key, target):
    """T <= 0 (never beaten) and T above the highest score (always): no block, still exact."""
    check_target(Rules(9, *key), target, range(512))
    eng = Engine(Rules(9, *key))
    assert eng.set_target(target)
    assert eng.p_beat(511) == (0 if target <= 0 else P_SCALE)
    for s in range(0, 512, 7):
        for a, b in THROWS:
            assert eng.best_move_target(s, a, b) == eng.best_move(s, a, b)


def test_random_targets_of_every_hinted_variant():
    rng = random.Random(44)
    for key in HINTED:
        top = solver.score(511, key[3])
        for target in rng.sample(range(1, top + 1), 2):
            check_target(Rules(9, *key), target, rng.sample(range(512), 60))


def test_set_target_switches_blocks():
    """Loading one target after another leaves nothing of the previous block behind."""
    eng = Engine(Rules(9, HIGH, LOCKED))
    fresh = Engine(Rules(9, HIGH, LOCKED))
    for target in (30, 3, 45, 1, 17):
        assert eng.set_target(target) and fresh.set_target(target)
        assert list(eng._hp) == list(fresh._hp)
        fresh = Engine(Rules(9, HIGH, LOCKED))
    assert eng.p_beat(511) == int(solver.solve(solver.Variant(9, HIGH, LOCKED), "beat-target",
                                               target=17, tie="half").p_win * P_SCALE + HALF)


def test_shutting_the_box_plays_differently_from_min_expected():
    """Seed 001's standard box, a score of 1 to beat (T = 1: a shut box wins, a 1 ties): 8
    shut, a throw of 8. Lowest expected score shuts 1 and 7; the best chance to win shuts 3
    and 5, which keeps the 1 to tie with (the solver's chances, a tie half). Counting a tie as
    lost, from the full box the chance is seed 001's 7.14 % of a shut box (x 1000, rounded)."""
    eng = Engine(Rules(9, NEVER))
    assert eng.set_target(1)
    s = 0b101111111
    assert eng.best_move(s, 5, 3) == 0b1000001
    assert eng.best_move_target(s, 5, 3) == 0b10100
    never = solver.Variant(9, NEVER)
    half = solver.Analysis(never, "beat-target", 1, "half")
    for after in (s & ~0b10100, s & ~0b1000001, 511):
        assert eng.p_beat(after) == int(half.value(after)["p_win"] * P_SCALE + HALF)
    assert eng.p_beat(s & ~0b10100) > eng.p_beat(s & ~0b1000001)
    lost = solver.solve(never, "beat-target", target=1)
    assert int(lost.p_beat_target * P_SCALE + HALF) == 71


# ----- post-turn analysis -----

@pytest.mark.parametrize("key", [(HIGH, OPT, ANY, SUM), (HIGH, LOCKED, ANY, SUM),
                                 (LE6, OPT, V.MOVES_KIDS, COUNT)])
def test_move_loss_exhaustive(key):
    """0 exactly for the best moves, else at least 1 and within 1 of the exact cost x 1000."""
    rules = Rules(9, *key)
    eng = Engine(rules)
    values = solver.solve_values(solver.Variant(*engine_extra.key(rules)))
    scale = values.scale
    layers = values.var.locked_layers
    buf = array("H", [0] * MAX_MOVES)
    worse = 0
    for s in range(512):
        for locked in range(layers):
            for a, b in THROWS:
                n = eng.legal_into(s, a, b, buf)
                if n == 0:
                    continue
                g = values.keys[1 if layers == 2 and (locked or b == 0) else 0]
                best = eng.best_move(s, a, b, bool(locked))
                assert eng.move_loss(s, a, b, best, bool(locked)) == 0
                for m in buf[:n]:
                    exact = Fraction(1000 * (g[s ^ m] - g[s ^ best]), scale)
                    loss = eng.move_loss(s, a, b, m, bool(locked))
                    if exact == 0:
                        assert loss == 0
                    else:
                        worse += 1
                        assert loss >= 1 and abs(loss - exact) <= 1, (s, a, b, m, loss, exact)
    assert worse > 1000


def test_move_loss_example_and_bad_input(tmp_path):
    """Seed 001: a full box with 5 + 4 plays the 9; shutting 4 and 5 instead costs about
    0.5 points of expected score (the solver's exact difference)."""
    eng = Engine(Rules(9, NEVER))
    nine, four_five = 1 << 8, 0b11000
    assert eng.best_move(511, 5, 4) == nine and eng.move_loss(511, 5, 4, nine) == 0
    g = solver.solve_values(solver.Variant(9, NEVER))
    exact = Fraction(1000 * (g.keys[0][511 ^ four_five] - g.keys[0][511 ^ nine]), g.scale)
    loss = eng.move_loss(511, 5, 4, four_five)
    assert 100 < loss and abs(loss - exact) <= 1
    assert eng.move_loss(511, 5, 4, 0b111) == -1  # 1 + 2 + 3 is not 9: illegal
    assert Engine(Rules(), str(tmp_path)).move_loss(511, 5, 4, nine) == -1  # no table


def option_values(var, values, s, locked):
    """Exact expected final score of two dice and of one die from (s, locked)."""
    ctx = solver._Ctx(var)
    out = []
    for one_die, nxt in ((False, locked), (True, 1 if var.locked_layers == 2 else 0)):
        groups, denom = (ctx.one, 6) if one_die else (ctx.two, 36)
        g = values.keys[nxt]
        total = Fraction(0)
        for w, cands in groups:
            legal = [g[s ^ m] for m in cands if m & s == m]
            total += Fraction(w, denom) * (Fraction(min(legal), values.scale) if legal
                                           else ctx.scores[s])
        out.append(total)
    return out


@pytest.mark.parametrize("key", [(HIGH, OPT, ANY, SUM), (LE6, LOCKED, ANY, SUM),
                                 (LT6, OPT, V.MOVES_DICE_OR_TOTAL, COUNT),
                                 (HIGH, LOCKED, V.MOVES_ONE_TILE, COUNT)])
def test_one_die_loss_exhaustive(key):
    """0 for the optimal dice (or no choice), else within 1.5 of the exact cost x 1000."""
    rules = Rules(9, *key)
    var = solver.Variant(*engine_extra.key(rules))
    eng = Engine(rules)
    values = solver.solve_values(var)
    checked = 0
    for s in range(1, 512):  # 0: the box is shut, the turn is over
        for locked in range(var.locked_layers):
            if not free_choice(var, s, locked):
                assert eng.one_die_loss(s, False, bool(locked)) == 0
                assert eng.one_die_loss(s, True, bool(locked)) == 0
                continue
            two, one = option_values(var, values, s, locked)
            assert two != one  # no exact tie: only the optimal choice costs 0
            assert min(two, one) == values.expected(s, locked)
            best_one = one < two
            assert eng.choose_one_die(s, bool(locked)) == best_one
            assert eng.one_die_loss(s, best_one, bool(locked)) == 0
            exact = 1000 * abs(two - one)
            loss = eng.one_die_loss(s, not best_one, bool(locked))
            assert loss >= 1 and abs(loss - exact) <= Fraction(3, 2), (s, locked, loss, exact)
            checked += 1
    assert checked > 5


# ----- computer levels -----

def test_random_move_is_uniform_over_the_legal_moves():
    rng = random.Random(3)
    buf = array("H", [0] * MAX_MOVES)
    for moves in range(len(V.MOVES)):
        eng = Engine(Rules(9, HIGH, OPT, moves))
        for _ in range(300):
            s = rng.randrange(512)
            a, b = rng.choice(THROWS)
            n = eng.legal_into(s, a, b, buf)
            picks = [engine_extra.random_move(eng, s, a, b, r)
                     for r in range(3 * max(n, 1))]
            if n == 0:
                assert set(picks) == {0}
                continue
            assert sorted(picks) == sorted(list(buf[:n]) * 3)  # each legal move 3 times


def test_levels_and_their_dice():
    eng = Engine(Rules())  # high-shut, optional
    small = 0b000011  # 1 and 2 open: one die allowed, sum 3
    mid = 0b111111  # 1..6 open: allowed, sum 21
    assert [eng.computer_one_die(LEVEL_EASY, small, False, r) for r in range(4)] == [
        False, True, False, True]
    assert eng.computer_one_die(LEVEL_MEDIUM, small, False, 0)
    assert not eng.computer_one_die(LEVEL_MEDIUM, mid, False, 1)
    for s in range(1, 512):
        assert eng.computer_one_die(LEVEL_HARD, s, False, 1) == eng.choose_one_die(s)
        if s & 0x1C0:  # 7, 8 or 9 open: one die is not allowed whatever the level
            assert not any(eng.computer_one_die(lv, s, False, 1) for lv in (1, 2, 3))
    forced = Engine(Rules(one_die_mode=FORCED))
    assert all(forced.computer_one_die(lv, mid, False, 0) for lv in (1, 2, 3))
    assert LEVELS[LEVEL_EASY] == "easy" and LEVELS[LEVEL_HARD] == "hard"


def level_distribution(eng: Engine, var, level: int) -> dict:
    """Exact final-score distribution of a computer level, from the engine's own answers
    (every random int r of the easy level enumerated: each legal move 1/count, each die
    count 1/2)."""
    throw_of = {}
    for a, b in THROWS:
        throw_of.setdefault((b == 0, tuple(solver.candidate_masks(var.moves, a, b))), (a, b))
    locked_mode = var.one_die_mode == LOCKED and var.one_die != NEVER

    def dice(s, locked):
        out: dict = {}
        for r in (0, 1):
            one = eng.computer_one_die(level, s, bool(locked), r)
            nxt = 1 if (one and locked_mode) else locked
            out[(one, nxt)] = out.get((one, nxt), Fraction(0)) + HALF
        return [(p, one, nxt) for (one, nxt), p in out.items()]

    def move(s, locked, one_die, cands):
        a, b = throw_of[(one_die, tuple(cands))]
        if level == LEVEL_EASY:
            n = sum(1 for m in cands if m & s == m)
            return [(Fraction(1, n), engine_extra.random_move(eng, s, a, b, r))
                    for r in range(n)]
        m = eng.greedy_move(s, a, b) if level == LEVEL_MEDIUM else eng.best_move(
            s, a, b, bool(locked))
        return [(Fraction(1), m)] if m else []

    return solver.distribution(var, dice, move)


LEVEL_VARIANTS = [(9, HIGH, OPT, ANY, SUM), (9, NEVER, OPT, ANY, SUM),
                  (9, HIGH, LOCKED, ANY, COUNT), (9, LE6, FORCED, V.MOVES_KIDS, SUM),
                  (10, LT6, LOCKED, ANY, SUM), (5, LE6, OPT, V.MOVES_ONE_TILE, SUM, 2)]


@pytest.mark.parametrize("key", LEVEL_VARIANTS)
def test_levels_are_exactly_the_solvers_policies(key):
    """The engine's easy / medium / hard give the very distributions of the solver's random
    and greedy policies and min-expected objective (no table: hard plays greedy)."""
    rules = Rules(*key)
    eng = Engine(rules)
    var = solver.Variant(*engine_extra.key(rules))
    hard = solver.solve(var, "min-expected") if eng.has_table else solver.solve(
        var, policy="greedy")
    for level, want in ((LEVEL_EASY, solver.solve(var, policy="random")),
                        (LEVEL_MEDIUM, solver.solve(var, policy="greedy")),
                        (LEVEL_HARD, hard)):
        got = {sc: p for sc, p in level_distribution(eng, var, level).items() if p}
        assert got == {sc: p for sc, p in want.distribution.items() if p}, LEVELS[level]


# ----- under the real micropython -----

@pytest.fixture(scope="module")
def mpy(tmp_path_factory):
    """The engine compiled with mpy-cross, as on the Pico (its .py source alone needs more
    than a 64 KB heap to compile)."""
    return bench_engine.mpy_tree(tmp_path_factory.mktemp("mpy"))


HEAPLOCK_SPECS = [
    "9,1,0,0,0,0/12",  # the default variant, a mid target
    "9,1,1,0,0,0/5",  # locked mode: two layers
    "9,2,2,0,2,0/3",  # forced one die, count scoring
    "9,0,0,0,0,1/45",  # no one die, 1-2-3 shut at the start, the highest target
    "9,3,0,0,0,0/0",  # a target nobody beats
    "9,1,0,0,0,0/99",  # a target everybody beats
    "9,1,0,3,1,0/20",  # kids moves, digital: no hints (min-expected fallback)
    "12,1,1,0,0,0/20",  # twelve tiles, locked: no hints
    "11,1,0,0,0,0/10",  # no table at all
]


def test_hint_and_level_calls_allocate_nothing(mpy):
    r = mp.run(MP_DIR / "engine_hints_heaplock.py", "150", str(TABLES), *HEAPLOCK_SPECS,
               heapsize="64k", extra_path=[mpy], timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "ALLOC" not in r.stdout and r.stdout.strip().endswith("OK")
    assert r.stdout.count(" hints ") == 6 and r.stdout.count(" fallback ") == 3


def test_hint_vectors_under_micropython(mpy, tmp_path):
    """best_move_target and p_beat on micropython equal the solver's, on sampled states."""
    rng = random.Random(9)
    lines = []
    for key, target in [((HIGH, OPT, ANY, SUM), 12), ((HIGH, LOCKED, ANY, SUM), 7),
                        ((LT6, FORCED, ANY, COUNT), 3)]:
        rules = Rules(9, *key)
        var = solver.Variant(*engine_extra.key(rules))
        ref = solver.objective_values(var, "beat-target", target, "half")
        lines.append("R %s %d" % (",".join(map(str, engine_extra.key(rules))), target))
        for _ in range(150):
            s = rng.randrange(512)
            locked = rng.randrange(var.locked_layers)
            a, b = rng.choice(THROWS)
            nxt = 1 if var.locked_layers == 2 and (locked or b == 0) else 0
            want = ref.choice(nxt, s, False, solver.candidate_masks(var.moves, a, b))
            p = int(-ref.keys[locked][s][0] * P_SCALE + HALF)
            lines.append("%d %d %d %d %d %d" % (s, a, b, locked, want, p))
    path = tmp_path / "hints.txt"
    path.write_text("\n".join(lines) + "\n")
    script = ("import sys\nfrom shutbox.engine import Engine, Rules\nbad = n = 0\n"
              "for line in open(%r):\n    w = line.split()\n    if w[0] == 'R':\n"
              "        eng = Engine(Rules(*[int(v) for v in w[1].split(',')]), %r)\n"
              "        assert eng.set_target(int(w[2]))\n        continue\n"
              "    s, a, b, lk, want, p = [int(v) for v in w]\n    n += 1\n"
              "    if eng.best_move_target(s, a, b, lk == 1) != want or "
              "eng.p_beat(s, lk == 1) != p:\n        bad += 1\n        print('FAIL', line)\n"
              "print('N', n, 'BAD', bad)\n") % (str(path), str(TABLES))
    r = mp.run(script, heapsize="64k", extra_path=[mpy])
    assert r.returncode == 0, r.stdout + r.stderr
    assert "N 450 BAD 0" in r.stdout


LEVEL_TURNS = 100_000


@pytest.mark.parametrize("spec,level", [
    ("9,1,0,0,0,0", LEVEL_HARD), ("9,1,0,0,0,0", LEVEL_MEDIUM), ("9,1,0,0,0,0", LEVEL_EASY),
    ("9,1,1,0,2,0", LEVEL_HARD)])
def test_level_average_over_many_turns_matches_the_solver(mpy, spec, level):
    """The level's mean final score over LEVEL_TURNS simulated turns under micropython (real
    Dice, a seeded byte source) is within 4 standard errors of the solver's exact mean."""
    rules = Rules(*[int(v) for v in spec.split(",")])
    var = solver.Variant(*engine_extra.key(rules))
    want = {LEVEL_HARD: solver.solve(var, "min-expected"),
            LEVEL_MEDIUM: solver.solve(var, policy="greedy"),
            LEVEL_EASY: solver.solve(var, policy="random")}[level]
    mean = want.expected_score
    var_ = sum((sc - mean) ** 2 * p for sc, p in want.distribution.items())
    sigma = math.sqrt(var_) / math.sqrt(LEVEL_TURNS)
    r = mp.run(MP_DIR / "engine_levels.py", spec, str(level), str(LEVEL_TURNS),
               str(1000 + level), str(TABLES), heapsize="64k", extra_path=[mpy], timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    w = r.stdout.split()
    assert int(w[w.index("TURNS") + 1]) == LEVEL_TURNS
    got = int(w[w.index("SUM") + 1]) / LEVEL_TURNS
    assert abs(got - float(mean)) <= 4 * sigma, (LEVELS[level], got, float(mean), sigma)
