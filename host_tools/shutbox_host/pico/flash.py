# `shutbox flash`: put the firmware on a Raspberry Pi Pico with mpremote, atomically and safely.
"""Deploy firmware/ to a Pico running MicroPython, so that a flash cut off never bricks the box.

Layout on the board (the project owns exactly these; nothing else is ever written or removed)::

    /main.py                  a tiny launcher (first line "# shutbox launcher")
    /.shutbox/current         the name of the version the launcher starts (one line)
    /.shutbox/fw-<hash>/      one complete version: main, shutbox/..., manifest.json

A flash stages the new version in its own folder (files that the board already holds in
another version are copied on the board; only new content crosses the cable), has the board
hash every file and compares with what was meant, writes the version's manifest, then
switches by writing ``current.tmp`` and renaming it over ``current`` (littlefs renames
atomically). Cut off before that rename, the board still starts the old version and the next
flash reuses what was already staged; after it, the new one. Old versions are removed last.
The maker's own files (boot.py, lib/, data the box saved under /data, anything else) are never
touched, and a main.py that is not the launcher is only replaced with --force (it is kept as
/main_before_shutbox.py).

The board is driven with mpremote's Python API: its serial transport, raw REPL and raw-paste
mode, as `mpremote exec` uses them; files travel as base64 chunks written by the board.
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
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from shutbox import board as _board
from shutbox_host import mp
from shutbox_host.errors import UserError

PICO_VID = 0x2E8A  # Raspberry Pi's USB vendor id (MicroPython on a Pico: 2E8A:0005)
BOARD_DIR = "/.shutbox"
LAUNCHER_PATH = "/main.py"
LAUNCHER_MARK = "# shutbox launcher"
MAKER_MAIN_KEPT = "/main_before_shutbox.py"
MANIFEST = "manifest.json"
CACHE = mp.ROOT / "build" / "mpy-cache"
CONNECT_TIMEOUT = 10  # seconds to get a raw REPL (mpremote's own limit)
_ATTEMPT_S = 2  # ...asking again this often (a board mid-reset drops what it is sent)
CHUNK = 2048  # bytes per write command; the Pico compiles each one (a few KB of heap)
_VERSION_RE = re.compile(r"^fw-[0-9a-f]{10}b?$")
_KILL_ENV = "SHUTBOX_FLASH_KILL_AT"  # fault injection for the tests: "phase[:n]"

LAUNCHER = LAUNCHER_MARK + """: starts the last complete firmware (written by `shutbox flash`).
import sys
try:
    with open("/.shutbox/current") as f:
        _v = "/.shutbox/" + f.read().strip()
except OSError:
    _v = None
if _v:
    sys.path.insert(0, _v)
    import main  # the firmware's own main, from that version
else:
    print("shutbox: no firmware on this board yet: run `make flash`")
"""

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
def _walk(d, out, pre):
    for e in os.ilistdir(d):
        p = d + '/' + e[0]
        if e[1] & 0x4000:
            _walk(p, out, pre + e[0] + '/')
        else:
            out[pre + e[0]] = _h(p)
            print('.', end='')
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
"""

_IDENTIFY = """\
import sys
_i = sys.implementation
print(repr((sys.platform, _i.name, tuple(_i.version[:3]), getattr(_i, '_mpy', None),
            getattr(_i, '_machine', ''))))
"""

_STATE = """\
r = {'current': None, 'main': None, 'versions': {}, 'other': [], 'free': None}
try:
    with open('/.shutbox/current') as f:
        r['current'] = f.read().strip()
except OSError:
    pass
try:
    with open('/main.py') as f:
        r['main'] = (f.readline().rstrip(), _h('/main.py'))
except OSError:
    pass
try:
    for e in os.ilistdir('/.shutbox'):
        if e[1] & 0x4000:
            v = {}
            _walk('/.shutbox/' + e[0], v, '')
            r['versions'][e[0]] = v
        else:
            r['other'].append(e[0])
except OSError:
    pass
try:
    s = os.statvfs('/')
    r['free'] = s[0] * s[3]
except (OSError, AttributeError):
    pass
print()
print(repr(r))
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
_v = {}
_walk(%r, _v, '')
print()
print(repr(_v))
"""

