# Flash figures for `shutbox bench`: lean deploys and updates on a virtual Pico W's real littlefs.
"""figures(soak) -> what a flash puts on a board and holds during an update, its times, and
the size of the one-file uf2 of each Pico board.

A virtual Pico W (vpico ``fs_image``: MicroPython's own littlefs, the Pico W's 212 blocks of
4 KB) gets firmware/ for the 9-tile box (hardware/pinmap.json), then a code-only update (one
module changed) and a table update (n9.bin changed in one byte), each a real `shutbox flash`
through mpremote, without the companion (``--no-companion``: the firmware's own figures; the
companion's are shutbox_host.bench.picow's). At every step of each flash (flash.flash's
on_point: the folders made, each upload, verified, the launcher, the switch, the journal's
moves, the clean-up) the board itself reports what it holds:

- deployed_bytes: the bytes of every file the flash owns (/main.py, /.shutbox/...) after
  the first flash; deployed_files, deployed_blocks (littlefs blocks in use then, the box's
  /data included, from statvfs corrected for its double count of folders: see flash.py);
- deployed_ahead_bytes: of those, the flash's erase ahead's modules (shutbox/ahead.mpy and
  shutbox/chip.mpy: an RP2040 board's alone, layout.RP2040_ONLY);
- update_peak_bytes: the most those files held at any step of the code-only update (old
  and new version together), update_peak_ratio = that / deployed_bytes; and
  update_peak_bytes_tables, update_peak_ratio_tables for the table update, which must hold
  the old and the new n9.bin until the switch; update_peak_blocks(_tables) likewise;
- flash_s_vpico: the first flash, compiling to .mpy from a cold cache as on a fresh clone;
  flash_s_vpico_unchanged: the same firmware again; flash_s_vpico_update: the code change;
- uf2_bytes_<BOARD>: `shutbox uf2` for each board whose MicroPython uf2 is in
  ../shared/rp2040 (uf2_missing lists the others).

What a flash asks of the board's heap, on the emulated Pico W (MicroPython v1.28's RPI_PICO_W
build on rp2040js: the real 32-bit heap), the code change flashed over firmware/ with the
companion (as fsimage lays a Pico W out), the box playing when the flash connects:
- flash_heap_start_picow: the heap in use when the flash's session starts (gc.collect() after
  its soft reset: nothing of the box or the companion is left);
  flash_heap_used_max_picow: the most in use, after a collection, before any of its
  commands; flash_heap_block_min_picow: the least largest free block then (bytes);
- flash_heap_holes_picow: the smallest of 4096, 3072, 2560 and 2048 bytes such that the
  update completes on a heap cut into holes of that size (HOLES: nothing larger is free);
  flash_heap_holes_fail_picow: the next size down, with which it failed (None: none did);
- flash_s_picow_update: the update, on the emulated chip's clock (the chip at about real time
  beside the host, its waits for the host counted: varies with the host's load).
(flash_heap_skipped says why there are none: no emulator, no Pico W uf2.)
"""

from __future__ import annotations

import contextlib
import re
import shutil
import tempfile
import time
from pathlib import Path

from shutbox_host import mp
from shutbox_host.model import boards
from shutbox_host.pico import flash, uf2, vpico

_HELD = """\
def _sz(d):
    n = 0
    for e in os.ilistdir(d):
        p = d + '/' + e[0]
        n += _sz(p) if e[1] & 0x4000 else os.stat(p)[6]
    return n
try:
    m = os.stat('/main.py')[6]
except OSError:
    m = 0
s = os.statvfs('/')
print(repr((_sz('/.shutbox') + m, s[2] - s[3] - 2 * _ndirs('/'))))
"""


# The board's free heap cut into holes of %d bytes: its free heap taken in blocks of that size,
# what is left filled with smaller ones, then every other block of that size let go, so nothing
# larger is free (it prints whether a block 1 KB larger, %d bytes, is refused: "holes")
HOLES = """\
import gc
gc.collect()
_k = [None] * 100
_s = [None] * 3000
_i = _j = 0
try:
    while _i < 100:
        _k[_i] = bytes(%d)
        _i += 1
except MemoryError:
    pass
for _z in (1024, 256, 64, 16):
    try:
        while _j < 3000:
            _s[_j] = bytes(_z)
            _j += 1
    except MemoryError:
        pass
for _i in range(1, 100, 2):
    _k[_i] = None
_i = _j = _z = None
gc.collect()
try:
    bytes(%d)
    print('room')
except MemoryError:
    print('holes')
"""

