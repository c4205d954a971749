# The erase ahead on the real rp2 build: code in RAM suspends a sector erase for the pins.
"""On the emulated RP2040 with its flash chip's commands modelled (``Emulator(flash_chip=True)``:
pico.js W25Q, a W25Q16JV, its sector erase 45 ms as typical: the mechanism does not depend on
it; the simulated board's bench covers the datasheet's 400 ms), the stock MicroPython runs
firmware/shutbox/chip.py (``Chip``: the asm_thumb code in RAM that erases with XIP off and
suspends) and firmware/shutbox/ahead.py, pasted at the REPL (the box flashed with both:
tests/pico/test_save_latency.py). The model fails loudly on an instruction fetch or any XIP
read while the flash erases, and on an erase or program the chip would ignore during a
suspend; the tests read the emulator's clock. The spike's figures (45 ms erases, 2 ms
slices): a sector erased in 2 ms slices with Python between them; a pin edge 20 ms into a
40 ms slice has Python running again within 2 ms, the erase suspended."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from emu_skip import require_emulator

# slow (make soak): 25 s of emulator for code the box does not run yet
pytestmark = [pytest.mark.node, pytest.mark.slow]

require_emulator()

from shutbox_host.pico.emulator import Emulator, EmulatorError  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
ERASE_NS, PROGRAM_NS = 45_000_000, 400_000
TILE = 2  # GPIO 2 (tile 1): the pin the slices watch
CHIP = ROOT / "firmware" / "shutbox" / "chip.py"
SOURCES = (ROOT / "firmware" / "shutbox" / "ahead.py").read_text() + CHIP.read_text()
SETUP = SOURCES + """
import os, rp2, time
from machine import Pin
pin = Pin(%d, Pin.IN, Pin.PULL_UP)
flash = rp2.Flash()
chip = Chip(flash, 1 << %d)
n = flash.ioctl(4, 0)
""" % (TILE, TILE)


def _board():
    emu = Emulator(flash_ns=(ERASE_NS, PROGRAM_NS), flash_chip=True).start()
    while not emu.connects:
        emu.run(ms=50)
    emu.run(ms=300)
    emu.repl(SETUP)
    return emu


def _numbers(out: str, tag: str) -> list[int]:
    m = re.search(tag + r"((?: -?\d+)+)", out)
    assert m, out[-1500:]
    return [int(x) for x in m.group(1).split()]


def test_slices_erase_a_sector_and_a_pin_change_suspends_at_once():
    emu = _board()
    try:
        # 2 ms slices with Python between them (XIP on): the sector ends erased
        out = emu.exec("""
blk = n - 1
t0 = time.ticks_us()
k = 1
while not chip.erase_ahead(blk, 2000):
    k += 1
buf = bytearray(4096)
flash.readblocks(blk, buf)
print("SLICES", k, time.ticks_diff(time.ticks_us(), t0), int(buf == b"\\xff" * 4096))
""")
        k, us, erased = _numbers(out, "SLICES")
        assert erased == 1 and not emu.errors, (out[-800:], emu.errors)
        assert k >= ERASE_NS // 2_000_000 and us >= ERASE_NS // 1000, (k, us)
        # one long slice: the pin goes low 20 ms into it, the erase is suspended at once
        emu.write(b"\x05" + """
t0 = time.ticks_us()
print("S" + "TART")
r = chip.erase_ahead(n - 2, 40000)
print("WATCH", int(r), time.ticks_diff(time.ticks_us(), t0))
""".replace("\n", "\r").encode() + b"\x04")
        n0 = len(emu.console)
        while b"START" not in emu.console[n0:]:
            emu.run(ms=1)
        emu.run(ms=20)
        t = emu.now_ms
        emu.set_levels({TILE: 0})
        emu.prompt(timeout_ms=2000)
        r, us = _numbers(emu.console[n0:].decode(errors="replace"), "WATCH")
        assert r == 0 and not emu.errors, emu.errors
        back = next(ms for ms, line in emu.lines if "WATCH" in line and ms >= t)
        assert back - t < 2, (t, back)  # from the edge to Python running again
        # the suspended erase, resumed to its end
        out = emu.exec('print("DONE", int(chip.erase_ahead(n - 2, -1)))')
        assert _numbers(out, "DONE") == [1] and not emu.errors, emu.errors
    finally:
        emu.stop()


def test_littlefs_on_the_erase_ahead_never_waits_and_keeps_every_save():
    """/ remounted on Ahead(Chip): 60 saves of a file, the loop's sleeps (2 ms slices)
    between them; littlefs's erases all skipped, none done in a save, the file whole."""
    emu = _board()
    try:
        out = emu.exec("""
os.umount("/")
dev = Ahead(chip, n)
os.mount(os.VfsLfs2(dev, progsize=256), "/")
ok = 0
for i in range(60):
    data = bytes([i & 255]) * 80
    with open("/g", "wb") as f:
        f.write(data)
    for _ in range(25):
        dev.idle(2)
    with open("/g", "rb") as f:
        ok += f.read() == data
print("FS", ok, dev.skipped, dev.waited, chip.slices)
""", timeout_ms=120_000)
        ok, skipped, waited, slices = _numbers(out, "FS")
        assert not emu.errors, emu.errors
        assert ok == 60 and waited == 0 and skipped >= 1, (ok, skipped, waited)
        assert slices >= ERASE_NS // 2_000_000  # at least one erase ahead, in slices
    finally:
        emu.stop()


def test_an_xip_read_while_the_flash_erases_fails_loudly():
    """The model can fail: _slice changed to return once the erase has started (no poll, no
    suspend), so Python runs from flash while the chip erases."""
    src = CHIP.read_text()
    a = src.index("\n@micropython.asm_thumb\n")
    b = src.index("    label(END)") + len("    label(END)")
    start = "    bl(CS)\n    b(POLL)\n    label(RESUME)"
    assert start in src[a:b]
    bad = src[a:b].replace("def _slice(", "def _bad(").replace(
        start, "    bl(CS)\n    b(DONE)\n    label(RESUME)")
    emu = _board()
    try:
        emu.exec(bad + "\n")
        with pytest.raises(EmulatorError, match="XIP read .* while the flash erases"):
            emu.exec("""
chip.p[4] = chip.base + (n - 3) * 4096
chip.p[5] = 1
_bad(uctypes.addressof(chip.p))
print("never")
""")
    finally:
        emu.stop()
