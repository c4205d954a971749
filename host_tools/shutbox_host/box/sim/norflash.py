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

``typ-ahead`` and ``max-ahead``: the same chip with littlefs mounted on the firmware's
shutbox.ahead, whose erases ahead use ``Nor.erase_ahead``: a sector erase that runs while the
core sleeps in the loop (mounted by the firmware's shutbox.ahead.start, whose idle step,
``shutbox.idle``, the loop calls in each sleep: Guard.forever, and boxrun's pass of it) and
is suspended at the sleep's end (Erase Suspend 0x75, resumed with 0x7A; the core waits tSUS,
20 µs at most, cited from the datasheet, for the suspend). As the datasheet says, a suspended
sector's content is undefined (here: its old bits OR random ones, as after a power cut mid
erase), the chip starts
no other erase and programs none of that sector's pages while one is suspended (both raise
here: the wrapper must never ask), and it reads and programs other sectors. Not modelled: a
minimum time between a resume and the next suspend, and a slower erase when suspended often
(the erase here progresses at full speed in every sleep); the pins watched during the sleep
(the loop's next pass, at most 2 ms later, sees them instead).

``-aged`` (``max-aged``, ``max-ahead-aged``): the flash aged first (``age``); it prints
``N blocks allocations free before`` then (its figures: ``age``'s) and at the end ``M n``,
the halves of the pairs littlefs allocated while the box played (a move, a new pair: blocks
that held stale data).

For the save-latency bench (shutbox_host.bench.saves) it prints, besides boxrun's lines:
``W ms us dur_us erase`` a flash operation starting (µs within the ms: simbus.us),
``L ms us hex`` an LED frame starting down the chain, with its bytes, and
``G ms us gpio level`` a scheduled contact edge (boxrun's E) at the instant it takes effect,
``A ms us block 0|1`` an erase ahead starting and ending (PROFILE ``typ-ahead``, ``max-ahead``:
littlefs on shutbox.ahead's block device, its erases ahead done in the loop's sleeps);
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
SUSPEND_US = 20  # tSUS: an erase suspend takes effect within 20 µs (W25Q16JV, cited)

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
        self.pending = -1  # the sector whose erase is suspended (erase_ahead), or -1
        self.left = 0  # its erase's µs still to go
        self.ahead = 0  # erases done ahead (in the loop's sleeps)
        self._seed = 1
        self.erased = None  # age(): littlefs's erases of each block (a bytearray), or None

    def _busy(self, us, erase):
        """The core waits *us* µs for the chip (not while mkfs formats it: the factory's)."""
        if self.log:
            ms, sub = _ms()
            print("W %d %d %d %d" % (ms, sub, us, erase))
            simbus.busy_us(us)

    def view(self, block):
        """The block's bytes, read in place (memory-mapped, as XIP reads them)."""
        return memoryview(self.data)[block * BLOCK:(block + 1) * BLOCK]

    def readblocks(self, block, buf, offset=0):
        a = block * BLOCK + offset
        buf[:] = memoryview(self.data)[a:a + len(buf)]

    def erase_ahead(self, block, us):
        """Erase *block* for *us* µs while the core sleeps (the code in RAM that would drive
        it on the Pico: write enable 06h, sector erase 20h or resume 7Ah, status 05h polled,
        suspend 75h at the slice's end), or with *us* -1 to its end, the core waiting for it.
        Return True once it is erased. The sector reads as a half-erased one meanwhile (its
        bits going to 1 at random), as after a power cut in it."""
        if self.pending != block:
            if self.pending >= 0:
                raise RuntimeError("norflash: an erase starts while another is suspended")
            self.pending = block
            self.left = self.erase_us
            if self.log:
                ms, sub = _ms()
                print("A %d %d %d 0" % (ms, sub, block))
            a = block * BLOCK
            d = self.data
            x = self._seed
            for i in range(a, a + BLOCK):
                x = (x * 1103515245 + 12345) & 0x7FFFFFFF
                d[i] |= x >> 16 & 0xFF
            self._seed = x
        if us < 0:
            if self.log:
                ms, sub = _ms()
                print("W %d %d %d 1" % (ms, sub, self.left))
                simbus.busy_us(self.left)
            self.left = 0
        else:
            self.left -= us
            if self.left > 0:
                if self.log:
                    simbus.busy_us(SUSPEND_US)  # the loop's next pass waits for the suspend
                return False
        a = block * BLOCK
        self.data[a:a + BLOCK] = b"\xff" * BLOCK
        self.pending = -1
        self.erases += 1
        if us >= 0:
            self.ahead += 1
        if self.log:
            ms, sub = _ms()
            print("A %d %d %d 1" % (ms, sub, block))
        return True

    def writeblocks(self, block, buf, offset=None):
        if offset is None:
            for i in range(len(buf) // BLOCK):
                self.ioctl(6, block + i)
            offset = 0
        if block == self.pending:
            raise RuntimeError("norflash: a program of the sector being erased")
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
            if self.erased is not None:
                self.erased[arg] = min(255, self.erased[arg] + 1)
            if self.pending >= 0:
                raise RuntimeError("norflash: an erase while another is suspended")
            a = arg * BLOCK
            d = self.data
            for i in range(a, a + BLOCK):
                d[i] = 0xFF
            self.erases += 1
            self._busy(self.erase_us, 1)
        return 0


# An aged flash (the profiles' ``-aged`` suffix): what a box that has been played and updated
# leaves, so that littlefs allocates blocks holding stale data. Each round mounts littlefs
# afresh (its allocator starts where its mount's seed says), writes the firmware's files
# over (an update: every file's blocks allocated anew, the old ones left free with their
# data), saves files of the box's files' sizes in a folder of their own, and appends to the
# error log (a file past littlefs's inline limit: each append takes a block).
AGE_ROUNDS = 8
AGE_FILES = (2400, 6000, 9000, 14000, 21000, 30000)  # bytes: 22 blocks, as a deploy's files
AGE_SAVES = (("s", 24), ("r", 268), ("g", 160), ("n", 480))  # as the box's files
AGE_BEFORE = 3  # the box's folder's pair this many of its erases from littlefs moving it
MOVE_CYCLES = 101  # littlefs moves a pair as its revision reaches a multiple of this:
# (block_cycles + 1) | 1, MicroPython's block_cycles 100 (seen: moved at 101, 202, 303)


def _pairs(dev):
    """The metadata pairs on *dev*, walked as the firmware walks them (shutbox.ahead: from
    the root's through their tails): [(block, block, the newer half's revision)]."""
    from shutbox.ahead import Ahead, _newer, _u32

    a = Ahead(dev, dev.blocks)
    a.next = (0, 1)
    pairs = []
    while a.next is not None:
        x, y = a.next
        ra, rb = _u32(dev.view(x), False), _u32(dev.view(y), False)
        pairs.append((x, y, ra if _newer(ra, rb) else rb))
        a._walk()
    return pairs


def age(dev, path, rounds=AGE_ROUNDS, before=0):
    """Age *dev* (littlefs on it, mounted at *path* now and after): *rounds* rounds, then
    (with *before*) the box's folder's pair saved in until it is that many of its erases
    from being moved by littlefs (a save then allocates a block). Return (allocations,
    free blocks at the end): allocations at least, as the blocks that were in no pair at a
    round's start and that littlefs erased in it (a block taken twice in a round counts
    once)."""
    from shutbox.guard import write_log
    from shutbox.store import Store

    os.umount(path)
    got = 0
    count = bytearray(dev.blocks)
    dev.erased = count
    for r in range(rounds):
        meta = set()
        for p in _pairs(dev):
            meta.add(p[0])
            meta.add(p[1])
        for b in range(dev.blocks):
            count[b] = 0
        os.mount(os.VfsLfs2(dev, progsize=PAGE), path)
        try:
            os.mkdir(path + "/lib")
        except OSError:
            pass
        for i, n in enumerate(AGE_FILES):
            with open("%s/lib/f%d" % (path, i), "wb") as f:
                f.write(bytes([(r * 7 + i + j) & 0xFF for j in range(256)]) * (n // 256))
        st = Store(path + "/aged")  # not the box's folder: its pair holds the box's files
        for k in range(40):
            name, n = AGE_SAVES[k % len(AGE_SAVES)]
            st.save(name, bytes([(r + k) & 0xFF]) * n)
        for k in range(3):
            write_log(path + "/error.log", "aged %d %d: %s" % (r, k, "x" * 120))
        os.umount(path)
        got += sum(1 for b in range(dev.blocks) if count[b] and b not in meta)
    dev.erased = None
    os.mount(os.VfsLfs2(dev, progsize=PAGE), path)
    free = os.statvfs(path)[3]
    if before:  # the box's folder's pair: the one whose revision its saves move on
        st = Store(path + "/data")
        k = 0
        at = -1
        while True:
            revs = [p[2] for p in _pairs(dev)]
            if at >= 0 and (MOVE_CYCLES - revs[at] % MOVE_CYCLES) % MOVE_CYCLES == before:
                break
            while True:  # saves until one erase of the pair (littlefs compacts its log)
                st.save("aged", bytes([k & 0xFF]) * 24)
                k += 1
                now = [p[2] for p in _pairs(dev)]
                if now != revs:
                    break
            at = next(i for i in range(len(now)) if now[i] != revs[i])
    return got, free


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
    words = sys.argv.pop(1).split("-")
    profile = words[0]
    ahead = "ahead" in words
    argv = sys.argv
    path = argv[argv.index("--flash") + 1]
    dev = Nor(BLOCKS, profile)
    os.VfsLfs2.mkfs(dev, progsize=PAGE)
    import simtime

    held = None
    if "aged" in words:
        sys.modules["time"] = simtime  # the firmware's modules age it: on the board's clock
        os.mount(os.VfsLfs2(dev, progsize=PAGE), path)
        got, free = age(dev, path, before=AGE_BEFORE)
        os.umount(path)
        print("N %d %d %d %d" % (BLOCKS, got, free, AGE_BEFORE))
        held = set()
        for p in _pairs(dev):
            held.add(p[0])
            held.add(p[1])
        for m in [m for m in sys.modules if m == "shutbox" or m.startswith("shutbox.")]:
            del sys.modules[m]  # the box loads its own as it does on a new flash
    if ahead:  # the firmware's erase ahead: its mount, which names the loop's idle step
        sys.modules["time"] = simtime  # as boxrun: the firmware loads on the board's clock
        from shutbox.ahead import start

        start(dev, BLOCKS, path)
    else:
        os.mount(os.VfsLfs2(dev, progsize=PAGE), path)
    dev.log = True
    simbus.schedule = _Edges()
    _frames()
    try:
        import boxrun  # noqa: F401 - runs the box until its script ends
    finally:
        if held is not None:  # the pairs' halves littlefs allocated while the box played
            n = 0
            for p in _pairs(dev):
                n += (p[0] not in held) + (p[1] not in held)
            print("M %d" % n)


if __name__ == "__main__":
    main()
