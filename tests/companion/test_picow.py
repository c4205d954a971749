# The companion on the emulated Pico W (its real MicroPython build, no radio): it boots and plays.
"""The RPI_PICO_W build of MicroPython v1.28 on the emulated RP2040 (rp2040js has no CYW43: the
radio never starts), flashed as `shutbox flash` flashes a Pico W (the companion beside the
firmware): the box boots, the radio's failure is one line of its log and no fault, a whole
game plays through the pins while the companion's code runs (its server made and listening,
its state following the game); a Pico, even with the companion's files on its flash, never
looks for them."""

from __future__ import annotations

import json

import pytest
from needs import pico_w

from shutbox_host.pico import autoplay, flash, fsimage
from shutbox_host.pico import emulator as emu_mod
from shutbox_host.pico.emulator import Emulator

pytestmark = [pytest.mark.node, *pico_w()]
UF2_W = emu_mod.picow_uf2()
_TURN = r'"ev": "turn"'
_LOOK = """\
import sys, json
from companion import picow
lv = picow.live
lines = bytes(lv.log).decode().splitlines()
print("LOOK " + json.dumps({"mods": sorted(sys.modules), "state": lv.state(),
      "listening": lv.server is not None and lv.server.server is not None,
      "lines": len(lines), "first": lines[0], "last": lines[-1]}))
"""


def _look(emu: Emulator) -> dict:
    out = emu.repl(_LOOK)
    return json.loads(next(x for x in out.splitlines() if x.startswith("LOOK "))[5:])


def test_the_pico_w_boots_and_plays_with_its_companion_and_no_radio():
    fs = fsimage.build(board="RPI_PICO_W")
    tree = fsimage.read_tree(fs, fsimage.boards.BY_NAME["RPI_PICO_W"])
    assert [p for p in tree if "/companion/" in p] and [p for p in tree if "/microdot/" in p]
    with Emulator(uf2=UF2_W, fs=fs, board="RPI_PICO_W") as emu:
        turn = emu.wait_for(_TURN, timeout_ms=8000)
        said = emu.events("companion")
        assert len(said) == 1 and said[0]["error"] == "radio", said  # one line, then it plays
        assert not emu.events("fault")
        assert turn["_ms"] < 2000  # (902 ms measured; the radio's first start took 350 ms)
        emu.run(ms=300)
        win = autoplay.play_game(emu, 2)
        assert not emu.events("fault") and len(emu.events("companion")) == 1
        assert not emu.resets
        look = _look(emu)
    mods = set(look["mods"])
    assert {"companion.picow", "companion.live", "companion.web", "microdot.microdot",
            "microdot.sse", "asyncio"} <= mods, mods
    assert look["listening"]  # its server was made and listened (on no interface)
    st = look["state"]
    assert st["state"] == "game-end" and st["winners"] == win["players"], (st, win)
    assert st["scores"] == win["scores"]
    # the page's log: from the companion's start (its radio's line; the settings record
    # came before, on the console alone) to the winner
    first = json.loads(look["first"])
    assert first["ev"] == "companion" and first["error"] == "radio"
    assert json.loads(look["last"])["ev"] == "winner"


def test_a_pico_never_looks_for_the_companion():
    """A Pico's flash with the companion's files put there by hand: the box never imports
    them (shutbox.supply knows a Pico W by its build; shutbox.sleep asks only then)."""
    tree = flash.prepare(flash.mp.FIRMWARE, fsimage.BOARD_MPY, companion=True).tree()
    assert [p for p in tree if "/companion/picow.mpy" in p]
    with Emulator(fs=fsimage.image_of(tree)) as emu:
        emu.wait_for(_TURN, timeout_ms=5000)
        emu.run(ms=300)
        autoplay.play_turn(emu, autoplay.engine())
        assert not emu.events("companion") and not emu.events("fault")
        out = emu.repl("import sys\nprint('MODS', sorted(sys.modules))")
    mods = next(x for x in out.splitlines() if x.startswith("MODS"))
    assert "companion" not in mods and "microdot" not in mods and "shutbox.sleep" in mods


def test_roll_and_tile_4_at_power_up_show_the_access_points_passphrase_on_the_dice():
    """The passphrase of the box's own network, derived from its chip id: two faces at a
    time, tile 1 lit amber for the first two ... tile 5 for the last; Roll again ends it and
    the box plays (the emulated chip's id is all zeros: the passphrase is that id's)."""
    from shutbox import pins
    from shutbox_host.model.leds import face, tiles_lit

    fs = fsimage.build(board="RPI_PICO_W")
    with Emulator(uf2=UF2_W, fs=fs, board="RPI_PICO_W") as emu:
        emu.press()
        emu.shut(4)
        emu.run(ms=9000)  # the power-up, then the passphrase's five pairs and its pause
        assert not emu.events("turn")  # it waits for Roll
        shown = {}
        for f in emu.frames:
            lit = tiles_lit(f.tiles, "Y")
            if len(lit) == 1 and set(f.tiles) <= {".", "Y"}:
                shown[lit[0]] = "%d%d" % (face(f.die_a), face(f.die_b))
        emu.release()
        emu.run(ms=300)
        emu.press()
        emu.run(ms=200)
        emu.release()
        emu.open(4)
        emu.wait_for(_TURN, timeout_ms=5000)
        out = emu.repl("from companion import wifi\nimport machine\n"
                       "print('KEY', wifi.passphrase(machine.unique_id()))")
    key = next(x for x in out.splitlines() if x.startswith("KEY")).split()[1]
    assert len(key) == 10 and set(key) <= set("123456")
    assert "".join(shown[k] for k in sorted(shown)) == key, (shown, key)
    assert pins.TILES >= 5
