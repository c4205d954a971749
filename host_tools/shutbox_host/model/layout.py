# The layout a flash leaves on a board's filesystem: its paths, its launcher, what is not flashed.
"""What ``shutbox flash`` (and the uf2's image, the emulated chip's filesystem, the simulated
board's flash folder) leaves on a board. The project owns exactly these; nothing else is
ever written or removed::

    /main.py                      a tiny launcher (first line "# shutbox launcher")
    /.shutbox/current             the name of the version the launcher starts (one line)
    /.shutbox/fw-<hash>/          one version: main, shutbox/*.mpy, shutbox/tables.idx,
                                  manifest.json
    /.shutbox/tables/<name>-<sha>.bin   the tables, each stored once under a name of its
                                  content and shared by every version that reads it
"""

BOARD_DIR = "/.shutbox"
TABLES_DIR = BOARD_DIR + "/tables"
LAUNCHER_PATH = "/main.py"
LAUNCHER_MARK = "# shutbox launcher"
MAKER_MAIN_KEPT = "/main_before_shutbox.py"
MANIFEST = "manifest.json"
FINISH = "shutbox_finish.py"  # a version's journal: the renames that complete it (the launcher)
TABLE_INDEX = "shutbox/tables.idx"  # paths of moves.bin, nN.bin, tN.bin, a line each (engine)
TABLE_SOURCES = "shutbox/tables/"  # where the tables are in firmware/

# Modules of the shutbox package that only the host tools import (the words of the settings
# and of the variants: the CLI, the card, the docs, the log's reader); no firmware module does
# (tests/pico/test_lean.py checks it), so they are not flashed: no room taken on the board.
HOST_ONLY = ("shutbox/setnames.py", "shutbox/variants.py")

# The flash's erase ahead (shutbox.ahead, and firmware/shutbox/chip.py: the RP2040's
# suspendable sector erase, which shutbox.boot.start mounts / on where its flash chip is one
# it knows): flashed to the RP2040 boards (a Pico, a Pico W) only. chip.py is code for the
# RP2040 alone (its ROM's flash functions, its SSI), so an RP2350 board gets neither: no room
# taken for code it would never run (and a release that says what the board runs).
RP2040_ONLY = ("shutbox/ahead.py", "shutbox/chip.py")

# mpy-cross's -march for the modules with machine code (@micropython.asm_thumb): the
# RP2040's Cortex-M0+ (mpy-cross refuses inline assembler without an arch)
MPY_ARCH = {"shutbox/chip.py": "armv6m"}

# The modules with viper code (machine code MicroPython runs from RAM: shutbox.payout's
# pass; the LED chain's buffer, the frame's loops, the debouncer: a step's hot paths),
# compiled for the board's own arch: the one its sys.implementation._mpy reports (bits
# 10 and up, MicroPython's numbering of mpy-cross's -march names; the Pico's armv6m, which an
# RP2350's Cortex-M33 runs too), the unix port's for the simulated box (-march=host).
NATIVE = ("shutbox/payout.py", "shutbox/board.py", "shutbox/frame.py", "shutbox/debounce.py")
NATIVE_ARCHS = (None, "x86", "x64", "armv6", "armv6m", "armv7m", "armv7em", "armv7emsp",
                "armv7emdp", "xtensa", "xtensawin", "rv32imc", "rv64imc")
PICO_ARCH = "armv6m"


def native_arch(mpy: int | None) -> str:
    """mpy-cross's -march for NATIVE's modules on a board reporting sys.implementation._mpy
    == *mpy* (the Pico's where it reports none, or an arch mpy-cross does not know)."""
    a = (mpy or 0) >> 10
    return (NATIVE_ARCHS[a] if a < len(NATIVE_ARCHS) else None) or PICO_ARCH


def march(rel: str, arch: str = PICO_ARCH) -> list[str]:
    """mpy-cross's -march option for the firmware's module *rel* ([] for bytecode alone),
    *arch* the board's for NATIVE's."""
    if rel in MPY_ARCH:
        return ["-march=" + MPY_ARCH[rel]]
    return ["-march=" + arch] if rel in NATIVE else []


def flashed_to(rel: str, chip: str | None) -> bool:
    """Whether the firmware's file *rel* (a path under firmware/, as HOST_ONLY names them)
    goes to a board of *chip* (RP2040, RP2350; None: a board not recognised, whose chip is
    not known: the RP2040's modules are left out, the box then mounts littlefs as
    MicroPython does)."""
    return rel not in HOST_ONLY and (rel not in RP2040_ONLY or chip == "RP2040")


LAUNCHER = LAUNCHER_MARK + """: starts the last complete firmware (written by `shutbox flash`).
import sys
try:
    with open("/.shutbox/current") as f:
        _v = "/.shutbox/" + f.read().strip()
except OSError:
    _v = None
if _v:
    sys.path.insert(0, _v)
    try:  # an update cut off after its switch: its journal moves the unchanged files in
        import shutbox_finish
    except ImportError:  # no journal (the usual case)
        pass
    import main  # the firmware's own main, from that version
else:
    print("shutbox: no firmware on this board yet: run `make flash`")
"""
