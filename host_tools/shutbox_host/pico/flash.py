# `shutbox flash`: put the firmware on a Raspberry Pi Pico with mpremote, atomically and safely.
"""Deploy firmware/ to a Pico running MicroPython, lean and so that a flash cut off never bricks.

The layout it leaves on the board is shutbox_host.model.layout's (the project owns exactly
that; nothing else is ever written or removed).

A box gets only the tables its tile count can read (pins.TILES: moves.bin, nN.bin, tN.bin;
every setting of an N-tile box reads no other), listed with their paths in the version's
``shutbox/tables.idx``, which the engine reads (shutbox.engine). An update stages the new
version in its own folder holding only what changed: new content crosses the cable (tables as
``.part`` files renamed into place when whole), content already on the board is moved or
copied there, and each unchanged file of the running version is listed in the new version's
``shutbox_finish.py``, the journal of renames that completes it. The board hashes every file and
compares with what was meant, the manifest is written, then the switch: ``current.tmp``
renamed over ``current`` (littlefs renames atomically). After it the journal runs (the unchanged
files move from the old folder into the new one, a rename each), and the launcher runs it at
boot if the flash was cut off before it finished; renames that were done are skipped, so it
can run again and again. Cut off before the switch, the board starts the old version, whole,
and the next flash reuses what was staged; after it, the new one. Old versions and tables no
version reads are removed last. So an update needs room for what changed only (the room check
counts littlefs blocks: what is still to be written, less what the flash removes first), and
a code-only update writes only the changed modules.

The maker's own files (boot.py, lib/, data the box saved under /data, anything else) are never
touched, and a main.py that is not the launcher is only replaced with --force (it is kept as
/main_before_shutbox.py). The board is recognised from sys.implementation (shutbox_host.pico
.boards), and the firmware must fit its filesystem.

The board is driven with mpremote's Python API: its serial transport, raw REPL and raw-paste
mode, as `mpremote exec` uses them; files travel as base64 chunks written by the board. The
flash runs after mpremote's soft reset (nothing of the box is in the heap then), and asks the
heap for little: a command's answer is printed a small repr() a line (the board never holds a
listing, the hashes of a folder or a journal whole), nothing is left in the REPL's globals
between commands (what stays alive among a command's garbage would cut the free heap into
pieces), and a command names at most _NAMES_MAX characters of paths; the largest block it
asks for is a chunk's command (CHUNK).
"""

from __future__ import annotations

import ast
import base64
import contextlib
import hashlib
import io
import json
import os
import re
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from shutbox import board as _board
from shutbox_host import mp
from shutbox_host.errors import UserError
from shutbox_host.model import boards
from shutbox_host.model.boards import PICO_VID
from shutbox_host.model.layout import (
    BOARD_DIR,
    FINISH,
    LAUNCHER,
    LAUNCHER_MARK,
    LAUNCHER_PATH,
    MAKER_MAIN_KEPT,
    MANIFEST,
    PICO_ARCH,
    TABLE_INDEX,
    TABLE_SOURCES,
    TABLES_DIR,
    flashed_to,
    march,
    native_arch,
)

CACHE = mp.BUILD / "mpy-cache"
CONNECT_TIMEOUT = 10  # seconds to get a raw REPL (mpremote's own limit)
_ATTEMPT_S = 2  # ...asking again this often (a board mid-reset drops what it is sent)
# Bytes per write command: its 2.7 KB of base64 is the largest block the flash asks of the
# board's heap (the raw REPL's buffer, the compiled literal, the decoded chunk); an update
# completes on a heap with no free block over 4 KB (docs/flashing.md). Smaller chunks would
# add commands, each a round trip of the raw REPL's flow control, to every table sent.
CHUNK = 2048
# The characters of paths a command names at most, so that it stays under a chunk's command:
# the journal's renames of a Pico W's code update (44 files) are 5.6 KB as pairs of paths
_NAMES_MAX = 1536
_VERSION_RE = re.compile(r"^fw-[0-9a-f]{10}b?$")
_TABLE_RE = re.compile(r"^([nt])(\d+)\.bin$")  # nN.bin, tN.bin: read by an N-tile box only
_TILES_RE = re.compile(rb"^TILES = const\((\d+)\)", re.M)  # in shutbox/pins.py
_SLACK_BLOCKS = 2  # littlefs metadata growth while staging (commits, a compaction)
_INLINE_MAX = 512  # littlefs 2.11 on rp2 keeps a file this small in its directory's metadata

# ---- run on the board (MicroPython; keep them small and allocation-light) --------------

_BOARD_HELPERS = """\
import os, hashlib, binascii
_b = bytearray(1024)
def _h(p):
    d = hashlib.sha256()
    mv = memoryview(_b)
    with open(p, 'rb') as f:
        while True:
            n = f.readinto(_b)
            if not n:
                break
            d.update(mv[:n])
    return binascii.hexlify(d.digest()).decode()
def _walk(d, pre):
    for e in os.ilistdir(d):
        p = d + '/' + e[0]
        if e[1] & 0x4000:
            _walk(p, pre + e[0] + '/')
        else:
            print(repr(('f', pre + e[0], _h(p), os.stat(p)[6])))
def _free(p):
    i = 0
    n = p
    while True:
        try:
            os.stat(n)
        except OSError:
            return n
        i += 1
        n = '%s_%d.py' % (p[:-3], i)
def _rm(p):
    try:
        os.remove(p)
        return
    except OSError:
        pass
    try:
        es = list(os.ilistdir(p))
    except OSError:
        return
    for e in es:
        _rm(p + '/' + e[0])
    os.rmdir(p)
def _ndirs(d, out=None):
    n = 0
    for e in os.ilistdir(d):
        if e[1] & 0x4000:
            p = d.rstrip('/') + '/' + e[0]
            if out is not None:
                out.append(p)
            n += 1 + _ndirs(p, out)
    return n
def _mv(a, b, names):
    for n in names:
        try:
            os.rename(a + n, b + n)
        except OSError:
            pass
def _cat(p):
    mv = memoryview(_b)
    with open(p, 'rb') as f:
        while True:
            n = f.readinto(_b, 256)
            if not n:
                break
            print(repr(bytes(mv[:n])))
"""

_IDENTIFY = """\
import sys
_i = sys.implementation
print(repr((sys.platform, _i.name, tuple(_i.version[:3]), getattr(_i, '_mpy', None),
            getattr(_i, '_machine', ''), getattr(_i, '_build', ''))))
"""

# A switch that a cut-off flash made but did not finish: its journal, read back in pieces (the
# host runs its renames: _renames), or nothing.
_FINISH_CURRENT = """\
try:
    with open('/.shutbox/current') as f:
        _c = f.read().strip()
    print(repr(_c))
    _cat('/.shutbox/' + _c + '/shutbox_finish.py')
except OSError:
    pass
_c = None
"""

