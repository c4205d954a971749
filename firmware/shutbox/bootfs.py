# The shutbox package's folder while the box boots: one lookup of the flash per module.
"""Mounted by shutbox.boot over the package's folder (on the Pico's littlefs, which holds the
package under its root), unmounted by firmware/main.py before the box's loop, then forgotten.

A Ctrl-C is never lost here: MicroPython's import takes any exception of a folder's stat for
"no such file" (vfs.c, mp_vfs_import_stat), a KeyboardInterrupt too, which would turn a
developer's Ctrl-C into an ImportError (a false fault) or drop it. stat() catches it and
the next open() or the unmount raises it again, where the import no longer hides it.
"""


class Modules:
    """The shutbox package's folder while the box boots: one lookup of the flash per module.

    For a version of .mpy files (shutbox flash compiles every module or none) with no package
    inside the package: the folder itself is a folder, X.mpy is the file opened there and
    then (kept for the import's open that follows), anything else is missing. Other opens go
    to the filesystem below (the engine's tables).
    """

    def __init__(self, fs, path):
        self.fs = fs
        self.path = path  # the folder on *fs*
        self.f = None  # the file the last stat opened, for the open after it
        self.p = ""

    def mount(self, *args):  # (readonly, mkfs): nothing to do
        pass

    def umount(self):
        if self.fs is None:  # a Ctrl-C that stat() caught: out of the import at last
            raise KeyboardInterrupt

    def stat(self, p):
        # The whole body is in the try and each of its ways out returns or raises: a pending
        # Ctrl-C is raised only at a branch or in the flash's read, so always in here
        try:
            if p == "/":
                return (0x4000, 0, 0, 0, 0, 0, 0, 0, 0, 0)  # S_IFDIR
            if not p.endswith(".mpy"):
                raise OSError(2)  # ENOENT: no .py, no package
            self.f = self.fs.open(self.path + p, "rb")  # OSError(ENOENT) when missing
            self.p = p
            return (0x8000, 0, 0, 0, 0, 0, 0, 0, 0, 0)  # S_IFREG
        except KeyboardInterrupt:
            self.fs = None  # every lookup fails from now on; open() and umount() raise it
            raise

    def open(self, p, mode):
        f = self.f
        self.f = None
        if self.fs is None:  # a Ctrl-C that stat() caught (a file of the package: a table)
            raise KeyboardInterrupt
        if f is not None and p == self.p and mode == "rb":
            return f
        return self.fs.open(self.path + p, mode)
