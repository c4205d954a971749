# Power cuts on the emulated RP2040 at random cycles, mid erase and mid program: no garbage.
"""A reference turn (two if the first erased nothing) on the real rp2 build; then the same run
again, cut at chosen emulated times.

The chip is deterministic (the same inputs at the same emulated times give the same run), so
every cut replays the reference's pin changes up to its moment, cuts the power there (an erase
or a page program under way stays half done: some cells done, some not), and powers up from
that flash. The littlefs must mount (littlefs-python), /data's files must be a version the
reference's flash held between two of its operations (or still missing), the firmware must
read its settings and records as whole, report no damaged file, and the saved game must resume
and play on. The cuts replay from one chip booted and run up to the earliest of them, kept and
put back for each (emugame.Replays).
"""

from __future__ import annotations

import os
import random

import pytest
from emu_skip import require_emulator
from emugame import Replays
from onerun import once

pytestmark = [pytest.mark.node]

require_emulator()

from shutbox import pins  # noqa: E402
from shutbox_host.pico import autoplay, fsimage  # noqa: E402
from shutbox_host.pico.emulator import Emulator  # noqa: E402

FILES = ("/data/settings", "/data/records", "/data/game")


def _tree(img: bytes) -> dict:
    tree = fsimage.read_tree(img, paths=FILES)
    return {p: tree.get(p) for p in FILES}


@pytest.fixture(scope="module")
def reference(fw_image, tmp_path_factory):
    """The reference run, once for the cuts on whichever workers (onerun)."""
    return once(tmp_path_factory, "emu_flash", lambda: _reference(fw_image))


def _reference(fw_image):
    """One turn from power-up, its flash operations and every version of /data's files: the
    flash after each operation (a save at a throw is on the flash until the next save, which
    can come before the player sees the throw: a throw that ends the turn)."""
    with Emulator(fs=fw_image, keep_writes=True) as emu:

        def pause():  # the player looks at each throw and move a moment
            emu.run(ms=100)

        emu.wait_for(r'"ev": "turn"', timeout_ms=5000)
        emu.run(ms=100)
        pause()
        autoplay.play_turn(emu, autoplay.engine(), after=pause)
        pause()
        # a save erases about once in fifteen (one metadata commit each, shutbox.store): the
        # second player's turn too if the first erased nothing, so that a cut falls mid erase
        if not any(op[2] for op in emu.flash_ops):
            emu.run(ms=750)
            emu.set_open((1 << pins.TILES) - 1)
            emu.run(ms=60)
            n = len(emu.lines)
            emu.click(100)
            emu.wait_for(r'"ev": "turn"', timeout_ms=3000, since=n)
            pause()
            autoplay.play_turn(emu, autoplay.engine(), after=pause)
            pause()
        versions: dict = {p: set() for p in FILES}
        last = b""
        for last in emu.flash_history():
            for p, v in _tree(last).items():
                versions[p].add(v)
        assert last == emu.flash_image()  # the operations kept make the flash as it is
        return {"inputs": list(emu.inputs), "ops": list(emu.flash_ops), "versions": versions,
                "end": emu.now_ns, "log": list(emu.log),
                "lines": list(emu.lines)}


def _cuts(ref) -> list[tuple[str, int]]:
    rng = random.Random(2026)
    erases = [op for op in ref["ops"] if op[2]]
    programs = [op for op in ref["ops"] if not op[2]]
    assert len(erases) >= 1 and len(programs) >= 10, (len(erases), len(programs))
    cuts = []
    for kind, ops in (("erase", erases), ("program", programs)):
        for op in rng.choices(ops, k=2):  # an erase may be the only one: cut at two points
            t0, t1 = op[0], op[1]
            cuts.append((kind, t0 + (t1 - t0) * rng.randint(10, 90) // 100))
    first = ref["ops"][0][0]
    for _ in range(2):
        cuts.append(("anywhere", rng.randint(first, ref["end"])))
    return cuts


def _made(i: int) -> bool:
    """Whether this run makes cut *i*: the odd ones under SHUTBOX_SLOW=1 (make soak) alone."""
    return i % 2 == 0 or os.environ.get("SHUTBOX_SLOW") == "1"


@pytest.fixture(scope="module")
def replays(fw_image, reference):
    """The chip the cuts replay from: booted, run up to the earliest cut this run makes."""
    start = min(cut for i, (_, cut) in enumerate(_cuts(reference)) if _made(i)) - 1
    r = Replays(reference["inputs"], reference["ops"], reference["lines"], start, fs=fw_image)
    yield r
    r.stop()


# One cut of each kind (mid erase, mid program, anywhere) in make test; the second of each
# (odd i) under SHUTBOX_SLOW=1 (make soak).
@pytest.mark.parametrize("i", [pytest.param(i, marks=[pytest.mark.slow] * (i % 2))
                               for i in range(6)])
def test_a_power_cut_leaves_the_old_or_the_new_version_and_the_game_resumes(replays,
                                                                             reference, i):
    kind, cut = _cuts(reference)[i]
    emu = replays.to(cut)  # the reference run up to the cut, its time reached
    # the player lets go of Roll if the cut came mid press, whatever the flash was doing (a
    # save's erase can fall in a press); held through power-up it is a combination, no press
    emu.release()
    emu.power_cut(cut)
    tree = _tree(emu.flash_image())  # mounts: littlefs survived the cut
    for path, data in tree.items():
        assert data in reference["versions"][path], (kind, cut, path, data)
    n = len(emu.lines)
    st = emu.wait_for(r'"ev": "settings"', timeout_ms=5000, since=n)
    assert st["status"] in (0, 1), st  # whole, or not written yet: never damaged
    rec = emu.wait_for(r'"ev": "(resume|turn)"', timeout_ms=3000, since=n)
    emu.run(ms=200)
    notices = [r for r in emu.log[n:] if r.get("ev") == "notice"]
    assert not any(set(r["tiles"]) & {1, 2, 3} for r in notices), notices
    if rec["ev"] == "turn":  # the cut came before the game was first saved
        assert tree["/data/game"] in reference["versions"]["/data/game"]
        return
    # the game resumes: put the tiles as it saved them, then play on from its state
    open_ = sum(1 << (k - 1) for k in rec["open"])
    eng = autoplay.engine()
    n = len(emu.lines)
    if rec["state"] == "move":
        emu.set_open(open_)
        emu.run(ms=200)
        a, b = (rec["dice"] + [0])[:2]
        move = eng.best_move(open_, a, b)
        autoplay.shut_move(emu, move)
        moved = emu.wait_for(r'"ev": "(move|score)"', timeout_ms=2000, since=n)
        assert moved["player"] == rec["player"]
    elif rec["state"] in ("setup", "ready", "rolling"):
        emu.set_open(open_)
        emu.run(ms=200)
        if rec["state"] != "rolling":
            emu.click(100)
        throw = emu.wait_for(r'"ev": "throw"', timeout_ms=3000, since=n)
        assert throw["open"] == rec["open"] and throw["player"] == rec["player"]
    else:
        assert rec["state"] == "turn_end", rec