# What the board holds, a line each (a repr of a tuple): never one answer as big as the
# listing, and nothing left in the REPL's globals (see Board.lines).
_STATE = """\
try:
    with open('/.shutbox/current') as f:
        print(repr(('current', f.read().strip())))
except OSError:
    pass
try:
    with open('/main.py') as f:
        print(repr(('main', f.readline().rstrip(), _h('/main.py'))))
except OSError:
    pass
try:
    for e in os.ilistdir('/.shutbox'):
        if e[1] & 0x4000:
            print(repr(('dir', e[0])))
            _walk('/.shutbox/' + e[0], '')
        else:
            print(repr(('other', e[0])))
except OSError:
    pass
try:
    s = os.statvfs('/')
    print(repr(('fs', s[0] * s[3], s[0])))
    _f = []
    print(repr(('dirs', _ndirs('/', _f))))
    for _p in _f:
        print(repr(('folder', _p)))
except (OSError, AttributeError):
    pass
_f = s = e = None
"""

_COPY = """\
mv = memoryview(_b)
with open(%r, 'rb') as fi:
    with open(%r, 'wb') as fo:
        while True:
            n = fi.readinto(_b)
            if not n:
                break
            fo.write(mv[:n])
"""

_MKDIRS = """\
for _p in %r:
    try:
        os.mkdir(_p)
    except OSError:
        pass
"""

_HASH_DIR = """\
_walk(%r, '')
"""

_HASH_FILES = """\
for _p in %r:
    try:
        print(repr((_p, _h(_p))))
    except OSError:
        pass
_p = None
"""

_RENAMES = "_mv(%r, %r, %r)"

_SWITCH = """\
with open('/.shutbox/current.tmp', 'w') as f:
    f.write(%r)
os.rename('/.shutbox/current.tmp', '/.shutbox/current')
with open('/.shutbox/current') as f:
    print(repr(f.read()))
"""

# The journal of a staged version (its shutbox_finish.py): imported by the launcher at boot
# when a flash was cut off after its switch. A rename already done fails (its source is gone)
# and is skipped; it removes itself last. The flash makes the same renames itself (_renames: a
# batch a command; the journal whole, compiled on the board, asks for blocks of its size).
_JOURNAL = """\
import os
for s, d in %r:
    try:
        os.rename(s, d)
    except OSError:
        pass
os.remove(%r)
"""

# The board restarts into the new version; on an RP2040 the box's mark of a reset made on
# purpose goes into the watchdog's SCRATCH3 first (shutbox.board: the box then knows the
# reset for no hang, whatever the watchdog's REASON says). It says _RESET_SAID first: the
# tool then knows that the reset runs.
_RESET_SAID = b"shutbox: reset"
_RESET = ("import time, machine, sys\nprint(%r)\ntime.sleep_ms(100)\n" % _RESET_SAID.decode() +
          "if 'RP2040' in getattr(sys.implementation, '_machine', ''):\n"
          "    machine.mem32[%d] = %d\nmachine.reset()" % (_board._WATCHDOG_SCRATCH3,
                                                         _board._RESET_MARK))
# after saying so, the board goes (a Pico's USB drops) or starts again (what it prints then)
# within this; a board that stays silent and connected is left to it after this long
_GONE_S = 5


class Fail(UserError):
    """A flash that stopped part way (the board still starts the version it had)."""


# ---- the host side --------------------------------------------------------------------


mpy_cross_exe = mp.mpy_cross_exe  # None when there is none: the source goes to the board


def mpy_cross_version(exe: str) -> tuple[int, int] | None:
    """Return the (version, sub-version) of the .mpy files *exe* emits, or None."""
    try:
        out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30,
                             **mp.tied())
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"mpy v(\d+)\.(\d+)", out.stdout + out.stderr)
    return (int(m.group(1)), int(m.group(2))) if m else None


def board_mpy_version(mpy: int | None) -> tuple[int, int] | None:
    """Decode sys.implementation._mpy: (bytecode version, sub-version)."""
    if mpy is None:
        return None
    return (mpy & 0xFF, (mpy >> 8) & 3)


def firmware_sources(firmware: Path, chip: str | None = "RP2040") -> list[tuple[str, Path]]:
    """The files that make up the firmware of a board of *chip* (layout.flashed_to): main.py
    and the shutbox package (relative paths), but the host's own modules (HOST_ONLY) and,
    but on an RP2040, the RP2040's (RP2040_ONLY)."""
    main = firmware / "main.py"
    pkg = firmware / "shutbox"
    if not main.is_file() or not pkg.is_dir():
        raise UserError("%s has no main.py and shutbox/: not the firmware folder" % firmware)
    files = [("main.py", main)]
    for p in sorted(pkg.rglob("*")):
        rel = p.relative_to(firmware)
        if (p.is_file() and "__pycache__" not in rel.parts
                and not any(part.startswith(".") for part in rel.parts)
                and p.suffix not in (".pyc", ".pyi") and flashed_to(rel.as_posix(), chip)):
            files.append((rel.as_posix(), p))
    return files


def _compile(exe: str, tag: str, rel: str, data: bytes, arch: str = PICO_ARCH) -> bytes:
    """Compile one module's source with mpy-cross (its -march where it holds machine code:
    layout.march, *arch* the board's), through a cache keyed by its content."""
    argv = [*mp.MPY_FLAGS, *march(rel, arch), "-s", mp.source_name(rel)]
    flags = " ".join(argv)  # (every input of the output is in the key: a cache never stale)
    key = hashlib.sha256(tag.encode() + b"\0" + flags.encode() + b"\0" + rel.encode() + b"\0"
                         + data).hexdigest()
    cached = CACHE / (key + ".mpy")
    if cached.exists():
        os.utime(cached)  # recently used: kept by _prune_cache
        return cached.read_bytes()
    CACHE.mkdir(parents=True, exist_ok=True)
    tmp = CACHE / ("%s.%d.tmp" % (key, os.getpid()))
    with tempfile.TemporaryDirectory(prefix="shutbox-mpy-") as where:
        src = Path(where) / Path(rel).name
        src.write_bytes(data)
        proc = subprocess.run([exe, *argv, "-o", str(tmp), str(src)],
                              capture_output=True, text=True, timeout=120, **mp.tied())
    if proc.returncode != 0:
        tmp.unlink(missing_ok=True)
        msg = (proc.stderr or proc.stdout).strip().splitlines()
        raise UserError("mpy-cross failed on %s: %s" % (rel, msg[-1] if msg else "?"))
    os.replace(tmp, cached)
    return cached.read_bytes()


def build(firmware: Path, compile_mpy: bool, exe: str | None = None, tag: str = "",
          overrides: dict[str, bytes] | None = None,
          chip: str | None = "RP2040", arch: str = PICO_ARCH) -> dict[str, bytes]:
    """Return {board path relative to the version folder: content} for the whole firmware of
    a board of *chip* (*arch*: its mpy-cross -march for the viper code, layout.NATIVE);
    *overrides* replace sources ({relative path: content}: a pins.py made for a pin map)."""
    sources = {rel: path.read_bytes() for rel, path in firmware_sources(firmware, chip)}
    sources.update(overrides or {})
    out: dict[str, bytes] = {}
    todo = []
    for rel, data in sorted(sources.items()):
        if compile_mpy and rel.endswith(".py"):
            todo.append((rel, data))
        else:
            out[rel] = data
    if todo:
        assert exe is not None
        with ThreadPoolExecutor(max_workers=4) as pool:
            results = pool.map(lambda rd: _compile(exe, tag, rd[0], rd[1], arch), todo)
            for (rel, _), data in zip(todo, results, strict=True):
                out[rel[:-3] + ".mpy"] = data
        _prune_cache()
    return dict(sorted(out.items()))


