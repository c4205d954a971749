# The throw's moves ranked on the companion's page by the box's own tables, against the solver.
"""companion.moves (``GET /api/moves``): with best-move hints its ranking and figures are the
host solver's (shutbox_host.solve: ``shutbox advise``'s min-expected order and expected
score, max-shut's chance to shut), rounded as the tables round; without them the box refuses
(403). On CPython for every variant of the nine-tile hint pack and every state, and on the
unix port with real sockets beside the real firmware on the simulated board."""

from __future__ import annotations

import importlib.util
from fractions import Fraction
from types import SimpleNamespace

import pytest

from shutbox import variants as V
from shutbox.engine import Engine, Rules
from shutbox.settings import Settings
from shutbox_host import mp
from shutbox_host.box.webbox import WebBox
from shutbox_host.model.leds import tiles_lit
from shutbox_host.solve import solver

# the box's module on CPython (the tests' own folder is named companion too)
_spec = importlib.util.spec_from_file_location("companion_moves",
                                               mp.FIRMWARE / "companion" / "moves.py")
assert _spec is not None and _spec.loader is not None
moves = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(moves)

HINT_BEST = 2
MOVE = 3


def _x1000(f: Fraction) -> int:
    """A figure x 1000 rounded half up, as the tables store it (tablegen)."""
    return (2000 * f.numerator + f.denominator) // (2 * f.denominator)


def _live(engine: Engine, open_: int, a: int, b: int, locked: bool = False,
          hints: int = HINT_BEST, best: int = 0, target: int = -1):
    """A companion's view of a game in MOVE with throw (a, b) from *open_*."""
    legal = [0] * 16
    n = engine.legal_into(open_, a, b, legal)
    game = SimpleNamespace(state=MOVE, moves=n, legal=legal, open_=open_, locked=locked, a=a,
                           b=b, best=best, engine=engine,
                           coach=SimpleNamespace(target=target))
    return SimpleNamespace(settings=Settings(hints=hints), version=7,
                           guard=SimpleNamespace(app=SimpleNamespace(game=game)))


def _solved(var: solver.Variant):
    return solver.Analysis(var, "min-expected"), solver.Analysis(var, "max-shut")


def _check(var, engine, minexp, maxshut, s, a, b, locked) -> int:
    """Compare the page's ranking of (s, a, b) with the solver's; return the moves seen."""
    body, status = moves.answer(_live(engine, s, a, b, locked))
    assert status == 200
    want = minexp.moves(s, a, b, int(locked))
    shut = {} if maxshut is None else {
        m["mask"]: m["p_shut"] for m in maxshut.moves(s, a, b, int(locked))}
    got = body["moves"]
    assert [m["shut"] for m in got] == [_tiles(m["mask"]) for m in want], (s, a, b)
    assert [m["expected"] for m in got] == [_x1000(m["expected_score"]) for m in want]
    if maxshut is None:  # no block with the chance to shut for the variant
        assert [m["p_shut"] for m in got] == [None] * len(want)
    else:  # twice MATCH_SHUT's value, which rounds half the chance: within 1 in 1000
        assert all(abs(m["p_shut"] - _x1000(shut[w["mask"]])) <= 1
                   for m, w in zip(got, want, strict=True)), (s, a, b)
    assert [m["leaves"] for m in got] == [_tiles(m["result"]) for m in want]
    return len(got)


def _tiles(mask: int) -> list[int]:
    return [k + 1 for k in range(mask.bit_length()) if mask >> k & 1]


def _throws(var, s, locked):
    """Every throw the rules allow from *s*: two dice, and one die where allowed."""
    out = [(a, b) for a in range(1, 7) for b in range(a, 7)]
    if solver.one_die_allowed(s, var.tiles, var.one_die):
        out += [(a, 0) for a in range(1, 7)]
    return out


def test_the_ranking_is_the_solvers_for_every_state_of_the_default_variant():
    """Every open mask and throw of the standard box: the order of `shutbox advise`
    (min-expected), its expected scores, and max-shut's chance to shut, x 1000."""
    var = solver.Variant()
    engine = Engine(var)
    minexp, maxshut = _solved(var)
    seen = sum(_check(var, engine, minexp, maxshut, s, a, b, False)
               for s in range(1, 1 << 9) for a, b in _throws(var, s, False))
    assert seen > 14000, seen  # 14,152 moves


