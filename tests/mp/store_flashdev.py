# A NOR-flash block device in RAM for os.VfsLfs2 under micropython, with a power cut at op k.
"""FlashDev: the block protocol MicroPython's littlefs uses, over a bytearray, cuttable.

Behaves like the Pico's flash: an erase sets a whole block to 0xFF, a program can only clear
bits (new = old AND data). Program and erase operations are counted; with ``cut_at(k, mode)``
the first k operations go through and operation k is where the power fails. At that moment
the flash is frozen into ``image``, the bytes a reboot finds:

- MODE_RAISE: operation k is not done and raises OSError(EIO) to littlefs.
- MODE_DROP:  operation k is not done, and the writer never knows.
- MODE_TORN:  operation k is half done in the image (half the bytes programmed, or half
  the block erased), and the writer never knows.

After the cut the software keeps running on its own view (``data``) as if nothing happened,
as a CPU would for the microseconds before its supply collapses; none of it reaches
``image``. So files a failed save left open close quietly from GC finalisers later.
"""

MODE_RAISE = 0
MODE_DROP = 1
MODE_TORN = 2
MODES = ("raise", "drop", "torn")

_EIO = 5
_IOCTL_COUNT = 4
_IOCTL_SIZE = 5
_IOCTL_ERASE = 6

BLOCK = 4096  # the RP2040's flash erase size (rp2.Flash uses 4096-byte blocks)
PROGSIZE = 256  # as in ports/rp2/modules/_boot.py


class FlashDev:
    """A RAM flash of *blocks* blocks of *size* bytes (or over the bytearray *data*)."""

    def __init__(self, blocks=16, size=BLOCK, data=None):
        self.size = size
        self.blocks = blocks
        self.data = data if data is not None else bytearray(b"\xff" * (blocks * size))
        self._ff = b"\xff" * size
        self._ff_half = b"\xff" * (size // 2)
        self.ops = 0  # program + erase operations seen
        self.programs = 0
        self.erases = 0
        self.overprograms = 0  # programs onto bytes that were not erased (a littlefs bug)
        self.budget = -1  # operations left before the cut; -1: no cut
        self.mode = MODE_RAISE
        self.image = None  # the flash as the power cut left it (None: no cut yet)

    def cut_at(self, k, mode):
        """Let k more program/erase operations through, then fail as *mode* says."""
        self.budget = k
        self.mode = mode

    def _cut(self):
        """Count an operation; return True if it is the one the power cut interrupts."""
        self.ops += 1
        if self.budget < 0 or self.image is not None:
            return False
        if self.budget > 0:
            self.budget -= 1
            return False
        return True

    def _freeze(self, a, n, torn):
        """Freeze the image at the cut: with the first *n* bytes from *a* of *torn* done."""
        image = bytearray(self.data)
        if self.mode == MODE_TORN:
            image[a : a + n] = torn
        self.image = image
        if self.mode == MODE_RAISE:
            raise OSError(_EIO)

    def readblocks(self, block, buf, offset=0):
        """Copy bytes from the flash into *buf*."""
        a = block * self.size + offset
        try:
            buf[:] = self.data[a : a + len(buf)]
        except MemoryError:  # a GC finaliser closing a file, heap locked: copy byte by byte
            d = self.data
            for i in range(len(buf)):
                buf[i] = d[a + i]

    def writeblocks(self, block, buf, offset=None):
        """Program *buf* at *offset* in *block* (bits can only go from 1 to 0)."""
        if offset is None:  # the simple interface: erase the block(s) first
            for i in range(len(buf) // self.size):
                self.ioctl(_IOCTL_ERASE, block + i)
            offset = 0
        n = len(buf)
        a = block * self.size + offset
        d = self.data
        if self._cut():
            half = bytearray(d[a : a + n // 2])
            for i in range(n // 2):
                half[i] &= buf[i]
            self._freeze(a, n // 2, half)
        try:
            erased = d[a : a + n] == self._ff[:n]
        except MemoryError:  # a GC finaliser closing a file, heap locked: go byte by byte
            erased = False
        if erased:
            d[a : a + n] = buf
        else:
            over = False
            for i in range(n):
                if d[a + i] != 0xFF:
                    over = True
                d[a + i] &= buf[i]
            if over:
                self.overprograms += 1
        self.programs += 1
        return 0

    def ioctl(self, op, arg):
        """Answer littlefs's block-device queries; erase sets a block to 0xFF."""
        if op == _IOCTL_COUNT:
            return self.blocks
        if op == _IOCTL_SIZE:
            return self.size
        if op == _IOCTL_ERASE:
            a = arg * self.size
            if self._cut():
                self._freeze(a, self.size // 2, self._ff_half)
            self.data[a : a + self.size] = self._ff  # no allocation: finalisers may erase
            self.erases += 1
            return 0
        return 0  # init, deinit, sync: nothing to do
