# The Pico's suspendable sector erase: code in RAM that drives the W25Q16JV with XIP off.
"""littlefs's raw block device on the Pico for shutbox.ahead.Ahead: rp2.Flash's blocks with
``erase_ahead``, and ``mount``, which remounts / on it at power-up (firmware/main.py).

``_slice`` is ``@micropython.asm_thumb`` code, which MicroPython compiles into RAM. With
interrupts off it stops execution from flash as pico-sdk's flash functions do (the ROM's
connect_internal_flash 'IF' and flash_exit_xip 'EX'), sends the flash its commands through
the SSI with chip select forced by the IO_QSPI override (as the ROM's flash_cs_force does):
06h write enable then 20h sector erase (a start), or 7Ah resume; then polls the status
register (05h, BUSY) until the erase is done, or until a watched pin changes (SIO GPIO_IN)
or the slice's time is up (the timer's TIMERAWL), when it suspends the erase (75h) and waits
for BUSY to clear (tSUS); then re-enters XIP as pico-sdk's flash_enable_xip_via_boot2 does
(the ROM's flash_flush_cache 'FC', then a RAM copy of boot2) and returns 1 (erased) or 0.

RP2040 only (the RP2350's ROM and flash interface differ: ``shutbox flash`` sends this
module to RP2040 boards alone, host_tools' layout.RP2040_ONLY, and ``mount`` leaves any other
chip alone). mpy-cross compiles it only for the chip's arch (``-march=armv6m``), and the unix
port not at all: it loads on the Pico alone. The flash chip must be one whose erase suspend
and resume are the W25Q16JV's (75h, 7Ah, BUSY and SUS as the routine reads them): ``mount``
reads its JEDEC id (9Fh) first and keeps littlefs as MicroPython mounts it on any other (a
third-party RP2040 board's flash; a Pico's own is a W25Q16JV, id EF 40 15).
"""
# ruff: noqa: F821 - the assembler's names (registers, instructions, labels)
# mypy: disable-error-code="name-defined,misc,call-overload"
# (the assembler's names, its str instruction and asm_thumb's untyped decorator: not Python)

import array

import machine
import uctypes

import micropython
from micropython import const

_SSI = const(0x18000000)  # SSI's registers: DR0 at 0x60, SR at 0x28 (bit 3: RX FIFO not empty)
_SS_CTRL = const(0x4001800C)  # IO_QSPI GPIO_QSPI_SS_CTRL: OUTOVER (bits 9:8) 2 low, 3 high
_TIMERAWL = const(0x40054028)
_GPIO_IN = const(0xD0000004)
_WINBOND = const(0xEF)  # JEDEC manufacturer id (9Fh's first byte)