_SWITCH = """\
with open('/.shutbox/current.tmp', 'w') as f:
    f.write(%r)
os.rename('/.shutbox/current.tmp', '/.shutbox/current')
with open('/.shutbox/current') as f:
    print(repr(f.read()))
"""

# The board restarts into the new version; on an RP2040 the box's mark of a reset made on
# purpose goes into the watchdog's SCRATCH3 first (shutbox.board: the box then knows the
# reset for no hang, whatever the watchdog's REASON says).
_RESET = ("import time, machine, sys\ntime.sleep_ms(100)\n"
          "if 'RP2040' in getattr(sys.implementation, '_machine', ''):\n"
          "    machine.mem32[%d] = %d\nmachine.reset()" % (_board._WATCHDOG_SCRATCH3,
                                                         _board._RESET_MARK))


class Fail(UserError):
    """A flash that stopped part way (the board still starts the version it had)."""


def _kill_point(phase, n=0):
    """Fault injection for the tests: SIGKILL ourselves at the named point of a flash."""
    want = os.environ.get(_KILL_ENV)
    if not want:
        return
    name, _, count = want.partition(":")
    if name == phase and int(count or 0) == n:
        sys.stdout.flush()
        os.kill(os.getpid(), 9)


# ---- the host side --------------------------------------------------------------------


mpy_cross_exe = mp.mpy_cross_exe  # None when there is none: the source goes to the board


def mpy_cross_version(exe: str) -> tuple[int, int] | None:
    """Return the (version, sub-version) of the .mpy files *exe* emits, or None."""
    try:
        out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"mpy v(\d+)\.(\d+)", out.stdout + out.stderr)
    return (int(m.group(1)), int(m.group(2))) if m else None


def board_mpy_version(mpy: int | None) -> tuple[int, int] | None:
    """Decode sys.implementation._mpy: (bytecode version, sub-version)."""
    if mpy is None:
        return None
    return (mpy & 0xFF, (mpy >> 8) & 3)


def firmware_sources(firmware: Path) -> list[tuple[str, Path]]:
    """The files that make up the firmware: main.py and the shutbox package (relative paths)."""
    main = firmware / "main.py"
    pkg = firmware / "shutbox"
    if not main.is_file() or not pkg.is_dir():
        raise UserError("%s has no main.py and shutbox/: not the firmware folder" % firmware)
    files = [("main.py", main)]
    for p in sorted(pkg.rglob("*")):
        rel = p.relative_to(firmware)
        if (p.is_file() and "__pycache__" not in rel.parts
                and not any(part.startswith(".") for part in rel.parts)
                and p.suffix not in (".pyc", ".pyi")):
            files.append((rel.as_posix(), p))
    return files


