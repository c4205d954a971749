# The records through power cuts on the emulated RP2040: mid erase and mid program, each game once.
"""A two-player game on the real rp2 build, cut at random cycles of its saves' flash operations.

The first player's turn is played, then the second's up to its last safe point before its score;
the flash then (the game saved with the first turn's score in its tally) is where every run
starts, as after a power cycle. A reference run plays the second turn to its score and ends the
game: its flash operations are the second turn's last saves ("mid") and the end's ("end": the
records' save, then the game's). The chip is deterministic, so each cut replays the reference's
pin changes up to a chosen instant inside one operation (an erase or a page program left half
done), powers up again, and plays the game on to its end from wherever the box resumed it; the
cuts of a phase replay from one chip booted and run up to the earliest of them, kept and put
back for each (emugame.Replays). The records read back from the flash's littlefs must then
count the game once, both its turns, the best score and the boxes shut, as the game ended.

littlefs erases a block only when its metadata log fills, every few saves: the starting flash is
shifted (the saved game written again with the same bytes, on the host's littlefs) until an
erase falls among each phase's saves, so that both are cut mid erase too.
"""

from __future__ import annotations

import os
import random
import struct
import warnings

import pytest
from emu_skip import require_emulator
from emugame import Replays, finish, near_the_end
from onerun import once

pytestmark = [pytest.mark.node]

require_emulator()

from shutbox import pins, setfile  # noqa: E402
from shutbox.records import _FORMAT  # noqa: E402  # private: no name in the box's RAM
from shutbox.settings import Settings  # noqa: E402
from shutbox_host.pico import fsimage  # noqa: E402
from shutbox_host.pico.emulator import Emulator  # noqa: E402

KEY = setfile.variant_key(Settings(), pins.TILES)
# Cuts in make test, by phase (the end's, where a cut can count a game twice, the most); up
# to SLOW of each under make soak (SHUTBOX_SLOW=1). make test runs a cut only when no earlier
# cut of its phase falls in the same flash operation (the same erase or page program cut at
# another cycle proves nothing more: make soak runs those)
MAKE_TEST = {"mid": 3, "end": 5}
SLOW = 20


def records(flash: bytes) -> tuple[int, int, int, int] | None:
    """(best, turns, boxes shut, games) of the default variant in the flash's records file
    (its store header skipped), or None without one."""
    data = fsimage.read_tree(flash, paths=["/data/records"]).get("/data/records")
    if data is None:
        return None
    payload = data[12:]
    for i in range(0, len(payload) - 15, 16):
        key, *rest = struct.unpack_from(_FORMAT, payload, i)
        if key == KEY:
            return tuple(rest)  # type: ignore[return-value]
    return None


def _shifted(flash: bytes, saves: int) -> bytes:
    """*flash* with /data/game written again *saves* times with the same bytes (a temporary
    file renamed over it: three metadata commits a shift): the metadata log moves on, nothing
    else."""
    off = fsimage.FS_OFFSET
    size = fsimage.BLOCK_SIZE * fsimage.BLOCK_COUNT
    fs = fsimage.new_fs(bytearray(flash[off:off + size]))
    fs.fs_mkconsistent()
    with fs.open("/data/game", "rb") as f:
        game = f.read()
    for _ in range(saves):
        with fs.open("/data/game.tmp", "wb") as f:
            f.write(game)
        fs.rename("/data/game.tmp", "/data/game")
    fs.unmount()
    return flash[:off] + bytes(fs.context.buffer) + flash[off + size:]


def _start(fw_image) -> bytes:
    """The flash near the game's end: the first player's turn scored, the second's at its
    last safe point before the throw or move that ends it (its score still to come)."""
    with Emulator(fs=fw_image) as emu:
        return near_the_end(emu)


def _reference(flash: bytes) -> dict:
    """From *flash*: the second turn played to its score, then the game's end."""
    with Emulator(flash=flash) as emu:
        rec = emu.wait_for(r'"ev": "resume"', timeout_ms=5000)
        assert rec["player"] == 2 and rec["state"] in ("setup", "ready", "rolling"), rec
        scores = finish(emu, 0)
        ops = list(emu.flash_ops)
        end = emu.inputs[-2][0]  # the Roll that ends the game (pressed, then let go)
        return {"flash": flash, "inputs": list(emu.inputs), "scores": scores, "ops": ops,
                "lines": list(emu.lines),
                "mid": [op for op in ops if op[0] < end], "end": [op for op in ops if op[0] > end],
                "records": records(emu.flash_image())}


# The shifts where an erase fell among each phase's saves when the firmware last changed how
# it saves (2: among the second turn's, 12: among the end's): tried first, then every other
# shift up to SHIFTS (the search finds others when the firmware's saves move the erases, and
# warns with the shifts to put here; these only spare it the runs that erase nothing, about
# 8 s of CPU each).
FOUND = (2, 12)
SHIFTS = 40


