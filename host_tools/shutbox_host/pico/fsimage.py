# The Pico's littlefs built on the host, with the firmware laid out as `shutbox flash` leaves it.
"""littlefs images of a Raspberry Pi Pico's filesystem (littlefs-python).

Geometry of MicroPython's ``RPI_PICO`` board (v1.28): littlefs2 with 4,096-byte blocks from
flash offset 0xA0000 to the end of the 2 MB flash, 352 blocks (``ports/rp2/rp2_flash.c``:
``MICROPY_HW_FLASH_STORAGE_BASE`` = flash size minus ``MICROPY_HW_FLASH_STORAGE_BYTES``, 1,408 KB
in ``ports/rp2/boards/RPI_PICO/mpconfigboard.h``), mounted at ``/`` by
``ports/rp2/modules/_boot.py`` as ``VfsLfs2(bdev, progsize=256)`` with extmod/vfs_lfs.c's other
defaults (read size 32, lookahead 32, block_cycles 100). The file set and the hashing are
shutbox_host.pico.flash's own (``firmware_files``, ``manifest_for``, ``LAUNCHER``), so an image
holds exactly what a flash writes: ``/main.py`` (the launcher), ``/.shutbox/current``,
``/.shutbox/fw-<hash>/`` with the modules as .mpy (``mp.MPY_FLAGS``) and ``manifest.json``,
and an empty ``/data``.
"""

from __future__ import annotations

from pathlib import Path

from shutbox_host import mp
from shutbox_host.pico import flash

BLOCK_SIZE = 4096
BLOCK_COUNT = 352
FS_OFFSET = 0xA0000
FLASH_SIZE = 2 * 1024 * 1024
PROG_SIZE = 256
READ_SIZE = 32
LOOKAHEAD = 32
BLOCK_CYCLES = 100
BOARD_MPY = 4870  # sys.implementation._mpy of MicroPython v1.28 on the rp2 port: mpy v6.3


def new_fs(image: bytearray | None = None, mount: bool = True):
    """Return a littlefs-python LittleFS on the RPI_PICO geometry (formatted if no *image*)."""
    import littlefs

    fs = littlefs.LittleFS(block_size=BLOCK_SIZE, block_count=BLOCK_COUNT, read_size=READ_SIZE,
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


def firmware_tree(firmware: Path = mp.FIRMWARE, mpy: int | None = BOARD_MPY) -> dict[str, bytes]:
    """Return {absolute board path: content} of everything `shutbox flash` writes for a board
    reporting ``sys.implementation._mpy == mpy``."""
    files, fmt, _how = flash.firmware_files(Path(firmware), mpy)
    name, manifest = flash.manifest_for(files, fmt)
    files[flash.MANIFEST] = manifest
    tree = {flash.LAUNCHER_PATH: flash.LAUNCHER.encode(),
            flash.BOARD_DIR + "/current": name.encode()}
    for rel, data in files.items():
        tree["%s/%s/%s" % (flash.BOARD_DIR, name, rel)] = data
    return tree


def build(firmware: Path | None = mp.FIRMWARE, mpy: int | None = BOARD_MPY,
          extra: dict[str, bytes] | None = None) -> bytes:
    """Return the filesystem image (352 x 4 KB) of a Pico flashed with *firmware* (None: an
    empty filesystem), plus *extra* files {absolute path: content}."""
    fs = new_fs()
    tree = firmware_tree(firmware, mpy) if firmware is not None else {}
    tree.update(extra or {})
    dirs = {"/data"} if firmware is not None else set()
    for path in tree:
        parts = path.strip("/").split("/")[:-1]
        for i in range(1, len(parts) + 1):
            dirs.add("/" + "/".join(parts[:i]))
    for d in sorted(dirs, key=lambda p: (p.count("/"), p)):
        fs.mkdir(d)
    for path, data in sorted(tree.items()):
        _write(fs, path, data)
    fs.unmount()
    return bytes(fs.context.buffer)


def flash_image(fs_image: bytes, base: bytes | None = None) -> bytes:
    """Return a whole 2 MB flash: *base* (or erased flash) with *fs_image* at FS_OFFSET."""
    out = bytearray(base if base is not None else b"\xff" * FLASH_SIZE)
    out[FS_OFFSET:FS_OFFSET + len(fs_image)] = fs_image
    return bytes(out)


def read_tree(flash_or_fs: bytes) -> dict[str, bytes]:
    """Return {absolute path: content} of every file on a flash image (2 MB) or a filesystem
    image; raises littlefs.LittleFSError when it does not mount."""
    data = flash_or_fs
    if len(data) == FLASH_SIZE:
        data = data[FS_OFFSET:]
    fs = new_fs(bytearray(data[:BLOCK_SIZE * BLOCK_COUNT]))
    out: dict[str, bytes] = {}
    for root, _dirs, files in fs.walk("/"):
        for name in files:
            path = (root.rstrip("/") + "/" + name) if root != "/" else "/" + name
            with fs.open(path, "rb") as f:
                out[path] = f.read()
    fs.unmount()
    return out
