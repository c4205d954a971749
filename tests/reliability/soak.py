# The long runs of the reliability work: thousands of games in a capped heap, and flash wear.
"""Soak figures: whole games on the simulated board under MicroPython (tests/mp/soak_games.py)
and the flash wear of saving the game in progress (tests/mp/resume_wear.py).

The heap cap: the firmware gets 64 KB (issue 7). The interpreter's ``-X heapsize`` is that
plus the base, what the simulated board (on the Pico: C code and ROM, no heap) and the soak
script hold before the first firmware module is imported, measured by a one-game run of the
same build (``firmware_cap``). The GC's own tables come out of the same heap, so the firmware
gets a little less than 64 KB. The figures also give the smallest cap on which a 40-game run
completes (bisected to 1 KB). A leak is any difference between the live heap after the first
game and after the last one (tolerance 0 bytes), measured after gc.collect() at the same point
of every game. The GC pause is the time of gc.collect() (time.ticks_us) after each game and
at each turn end: a benchmark figure, never asserted.
"""

from __future__ import annotations

import shutil
import tempfile
import time

from shutbox_host import mp
from shutbox_host.box import boxsim

MP_DIR = mp.ROOT / "tests" / "mp"
ISSUE_HEAP = 64 * 1024  # issue 7: the firmware's heap


def run(games: int, heap: int | str, seed: int = 7, reboot_every: int = 500,
        timeout: float = 7200, tree=None) -> dict:
    """Play *games* games in one interpreter capped at *heap*; return the SOAK line's figures.

    *tree*: the build of the firmware (boxsim.build(), the default). A MemoryError gives
    {"memerr": game, ...}; any other failure raises RuntimeError.
    """
    flash = tempfile.mkdtemp(prefix="shutbox-soak-")
    try:
        t0 = time.perf_counter()
        r = mp.run(MP_DIR / "soak_games.py", str(games), flash, str(seed), str(reboot_every),
                   heapsize=str(heap), extra_path=[tree or boxsim.build()], timeout=timeout)
        seconds = time.perf_counter() - t0
    finally:
        shutil.rmtree(flash, ignore_errors=True)
    out = {}
    for line in r.stdout.splitlines():
        if line.startswith("MEMERR "):
            return {"memerr": int(line.split()[1]), "text": line}
        if line.startswith("SOAK "):
            w = line.split()[1:]
            out = {w[i]: int(w[i + 1]) for i in range(0, len(w), 2)}
            out["seconds"] = round(seconds, 1)
        if line.startswith("GCHIST "):
            out["gc_hist"] = [int(x) for x in line.split()[1:]]
    if out:
        return out
    if "MemoryError" in r.stderr + r.stdout:  # while loading the firmware, before the games
        return {"memerr": 0, "text": (r.stderr + r.stdout).strip().splitlines()[-1]}
    raise RuntimeError("soak_games.py failed: " + (r.stderr or r.stdout)[-800:])


def percentile_bound(hist: list[int], q: float) -> int:
    """From a power-of-two histogram of pauses, a bound (us) that fraction *q* stay below."""
    total, seen = sum(hist), 0
    for k, n in enumerate(hist):
        seen += n
        if seen >= q * total:
            return 2 ** (k + 1)
    return 2 ** len(hist)


def base(tree=None) -> int:
    """The heap the simulated board and the soak script hold before the firmware loads."""
    out = run(1, "1m", reboot_every=0, tree=tree)
    if "memerr" in out:
        raise RuntimeError("one game fails on a 1 MB heap: " + out["text"])
    return out["base"]