@micropython.asm_thumb
def _slice(r0):
    # r0: the words of Chip.p: 0 IF, 1 EX, 2 FC, 3 boot2 copy | 1, 4 the sector's offset,
    # 5 start (1), resume (0) or read the JEDEC id (2: returned, nothing erased), 6 the
    # timer's deadline, 7 pin mask, 8 the pins as they were, 10 _SSI, 11 _SS_CTRL,
    # 12 _TIMERAWL, 13 _GPIO_IN
    mov(r7, r0)
    cpsid(i)
    ldr(r3, [r7, 0])
    data(2, 0x4798)  # blx r3: connect_internal_flash
    ldr(r3, [r7, 4])
    data(2, 0x4798)  # flash_exit_xip
    ldr(r0, [r7, 20])
    cmp(r0, 2)
    beq(JEDEC)
    cmp(r0, 1)
    bne(RESUME)
    mov(r1, 2)
    bl(CS)
    mov(r1, 0x06)
    bl(XFER)
    mov(r1, 3)
    bl(CS)
    mov(r1, 2)
    bl(CS)
    mov(r1, 0x20)
    bl(XFER)
    ldr(r1, [r7, 16])
    lsr(r1, r1, 16)
    bl(XFER)
    ldr(r1, [r7, 16])
    lsr(r1, r1, 8)
    bl(XFER)
    ldr(r1, [r7, 16])
    bl(XFER)
    mov(r1, 3)
    bl(CS)
    b(POLL)
    label(RESUME)
    mov(r1, 2)
    bl(CS)
    mov(r1, 0x7A)
    bl(XFER)
    mov(r1, 3)
    bl(CS)
    label(POLL)
    bl(STATUS)
    beq(DONE)
    ldr(r2, [r7, 48])
    ldr(r0, [r2, 0])
    ldr(r1, [r7, 24])
    sub(r0, r0, r1)
    bpl(SUSPEND)
    ldr(r2, [r7, 52])
    ldr(r0, [r2, 0])
    ldr(r1, [r7, 28])
    and_(r0, r1)
    ldr(r1, [r7, 32])
    cmp(r0, r1)
    bne(SUSPEND)
    b(POLL)
    label(SUSPEND)
    mov(r1, 2)
    bl(CS)
    mov(r1, 0x75)
    bl(XFER)
    mov(r1, 3)
    bl(CS)
    label(WAIT)
    bl(STATUS)
    bne(WAIT)
    mov(r6, 0)
    b(OUT)
    label(JEDEC)  # 9Fh: the manufacturer, memory type and capacity bytes, in r6
    mov(r1, 2)
    bl(CS)
    mov(r1, 0x9F)
    bl(XFER)
    mov(r6, 0)
    mov(r5, 3)
    label(ID)
    mov(r1, 0)
    bl(XFER)
    lsl(r6, r6, 8)
    orr(r6, r0)
    sub(r5, 1)
    bne(ID)
    mov(r1, 3)
    bl(CS)
    b(OUT)
    label(DONE)
    mov(r6, 1)
    label(OUT)
    ldr(r3, [r7, 8])
    data(2, 0x4798)  # flash_flush_cache
    ldr(r3, [r7, 12])
    data(2, 0x4798)  # boot2, from RAM: XIP on again
    cpsie(i)
    mov(r0, r6)
    b(END)
    label(CS)  # chip select: r1 2 low, 3 high
    ldr(r2, [r7, 44])
    ldr(r0, [r2, 0])
    mov(r3, 3)
    lsl(r3, r3, 8)
    bic(r0, r3)
    lsl(r1, r1, 8)
    orr(r0, r1)
    str(r0, [r2, 0])
    ldr(r0, [r2, 0])
    bx(lr)
    label(STATUS)  # read the status register: flags Z clear while BUSY (bit 0) is set
    push({lr})
    mov(r1, 2)
    bl(CS)
    mov(r1, 5)
    bl(XFER)
    mov(r1, 0)
    bl(XFER)
    mov(r4, r0)
    mov(r1, 3)
    bl(CS)
    mov(r1, 1)
    tst(r4, r1)
    pop({pc})
    label(XFER)  # send r1's byte, return the byte received in r0
    ldr(r2, [r7, 40])
    str(r1, [r2, 0x60])
    label(XW)
    ldr(r0, [r2, 0x28])
    mov(r3, 8)
    tst(r0, r3)
    beq(XW)
    ldr(r0, [r2, 0x60])
    bx(lr)
    label(END)


def _rom(name):
    """Return the address of the bootrom function *name* (its two-letter code)."""
    t = machine.mem16[0x14]
    code = ord(name[0]) | (ord(name[1]) << 8)
    while True:
        k = machine.mem16[t]
        if k == 0:
            raise OSError("no ROM function " + name)
        if k == code:
            return machine.mem16[t + 2]
        t += 4


