# Flash persistence for the box: settings, records and the game in progress survive power cuts.
"""Small checksummed files written atomically, with "missing" told apart from "damaged".

Each file is a 12-byte header then the payload::

    0..3  magic b"SHBX"
    4     store format version (FORMAT)
    5     the caller's payload version (a settings layout change makes old files "damaged")
    6..7  payload length, little-endian
    8..11 CRC-32 of header bytes 0..7 then the payload, little-endian

A save writes ``name.tmp``, closes it (littlefs commits on close) and renames it over
``name``; littlefs renames atomically, so after a power cut the file is the old or the new
version. A leftover ``name.tmp`` is an unfinished save: load removes it. Anything that does
not check out (short, too long, wrong magic or version, bad CRC, unreadable) is reported as
damaged, never returned: the caller uses its defaults and shows the status on the LEDs.
"""

import binascii
import os

from micropython import const

# Load/save status. 0 and 1 are normal; everything from DAMAGED up means the file was bad.
OK = const(0)
MISSING = const(1)  # no file (first boot, or after a reset): defaults, nothing to report
DAMAGED = const(2)  # the first "damaged" code; the ones below say why
TRUNCATED = const(2)  # its size does not match its header (cut short, padded, no header)
BAD_MAGIC = const(3)  # not one of our files
BAD_VERSION = const(4)  # an unknown store format or payload version
TOO_BIG = const(5)  # larger than the cap: refused without reading it
BAD_CRC = const(6)  # the checksum does not match: bit rot or a torn write
IO_ERROR = const(7)  # the filesystem refused (read error on load, flash full on save)

FORMAT = const(1)
HEADER = const(12)
_MAGIC = b"SHBX"
_TMP = ".tmp"
_ENOENT = const(2)


def damaged(status):
    """Return True if *status* means the file existed but could not be trusted."""
    return status >= DAMAGED


class Store:
    """Checksummed, atomically replaced files in one folder (on the Pico: littlefs in flash)."""

    def __init__(self, root="/data", cap=2048):
        """Keep the folder and the largest payload accepted; touch nothing on flash yet."""
        self.root = root.rstrip("/")
        self.cap = cap
        self.status = MISSING  # the status of the last load (or save)
        self._hdr = bytearray(HEADER)
        self._hdr8 = memoryview(self._hdr)[:8]  # the part the CRC covers, made once
        self._made_root = False
        self._n = 0  # payload length of the last good load
        self._data = b""  # payload of the last good load() (load_into leaves it alone)

    def _path(self, name):
        """Return the full path of *name*, refusing names that could escape the folder."""
        if not name or "/" in name or name.endswith(_TMP):
            raise ValueError("bad store name")
        return self.root + "/" + name

    def _crc(self, payload):
        """Return the CRC-32 of the header's first 8 bytes then *payload*."""
        return binascii.crc32(payload, binascii.crc32(self._hdr8)) & 0xFFFFFFFF

    def save(self, name, payload, version=0):
        """Write *payload* (bytes-like) as *name*, atomically; return OK or a status code.

        A payload over the cap is a programming error (ValueError). A filesystem error
        (flash full, a failing block) returns IO_ERROR and leaves the previous version.
        """
        path = self._path(name)
        n = len(payload)
        if n > self.cap or n > 0xFFFF:
            raise ValueError("payload too big")
        if not self._made_root and self.root:
            try:
                os.mkdir(self.root)
            except OSError:
                pass  # already there (EEXIST); a real failure shows up at open()
            self._made_root = True
        h = self._hdr
        h[0:4] = _MAGIC
        h[4] = FORMAT
        h[5] = version
        h[6] = n & 0xFF
        h[7] = n >> 8
        crc = self._crc(payload)
        for i in range(4):
            h[8 + i] = (crc >> (8 * i)) & 0xFF
        tmp = path + _TMP
        try:
            with open(tmp, "wb") as f:
                f.write(h)
                f.write(payload)
            os.rename(tmp, path)
        except OSError:
            try:
                os.remove(tmp)
            except OSError:
                pass
            self.status = IO_ERROR
            return IO_ERROR
        self.status = OK
        return OK

    def load(self, name, version=0):
        """Return the payload of *name* as bytes, or None; self.status says why not.

        None with status MISSING means no file; None with damaged(status) means the file
        was there but bad. Either way the caller falls back to its defaults.
        """
        return self._load(name, version, None)

    def load_into(self, name, buf, version=0):
        """Read the payload of *name* into *buf* (no payload allocated); return its length or -1.

        On -1, self.status says why (a payload longer than *buf* counts as TOO_BIG).
        """
        n = self._load(name, version, buf)
        return -1 if n is None else n

    def _load(self, name, version, buf):
        """Check and read *name*: into *buf* (returns the length) or a new bytes object."""
        path = self._path(name)
        try:
            os.remove(path + _TMP)  # an unfinished save: the file itself is still whole
        except OSError:
            pass
        try:
            size = os.stat(path)[6]
        except OSError as e:
            self.status = MISSING if e.args and e.args[0] == _ENOENT else IO_ERROR
            return None
        self.status = self._check(path, size, version, buf)
        if self.status != OK:
            return None
        if buf is None:
            data = self._data
            self._data = b""  # the caller owns it now; do not keep it alive
            return data
        return self._n

    def _check(self, path, size, version, buf):
        """Validate the file at *path* of *size* bytes; on OK the payload is in buf/self._data."""
        if size > HEADER + self.cap:
            return TOO_BIG
        if size < HEADER:
            return TRUNCATED
        h = self._hdr
        try:
            with open(path, "rb") as f:
                if f.readinto(h) != HEADER:
                    return TRUNCATED
                if h[0:4] != _MAGIC:
                    return BAD_MAGIC
                if h[4] != FORMAT or h[5] != version:
                    return BAD_VERSION
                n = h[6] | (h[7] << 8)
                if n > self.cap or (buf is not None and n > len(buf)):
                    return TOO_BIG
                if size != HEADER + n:
                    return TRUNCATED
                if buf is None:
                    self._data = f.read(n)
                    got = len(self._data)
                    view = memoryview(self._data)
                else:
                    view = memoryview(buf)[:n]
                    got = f.readinto(view) if n else 0
        except OSError:
            return IO_ERROR
        if got != n:
            return TRUNCATED
        crc = h[8] | (h[9] << 8) | (h[10] << 16) | (h[11] << 24)
        if self._crc(view) != crc:
            self._data = b""
            return BAD_CRC
        self._n = n
        return OK

    def remove(self, name):
        """Delete *name* (factory reset); a missing file is fine."""
        path = self._path(name)
        for p in (path + _TMP, path):
            try:
                os.remove(p)
            except OSError:
                pass

    def clean(self):
        """Remove every leftover ``*.tmp`` (unfinished saves) in the folder; return how many."""
        count = 0
        try:
            names = os.listdir(self.root or "/")
        except OSError:
            return 0
        for n in names:
            if n.endswith(_TMP):
                try:
                    os.remove(self.root + "/" + n)
                    count += 1
                except OSError:
                    pass
        return count