def firmware_files(firmware: Path, mpy: int | None,
                   overrides: dict[str, bytes] | None = None,
                   chip: str | None = "RP2040") -> tuple[dict[str, bytes], str, str]:
    """Return (files, format, how) for a board of *chip* reporting sys.implementation._mpy ==
    *mpy*: .mpy bytecode if mpy-cross emits the board's version, else the source."""
    exe = mpy_cross_exe()
    cross = mpy_cross_version(exe) if exe else None
    wanted = board_mpy_version(mpy)
    if cross is not None and cross == wanted:
        fmt = "mpy v%d.%d" % cross
        return (build(firmware, True, exe, fmt, overrides, chip, native_arch(mpy)), fmt,
                ".mpy bytecode (%s)" % fmt[4:])
    if cross is None:
        why = "mpy-cross not found"
    elif wanted is None:
        why = "the board does not report its bytecode version"
    else:
        why = "the board runs mpy v%d.%d, mpy-cross emits v%d.%d" % (wanted + cross)
    how = ".py source (%s; set MPY_CROSS to a matching mpy-cross for faster start-up)" % why
    return build(firmware, False, overrides=overrides, chip=chip), "py", how


def _prune_cache(days: float = 14) -> None:
    """Forget compiled modules nobody used for *days* (old versions of edited files)."""
    limit = time.time() - days * 86400
    for p in CACHE.glob("*.mpy"):
        with contextlib.suppress(OSError):
            if p.stat().st_mtime < limit:
                p.unlink()


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def manifest_for(files: dict[str, bytes], fmt: str,
                 tables: dict | None = None) -> tuple[str, bytes]:
    """Return (version name, manifest.json content) for a set of files (the version folder's;
    *tables*: {table name: [store path, size, sha256]}, named by the index among the files)."""
    listing = {rel: [len(data), _sha(data)] for rel, data in files.items()}
    digest = _sha(json.dumps([fmt, listing], sort_keys=True).encode())
    name = "fw-" + digest[:10]
    doc = {"version": name, "format": fmt, "files": listing, "tables": tables or {},
           "owned": [LAUNCHER_PATH, BOARD_DIR + "/"], "tool": "shutbox flash"}
    return name, (json.dumps(doc, indent=0, sort_keys=True) + "\n").encode()


def tile_count(pins_source: bytes | None) -> int | None:
    """The tile count a shutbox/pins.py source declares (TILES = const(N)), or None."""
    m = _TILES_RE.search(pins_source or b"")
    return int(m.group(1)) if m else None


def table_needed(name: str, tiles: int | None) -> bool:
    """Whether an *tiles*-tile box can read the table file *name*: nN.bin and tN.bin only for
    N tiles (the tile count is the box's build, no setting changes it; every setting reads
    moves.bin and at most these two). Without a tile count, every table."""
    m = _TABLE_RE.match(name)
    return not (m and tiles is not None and int(m.group(2)) != tiles)


def store_name(name: str, data: bytes) -> str:
    """The table's file name in /.shutbox/tables: its name and its content's hash."""
    stem, dot, ext = name.rpartition(".")
    return "%s-%s%s%s" % (stem or ext, _sha(data)[:12], dot, ext if stem else "")


@dataclass
class Release:
    """One firmware as `shutbox flash` leaves it on a board (see the module's docstring)."""

    version: str
    fmt: str
    how: str
    files: dict  # the version folder: {relative path: content}, index and manifest included
    tables: dict  # /.shutbox/tables: {store name: content}
    index: dict  # {table name (n9.bin): store name}
    tiles: int | None

    def tree(self) -> dict[str, bytes]:
        """{absolute board path: content} of everything the flash writes."""
        tree = {LAUNCHER_PATH: LAUNCHER.encode(), BOARD_DIR + "/current": self.version.encode()}
        for rel, data in self.files.items():
            tree["%s/%s/%s" % (BOARD_DIR, self.version, rel)] = data
        for name, data in self.tables.items():
            tree["%s/%s" % (TABLES_DIR, name)] = data
        return tree

    @property
    def deployed_bytes(self) -> int:
        return sum(len(d) for d in self.tree().values())

    def blocks(self) -> int:
        """littlefs blocks the release takes on a fresh filesystem (files and directories)."""
        dirs = {p.rsplit("/", 1)[0] for p in self.tree()} - {""}
        for d in list(dirs):
            while d.count("/") > 1:
                d = d.rsplit("/", 1)[0]
                dirs.add(d)
        return sum(lfs_blocks(len(d)) for d in self.tree().values()) + 2 * len(dirs)


def prepare(firmware: Path = mp.FIRMWARE, mpy: int | None = None,
            overrides: dict[str, bytes] | None = None, companion: bool = False,
            chip: str | None = "RP2040") -> Release:
    """Build the release of *firmware* for a board of *chip* (RP2040, the default: a Pico or
    a Pico W; RP2350; None: not known) reporting ``sys.implementation._mpy == mpy``: the
    modules (the RP2040's erase ahead on an RP2040 alone: layout.RP2040_ONLY), the tables its
    tile count reads (stored by content), the index;
    with *companion* (a Pico W: ``wants_companion``) the companion's files beside them
    (shutbox_host.pico.companion: microdot and firmware/companion/, in the release's
    format)."""
    firmware = Path(firmware)
    files, fmt, how = firmware_files(firmware, mpy, overrides, chip)
    if companion:
        from shutbox_host.pico import companion as _companion

        files.update(_companion.files(compile_mpy=fmt != "py"))
    pins = (overrides or {}).get("shutbox/pins.py")
    if pins is None and (firmware / "shutbox" / "pins.py").is_file():
        pins = (firmware / "shutbox" / "pins.py").read_bytes()
    tiles = tile_count(pins)
    index: dict[str, str] = {}
    tables: dict[str, bytes] = {}
    listing = {}
    for rel in [r for r in files if r.startswith(TABLE_SOURCES)]:
        data = files.pop(rel)
        name = rel[len(TABLE_SOURCES):]
        if "/" in name or not table_needed(name, tiles):
            continue
        index[name] = store_name(name, data)
        tables[index[name]] = data
        listing[name] = ["%s/%s" % (TABLES_DIR, index[name]), len(data), _sha(data)]
    if tiles is not None:  # the engine's order: moves.bin, nN.bin, tN.bin ("-": none)
        files[TABLE_INDEX] = "".join(
            ("%s/%s\n" % (TABLES_DIR, index[n])) if n in index else "-\n"
            for n in ("moves.bin", "n%d.bin" % tiles, "t%d.bin" % tiles)).encode()
    files = dict(sorted(files.items()))
    version, manifest = manifest_for(files, fmt, listing)
    files[MANIFEST] = manifest
    return Release(version, fmt, how, files, tables, index, tiles)


