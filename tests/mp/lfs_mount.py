# littlefs mounted as the Pico mounts it, for the power-cut scripts in tests/mp.
"""MOUNT (the mount point), ROOT (the Store's folder under it), mount(dev) and umount(): shared
by store_powercut.py and ahead_powercut.py, run under micropython with tests/mp on the path."""

import os

from store_flashdev import PROGSIZE

from shutbox.store import Store

MOUNT = "/lfs"
ROOT = MOUNT + "/data"


def mount(dev):
    """Mount a littlefs on *dev* at MOUNT with the Pico's settings; return a Store on it."""
    os.mount(os.VfsLfs2(dev, progsize=PROGSIZE), MOUNT)
    return Store(ROOT)


def umount():
    """Unmount MOUNT, whatever state the cut left it in."""
    try:
        os.umount(MOUNT)
    except OSError:
        pass
