# build/web and `shutbox web`: static files that work offline, served on 127.0.0.1 only.
"""The page's folder holds what the page loads and nothing from elsewhere is fetched; the
server prints its address, serves the files and refuses bad options in one line."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from browser_skip import require_build

pytestmark = [pytest.mark.node]

require_build()

from shutbox import pins  # noqa: E402
from shutbox_host import mp  # noqa: E402
from shutbox_host.pico import emulator, inputs  # noqa: E402
from shutbox_host.web import build  # noqa: E402

SHUTBOX = [sys.executable, "-m", "shutbox_host.cli"]
# what a page loads: src= / href= attributes, CSS url(), fetch() of a literal
LOADS = r"""(?:src|href)\s*=\s*["']([^"']+)|url\(([^)]+)\)|fetch\(["']([^"']+)"""


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    return build.build(tmp_path_factory.mktemp("web") / "web")


def test_the_folder_holds_the_page_the_chip_and_the_board(out):
    names = {p.name for p in out.iterdir()}
    assert {"index.html", "style.css", "app.js", "worker.js", "box.json", "micropython.uf2",
            "bootrom.bin", "firmware.img", "LICENSES.txt"} <= names
    uf2, rom = emulator.resolve_inputs()
    assert (out / "micropython.uf2").read_bytes() == uf2.read_bytes()
    assert (out / "bootrom.bin").read_bytes() == rom.read_bytes()
    cfg = json.loads((out / "box.json").read_text())
    assert cfg["pins"]["tiles"] == [pins.TILE_PINS[k] for k in range(pins.TILES)]
    assert cfg["pins"]["roll"] == pins.ROLL_PIN and cfg["pins"]["led"] == pins.LED_PIN
    assert cfg["ledOrder"] == pins.LED_ORDER and cfg["tiles"] == pins.TILES
    # the build's id follows the uf2 and the firmware image (a saved flash belongs to one)
    want = hashlib.sha256(uf2.read_bytes() + (out / "firmware.img").read_bytes()).hexdigest()
    assert cfg["build"] == want[:16]
    # rp2040js is bundled into the worker: nothing imported at run time
    worker = (out / "worker.js").read_text()
    assert "node_modules/rp2040js/dist/esm/rp2040.js" in worker
    assert not re.search(r"^\s*import\s", worker, re.M)


def test_nothing_is_fetched_from_elsewhere(out):
    for name in ("index.html", "style.css", "app.js", "worker.js"):
        text = (out / name).read_text()
        # no script, style, font or fetch from another host: URLs only in comments and
        # rp2040js's own strings, none loaded
        for m in re.finditer(LOADS, text):
            url = next(g for g in m.groups() if g)
            assert "//" not in url, (name, url)
    html = (out / "index.html").read_text()
    for ref in re.findall(r"""(?:src|href)="([^"]+)""", html):
        assert ref.startswith("data:") or (out / ref).is_file(), ref


def test_up_to_date_is_not_rebuilt_and_a_change_is(out, tmp_path):
    stamp = (out / ".stamp").read_text()
    mtime = (out / "worker.js").stat().st_mtime_ns
    build.build(out)
    assert (out / "worker.js").stat().st_mtime_ns == mtime
    uf2, rom = emulator.resolve_inputs()
    other = tmp_path / "other.uf2"
    other.write_bytes(uf2.read_bytes())  # the same content elsewhere: the same stamp
    assert not build.needs_build(out, other, rom)
    fw = tmp_path / "fw"
    subprocess.run(["cp", "-r", str(mp.FIRMWARE), str(fw)], check=True)
    (fw / "shutbox" / "extra.txt").write_text("changed")
    assert build.needs_build(out, uf2, rom, fw)
    assert (out / ".stamp").read_text() == stamp


def test_a_rebuild_replaces_the_folder_whole_and_nothing_beside_it(out, tmp_path):
    """The folder a build made (its marker) is replaced; a sibling named like the build's
    temporary folders is not touched."""
    web = tmp_path / "site" / "web"
    sibling = tmp_path / "site" / "web.tmp"
    sibling.mkdir(parents=True)
    (sibling / "keep.txt").write_text("mine\n")
    build.build(web)
    (web / "stale.txt").write_text("from an old build\n")
    assert (web / build.MARKER).is_file()
    build.build(web, force=True)
    assert not (web / "stale.txt").exists() and (web / "box.json").is_file()
    assert (sibling / "keep.txt").read_text() == "mine\n"
    assert sorted(x.name for x in web.parent.iterdir()) == ["web", "web.tmp"]


def test_shutbox_web_serves_on_loopback_and_prints_the_address(out):
    p = subprocess.Popen([*SHUTBOX, "web", "--out", str(out), "--port", "0"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         cwd=str(mp.ROOT))
    try:
        line = p.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert m, line
        url = m.group(0)
        with urllib.request.urlopen(url, timeout=10) as r:
            assert b"app.js" in r.read()
        with urllib.request.urlopen(url + "box.json", timeout=10) as r:
            assert json.loads(r.read())["tiles"] == pins.TILES
        with urllib.request.urlopen(url + "worker.js", timeout=10) as r:
            assert r.headers["Content-Type"].startswith("text/javascript")
    finally:
        p.terminate()
        p.wait(timeout=10)
        p.stdout.close()
        p.stderr.close()


PICO_W = str(inputs.shared_dir() / "RPI_PICO_W-v1.28.0.uf2")


@pytest.mark.parametrize("args, says", [
    (["--port", "70000"], "a port is 0 to 65535"),
    (["--uf2", "/nonexistent.uf2"], "no uf2 at /nonexistent.uf2"),
    (["--uf2", PICO_W], "is MicroPython for the Pico W (RPI_PICO_W), not the Pico"),
])
def test_bad_options_are_one_line_and_exit_2(args, says, tmp_path):
    if PICO_W in args and not Path(PICO_W).is_file():
        pytest.skip("no RPI_PICO_W uf2 in ../shared/rp2040")
    p = subprocess.run([*SHUTBOX, "web", "--build-only", "--out", str(tmp_path / "w"), *args],
                       capture_output=True, text=True, cwd=str(mp.ROOT), timeout=60)
    assert p.returncode == 2, p
    assert says in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr


def test_a_port_taken_is_one_line_and_exit_2(out):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        p = subprocess.run([*SHUTBOX, "web", "--out", str(out), "--port", str(port)],
                           capture_output=True, text=True, cwd=str(mp.ROOT), timeout=60)
    assert p.returncode == 2, p
    assert "cannot serve on 127.0.0.1:%d" % port in p.stderr, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1, p.stderr
