# `shutbox bench --only game`: the heap a whole 4-player game takes on the simulated box.
"""Memory of the game, measured under the MicroPython unix port (64-bit, so an upper bound
for the 32-bit Pico, whose objects are about half the size).

Method: a whole 4-player game (boxsim.plan_game: seeded dice, optimal moves, one die where
it pays) runs through the simulated pins, the firmware loaded as the .mpy files that go onto
the Pico. After every LED write (several a second: the dice roll, tiles blink), sim/boxrun.py
runs ``gc.collect()`` and reads ``gc.mem_alloc()``; the largest reading is:

- game_peak_heap_bytes: everything live on the heap at the game's peak: the firmware's
  code and objects, plus the simulated board (fake machine/neopixel) and the harness;
- game_firmware_peak_heap_bytes: the same minus what the simulated board, the harness's
  interpreter state and an empty script take alone (on the Pico ``machine`` and ``neopixel``
  are C modules that take no heap);
- game_min_heapsize_bytes: the smallest ``-X heapsize`` (bisected to 256 bytes) on which the
  whole game still completes: the peak plus fragmentation and the GC's own tables;
- game_polls, game_log_records: the size of the game measured.
Soak mode adds nothing here (the long runs live in bench_reliability).
"""

from __future__ import annotations

from shutbox_host import boxsim, mp

_PLAYERS = 4
_SEED = 1
_SIM_ONLY = """
import gc
import simbus, machine, neopixel
gc.collect()
print("SIM", gc.mem_alloc())
"""


def _game_script() -> boxsim.Script:
    script, _ = boxsim.plan_game(_PLAYERS, _SEED, "best")
    return script.heap()


def _completes(script: boxsim.Script, heap: int) -> bool:
    r = boxsim.run(script, "--players", str(_PLAYERS), heapsize=str(heap))
    return r.returncode == 0 and bool(r.events("winner"))


def min_heapsize(script: boxsim.Script, lo: int = 16 * 1024, hi: int = 512 * 1024) -> int:
    """Smallest -X heapsize (to 256 bytes) on which the game completes."""
    if not _completes(script, hi):
        raise RuntimeError("the game fails even on a %d-byte heap" % hi)
    while hi - lo > 256:
        mid = (lo + hi) // 2 // 256 * 256
        if _completes(script, mid):
            hi = mid
        else:
            lo = mid
    return hi


def figures(soak: bool = False) -> dict:
    """Return the game's heap figures (see the module docstring)."""
    script = _game_script()
    r = boxsim.run(script, "--players", str(_PLAYERS), "--peak", heapsize="1m")
    if r.returncode != 0 or not r.events("winner"):
        raise RuntimeError("the bench game failed: " + r.stderr.strip()[-300:])
    peak = r.answer("PEAK")[0]
    sim = mp.run(_SIM_ONLY, heapsize="1m", extra_path=[boxsim.build()])
    if sim.returncode != 0:
        raise RuntimeError("the simulated board alone failed: " + sim.stderr.strip()[-300:])
    sim_bytes = int(sim.stdout.split("SIM")[1].split()[0])
    return {
        "game_peak_heap_bytes": peak,
        "game_firmware_peak_heap_bytes": peak - sim_bytes,
        "game_sim_board_heap_bytes": sim_bytes,
        "game_min_heapsize_bytes": min_heapsize(script),
        "game_log_records": len(r.log),
        "game_throws": len(r.events("throw")),
    }
