# Flash persistence for the box: settings, records and the game in progress survive power cuts.
"""Small checksummed files written atomically, with "missing" told apart from "damaged".

Each file is a 12-byte header then the payload::

    0..3  magic b"SHBX"
    4     store format version (_FORMAT)
    5     the caller's payload version (a settings layout change makes old files "damaged")
    6..7  payload length, little-endian
    8..11 CRC-32 of header bytes 0..7 then the payload, little-endian

A save of a file that is not there yet writes ``name.tmp``, closes it (littlefs commits on
close) and renames it over ``name``; littlefs renames atomically, so after a power cut the
file is not there or whole. A leftover ``name.tmp`` is an unfinished save: load removes it.
A file that is there is written over in place: littlefs writes a file's new data copy on
write and commits it with its size atomically when it is closed (opening it truncates
nothing on flash, and a file whose write failed commits nothing), so after a cut or an error
the file is the old or the new version, as with a rename (tests/mp/store_powercut.py cuts
every operation of such saves). That is one metadata commit a save instead of three (the new
file, its data, the rename): a third of the flash programs, and of the 4 KB erases the
metadata log's compactions cost (shutbox_host.bench.saves), each of which stops the Pico for
45 to 400 ms while its inputs wait (execution runs from that flash). A new file's create
is committed by a handle of its own, closed at once (nothing written: no commit, on a mount
without mtimes, as shutbox.ahead.start mounts), and its data by a second one: littlefs
compacts a log it fetched full at the create, and the handle that made that compaction
would compact again at its close (littlefs leaves its pair's ``erased`` as fetched), into
the half that was live when the save began, which no erase ahead can have erased: the
save would wait for that erase (tests/mp/ahead_reset.py). Anything that does
not check out (short, too long, wrong magic or version, bad CRC, unreadable) is reported as
damaged, never returned: the caller uses its defaults and shows the status on the LEDs.

Load/save status (``Store.status``): OK (0) and MISSING (1) are normal; every code from 2 up
means the file was bad (``damaged``): 2 truncated (its size does not match its header: cut
short, padded, no header), 3 bad magic (not one of our files), 4 an unknown store format or
payload version, 5 too big (larger than the cap: refused without reading it), 6 bad CRC (bit
rot or a torn write), 7 I/O error (the filesystem refused: a read error on load, flash full
on save). Only OK and MISSING are public names; the others are private constants (no names
kept in RAM) that the tests read from this module.
"""

import binascii
import os

from micropython import const

# BEGIN consts: written by `shutbox consts`; edit its table, not this block
OK = const(0)  # shutbox.store's statuses: read
MISSING = const(1)  # no file (first boot, or after a reset)
_TRUNCATED = const(2)  # damaged (2 and up): the size does not match the header
_BAD_MAGIC = const(3)  # not one of our files
_BAD_VERSION = const(4)  # an unknown store format or payload version
_TOO_BIG = const(5)  # larger than the cap: refused without reading it
_BAD_CRC = const(6)  # bit rot or a torn write
_IO_ERROR = const(7)  # the filesystem refused
# END consts

_FORMAT = const(1)
_HEADER = const(12)
_MAGIC = const(b"SHBX")
_TMP = const(".tmp")
_ENOENT = const(2)


def damaged(status):
    """Return True if *status* means the file existed but could not be trusted."""
    return status >= _TRUNCATED


