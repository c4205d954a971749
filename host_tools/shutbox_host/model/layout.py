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
# shutbox.ahead (littlefs's erases done ahead) and firmware/shutbox/chip.py (the Pico's
# suspendable erase, which shutbox.boot.start mounts / on where it is flashed) too: off on
# the Pico by default until the box with them is measured on the emulated chip
# (docs/reliability.md); the simulated board's flash mounts littlefs on shutbox.ahead itself
HOST_ONLY = ("shutbox/setnames.py", "shutbox/variants.py", "shutbox/ahead.py",
             "shutbox/chip.py")

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