def wants_companion(board: boards.Board | None) -> bool:
    """Whether *board* gets the companion (a Pico W or a Pico 2 W: the boards with a radio);
    a Pico, or a board not recognised, gets none of its files."""
    return board is not None and board.wireless


def lfs_blocks(size: int, block: int = boards.BLOCK_SIZE) -> int:
    """The blocks littlefs takes for a file of *size* bytes: none when it is inlined in its
    directory, else its CTZ skip list (block i > 0 starts with ctz(i) + 1 pointers)."""
    if size <= _INLINE_MAX:
        return 0
    n = 0
    room = 0
    while room < size:
        room += block - (4 * ((n & -n).bit_length()) if n else 0)
        n += 1
    return n


def find_port() -> str:
    """Return the serial port of the one Pico running MicroPython on USB."""
    import serial.tools.list_ports

    found = [p.device for p in serial.tools.list_ports.comports() if p.vid == PICO_VID]
    if not found:
        raise UserError("no Pico found on USB (vendor 2E8A): plug it in with a data cable, "
                        "install MicroPython first (docs/flashing.md), or name its "
                        "port: --port /dev/ttyACM0 (make flash PORT=/dev/ttyACM0)")
    if len(found) > 1:
        raise UserError("several Picos found (%s): choose one with --port (make flash PORT=...)"
                        % ", ".join(found))
    return found[0]


def _is_terminal(path: str) -> bool:
    """Return True if *path* is a terminal device (a serial port or a pty), not a file or
    /dev/null; a port that cannot be opened at all counts as one (the open says why)."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    except OSError:
        return True
    try:
        return os.isatty(fd)
    finally:
        os.close(fd)


class Board:
    """A MicroPython board on a serial port, through mpremote's transport (raw REPL)."""

    def __init__(self, port: str):
        from mpremote.transport import TransportError
        from mpremote.transport_serial import SerialTransport

        self.port = port
        self._TransportError = TransportError
        posix = port.startswith("/")  # a device file (COM3 and friends are not files)
        if posix and not os.path.exists(port):
            raise UserError("no such port: %s (is the Pico plugged in?)" % port)
        if posix and not os.access(port, os.R_OK | os.W_OK):
            raise UserError("no permission to open %s (on Linux: add yourself to the dialout "
                            "group, then log in again)" % port)
        if posix and not _is_terminal(port):
            raise UserError("%s is not a serial port (a Pico's is /dev/ttyACM0 on Linux, "
                            "/dev/cu.usbmodem... on macOS)" % port)
        noise = io.StringIO()
        try:
            with contextlib.redirect_stdout(noise):
                self.t = SerialTransport(port, baudrate=115200,
                                         timeout=min(_ATTEMPT_S, CONNECT_TIMEOUT))
        except TransportError:
            raise UserError("cannot open %s: another program is using it (Thonny, "
                            "`mpremote repl`, screen?)" % port) from None
        except OSError as exc:
            raise UserError("cannot open %s: %s" % (port, exc.strerror or exc)) from None
        # mpremote sends its Ctrl-C and Ctrl-A once; a board still restarting (just reset,
        # just plugged in) drops them, so ask again every _ATTEMPT_S until CONNECT_TIMEOUT
        deadline = time.monotonic() + CONNECT_TIMEOUT
        while True:
            left = deadline - time.monotonic()
            try:
                with contextlib.redirect_stdout(noise):
                    self.t.enter_raw_repl(soft_reset=True,
                                          timeout_overall=max(0.5, min(_ATTEMPT_S, left)))
                return
            except (TransportError, OSError, ValueError):
                if time.monotonic() < deadline - 0.5:
                    continue
                self.close()
                raise UserError("%s does not answer like MicroPython (no raw REPL): is it a "
                                "Pico with MicroPython installed?" % port) from None

    def exec(self, code: str) -> str:
        """Run code on the board; return what it printed. A board-side error is a Fail."""
        from mpremote.transport import TransportExecError

        try:
            return self.t.exec(code).decode("utf-8", "replace")
        except TransportExecError as exc:
            lines = exc.error_output.strip().splitlines()
            raise Fail("the board reported: %s" % (lines[-1] if lines else "?")) from None
        except (self._TransportError, OSError) as exc:
            raise Fail("lost the board on %s: %s" % (self.port, exc)) from None

    def eval(self, code: str):
        """Run code that prints one repr(); return its value."""
        out = self.exec(code).strip()
        try:
            return ast.literal_eval(out.splitlines()[-1])
        except (ValueError, SyntaxError, IndexError):
            raise Fail("unexpected answer from the board: %r" % out[:80]) from None

    def lines(self, code: str) -> list:
        """Run code that prints a repr() a line (small ones: the board never holds the whole
        answer, see _STATE); return their values."""
        out = []
        for line in self.exec(code).splitlines():
            if not line.strip():
                continue
            try:
                out.append(ast.literal_eval(line.strip()))
            except (ValueError, SyntaxError):
                raise Fail("unexpected answer from the board: %r" % line[:80]) from None
        return out

    def write(self, path: str, data: bytes, on_chunk=None):
        """Write a file on the board through mpremote's exec, chunk by chunk like `fs cp`.

        The chunks travel as base64 rather than fs cp's repr(): 1.33 bytes on the wire per
        byte instead of up to 4 for binary data such as .mpy files and the tables.
        """
        try:
            self.exec("f = open(%r, 'wb')\nw = f.write\nfrom binascii import a2b_base64 as _a"
                      % path)
            for i in range(0, len(data), CHUNK):
                self.exec("w(_a(%r))" % base64.b64encode(data[i:i + CHUNK]))
                if on_chunk is not None:
                    on_chunk(min(i + CHUNK, len(data)), len(data))
            self.exec("f.close()")
        except Fail as exc:
            raise Fail("writing %s failed (%s)" % (path, exc)) from None

    def reset(self):
        """Hard reset (as `mpremote reset`): the board starts main.py. On return the reset
        took place: the board said it runs it, then its link dropped or its next start
        printed (or it stayed silent _GONE_S), however slow the board or this host; a board
        that never says so is a Fail (it would be left in the raw REPL, not reset)."""
        try:
            self.t.exec_raw_no_follow(_RESET)
            said = self.t.read_until(1, _RESET_SAID, timeout=CONNECT_TIMEOUT)
        except (self._TransportError, OSError) as exc:
            raise Fail("lost the board on %s as it was reset: %s" % (self.port, exc)) from None
        if not said.endswith(_RESET_SAID):
            raise Fail("the board on %s did not reset: unplug it and plug it back in"
                       % self.port)
        self.t.in_raw_repl = False  # the reset leaves it: nothing to send the board
        deadline = time.monotonic() + _GONE_S
        try:
            while time.monotonic() < deadline:
                got = self.t.serial.read(1)
                if got and got not in b"\r\n":
                    return  # the board's next start printed
        except OSError:
            return  # the link dropped: the board went
    def restart(self):
        """Soft reboot (Ctrl-D at the REPL): main.py runs again, the chip is not reset. What
        a dry run leaves: the connection's Ctrl-C stopped the box, nothing else changed."""
        try:
            if self.t.in_raw_repl:
                self.t.exit_raw_repl()
            self.t.serial.write(b"\x04")
            time.sleep(0.2)
        except (self._TransportError, OSError):
            pass

    def close(self):
        """Let go of the port (leaving the raw REPL if the board is still there)."""
        try:
            if self.t.in_raw_repl:
                self.t.exit_raw_repl()
        except OSError:
            pass
        with contextlib.suppress(OSError):
            self.t.close()


