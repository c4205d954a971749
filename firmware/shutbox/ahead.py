# littlefs's flash with its erases done ahead of need: a save never waits for a 4 KB erase.
"""A block device for ``os.VfsLfs2`` over a NOR flash, whose saves never erase.

littlefs erases a block just before it writes it afresh: the stale half of a metadata pair
when it compacts the pair's log (about 0.84 times a turn), and a block it allocates: a new
half when it moves a pair (at its 101st compaction) or makes one, a file's blocks once the
file outgrows its inline limit (512 bytes: the error log), one more at each append. A free
block holds what was last written there (a file written over, a pair moved away) until then.
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
  as after a cut in littlefs's own erase of it.
- Then the free blocks that are not erased: every block in no pair and in no file, going on
  from littlefs's last allocation (its allocator takes the next free block after it, modulo
  the block count). The walk notes each pair's halves, and in the half littlefs reads each
  id's last struct as its fetch counts them (a create moves the ids after it up, a delete
  down): a directory's pair, or a file's list, whose blocks it follows back from the last
  by each block's first pointer (littlefs's CTZ skip-list: its traverse), 32 a sleep. A
  block a struct that a later commit replaced still holds is free: littlefs's traverse
  does not count it either. Any erase littlefs asks for starts the walk again (every block
  it takes, it erases first), so a block is erased ahead only while no struct holds it, and
  a walk that meets a pair with no valid half, or more pairs than blocks, erases nothing.
  What this asks of the firmware: a file is written within one step (opened, written
  and closed between two of the loop's sleeps, as every save of the box and the Pico W's
  companion is): the blocks of a file still open for writing are in no struct yet, so a
  walk in a sleep between its writes would take them for free.
- The erase ahead is suspendable: ``raw.erase_ahead(block, us)`` runs it for at most *us*
  µs of the loop's sleep and suspends it (W25Q16JV 75h, resumed with 7Ah; tSUS 20 µs), so it
  holds no input beyond the loop's own poll. While it is suspended the chip reads and
  programs other blocks but starts no other erase: an erase littlefs asks for then of a
  block not erased ahead, or of the block under way, first finishes the suspended one, the
  one case a save waits (an erase it asks for of a block erased ahead is skipped, the
  suspended one going on in the next sleep).

``start(raw, blocks, at)`` mounts littlefs at *at* on it and hands its idle step to the box's
loop: ``shutbox.idle``, a list holding the step while the device has work (after an erase
littlefs asked for, until the walk and its erases ahead are done), empty otherwise;
Guard.forever calls ``shutbox.idle[0](ms)`` in every sleep while it is there (and sleeps
itself when it returns False), so a waiting screen's passes call nothing. The raw device is
the simulated board's (sim/norflash.py: ``Nor``, its profiles ``typ-ahead`` and ``max-ahead``),
or on the Pico firmware/shutbox/chip.py's ``Chip`` (code in RAM that drives the flash's
suspend and resume; shutbox.boot.start mounts / on it at power-up where it is flashed,
which ``shutbox flash`` does not do by default: docs/reliability.md). Erases are the ones littlefs
does, earlier: the flash's wear is unchanged (``shutbox bench --only saves`` counts them),
but for a free block erased ahead that littlefs never takes again (once: it stays erased).
Its heap: the marks (a byte a block), a list of the files' blocks to follow, a list of a
pair's ids while it reads them.
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
        self.marks = bytearray(blocks)  # == gen: in use (met by the walk under way or done)
        self.gen = 1
        self.queue = []  # the walk's files still to mark: their last block and its index
        self.live: tuple | None = None  # the half the walk took last (block, its commits' end)
        self.left = -1  # the free blocks still to look at (-1: the walk is not done)
        self.last = 0  # where the free blocks are looked at from: littlefs's last allocation
        self.ptr = bytearray(4)  # a block's first pointer (to the block before, in a file)
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
            self.finish()
        self.clean[block] = 0
        return self.raw.writeblocks(block, buf, offset)

    def ioctl(self, op, arg):
        if op != 6:
            return self.raw.ioctl(op, arg)
        self.walk = True
        if self.marks[arg] != self.gen:  # not in use at the last walk: littlefs allocated it
            self.last = arg
        if self.step is not None and not self.step:  # work for the loop's sleeps again
            self.step.append(self.hook)
        if arg != self.todo and (self.clean[arg] or self._blank(arg)):
            self.clean[arg] = 1  # (the one under way, suspended, goes on in the next sleep)
            self.skipped += 1
            return 0
        if self.todo >= 0:  # no erase starts while one is suspended: that one ends first
            self.finish()
            if self.clean[arg]:  # it was this block's (littlefs allocated it)
                self.skipped += 1
                return 0
        self.waited += 1
        self.raw.ioctl(6, arg)
        self.clean[arg] = 1
        return 0

    def idle(self, ms):
        """The main loop sleeps *ms* ms: walk a pair or a file, or erase ahead (suspended at
        its end); return True if the erase took the sleep (the loop then does not sleep
        again)."""
        if self.todo < 0:
            if self.walk:  # littlefs erased: (again) from the root's pair
                self.walk = False
                self.next = (0, 1)
                self.found = []
                self.seen = 0
                self.queue.clear()
                self.live = None
                self.left = -1
                g = self.gen + 1
                if g > 255:  # the marks' byte wraps: none may be taken for this walk's
                    g = 1
                    m = self.marks
                    for i in range(self.blocks):
                        m[i] = 0
                self.gen = g
            if self.live is not None:  # the last pair's files, in a sleep of their own
                b, e = self.live
                self.live = None
                self._live(self.raw.view(b), e)
                return False
            if self.queue:
                self._files()
                return False
            if self.next is not None:
                self._walk()
                return False
            if self.left < 0:  # the walk is done: its stale halves, then the free blocks
                self.stale = self.found
                self.found = []
                self.left = self.blocks if self.seen > 0 else 0
            st = self.stale
            while st and self.todo < 0:
                b = st.pop()
                if not self.clean[b] and not self._blank(b):
                    self.todo = b
                else:
                    self.clean[b] = 1
            if self.todo < 0:
                self._free()
            if self.todo < 0:
                if self.left == 0 and self.step:  # nothing left: the loop sleeps without
                    self.step.pop()  # calling this (a call, or a test of the step, costs a
                    # waiting screen's pass)
                return False
        if self.raw.erase_ahead(self.todo, ms * 1000):
            self.clean[self.todo] = 1
            self.todo = -1
        return True

    def _free(self):
        """Find the next free block (in no pair and no file the walk met) that is not erased,
        going on from littlefs's last allocation, where its allocator takes the next:
        self.todo. A few blocks a sleep (each not known erased is read whole)."""
        m = self.marks
        g = self.gen
        clean = self.clean
        n = 4
        while self.left > 0 and n > 0:
            b = self.last + 1
            if b >= self.blocks:
                b = 0
            self.last = b
            self.left -= 1
            if m[b] == g or clean[b]:
                continue
            n -= 1
            if self._blank(b):
                clean[b] = 1
            else:
                self.todo = b
                return

    def _files(self):
        """Mark in use the blocks of the files the walk met (self.queue), following each
        file's list back from its last block by each block's first pointer (the one to the
        block before), at most 32 blocks a sleep."""
        q = self.queue
        m = self.marks
        g = self.gen
        p = self.ptr
        k = 32
        while q and k > 0:
            n = q.pop()
            b = q.pop()
            while True:
                m[b] = g
                k -= 1
                if n == 0:
                    break
                self.raw.readblocks(b, p, 0)
                b = p[0] | (p[1] << 8)
                n -= 1
                if p[2] or p[3] or b >= self.blocks:  # not a block's number: no file here
                    break
                if k == 0:
                    q.append(b)
                    q.append(n)
                    break

    def finish(self):
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
        """Return (tail pair or None, where its valid commits end: 0 if none) of the metadata
        block whose bytes are the view *m*, as littlefs's fetch reads it: its commits in
        order, each checked by its CRC. Tags are taken in 16-bit halves and each commit's
        CRC in one call: on the Pico a 32-bit number is a heap object."""
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
        return tail, start if ok else 0

    def _live(self, m, end):
        """Note what the commits of the metadata block *m* up to *end* hold in use: each id's
        last struct (a file's list: queued for _files; a directory's pair), the ids shifted
        by the creates and deletes as littlefs's fetch counts them."""
        ids: list = []  # an id's struct: its tag's offset * 2 (+1: a file's list), 0: none
        off = 4
        ph = pl = 0xFFFF
        while off < end:
            h = ((m[off] << 8) | m[off + 1]) ^ ph
            lo = ((m[off + 2] << 8) | m[off + 3]) ^ pl
            size = lo & 0x3FF
            ph = h
            pl = lo
            i = ((h & 0xF) << 6) | (lo >> 10)
            t = h & 0x7FF0
            if h & 0x7800 == 0x5000:
                ph ^= (h >> 4 & 1) << 15
            elif i != 0x3FF:
                while len(ids) < i:
                    ids.append(0)
                if t == 0x4010:  # a create: the ids from here on move up
                    ids.insert(i, 0)
                elif len(ids) == i:
                    ids.append(0)
                if t == 0x4FF0:  # a delete: the ids after it move down
                    ids.pop(i)
                elif t & 0x7F00 == 0x2000:  # a struct: inline, a file's list, a directory's
                    ids[i] = 0 if t == 0x2010 or size != 8 else off * 2 + (t == 0x2020)
            off += 4 + (0 if size == 0x3FF else size)
        for x in ids:
            if x:
                self._uses(m, (x >> 1) + 4, x & 1)

    def _uses(self, m, at, ctz):
        """Note the blocks a struct in the bytes *m* at *at* holds in use: a directory's
        pair, or (*ctz*) a file's list, by its last block and its size, queued for _files."""
        if m[at + 2] | m[at + 3] | m[at + 7] or (m[at + 6] and not ctz):
            return  # not a block's number (past 16 bits), nor a size (past 24 bits)
        b = m[at] | (m[at + 1] << 8)
        n = m[at + 4] | (m[at + 5] << 8) | (m[at + 6] << 16)
        if not ctz:
            for x in (b, n):
                if x < self.blocks:
                    self.marks[x] = self.gen
        elif b < self.blocks and n:
            # littlefs's lfs_ctz_index(size - 1): the last block's index in the list (the
            # blocks after the first hold pointers back, one plus its trailing zeros)
            n -= 1
            i = n // (_BLOCK - 8)
            if i:
                c = 0
                x = i - 1
                while x:
                    c += x & 1
                    x >>= 1
                i = (n - 4 * (c + 2)) // (_BLOCK - 8)
            self.queue.append(b)
            self.queue.append(i)

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
            self.seen = -1  # the walk did not meet every pair: no block is known free
            return
        self.marks[a] = self.marks[b] = self.gen
        ma = self.raw.view(a)
        mb = self.raw.view(b)
        # littlefs tries the newer revision first and keeps it if a commit checks out
        if _newer(_u32(mb, False), _u32(ma, False)):
            a, b, ma, mb = b, a, mb, ma
        self.next, oka = self._fetch(ma)
        if oka:
            self.found.append(b)
            self.live = (a, oka)
        else:
            self.next, okb = self._fetch(mb)
            if okb:
                self.found.append(a)
                self.live = (b, okb)
            else:  # a pair with no valid half: erase nothing more
                self.next = None
                self.seen = -1


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
    # no mtimes: a file opened for writing and closed unwritten commits nothing, as
    # shutbox.store's create of a new file needs (its doc says why)
    fs = vfs.VfsLfs2(dev, progsize=256, mtime=False)  # type: ignore[abstract,arg-type]
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