def _compile(exe: str, tag: str, rel: str, src: Path) -> bytes:
    """Compile one module with mpy-cross, through a cache keyed by its content."""
    data = src.read_bytes()
    flags = " ".join(mp.MPY_FLAGS)
    key = hashlib.sha256(tag.encode() + b"\0" + flags.encode() + b"\0" + rel.encode() + b"\0"
                         + data).hexdigest()
    cached = CACHE / (key + ".mpy")
    if cached.exists():
        os.utime(cached)  # recently used: kept by _prune_cache
        return cached.read_bytes()
    CACHE.mkdir(parents=True, exist_ok=True)
    tmp = CACHE / ("%s.%d.tmp" % (key, os.getpid()))
    proc = subprocess.run([exe, *mp.MPY_FLAGS, "-o", str(tmp), "-s", rel, str(src)],
                          capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        tmp.unlink(missing_ok=True)
        msg = (proc.stderr or proc.stdout).strip().splitlines()
        raise UserError("mpy-cross failed on %s: %s" % (rel, msg[-1] if msg else "?"))
    os.replace(tmp, cached)
    return cached.read_bytes()


def build(firmware: Path, compile_mpy: bool, exe: str | None = None,
          tag: str = "") -> dict[str, bytes]:
    """Return {board path relative to the version folder: content} for the whole firmware."""
    sources = firmware_sources(firmware)
    out: dict[str, bytes] = {}
    todo = []
    for rel, path in sources:
        if compile_mpy and rel.endswith(".py"):
            todo.append((rel, path))
        else:
            out[rel] = path.read_bytes()
    if todo:
        with ThreadPoolExecutor(max_workers=4) as pool:
            results = pool.map(lambda rp: _compile(exe, tag, rp[0], rp[1]), todo)
            for (rel, _), data in zip(todo, results, strict=True):
                out[rel[:-3] + ".mpy"] = data
        _prune_cache()
    return dict(sorted(out.items()))


def firmware_files(firmware: Path, mpy: int | None) -> tuple[dict[str, bytes], str, str]:
    """Return (files, format, how) for a board reporting sys.implementation._mpy == *mpy*:
    .mpy bytecode if mpy-cross emits the board's version, else the source."""
    exe = mpy_cross_exe()
    cross = mpy_cross_version(exe) if exe else None
    wanted = board_mpy_version(mpy)
    if cross is not None and cross == wanted:
        fmt = "mpy v%d.%d" % cross
        return build(firmware, True, exe, fmt), fmt, ".mpy bytecode (%s)" % fmt[4:]
    if cross is None:
        why = "mpy-cross not found"
    elif wanted is None:
        why = "the board does not report its bytecode version"
    else:
        why = "the board runs mpy v%d.%d, mpy-cross emits v%d.%d" % (wanted + cross)
    how = ".py source (%s; set MPY_CROSS to a matching mpy-cross for faster start-up)" % why
    return build(firmware, False), "py", how


def _prune_cache(days: float = 14) -> None:
    """Forget compiled modules nobody used for *days* (old versions of edited files)."""
    limit = time.time() - days * 86400
    for p in CACHE.glob("*.mpy"):
        with contextlib.suppress(OSError):
            if p.stat().st_mtime < limit:
                p.unlink()


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def manifest_for(files: dict[str, bytes], fmt: str) -> tuple[str, bytes]:
    """Return (version name, manifest.json content) for a set of files."""
    listing = {rel: [len(data), _sha(data)] for rel, data in files.items()}
    digest = _sha(json.dumps([fmt, listing], sort_keys=True).encode())
    name = "fw-" + digest[:10]
    doc = {"version": name, "format": fmt, "files": listing,
           "owned": [LAUNCHER_PATH, BOARD_DIR + "/"], "tool": "shutbox flash"}
    return name, (json.dumps(doc, indent=0, sort_keys=True) + "\n").encode()


def find_port() -> str:
    """Return the serial port of the one Pico running MicroPython on USB."""
    import serial.tools.list_ports

    found = [p.device for p in serial.tools.list_ports.comports() if p.vid == PICO_VID]
    if not found:
        raise UserError("no Pico found on USB (vendor 2E8A): plug it in with a data cable, "
                        "install MicroPython first (README: Flashing a Pico), or name its "
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
        """Hard reset (as `mpremote reset`): the board starts main.py."""
        try:
            self.t.exec_raw_no_follow(_RESET)
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


def flash(port: str | None = None, force: bool = False, dry_run: bool = False,
          firmware: Path = mp.FIRMWARE, out=print) -> dict:
    """Flash the firmware; return a summary dict (what was copied, the figures)."""
    t0 = time.monotonic()
    port = port or find_port()
    board = Board(port)
    try:
        return _flash(board, port, force, dry_run, Path(firmware), out, t0)
    finally:
        board.close()


def _flash(board: Board, port, force, dry_run, firmware, out, t0) -> dict:
    platform, name, version, mpy, machine = board.eval(_IDENTIFY)
    vtext = "v%s" % ".".join(str(x) for x in version)
    if name != "micropython" or platform != "rp2":
        what = "%s %s on %s" % (name, vtext, platform)
        if not force:
            raise UserError("the board on %s runs %s, not MicroPython on a Raspberry Pi Pico "
                            "(rp2); use --force to flash it anyway" % (port, what))
        out("warning: flashing %s (--force)" % what)
    board.exec(_BOARD_HELPERS)

    files, fmt, how = firmware_files(firmware, mpy)
    target, manifest = manifest_for(files, fmt)
    files[MANIFEST] = manifest
    total = sum(len(d) for d in files.values())
    out("%s: MicroPython %s on %s (%s)" % (port, vtext, platform, machine or "?"))
    out("firmware %s: %d files, %s as %s" % (target, len(files), _kb(total), how))

    state = board.eval(_STATE)
    current = state["current"]
    versions = state["versions"]
    main = state["main"]
    launcher = LAUNCHER.encode()
    main_is_ours = main is not None and main[0].startswith(LAUNCHER_MARK)
    if main is not None and not main_is_ours and not force:
        raise UserError("the board has its own /main.py (not the shutbox launcher); move it "
                        "away or use --force (it is then kept as %s)" % MAKER_MAIN_KEPT)
    launcher_ok = main is not None and main[1] == _sha(launcher)
    want = {rel: _sha(data) for rel, data in files.items()}

    summary = {"port": port, "version": target, "previous": current, "format": fmt,
               "files": len(files), "deployed_bytes": total + len(launcher),
               "uploaded": 0, "uploaded_bytes": 0, "copied": 0, "kept": 0}
    up_to_date = (current in (target, target + "b") and versions.get(current) == want
                  and launcher_ok)
    if up_to_date:
        out("the board already runs %s: nothing to copy" % current)
        summary["kept"] = len(files)
        if not dry_run:
            summary["removed"] = _clean(board, current, versions, state["other"])
        board.reset()
        summary["seconds"] = time.monotonic() - t0
        out("board reset: the box starts (%.1f s)" % summary["seconds"])
        return summary

    # Stage in a folder the launcher is not using (a damaged current version is rebuilt aside).
    stage = target if current != target else target + "b"
    stage_dir = BOARD_DIR + "/" + stage
    have = versions.get(stage, {})
    by_hash: dict[str, str] = {}
    for vname, listing in versions.items():
        if _VERSION_RE.match(vname) and vname != stage:
            for rel, h in listing.items():
                by_hash.setdefault(h, "%s/%s/%s" % (BOARD_DIR, vname, rel))
    keep, copy, upload = [], [], []
    for rel, h in want.items():
        if rel == MANIFEST:
            continue  # written last: a complete version has it
        if have.get(rel) == h:
            keep.append(rel)
        elif h in by_hash:
            copy.append(rel)
        else:
            upload.append(rel)
    stray = [rel for rel in have if rel not in want]
    need = sum(len(files[r]) + 4096 for r in upload + copy)  # littlefs: 4 KB blocks
    summary.update(uploaded=len(upload), uploaded_bytes=sum(len(files[r]) for r in upload),
                   copied=len(copy), kept=len(keep))
    if state["free"] is not None and need + 8192 > state["free"]:
        raise UserError("not enough room on the board: this version needs %s more, %s free "
                        "(remove your own files you no longer need)"
                        % (_kb(need + 8192), _kb(state["free"])))
    out("%s: upload %d files (%s), copy %d on the board, keep %d already staged"
        % ("plan" if dry_run else "staging " + stage, len(upload),
           _kb(summary["uploaded_bytes"]), len(copy), len(keep)))
    if dry_run:
        for rel in upload:
            out("  would upload %s (%s)" % (rel, _kb(len(files[rel]))))
        board.reset()
        summary["seconds"] = time.monotonic() - t0
        return summary

    for rel in stray:
        board.exec("_rm(%r)" % (stage_dir + "/" + rel))
    dirs = sorted({stage_dir + "/" + "/".join(rel.split("/")[:i])
                   for rel in want for i in range(1, rel.count("/") + 1)})
    board.exec(_MKDIRS % ([BOARD_DIR, stage_dir] + dirs))
    _kill_point("staged-dirs")
    for rel in copy:  # one file per command: each finishes well inside mpremote's timeout
        board.exec(_COPY % (by_hash[want[rel]], stage_dir + "/" + rel))
    _kill_point("copied")
    n_chunks = [0]

    def on_chunk(done, size):
        n_chunks[0] += 1
        _kill_point("chunk", n_chunks[0])

    for i, rel in enumerate(upload):
        out("  upload %s (%s)" % (rel, _kb(len(files[rel]))))
        board.write(stage_dir + "/" + rel, files[rel], on_chunk)
        _kill_point("uploaded", i + 1)

    # Verify: the board hashes what it holds; anything wrong is sent again, once.
    for attempt in (1, 2):
        got = board.eval(_HASH_DIR % stage_dir)
        bad = [rel for rel in want if rel != MANIFEST and got.get(rel) != want[rel]]
        extra = [rel for rel in got if rel not in want]
        for rel in extra:
            board.exec("_rm(%r)" % (stage_dir + "/" + rel))
        if not bad:
            break
        if attempt == 2:
            raise Fail("%s did not verify after writing: %s (the board still starts %s)"
                       % (stage, ", ".join(bad[:3]), current or "nothing"))
        for rel in bad:
            out("  again %s (did not verify)" % rel)
            board.write(stage_dir + "/" + rel, files[rel])
    if got.get(MANIFEST) != want[MANIFEST]:
        board.write(stage_dir + "/" + MANIFEST, manifest)
    got = board.eval(_HASH_DIR % stage_dir)
    if got != want:
        raise Fail("%s did not verify after writing its manifest" % stage)
    _kill_point("verified")

    # The launcher: replaced by a rename, so /main.py is always whole.
    if not launcher_ok:
        if main is not None and not main_is_ours:
            kept = board.eval("print(repr(_free(%r)))" % MAKER_MAIN_KEPT)
            board.exec("os.rename('/main.py', %r)" % kept)
            out("your main.py is kept as %s" % kept)
        board.write(BOARD_DIR + "/main.tmp", launcher)
        board.exec("os.rename('/.shutbox/main.tmp', '/main.py')")
        if board.eval("print(repr(_h('/main.py')))") != _sha(launcher):
            raise Fail("the launcher /main.py did not verify")
    _kill_point("launcher")

    # The switch: one atomic rename.
    if board.eval(_SWITCH % stage) != stage:
        raise Fail("the version pointer did not verify")
    _kill_point("switched")
    summary["removed"] = _clean(board, stage, versions, state["other"])
    board.reset()
    summary["seconds"] = time.monotonic() - t0
    out("switched to %s%s; verified %d files; board reset: the box starts (%.1f s)"
        % (stage, " from " + current if current else "", len(files), summary["seconds"]))
    return summary


def _clean(board: Board, keep: str, versions: dict, other: list) -> list[str]:
    """Remove every version but *keep*, and leftovers of cut-off flashes (ours only)."""
    removed = [v for v in versions if v != keep and _VERSION_RE.match(v)]
    for vname in removed:
        board.exec("_rm(%r)" % (BOARD_DIR + "/" + vname))
        _kill_point("removed")
    for leftover in ("current.tmp", "main.tmp"):
        if leftover in other:
            board.exec("_rm(%r)" % (BOARD_DIR + "/" + leftover))
    return removed


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


def run(args):
    """Flash and print a short summary."""
    flash(args.port, force=args.force, dry_run=args.dry_run, firmware=Path(args.firmware))
    return 0
