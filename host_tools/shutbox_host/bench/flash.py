# Flash figures for `shutbox bench`: a full flash of the firmware to a fresh virtual Pico.
"""figures(soak) -> deployed_bytes (every file on the board after a flash), flash_s_vpico.

flash_s_vpico includes compiling to .mpy from a cold cache, as on a fresh clone;
flash_s_vpico_unchanged is the second flash, which finds everything in place.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from shutbox_host.pico import flash, vpico


def _tree_bytes(root: Path) -> int:
    """Total size of every file under *root* (the virtual Pico's flash)."""
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


def figures(soak=False):
    """Flash firmware/ to a fresh virtual Pico with mpremote and measure it."""
    with tempfile.TemporaryDirectory(prefix="shutbox-bench-flash-") as tmp:
        vp = vpico.VirtualPico(Path(tmp) / "flash")
        cache = flash.CACHE
        flash.CACHE = Path(tmp) / "mpy-cache"  # a cold cache: what a fresh clone pays
        try:
            vp.start()
            t0 = time.perf_counter()
            summary = flash.flash(vp.path, out=lambda line: None)
            seconds = time.perf_counter() - t0
            t1 = time.perf_counter()
            again = flash.flash(vp.path, out=lambda line: None)
            unchanged = time.perf_counter() - t1
        finally:
            vp.stop()
            flash.CACHE = cache
        if again["uploaded"] or again["copied"]:
            raise RuntimeError("a second flash copied files: %r" % again)
        return {
            "deployed_bytes": _tree_bytes(vp.flash),
            "deployed_files": sum(len(f) for _, _, f in os.walk(vp.flash)),
            "flash_s_vpico": round(seconds, 2),
            "flash_s_vpico_unchanged": round(unchanged, 2),
            "flash_format": summary["format"],
        }
