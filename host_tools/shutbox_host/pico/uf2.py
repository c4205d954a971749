# `shutbox uf2`: one file to drag onto a Pico: MicroPython and the box's firmware on its littlefs.
"""Bundle a MicroPython uf2 for a Pico board with a littlefs image of the box's firmware.

The image is laid out exactly as `shutbox flash` leaves a board (shutbox_host.pico.flash
``prepare``: the launcher as /main.py, /.shutbox/current, the version folder, the tables the
pin map's tile count reads, an empty /data) on the board's filesystem geometry
(shutbox_host.model.boards), and goes into the uf2 as 256-byte blocks at the filesystem's flash
address with the board's family id, after MicroPython's own blocks. The whole filesystem
region is in the file, blank blocks too, so dragging it onto the board's BOOTSEL drive
replaces everything its filesystem held (a fresh littlefs as MicroPython would format it, then
the files).

The RP2040's bootrom erases a 4 KB sector when the first block of a group of 16 block numbers
arrives (raspberrypi/pico-bootrom-rp2040, bootrom/virtual_disk.c: ``page_no = block_no *
256 / FLASH_SECTOR_ERASE_SIZE``), so every group of 16 consecutive block numbers must target
one sector: MicroPython's last sector is padded with erased bytes to its end and the
filesystem's blocks start a new group, each sector whole. The RP2350's uf2 keeps MicroPython's
one absolute-family block (picotool's RP2350-E10 workaround) first and as it was; the other
blocks are one download of the board's family, renumbered 0..N-1 of N (its bootrom writes
them at their addresses when there is no partition table, as with MicroPython's).

The MicroPython uf2 is checked before anything is written: a UF2 file, whole (every block
its headers announce), MicroPython (picotool's binary info: program name, version, the
pico-sdk board it was built for, and its filesystem as a ``bi_block_device``, which must be
where the boards table says), for the chosen board's chip family. Any problem is one line
and nothing is written; the output is written to a temporary file renamed into place.
"""

from __future__ import annotations

import contextlib
import json
import os
import struct
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from shutbox_host import mp
from shutbox_host.errors import UserError
from shutbox_host.model import boards
from shutbox_host.pico import inputs

MAGIC = (0x0A324655, 0x9E5D5157)
MAGIC_END = 0x0AB16F30
FLAG_NOT_MAIN_FLASH = 0x0001
FLAG_FAMILY = 0x2000
PAYLOAD = 256
_BI_START, _BI_END = 0x7188EBF2, 0xE71AA390  # pico-sdk binary_info/defs.h markers
_BI_ID_AND_STRING, _BI_BLOCK_DEVICE = 6, 7  # binary_info/structure.h types
_BI_IDS = {0x02031C86: "program", 0x11A9BC3A: "version", 0xB63CFFBB: "board"}
MP_VERSION = inputs.MP_VERSION


def default_micropython(board: boards.Board) -> Path:
    """MicroPython's uf2 for *board* where the tools find it without a download: the Pico's
    as shutbox_host.pico.inputs finds it, the others in ../shared/rp2040/ (the path there,
    whether or not it is)."""
    if board.name == "RPI_PICO":
        with contextlib.suppress(UserError):
            return inputs.find(inputs.UF2)
    return inputs.shared_dir() / ("%s-%s.uf2" % (board.name, inputs.MP_VERSION))


def output_path(board: boards.Board) -> Path:
    return mp.BUILD / ("shutbox-%s.uf2" % board.name)


@dataclass
class Block:
    """One UF2 block (https://github.com/microsoft/uf2)."""

    flags: int
    addr: int
    size: int
    block_no: int
    num_blocks: int
    family: int | None
    raw: bytes  # the whole 512 bytes

    @property
    def data(self) -> bytes:
        return self.raw[32:32 + self.size]


