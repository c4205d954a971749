# Every screen that waits for the player leaves the emulated RP2040 idle: few cycles, no allocation.
"""The real rp2 build on an emulated RP2040, taken once through every waiting screen.

On each (a turn's start, the score, the winner, a resumed game's blinking tiles, the settings
menu, the records, the self-test's echo) the core is busy at most 3 % of a 3 s window and
MicroPython's gc_alloc is never entered (shutbox_host.bench.idle measures both from the
emulated clock; `shutbox bench` gives the same figures).
"""

from __future__ import annotations

import pytest
from emu_skip import require_emulator

pytestmark = [pytest.mark.node]

require_emulator()

from shutbox_host.bench import idle  # noqa: E402

_BUSY_PCT = 3.0


def test_every_waiting_screen_is_idle_and_allocates_nothing():
    got = idle.measure()
    assert set(got) == set(idle.SCREENS)
    busy = {name: b for name, (b, _) in got.items() if b > _BUSY_PCT}
    allocs = {name: a for name, (_, a) in got.items() if a != 0}
    assert not busy and not allocs, got
