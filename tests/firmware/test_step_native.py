# A step's hot paths as machine code (viper): the debouncer and the frame's loops, as on CPython.
"""The debouncer's update, frame.clear, tiles_mask and die, and Board.show are viper functions
(layout.NATIVE): on the box MicroPython runs them as machine code, on CPython as Python (the
micropython stand-in's ptr casts). Here the unix port's machine code (the simulated box's
.mpy build, as boxsim compiles it: a 64-bit port, whose ptr32 reads a -1 as 2**32 - 1) gives
the same events, levels and waits as CPython for seeded random readings, bouncing contacts
and Roll's presses among them, across the tick counter's wrap at 2**30 (the chip's and
CPython's: the update's own arithmetic; the unix port's time.ticks_* wrap at 2**62, so its
waits, Python there, are compared only on runs that do not cross it), and draws the same
frames; and a flash compiles each module for the board's arch. (Board.show, the chain's
buffer, is the simulated box's in every scenario test: tests/firmware/test_scenarios.py.)"""

from __future__ import annotations

import json
import random
from pathlib import Path

import stepdump

from shutbox_host import mp
from shutbox_host.box import boxsim
from shutbox_host.model import layout
from shutbox_host.pico import flash

_PERIOD = 1 << 30  # time.ticks_ms wraps here (MICROPY_PY_TIME_TICKS_PERIOD)
_HOT = ("shutbox/debounce.py", "shutbox/frame.py", "shutbox/board.py")



def _readings(rng: random.Random, tiles: int, now: int) -> list[list[int]]:
    """A run of readings a ms or a few apart: tiles flipped and Roll pressed, each edge
    bouncing now and then, held long enough for a long press at times."""
    sw = (1 << tiles) - 1
    roll = 0
    out = []
    for _ in range(600):
        now = (now + rng.choice((1, 1, 1, 2, 3, 12))) % _PERIOD
        r = rng.random()
        if r < 0.05:
            sw ^= 1 << rng.randrange(tiles)  # a flip
        elif r < 0.08:
            roll ^= 1  # Roll pressed or released
        bounce = sw ^ (1 << rng.randrange(tiles)) if rng.random() < 0.15 else sw
        out.append([bounce, roll ^ (rng.random() < 0.05), now])
        if rng.random() < 0.01:  # held: a long press, Roll's lock-outs over
            now = (now + 800) % _PERIOD
    return out


def _runs() -> list:
    rng = random.Random(25)
    runs = []
    for tiles, now in ((9, 1000), (9, _PERIOD - 700), (12, _PERIOD - 40), (10, 5)):
        for held in (0, 1):
            start = [(1 << tiles) - 1, held, now]
            readings = _readings(rng, tiles, now)
            runs.append([tiles, start, readings, readings[-1][2] < now])
    return runs


def _draws() -> list:
    return [[tiles, mask, code, face, which]
            for tiles in (9, 12) for mask in (0, 1, 0x155, (1 << tiles) - 1, 1 << (tiles - 1))
            for code in (1, 7) for face in (-1, 0, 3, 6, 7) for which in (0, 1)]


def test_the_unix_ports_machine_code_debounces_and_draws_as_cpython_does():
    runs = _runs()
    draws = _draws()
    want = stepdump.results(runs, draws)
    # the runs do what they are for: levels taken, short and long presses, across the wrap
    events = [e[0] for run in want[0] for e in run]
    assert all(any(e & bit for e in events) for bit in (1, 2, 8, 16))
    built = boxsim.build()
    for rel in _HOT:  # machine code there (a .mpy of the host's arch), not bytecode
        head = (built / rel.replace(".py", ".mpy")).read_bytes()[:4]
        assert head[0:1] == b"M" and head[2] >> 2 != 0, rel
    r = mp.run(Path(stepdump.__file__), heapsize="8m", extra_path=[built], sim=True,
               input=json.dumps([runs, draws]))
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    assert got[1] == want[1]
    assert sum(run[3] for run in runs) >= 2  # runs across the wrap
    for k, (a, b) in enumerate(zip(got[0], want[0], strict=True)):
        assert a == b, runs[k][:2]


def test_a_flash_compiles_the_hot_paths_for_the_boards_arch():
    """A Pico's modules of a step's hot paths hold armv6m machine code (the .mpy header's
    arch), as shutbox.payout's pass does."""
    assert set(_HOT) <= set(layout.NATIVE)
    pico = flash.prepare(mp.FIRMWARE, 4870).files
    for rel in _HOT:
        assert pico[rel.replace(".py", ".mpy")][2] >> 2 == layout.NATIVE_ARCHS.index("armv6m")
