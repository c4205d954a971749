# What a test needs that a machine may lack: skip it by name, or fail on CI; a file server.
"""``require(why, what)``: skip the calling test (or module) with one line saying what is
missing, or fail where SHUTBOX_REQUIRE_EMU=1 (.ci/run: CI never skips); ``pico_w()``: the
skip markers of the Pico W's build on the emulated chip. ``Server``: files
served from a folder on 127.0.0.1, the requests counted, and ``elf_of``: the bootrom as its
release ships it (the downloads' tests)."""

from __future__ import annotations

import functools
import http.server
import os
import struct
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _asking() -> str:
    """The test module (or test) that asked: the first test_*.py frame up the stack."""
    frame = sys._getframe(2)
    while frame is not None:
        name = Path(frame.f_code.co_filename)
        if name.name.startswith("test_"):
            where = name.relative_to(ROOT) if name.is_relative_to(ROOT) else name
            return "%s%s" % (where, "" if frame.f_code.co_name == "<module>" else
                             "::" + frame.f_code.co_name)
        frame = frame.f_back
    return "a test"


def pico_w() -> list:
    """The markers of a module that runs the Pico W's build on the emulated chip: skipped
    (with one line saying why) without the emulator or without the RPI_PICO_W uf2."""
    from shutbox_host.pico import emulator

    why = emulator.missing()
    return [pytest.mark.skipif(why is not None, reason=str(why)),
            pytest.mark.skipif(emulator.picow_uf2() is None,
                               reason="no RPI_PICO_W uf2 (../shared/rp2040/ or "
                                      "$SHUTBOX_UF2_PICO_W)")]


def require(why: str | None, what: str) -> None:
    """Nothing when *why* is None; else skip (or fail on CI) saying which test module or
    test, "*what*: *why*", in one line."""
    if why is None:
        return
    if os.environ.get("SHUTBOX_REQUIRE_EMU") == "1":
        pytest.fail("%s: %s cannot run: %s" % (_asking(), what, why), pytrace=False)
    pytest.skip("%s: %s: %s" % (_asking(), what, why), allow_module_level=True)


class Server:
    """Files served on 127.0.0.1 from *root*, the paths requested kept in ``requests``."""

    def __init__(self, root: Path):
        self.requests: list[str] = []
        outer = self

        class Handler(http.server.SimpleHTTPRequestHandler):
            def log_message(self, *args):
                outer.requests.append(self.path)

        self.srv = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(Handler, directory=str(root)))
        self.url = "http://127.0.0.1:%d/" % self.srv.server_address[1]
        self.thread = threading.Thread(target=self.srv.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.srv.shutdown()
        self.srv.server_close()
        self.thread.join(5)


def elf_of(rom: bytes) -> bytes:
    """An ELF32 (ARM, little-endian) loading *rom* at address 0 from file offset 0x10000, as
    raspberrypi/pico-bootrom's b1.elf does."""
    phoff, off = 52, 0x10000
    head = b"\x7fELF" + bytes([1, 1, 1]) + bytes(9)
    head += struct.pack("<HHIIIIIHHHHHH", 2, 40, 1, 0, phoff, 0, 0, 52, 32, 1, 40, 0, 0)
    ph = struct.pack("<8I", 1, off, 0, 0, len(rom), len(rom), 5, 4)
    return (head + ph).ljust(off, b"\0") + rom
