# Power cuts mid save and mid erase ahead, on littlefs over shutbox.ahead's block device.
"""Run under micropython: ahead_powercut.py [rounds] [seed] [sweep] [aged].

littlefs (os.VfsLfs2, the Pico's settings) on ``Ahead`` over a RAM NOR flash
(tests/mp/store_flashdev.py) whose erase ahead is suspendable and leaves the sector half
erased (bits set at random) while it is under way. Each round saves the box's three files in
turn (sizes as the box's: inline in littlefs's metadata), the main loop sleeping a random
1-40 ms between saves (the erase ahead runs in those sleeps, 45 ms a sector here, so saves
often come while one is suspended). Before every save, the same save is replayed on copies
that lose power at each of its flash operations (dropped, or torn half way); after every
sleep that leaves an erase ahead under way, the flash as it is then is rebooted too (a cut
mid erase ahead). A reboot mounts plain littlefs on the image: every file must read as its
last or (for the file being saved) its new version. With *sweep* 0 the saves are not cut,
only the erases ahead (many rounds, quickly: littlefs moving its pairs, every 100
compactions, is crossed too). With *aged* 1 the flash is aged first (files written over
and removed until every free block holds stale data: the erases ahead then take free
blocks too, found by the walk of every pair and file), a file of the firmware's (three
blocks) stays, and every round appends to a log past littlefs's inline limit (each append
allocates a block); both are checked at every reboot too (the log: its last or new text).
Prints failures (at most 20) and:

    CUTS <n> MIDERASE <n> FAIL <n> SAVES <n> AHEAD <n> SKIPPED <n> WAITED <n> ERASES <n>

AHEAD the erases done ahead, SKIPPED littlefs's erases skipped (the block was erased),
WAITED its erases done at once (a save waited), ERASES every erase the flash did.
"""

import os
import sys

from lfs_mount import MOUNT, mount, umount
from store_flashdev import MODE_DROP, MODE_TORN, PROGSIZE, FlashDev

from shutbox.ahead import Ahead
from shutbox.store import OK

NAMES = ("settings", "records", "game")
LIB = MOUNT + "/lib.mpy"  # aged: a file of the firmware's, in its own blocks
LOG = MOUNT + "/error.log"  # aged: appended every round
LIB_DATA = bytes([(j * 7) & 0xFF for j in range(256)]) * 40  # 10,240 bytes: three blocks
SIZES = (24, 200, 90)
BLOCKS = 16
ERASE_US = 45000


class Rng:
    """A small LCG (MicroPython's random has no instances)."""

    def __init__(self, seed):
        self.x = seed

    def bits8(self):
        self.x = (self.x * 1103515245 + 12345) & 0x7FFFFFFF
        return self.x >> 16 & 0xFF

    def randrange(self, a, b):
        return a + (self.bits8() << 8 | self.bits8()) % (b - a)


class Nor(FlashDev):
    """FlashDev with a suspendable erase: erase_ahead(block, us), as sim/norflash.py's."""

    def __init__(self, data=None):
        super().__init__(BLOCKS, data=data)
        self.pending = -1
        self.left = 0
        self.ahead = 0
        self.rng = Rng(7)

    def erase_ahead(self, block, us):
        if self.pending != block:
            assert self.pending < 0, "an erase starts while another is suspended"
            self.pending = block
            self.left = ERASE_US
            a = block * self.size
            d = self.data
            for i in range(a, a + self.size):
                d[i] |= self.rng.bits8()
        self.left = 0 if us < 0 else self.left - us
        if self.left > 0:
            return False
        self.pending = -1
        self.ahead += 1
        self.ioctl(6, block)
        return True

    def view(self, block):
        return memoryview(self.data)[block * self.size:(block + 1) * self.size]

    def writeblocks(self, block, buf, offset=None):
        assert block != self.pending, "a program of the sector being erased"
        return super().writeblocks(block, buf, offset)


def payload(i, r):
    n = SIZES[i] - (r * 7) % 9
    return bytes([r & 0xFF, i] + [(j * 5 + r * 11 + i) & 0xFF for j in range(n - 2)])


