# The Pico's littlefs built on the host, with the firmware laid out as `shutbox flash` leaves it.
"""littlefs images of a Raspberry Pi Pico's filesystem (littlefs-python), for any Pico board.

The geometry is the board's, from shutbox_host.model.boards (MicroPython v1.28's own
configuration, cited there): littlefs2 with 4,096-byte blocks from the board's filesystem
offset to the end of its flash (``RPI_PICO``: 0xA0000, 352 blocks), mounted at ``/`` by
``ports/rp2/modules/_boot.py`` as ``VfsLfs2(bdev, progsize=256)`` with extmod/vfs_lfsx.c's
other defaults (read size 32, lookahead 32, block_cycles 100). The file set is
shutbox_host.pico.flash's own (``prepare``: the launcher, ``/.shutbox/current``, the version
folder with the modules as .mpy (``mp.MPY_FLAGS``), its table index and manifest, the tables
the box's tile count reads in ``/.shutbox/tables``), so an image holds exactly what a flash
writes, and an empty ``/data``. The stale half of every metadata pair is left erased, as the
box's erase ahead (shutbox.ahead, on an RP2040's flash chip) would erase it in its first
sleeps: a box flashed with the image starts with nothing to erase ahead.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from shutbox_host import mp
from shutbox_host.model import boards
from shutbox_host.pico import flash

_PICO = boards.BY_NAME["RPI_PICO"]
BLOCK_SIZE = boards.BLOCK_SIZE
BLOCK_COUNT = _PICO.fs_blocks  # RPI_PICO's, the default board
FS_OFFSET = _PICO.fs_offset
FLASH_SIZE = _PICO.flash_bytes
PROG_SIZE = boards.PROG_SIZE
READ_SIZE = boards.READ_SIZE
LOOKAHEAD = boards.LOOKAHEAD
BLOCK_CYCLES = boards.BLOCK_CYCLES
BOARD_MPY = 4870  # sys.implementation._mpy of MicroPython v1.28 on the rp2 port: mpy v6.3


def new_fs(image: bytearray | None = None, mount: bool = True, blocks: int = BLOCK_COUNT):
    """Return a littlefs-python LittleFS on the board geometry of *blocks* 4 KB blocks
    (formatted if no *image*)."""
    import littlefs

    fs = littlefs.LittleFS(block_size=BLOCK_SIZE, block_count=blocks, read_size=READ_SIZE,
                           prog_size=PROG_SIZE, lookahead_size=LOOKAHEAD,
                           block_cycles=BLOCK_CYCLES, mount=False)
    if image is not None:
        fs.context.buffer[:] = image
    else:
        fs.format()
    if mount:
        fs.mount()
    return fs


def _write(fs, path: str, data: bytes) -> None:
    with fs.open(path, "wb") as f:
        f.write(data)


def firmware_tree(firmware: Path = mp.FIRMWARE, mpy: int | None = BOARD_MPY,
                  overrides: dict[str, bytes] | None = None,
                  companion: bool = False, chip: str = "RP2040") -> dict[str, bytes]:
    """Return {absolute board path: content} of everything `shutbox flash` writes for a board
    of *chip* reporting ``sys.implementation._mpy == mpy`` (*overrides*: sources replaced;
    *companion*: a Pico W's, with the companion)."""
    return flash.prepare(Path(firmware), mpy, overrides, companion=companion, chip=chip).tree()


def build(firmware: Path | None = mp.FIRMWARE, mpy: int | None = BOARD_MPY,
          extra: dict[str, bytes] | None = None, blocks: int | None = None,
          overrides: dict[str, bytes] | None = None, board: str = "RPI_PICO",
          erased: bool = True) -> bytes:
    """Return the filesystem image (*blocks* x 4 KB, None: the whole filesystem of *board*)
    of a *board* flashed with *firmware* (None: an empty filesystem) as `shutbox flash` leaves
    it (a Pico W's with the companion), plus *extra* files {absolute path: content}; with
    *erased* False the stale halves are left as littlefs left them (as a flash through the
    board leaves them: the box erases them ahead in its first sleeps)."""
    b = boards.BY_NAME[board]
    tree = (firmware_tree(firmware, mpy, overrides, companion=flash.wants_companion(b),
                          chip=b.chip)
            if firmware is not None else {})
    tree.update(extra or {})
    return image_of(tree, b.fs_blocks if blocks is None else blocks,
                    data_dir=firmware is not None, erased=erased)


def image_of(tree: dict[str, bytes], blocks: int = BLOCK_COUNT, data_dir: bool = True,
             erased: bool = True) -> bytes:
    """Return the filesystem image (*blocks* x 4 KB) holding *tree* ({absolute path:
    content}), and an empty /data (where the box keeps its settings) with *data_dir*; its
    metadata pairs' stale halves erased (``erased_ahead``) unless *erased* is False."""
    fs = new_fs(blocks=blocks)
    dirs = {"/data"} if data_dir else set()
    for path in tree:
        parts = path.strip("/").split("/")[:-1]
        for i in range(1, len(parts) + 1):
            dirs.add("/" + "/".join(parts[:i]))
    for d in sorted(dirs, key=lambda p: (p.count("/"), p)):
        fs.mkdir(d)
    for path, data in sorted(tree.items()):
        _write(fs, path, data)
    fs.unmount()
    if not erased:
        return bytes(fs.context.buffer)
    return erased_ahead(bytearray(fs.context.buffer), blocks)


class _Blocks:
    """A littlefs image in RAM as shutbox.ahead's raw device (its walk reads views alone)."""

    def __init__(self, image: bytearray):
        self.image = image

    def view(self, block: int) -> memoryview:
        return memoryview(self.image)[block * BLOCK_SIZE:(block + 1) * BLOCK_SIZE]

    def readblocks(self, block: int, buf, offset: int = 0) -> None:
        at = block * BLOCK_SIZE + offset
        buf[:] = self.image[at:at + len(buf)]


def erased_ahead(image: bytearray, blocks: int) -> bytes:
    """*image* with the stale half of each metadata pair erased (0xFF), found by the box's
    own walk (shutbox.ahead: the half littlefs's fetch would not pick); littlefs never reads
    a stale half's content, so the files are the same."""
    from shutbox import ahead

    dev = ahead.Ahead(_Blocks(image), blocks)
    dev.next = (0, 1)
    while dev.next is not None:
        dev._walk()
    for b in dev.found:
        image[b * BLOCK_SIZE:(b + 1) * BLOCK_SIZE] = b"\xff" * BLOCK_SIZE
    return bytes(image)


def flash_image(fs_image: bytes, base: bytes | None = None) -> bytes:
    """Return a whole 2 MB flash: *base* (or erased flash) with *fs_image* at FS_OFFSET."""
    out = bytearray(base if base is not None else b"\xff" * FLASH_SIZE)
    out[FS_OFFSET:FS_OFFSET + len(fs_image)] = fs_image
    return bytes(out)


def read_tree(flash_or_fs: bytes, board: boards.Board | None = None,
              paths: Iterable[str] | None = None) -> dict[str, bytes]:
    """Return {absolute path: content} of every file on a flash image (the board's whole
    flash) or a filesystem image, or of those of *paths* that are there (a third of the time
    of them all on a Pico flashed with the firmware); raises littlefs.LittleFSError when it
    does not mount.

    The files are those the board finds: littlefs first completes what a power cut
    interrupted (lfs_fs_mkconsistent, on a copy), as it does before its first write after
    mounting. A cut inside a rename between two folders can leave a state whose plain reads
    find the file in neither folder until then (littlefs v2.11; tests/pico/test_lean.py)."""
    b = board or _PICO
    data = flash_or_fs
    if len(data) == b.flash_bytes:
        data = data[b.fs_offset:]
    fs = new_fs(bytearray(data[:BLOCK_SIZE * b.fs_blocks]), blocks=b.fs_blocks)
    fs.fs_mkconsistent()
    out: dict[str, bytes] = {}
    if paths is None:
        paths = [(root.rstrip("/") + "/") + name if root != "/" else "/" + name
                 for root, _dirs, files in fs.walk("/") for name in files]
    for path in paths:
        try:
            with fs.open(path, "rb") as f:
                out[path] = f.read()
        except FileNotFoundError:
            pass
    fs.unmount()
    return out
