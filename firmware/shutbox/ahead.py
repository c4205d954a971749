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
  through their tails as littlefs's fetch does (the half littlefs would not pick: the other
  has the newer revision and a commit whose CRC checks, or this one has none). littlefs
  never reads a stale half's content (it erases it before it writes there), so erasing it
  early changes nothing it relies on, and after a power cut mid erase the half is invalid
  as after a cut in littlefs's own erase of it. A pair that littlefs moves leaves its
  stale half free and already erased, so a later allocation of it skips its erase too.
- The erase ahead is suspendable: ``raw.erase_ahead(block, us)`` runs it for at most *us*
  µs of the loop's sleep and suspends it (W25Q16JV 75h, resumed with 7Ah; tSUS 20 µs), so it
  holds no input beyond the loop's own poll. While it is suspended the chip reads and
  programs other blocks but starts no other erase: an erase littlefs asks for then (of a
  block not erased ahead) first finishes the suspended one, the one case a save waits.

The raw device is the simulated board's (sim/norflash.py: ``Nor``), or on the Pico
tests/pico/rp2_erase_ahead.py's ``Chip`` (code in RAM that drives the flash's suspend and
resume; tested on the emulated chip only): the box does not use it yet, the Pico mounts
littlefs on its flash as MicroPython does (docs/reliability.md says what is left). Erases
are the ones littlefs does, earlier: the flash's wear is unchanged (``shutbox bench --only
saves`` counts them).
"""

import binascii

from micropython import const

_BLOCK = const(4096)
_CHUNK = const(256)
_NULL = const(0xFFFFFFFF)


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
        """Wrap *raw* (readblocks/writeblocks/ioctl and erase_ahead) of *blocks* 4 KB blocks."""
        self.raw = raw
        self.blocks = blocks
        self.clean = bytearray(blocks)  # 1: erased here and not programmed since
        self.todo = -1  # the block being erased ahead (suspended between sleeps), or -1
        self.stale = []  # the stale halves the last walk found, still to erase
        self.walk = True  # littlefs erased since the last walk: the pairs may have moved
        self.buf = bytearray(_CHUNK)
        self.ff = b"\xff" * _CHUNK  # an erased chunk, to compare with
        self.skipped = 0  # littlefs's erases skipped: the block was erased
        self.waited = 0  # littlefs's erases done at once (a save waited for the flash)

    def readblocks(self, block, buf, offset=0):
        self.raw.readblocks(block, buf, offset)

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
        """The main loop sleeps *ms* ms: erase ahead meanwhile (suspended at its end)."""
        if self.todo < 0:
            if self.walk:
                self.walk = False
                self._walk()
            st = self.stale
            while st and self.todo < 0:
                b = st.pop()
                if not self.clean[b] and not self._blank(b):
                    self.todo = b
                else:
                    self.clean[b] = 1
            if self.todo < 0:
                return
        if self.raw.erase_ahead(self.todo, ms * 1000):
            self.clean[self.todo] = 1
            self.todo = -1

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

    def _read(self, block, off, n):
        """Return a view of *n* (at most 8) bytes of *block* at *off*."""
        m = memoryview(self.buf)[:n]
        self.raw.readblocks(block, m, off)
        return m

    def _fetch(self, block):
        """Return (revision, tail pair or None, has a valid commit) of metadata *block*,
        as littlefs's fetch reads it: its commits in order, each checked by its CRC."""
        rev = self._read(block, 0, 4)
        r = _u32(rev, False)
        crc = binascii.crc32(rev)  # littlefs's CRC (no final inversion) is this ^ _NULL
        off = 0
        ptag = _NULL
        tail = temp = None
        ok = False
        while True:
            off += 4 if ptag & 0x3FF == 0x3FF else 4 + (ptag & 0x3FF)
            if off + 4 > _BLOCK:
                break
            t = self._read(block, off, 4)
            crc = binascii.crc32(t, crc)
            tag = _u32(t, True) ^ ptag
            if tag & 0x80000000:  # not programmed yet
                break
            size = 0 if tag & 0x3FF == 0x3FF else tag & 0x3FF
            if off + 4 + size > _BLOCK:
                break
            ptag = tag
            if tag & 0x78000000 == 0x50000000:  # a commit's CRC
                if _u32(self._read(block, off + 4, 4), False) != crc ^ _NULL:
                    break
                ptag ^= ((tag >> 20) & 1) << 31
                ok = True
                tail = temp
                crc = 0
                continue
            p = off + 4
            while p < off + 4 + size:
                n = off + 4 + size - p
                m = memoryview(self.buf)[:n if n < _CHUNK else _CHUNK]
                self.raw.readblocks(block, m, p)
                crc = binascii.crc32(m, crc)
                p += len(m)
            if tag & 0x70000000 == 0x60000000:  # a tail: the next pair
                pr = self._read(block, off + 4, 8)
                temp = (_u32(pr, False), _u32(pr[4:], False))
        return r, tail, ok

    def _walk(self):
        """Find the stale half of every metadata pair (self.stale), from the root's."""
        out = []
        pair: tuple | None = (0, 1)
        seen = 0
        while pair is not None and seen < self.blocks:
            seen += 1
            a, b = pair
            if a >= self.blocks or b >= self.blocks:
                break
            ra, ta, oka = self._fetch(a)
            rb, tb, okb = self._fetch(b)
            # littlefs tries the newer revision first and keeps it if a commit checks out
            if _newer(rb, ra):
                a, b, ta, tb, oka, okb = b, a, tb, ta, okb, oka
            if oka:
                out.append(b)
                pair = ta
            elif okb:
                out.append(a)
                pair = tb
            else:
                break  # a pair with no valid half: erase nothing more
            if pair is not None and pair[0] == _NULL and pair[1] == _NULL:
                pair = None
        self.stale = out
