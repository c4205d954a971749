# Builds build/web/: the page, its worker bundled with rp2040js, MicroPython, bootrom, firmware.
"""The static files of the box in a web page (``make web``, ``shutbox web``).

``build()`` writes ``build/web/``:

- ``index.html``, ``style.css``, ``words.js``, ``app.js``: the page (``web/static/``),
  copied;
- ``worker.js``: ``web/static/worker.js`` with ``pico/js/pico.js`` and rp2040js bundled in by
  esbuild (pinned in package.json; ``make node`` installs it with npm ci), one classic script;
- ``micropython.uf2`` and ``bootrom.bin``: MicroPython's RPI_PICO build and the RP2040 bootrom,
  copied from where ``shutbox emu`` finds them (``--uf2``/``--bootrom``, ``$SHUTBOX_UF2``/
  ``$SHUTBOX_BOOTROM``, ``../shared/rp2040/``): inputs, never in the repository;
- ``firmware.img``: the littlefs image of a Pico flashed with ``firmware/``
  (shutbox_host.pico.fsimage, as `shutbox flash` leaves it);
- ``box.json``: what the page needs to know of the board: the GPIOs of hardware/pinmap.json
  (through the generated shutbox.pins), the LED chain's byte order, the palette at each
  brightness (shutbox.board's, read by shutbox_host.box.boxsim), the build's id (the
  saved flash in a browser belongs to one uf2 and firmware image), the power-up screen of
  every tile mask, the shortest press the page makes of a click, a tap or a key (the
  firmware's, shutbox.debounce's _PRESS_MS through script.PRESS_MS), and the words of
  shutbox_host.model.words (what the page says);
- ``LICENSES.txt``: the notices of what the folder carries from elsewhere.

Nothing is fetched at run time from anywhere but this folder: it works offline. A stamp of
every input (``.stamp``) makes ``needs_build()`` cheap: ``shutbox web`` rebuilds only when a
source, the firmware, the uf2 or the bootrom changed.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from shutbox_host import mp
from shutbox_host.errors import UserError

STATIC = Path(__file__).resolve().parent / "static"
PICO_JS = Path(__file__).resolve().parents[1] / "pico" / "js" / "pico.js"
WORDS = Path(__file__).resolve().parents[1] / "model" / "words.py"  # box.json's words
OUT = mp.BUILD / "web"
COPIED = ("index.html", "style.css", "words.js", "app.js")
FILES = {"uf2": "micropython.uf2", "bootrom": "bootrom.bin", "fs": "firmware.img",
         "worker": "worker.js"}
FLASH_SIZE = 2 * 1024 * 1024
MARKER = ".shutbox-web"  # in every folder a build made: only such a folder is replaced


def _node_modules() -> Path:
    return Path(os.environ.get("SHUTBOX_NODE_MODULES") or mp.ROOT / "node_modules")


def esbuild_cmd() -> list[str]:
    """Return the esbuild command (npm's, pinned); UserError when it is not installed."""
    mods = _node_modules()
    exe = mods / ".bin" / "esbuild"
    if exe.is_file() and os.access(exe, os.X_OK):
        return [str(exe)]
    script = mods / "esbuild" / "bin" / "esbuild"
    node = shutil.which("node") or shutil.which("nodejs")
    if script.is_file() and node:
        return [node, str(script)]
    raise UserError("esbuild is not installed (no %s): %s" % (exe, mp.NPM_HOW))


def _rp2040js() -> Path:
    p = _node_modules() / "rp2040js"
    if not (p / "package.json").is_file():
        raise UserError("rp2040js is not installed (no %s): %s" % (p, mp.NPM_HOW))
    return p


def _firmware_files(firmware: Path) -> list[Path]:
    return sorted(p for p in firmware.rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc")


def stamp(uf2: Path, bootrom: Path, firmware: Path = mp.FIRMWARE) -> str:
    """Return a hash of every input of the build: change one and the folder is rebuilt."""
    h = hashlib.sha256()
    sources = [STATIC / n for n in (*COPIED, "worker.js")] + [PICO_JS, WORDS]
    sources += [mp.ROOT / "package-lock.json", Path(__file__)]
    for p in sources + _firmware_files(firmware):
        h.update(str(p.relative_to(mp.ROOT) if p.is_relative_to(mp.ROOT) else p).encode())
        h.update(p.read_bytes() if p.is_file() else b"-")
    for p in (uf2, bootrom):
        h.update(Path(p).read_bytes())
    return h.hexdigest()


def needs_build(out: Path, uf2: Path, bootrom: Path, firmware: Path = mp.FIRMWARE) -> bool:
    """True when *out* is missing or was built from other inputs."""
    s = out / ".stamp"
    return not s.is_file() or s.read_text().strip() != stamp(uf2, bootrom, firmware)


def config(fs_image: bytes, uf2: bytes) -> dict:
    """Return box.json: the board as the page drives it."""
    from shutbox import pins, powerup
    from shutbox.frame import NAMES
    from shutbox_host.model import words
    from shutbox_host.model.leds import palette
    from shutbox_host.model.script import PRESS_MS
    from shutbox_host.pico import fsimage

    palettes = [list(palette("RGB", level)) for level in range(3)]
    build_id = hashlib.sha256(uf2 + fs_image).hexdigest()[:16]
    return {
        "build": build_id,
        "tiles": pins.TILES,
        "pips": 7,
        "pins": {"tiles": [pins.TILE_PINS[k] for k in range(pins.TILES)], "roll": pins.ROLL_PIN,
                 "led": pins.LED_PIN, "buzzer": pins.BUZZER_PIN, "active": pins.SWITCH_ACTIVE},
        "ledOrder": pins.LED_ORDER,
        "names": NAMES.decode(),
        "palettes": palettes,  # RGB, 3 bytes per palette code, at brightness low, medium, high
        "fullScale": max(max(p) for p in palettes),
        "fsOffset": fsimage.FS_OFFSET,
        "pressMs": PRESS_MS,  # each level of Roll stays this long on the pin, at least
        "flashSize": FLASH_SIZE,
        "files": dict(FILES),
        # the power-up screen the switches ask for with Roll held, for every tile mask (bit
        # set: the tile up): shutbox.powerup.combination, as the firmware decides
        "powerOn": [powerup.combination(m, True, pins.TILES) for m in range(1 << pins.TILES)],
        "words": words.vocabulary(),  # the terminal's words (words.js reads them)
    }


def ours(out: Path) -> bool:
    """Whether the folder *out* is one a build made: it holds MARKER (or, built before the
    marker, the stamp of a build beside box.json and worker.js)."""
    if (out / MARKER).is_file():
        return True
    stamp_file = out / ".stamp"
    return (stamp_file.is_file() and (out / "box.json").is_file()
            and (out / FILES["worker"]).is_file()
            and re.fullmatch(r"[0-9a-f]{64}\n?", stamp_file.read_text(errors="replace"))
            is not None)


def check_out(out: Path) -> None:
    """UserError (one line) unless *out* can be the page's folder: new, empty, or one this
    module built (it holds MARKER). A build replaces the folder whole, so a folder of anything
    else is refused: no command deletes what it did not create."""
    if out.exists() and not out.is_dir():
        raise UserError("--out %s is a file, not a folder: give a folder for the page" % out)
    if out.is_dir() and not ours(out) and any(out.iterdir()):
        raise UserError("--out %s holds files that `shutbox web` did not make: give a new or "
                        "empty folder (a build replaces its folder whole)" % out)


def build(out: Path = OUT, uf2=None, bootrom=None, firmware: Path = mp.FIRMWARE,
          force: bool = False, log=None, fetch: bool = False) -> Path:
    """Write the page's folder *out* (when its inputs changed, or *force*); return it. *fetch*:
    download the uf2 or the bootrom when they are nowhere here (shutbox_host.pico.inputs)."""
    from shutbox_host.pico import emulator

    out = Path(out)
    check_out(out)
    uf2_path, rom_path = emulator.resolve_inputs(uf2, bootrom, fetch=fetch, pico=True)
    if not force and not needs_build(out, uf2_path, rom_path, firmware):
        return out
    cmd = esbuild_cmd()
    rp2040js = _rp2040js()
    say = log or (lambda msg: None)
    say("building %s" % out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="." + out.name + ".new-", dir=out.parent))
    try:
        _write(tmp, cmd, rp2040js, uf2_path, rom_path, firmware)
        old = None
        if out.exists():  # ours (check_out): moved aside, then deleted
            old = Path(tempfile.mkdtemp(prefix="." + out.name + ".old-", dir=out.parent))
            out.rename(old / out.name)
        tmp.rename(out)
        if old is not None:
            shutil.rmtree(old)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    say("built %s (%d files)" % (out, len(list(out.iterdir()))))
    return out


def _write(tmp: Path, cmd: list[str], rp2040js: Path, uf2_path: Path, rom_path: Path,
           firmware: Path) -> None:
    """Write the page's files into the new folder *tmp*."""
    from shutbox_host.pico import emulator, fsimage

    (tmp / MARKER).write_text("built by `shutbox web` (shutbox_host.web.build): the next build "
                              "replaces this folder whole\n")
    for name in COPIED:
        shutil.copyfile(STATIC / name, tmp / name)
    p = subprocess.run([*cmd, str(STATIC / "worker.js"), "--bundle", "--format=iife",
                        "--target=es2020", "--legal-comments=inline", "--log-level=warning",
                        "--outfile=" + str(tmp / FILES["worker"])],
                       capture_output=True, text=True, cwd=str(mp.ROOT),
                       env={**os.environ, "NODE_PATH": str(_node_modules())}, **mp.tied())
    if p.returncode:
        raise UserError("esbuild failed: %s" % (p.stderr.strip() or p.stdout.strip()))
    uf2_bytes = uf2_path.read_bytes()
    fs_image = fsimage.build(Path(firmware))
    emulator.check_pins(fs_image)
    shutil.copyfile(uf2_path, tmp / FILES["uf2"])
    shutil.copyfile(rom_path, tmp / FILES["bootrom"])
    (tmp / FILES["fs"]).write_bytes(fs_image)
    (tmp / "box.json").write_text(json.dumps(config(fs_image, uf2_bytes), indent=1) + "\n")
    (tmp / "LICENSES.txt").write_text(_licenses(rp2040js))
    (tmp / ".stamp").write_text(stamp(uf2_path, rom_path, firmware) + "\n")


def _licenses(rp2040js: Path) -> str:
    lic = (rp2040js / "LICENSE").read_text() if (rp2040js / "LICENSE").is_file() else ""
    version = json.loads((rp2040js / "package.json").read_text()).get("version", "?")
    return (
        "This folder was built by `shutbox web` from the shutbox repository (MIT).\n\n"
        "worker.js bundles rp2040js %s (https://github.com/wokwi/rp2040js):\n\n%s\n\n"
        "micropython.uf2: MicroPython for the Raspberry Pi Pico (RPI_PICO), MIT license, "
        "https://micropython.org\n"
        "bootrom.bin: the RP2040 bootrom (B1), BSD-3-Clause, Raspberry Pi Ltd, "
        "https://github.com/raspberrypi/pico-bootrom\n" % (version, lic.strip()))