def clone(dev, nor):
    """An Ahead over *nor* in *dev*'s state (its erase ahead under way, its knowledge)."""
    nor.pending, nor.left = dev.raw.pending, dev.raw.left
    c = Ahead(nor, BLOCKS)
    c.clean[:] = dev.clean
    c.todo, c.stale, c.walk = dev.todo, list(dev.stale), dev.walk
    c.next, c.found, c.seen = dev.next, list(dev.found), dev.seen
    c.marks[:] = dev.marks  # (aged) the walk's marks: which blocks are free
    c.gen, c.queue, c.left, c.last = dev.gen, list(dev.queue), dev.left, dev.last
    c.live = dev.live
    return c


def read(path):
    """Return the file at *path*'s bytes, or None if it is not there."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def check(image, current, name, new, log=None):
    """Reboot on *image*; return None or why it failed. *log*: the aged flash's log's
    (last, new) text, whose file must read as one of them."""
    try:
        store = mount(FlashDev(BLOCKS, data=bytearray(image)))
    except OSError as e:
        return "unmountable %r" % (e,)
    why = None
    if log is not None:
        if read(LIB) != LIB_DATA:
            why = "the firmware's file garbage"
        elif (read(LOG) or b"") not in log:
            why = "the log garbage"
    for j, other in enumerate(NAMES):
        got = store.load(other)
        if store.status != OK:
            why = "%s status %d" % (other, store.status)
        elif got != current[j] and not (other == name and got == new):
            why = "%s garbage" % other
    umount()
    return why


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    rng = Rng(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    sweep = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    aged = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    nor = Nor()
    os.VfsLfs2.mkfs(nor, progsize=PROGSIZE)
    log = None
    if aged:  # files written over and removed: stale data in every free block
        mount(nor)
        for r in range(4):
            for i in range(3):
                with open(MOUNT + "/old%d" % i, "wb") as f:
                    f.write(bytes([r + i]) * 9000)
        for i in range(3):
            os.remove(MOUNT + "/old%d" % i)
        with open(LIB, "wb") as f:
            f.write(LIB_DATA)
        log = [b"", b""]
        umount()
    dev = Ahead(nor, BLOCKS)
    store = mount(dev)
    current = [payload(i, 0) for i in range(3)]
    for i, name in enumerate(NAMES):
        assert store.save(name, current[i]) == OK
    cuts = mid = fails = saves = 0
    for r in range(1, rounds + 1):
        for i, name in enumerate(NAMES):
            new = payload(i, r)
            umount()  # the real save's twin, cut at each operation (its count first)
            ops = -1
            if sweep:
                twin = clone(dev, Nor(bytearray(nor.data)))
                store = mount(twin)
                ops0 = twin.raw.ops
                assert store.save(name, new) == OK
                ops = twin.raw.ops - ops0
                umount()
            for k in range(ops + 1):
                for mode in (MODE_DROP, MODE_TORN):
                    cut = clone(dev, Nor(bytearray(nor.data)))
                    store = mount(cut)
                    cut.raw.cut_at(k, mode)
                    try:
                        store.save(name, new)
                    except OSError:
                        pass
                    umount()
                    img = cut.raw.image if cut.raw.image is not None else cut.raw.data
                    why = check(img, current, name, new, log)
                    cuts += 1
                    if why is not None:
                        fails += 1
                        if fails <= 20:
                            print("FAIL round", r, name, "cut", k, mode, why)
            store = mount(dev)
            assert store.save(name, new) == OK
            saves += 1
            current[i] = new
            if log is not None and i == 0:  # the round's log line (not cut: the saves are)
                line = b"round %d: %s\n" % (r, b"x" * 200)
                with open(LOG, "ab") as f:
                    f.write(line)
                log[0] = log[1] = log[0] + line
            for _ in range(rng.randrange(1, 21)):  # the loop's sleeps until the next save
                dev.idle(2)
            if nor.pending >= 0:  # the power goes mid erase ahead
                umount()
                why = check(nor.data, current, None, None, log)
                mid += 1
                if why is not None:
                    fails += 1
                    if fails <= 20:
                        print("FAIL round", r, name, "mid erase ahead", why)
                try:
                    store = mount(dev)
                except OSError as e:  # the erases ahead broke the flash itself: stop here
                    fails += 1
                    print("FAIL round", r, name, "the flash unmountable %r" % (e,))
                    break
        else:
            continue
        break
    umount()
    print("CUTS %d MIDERASE %d FAIL %d SAVES %d AHEAD %d SKIPPED %d WAITED %d ERASES %d"
          % (cuts, mid, fails, saves, nor.ahead, dev.skipped, dev.waited, nor.erases))


main()
