# Bench: the Pico W with its companion, on the emulated RP2040 (its real MicroPython, no radio).
"""figures(soak) -> the picow_* figures: MicroPython v1.28's RPI_PICO_W build on rp2040js
(shutbox_host.pico.emulator, ``board="RPI_PICO_W"``), its flash laid out as `shutbox flash`
leaves a Pico W (the firmware and the companion: shutbox_host.pico.fsimage). rp2040js has no
CYW43: the radio never starts, so these are the heap and flash of the box and the companion's
code without the radio's own (lwIP's pools, the CYW43 driver's buffers: docs/companion.md
gives them from MicroPython's sources, cited). The heap is MicroPython's GC heap on the
32-bit chip, read with gc.mem_free() after gc.collect().

- picow_boot_to_play_ms: power-up to the first turn's ``turn`` record (the radio's failed
  first start included).
- picow_heap_bytes: the GC heap (free + allocated) on the Pico W build;
  picow_heap_free_repl_bytes: free at its REPL, nothing loaded.
- picow_companion_import_bytes: the heap ``import companion.web, companion.live`` holds at a
  fresh REPL (microdot's four modules, asyncio, the companion's two); of which
  picow_microdot_import_bytes is ``import microdot, microdot.sse`` alone (asyncio with it);
  picow_wifi_import_bytes: ``import companion.wifi`` alone (the networking, loaded once the
  radio runs: asyncio, socket and select with it); picow_names_import_bytes: ``import
  companion.names`` alone (the seats' names and their records, loaded when a phone shows the
  game or at a game's end once a seat has been named).
- picow_heap_free_min_bytes: the least gc.mem_free() after a gc.collect() every 100 ms (a
  machine.Timer probe started by a boot.py, itself a few KB) over an all-features game (1
  player and the hard computer, best-move hints, Canoga stakes, ties by roll-off) with the
  companion on and its seat named (the players' names: companion.names counts the game at
  its end and saves); picow_heap_live_max_bytes = picow_heap_bytes - that.
- picow_flash_blocks_used: 4 KB littlefs blocks in use on the Pico W's filesystem after the
  boot (os.statvfs on the chip) of picow_fs_blocks; picow_companion_blocks: the blocks the
  companion's files take (the release with it less the release without, as `shutbox flash`
  counts them).
"""

from __future__ import annotations

_TURN = r'"ev": "turn"'
_PROBE = """\
import gc, machine
_lo = [1 << 30]
def _probe(t):
    gc.collect()
    f = gc.mem_free()
    if f < _lo[0]:
        _lo[0] = f
_tm = machine.Timer(period=100, callback=_probe, hard=False)
"""
_IMPORT = """\
import gc, sys
sys.path.insert(0, %r)
gc.collect()
a = gc.mem_free()
import %s
gc.collect()
print("COST", a - gc.mem_free(), gc.mem_free() + gc.mem_alloc(), a)
"""


def _import_cost(uf2, tree: dict, version: str, modules: str) -> tuple[int, int, int]:
    """Boot a Pico W holding *tree* but no launcher (its REPL), import *modules* from the
    version folder; return (bytes they hold, the heap, free before)."""
    from shutbox_host.pico import fsimage
    from shutbox_host.pico.emulator import Emulator

    tree = {p: d for p, d in tree.items() if p != "/main.py"}
    fs = fsimage.image_of(tree, fsimage.boards.BY_NAME["RPI_PICO_W"].fs_blocks)
    with Emulator(uf2=uf2, fs=fs, board="RPI_PICO_W") as emu:
        emu.run(ms=300)
        emu.write(b"\r\n")
        emu.prompt(since=0)
        out = emu.exec(_IMPORT % ("/.shutbox/" + version, modules))
    cost, heap, free = (int(v) for v in next(
        x for x in out.splitlines() if x.startswith("COST")).split()[1:])
    return cost, heap, free


