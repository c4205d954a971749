# The power-up menu's erase of the box's files, then play on: does a save wait for an erase?
"""Run under micropython, the simulated board's modules on the path: ahead_reset.py [n] [seed] [v].

The flash is the simulated board's aged one (sim/norflash.py: the W25Q16JV's worst case, its
free blocks holding stale data, the box's folder's pair three erases from being moved), with
littlefs mounted on it by shutbox.ahead.start, as the box mounts it. Each cycle plays on (the
game saved at each throw and move, the records and the game at each game's end, the loop's
sleeps of a player's pace between: 0.2 to 2 s in 20 ms steps), for a number of saves drawn so
that the folder's log is at every fill level when the power-up menu's erase comes: the
records removed, or (every other cycle) the records, the settings and the game, as
shutbox.menu.Erase removes them (Store.remove). The menu's loop does not call the idle step
(shutbox.powerup.screens sleeps itself). Then the power-up reads the files (load: nothing
written) and play starts again. Prints:

    CYCLES <n> SAVES <n> WAITED <n> SAVESWAITED <n> ERASEWAITED <n> AHEAD <n>

SAVESWAITED the saves during play that waited for at least one erase (WAITED of them in
all), ERASEWAITED the erases the menu's erase waited for (no game input then). With a third
argument, each save that waited is printed: ``WAIT cycle name erases pairs-before pairs-after``
(the pairs as norflash._pairs: halves and revision) and the raw flash's operations in it
(``P block@offset+bytes`` a program, ``E block`` an erase).
"""

import os
import sys

import norflash
from lcg import Rng

from shutbox import ahead
from shutbox.store import Store

PATH = "/nor"



def main():
    cycles = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    rng = Rng(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    verbose = len(sys.argv) > 3
    nor = norflash.Nor(norflash.BLOCKS, "max")
    os.VfsLfs2.mkfs(nor, progsize=norflash.PAGE)
    os.mount(os.VfsLfs2(nor, progsize=norflash.PAGE), PATH)
    norflash.age(nor, PATH, before=3)
    os.umount(PATH)
    ahead.start(nor, norflash.BLOCKS, PATH)  # as the box mounts it
    dev = ahead.mounted
    store = Store(PATH + "/data")
    store.save("settings", b"s" * 7)
    entries = 1
    saves = waited = held = menu = 0

    def sleep():
        for _ in range(rng.randrange(10, 100)):  # the loop's sleeps until the next save
            dev.idle(20)

    ops = []
    raw_w, raw_i = nor.writeblocks, nor.ioctl

    def tw(block, buf, offset=None):
        ops.append("P%d@%d+%d" % (block, offset or 0, len(buf)))
        return raw_w(block, buf, offset)

    def ti(op, arg):
        if op == 6:
            ops.append("E%d" % arg)
        return raw_i(op, arg)

    if verbose:
        nor.writeblocks, nor.ioctl = tw, ti
    def save(name, payload, what):
        nonlocal saves, waited, held
        w = dev.waited
        ops.clear()
        pr = norflash._pairs(nor) if verbose else None
        assert store.save(name, payload) == 0
        saves += 1
        if dev.waited > w:
            held += 1
            waited += dev.waited - w
            if verbose:
                print("WAIT", what, name, dev.waited - w, pr, norflash._pairs(nor))
                print("  ", " ".join(ops))

    for c in range(cycles):
        for n in range(rng.randrange(0, 24)):  # play: a game's end every 12 saves
            save("game", bytes([n & 0xFF]) * 160, c)
            if n % 12 == 11:
                save("records", bytes([c & 0xFF]) * (16 * entries), c)
                if entries < 16 and rng.randrange(0, 4) == 0:
                    entries += 1
                save("game", bytes([n & 0xFF]) * 160, c)
            sleep()
        w = dev.waited  # power off; the erase at power-up (Roll held long), then play
        store.remove("records")
        entries = 1
        if c % 2:
            store.remove("settings")
            store.remove("game")
        menu += dev.waited - w
        for name in ("settings", "records", "game"):
            store.load(name)
        sleep()
    os.umount(PATH)
    print("CYCLES %d SAVES %d WAITED %d SAVESWAITED %d ERASEWAITED %d AHEAD %d"
          % (cycles, saves, waited, held, menu, nor.ahead))


main()
