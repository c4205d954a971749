# shutbox.payout's pass as machine code (viper): the same hint buffer as on CPython, built right.
"""shutbox.payout.best is a viper function: on the box MicroPython runs it as machine code
(mpy-cross -march: the board's arch, layout.NATIVE), on CPython as Python (the
micropython stand-in's ptr casts), which tests/firmware/test_payout_play.py checks against the
host's match solver. Here the unix port's machine code (the simulated box's .mpy build, as
boxsim compiles it) fills the same hint buffer as CPython on seat 1's and later seats'
payouts of several variants; the facts the pass relies on hold (one search a tile sum: the
`any` rule's throws of one sum have the same moves in the same order; one die never with a
tile above 6 open); and a flash compiles the module for the board's arch."""

from __future__ import annotations

import json
from array import array

import pytest

from shutbox.engine import Engine, Rules
from shutbox.payout import best
from shutbox_host import mp
from shutbox_host.box import boxsim
from shutbox_host.model import layout
from shutbox_host.pico import flash
from shutbox_host.solve import tablegen

KEYS = tablegen.offered_hints(9)
# one layer (never, sum), two layers (high-shut/locked, count), a choice (high-shut/optional)
PLAYED = [KEYS[0], KEYS[12], KEYS[1]]
THROWS = [(a, b) for a in range(1, 7) for b in range(0, 7) if b == 0 or b >= a]

_DUMP = """\
import json, sys
from array import array
from shutbox.engine import Engine, Rules
from shutbox import payout
out = []
for key, pay in json.loads(sys.stdin.read()):
    e = Engine(Rules(9, *key))
    payout.best(e, array('i', pay))
    out.append(list(e._hp))
print(json.dumps(out))
"""


def payouts() -> list[tuple[tuple, list[int]]]:
    """Payouts of each final score (x 2**23) for each of PLAYED: falling with the score, as
    seat 1's; nothing above a score of 9, as a later seat's (many equal values to rank);
    and seeded random ones."""
    import random

    rng = random.Random(27)
    runs = []
    for key in PLAYED:
        m = Engine(Rules(9, *key)).score(511) + 1
        fall = [((m - y) << 23) // m for y in range(m)]
        runs.append((key, fall))
        runs.append((key, [0 if y > 9 else p for y, p in enumerate(fall)]))
        runs.append((key, [rng.randrange(1 << 23) for _ in range(m)]))
    return runs


def test_the_unix_ports_machine_code_fills_the_hint_buffer_as_cpython_does(tmp_path):
    runs = payouts()
    want = []
    for key, pay in runs:
        e = Engine(Rules(9, *key))
        assert best(e, array("i", pay))
        want.append(list(e._hp))
    built = boxsim.build()
    # the pass is machine code there (a .mpy of the host's arch), not bytecode
    head = (built / "shutbox" / "payout.mpy").read_bytes()[:4]
    assert head[0:1] == b"M" and head[2] >> 2 != 0
    script = tmp_path / "dump.py"
    script.write_text(_DUMP)
    r = mp.run(script, heapsize="256k", extra_path=[built], sim=True,
               input=json.dumps([[list(k), p] for k, p in runs]))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == want


def test_a_throws_moves_are_those_of_its_tile_sum():
    """The `any` rule (the hint pack's alone): every throw of one sum, one die or two, has
    the same candidate moves in the same order, so the pass searches once a sum."""
    e = Engine(Rules(9))
    mv = e._mv
    seen: dict[int, list[int]] = {}
    for a, b in THROWS:
        code = a * 7 + b
        got = list(mv[mv[code]:mv[49 + code]])
        assert seen.setdefault(a + b, got) == got, (a, b)
    assert sorted(seen) == list(range(1, 13))


@pytest.mark.parametrize("rule", range(4))
def test_one_die_never_with_a_tile_above_six_open(rule):
    """The pass asks the engine for the dice of the states below 64 alone."""
    for mode in range(3):
        e = Engine(Rules(9, one_die=rule, one_die_mode=mode))
        assert not any(e._dice(s, lk) for s in range(64, 512) for lk in (False, True))
        assert rule == 0 or any(e._dice(s, False) for s in range(1, 64))


def test_a_flash_compiles_the_pass_for_the_boards_arch():
    """A Pico's (rp2 v1.28 reports _mpy 4870: armv6m), the unix port's (x64), and the Pico's
    where a board reports no arch; the .mpy header's arch byte says which."""
    assert layout.native_arch(4870) == "armv6m"
    assert layout.native_arch(2822) == "x64"
    assert layout.native_arch(None) == layout.native_arch(6) == "armv6m"
    pico = flash.prepare(mp.FIRMWARE, 4870).files["shutbox/payout.mpy"]
    assert pico[2] >> 2 == layout.NATIVE_ARCHS.index("armv6m")