def parse(data: bytes, name: str = "the file") -> list[Block]:
    """The blocks of a UF2 file; UserError (one line) when it is not one or is cut short."""
    if not data:
        raise UserError("%s is empty, not a UF2 file" % name)
    head = struct.unpack_from("<2I", data.ljust(8, b"\0"))
    if head != MAGIC:
        raise UserError("%s is not a UF2 file (it does not start with the UF2 magic)" % name)
    if len(data) % 512:
        raise UserError("%s is truncated: %d bytes is not a whole number of 512-byte UF2 "
                        "blocks (download it again)" % (name, len(data)))
    blocks = []
    for off in range(0, len(data), 512):
        m0, m1, flags, addr, size, no, num, fam = struct.unpack_from("<8I", data, off)
        end = struct.unpack_from("<I", data, off + 508)[0]
        if (m0, m1) != MAGIC or end != MAGIC_END or size > 476:
            raise UserError("%s is damaged: block %d is not a UF2 block" % (name, off // 512))
        blocks.append(Block(flags, addr, size, no, num, fam if flags & FLAG_FAMILY else None,
                            data[off:off + 512]))
    return blocks


def _downloads(blocks: list[Block]) -> dict:
    """{(family, num_blocks): [blocks]}: the UF2 downloads the file holds."""
    out: dict = {}
    for b in blocks:
        if not b.flags & FLAG_NOT_MAIN_FLASH:
            out.setdefault((b.family, b.num_blocks), []).append(b)
    return out


def image(blocks: list[Block]) -> tuple[int, bytes]:
    """(start address, bytes) of the flash the blocks fill (gaps erased, 0xff)."""
    base = min(b.addr for b in blocks)
    top = max(b.addr + b.size for b in blocks)
    out = bytearray(b"\xff" * (top - base))
    for b in blocks:
        out[b.addr - base:b.addr - base + b.size] = b.data
    return base, bytes(out)


def binary_info(base: int, img: bytes) -> dict:
    """What picotool's ``info`` reads from a pico-sdk binary: program, version, board and the
    block devices (address, size, name); {} when it has no binary info."""
    def word(addr):
        return struct.unpack_from("<I", img, addr - base)[0]

    for i in range(0, min(len(img) - 20, 65536), 4):
        if word(base + i) == _BI_START and word(base + i + 16) == _BI_END:
            start, end, mapping = (word(base + i + 4), word(base + i + 8),
                                   word(base + i + 12))
            break
    else:
        return {}
    maps = []
    try:
        while word(mapping):
            maps.append((word(mapping), word(mapping + 4), word(mapping + 8)))
            mapping += 12

        def at(ptr):  # data the binary copies to RAM: read it where it is in flash
            for src, lo, hi in maps:
                if lo <= ptr < hi:
                    return src + ptr - lo
            return ptr

        def cstr(ptr):
            o = at(ptr) - base
            return img[o:img.index(b"\0", o)].decode("ascii", "replace")

        info: dict = {"block_devices": []}
        for p in range(start, end, 4):
            entry = at(word(at(p)))
            kind = struct.unpack_from("<H", img, entry - base)[0]
            if kind == _BI_ID_AND_STRING:
                key = _BI_IDS.get(word(entry + 4))
                if key:
                    info[key] = cstr(word(entry + 8))
            elif kind == _BI_BLOCK_DEVICE:
                info["block_devices"].append((cstr(word(entry + 4)), word(entry + 8),
                                              word(entry + 12)))
    except (struct.error, ValueError, IndexError):
        return {}
    return info


@dataclass
class MicroPython:
    """A MicroPython uf2 checked for a board."""

    blocks: list[Block]  # its main download, in block order
    extra: list[Block]  # other blocks kept as they are (the RP2350-E10 absolute block)
    top: int  # the end of the firmware in the flash (address)
    info: dict


def check_whole(data: bytes, board: boards.Board, name: str) -> tuple[list[Block], list]:
    """(every block, the one download for *board*'s chip in block order) of *data*: a whole
    UF2 file (every block its headers announce) for that chip; UserError saying what it is
    otherwise (one line). A bundle of `shutbox uf2` passes too (one download)."""
    blocks = parse(data, name)
    downloads = _downloads(blocks)
    fams = sorted({f for f, _ in downloads if f is not None})
    if board.family not in fams:
        chips = sorted({b.chip for b in boards.BOARDS if b.family in fams}) or ["another chip"]
        found = ", ".join("0x%08x, %s" % (f, boards.FAMILY_NAMES.get(f, "unknown"))
                          for f in fams if f != boards.ABSOLUTE_FAMILY) or "none"
        raise UserError("%s is a uf2 for the %s (family %s), not the %s of the %s (0x%08x): "
                        "download MicroPython's %s uf2" % (name, " or ".join(chips), found,
                                                           board.chip, board.short,
                                                           board.family, board.name))
    mains = [(n, bl) for (f, n), bl in downloads.items() if f == board.family]
    if len(mains) != 1:
        raise UserError("%s holds %d programs for the %s: not a plain MicroPython uf2"
                        % (name, len(mains), board.chip))
    (num, main), = mains
    nos = sorted(b.block_no for b in main)
    if nos != list(range(num)):
        raise UserError("%s is truncated: %d of the %d blocks its headers announce (download "
                        "it again)" % (name, len(set(nos)), num))
    return blocks, sorted(main, key=lambda b: b.block_no)


def check_micropython(data: bytes, board: boards.Board, name: str) -> MicroPython:
    """Check that *data* is a whole MicroPython uf2 for *board*; UserError saying what it is
    otherwise (one line)."""
    blocks, main = check_whole(data, board, name)
    in_main = {id(b) for b in main}
    extra = [b for b in blocks if id(b) not in in_main]
    if any(b.family != boards.ABSOLUTE_FAMILY or b.addr != boards.E10_BLOCK_ADDR
           for b in extra):
        raise UserError("%s holds blocks of more than one program: not a plain MicroPython "
                        "uf2" % name)
    base, img = image(main)
    info = binary_info(base, img)
    if info.get("program") != "MicroPython":
        what = "names its program %r" % info["program"] if info.get("program") else \
            "has no pico-sdk binary info"
        raise UserError("%s is not MicroPython: it %s" % (name, what))
    if info.get("board") != board.sdk_board:
        other = next((b for b in boards.BOARDS if b.sdk_board == info.get("board")), None)
        raise UserError("%s is MicroPython for the %s, not the %s: download MicroPython's %s "
                        "uf2" % (name, "%s (%s)" % (other.short, other.name) if other else
                                 repr(info.get("board")), board.short, board.name))
    fs = [(a, n) for label, a, n in info["block_devices"] if label == "MicroPython"]
    if fs != [(board.fs_addr, board.fs_bytes)]:
        raise UserError("%s keeps its filesystem at %s, not at 0x%08x (%s) as MicroPython's "
                        "%s does" % (name, ", ".join("0x%08x (%s)" % (a, boards.kb(n))
                                                     for a, n in fs) or "no address",
                                     board.fs_addr, boards.kb(board.fs_bytes), board.name))
    top = base + len(img)
    if top > board.fs_addr:
        raise UserError("%s fills 0x%08x-0x%08x, over the filesystem at 0x%08x"
                        % (name, base, top, board.fs_addr))
    # pico-sdk's layout, which the bundle keeps: block n holds the 256 bytes at flash offset
    # 256 n (the RP2040's bootrom erases by groups of 16 block numbers: see bundle)
    if any(b.addr != boards.XIP_BASE + PAYLOAD * b.block_no or b.size != PAYLOAD
           for b in main):
        raise UserError("%s is not laid out as pico-sdk writes a uf2 (256 bytes a block, in "
                        "flash order from 0x%08x)" % (name, boards.XIP_BASE))
    return MicroPython(main, extra, top, info)


def _block(addr: int, data: bytes, no: int, num: int, family: int) -> bytes:
    head = struct.pack("<8I", MAGIC[0], MAGIC[1], FLAG_FAMILY, addr, len(data), no, num,
                       family)
    return head + data.ljust(476, b"\0") + struct.pack("<I", MAGIC_END)


def bundle(micropython: MicroPython, fs_image: bytes, board: boards.Board) -> bytes:
    """The uf2 of *micropython* then *fs_image* at the board's filesystem address."""
    if len(fs_image) != board.fs_bytes:
        raise ValueError("a filesystem image of %d bytes for a %d-byte filesystem"
                         % (len(fs_image), board.fs_bytes))
    pages: list[tuple[int, bytes]] = [(b.addr, b.data) for b in micropython.blocks]
    # pad MicroPython's last sector to its end (block n is at offset 256 n): the filesystem's
    # blocks then start a new group of 16 block numbers, the sector the RP2040's bootrom
    # erases for that group, and each of its sectors is one whole group
    end = pages[-1][0] + PAYLOAD
    while end % boards.BLOCK_SIZE:
        pages.append((end, b"\xff" * PAYLOAD))
        end += PAYLOAD
    if end > board.fs_addr:
        raise UserError("MicroPython's uf2 runs into the filesystem at 0x%08x" % board.fs_addr)
    for off in range(0, len(fs_image), PAYLOAD):
        pages.append((board.fs_addr + off, fs_image[off:off + PAYLOAD]))
    out = [b.raw for b in micropython.extra]
    out += [_block(addr, data, i, len(pages), board.family)
            for i, (addr, data) in enumerate(pages)]
    return b"".join(out)


def build(board: boards.Board, micropython: Path, pinmap: Path | None = None,
          firmware: Path = mp.FIRMWARE, output: Path | None = None, out=print) -> dict:
    """Write the bundle; return a summary (the paths, the sizes)."""
    from shutbox_host.model import pinout
    from shutbox_host.pico import flash, fsimage

    t0 = time.monotonic()
    pinmap = Path(pinmap) if pinmap else mp.PINMAP
    pm = pinout.load(pinmap, board.name)
    micropython = Path(micropython)
    try:
        data = micropython.read_bytes()
    except OSError as exc:
        raise UserError("cannot read %s: %s (download MicroPython's %s uf2 from "
                        "micropython.org, or give --micropython)"
                        % (micropython, exc.strerror or exc, board.name)) from None
    mpy = check_micropython(data, board, str(micropython))
    release = flash.prepare(Path(firmware), fsimage.BOARD_MPY,
                            {"shutbox/pins.py": pinout.render_pins(pm).encode()},
                            companion=flash.wants_companion(board), chip=board.chip)
    if release.blocks() + 2 > board.fs_blocks:
        raise UserError("the firmware takes %s on littlefs; the %s's filesystem holds %s"
                        % (boards.kb(release.blocks() * boards.BLOCK_SIZE), board.short,
                           boards.kb(board.fs_bytes)))
    fs = fsimage.image_of(release.tree(), board.fs_blocks)
    blob = bundle(mpy, fs, board)
    dest = Path(output) if output else output_path(board)
    _write_atomic(dest, blob)
    summary = {"board": board.name, "output": str(dest), "bytes": len(blob),
               "micropython": str(micropython), "micropython_version": mpy.info.get("version"),
               "version": release.version, "tiles": pm.tiles,
               "deployed_bytes": release.deployed_bytes, "fs_bytes": board.fs_bytes,
               "seconds": round(time.monotonic() - t0, 2)}
    out("wrote %s (%s): MicroPython %s for the %s and the box's firmware %s (%d tiles, %s) on "
        "its %s filesystem" % (dest, boards.kb(len(blob)), summary["micropython_version"],
                               board.short, release.version, pm.tiles,
                               boards.kb(release.deployed_bytes), boards.kb(board.fs_bytes)))
    out("hold BOOTSEL, plug the %s in and copy it onto the %s drive: it replaces "
        "everything on the board's filesystem (`shutbox flash` updates a box and keeps its "
        "settings and records)" % (board.short, board.drive))
    return summary


def _write_atomic(dest: Path, data: bytes) -> None:
    """Write *dest* whole or not at all (a temporary file beside it, renamed)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + dest.name + ".", dir=str(dest.parent))
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)  # as open() would make it, not mkstemp's 0600
        os.replace(tmp, dest)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def configure(parser):
    """Add the uf2 flags."""
    parser.add_argument("--board", default=None,
                        help="RPI_PICO, RPI_PICO_W, RPI_PICO2 or RPI_PICO2_W (default: the pin "
                             "map's \"board\", else RPI_PICO)")
    parser.add_argument("--micropython", metavar="PATH",
                        help="MicroPython's uf2 for the board (default: ../shared/rp2040/"
                             "<BOARD>-%s.uf2 beside the repository; for RPI_PICO also "
                             "$SHUTBOX_UF2, the cache, else downloaded once)" % MP_VERSION)
    parser.add_argument("--pinmap", metavar="PATH",
                        help="the pin map (default: hardware/pinmap.json)")
    parser.add_argument("--firmware", default=str(mp.FIRMWARE),
                        help="firmware folder (default: firmware/)")
    parser.add_argument("-o", "--output", metavar="PATH",
                        help="where to write it (default: build/shutbox-<BOARD>.uf2)")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")


def run(args) -> int:
    """Build the one-file bundle."""
    from shutbox_host.model import pinout

    pinmap = Path(args.pinmap) if args.pinmap else mp.PINMAP
    if args.board:
        board = boards.get(args.board)
    else:
        try:
            data = json.loads(pinmap.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = {}  # pinout.load says what is wrong with it
        board = pinout.board_of(data, None, str(pinmap))
    if args.micropython:
        micropython = Path(args.micropython)
    elif board.name == "RPI_PICO":  # the one the tools fetch (pinned)
        micropython = inputs.find(inputs.UF2, fetch=True)
    else:
        micropython = default_micropython(board)
        if not micropython.is_file():
            raise UserError("no MicroPython uf2 at %s: download MicroPython's %s uf2 from "
                            "https://micropython.org/download/%s/ and give it with "
                            "--micropython PATH (make uf2 UF2=PATH BOARD=%s)"
                            % (micropython, board.name, board.name, board.name))
    summary = build(board, micropython, pinmap, Path(args.firmware), args.output,
                    out=(lambda line: None) if args.json else print)
    if args.json:
        print(json.dumps(summary, indent=1, sort_keys=True))
    return 0