def _kb(n: int) -> str:
    return "%.1f KB" % (n / 1024)


def _no_point(board, phase, n):
    """The hook of a flash nobody watches."""


def flash(port: str | None = None, force: bool = False, dry_run: bool = False,
          firmware: Path = mp.FIRMWARE, out=print, on_point=None,
          companion: bool | None = None) -> dict:
    """Flash the firmware; return a summary dict (what was copied, the figures). A Pico W
    gets the companion beside it (``wants_companion``) unless *companion* is False.

    *on_point*: a callable(board, phase, n) called at each named point of the flash (its
    *n*-th; *board* None where the flash holds none): the bench looks at the board there,
    the tests stop the flash there (tests/pico/flash_killed.py)."""
    t0 = time.monotonic()
    port = port or find_port()
    board = Board(port)
    try:
        run = _Flash(board, port, out, on_point or _no_point)
        run.companion = companion is not False
        return run.flash(Path(firmware), force, dry_run, t0)
    finally:
        board.close()


def _hashes(listing: dict | None) -> dict:
    """{path: sha} of a state listing ({path: [sha, size]})."""
    return {k: v[0] for k, v in (listing or {}).items()}


def _dirs_of(paths) -> list[str]:
    """Every folder the absolute *paths* need, parents first."""
    out = set()
    for p in paths:
        parts = p.strip("/").split("/")[:-1]
        for i in range(1, len(parts) + 1):
            out.add("/" + "/".join(parts[:i]))
    return sorted(out, key=lambda d: (d.count("/"), d))


def _identify(board: Board, port: str, force: bool, out):
    """Check the board runs MicroPython on rp2; return (its _mpy, its Board or None, its
    chip: the Board's, else the one sys.implementation._machine names, else None)."""
    platform, name, version, mpy, machine, build_name = board.eval(_IDENTIFY)
    vtext = "v%s" % ".".join(str(x) for x in version)
    if name != "micropython" or platform != "rp2":
        what = "%s %s on %s" % (name, vtext, platform)
        if not force:
            raise UserError("the board on %s runs %s, not MicroPython on a Raspberry Pi Pico "
                            "(rp2); use --force to flash it anyway" % (port, what))
        out("warning: flashing %s (--force)" % what)
    out("%s: MicroPython %s on %s (%s)" % (port, vtext, platform, machine or "?"))
    found = boards.identify(machine, build_name)
    if found is not None:
        out("board: %s (%s), a %s filesystem" % (found.product, found.name,
                                                 boards.kb(found.fs_bytes)))
    elif platform == "rp2":
        out("board: %r is not one of shutbox's Pico boards (%s): the room is what its "
            "filesystem reports" % (build_name or machine, ", ".join(boards.BY_NAME)))
    chip = found.chip if found is not None else next(
        (c for c in ("RP2040", "RP2350") if c in (machine or "")), None)
    return mpy, found, chip


@dataclass
class _Plan:
    """What an update does, worked out from the board's state before anything changes: each
    list holds (destination, source) pairs, the source a path on the board or (upload) the
    content to send."""

    stage: str  # the version folder staged
    stage_dir: str
    keep: list  # destinations already whole
    journal: list  # moved in from the running version after the switch (its journal)
    move: list  # moved now from a stale version
    copy: list  # copied on the board
    upload: list  # sent over the cable
    removals: list  # (path, size): stray, damaged and half-written files, removed first

    @property
    def journal_src(self) -> str:
        """The stage's shutbox_finish.py: the journal's renames, then it removes itself."""
        return _JOURNAL % (tuple((s, d) for d, s in self.journal),
                           self.stage_dir + "/" + FINISH)


