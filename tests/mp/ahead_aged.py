# The box's saves on an aged flash, littlefs on shutbox.ahead: does a save wait for an erase?
"""Run under micropython, the simulated board's modules on the path: ahead_aged.py [saves] [seed].

The flash is the simulated board's (sim/norflash.py: 64 blocks of 4 KB, the W25Q16JV's
worst case, 400 ms an erase), aged as its ``-aged`` profiles age it (norflash.age: littlefs
mounted eight times, the firmware's files written over at each, files of the box's sizes
saved and the error log appended: every free block holds stale data and littlefs's
allocator has gone round the whole flash), its box's folder's pair three erases from being
moved by littlefs. Then littlefs is mounted on shutbox.ahead's Ahead over it, as the box
mounts it, and the box's files are saved in turn, with their sizes at their largest:
settings, records (16 variants), the game (a match's), the Pico W's names (12 players); the
error log gets a fault's lines every 40 saves (a file past littlefs's inline limit: each
append takes a block), and every 100 saves an update removes a file of the firmware's and
appends to another. Between two saves the box's loop sleeps 0.2 to 2 s (a player's pace),
in the 20 ms steps of this harness. Every 25 saves, on a copy of the flash, the walk of the
pairs and files (shutbox.ahead) runs to its end, and littlefs fills the copy with a file:
the blocks its allocator takes are its free blocks, to be the walk's (summed over the
copies). Prints:

    BLOCKS <n> ALLOCS <n> SAVES <n> WAITED <n> AHEAD <n> SKIPPED <n> MOVES <n>
    FREE <the walk's> <littlefs's> <blocks in one set only>

ALLOCS the blocks littlefs allocated while it aged (at least), WAITED the erases a save
waited for, AHEAD the erases done ahead, SKIPPED littlefs's erases skipped (erased already),
MOVES the erases littlefs asked for of blocks in no pair before the save (allocations).
"""

import os
import sys

import norflash
from lcg import Rng

from shutbox.ahead import Ahead
from shutbox.guard import write_log
from shutbox.store import Store

FILES = (("settings", 7), ("records", 256), ("game", 160), ("names", 456))
PATH = "/nor"
COPY = "/copy"



class Asked:
    """A raw device that notes the blocks littlefs asks it to erase."""

    def __init__(self, raw):
        self.raw = raw
        self.asked = []

    def readblocks(self, block, buf, offset=0):
        return self.raw.readblocks(block, buf, offset)

    def writeblocks(self, block, buf, offset=None):
        return self.raw.writeblocks(block, buf, offset)

    def ioctl(self, op, arg):
        if op == 6:
            self.asked.append(arg)
        return self.raw.ioctl(op, arg)


def free_blocks(flash):
    """Return (the walk's free blocks, littlefs's: those it takes filling the flash) of a
    copy of *flash*."""
    nor = norflash.Nor(flash.blocks, "max")
    nor.data[:] = flash.data
    w = Ahead(nor, nor.blocks)
    w.next = (0, 1)
    while w.next is not None or w.queue or w.live is not None:  # its steps, as idle takes
        if w.live is not None:  # them (without its erases)
            b, end = w.live
            w.live = None
            w._live(nor.view(b), end)
        elif w.queue:
            w._files()
        else:
            w._walk()
    walk = set(b for b in range(nor.blocks) if w.marks[b] != w.gen)
    pairs = set()
    for p in norflash._pairs(nor):
        pairs.add(p[0])
        pairs.add(p[1])
    dev = Asked(nor)
    os.mount(os.VfsLfs2(dev, progsize=norflash.PAGE), COPY)
    try:
        with open(COPY + "/fill", "wb") as f:
            for _ in range(nor.blocks * 4):
                f.write(b"z" * 1024)
    except OSError:  # full
        pass
    os.umount(COPY)
    return walk, set(b for b in dev.asked if b not in pairs)


class Logged(Ahead):
    """Ahead that notes the blocks littlefs asks it to erase."""

    asked = None

    def ioctl(self, op, arg):
        if op == 6 and self.asked is not None:
            self.asked.append(arg)
        return super().ioctl(op, arg)


def main():
    saves = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    rng = Rng(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    nor = norflash.Nor(norflash.BLOCKS, "max")
    os.VfsLfs2.mkfs(nor, progsize=norflash.PAGE)
    os.mount(os.VfsLfs2(nor, progsize=norflash.PAGE), PATH)
    allocs, _ = norflash.age(nor, PATH, before=3)
    os.umount(PATH)
    dev = Logged(nor, norflash.BLOCKS)
    os.mount(os.VfsLfs2(dev, progsize=norflash.PAGE), PATH)
    store = Store(PATH + "/data")
    moves = 0
    free = [0, 0, 0]
    for n in range(saves):
        meta = set()
        for p in norflash._pairs(nor):
            meta.add(p[0])
            meta.add(p[1])
        dev.asked = []
        name, size = FILES[n % len(FILES)]
        assert store.save(name, bytes([n & 0xFF]) * size) == 0
        if n % 40 == 39:
            write_log(PATH + "/error.log", "fault %d: %s" % (n, "Traceback " * 30))
        moves += sum(1 for b in dev.asked if b not in meta)
        if n % 25 == 24:
            if n % 100 == 49:  # an update: a file of the firmware's removed, the last
                os.remove("%s/lib/f%d" % (PATH, n // 100))  # appended to (the ids after
                with open(PATH + "/lib/f5", "ab") as f:  # a delete move down)
                    f.write(b"update" * 50)
            walk, lfs = free_blocks(nor)
            free[0] += len(walk)
            free[1] += len(lfs)
            free[2] += len(walk ^ lfs)
        for _ in range(rng.randrange(10, 100)):  # the loop's sleeps until the next save
            dev.idle(20)
    os.umount(PATH)
    print("BLOCKS %d ALLOCS %d SAVES %d WAITED %d AHEAD %d SKIPPED %d MOVES %d"
          % (nor.blocks, allocs, saves, dev.waited, nor.ahead, dev.skipped, moves))
    print("FREE %d %d %d" % tuple(free))


main()