def _game(uf2) -> dict:
    """The all-features game with the companion on, the heap probed (rp2's, from boot.py)."""
    from shutbox import pins
    from shutbox_host.bench.rp2 import settings_file
    from shutbox_host.pico import autoplay, fsimage
    from shutbox_host.pico.companion import names_file
    from shutbox_host.pico.emulator import Emulator

    data = settings_file(players=1, computer=3, hints=2, stakes=1, tie=1)
    fs = fsimage.build(board="RPI_PICO_W", extra={"/data/settings": data,
                                                  "/data/names": names_file(["ann"]),
                                                  "/boot.py": _PROBE.encode()})
    with Emulator(uf2=uf2, fs=fs, board="RPI_PICO_W") as emu:
        turn = emu.wait_for(_TURN, timeout_ms=8000)
        emu.run(ms=300)
        autoplay.play_turn(emu, autoplay.engine())
        emu.run(ms=2500)  # the score, then the analysis count
        emu.set_open((1 << pins.TILES) - 1)  # the computer's turn starts on open tiles
        emu.run(ms=100)
        n = len(emu.lines)
        emu.click(100)
        emu.wait_for(r'"ev": "score".*"player": 2|"player": 2.*"ev": "score"',
                     timeout_ms=60000, since=n)
        emu.run(ms=1500)
        n = len(emu.lines)
        emu.click(100)
        win = emu.wait_for(r'"ev": "(winner|rolloff)"', timeout_ms=10000, since=n)
        emu.run(ms=1000)
        said = emu.events("companion")
        faults = emu.events("fault")
        out = emu.repl("_tm.deinit()\nimport os, sys\nst = os.statvfs('/')\n"
                       "from companion import picow\nn = picow.live.names\n"
                       "print('LO', _lo[0], gc.mem_free() + gc.mem_alloc(), st[2] - st[3], "
                       "st[2], int('companion.web' in sys.modules), "
                       "n.entry(n.find('ann'))[0] if n else -1)\n")
    lo, total, used, blocks, served, named = (int(v) for v in next(
        x for x in out.splitlines() if x.startswith("LO")).split()[1:])
    if win["ev"] == "winner" and named != 1:
        raise AssertionError("the names' records did not count the game: %d" % named)
    if faults or not served or [s for s in said if s.get("error") != "radio"]:
        raise AssertionError("the Pico W's companion did not run as it should: %s %s"
                             % (said, faults))
    return {"picow_boot_to_play_ms": round(turn["_ms"], 1), "picow_heap_free_min_bytes": lo,
            "picow_heap_bytes": total, "picow_heap_live_max_bytes": total - lo,
            "picow_heap_game_end": win["ev"], "picow_flash_blocks_used": used,
            "picow_fs_blocks": blocks}


def figures(soak=False, uf2=None):
    """Measure the picow_* figures; {} with a note when the emulator cannot run here."""
    from shutbox_host.pico import emulator, flash, fsimage

    why = emulator.missing()
    uf2 = uf2 or emulator.picow_uf2()
    if why is None and uf2 is None:
        why = "no RPI_PICO_W uf2 (../shared/rp2040/ or $SHUTBOX_UF2_PICO_W)"
    if why is not None:
        return {"picow_skipped": why}
    with_c = flash.prepare(flash.mp.FIRMWARE, fsimage.BOARD_MPY, companion=True)
    without = flash.prepare(flash.mp.FIRMWARE, fsimage.BOARD_MPY)
    out = {"picow_companion_blocks": with_c.blocks() - without.blocks(),
           "picow_companion_files": len(with_c.files) - len(without.files)}
    tree = with_c.tree()
    cost, heap, free = _import_cost(uf2, tree, with_c.version, "companion.web, companion.live")
    out.update(picow_companion_import_bytes=cost, picow_heap_free_repl_bytes=free)
    out["picow_microdot_import_bytes"] = _import_cost(uf2, tree, with_c.version,
                                                      "microdot, microdot.sse")[0]
    out["picow_wifi_import_bytes"] = _import_cost(uf2, tree, with_c.version,
                                                  "companion.wifi")[0]
    out["picow_names_import_bytes"] = _import_cost(uf2, tree, with_c.version,
                                                   "companion.names")[0]
    out.update(_game(uf2))
    return out
