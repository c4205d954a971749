# The emulator's inputs (shutbox_host.pico.inputs): found, or fetched once from a real HTTP server.
"""`shutbox fetch` (make fetch) against a real HTTP server on 127.0.0.1 serving the files as
their official sources name them (MicroPython's uf2, raspberrypi/pico-bootrom's b1.elf, an
ELF made here around the B1 image as the release's is, its ROM at address 0): the good files
are kept in the cache once and never fetched again, a corrupted one is refused and nothing is
kept, and offline one line says what to download and where to put it. What is found first:
the path given, the environment, ../shared/rp2040/, the cache. On a clone without
../shared/rp2040/ and offline, the emulator's tests skip by name with a one-line reason.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys

import pytest
from needs import Server, elf_of, require

from shutbox_host import mp
from shutbox_host.pico import inputs

SHUTBOX = [sys.executable, "-m", "shutbox_host.cli"]
SHARED_UF2 = inputs.shared_dir() / inputs.UF2.name
SHARED_ROM = inputs.shared_dir() / inputs.BOOTROM.name
needs_files = pytest.mark.skipif(
    not (SHARED_UF2.is_file() and SHARED_ROM.is_file()),
    reason="the pinned files are not in ../shared/rp2040/: nothing to serve")


@pytest.fixture
def served(tmp_path):
    root = tmp_path / "www"
    root.mkdir()
    srv = Server(root)
    yield root, srv
    srv.stop()


def env_for(tmp_path, **extra) -> dict:
    """A clone without ../shared/rp2040/, with an empty cache of its own."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("SHUTBOX_UF2", "SHUTBOX_BOOTROM", "SHUTBOX_UF2_URL",
                        "SHUTBOX_BOOTROM_URL", "SHUTBOX_REQUIRE_EMU")}
    env.update(SHUTBOX_SHARED=str(tmp_path / "no-shared"), SHUTBOX_CACHE=str(tmp_path / "cache"))
    env.update(extra)
    return env


def fetch(env, *args):
    return subprocess.run([*SHUTBOX, "fetch", *args], capture_output=True, text=True,
                          timeout=120, env=env, cwd=str(mp.ROOT))


