# Power cuts at every flash operation of every save, on MicroPython's own littlefs (VfsLfs2).
"""Run under micropython: store_powercut.py [rounds] [modes].

Formats a RAM flash (tests/mp/store_flashdev.py) with os.VfsLfs2 as the Pico does, saves a
first version of the settings, the records and the game in progress, then for each of
*rounds* rounds saves a new version of each file. Before every real save it replays the save
on a copy of the flash that loses power at operation k, for every k from 0 to the number of
program/erase operations the save takes (and for each cut mode: raise, drop, torn; see
store_flashdev.py), then
"reboots": mounts the flash image again and checks that the file reads as the old or the new
version (status OK: never damaged, never missing), that the other two files are untouched and
that a fresh save works. Prints one line per failure (at most 20) and a summary line:

    CUTS <n> OLD <n> NEW <n> FAIL <n> SAVES <n> MAXOPS <n> ERASES <n> OVERPROG <n> MS <n>
"""

import os
import sys
import time

from lfs_mount import MOUNT, ROOT, mount, umount
from store_flashdev import MODE_DROP, MODE_RAISE, MODE_TORN, MODES, PROGSIZE, FlashDev

from shutbox.store import OK

NAMES = ("settings", "records", "game")
SIZES = (24, 700, 40)  # records are larger than littlefs inlines (a CTZ file in its own block)


def payload(i, r):
    """Return version *r* of file *i*: distinct every round, lengths vary a little."""
    n = SIZES[i] + (r * 37) % (SIZES[i] // 2 + 1)
    return bytes([r & 0xFF, i] + [(j * 7 + r * 13 + i) & 0xFF for j in range(n - 2)])


def main():
    """Sweep every cut point of every save; print failures and the summary."""
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    modes = (MODE_RAISE, MODE_DROP, MODE_TORN)
    if len(sys.argv) > 2:
        modes = tuple(MODES.index(m) for m in sys.argv[2].split(","))
    t0 = time.ticks_ms()
    dev = FlashDev()
    os.VfsLfs2.mkfs(dev, progsize=PROGSIZE)
    store = mount(dev)
    current = [payload(i, 0) for i in range(len(NAMES))]
    for i, name in enumerate(NAMES):
        assert store.save(name, current[i]) == OK
    umount()
    image = bytes(dev.data)
    cuts = olds = news = fails = saves = maxops = erases = overprog = 0
    for r in range(1, rounds + 1):
        for i, name in enumerate(NAMES):
            new = payload(i, r)
            # The real save, counting its flash operations.
            dev = FlashDev(data=bytearray(image))
            store = mount(dev)
            dev.ops = dev.erases = 0
            assert store.save(name, new) == OK
            ops = dev.ops
            erases += dev.erases
            umount()
            next_image = bytes(dev.data)
            saves += 1
            maxops = max(maxops, ops)
            for k in range(ops + 1):
                for mode in modes:
                    cut = FlashDev(data=bytearray(image))
                    store = mount(cut)
                    cut.cut_at(k, mode)
                    try:
                        store.save(name, new)
                    except OSError:
                        pass  # a failing flash may surface anywhere; the reboot is the test
                    umount()
                    overprog += cut.overprograms
                    # Reboot on whatever the flash holds now.
                    boot = FlashDev(data=cut.image if cut.image is not None else cut.data)
                    why = None
                    try:
                        store = mount(boot)
                    except OSError as e:
                        why = "unmountable %r" % (e,)
                    if why is None:
                        got = store.load(name)
                        if store.status != OK:
                            why = "status %d" % store.status
                        elif got == new:
                            news += 1
                        elif got == current[i]:
                            olds += 1
                        else:
                            why = "garbage"
                        for j, other in enumerate(NAMES):
                            if j != i and store.load(other) != current[j]:
                                why = "%s lost (status %d)" % (other, store.status)
                        if why is None and (store.save(name, new) != OK
                                            or store.load(name) != new):
                            why = "cannot save after the reboot"
                        if why is None and "data" in os.listdir(MOUNT):
                            if any(n.endswith(".tmp") for n in os.listdir(ROOT)):
                                why = "tmp file left"
                        umount()
                    cuts += 1
                    if why is not None:
                        fails += 1
                        if fails <= 20:
                            print("FAIL round", r, name, "k", k, MODES[mode], why)
            image = next_image
            current[i] = new
    ms = time.ticks_diff(time.ticks_ms(), t0)
    print("CUTS %d OLD %d NEW %d FAIL %d SAVES %d MAXOPS %d ERASES %d OVERPROG %d MS %d"
          % (cuts, olds, news, fails, saves, maxops, erases, overprog, ms))


main()