@pytest.mark.parametrize("one_die,mode,scoring", [
    (V.ONE_DIE_SUM_LE_6, V.MODE_LOCKED, V.SCORING_SUM),  # two layers: the locked one
    (V.ONE_DIE_HIGH_SHUT, V.MODE_FORCED, V.SCORING_COUNT),
    (V.ONE_DIE_NEVER, V.MODE_OPTIONAL, V.SCORING_SUM),
    (V.ONE_DIE_SUM_LT_6, V.MODE_OPTIONAL, V.SCORING_COUNT),
])
def test_the_ranking_is_the_solvers_in_other_variants_of_the_hint_pack(one_die, mode, scoring):
    """The order, expected scores and chance to shut as the solver's (every variant of the
    hint pack has the block that gives it: the default alone had it, which this fails on)."""
    var = solver.Variant(one_die=one_die, one_die_mode=mode, scoring=scoring)
    engine = Engine(var)
    minexp, maxshut = _solved(var)
    seen = 0
    for s in range(1, 1 << 9, 3):
        for locked in (False, True) if mode == V.MODE_LOCKED else (False,):
            if locked and not solver.one_die_allowed(s, 9, one_die):
                continue
            for a, b in _throws(var, s, locked):
                if (locked or mode == V.MODE_FORCED) and b and \
                        solver.one_die_allowed(s, 9, one_die):
                    continue  # one die is imposed there
                seen += _check(var, engine, minexp, maxshut, s, a, b, locked)
    assert seen > 3000, seen


def test_digital_scoring_reads_sum_scorings_chance_to_shut():
    """Digital scoring has no block in tables/t9.bin: its chance to shut (max-shut play's,
    whatever the scoring) is sum scoring's, and equals the solver's."""
    var = solver.Variant(scoring=V.SCORING_DIGITAL)
    engine = Engine(var)
    minexp, maxshut = _solved(var)
    seen = sum(_check(var, engine, minexp, maxshut, s, a, b, False)
               for s in range(1, 1 << 9, 5) for a, b in _throws(var, s, False))
    assert seen > 2000, seen


def test_digital_scoring_reads_sum_scorings_chance_to_shut_once_the_box_started(monkeypatch):
    """On the chip the box's start drops Rules' constructor (shutbox.app.prelude: its rules
    are made once): the page's ranking still finds sum scoring's block for digital scoring."""
    var = solver.Variant(scoring=V.SCORING_DIGITAL)
    engine = Engine(var)
    minexp, maxshut = _solved(var)
    monkeypatch.delattr(Rules, "__init__")
    seen = sum(_check(var, engine, minexp, maxshut, s, a, b, False)
               for s in range(1, 1 << 9, 37) for a, b in _throws(var, s, False))
    assert seen > 100, seen


def test_without_a_block_the_chance_to_shut_is_none_and_the_rest_holds():
    """Moves `dice-or-total` (nine tiles) has no block in the hint pack: no chance to shut;
    the expected scores and their order as the solver's."""
    var = solver.Variant(moves=V.MOVES.index("dice-or-total"))
    engine = Engine(var)
    minexp = solver.Analysis(var, "min-expected")
    seen = 0
    for s in range(1, 1 << 9, 7):
        for a, b in _throws(var, s, False):
            body, status = moves.answer(_live(engine, s, a, b))
            want = minexp.moves(s, a, b)
            assert status == 200 and [m["p_shut"] for m in body["moves"]] == [None] * len(want)
            assert [(m["shut"], m["expected"]) for m in body["moves"]] == [
                (_tiles(m["mask"]), _x1000(m["expected_score"])) for m in want]
            seen += len(want)
    assert seen > 500, seen


def test_the_box_lights_one_and_its_aim_is_said():
    var = solver.Variant()
    engine = Engine(var)
    best = engine.best_move(0x1FF, 4, 5)
    body, _ = moves.answer(_live(engine, 0x1FF, 4, 5, best=best, target=12))
    assert [m["hint"] for m in body["moves"]].count(True) == 1
    assert next(m for m in body["moves"] if m["hint"])["shut"] == _tiles(best)
    assert (body["aim"], body["target"], body["throw"]) == ("beat-target", 12, [4, 5])


