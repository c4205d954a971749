# The Raspberry Pi Pico boards shutbox runs on: one table, read by uf2, flash, board and the docs.
"""Pico, Pico W, Pico 2 and Pico 2 W as MicroPython v1.28 builds them (one place).

Where each figure comes from (MicroPython v1.28.0, tag 2b0015629f67, and its pico-sdk 2.2.0,
a1438dff):

- flash size: pico-sdk ``src/boards/include/boards/{pico,pico_w,pico2,pico2_w}.h``,
  ``PICO_FLASH_SIZE_BYTES`` (2 MB, 2 MB, 4 MB, 4 MB);
- filesystem size: ``ports/rp2/boards/<BOARD>/mpconfigboard.h``,
  ``MICROPY_HW_FLASH_STORAGE_BYTES`` (1408 KB, 848 KB, flash - 1 MB, flash - 1.5 MB);
- filesystem offset: ``ports/rp2/rp2_flash.c``, ``MICROPY_HW_FLASH_STORAGE_BASE`` =
  ``PICO_FLASH_SIZE_BYTES - MICROPY_HW_FLASH_STORAGE_BYTES``: the filesystem runs to the end
  of the flash (the same file declares it to picotool as a ``bi_block_device``, which
  shutbox_host.pico.uf2 reads back from each uf2);
- littlefs: ``ports/rp2/modules/_boot.py`` mounts ``vfs.VfsLfs2(rp2.Flash(), progsize=256)``
  on 4 KB blocks (``FLASH_SECTOR_SIZE``, rp2_flash.c's ``BLOCK_SIZE_BYTES``), the other
  settings extmod/vfs_lfsx.c's defaults (read size 32, lookahead 32, block_cycles 100);
- ``sys.implementation._machine``: ``MICROPY_HW_BOARD_NAME`` (mpconfigboard.h) + " with " +
  ``MICROPY_HW_MCU_NAME`` (ports/rp2/mpconfigport.h); ``_build``: the board's name;
- uf2 family: the RP2040 bootrom's 0xe48bff56; the RP2350's rp2350-arm-s 0xe48bff59, whose
  MicroPython uf2 also carries one 0xe48bff57 ("absolute") block at 0x10ffff00: picotool's
  workaround for erratum RP2350-E10, which writes nothing;
- reserved GPIOs: pico-sdk's board headers: on Pico and Pico 2 ``PICO_SMPS_MODE_PIN`` 23,
  ``PICO_VBUS_PIN`` 24, ``PICO_DEFAULT_LED_PIN`` 25, ``PICO_VSYS_PIN`` 29; on the W boards
  ``CYW43_DEFAULT_PIN_WL_REG_ON`` 23, ``..._WL_DATA_OUT``/``_DATA_IN``/``_HOST_WAKE`` 24,
  ``..._WL_CS`` 25, ``..._WL_CLOCK`` 29 (and ``CYW43_USES_VSYS_PIN``): the wireless chip's,
  whose GPIO 0 is the LED (``CYW43_WL_GPIO_LED_PIN``), ``Pin("LED")`` in MicroPython.
  None of the four is on the 40-pin header, whose GPIOs are GP0-GP22 and GP26-GP28 on all four.

tests/pico/test_uf2.py checks the table against the four MicroPython uf2 files themselves
(their binary info and blocks) and docs/flashing.md's table against this one.
"""

from __future__ import annotations

from dataclasses import dataclass

from shutbox_host.errors import UserError

PICO_VID = 0x2E8A  # Raspberry Pi's USB vendor id (MicroPython on a Pico: 2E8A:0005)
XIP_BASE = 0x10000000  # where the flash appears in the address space (uf2 block addresses)
BLOCK_SIZE = 4096  # littlefs block: one flash sector (rp2_flash.c BLOCK_SIZE_BYTES)
PROG_SIZE = 256  # _boot.py: VfsLfs2(bdev, progsize=256)
READ_SIZE = 32  # extmod/vfs_lfsx.c defaults
LOOKAHEAD = 32
BLOCK_CYCLES = 100
RP2040_FAMILY = 0xE48BFF56
RP2350_ARM_S_FAMILY = 0xE48BFF59
ABSOLUTE_FAMILY = 0xE48BFF57
E10_BLOCK_ADDR = 0x10FFFF00  # picotool's RP2350-E10 workaround block (absolute family)
FAMILY_NAMES = {RP2040_FAMILY: "rp2040", RP2350_ARM_S_FAMILY: "rp2350-arm-s",
                0xE48BFF5A: "rp2350-riscv", 0xE48BFF5B: "rp2350-arm-ns",
                ABSOLUTE_FAMILY: "absolute", 0xE48BFF58: "data"}
HEADER_GPIOS = tuple(range(0, 23)) + (26, 27, 28)  # on the 40-pin header of all four boards

_PLAIN_RESERVED = {23: "the power supply's mode control", 24: "VBUS sense",
                   25: "the on-board LED", 29: "VSYS sense, ADC3"}
_WIRELESS_RESERVED = {23: "the wireless chip's power", 24: "the wireless chip's data line",
                      25: "the wireless chip's chip select",
                      29: "the wireless chip's clock, and VSYS sense"}