class _Flash:
    """One flash of one board, step by step (``flash``): identify the board, build the
    release, read the board's state, plan, check the room, stage, verify, write the launcher,
    switch, clean up. Each step is a method; *point* is called at the named points."""

    def __init__(self, board: Board, port: str, out, point):
        self.board = board
        self.port = port
        self.out = out
        self.point = point
        self.companion = True  # a Pico W gets the companion (flash's *companion*)

    def flash(self, firmware: Path, force: bool, dry_run: bool, t0: float) -> dict:
        board, out = self.board, self.out
        mpy, found, chip = _identify(board, self.port, force, out)
        board.exec(_BOARD_HELPERS)
        rel = self.release(firmware, mpy, found, chip)
        if not dry_run:
            finished = _finish_current(board)
            if finished:
                out("finished the switch to %s that a cut-off flash made" % finished)
        state = _state(board)
        launcher_ok = self.check_main(state, force)
        current = state["current"]
        want = {r: _sha(d) for r, d in rel.files.items()}
        want_tables = {n: _sha(d) for n, d in rel.tables.items()}
        summary = {"port": self.port, "version": rel.version, "previous": current,
                   "format": rel.fmt, "board": found.name if found else None,
                   "files": len(rel.files), "tables": len(rel.tables), "tiles": rel.tiles,
                   "deployed_bytes": rel.deployed_bytes, "uploaded": 0, "uploaded_bytes": 0,
                   "copied": 0, "moved": 0, "kept": 0}
        whole = current in (rel.version, rel.version + "b") and _hashes(
            state["versions"].get(current)) == want
        tables_ok = all(_hashes(state["tables"]).get(n) == h for n, h in want_tables.items())
        if whole and tables_ok and launcher_ok:
            return self.up_to_date(rel, state, summary, dry_run, t0)

        plan = self.plan(rel, state, want, want_tables, whole)
        summary.update(uploaded=len(plan.upload),
                       uploaded_bytes=sum(len(d) for _, d in plan.upload),
                       copied=len(plan.copy), moved=len(plan.journal) + len(plan.move),
                       kept=len(plan.keep))
        self.check_room(rel, state, plan, summary)
        out("%s: upload %d files (%s), copy %d and move %d on the board, keep %d already there"
            % ("plan" if dry_run else "staging " + plan.stage, len(plan.upload),
               _kb(summary["uploaded_bytes"]), len(plan.copy), summary["moved"],
               len(plan.keep)))
        if dry_run:
            for dst, data in plan.upload:
                out("  would upload %s (%s)" % (_short(dst, plan.stage_dir), _kb(len(data))))
            board.restart()
            summary["seconds"] = time.monotonic() - t0
            out("the box starts again (a soft reboot; nothing changed)")
            return summary

        self.stage(plan, want)
        self.verify(rel, plan, want, want_tables, current)
        self.install_launcher(state, launcher_ok)
        self.switch(plan, want)
        summary["removed"] = self.clean(plan.stage, state, set(rel.tables))
        self.point(board, "done", 0)
        board.reset()
        summary["seconds"] = time.monotonic() - t0
        out("switched to %s%s; verified %d files and %d tables; board reset: the box starts "
            "(%.1f s)" % (plan.stage, " from " + current if current else "", len(rel.files),
                          len(rel.tables), summary["seconds"]))
        return summary

    def release(self, firmware: Path, mpy, found, chip) -> Release:
        """The release for this board, said in a line; one too big for its filesystem is
        refused before anything is written."""
        with_companion = self.companion and wants_companion(found)
        rel = prepare(firmware, mpy, companion=with_companion, chip=chip)
        self.out("firmware %s: %d files and %d tables for %s tiles, %s as %s%s"
                 % (rel.version, len(rel.files), len(rel.tables), rel.tiles or "any",
                    _kb(rel.deployed_bytes), rel.how,
                    "; with the companion (the phones' page)" if with_companion else ""))
        if found is not None and rel.blocks() + _SLACK_BLOCKS > found.fs_blocks:
            raise UserError("this firmware takes %s on littlefs; the %s's filesystem holds %s"
                            % (_kb(rel.blocks() * boards.BLOCK_SIZE), found.short,
                               boards.kb(found.fs_bytes)))
        return rel

    def check_main(self, state: dict, force: bool) -> bool:
        """Refuse a maker's own /main.py without *force*; return whether /main.py is our
        launcher, whole."""
        main = state["main"]
        if main is not None and not main[0].startswith(LAUNCHER_MARK) and not force:
            raise UserError("the board has its own /main.py (not the shutbox launcher); move "
                            "it away or use --force (it is then kept as %s)" % MAKER_MAIN_KEPT)
        return main is not None and main[1] == _sha(LAUNCHER.encode())

    def up_to_date(self, rel: Release, state: dict, summary: dict, dry_run: bool,
                   t0: float) -> dict:
        """The board already runs this release: clean up (unless a dry run) and restart."""
        current = state["current"]
        self.out("the board already runs %s: nothing to copy" % current)
        summary["kept"] = len(rel.files) + len(rel.tables)
        if dry_run:
            self.board.restart()
            summary["seconds"] = time.monotonic() - t0
            self.out("the box starts again (a soft reboot; nothing changed)")
            return summary
        summary["removed"] = self.clean(current, state, set(rel.tables))
        self.board.reset()
        summary["seconds"] = time.monotonic() - t0
        self.out("board reset: the box starts (%.1f s)" % summary["seconds"])
        return summary

    @staticmethod
    def plan(rel: Release, state: dict, want: dict, want_tables: dict, whole: bool) -> _Plan:
        """Where each file of the release comes from: kept, moved in by the journal after the
        switch, moved or copied on the board now, or uploaded."""
        current, versions, have_tables = state["current"], state["versions"], state["tables"]
        target = rel.version
        # Stage in a folder the launcher is not using (a damaged current version is rebuilt
        # aside; a whole one whose tables are missing or damaged only gets them again: a
        # table file is replaced by a rename, and its content is what every version naming
        # it reads).
        if whole:
            stage = current
        else:
            stage = target if current != target else target + "b"
        stage_dir = BOARD_DIR + "/" + stage
        have = versions.get(stage, {})
        running = versions.get(current, {}) if current and current != stage else {}
        cur_dir = "%s/%s/" % (BOARD_DIR, current)
        # where content already on the board is: the running version's files (copied, or
        # moved by the journal after the switch), the table store's (copied), stale
        # versions' (moved now)
        copy_from: dict[str, str] = {}
        for name, (h, _n) in have_tables.items():
            copy_from.setdefault(h, "%s/%s" % (TABLES_DIR, name))
        for r, (h, _n) in running.items():
            copy_from.setdefault(h, cur_dir + r)
        move_from: dict[str, str] = {}
        for vname, listing in versions.items():
            if _VERSION_RE.match(vname) and vname not in (stage, current):
                for r, (h, _n) in listing.items():
                    move_from.setdefault(h, "%s/%s/%s" % (BOARD_DIR, vname, r))

        p = _Plan(stage, stage_dir, [], [], [], [], [], [])
        for r, h in want.items():
            dst = stage_dir + "/" + r
            if r == MANIFEST:
                continue  # written last: a complete version has it
            if have.get(r, [None])[0] == h:
                p.keep.append(dst)
                continue
            if r in have:
                p.removals.append((dst, have[r][1]))
            if running.get(r, [None])[0] == h:
                p.journal.append((dst, cur_dir + r))
            elif h in move_from:
                p.move.append((dst, move_from.pop(h)))
            elif h in copy_from:
                p.copy.append((dst, copy_from[h]))
            else:
                p.upload.append((dst, rel.files[r]))
        p.removals += [(stage_dir + "/" + r, v[1]) for r, v in have.items()
                       if r not in want and r != MANIFEST]
        for name, h in want_tables.items():
            dst = TABLES_DIR + "/" + name
            got = have_tables.get(name)
            if got is not None and got[0] == h:
                p.keep.append(dst)
                continue
            src = next((s for s in (cur_dir + r for r, v in running.items() if v[0] == h)),
                       None)
            if src is not None and src not in {s for _, s in p.journal}:
                p.journal.append((dst, src))  # a table in the running version (older layout)
            elif h in move_from:
                p.move.append((dst, move_from.pop(h)))
            elif h in copy_from:
                p.copy.append((dst, copy_from[h]))
            else:
                p.upload.append((dst, rel.tables[name]))
        p.removals += [(TABLES_DIR + "/" + n, v[1]) for n, v in have_tables.items()
                       if n.endswith(".part")]
        return p

    @staticmethod
    def check_room(rel: Release, state: dict, plan: _Plan, summary: dict) -> None:
        """littlefs blocks still to be written, against the free ones and those the flash
        frees first: too few is a one-line error before anything is written."""
        versions, have_tables = state["versions"], state["tables"]
        sizes = ([len(d) for _, d in plan.upload]
                 + [_size_of(s, versions, have_tables) for _, s in plan.copy]
                 + [len(rel.files[MANIFEST]), len(plan.journal_src) if plan.journal else 0])
        new_dirs = [d for d in _dirs_of([p for p, _ in plan.upload + plan.copy + plan.move
                                         + plan.journal] + [plan.stage_dir + "/" + MANIFEST])
                    if not _dir_exists(d, versions, have_tables, state.get("folders"))]
        need = sum(lfs_blocks(n) for n in sizes) + 2 * len(new_dirs) + _SLACK_BLOCKS
        freed = sum(lfs_blocks(n) for _, n in plan.removals)
        bsize = state["bsize"] or boards.BLOCK_SIZE
        summary["need_bytes"] = need * bsize
        if state["free"] is None:
            return
        # MicroPython's statvfs counts blocks with lfs2_fs_traverse, which visits each
        # folder's first metadata pair twice (the metadata thread, and as the folder's entry:
        # includeorphans; extmod/vfs_lfsx.c, lib/littlefs/lfs2.c v2.11): 2 blocks a folder
        # more than littlefs uses, and 4 for the 2 folders a cut-off flash created
        free = state["free"] // bsize + 2 * state.get("dirs", 0) + freed
        if need > free:
            # Short of room: the running version's table packs whose content the release
            # does not read (a box of the old layout keeps its 10- and 12-tile packs in its
            # version folder) go first. The running firmware opens a missing pack as none
            # (engine._open): if this flash is cut, those variants play with rule-of-thumb
            # hints until the next flash completes; its modules are never touched.
            gone = {s for _, s in plan.journal + plan.move + plan.copy}
            wanted = {_sha(d) for d in list(rel.files.values()) + list(rel.tables.values())}
            current = state["current"]
            running = state["versions"].get(current, {}) if current else {}
            spare = [("%s/%s/%s" % (BOARD_DIR, current, r), v[1])
                     for r, v in sorted(running.items())
                     if "tables/" in r and r.endswith(".bin") and v[0] not in wanted
                     and "%s/%s/%s" % (BOARD_DIR, current, r) not in gone]
            if spare and need <= free + sum(lfs_blocks(n) for _, n in spare):
                plan.removals += spare
                free += sum(lfs_blocks(n) for _, n in spare)
                summary["reclaimed"] = [p for p, _ in spare]
        summary["free_bytes"] = free * bsize
        if need > free:
            raise UserError("not enough room on the board: this version needs %s more, %s "
                            "free (remove your own files you no longer need)"
                            % (_kb(need * bsize), _kb(free * bsize)))

    def stage(self, plan: _Plan, want: dict) -> None:
        """Clear the stage's strays, make its folders, then move, copy and upload into it."""
        board, point = self.board, self.point
        for path, _n in plan.removals + [(plan.stage_dir + "/" + FINISH, 0)]:
            board.exec("_rm(%r)" % path)
        board.exec(_MKDIRS % ([BOARD_DIR, TABLES_DIR, plan.stage_dir]
                              + _dirs_of(want_paths(plan.stage_dir, want))))
        point(board, "staged-dirs", 0)
        for dst, src in plan.move:  # content a stale version holds: nothing reads it any more
            board.exec("os.rename(%r, %r)" % (src, dst))
        for dst, src in plan.copy:  # a file a command: each well inside mpremote's timeout
            board.exec(_COPY % (src, dst))
        point(board, "copied", 0)
        n_chunks = [0]

        def on_chunk(done, size):
            n_chunks[0] += 1
            point(None, "chunk", n_chunks[0])

        for i, (dst, data) in enumerate(plan.upload):
            self.out("  upload %s (%s)" % (_short(dst, plan.stage_dir), _kb(len(data))))
            _write(board, dst, data, on_chunk)
            point(board, "uploaded", i + 1)

    def verify(self, rel: Release, plan: _Plan, want: dict, want_tables: dict,
               current: str | None) -> None:
        """The board hashes what it holds; anything wrong is sent again, once. What the
        journal will move in must be whole where it is now. Then the journal and the
        manifest are written, and everything checked again."""
        board, stage_dir = self.board, plan.stage_dir
        journal_dst = {d for d, _ in plan.journal}
        staged = {p: h for p, h in ((stage_dir + "/" + r, h) for r, h in want.items())
                  if p not in journal_dst}
        staged.update({TABLES_DIR + "/" + n: h for n, h in want_tables.items()
                       if TABLES_DIR + "/" + n not in journal_dst})
        content = {stage_dir + "/" + r: d for r, d in rel.files.items()}
        content.update({TABLES_DIR + "/" + n: d for n, d in rel.tables.items()})
        wanted_src = {s: (want.get(d[len(stage_dir) + 1:]) or want_tables[d.rsplit("/", 1)[1]])
                      for d, s in plan.journal}
        for attempt in (1, 2):
            got = _hash_stage(board, stage_dir, list(staged) + list(wanted_src))
            bad = [p for p, h in staged.items() if got.get(p) != h and not p.endswith(MANIFEST)]
            moved_bad = [s for s, h in wanted_src.items() if got.get(s) != h]
            if moved_bad:
                raise Fail("%s changed on the board during the flash: run the flash again"
                           % moved_bad[0])
            for p in [p for p in got if p.startswith(stage_dir + "/") and p not in staged]:
                board.exec("_rm(%r)" % p)
            if not bad:
                break
            if attempt == 2:
                raise Fail("%s did not verify after writing: %s (the board still starts %s)"
                           % (plan.stage, ", ".join(_short(p, stage_dir) for p in bad[:3]),
                              current or "nothing"))
            for p in bad:
                self.out("  again %s (did not verify)" % _short(p, stage_dir))
                _write(board, p, content[p])
        if plan.journal:
            src = plan.journal_src.encode()
            board.write(stage_dir + "/" + FINISH, src)
            staged[stage_dir + "/" + FINISH] = _sha(src)
        if got.get(stage_dir + "/" + MANIFEST) != want[MANIFEST]:
            board.write(stage_dir + "/" + MANIFEST, rel.files[MANIFEST])
        got = _hash_stage(board, stage_dir, list(staged))
        if {p: got.get(p) for p in staged} != staged:
            raise Fail("%s did not verify after writing its manifest" % plan.stage)
        self.point(board, "verified", 0)

    def install_launcher(self, state: dict, launcher_ok: bool) -> None:
        """The launcher, replaced by a rename, so /main.py is always whole; a maker's own
        main.py (allowed by --force) is kept under a free name."""
        board = self.board
        main = state["main"]
        if not launcher_ok:
            launcher = LAUNCHER.encode()
            if main is not None and not main[0].startswith(LAUNCHER_MARK):
                kept = board.eval("print(repr(_free(%r)))" % MAKER_MAIN_KEPT)
                board.exec("os.rename('/main.py', %r)" % kept)
                self.out("your main.py is kept as %s" % kept)
            board.write(BOARD_DIR + "/main.tmp", launcher)
            board.exec("os.rename('/.shutbox/main.tmp', '/main.py')")
            if board.eval("print(repr(_h('/main.py')))") != _sha(launcher):
                raise Fail("the launcher /main.py did not verify")
        self.point(board, "launcher", 0)

    def switch(self, plan: _Plan, want: dict) -> None:
        """The switch: one atomic rename; then the journal moves the unchanged files in, and
        the new version must be whole."""
        board = self.board
        if board.eval(_SWITCH % plan.stage) != plan.stage:
            raise Fail("the version pointer did not verify")
        self.point(board, "switched", 0)
        if plan.journal:
            _renames(board, [(s, d) for d, s in plan.journal], plan.stage_dir + "/" + FINISH)
            self.point(board, "moved", 0)
        got = _listing(board, plan.stage_dir)
        if got != want:
            raise Fail("%s is not whole after the switch (%s): run the flash again"
                       % (plan.stage, ", ".join(sorted(set(want) ^ set(got))[:3]) or "content"))

    def clean(self, keep: str, state: dict, tables: set) -> list[str]:
        """Remove every version but *keep*, the tables it does not read, and leftovers of
        cut-off flashes (ours only)."""
        board = self.board
        removed = [v for v in state["versions"] if v != keep and _VERSION_RE.match(v)]
        for vname in removed:
            board.exec("_rm(%r)" % (BOARD_DIR + "/" + vname))
            self.point(None, "removed", 0)
        for name in state["tables"]:
            if name not in tables:
                board.exec("_rm(%r)" % (TABLES_DIR + "/" + name))
        for leftover in ("current.tmp", "main.tmp"):
            if leftover in state["other"]:
                board.exec("_rm(%r)" % (BOARD_DIR + "/" + leftover))
        return removed