_HEAP = """\
import gc, micropython, sys
gc.collect()
micropython.mem_info()
print('block', 32 if sys.maxsize > 1 << 32 else 16)
"""
_HEAP_RE = re.compile(r"used: (\d+),.*max free sz: (\d+).*block (\d+)", re.S)


def _ahead_bytes() -> int:
    """The bytes of the erase ahead's modules in a Pico's release (.mpy as the board's)."""
    from shutbox_host.model import layout
    from shutbox_host.pico import fsimage

    files = flash.prepare(mp.FIRMWARE, fsimage.BOARD_MPY).files
    return sum(len(files[rel[:-3] + ".mpy"]) for rel in layout.RP2040_ONLY)


def holes(size: int) -> str:
    """The HOLES script for holes of *size* bytes."""
    return HOLES % (size, size + 1024)


def board_heap(board: flash.Board) -> tuple[int, int]:
    """(bytes in use, bytes of the largest free block) on *board* after a collection."""
    m = _HEAP_RE.search(board.t.exec(_HEAP).decode())
    if m is None:
        raise RuntimeError("no heap figures from the board")
    return int(m.group(1)), int(m.group(2)) * int(m.group(3))


@contextlib.contextmanager
def board_hooks(connected=None, before=None):
    """`shutbox flash`'s Board with *connected*(board) called once its raw REPL is entered
    (after the soft reset) and *before*(board, code) before each of its commands: a look
    into the flash's own session, which the product has no hook for."""
    init, run = flash.Board.__init__, flash.Board.exec

    def __init__(self, port):
        init(self, port)
        if connected is not None:
            connected(self)

    def exec_(self, code):
        if before is not None:
            before(self, code)
        return run(self, code)

    flash.Board.__init__, flash.Board.exec = __init__, exec_  # type: ignore[method-assign]
    try:
        yield
    finally:
        flash.Board.__init__, flash.Board.exec = init, run  # type: ignore[method-assign]


def _picow_update(uf2_path, fs: bytes, firmware: Path, **hooks) -> tuple[bool, float]:
    """Flash *firmware* to an emulated Pico W holding *fs*, the box playing; return whether
    it completed and its seconds on the emulated clock."""
    from shutbox_host.pico import emu_cli
    from shutbox_host.pico.emulator import Emulator

    with Emulator(uf2=uf2_path, fs=fs, board="RPI_PICO_W") as emu:
        emu.wait_for(r'"ev": "turn"', timeout_ms=20000)
        bridge = emu_cli.Bridge(emu)
        port = bridge.start()
        t0 = emu.now_ms
        try:
            with board_hooks(**hooks):
                flash.flash(port, firmware=firmware, out=lambda line: None)
            done = True
        except flash.Fail:
            done = False
        finally:
            bridge.pause()
        return done, (emu.now_ms - t0) / 1000


def heap_figures(code: Path) -> dict:
    """The flash_heap_* figures and flash_s_picow_update (see the module's docstring)."""
    from shutbox_host.pico import emulator, fsimage

    why = emulator.missing()
    uf2_path = emulator.picow_uf2()
    if why is None and uf2_path is None:
        why = "no RPI_PICO_W uf2 (../shared/rp2040/ or $SHUTBOX_UF2_PICO_W)"
    if why is not None:
        return {"flash_heap_skipped": why}
    fs = fsimage.build(board="RPI_PICO_W")
    out: dict = {}
    done, out["flash_s_picow_update"] = _picow_update(uf2_path, fs, code)
    if not done:
        raise RuntimeError("the code update failed on the emulated Pico W")
    seen: list[tuple[int, int]] = []
    done, _ = _picow_update(uf2_path, fs, code, connected=lambda b: seen.append(board_heap(b)),
                            before=lambda b, code: seen.append(board_heap(b)))
    if not done:
        raise RuntimeError("the code update failed on the emulated Pico W (watched)")
    out["flash_s_picow_update"] = round(out["flash_s_picow_update"], 2)
    out["flash_heap_start_picow"] = seen[0][0]
    out["flash_heap_used_max_picow"] = max(u for u, _ in seen)
    out["flash_heap_block_min_picow"] = min(b for _, b in seen)

    def cut(size):
        def connected(board):
            if board.exec(holes(size)).split() != ["holes"]:
                raise RuntimeError("the heap still had a block of %d bytes" % (size + 1024))
        return connected

    out["flash_heap_holes_picow"] = out["flash_heap_holes_fail_picow"] = None
    for size in (4096, 3072, 2560, 2048):
        if not _picow_update(uf2_path, fs, code, connected=cut(size))[0]:
            out["flash_heap_holes_fail_picow"] = size
            break
        out["flash_heap_holes_picow"] = size
    return out


