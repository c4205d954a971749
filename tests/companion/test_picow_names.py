# The names' records through power cuts on the emulated Pico W: mid program, once a game.
"""The RPI_PICO_W build on the emulated RP2040 (no radio), flashed as `shutbox flash` flashes
a Pico W, with its seats named ann and bob (the names' file as the companion saves it). The
first player's turn is played, then the second's up to its last safe point before its score:
that flash is where every run starts. A reference run ends the game: its flash operations
after the last Roll are the end's saves (the box's records', the names', the game's). The
chip is deterministic, so each cut replays the reference's pin changes up to an instant
inside each of those operations (a page program left half done: the end's saves erase
nothing in this run, and this test does not shift the flash to make them), powers up
again and plays the game on to its end from wherever the box resumed it: the names' records
read back from the flash must count the game once, as it ended."""

from __future__ import annotations

import importlib.util
import random

import pytest
from emugame import finish, near_the_end
from needs import pico_w

from shutbox.store import Store
from shutbox_host import mp
from shutbox_host.pico import emulator as emu_mod
from shutbox_host.pico import fsimage
from shutbox_host.pico.emulator import Emulator

pytestmark = [pytest.mark.node, *pico_w()]
UF2_W = emu_mod.picow_uf2()
W = fsimage.boards.BY_NAME["RPI_PICO_W"]
CUTS = 5  # the end's flash operations cut (5 page programs measured: one cut in each)
_SPEC = importlib.util.spec_from_file_location(
    "companion_names", mp.ROOT / "firmware" / "companion" / "names.py")
assert _SPEC is not None and _SPEC.loader is not None
nm = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(nm)


def _names(flash: bytes, tmp) -> dict:
    """The names' records in *flash* ({name: record}), read by the companion's own code."""
    data = fsimage.read_tree(flash, W, paths=["/data/names"]).get("/data/names")
    assert data is not None, "no names file"
    tmp.mkdir(exist_ok=True)
    (tmp / "names").write_bytes(data)
    n = nm.Names(Store(str(tmp)))
    assert n.status == 0 and n.seats[:2] == ["ann", "bob"]
    return {r["name"]: r for r in n.records()}


def _expected(scores: list[int]) -> dict:
    a, b = scores
    out = {}
    for name, mine, other in [("ann", a, b), ("bob", b, a)]:
        draw = mine == other
        won = mine < other
        out[name] = {"name": name, "games": 1, "wins": int(won), "draws": int(draw),
                     "best": mine, "boxes_shut": int(mine == 0),
                     "rating": 1500 if draw else 1516 if won else 1484}
    return out


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The flash near the game's end, and a run from it to the end: its inputs, the end's
    flash operations, the scores."""
    tmp = tmp_path_factory.mktemp("names")
    assert nm.Names(Store(str(tmp))).set_seats(["ann", "bob"]) is None
    tree = fsimage.read_tree(fsimage.build(board="RPI_PICO_W"), W)
    tree["/data/names"] = (tmp / "names").read_bytes()
    with Emulator(uf2=UF2_W, fs=fsimage.image_of(tree, W.fs_blocks), board="RPI_PICO_W") as emu:
        start = near_the_end(emu)
    with Emulator(uf2=UF2_W, flash=start, board="RPI_PICO_W") as emu:
        scores = finish(emu, 0)
        end = emu.inputs[-2][0]  # the Roll that ends the game (pressed, then let go)
        return {"start": start, "inputs": list(emu.inputs), "scores": scores,
                "end": [op for op in emu.flash_ops if op[0] > end],
                "names": _names(emu.flash_image(), tmp / "ref")}


def test_the_game_counts_once_for_each_name(reference):
    assert reference["names"] == _expected(reference["scores"])
    assert len(reference["end"]) >= 3  # the records', the names' and the game's saves


@pytest.mark.parametrize("i", range(CUTS))
def test_a_cut_mid_program_at_the_games_end_counts_it_once(reference, tmp_path, i):
    ops = reference["end"]
    rng = random.Random(25 + i)
    t0, t1 = ops[min(i, len(ops) - 1)][:2]
    cut = t0 + 8 * rng.randrange(1, max(2, (t1 - t0) // 8))
    with Emulator(uf2=UF2_W, flash=reference["start"], board="RPI_PICO_W") as emu:
        emu.replay_inputs(reference["inputs"], cut)
        emu.release()  # Roll held through power-up would be a combination
        n = len(emu.lines)
        emu.power_cut(cut)
        scores = finish(emu, n)
        got = _names(emu.flash_image(), tmp_path)
    assert got == _expected(scores), (i, cut, got)