@pytest.fixture(scope="module")
def references(fw_image, tmp_path_factory):
    """The references, once for the module's tests on whichever workers (onerun)."""
    return once(tmp_path_factory, "emu_records", lambda: _references(_start(fw_image)))


def _references(start: bytes) -> dict:
    """The references from *start*, shifted until an erase falls among the second turn's
    last saves ("mid") and among the end's ("end"): {phase: reference}. A save is one
    metadata commit (written in place) and a shift three, so the metadata log compacts
    within a mid window only at some shifts: up to SHIFTS are tried, FOUND first."""
    found: dict = {}
    shifts: dict = {}
    for shift in [*FOUND, *(s for s in range(SHIFTS) if s not in FOUND)]:
        ref = _reference(_shifted(start, shift))
        for phase in ("mid", "end"):
            if phase not in found and any(op[2] for op in ref[phase]):
                found[phase], shifts[phase] = ref, shift
        if len(found) == 2:
            if not set(shifts.values()) <= set(FOUND):
                warnings.warn("test_emu_records: FOUND = %r spares the search's runs now"
                              % (tuple(sorted(set(shifts.values()))),), stacklevel=1)
            return found
    raise AssertionError("no erase among the saves in %d shifts: %s" % (SHIFTS, sorted(found)))


def test_a_game_resumed_after_a_power_cycle_counts_its_turns_before(references):
    """The references themselves: the power went off and on after the first turn and most of
    the second (*start*); the records count both turns, and the game once."""
    for ref in references.values():
        assert ref["records"] == _expected(ref["scores"])


def _expected(scores: list[int]) -> tuple[int, int, int, int]:
    return min(scores), len(scores), scores.count(0), 1


def _cuts(refs: dict, phase: str, n: int) -> list[tuple[str, int]]:
    """*n* instants in the flash operations of *phase*'s saves (the end's, or the second
    turn's last): every third in an erase, the others in a page program, each at a random
    cycle (8 ns) inside it."""
    rng = random.Random(21 if phase == "mid" else 9)
    ops = refs[phase][phase]
    erases = [op for op in ops if op[2]]
    programs = [op for op in ops if not op[2]]
    out = []
    for j in range(n):
        kind, pool = ("erase", erases) if j % 3 == 0 else ("program", programs)
        t0, t1 = rng.choice(pool)[:2]
        out.append((kind, t0 + 8 * rng.randrange(1, (t1 - t0) // 8)))
    return out


def _op_of(ops: list, cut: int) -> int:
    """The index of the flash operation of *ops* under way at *cut*."""
    return next(k for k, op in enumerate(ops) if op[0] <= cut < op[1])


@pytest.fixture(scope="module")
def replays(references):
    """The chip each phase's cuts replay from (emugame.Replays), booted at its first cut and
    run up to the earliest cut of the phase this run makes."""
    made: dict = {}

    def get(phase: str) -> Replays:
        if phase not in made:
            ref = references[phase]
            n = SLOW if os.environ.get("SHUTBOX_SLOW") == "1" else MAKE_TEST[phase]
            start = min(cut for _, cut in _cuts(references, phase, SLOW)[:n]) - 1
            made[phase] = Replays(ref["inputs"], ref["ops"], ref["lines"], start,
                                   flash=ref["flash"])
        return made[phase]

    yield get
    for r in made.values():
        r.stop()


def _cut_and_finish(replays: Replays, cut: int) -> tuple:
    """Run the reference again up to *cut*, cut the power there, play the game to its end:
    return (the records, what they should be)."""
    emu = replays.to(cut)
    emu.release()  # Roll held through power-up would be a combination
    n = len(emu.lines)
    emu.power_cut(cut)
    scores = finish(emu, n)
    return records(emu.flash_image()), _expected(scores)


@pytest.mark.parametrize("phase,i", [
    pytest.param(phase, i, marks=[pytest.mark.slow] * (i >= MAKE_TEST[phase]))
    for phase in ("mid", "end") for i in range(SLOW)])
def test_a_cut_mid_erase_or_mid_program_counts_the_game_once(references, replays, phase, i):
    """A cut at a random cycle of an erase or a page program of the second turn's last saves
    or of the end's (the records' save, then the game's), then the game played to its end:
    the game counted once, both turns, the best score and the boxes shut."""
    cuts = _cuts(references, phase, SLOW)
    kind, cut = cuts[i]
    op = _op_of(references[phase][phase], cut)
    same = [j for j in range(i) if _op_of(references[phase][phase], cuts[j][1]) == op]
    if same and os.environ.get("SHUTBOX_SLOW") != "1":
        pytest.skip("cuts the flash operation %s-%d cuts already (make soak runs it)"
                    % (phase, same[0]))
    got, want = _cut_and_finish(replays(phase), cut)
    assert got == want, (phase, kind, cut, "records (best, turns, shut, games)", got,
                         "want", want)