@pytest.mark.parametrize("hints", [0, 1])
def test_without_best_move_hints_the_ranking_is_refused(hints):
    engine = Engine(solver.Variant())
    body, status = moves.answer(_live(engine, 0x1FF, 4, 5, hints=hints))
    assert status == 403 and "moves" not in body and "best move" in body["error"]


# ----- on the unix port, real sockets -----

def _hinted_box(flash, hints: int) -> WebBox:
    """A box on the simulated board whose saved settings have *hints* (as its menu saves
    them), its companion serving."""
    from shutbox import setfile
    from shutbox.store import Store

    (flash / "data").mkdir(parents=True)
    assert setfile.save(Settings(hints=hints), Store(str(flash / "data"))) == 0
    return WebBox(flash)


def test_the_server_ranks_the_throw_on_the_box_as_the_solver_does(tmp_path):
    box = _hinted_box(tmp_path / "flash", HINT_BEST)
    try:
        box.wait_state(lambda s: s["state"] in ("setup", "ready"))
        status, body = box.request("GET", "/api/moves")
        assert (status, body["moves"], body["throw"]) == (200, [], [])  # no throw yet
        box.roll((6, 3))
        box.wait_state(lambda s: s["state"] == "move")
        status, body = box.request("GET", "/api/moves")
        assert status == 200, body
        var = solver.Variant()
        minexp, maxshut = _solved(var)
        want = minexp.moves(0x1FF, 6, 3)
        shut = {m["mask"]: m["p_shut"] for m in maxshut.moves(0x1FF, 6, 3)}
        assert body["throw"] == [6, 3] and body["open"] == list(range(1, 10))
        assert [(m["shut"], m["expected"]) for m in body["moves"]] == [
            (_tiles(m["mask"]), _x1000(m["expected_score"])) for m in want]
        assert all(abs(m["p_shut"] - _x1000(shut[w["mask"]])) <= 1
                   for m, w in zip(body["moves"], want, strict=True))
        # one round for the win: seat 1 plays the match's move, which the box lights in
        # cyan on its tiles; the page marks that one
        assert body["aim"] == "match"
        hinted = [m["shut"] for m in body["moves"] if m["hint"]]
        assert len(hinted) == 1
        lit = tiles_lit(box.led_lines(0)[-1][1][:9], "C")
        assert hinted == [lit], (hinted, lit)
        assert box.alive()
    finally:
        box.close()


def test_the_server_refuses_the_ranking_without_best_move_hints(tmp_path):
    box = WebBox(tmp_path / "flash")  # the box's default: hints on legal moves
    try:
        box.wait_state(lambda s: s["state"] in ("setup", "ready"))
        box.roll((6, 3))
        box.wait_state(lambda s: s["state"] == "move")
        status, body = box.request("GET", "/api/moves")
        assert status == 403 and "best move" in body["error"], body
        assert "moves" not in body
        assert box.request("GET", "/api/settings")[1]["hints"] != "best"
    finally:
        box.close()


def test_a_chance_to_shut_of_min_expected_play_per_state_would_not_fit_the_deploy_budget():
    """What docs/companion.md says it would cost: two bytes a state for each distinct block
    of tables/n9.bin (the min-expected play of every nine-tile variant and layer), on top
    of what a nine-tile box deploys (docs/figures.json), past the 320 KB budget."""
    import json
    import struct

    data = (mp.FIRMWARE / "shutbox" / "tables" / "n9.bin").read_bytes()
    _magic, tiles, count, _r = struct.unpack_from("<4sBBH", data, 0)
    blocks = set()
    for i in range(count):
        entry = data[8 + 16 * i:24 + 16 * i]
        blocks.update(struct.unpack_from("<I", entry, 8 + 4 * k)[0] for k in range(entry[4]))
    cost = len(blocks) * 2 * (1 << tiles)
    deployed = json.loads((mp.ROOT / "docs" / "figures.json").read_text())["figures"][
        "deployed_bytes"]
    print("%d blocks, %d bytes; deployed %d" % (len(blocks), cost, deployed))
    assert (len(blocks), cost) == (59, 60416)  # the figures docs/companion.md quotes
    assert deployed + cost > 320 * 1024
