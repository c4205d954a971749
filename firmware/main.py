# The Pico runs this at power-up: the Shut the Box firmware.
"""Entry point of the box: a power-up screen first while little is loaded, then the game.

The order is the heap's: the power-up code runs and is unloaded before the game's modules
load; they load one at a time, each loader's garbage collected before the next, so their code
packs into the heap without holes; app.main loads the rest the settings need, then makes the
engine's tables (the largest blocks) before the first app. An exception here, outside
app.main's guard (a MemoryError importing: the .py fallback of a flash needs far more heap),
is logged and shown as the fault pattern, and Roll or 10 s restarts (shutbox.rescue). The
start-up's shortcuts (shutbox.boot: fewer lookups of the flash) end before the box's loop.
"""


def _start(kept):
    """shutbox.boot.start, then the module forgotten, in a frame of its own: no stale
    reference to it may stay in run()'s frame, which lives on. Not for the .py version: its
    shortcuts need .mpy files, and compiling shutbox/boot.py would cost its heap."""
    if not __file__.endswith(".mpy"):
        return
    from shutbox import boot, forget

    boot.start(__file__, kept)
    forget("boot")


def run():
    """The power-up screens, the saved settings, the game's modules, then the box's loop."""
    import gc

    from shutbox import forget

    # made first: the start-up shortcut's mount point, and what ends the flash's erase ahead
    # under way (shutbox.boot.start: shutbox.chip.mount's)
    kept = [None, None]

    def booted():  # the shortcut ends: the plain filesystem from here on
        at = kept[0]
        if at is not None:
            import vfs

            kept[0] = None  # first: the unmount raises a Ctrl-C that an import's stat caught
            vfs.umount(at)
        forget("bootfs")
        if kept[1] is not None:  # an erase left suspended would make the next erase, after
            kept[1]()  # a soft reset MicroPython's own, take a block never erased for erased

    _start(kept)

    try:
        from shutbox import powerup

        # Roll held at power-up: the settings menu, records, erasing (shutbox.menu); then
        # the saved settings and the records' key are read, before the game's modules take
        # the heap
        saved = powerup.screens()
        powerup.unload("powerup")
        del powerup
        for name in ("ticks", "engine", "frame", "debounce", "dice", "game", "app"):
            gc.collect()
            __import__("shutbox." + name)
        from shutbox import app

        app.main(saved, booted=booted)
    except Exception:
        # the heap may be full of the game's code (a MemoryError): every shutbox module is
        # dropped (the package too: it holds the others), so that the rescue's code can load
        # once this frame is gone; the dict is left as soon as it changed
        import sys

        while True:
            for name in sys.modules:
                if name.startswith("shutbox"):
                    sys.modules.pop(name)
                    break
            else:
                break
        raise
    finally:
        booted()  # (Ctrl-C, or an error before the box's loop)


try:
    run()
except Exception as e:  # noqa: BLE001 - a box that cannot start still must not go dark
    from shutbox import rescue

    rescue.run(e)
