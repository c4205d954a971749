# The names' records through power cuts on the emulated Pico W: in each end save, once a game.
"""The RPI_PICO_W build on the emulated RP2040 (no radio), flashed as `shutbox flash` flashes
a Pico W, with its seats named ann and bob and each name's record of earlier games (the names'
file as the companion saves it). The first player's turn is played, then the second's up to
its last safe point before its score: that flash is where every run starts. A reference run
ends the game: its flash operations after the last Roll are the end's saves (the box's
records', the names', the game's), each told apart by the flash's history (the file that
changes when its last page program is done). The chip is deterministic, so each cut replays
the reference's pin changes up to an instant inside one of those operations (left half done)
or just after the game's save (from one chip booted and run up to the earliest cut, kept and
put back for each: emugame.Replays), powers up again and plays the game on to its end from
wherever the box resumed it: the names' records read back from the flash must count the game
once, every field as it ended. The cut inside the game's save, after the names' (the game
resumes from before its end and ends again) and the one after it (the game resumes at its
end) are where the names' file must tell that it counted the game already.

The box's dice draw on the chip's clock, so which game is played (a win or a draw, a box shut
or not) follows the image: the earlier records make every field's sum show, whatever the game
(a count, a best score lower or not)."""

from __future__ import annotations

import importlib.util
import random
import struct

import pytest
from emugame import Replays, finish, near_the_end
from needs import pico_w
from onerun import once

from shutbox.store import Store
from shutbox_host import mp
from shutbox_host.pico import emulator as emu_mod
from shutbox_host.pico import fsimage
from shutbox_host.pico.emulator import Emulator

pytestmark = [pytest.mark.node, *pico_w()]
UF2_W = emu_mod.picow_uf2()
W = fsimage.boards.BY_NAME["RPI_PICO_W"]
# where the end's saves are cut: mid the first operation after the last Roll, mid the page
# program that completes the box's records' save, the names', the game's, and just after it
CUTS = ("first", "records", "names", "game", "after")
# the records before this game: (games, wins, draws, boxes shut, best score), rating _START
EARLIER = {"ann": (4, 1, 1, 1, 45), "bob": (2, 0, 1, 0, 3)}
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


def _seeded(tmp) -> bytes:
    """The names' file in *tmp*: the seats ann and bob, each with its EARLIER record."""
    n = nm.Names(Store(str(tmp)))
    assert n.set_seats(["ann", "bob"]) is None
    for name, (games, wins, draws, shut, best) in EARLIER.items():
        i = n._slot(name, ())
        struct.pack_into(nm._FORMAT, n.buf, nm._HEAD + nm._ENTRY * i + nm._LEN, games, wins,
                         draws, shut, best, nm._START, 0)
    assert n.save() == 0
    return (tmp / "names").read_bytes()


def _expected(scores: list[int]) -> dict:
    """The records once the game of two that ended with *scores* is counted (both played)."""
    a, b = scores
    out = {}
    for name, mine, other in [("ann", a, b), ("bob", b, a)]:
        draw = mine == other
        won = mine < other
        games, wins, draws, shut, best = EARLIER[name]
        out[name] = {"name": name, "games": games + 1, "wins": wins + won,
                     "draws": draws + draw, "best": min(best, mine),
                     "boxes_shut": shut + (mine == 0),
                     "rating": 1500 if draw else 1516 if won else 1484}
    return out


def _saves(flash_history, ops: list, end: int) -> dict:
    """{file: index in *ops*} of the end's operations (after *end*, ns) after which each of
    the names', the box's records' and the game's files read otherwise."""
    paths = ["/data/names", "/data/records", "/data/game"]
    out: dict = {}
    before = None
    for op, img in zip([None, *ops], flash_history, strict=True):
        now = fsimage.read_tree(img, W, paths=paths)
        if op is not None and op[0] > end:
            for p in paths:
                if now.get(p) != before.get(p):
                    out.setdefault(p.rsplit("/", 1)[1], ops.index(op))
        before = now
    return out


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The reference, once for the module's tests on whichever workers (onerun)."""
    return once(tmp_path_factory, "picow_names", lambda: _reference(tmp_path_factory))


def _reference(tmp_path_factory):
    """The flash near the game's end, and a run from it to the end: its inputs, the end's
    flash operations, the scores."""
    tmp = tmp_path_factory.mktemp("names")
    tree = fsimage.read_tree(fsimage.build(board="RPI_PICO_W"), W)
    tree["/data/names"] = _seeded(tmp)
    with Emulator(uf2=UF2_W, fs=fsimage.image_of(tree, W.fs_blocks), board="RPI_PICO_W") as emu:
        start = near_the_end(emu)
    with Emulator(uf2=UF2_W, flash=start, board="RPI_PICO_W", keep_writes=True) as emu:
        scores = finish(emu, 0)
        end = emu.inputs[-2][0]  # the Roll that ends the game (pressed, then let go)
        ops = list(emu.flash_ops)
        return {"start": start, "inputs": list(emu.inputs), "scores": scores,
                "end": [op for op in ops if op[0] > end], "ops": ops,
                "lines": list(emu.lines),
                "saves": _saves(emu.flash_history(), ops, end),
                "names": _names(emu.flash_image(), tmp / "ref")}


def test_the_game_counts_once_for_each_name(reference):
    assert reference["names"] == _expected(reference["scores"])
    saves = reference["saves"]
    # the box's records' save, then the names', then the game's
    assert sorted(saves, key=saves.get) == ["records", "names", "game"], saves


def _cut(reference, where: str) -> int:
    """The ns of the cut *where* (CUTS) in the reference's end."""
    ops, saves = reference["ops"], reference["saves"]
    if where == "after":  # the game saved at its end: the box resumes it there
        return ops[saves["game"]][1] + 1_000_000
    t0, t1 = (reference["end"][0] if where == "first" else ops[saves[where]])[:2]
    return t0 + 8 * random.Random(25 + CUTS.index(where)).randrange(1, (t1 - t0) // 8)


@pytest.fixture(scope="module")
def replays(reference):
    """The chip the cuts replay from: booted, run up to the earliest cut."""
    start = min(_cut(reference, where) for where in CUTS) - 1
    r = Replays(reference["inputs"], reference["ops"], reference["lines"], start, uf2=UF2_W,
                flash=reference["start"], board="RPI_PICO_W")
    yield r
    r.stop()


@pytest.mark.parametrize("where", CUTS)
def test_a_cut_at_the_games_end_counts_it_once(reference, replays, tmp_path, where):
    """A cut inside one of the end's flash operations, or after the game's save, then the
    game played on to its end: every field of both names' records counts it once."""
    cut = _cut(reference, where)
    emu = replays.to(cut)
    emu.release()  # Roll held through power-up would be a combination
    n = len(emu.lines)
    emu.power_cut(cut)
    scores = finish(emu, n)
    got = _names(emu.flash_image(), tmp_path)
    assert got == _expected(scores), (where, cut, got)