def closed_port_url(name: str) -> str:
    """A URL on 127.0.0.1 where nothing listens: a machine offline."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return "http://127.0.0.1:%d/%s" % (port, name)


@needs_files
def test_fetch_downloads_checks_and_keeps_the_files_once(tmp_path, served):
    root, srv = served
    shutil.copyfile(SHARED_UF2, root / inputs.UF2.official_name)
    (root / "b1.elf").write_bytes(elf_of(SHARED_ROM.read_bytes()))
    env = env_for(tmp_path, SHUTBOX_UF2_URL=srv.url + inputs.UF2.official_name,
                  SHUTBOX_BOOTROM_URL=srv.url + "b1.elf")
    p = fetch(env)
    assert p.returncode == 0, p.stderr
    cache = tmp_path / "cache" / "rp2040"
    assert (cache / inputs.UF2.name).read_bytes() == SHARED_UF2.read_bytes()
    assert (cache / inputs.BOOTROM.name).read_bytes() == SHARED_ROM.read_bytes()
    assert len(srv.requests) == 2 and "SHA-256 checked" in p.stderr
    assert "uf2: %s" % (cache / inputs.UF2.name) in p.stdout
    again = fetch(env)
    assert again.returncode == 0 and len(srv.requests) == 2  # found in the cache
    assert again.stderr == ""


@needs_files
def test_a_corrupted_download_is_refused_and_nothing_is_kept(tmp_path, served):
    root, srv = served
    data = bytearray(SHARED_UF2.read_bytes())
    data[5000] ^= 0xFF
    (root / "bad.uf2").write_bytes(bytes(data))
    p = fetch(env_for(tmp_path, SHUTBOX_UF2_URL=srv.url + "bad.uf2"))
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert "not the pinned" in p.stderr and "Traceback" not in p.stderr
    assert not list((tmp_path / "cache").rglob("*.uf2"))
    p = fetch(env_for(tmp_path, SHUTBOX_UF2_URL=srv.url + "missing.uf2"))  # a 404
    assert p.returncode == 2 and "HTTP 404" in p.stderr, p.stderr


def test_offline_one_line_says_what_to_download_and_where(tmp_path):
    env = env_for(tmp_path, SHUTBOX_UF2_URL=closed_port_url("x.uf2"),
                  SHUTBOX_BOOTROM_URL=closed_port_url("b1.elf"))
    p = fetch(env)
    assert p.returncode == 2, p
    err = p.stderr.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert inputs.UF2.url in err and str(tmp_path / "cache" / "rp2040") in err, err
    p = fetch(env, "--optional")  # make test: says so, goes on
    assert p.returncode == 0 and len(p.stderr.strip().splitlines()) == 2, p.stderr
    assert inputs.BOOTROM.url in p.stderr


def test_what_is_found_first(tmp_path, monkeypatch):
    """The path given, then $SHUTBOX_UF2, then ../shared/rp2040/, then the cache; the
    release's ELF put in the cache by hand gives its ROM."""
    shared, cache = tmp_path / "shared", tmp_path / "cache"
    (shared).mkdir()
    (cache / "rp2040").mkdir(parents=True)
    for k in ("SHUTBOX_UF2", "SHUTBOX_BOOTROM"):
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv("SHUTBOX_SHARED", str(shared))
    monkeypatch.setenv("SHUTBOX_CACHE", str(cache))
    for name in ("given", "env"):
        (tmp_path / (name + ".uf2")).write_bytes(name.encode())
    (cache / "rp2040" / inputs.UF2.name).write_bytes(b"cached")
    assert inputs.find(inputs.UF2) == cache / "rp2040" / inputs.UF2.name
    (shared / inputs.UF2.name).write_bytes(b"shared")
    assert inputs.find(inputs.UF2) == shared / inputs.UF2.name
    monkeypatch.setenv("SHUTBOX_UF2", str(tmp_path / "env.uf2"))
    assert inputs.find(inputs.UF2) == tmp_path / "env.uf2"
    assert inputs.find(inputs.UF2, tmp_path / "given.uf2") == tmp_path / "given.uf2"
    rom = bytes(range(256)) * 64
    (cache / "rp2040" / "b1.elf").write_bytes(elf_of(rom))
    found = inputs.find(inputs.BOOTROM)
    assert found == cache / "rp2040" / inputs.BOOTROM.name and found.read_bytes() == rom


@needs_files
def test_make_passes_uf2_and_bootrom_to_the_tools(tmp_path):
    """UF2= and BOOTROM= reach every tool that needs them (exported by the Makefile)."""
    uf2, rom = tmp_path / "my.uf2", tmp_path / "my.bin"
    shutil.copyfile(SHARED_UF2, uf2)
    shutil.copyfile(SHARED_ROM, rom)
    p = subprocess.run(["make", "-s", "-C", str(mp.ROOT), "-o", ".venv/.installed", "fetch",
                        "UF2=%s" % uf2, "BOOTROM=%s" % rom], capture_output=True, text=True,
                       timeout=120, env=env_for(tmp_path))
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["uf2:", str(uf2), "bootrom:", str(rom)]


@pytest.mark.node
def test_without_shared_and_offline_the_emulator_tests_skip_by_name(tmp_path):
    """The emulator's CLI tests on a clone without ../shared/rp2040/ and offline: those that
    need the chip skip, each with one line naming what is missing; the rest pass. (With Node
    and rp2040js here: what is missing is then the uf2 and the bootrom alone.)"""
    from shutbox_host.pico import emulator

    try:
        emulator.node_exe()
    except emulator.UserError as exc:
        require(str(exc), "emulated Pico")
    env = env_for(tmp_path, SHUTBOX_UF2_URL=closed_port_url("x.uf2"),
                  SHUTBOX_BOOTROM_URL=closed_port_url("b1.elf"))
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
                        "tests/pico/test_emu_cli.py"], capture_output=True, text=True,
                       timeout=300, env=env, cwd=str(mp.ROOT))
    assert p.returncode == 0, p.stdout[-3000:]
    skips = [x for x in p.stdout.splitlines() if x.startswith("SKIPPED")]
    assert skips and all("uf2" in x for x in skips), skips
    assert any("download %s and put it in" % inputs.UF2.url in x for x in skips), skips
    assert " failed" not in p.stdout
