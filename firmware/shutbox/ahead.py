# littlefs's flash with its erases done ahead of need: a save never waits for a 4 KB erase.
"""A block device for ``os.VfsLfs2`` over a NOR flash, whose saves never erase.

littlefs erases a block just before it writes it afresh: the stale half of a metadata pair
when it compacts the pair's log (about 0.84 times a turn), a new block when it moves a pair.
On the Pico an erase stops the core (execution runs from that flash) for 45 ms typically,
400 ms at the W25Q16JV's worst, and an input that comes then waits for it. Here:

- ``ioctl(6, block)`` (littlefs's erase) does nothing when the block is already erased: known
  erased (erased here and not programmed since) or read all 0xFF. Skipping it is exact: the
  block's content is what the erase would leave. Otherwise it erases at once, as before.
- In the main loop's sleeps (``idle``), it erases ahead the blocks littlefs will erase next:
  the stale half of every metadata pair, found by walking the pairs from the root's {0, 1}
  through their tails (a pair a sleep, over ``raw.view``'s bytes) as littlefs's fetch
  does (the half littlefs would not pick: the other has the newer revision and a commit
  whose CRC checks, or this one has none). littlefs
  never reads a stale half's content (it erases it before it writes there), so erasing it
  early changes nothing it relies on, and after a power cut mid erase the half is invalid
  as after a cut in littlefs's own erase of it. A pair that littlefs moves leaves its
  stale half free and already erased, so a later allocation of it skips its erase too.
- The erase ahead is suspendable: ``raw.erase_ahead(block, us)`` runs it for at most *us*
  µs of the loop's sleep and suspends it (W25Q16JV 75h, resumed with 7Ah; tSUS 20 µs), so it
  holds no input beyond the loop's own poll. While it is suspended the chip reads and
  programs other blocks but starts no other erase: an erase littlefs asks for then (of a
  block not erased ahead) first finishes the suspended one, the one case a save waits.

``start(raw, blocks, at)`` mounts littlefs at *at* on it and hands its idle step to the box's
loop: ``shutbox.idle``, a list holding the step while the device has work (after an erase
littlefs asked for, until the walk and its erases ahead are done), empty otherwise;
Guard.forever calls ``shutbox.idle[0](ms)`` in every sleep while it is there (and sleeps
itself when it returns False), so a waiting screen's passes call nothing. The raw device is
the simulated board's (sim/norflash.py: ``Nor``, its profiles ``typ-ahead`` and ``max-ahead``),
or on the Pico firmware/shutbox/chip.py's ``Chip`` (code in RAM that drives the flash's
suspend and resume; shutbox.boot.start mounts / on it at power-up where it is flashed,
which ``shutbox flash`` does not do by default: docs/reliability.md). Erases are the ones littlefs
does, earlier: the flash's wear is unchanged (``shutbox bench --only saves`` counts them).
"""

import binascii

from micropython import const

_BLOCK = const(4096)
_CHUNK = const(256)
_NULL = const(0xFFFFFFFF)

mounted = None  # the Ahead that start() mounted last (its counters: the tests', the bench's)


def _u32(b, big):
    """Return the 4 bytes *b* as an unsigned integer."""
    if big:
        return (b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3]
    return b[0] | (b[1] << 8) | (b[2] << 16) | (b[3] << 24)


def _newer(a, b):
    """littlefs's lfs_scmp(a, b) > 0: revision *a* is after *b* (counts that wrap)."""
    return 0 < ((a - b) & _NULL) < 0x80000000