def changed_versions(tmp: Path) -> tuple[Path, Path]:
    """firmware/ with one module changed (B), and B with n9.bin changed in one byte of its
    expectations, still a valid pack (C): the updates the bench and tests/pico/test_lean.py
    make."""
    b = tmp / "fw_code"
    shutil.copytree(mp.FIRMWARE, b, ignore=shutil.ignore_patterns("__pycache__"))
    ticks = b / "shutbox" / "ticks.py"
    ticks.write_text(ticks.read_text() + "\nCHANGED = 'B'\n")
    c = tmp / "fw_table"
    shutil.copytree(b, c)
    n9 = c / "shutbox" / "tables" / "n9.bin"
    data = bytearray(n9.read_bytes())
    data[-1] ^= 1
    n9.write_bytes(bytes(data))
    return b, c


def _watched(port: str, firmware: Path) -> tuple[dict, list[tuple[str, int, int]]]:
    """Flash *firmware*; return its summary and (point, bytes held, blocks) at each step."""
    seen: list[tuple[str, int, int]] = []

    def look(board, phase, n):
        if board is None:
            return
        held, blocks = board.eval(_HELD)
        seen.append(("%s:%d" % (phase, n), held, blocks))

    summary = flash.flash(port, firmware=firmware, out=lambda line: None, on_point=look,
                          companion=False)
    return summary, seen


def figures(soak=False):
    """Flash firmware/ and two updates to a virtual Pico W and measure them."""
    out: dict = {}
    with tempfile.TemporaryDirectory(prefix="shutbox-bench-flash-") as tmp:
        where = Path(tmp)
        code, table = changed_versions(where)
        vp = vpico.VirtualPico(where / "flash", board="RPI_PICO_W",
                               fs_image=where / "picow.img")
        cache = flash.CACHE
        flash.CACHE = where / "mpy-cache"  # a cold cache: what a fresh clone pays
        try:
            vp.start()
            t0 = time.perf_counter()
            first, seen = _watched(vp.path, mp.FIRMWARE)
            out["flash_s_vpico"] = round(time.perf_counter() - t0, 2)
            end = seen[-1]
            t1 = time.perf_counter()
            again = flash.flash(vp.path, out=lambda line: None, companion=False)
            out["flash_s_vpico_unchanged"] = round(time.perf_counter() - t1, 2)
            if again["uploaded"] or again["copied"] or again["moved"]:
                raise RuntimeError("a second flash changed files: %r" % again)
            t2 = time.perf_counter()
            up, seen_code = _watched(vp.path, code)
            out["flash_s_vpico_update"] = round(time.perf_counter() - t2, 2)
            up_t, seen_table = _watched(vp.path, table)
        finally:
            vp.stop()
            flash.CACHE = cache
        out.update(heap_figures(code))
    deployed = end[1]
    out.update({
        "deployed_bytes": deployed,
        "deployed_files": first["files"] + first["tables"] + 1,
        "deployed_blocks": end[2],
        "deployed_tiles": first["tiles"],
        "deployed_ahead_bytes": _ahead_bytes(),
        "update_peak_bytes": max(h for _, h, _ in seen_code),
        "update_peak_blocks": max(b for _, _, b in seen_code),
        "update_uploaded_files": up["uploaded"],
        "update_moved_files": up["moved"],
        "update_peak_bytes_tables": max(h for _, h, _ in seen_table),
        "update_peak_blocks_tables": max(b for _, _, b in seen_table),
        "update_uploaded_bytes_tables": up_t["uploaded_bytes"],
        "fs_blocks_picow": boards.BY_NAME["RPI_PICO_W"].fs_blocks,
        "flash_format": first["format"],
    })
    out["update_peak_ratio"] = round(out["update_peak_bytes"] / deployed, 3)
    out["update_peak_ratio_tables"] = round(out["update_peak_bytes_tables"] / deployed, 3)
    missing = []
    with tempfile.TemporaryDirectory(prefix="shutbox-bench-uf2-") as tmp:
        for b in boards.BOARDS:
            src = uf2.default_micropython(b)
            if not src.is_file():
                missing.append(b.name)
                continue
            summary = uf2.build(b, src, output=Path(tmp) / (b.name + ".uf2"),
                                out=lambda line: None)
            out["uf2_bytes_" + b.name] = summary["bytes"]
    if missing:
        out["uf2_missing"] = missing
    return out
