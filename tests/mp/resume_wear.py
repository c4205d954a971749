# Flash wear of saving the game in progress: erases per save on MicroPython's littlefs.
"""Run under micropython with tests/mp on the path: resume_wear.py SAVES [BLOCKS [SNAPSHOT]].

Formats a RAM flash like the Pico's (store_flashdev.py: 4 KB erase blocks, progsize 256;
BLOCKS blocks, 352 by default: the 1.4 MB filesystem of a 2 MB Pico) with os.VfsLfs2, puts a
settings file (24 bytes) and a records file (700 bytes) beside it, then saves the game in
progress SAVES times through shutbox.store as shutbox.resume does (88 bytes: the 12-byte
header and the 76-byte snapshot, its bytes changing every save; SNAPSHOT bytes instead, e.g.
115 or 143 for a 3-round match without or with stakes). Counts every program and erase, and
the erases of each block. Prints:

    WEAR saves S programs P erases E blocks_erased B max_block_erases M bytes N ms T
"""

import os
import sys
import time

from store_flashdev import PROGSIZE, FlashDev

from shutbox.store import OK, Store

SAVES = int(sys.argv[1])
BLOCKS = int(sys.argv[2]) if len(sys.argv) > 2 else 352
SNAPSHOT = int(sys.argv[3]) if len(sys.argv) > 3 else 76


class CountingDev(FlashDev):
    """FlashDev that also counts the erases of every block."""

    def __init__(self, blocks):
        super().__init__(blocks)
        self.per_block = bytearray(0)
        self.counts = [0] * blocks

    def ioctl(self, op, arg):
        if op == 6:  # erase
            self.counts[arg] += 1
        return super().ioctl(op, arg)


t0 = time.ticks_ms()
dev = CountingDev(BLOCKS)
os.VfsLfs2.mkfs(dev, progsize=PROGSIZE)
os.mount(os.VfsLfs2(dev, progsize=PROGSIZE), "/lfs")
store = Store("/lfs/data")
assert store.save("settings", bytes(24), 1) == OK
assert store.save("records", bytes(range(256)) * 2 + bytes(188), 1) == OK
dev.programs = dev.erases = 0
for i in range(BLOCKS):
    dev.counts[i] = 0
buf = bytearray(SNAPSHOT)
for n in range(SAVES):
    buf[0] = 1
    buf[12] = n % 5  # the state, the dice, the open tiles, a score: as a game goes
    buf[17] = n % 6 + 1
    buf[21] = n & 0xFF
    buf[23] = (n >> 3) & 0xFF
    if store.save("game", buf, 1) != OK:
        print("FAIL save", n)
        break
hot = 0
erased = 0
for c in dev.counts:
    hot = max(hot, c)
    erased += 1 if c else 0
print("WEAR saves %d programs %d erases %d blocks_erased %d max_block_erases %d bytes %d ms %d"
      % (SAVES, dev.programs, dev.erases, erased, hot, PROGSIZE * dev.programs,
         time.ticks_diff(time.ticks_ms(), t0)))
