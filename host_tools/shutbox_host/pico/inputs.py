# MicroPython's RPI_PICO uf2 and the RP2040 bootrom: where the tools find them, or fetch them once.
"""The two files the emulated Pico (`shutbox emu`, `shutbox web`) and `shutbox uf2` need and
the repository does not carry: MicroPython v1.28.0 for the Raspberry Pi Pico (``RPI_PICO``) and
the RP2040's B1 bootrom.

``find`` looks, in this order, at: the path given (``--uf2``, ``--bootrom``, ``make UF2=
BOOTROM=``), ``$SHUTBOX_UF2`` / ``$SHUTBOX_BOOTROM``, ``../shared/rp2040/`` beside the
repository (``$SHUTBOX_SHARED`` elsewhere), then the cache, ``$SHUTBOX_CACHE`` or
``$XDG_CACHE_HOME/shutbox`` or ``~/.cache/shutbox``, in ``rp2040/`` (a file of the name the
official source gives it, put there by hand, is found too). With *fetch* (`shutbox fetch`,
``make fetch``, and the commands that need the files, on first use) a file found nowhere is
downloaded from its official source (``$SHUTBOX_UF2_URL`` / ``$SHUTBOX_BOOTROM_URL`` name
another, e.g. a mirror), checked against its pinned SHA-256 and kept in the cache; anything
else is refused and nothing is kept. Offline, one line says what to download and where to put
it.

- The uf2: micropython.org's download of the v1.28.0 release for RPI_PICO.
- The bootrom: raspberrypi/pico-bootrom's release ``b1``, ``b1.elf``; the 16 KB ROM is the
  ELF's loadable bytes at address 0 (as rp2040js's demo takes it), the file kept.

The pinned sums are those of the files in ../shared/rp2040/ (its README: the uf2 built from
MicroPython's v1.28.0 tag; the bootrom the published B1 image). Files a user gives are not
held to the sums: they are checked as what they must be (shutbox_host.pico.uf2's check of a
MicroPython uf2 for the board, the bootrom's size and magic).
"""

from __future__ import annotations

import hashlib
import os
import struct
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from shutbox_host import mp
from shutbox_host.errors import UserError

MP_VERSION = "v1.28.0"
ROM_SIZE = 16384
_MAX_DOWNLOAD = 16 * 1024 * 1024
_TIMEOUT_S = 30


def _plain(data: bytes) -> bytes:
    return data


def rom_of_elf(data: bytes) -> bytes:
    """The 16 KB ROM image an ELF file of the bootrom loads at address 0; the data itself if
    it is no ELF (a raw image); UserError if the ELF loads nothing there."""
    if data[:4] != b"\x7fELF":
        return data
    if data[4] != 1 or data[5] != 1:
        raise UserError("the bootrom's ELF is not a 32-bit little-endian one")
    phoff, = struct.unpack_from("<I", data, 0x1C)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x2A)
    rom = bytearray(ROM_SIZE)
    loaded = 0
    for i in range(phnum):
        kind, off, _vaddr, paddr, filesz = struct.unpack_from("<5I", data, phoff + i * phentsize)
        if kind == 1 and paddr < ROM_SIZE and filesz:  # PT_LOAD into the ROM's 16 KB
            n = min(filesz, ROM_SIZE - paddr)
            rom[paddr:paddr + n] = data[off:off + n]
            loaded += n
    if not loaded:
        raise UserError("the bootrom's ELF loads nothing at address 0")
    return bytes(rom)


@dataclass(frozen=True)
class Input:
    """One of the two files."""

    kind: str  # "uf2", "bootrom": the option's name
    what: str  # in words
    name: str  # its name in ../shared/rp2040/ and in the cache
    env: str  # the variable that names it
    url: str  # the official source
    url_env: str  # the variable that names another source
    sha256: tuple[str, ...]  # the pinned sums of what is kept
    extract: object = _plain  # the file kept, from the bytes downloaded

    @property
    def official_name(self) -> str:
        return self.url.rsplit("/", 1)[1]


UF2 = Input("uf2", "MicroPython %s for the Raspberry Pi Pico (RPI_PICO)" % MP_VERSION,
            "RPI_PICO-%s.uf2" % MP_VERSION, "SHUTBOX_UF2",
            "https://micropython.org/resources/firmware/RPI_PICO-20260406-%s.uf2" % MP_VERSION,
            "SHUTBOX_UF2_URL",
            ("5da6ca3de906adff6b9126bd854883c7222faeb7ff2c935ddab73330dab9f323",))
BOOTROM = Input("bootrom", "the RP2040 bootrom (B1)", "bootrom-b1.bin", "SHUTBOX_BOOTROM",
                "https://github.com/raspberrypi/pico-bootrom/releases/download/b1/b1.elf",
                "SHUTBOX_BOOTROM_URL",
                ("90b31e108faedfa6bbcfcc33ba05dac61e645108cfbbdc385f8dafc71fde44ae",),
                rom_of_elf)
