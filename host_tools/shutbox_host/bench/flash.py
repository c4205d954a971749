# Flash figures for `shutbox bench`: lean deploys and updates on a virtual Pico W's real littlefs.
"""figures(soak) -> what a flash puts on a board and holds during an update, its times, and
the size of the one-file uf2 of each Pico board.

A virtual Pico W (vpico ``fs_image``: MicroPython's own littlefs, the Pico W's 212 blocks of
4 KB) gets firmware/ for the 9-tile box (hardware/pinmap.json), then a code-only update (one
module changed) and a table update (n9.bin changed in one byte), each a real `shutbox flash`
through mpremote. At every step of each flash (flash.flash's on_point: the folders made, each
upload, verified, the launcher, the switch, the journal's moves, the clean-up) the board
itself reports what it holds:

- deployed_bytes: the bytes of every file the flash owns (/main.py, /.shutbox/...) after
  the first flash; deployed_files, deployed_blocks (littlefs blocks in use then, the box's
  /data included, from statvfs corrected for its double count of folders: see flash.py);
- update_peak_bytes: the most those files held at any step of the code-only update (old
  and new version together), update_peak_ratio = that / deployed_bytes; and
  update_peak_bytes_tables, update_peak_ratio_tables for the table update, which must hold
  the old and the new n9.bin until the switch; update_peak_blocks(_tables) likewise;
- flash_s_vpico: the first flash, compiling to .mpy from a cold cache as on a fresh clone;
  flash_s_vpico_unchanged: the same firmware again; flash_s_vpico_update: the code change;
- uf2_bytes_<BOARD>: `shutbox uf2` for each board whose MicroPython uf2 is in
  ../shared/rp2040 (uf2_missing lists the others).
"""

from __future__ import annotations

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

    summary = flash.flash(port, firmware=firmware, out=lambda line: None, on_point=look)
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
            again = flash.flash(vp.path, out=lambda line: None)
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
    deployed = end[1]
    out.update({
        "deployed_bytes": deployed,
        "deployed_files": first["files"] + first["tables"] + 1,
        "deployed_blocks": end[2],
        "deployed_tiles": first["tiles"],
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
