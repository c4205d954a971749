# Start-up shortcuts of firmware/main.py: fewer lookups of the flash while the box boots.
"""Loaded first by firmware/main.py and forgotten at once; shutbox.bootfs, once the game's
modules are loaded (no RAM in play).

Start-up time is the flash's: on the Pico's littlefs every lookup of a path walks it from the
root, 1 to 7 ms for a module of the firmware (measured on the emulated RP2040), and an import
looks up four paths (a package folder, X.py, X.mpy, then it opens X.mpy). ``start()``:

1. imports once the built-in modules whose names a file may extend (MicroPython's
   "extensible" ones: time, os, json, machine, array ...), with only the frozen modules'
   path, and keeps them in sys.modules: each ``import`` of one otherwise searches every
   folder of sys.path first (6 ms), as built-ins are not kept there; then remounts / (the
   Pico's littlefs) on the flash's erase ahead where firmware/shutbox/chip.py is flashed
   (its ``mount``: before anything writes);
2. mounts shutbox.bootfs over the shutbox package's folder: one lookup per module (where
   the package is on the root filesystem, as on the Pico; loaded only then).

main.py unmounts it once the game's modules are loaded (app.main's *booted*), and after
anything that stops the start-up: the REPL, rescue and `shutbox flash` see the plain
filesystem. The built-ins stay in sys.modules.
"""


def start(main, out):
    """Keep the built-in modules in sys.modules, and mount shutbox.bootfs over the shutbox
    folder beside *main* (main.py's __file__), where the package is on the root filesystem
    (as on the Pico): both shortcuts, or none. Set out[0] (a list main.py made before this
    module loaded: nothing long-lived is left above its code) to the mount point, or leave
    it None: main.py is .py source (the .py version), or the package is not on the root
    filesystem (the simulated board mounts the firmware apart), or no vfs. Where / is
    remounted on the flash's erase ahead, set out[1] to what finishes an erase ahead left
    suspended (shutbox.chip.mount)."""
    if not main.endswith(".mpy"):
        return
    try:
        import vfs

        pkg = main[:main.rfind("/")] + "/shutbox"
        fs = None
        at = ""
        for f, point in vfs.mount():  # the filesystem holding the package, the longest match
            if pkg.startswith(point.rstrip("/") + "/") and len(point) > len(at):
                fs = f
                at = point
        if at != "/":  # (nested mounts are refused: a separate mount of the firmware)
            return
    except (ImportError, OSError, AttributeError, TypeError):
        return  # imports as usual
    import sys

    path = sys.path[:]
    sys.path[:] = [".frozen"]  # neopixel is frozen; the others are built in
    for name in ("time", "os", "json", "machine", "array", "binascii", "struct", "neopixel"):
        if name not in sys.modules:
            try:
                sys.modules[name] = __import__(name)
            except ImportError:
                pass  # a port without it: the firmware never imports it there
    sys.path[:] = path
    if type(fs) is vfs.VfsLfs2:  # the Pico's littlefs, before anything writes: on the flash's
        # erase ahead where firmware/shutbox/chip.py is flashed (an RP2040 board's: one lookup
        # of the flash, where an import tries four), its built-ins kept above. Names this
        # long are no interned strings: the qstr pool gets nothing on a box without it
        try:
            import os

            os.stat(main[:main.rfind("/")] + "/shutbox/chip.mpy")
            f = __import__("shutbox.chip", None, None, ("mount",)).mount()
            if f is not None:  # (the filesystem, what ends its erase ahead: main.py's)
                fs = f[0]
                out[1] = f[1]
        except Exception:  # not there (OSError), / left as it was, or a port whose code
            pass  # it is not (ValueError: the .mpy's arch): littlefs as MicroPython mounts it
    try:
        from shutbox.bootfs import Modules

        vfs.mount(Modules(fs, pkg), pkg)
        out[0] = pkg
    except (ImportError, OSError, AttributeError, TypeError):
        pass  # imports as usual