INPUTS = (UF2, BOOTROM)


def shared_dir() -> Path:
    """../shared/rp2040/ beside the repository ($SHUTBOX_SHARED: another folder)."""
    env = os.environ.get("SHUTBOX_SHARED")
    return Path(env) if env else mp.DATA.parent / "shared" / "rp2040"


def cached(inp: Input) -> Path:
    """Where the cache keeps *inp*."""
    return mp.cache_dir() / "rp2040" / inp.name


def how_to_get(inp: Input) -> str:
    """One line: what to download and where to put it."""
    return ("download %s and put it in %s/ (or give --%s PATH, or set %s)"
            % (inp.url, cached(inp).parent, inp.kind, inp.env))


def _given(inp: Input, path, source: str) -> Path:
    p = Path(path).expanduser()
    if not p.is_file():
        raise UserError("no %s at %s (%s): %s" % (inp.kind, p, source, how_to_get(inp)))
    return p


def find(inp: Input, given=None, fetch: bool = False, say=None) -> Path:
    """The path of *inp*: *given*, $ENV, ../shared/rp2040, the cache, or (*fetch*) downloaded
    into the cache; UserError (one line) when it is nowhere and cannot be had."""
    if given:
        return _given(inp, given, "--%s" % inp.kind)
    if os.environ.get(inp.env):
        return _given(inp, os.environ[inp.env], inp.env)
    shared = shared_dir() / inp.name
    if shared.is_file():
        return shared
    keep = cached(inp)
    if keep.is_file():
        return keep
    by_hand = keep.parent / inp.official_name  # downloaded by hand into the cache
    if by_hand.is_file():
        data = by_hand.read_bytes()
        if inp.extract(data) == data:
            return by_hand
        keep.write_bytes(inp.extract(data))  # the release's ELF: its ROM, kept beside it
        return keep
    if not fetch:
        raise UserError("no %s here: %s" % (inp.what, how_to_get(inp)))
    return download(inp, say=say)


def download(inp: Input, say=None) -> Path:
    """Download *inp* from its source, check it against the pinned sums and keep it in the
    cache; UserError (one line) when it cannot be had or is not the pinned file."""
    url = os.environ.get(inp.url_env) or inp.url
    say = say or (lambda msg: print("shutbox: " + msg, file=sys.stderr, flush=True))
    try:
        with urllib.request.urlopen(url, timeout=_TIMEOUT_S) as r:  # noqa: S310 (https, or
            data = r.read(_MAX_DOWNLOAD + 1)                         # a mirror one chose)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        why = ("HTTP %d %s" % (exc.code, exc.reason) if isinstance(exc, urllib.error.HTTPError)
               else getattr(exc, "reason", None) or exc)
        raise UserError("no %s here, and its download failed (%s%s): %s"
                        % (inp.what, why, "" if url == inp.url else ", from " + url,
                           how_to_get(inp))) from None
    if len(data) > _MAX_DOWNLOAD:
        raise UserError("%s is larger than %d MB: not %s" % (url, _MAX_DOWNLOAD >> 20,
                                                              inp.what))
    kept = inp.extract(data)
    digest = hashlib.sha256(kept).hexdigest()
    if digest not in inp.sha256:
        raise UserError("%s from %s has SHA-256 %s, not the pinned %s: not kept (a damaged or "
                        "another download; give a file you trust with %s)"
                        % (inp.kind, url, digest[:16], inp.sha256[0][:16], inp.env))
    dest = cached(inp)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(".%s.%d" % (dest.name, os.getpid()))
    tmp.write_bytes(kept)
    os.replace(tmp, dest)
    say("downloaded %s from %s into %s (%d bytes, SHA-256 checked)"
        % (inp.what, url, dest, len(kept)))
    return dest


def arguments(parser) -> None:
    """Add --uf2 and --bootrom (for the commands that run the emulated Pico)."""
    where = "$%s, ../shared/rp2040/, the cache %s, else downloaded once"
    parser.add_argument("--uf2", help="MicroPython %s uf2 for RPI_PICO (default: %s)"
                        % (MP_VERSION, where % (UF2.env, cached(UF2).parent)))
    parser.add_argument("--bootrom", help="the RP2040 B1 bootrom (default: %s)"
                        % where % (BOOTROM.env, cached(BOOTROM).parent))


def configure(parser):
    """Add the fetch flags."""
    parser.add_argument("--optional", action="store_true",
                        help="when a file cannot be had, say so in one line and exit 0 (make "
                             "test: the emulator's tests then skip)")


def run(args) -> int:
    """Find or fetch both files; print where each is."""
    for inp in INPUTS:
        try:
            path = find(inp, fetch=True)
        except UserError as exc:
            if not args.optional:
                raise
            print("shutbox fetch: %s" % exc, file=sys.stderr)
            continue
        print("%s: %s" % (inp.kind, path))
    return 0
