# Every screen that waits for the player leaves the emulated RP2040 idle: few cycles, no allocs.
"""The real rp2 build on an emulated RP2040, booted once and taken through every waiting screen.

On each (a turn's start, the score, the winner, a resumed game's blinking tiles, the settings
menu, the records, the self-test's echo) MicroPython's gc_alloc is never entered and the core
is busy at most 3 % of a 3 s window (shutbox_host.bench.idle measures both from the emulated
clock; `shutbox bench --only idle` gives the same figures).

The allocations hold on every screen: Game.render keeps its frame within 11 slots (a larger
one is allocated on the heap at every call), so the score, the winner and the resumed game
redraw without allocating. On the firmware before that change the score allocated 1.0 times
a second, the winner and the resumed game 4.0 times (once at each redraw), and these tests
failed for the three.

The busy share holds too: the loop's passes alone (a reading every 2 ms, about 50 µs each)
take 2.5 % of the window and each redraw about 2.2 ms, 0.7 ms of it the LED chain's write
(docs/performance.md), so a waiting screen redraws at most about twice a second: the winners'
tiles and a resumed game's tiles blink at 1 Hz. With the winner's 5 Hz blink and the resumed
game's 2 Hz one the firmware before was over 3 % busy on both (3.33 and 3.39 %).
"""

from __future__ import annotations

import pytest
from emu_skip import require_emulator

pytestmark = [pytest.mark.node]

require_emulator()

from onerun import once  # noqa: E402

from shutbox_host.bench import idle  # noqa: E402

_BUSY_PCT = 3.0


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    """The one walk through every screen: its tests on two workers share it (onerun)."""
    return once(tmp_path_factory, "screens_idle", idle.measure)


@pytest.mark.parametrize("screen", idle.SCREENS)
def test_a_waiting_screen_allocates_nothing(measured, screen):
    busy, allocs = measured[screen]
    assert allocs == 0, (screen, busy, allocs)


@pytest.mark.parametrize("screen", idle.SCREENS)
def test_a_waiting_screen_is_idle(measured, screen):
    busy, allocs = measured[screen]
    assert busy <= _BUSY_PCT, (screen, busy, allocs)