@dataclass(frozen=True)
class Board:
    """One Pico board as MicroPython builds it."""

    name: str  # MicroPython's board (and download) name: RPI_PICO
    product: str  # what it is called: Raspberry Pi Pico
    short: str  # Pico
    sdk_board: str  # pico-sdk's PICO_BOARD, as the uf2's binary info names it
    chip: str  # RP2040 / RP2350
    machine: str  # sys.implementation._machine
    flash_bytes: int
    fs_bytes: int
    families: tuple[int, ...]  # uf2 family ids of MicroPython's uf2 (the main one first)
    reserved: dict  # GPIO -> what the board wires it to (not on the header)
    led: str  # the on-board LED, as machine.Pin names it

    @property
    def family(self) -> int:
        """The family id of the firmware's (and the bundle's filesystem) blocks."""
        return self.families[0]

    @property
    def fs_offset(self) -> int:
        """The filesystem's offset in the flash (rp2_flash.c MICROPY_HW_FLASH_STORAGE_BASE)."""
        return self.flash_bytes - self.fs_bytes

    @property
    def fs_addr(self) -> int:
        """The filesystem's address in the uf2 blocks (XIP)."""
        return XIP_BASE + self.fs_offset

    @property
    def fs_blocks(self) -> int:
        return self.fs_bytes // BLOCK_SIZE

    @property
    def wireless(self) -> bool:
        return self.led == "LED"

    @property
    def drive(self) -> str:
        """The USB drive its bootrom shows while BOOTSEL is held (the RP2040's bootrom says
        RPI-RP2, the RP2350's RP2350: its datasheet, "USB mass storage interface")."""
        return "RPI-RP2" if self.chip == "RP2040" else "RP2350"


BOARDS = (
    Board("RPI_PICO", "Raspberry Pi Pico", "Pico", "pico", "RP2040",
          "Raspberry Pi Pico with RP2040", 2 * 1024 * 1024, 1408 * 1024,
          (RP2040_FAMILY,), _PLAIN_RESERVED, "GP25"),
    Board("RPI_PICO_W", "Raspberry Pi Pico W", "Pico W", "pico_w", "RP2040",
          "Raspberry Pi Pico W with RP2040", 2 * 1024 * 1024, 848 * 1024,
          (RP2040_FAMILY,), _WIRELESS_RESERVED, "LED"),
    Board("RPI_PICO2", "Raspberry Pi Pico 2", "Pico 2", "pico2", "RP2350",
          "Raspberry Pi Pico2 with RP2350", 4 * 1024 * 1024, 3 * 1024 * 1024,
          (RP2350_ARM_S_FAMILY, ABSOLUTE_FAMILY), _PLAIN_RESERVED, "GP25"),
    Board("RPI_PICO2_W", "Raspberry Pi Pico 2 W", "Pico 2 W", "pico2_w", "RP2350",
          "Raspberry Pi Pico 2 W with RP2350", 4 * 1024 * 1024, 2560 * 1024,
          (RP2350_ARM_S_FAMILY, ABSOLUTE_FAMILY), _WIRELESS_RESERVED, "LED"),
)
BY_NAME = {b.name: b for b in BOARDS}
DEFAULT = "RPI_PICO"


def _key(text: str) -> str:
    return "".join(c for c in text.lower() if c.isalnum())


def get(name: str) -> Board:
    """The board named *name*: MicroPython's name (RPI_PICO_W), pico-sdk's (pico_w), or the
    product's ("Pico W", "Raspberry Pi Pico W"); UserError naming the four otherwise."""
    want = _key(str(name))
    for b in BOARDS:
        if want in {_key(b.name), _key(b.sdk_board), _key(b.short), _key(b.product),
                    _key(b.product + b.chip), _key(b.product + "(" + b.chip + ")")}:
            return b
    raise UserError("unknown board %r: choose one of %s" % (name, ", ".join(BY_NAME)))


def identify(machine: str, build: str = "") -> Board | None:
    """The board a MicroPython build reports (sys.implementation._build, else _machine)."""
    if build and build in BY_NAME:
        return BY_NAME[build]
    for b in BOARDS:
        if machine == b.machine:
            return b
    return None


def reserved_why(board: Board, gpio: int) -> str | None:
    """Why *gpio* cannot be wired on *board* (one phrase naming it), or None when it can."""
    if gpio in board.reserved:
        return "GP%d is wired inside the %s (%s); use GP0-GP22 or GP26-GP28" % (
            gpio, board.short, board.reserved[gpio])
    if gpio not in HEADER_GPIOS:
        return "the %s has no GP%d; use GP0-GP22 or GP26-GP28" % (board.short, gpio)
    return None


def kb(n: int) -> str:
    return "%d KB" % (n // 1024) if n % 1024 == 0 else "%.1f KB" % (n / 1024)


def _size(n: int) -> str:
    mb = n / (1024 * 1024)
    return ("%d MB" % mb) if mb == int(mb) else kb(n)


def docs_table() -> str:
    """docs/flashing.md's table of the boards (made here; tests/pico/test_uf2.py compares)."""
    rows = ["| board (MicroPython download) | chip | BOOTSEL drive | flash | filesystem (flash "
            "offset) | 4 KB blocks | uf2 family | on-board LED | GPIOs the board keeps |",
            "|---|---|---|---|---|---|---|---|---|"]
    for b in BOARDS:
        fams = " + ".join("0x%08x (%s)" % (f, FAMILY_NAMES[f]) for f in b.families)
        keeps = ", ".join("GP%d" % g for g in sorted(b.reserved))
        keeps += " (the wireless chip)" if b.wireless else " (SMPS, VBUS, LED, VSYS)"
        rows.append("| %s (`%s`) | %s | `%s` | %s | %s at 0x%06X | %d | %s | `%s` | %s |"
                    % (b.product, b.name, b.chip, b.drive, _size(b.flash_bytes), kb(b.fs_bytes),
                       b.fs_offset, b.fs_blocks, fams, b.led, keeps))
    return "\n".join(rows) + "\n"