def mount():
    """Remount / on shutbox.ahead.Ahead over this chip's flash, its erases ahead watching
    the tiles' and Roll's pins (an RP2040 only, its flash chip one ``known``; shutbox.boot
    .start, at power-up): return (the filesystem now at /, a function that finishes the erase
    ahead under way: main.py calls it when the box's loop stops, a Ctrl-C), or None. The
    box's loop runs the erases in its sleeps.

    An erase left suspended must be finished before anything else erases: the chip ignores
    a sector erase while one is suspended, and MicroPython's erase (after a soft reset, as
    `shutbox flash` makes) or a new Chip would take a block it never erased for erased. The
    flash chip keeps a suspended erase through the RP2040's resets (a watchdog's, a soft
    reset, the REPL's ``import main``): the mount first resumes it to its end (7Ah: the chip
    ignores it with none suspended), and the finisher ends one when the loop stops."""
    import sys

    if "RP2040" not in getattr(sys.implementation, "_machine", ""):
        return None
    import rp2

    from shutbox import pins
    from shutbox.ahead import start

    flash = rp2.Flash()
    mask = 1 << pins.ROLL_PIN
    for i in range(pins.TILES):
        mask |= 1 << pins.TILE_PINS[i]
    chip = Chip(flash, mask)
    if not known(chip.jedec()):
        return None
    chip.erase_ahead(-1, -1)  # (a resume with no erase of its own: pending is -1)
    fs = start(chip, flash.ioctl(4, 0), "/")
    a = sys.modules["shutbox.ahead"]
    dev = a.mounted
    # what only this mount runs goes, so that no collection of the heap marks its code again
    # (each KB of code live makes every collection about 0.05 ms longer, and a press landing
    # as one starts waits for it all: docs/companion.md). A value is set to None before its
    # key is deleted: MicroPython leaves a deleted key's value in its slot of the dict. A
    # second mount (the REPL's import main) finds none here and keeps this one (shutbox.boot)
    g = globals()
    for k in ("mount", "known", "_rom"):
        g[k] = None
        del g[k]
    for c, k in ((Chip, "__init__"), (a.Ahead, "__init__")):
        setattr(c, k, None)
        delattr(c, k)
    g = a.__dict__
    g["start"] = None
    del g["start"]

    def end():
        if dev.todo >= 0:
            dev.finish()

    return fs, end


def known(jedec):
    """Whether the flash chip whose JEDEC id (9Fh: manufacturer, memory type, capacity) is
    *jedec* suspends and resumes a sector erase as ``_slice`` drives it: Winbond's W25Q
    serial flash, memory type 40h (W25Q..JV-IQ/JQ, the Pico's W25Q16JV: EF 40 15) or 70h
    (W25Q..JV-IM/JM), whose datasheets give 75h/7Ah, BUSY in status register 1 and SUS in 2.
    Other chips that suspend differently (other opcodes, no SUS bit) or not at all, and
    those not checked against their datasheets, are left to MicroPython's erase."""
    return jedec >> 16 == _WINBOND and (jedec >> 8 & 0xFF) in (0x40, 0x70)


class Chip:
    """rp2.Flash's blocks, with erase_ahead(block, us) watching the pins in *mask*."""

    def __init__(self, flash, mask, size=0x200000):
        self.flash = flash
        self.base = size - flash.ioctl(4, 0) * 4096  # the filesystem ends at the flash's end
        self.mask = mask
        self.boot2 = bytearray(256)
        for i in range(256):
            self.boot2[i] = machine.mem8[0x10000000 + i]
        self.p = array.array("I", [_rom("IF"), _rom("EX"), _rom("FC"),
                                   uctypes.addressof(self.boot2) | 1, 0, 0, 0, 0, 0, 0,
                                   _SSI, _SS_CTRL, _TIMERAWL, _GPIO_IN])
        self.pending = -1
        self.slices = 0
        # littlefs's reads, programs and requests go to rp2.Flash's own (C, no Python between)
        self.readblocks = flash.readblocks
        self.writeblocks = flash.writeblocks
        self.ioctl = flash.ioctl

    def view(self, block):
        """The block's bytes where XIP maps them (read only; not while it is erased)."""
        return memoryview(uctypes.bytearray_at(0x10000000 + self.base + block * 4096, 4096))

    def jedec(self):
        """Read the flash chip's JEDEC id (9Fh's three bytes, as one number; nothing erased)."""
        p = self.p
        p[5] = 2
        return _slice(uctypes.addressof(p))

    def erase_ahead(self, block, us):
        """Erase *block* for at most *us* µs (-1: to its end, no pin watched), suspended if a
        watched pin changes first; return True once it is erased."""
        p = self.p
        p[4] = self.base + block * 4096
        p[5] = 1 if self.pending != block else 0
        mask = self.mask if us >= 0 else 0
        p[6] = (machine.mem32[_TIMERAWL] + (us if us >= 0 else 5000000)) & 0xFFFFFFFF
        p[7] = mask
        p[8] = machine.mem32[_GPIO_IN] & mask
        self.slices += 1
        if _slice(uctypes.addressof(p)):
            self.pending = -1
            return True
        self.pending = block
        return False