class Ahead:
    """The block device littlefs mounts: *raw*'s blocks, erased ahead of need."""

    def __init__(self, raw, blocks):
        """Wrap *raw* (readblocks/writeblocks/ioctl, erase_ahead, and view(block): a
        memoryview of a block's bytes, read only) of *blocks* 4 KB blocks."""
        self.raw = raw
        self.blocks = blocks
        self.clean = bytearray(blocks)  # 1: erased here and not programmed since
        self.todo = -1  # the block being erased ahead (suspended between sleeps), or -1
        self.stale = []  # the stale halves the last walk found, still to erase
        self.walk = True  # littlefs erased since the last walk: the pairs may have moved
        self.next: tuple | None = None  # the pair the walk under way takes next, or None
        self.found = []  # the stale halves it found so far
        self.seen = 0  # the pairs it took (a loop in the tails ends it)
        self.buf = bytearray(_CHUNK)
        self.ff = b"\xff" * _CHUNK  # an erased chunk, to compare with
        self.skipped = 0  # littlefs's erases skipped: the block was erased
        self.waited = 0  # littlefs's erases done at once (a save waited for the flash)
        # littlefs reads the raw device's own readblocks: no call of Python's between (on the
        # Pico a read is rp2.Flash's, in C: the box's start-up loads its modules through it)
        self.readblocks = raw.readblocks
        self.step = None  # start(): the box loop's [idle step], this device's while it has work
        self.hook = None  # this device's idle, bound once (a bound method is a heap object)

    def writeblocks(self, block, buf, offset=None):
        if offset is None:  # the basic interface: erase then program whole blocks
            for i in range(len(buf) // _BLOCK):
                self.ioctl(6, block + i)
            offset = 0
        if block == self.todo:  # the chip programs no block it is erasing
            self._finish()
        self.clean[block] = 0
        return self.raw.writeblocks(block, buf, offset)

    def ioctl(self, op, arg):
        if op != 6:
            return self.raw.ioctl(op, arg)
        self.walk = True
        if self.step is not None and not self.step:  # work for the loop's sleeps again
            self.step.append(self.hook)
        if self.todo >= 0:  # no erase starts while one is suspended: that one ends first
            self._finish()
        if self.clean[arg] or self._blank(arg):
            self.clean[arg] = 1
            self.skipped += 1
            return 0
        self.waited += 1
        self.raw.ioctl(6, arg)
        self.clean[arg] = 1
        return 0

    def idle(self, ms):
        """The main loop sleeps *ms* ms: walk a pair, or erase ahead (suspended at its end);
        return True if the erase took the sleep (the loop then does not sleep again)."""
        if self.todo < 0:
            if self.walk:  # littlefs erased: (again) from the root's pair
                self.walk = False
                self.next = (0, 1)
                self.found = []
                self.seen = 0
            if self.next is not None:
                self._walk()
                if self.next is not None:
                    return False
                self.stale = self.found
                self.found = []
            st = self.stale
            while st and self.todo < 0:
                b = st.pop()
                if not self.clean[b] and not self._blank(b):
                    self.todo = b
                else:
                    self.clean[b] = 1
            if self.todo < 0:
                if self.step:  # nothing left: the loop sleeps without calling this (a call,
                    self.step.pop()  # or a test of the step, costs a waiting screen's pass)
                return False
        if self.raw.erase_ahead(self.todo, ms * 1000):
            self.clean[self.todo] = 1
            self.todo = -1
        return True

    def _finish(self):
        """End the erase under way now (the core waits for what it has left)."""
        b = self.todo
        self.raw.erase_ahead(b, -1)
        self.clean[b] = 1
        self.todo = -1

    def _blank(self, block):
        """Return True if *block* reads all 0xFF."""
        buf = self.buf
        for off in range(0, _BLOCK, _CHUNK):
            self.raw.readblocks(block, buf, off)
            if buf != self.ff:
                return False
        return True

    def _fetch(self, m):
        """Return (tail pair or None, has a valid commit) of the metadata block whose bytes
        are the view *m*, as littlefs's fetch reads it: its commits in order, each checked
        by its CRC. Tags are taken in 16-bit halves and each commit's CRC in one call: on
        the Pico a 32-bit number is a heap object."""
        off = 4  # the first tag, after the revision
        ph = pl = 0xFFFF  # the previous tag's halves (tags are stored XORed with it)
        start = 0  # where the commit under way starts (the first: with the revision)
        tail = temp = None
        ok = False
        while off + 4 <= _BLOCK:
            h = ((m[off] << 8) | m[off + 1]) ^ ph
            lo = ((m[off + 2] << 8) | m[off + 3]) ^ pl
            if h & 0x8000:  # not programmed yet
                break
            size = lo & 0x3FF
            end = off + 4 + (0 if size == 0x3FF else size)
            if end > _BLOCK:
                break
            ph = h
            pl = lo
            if h & 0x7800 == 0x5000:  # a commit's CRC: through it, CRC-32's residue
                if binascii.crc32(m[start:off + 8]) != _NULL:
                    break
                ph ^= (h >> 4 & 1) << 15
                ok = True
                tail = temp
                start = end
            elif h & 0x7000 == 0x6000:  # a tail: the next pair (none: all 0xFF)
                temp = None if m[off + 7] == 0xFF else (
                    m[off + 4] | (m[off + 5] << 8), m[off + 8] | (m[off + 9] << 8))
            off = end
        return tail, ok

    def _walk(self):
        """Take the next metadata pair of the walk (self.next, from the root's through their
        tails): note its stale half (self.found), move on to its tail (None: the walk ends).
        A pair a sleep: the walk of the box's files takes some ms of Python on the Pico."""
        pair = self.next
        if pair is None:
            return
        a, b = pair
        self.seen += 1
        if a >= self.blocks or b >= self.blocks or self.seen > self.blocks:
            self.next = None
            return
        ma = self.raw.view(a)
        mb = self.raw.view(b)
        # littlefs tries the newer revision first and keeps it if a commit checks out
        if _newer(_u32(mb, False), _u32(ma, False)):
            a, b, ma, mb = b, a, mb, ma
        self.next, oka = self._fetch(ma)
        if oka:
            self.found.append(b)
        else:
            self.next, okb = self._fetch(mb)
            if okb:
                self.found.append(a)
            else:
                self.next = None  # a pair with no valid half: erase nothing more


def start(raw, blocks, at):
    """Mount littlefs (4 KB blocks, 256-byte programs, as the rp2 port does) at *at* on an
    Ahead over *raw*, and hand its idle step to the box's loop (``shutbox.idle``). Whatever
    was mounted at *at* is put back if littlefs does not mount (the box's files untouched).
    Return the filesystem mounted."""
    import vfs

    import shutbox

    old = None
    for f, point in vfs.mount():
        if point == at:
            old = f
    dev = Ahead(raw, blocks)
    if old is not None:
        vfs.umount(at)
    fs = vfs.VfsLfs2(dev, progsize=256)  # type: ignore[abstract,arg-type]  # a device by its methods
    try:
        vfs.mount(fs, at)
    except OSError:
        if old is not None:
            vfs.mount(old, at)
        raise
    if at == "/":
        import os

        os.chdir("/")
    dev.hook = dev.idle
    dev.step = [dev.hook]
    shutbox.idle = dev.step  # type: ignore[assignment]  # the package's None until now
    global mounted
    mounted = dev
    return fs