class Store:
    """Checksummed, atomically replaced files in one folder (on the Pico: littlefs in flash)."""

    def __init__(self, root="/data", cap=2048):
        """Keep the folder and the largest payload accepted; touch nothing on flash yet."""
        self.root = root.rstrip("/")
        self.cap = cap
        self.status = MISSING  # the status of the last load (or save)
        self._hdr = bytearray(_HEADER)

    def _path(self, name):
        """Return the full path of *name*, refusing names that could escape the folder."""
        if not name or "/" in name or name.endswith(_TMP):
            raise ValueError("bad store name")
        return self.root + "/" + name

    def save(self, name, payload, version=0):
        """Write *payload* (bytes-like) as *name*, atomically; return OK or a status code.

        A payload over the cap is a programming error (ValueError). A filesystem error
        (flash full, a failing block) returns the I/O error code and leaves the previous
        version.
        """
        path = self._path(name)
        n = len(payload)
        if n > self.cap or n > 0xFFFF:
            raise ValueError("payload too big")
        h = self._hdr
        h[0:4] = _MAGIC
        h[4] = _FORMAT
        h[5] = version
        h[6] = n & 0xFF
        h[7] = n >> 8
        # the CRC covers the header's first 8 bytes, then the payload
        crc = binascii.crc32(payload, binascii.crc32(memoryview(h)[:8]))
        for i in range(4):
            h[8 + i] = (crc >> (8 * i)) & 0xFF
        tmp = path + _TMP
        try:  # a file that is there is written over in place (the module's doc says why)
            os.stat(path)
            tmp = path
        except OSError:
            pass
        try:
            try:
                f = open(tmp, "wb")
            except OSError:  # no folder yet: it is made at the first save, not before
                os.mkdir(self.root)
                f = open(tmp, "wb")
            if tmp != path:  # a new file: its data committed by a handle of its own (below)
                f.close()
                f = open(tmp, "wb")
            with f:
                f.write(h)
                f.write(payload)
            if tmp != path:
                os.rename(tmp, path)
        except OSError:
            if tmp != path:
                try:
                    os.remove(tmp)
                except OSError:
                    pass
            self.status = _IO_ERROR
            return _IO_ERROR
        self.status = OK
        return OK

    def load(self, name, version=0):
        """Return the payload of *name* as bytes, or None; self.status says why not.

        None with status MISSING means no file; None with damaged(status) means the file
        was there but bad. Either way the caller falls back to its defaults.
        """
        data = self.load_into(name, None, version)
        return data if self.status == OK else None

    def load_into(self, name, buf, version=0):
        """Read the payload of *name* into *buf* (no payload allocated); return its length or -1.

        On -1, self.status says why (a payload longer than *buf* counts as too big). With
        *buf* None the payload is returned as new bytes instead (``load``).
        """
        path = self._path(name)
        try:
            os.remove(path + _TMP)  # an unfinished save: the file itself is still whole
        except OSError:
            pass
        try:
            size = os.stat(path)[6]
        except OSError as e:
            self.status = MISSING if e.args and e.args[0] == _ENOENT else _IO_ERROR
            return -1
        h = self._hdr
        data = None
        got = -1
        st = _TRUNCATED
        if size > _HEADER + self.cap:
            st = _TOO_BIG
        elif size >= _HEADER:
            try:
                with open(path, "rb") as f:
                    full = f.readinto(h) == _HEADER
                    n = h[6] | (h[7] << 8)
                    if not full:
                        pass  # _TRUNCATED
                    elif h[0:4] != _MAGIC:
                        st = _BAD_MAGIC
                    elif h[4] != _FORMAT or h[5] != version:
                        st = _BAD_VERSION
                    elif n > self.cap or (buf is not None and n > len(buf)):
                        st = _TOO_BIG
                    elif size == _HEADER + n:
                        if buf is None:
                            data = f.read(n)
                            got = len(data)
                            view = memoryview(data)
                        else:
                            view = memoryview(buf)[:n]
                            got = f.readinto(view) if n else 0
                        crc = h[8] | (h[9] << 8) | (h[10] << 16) | (h[11] << 24)
                        if got != n:
                            got = -1  # _TRUNCATED
                        elif (binascii.crc32(view, binascii.crc32(memoryview(h)[:8]))
                              & 0xFFFFFFFF) != crc:
                            st = _BAD_CRC
                            got = -1
                        else:
                            st = OK
            except OSError:
                st = _IO_ERROR
        self.status = st
        if st != OK:
            return -1
        return got if buf is not None else data

    def remove(self, name):
        """Delete *name* (factory reset); a missing file is fine."""
        path = self._path(name)
        for p in (path + _TMP, path):
            try:
                os.remove(p)
            except OSError:
                pass
