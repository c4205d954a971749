# The simulated board's flash as the Pico's: littlefs on a NOR chip whose erases take time.
"""Run under micropython: ``micropython -m norflash PROFILE [boxrun options]`` (then boxrun).

The box's files (boxrun ``--flash DIR``) go onto MicroPython's littlefs (``os.VfsLfs2``,
formatted and mounted as the rp2 port's _boot.py does: 4 KB blocks, 256-byte program size)
over ``Nor``, a NOR flash in RAM: an erase sets a block to 0xFF, a program can only clear
bits, and each keeps the core busy (``simbus.busy_us``) for the chip's time, as on the
RP2040, where execution stops (XIP off) until the flash is done: the contact edges that
fall in it take effect, and the firmware sees them, only after it.

PROFILE is the Winbond W25Q16JV's (the Pico's flash; cited from its datasheet's AC
electrical characteristics, tSE and tPP, not measured): ``typ`` a 4 KB sector erase 45 ms, a
256-byte page program 0.4 ms; ``max`` (the datasheet's worst case) 400 ms and 3 ms. A
program of n bytes costs its pages, an erase its sectors; reads cost nothing (memory-mapped
XIP).

For the save-latency bench (shutbox_host.bench.saves) it prints, besides boxrun's lines:
``W ms us dur_us erase`` a flash operation starting (µs within the ms: simbus.us),
``L ms us hex`` an LED frame starting down the chain, with its bytes, and
``G ms us gpio level`` a scheduled contact edge (boxrun's E) at the instant it takes effect;
ms from boxrun's start (its F lines' clock). Not used by the heap tests: a mounted littlefs
and this module's lines take heap of their own.
"""

import os
import sys

import simbus

BLOCK = 4096
PAGE = 256
BLOCKS = 64  # 256 KB: room for the box's files many times over (/data is a few KB)
PROFILES = {"typ": (45000, 400), "max": (400000, 3000)}  # erase µs a sector, program µs a page

_t0 = [None]


def _ms():
    """Return the simulated clock's ms since boxrun's start (its t0), and its µs."""
    if _t0[0] is None:
        _t0[0] = sys.modules["boxrun"].t0
    return simbus.ticks_diff(simbus.clock(), _t0[0]), simbus.us


class Nor:
    """A NOR flash of *blocks* 4 KB sectors in RAM, its operations timed by *profile*."""

    def __init__(self, blocks, profile):
        self.blocks = blocks
        self.data = bytearray(b"\xff" * (blocks * BLOCK))
        self.erase_us, self.page_us = PROFILES[profile]
        self.erases = 0
        self.programs = 0
        self.log = False  # the W lines: on once boxrun runs (mkfs is the factory's)

    def _busy(self, us, erase):
        """The core waits *us* µs for the chip (not while mkfs formats it: the factory's)."""
        if self.log:
            ms, sub = _ms()
            print("W %d %d %d %d" % (ms, sub, us, erase))
            simbus.busy_us(us)

    def readblocks(self, block, buf, offset=0):
        a = block * BLOCK + offset
        buf[:] = memoryview(self.data)[a:a + len(buf)]

    def writeblocks(self, block, buf, offset=None):
        if offset is None:
            for i in range(len(buf) // BLOCK):
                self.ioctl(6, block + i)
            offset = 0
        a = block * BLOCK + offset
        d = self.data
        for i in range(len(buf)):
            d[a + i] &= buf[i]
        self.programs += 1
        self._busy((len(buf) + PAGE - 1) // PAGE * self.page_us, 0)
        return 0

    def ioctl(self, op, arg):
        if op == 4:  # block count
            return self.blocks
        if op == 5:  # block size
            return BLOCK
        if op == 6:  # erase
            a = arg * BLOCK
            d = self.data
            for i in range(a, a + BLOCK):
                d[i] = 0xFF
            self.erases += 1
            self._busy(self.erase_us, 1)
        return 0


class _Edges(list):
    """simbus.schedule that says when each edge boxrun's E schedules takes effect."""

    def append(self, e):
        ms = simbus.ticks_diff(e[0], sys.modules["boxrun"].t0)
        print("G %d %d %d %d" % (ms, e[1], e[2], e[3]))
        super().append(e)


def _frames():
    """Wrap simbus.record_bitstream: an L line for every frame, at the instant it starts."""
    record = simbus.record_bitstream

    def record_l(gpio, data):
        ms, sub = _ms()
        print("L %d %d %s" % (ms, sub, bytes(data).hex()))
        record(gpio, data)

    simbus.record_bitstream = record_l


def main():
    profile = sys.argv.pop(1)
    argv = sys.argv
    path = argv[argv.index("--flash") + 1]
    dev = Nor(BLOCKS, profile)
    os.VfsLfs2.mkfs(dev, progsize=PAGE)
    os.mount(os.VfsLfs2(dev, progsize=PAGE), path)
    dev.log = True
    simbus.schedule = _Edges()
    _frames()
    import boxrun  # noqa: F401 - runs the box until its script ends


main()
