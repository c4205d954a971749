# A flip during a worst-case flash erase on the real rp2 build: shown once the flash lets it.
"""The emulated RP2040's flash erases in the W25Q16JV's typical time unless told otherwise
(Emulator(flash_ns=...)); here it takes the datasheet's worst case, 400 ms a 4 KB sector and
3 ms a page. A run plays until a save erases (littlefs compacting its metadata log), and a
second run of the same (deterministic) chip, fed the same inputs, shuts an open tile half way
through that erase: the chip runs no code until the flash is done, so the LED
cannot show it before the erase ends, and must within the clean-flip target plus 5 ms of the
flash's last operation of that save. The simulated board's bench (shutbox_host.bench.saves,
tests/firmware/test_saves.py) covers saves at random instants of whole games."""

from __future__ import annotations

import pytest
from emu_skip import require_emulator

pytestmark = [pytest.mark.node]

require_emulator()

from shutbox import pins  # noqa: E402
from shutbox_host.pico import autoplay  # noqa: E402
from shutbox_host.pico.emulator import Emulator  # noqa: E402

ERASE_NS, PROGRAM_NS = 400_000_000, 3_000_000
TARGET_MS = 10 + 5


def _busy_until(ops, t: int) -> int:
    """The end of the save under way at *t*: its flash operations, each less than 5 ms after
    the one before (littlefs's own work between them runs on the core, a few ms)."""
    end = t
    for t0, t1, *_ in sorted(ops):
        if t1 > end and t0 - end < 5_000_000:
            end = t1
    return end


def _reference(fw_image):
    """Play from power-up until a save has erased: (the inputs, the erase's t0 and t1)."""
    with Emulator(fs=fw_image, flash_ns=(ERASE_NS, PROGRAM_NS)) as emu:
        emu.wait_for(r'"ev": "turn"', timeout_ms=10000)
        emu.run(ms=100)
        eng = autoplay.engine()
        for _ in range(2):  # the first player's turn, then the second's if nothing erased yet
            autoplay.play_turn(emu, eng, after=lambda: emu.run(ms=100))
            erases = [op for op in emu.flash_ops if op[2]]
            if erases:
                return list(emu.inputs), erases[0][0], erases[0][1]
            emu.run(ms=750)
            emu.set_open((1 << pins.TILES) - 1)
            emu.run(ms=60)
            emu.click(100)
            emu.run(ms=1000)  # the turn's saves done: a press inside a 400 ms erase is lost
    raise AssertionError("no erase in two turns: %s" % emu.flash_ops)


def test_a_flip_during_a_worst_case_erase_shows_once_the_erase_ends(fw_image):
    inputs, t0, t1 = _reference(fw_image)
    assert t1 - t0 == ERASE_NS  # the chip's flash at the datasheet's worst case
    flip = t0 + (t1 - t0) // 2
    with Emulator(fs=fw_image, flash_ns=(ERASE_NS, PROGRAM_NS)) as emu:
        emu.replay_inputs(inputs, flip)
        assert any(op[:2] == (t0, t1) for op in emu.flash_ops)  # the same run, so far
        before = emu.frame_at(flip / 1e6)
        k = next(k for k in range(1, pins.TILES + 1) if emu.open_mask() >> (k - 1) & 1)
        emu.shut(k)
        emu.run(ms=600)
        shown = next(f for f in emu.frames_since(flip / 1e6)
                     if f.tiles[k - 1] != before.tiles[k - 1])
        free = _busy_until(emu.flash_ops, flip)
        assert shown.ms * 1e6 >= t1  # nothing runs while the flash erases
        assert shown.ms - free / 1e6 <= TARGET_MS, (shown.ms, free / 1e6, flip / 1e6)