def firmware_cap(tree=None) -> int:
    """The -X heapsize that leaves the firmware 64 KB: ISSUE_HEAP plus the base to the KB
    above it."""
    return ISSUE_HEAP + (base(tree) // 1024 + 1) * 1024


def fits(heap: int, games: int = 40, tree=None) -> bool:
    """True if *games* games (and a reboot) complete with the heap capped at *heap* bytes."""
    out = run(games, heap, reboot_every=games // 2, tree=tree)
    return "memerr" not in out and out["games"] == games


def min_heap(lo: int = 48 * 1024, hi: int = 512 * 1024, games: int = 40, tree=None) -> int:
    """The smallest heap cap (to 1 KB) on which a short soak completes."""
    return mp.smallest_heap(lambda heap: fits(heap, games, tree), lo, hi, 1024, "the soak")


def wear(saves: int) -> dict:
    """Save the game *saves* times on a 352-block littlefs; return the WEAR line's figures."""
    r = mp.run(MP_DIR / "resume_wear.py", str(saves), heapsize="4m", extra_path=[MP_DIR],
               sim=False, timeout=3600)
    for line in r.stdout.splitlines():
        if line.startswith("WEAR "):
            w = line.split()[1:]
            return {w[i]: int(w[i + 1]) for i in range(0, len(w), 2)}
    raise RuntimeError("resume_wear.py failed: " + (r.stderr or r.stdout)[-800:])


def figures(soak: bool = False) -> dict:
    """Soak and wear figures: 200 games and 10,000 saves, or 10,000 games and 60,000 saves."""
    games = 10_000 if soak else 200
    tree = boxsim.build()  # one build for every run, even if the sources change meanwhile
    least = min_heap(tree=tree)
    cap = firmware_cap(tree)
    out = run(games, cap, reboot_every=500 if soak else 50, tree=tree)
    fig: dict = {"soak_heap_min_fit_bytes": least, "soak_heap_cap_bytes": cap,
                 "soak_firmware_heap_cap_bytes": ISSUE_HEAP}
    if "memerr" in out:
        fig.update({"soak_games": out["memerr"], "soak_memory_errors": 1})
        return fig
    w = wear(60_000 if soak else 10_000)
    per_game = out["saves"] / out["games"]
    per_save = w["erases"] / w["saves"]
    budget = 352 * 100_000  # erase cycles of the filesystem's blocks (W25Q16: 100k per sector)
    fig.update({
        "soak_games": out["games"],
        "soak_polls": out["polls"],
        "soak_reboots": out["reboots"],
        "soak_memory_errors": 0,
        "soak_seconds": out["seconds"],
        "soak_heap_base_bytes": out["base"],
        "soak_heap_first": out["first"],
        "soak_heap_last": out["last"],
        "soak_heap_leak_bytes": out["last"] - out["first"],
        "soak_heap_spread_bytes": out["max"] - out["min"],
        "soak_firmware_heap_bytes": out["first"] - out["base"],
        "gc_pause_max_us": out["gcmax_us"],
        "gc_pause_avg_us": out["gcavg_us"],
        "gc_pause_p99_us_below": percentile_bound(out["gc_hist"], 0.99),
        "gc_pauses_timed": sum(out["gc_hist"]),
        "resume_saves_per_game": round(per_game, 1),
        "flash_wear_saves": w["saves"],
        "flash_erases_per_save": round(per_save, 3),
        "flash_programs_per_save": round(w["programs"] / w["saves"], 2),
        "flash_blocks_erased": w["blocks_erased"],
        "flash_max_block_erases": w["max_block_erases"],
        "flash_games_to_wear_out": int(budget / per_save / per_game),
    })
    return fig


_MODULE_HEAP = """
import gc
gc.collect()
before = gc.mem_alloc()
for m in ("ticks", "variants", "pins", "engine", "frame", "debounce", "dice",
          "settings", "rounds", "game", "board", "app", "store", "resume", "guard"):
    gc.collect()
    b = gc.mem_alloc()
    try:
        __import__("shutbox." + m)
    except ImportError:
        continue
    gc.collect()
    print("MOD", m, gc.mem_alloc() - b)
gc.collect()
print("MOD all", gc.mem_alloc() - before)
"""


def module_heap() -> dict:
    """Heap taken by loading the store, resume and guard modules (.mpy, 64-bit unix port)."""
    r = mp.run(_MODULE_HEAP, heapsize="1m", extra_path=[boxsim.build()])
    sizes = {}
    for line in r.stdout.splitlines():
        w = line.split()
        if w and w[0] == "MOD":
            sizes[w[1]] = int(w[2])
    if "guard" not in sizes:
        raise RuntimeError("module heap: " + (r.stderr or r.stdout)[-500:])
    return {"heap_store_module_bytes": sizes["store"],
            "heap_resume_module_bytes": sizes["resume"],
            "heap_guard_module_bytes": sizes["guard"],
            "heap_firmware_modules_bytes": sizes["all"]}