def want_paths(stage_dir: str, want: dict) -> list[str]:
    return [stage_dir + "/" + r for r in want]


def _short(path: str, stage_dir: str) -> str:
    """A staged path as the user reads it: relative to the version, or the table's name."""
    if path.startswith(stage_dir + "/"):
        return path[len(stage_dir) + 1:]
    return path.rsplit("/", 1)[1]


def _size_of(path: str, versions: dict, have_tables: dict) -> int:
    """The size of a file on the board, from the state the board reported."""
    if path.startswith(TABLES_DIR + "/"):
        return have_tables[path.rsplit("/", 1)[1]][1]
    vname, _, r = path[len(BOARD_DIR) + 1:].partition("/")
    return versions[vname][r][1]


def _dir_exists(d: str, versions: dict, have_tables: dict, folders=None) -> bool:
    """Whether the board has folder *d*: one of the *folders* it reported (every folder,
    files in it or not: a cut-off flash leaves its stage's folders, some of them empty, and
    they take their blocks already), else a folder holding files it reported, or their
    parents."""
    if folders is not None:
        return d in folders
    if d in (BOARD_DIR,):
        return bool(versions or have_tables)
    if d == TABLES_DIR:
        return bool(have_tables)
    vname, _, r = d[len(BOARD_DIR) + 1:].partition("/")
    listing = versions.get(vname)
    if listing is None:
        return False
    return not r or any(k.startswith(r + "/") for k in listing)


