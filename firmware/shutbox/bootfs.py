# The shutbox package's folder while the box boots: one lookup of the flash per module.
"""Mounted by shutbox.boot over the package's folder (on the Pico's littlefs, which holds the
package under its root), unmounted by firmware/main.py before the box's loop, then forgotten.
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

    def mount(self, *args):  # (readonly, mkfs): nothing to do; umount too
        pass

    umount = mount

    def stat(self, p):
        if p == "/":
            return (0x4000, 0, 0, 0, 0, 0, 0, 0, 0, 0)  # S_IFDIR
        if not p.endswith(".mpy"):
            raise OSError(2)  # ENOENT: no .py, no package
        self.f = self.fs.open(self.path + p, "rb")  # OSError(ENOENT) when missing
        self.p = p
        return (0x8000, 0, 0, 0, 0, 0, 0, 0, 0, 0)  # S_IFREG

    def open(self, p, mode):
        f = self.f
        self.f = None
        if f is not None and p == self.p and mode == "rb":
            return f
        return self.fs.open(self.path + p, mode)