def _write(board: Board, path: str, data: bytes, on_chunk=None) -> None:
    """Upload a file; a table goes to a .part file renamed into place when whole, so a file
    of the table store always holds its name's content."""
    if path.startswith(TABLES_DIR + "/"):
        board.write(path + ".part", data, on_chunk)
        board.exec("os.rename(%r, %r)" % (path + ".part", path))
    else:
        board.write(path, data, on_chunk)


def _hash_stage(board: Board, stage_dir: str, paths: list[str]) -> dict[str, str]:
    """{path: sha} of the stage folder's files and of the other *paths* the board holds."""
    got = {stage_dir + "/" + r: h for r, h in _listing(board, stage_dir).items()}
    others = [p for p in paths if not p.startswith(stage_dir + "/")]
    for batch in _batches(others):
        got.update(dict(board.lines(_HASH_FILES % batch)))
    return got


def _batches(names: list) -> list[list]:
    """*names* (paths) cut into lists of at most _NAMES_MAX characters, in order."""
    out: list[list] = [[]]
    size = 0
    for n in names:
        if out[-1] and size + len(n) > _NAMES_MAX:
            out.append([])
            size = 0
        out[-1].append(n)
        size += len(n) + 4
    return [b for b in out if b]


def _listing(board: Board, folder: str) -> dict[str, str]:
    """{path relative to *folder*: sha} of every file under it on the board."""
    return {t[1]: t[2] for t in board.lines(_HASH_DIR % folder)}


def _state(board: Board) -> dict:
    """What the board holds under /.shutbox (each version's and the table store's files,
    with their sha and size), its /main.py, and its filesystem's room (see _STATE)."""
    r: dict = {"current": None, "main": None, "versions": {}, "tables": {}, "other": [],
               "free": None, "bsize": None}
    listing: dict = {}
    for t in board.lines(_STATE):
        kind = t[0]
        if kind == "current":
            r["current"] = t[1]
        elif kind == "main":
            r["main"] = (t[1], t[2])
        elif kind == "dir":
            listing = {}
            where = r["tables"] if t[1] == "tables" else r["versions"]
            where[t[1]] = listing
        elif kind == "other":
            r["other"].append(t[1])
        elif kind == "fs":
            r["free"], r["bsize"] = t[1], t[2]
            r["folders"] = []
        elif kind == "dirs":
            r["dirs"] = t[1]
        elif kind == "folder":
            r["folders"].append(t[1])
        elif kind == "f":  # a file of the folder named last: its path in it, sha, size
            listing[t[1]] = [t[2], t[3]]
    r["tables"] = r["tables"].get("tables", {})
    return r


def _finish_current(board: Board) -> str | None:
    """Complete a switch that a cut-off flash made (the launcher's own step, done now): the
    renames its version's journal lists, read back from the board; return that version's
    name, or None when there was none to finish."""
    got = board.lines(_FINISH_CURRENT)
    if len(got) < 2:  # no version, or no journal: nothing to finish
        return None
    current, text = got[0], b"".join(got[1:]).decode()
    journal = "%s/%s/%s" % (BOARD_DIR, current, FINISH)
    try:
        tree = ast.parse(text)
        loop = next(n for n in ast.walk(tree) if isinstance(n, ast.For))
        pairs = ast.literal_eval(loop.iter)
        if not all(isinstance(s, str) and isinstance(d, str) for s, d in pairs):
            raise ValueError(journal)
    except (SyntaxError, ValueError, TypeError, StopIteration):
        raise Fail("%s on the board is not a journal the flash can read (damaged?): the "
                   "board starts %s as it is" % (journal, current)) from None
    _renames(board, list(pairs), journal)
    return current


def _renames(board: Board, pairs: list, journal: str) -> None:
    """A version's journal carried out by the flash: the renames (source, destination), a
    rename already done skipped; then the journal removed. Each command names a folder to
    move from, one to move to and the paths the two share (a file of the running version
    goes to the same place in the new one): a third of the bytes of whole pairs, each a
    round trip of the raw REPL's flow control."""
    groups: dict[tuple[str, str], list[str]] = {}
    for src, dst in pairs:
        a, b = src.split("/"), dst.split("/")
        k = 0  # the trailing folders and name the two share
        while k < min(len(a), len(b)) - 1 and a[-1 - k] == b[-1 - k]:
            k += 1
        groups.setdefault(("/".join(a[:len(a) - k]) + "/" * bool(k),
                           "/".join(b[:len(b) - k]) + "/" * bool(k)), []).append(
            "/".join(a[len(a) - k:]))
    for (a_dir, b_dir), names in groups.items():
        for batch in _batches(names):
            board.exec(_RENAMES % (a_dir, b_dir, batch))
    board.exec("_rm(%r)" % journal)


def configure(parser):
    """Add the flash flags."""
    parser.add_argument("--port", help="serial port of the Pico (default: find it on USB)")
    parser.add_argument("--force", action="store_true",
                        help="flash a board that is not MicroPython on rp2, or replace its "
                             "own main.py (kept as %s)" % MAKER_MAIN_KEPT)
    parser.add_argument("--dry-run", action="store_true",
                        help="show what would be copied, change nothing")
    parser.add_argument("--firmware", default=str(mp.FIRMWARE),
                        help="firmware folder to deploy (default: firmware/)")
    parser.add_argument("--no-companion", action="store_true",
                        help="a Pico W without the companion (the phones' page): the box alone")


def run(args):
    """Flash and print a short summary."""
    flash(args.port, force=args.force, dry_run=args.dry_run, firmware=Path(args.firmware),
          companion=False if args.no_companion else None)
    return 0
