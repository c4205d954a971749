# `shutbox uf2`: the one-file bundle, checked against MicroPython's own uf2 files and booted.
"""The boards table, the bundle's layout for every board, its boot on the emulated RP2040, and
every bad input (one line, exit 2, nothing written).

The boards table (shutbox_host.model.boards) is checked against MicroPython v1.28.0's own board
configuration as its uf2 files carry it: pico-sdk's binary info (``bi_block_device``, declared
in ports/rp2/rp2_flash.c from ``MICROPY_HW_FLASH_STORAGE_BASE`` = ``PICO_FLASH_SIZE_BYTES``
(pico-sdk src/boards/include/boards/{pico,pico_w,pico2,pico2_w}.h) -
``MICROPY_HW_FLASH_STORAGE_BYTES`` (ports/rp2/boards/<BOARD>/mpconfigboard.h); the program
name and ``PICO_BOARD``), the ``MICROPY_HW_BOARD_NAME`` + " with " + ``MICROPY_HW_MCU_NAME``
string that becomes ``sys.implementation._machine``, the family ids of the blocks and the
firmware's address range (README of ../shared/rp2040). The littlefs geometry is the
superblock's own (read back with block_count 0: littlefs takes it from the image), the
version MicroPython v1.28.0's lib/littlefs/lfs2.h writes (LFS2_DISK_VERSION 0x00020001), and
the emulated Pico and Pico W (their real MicroPython) mount the bundled image with
ports/rp2/modules/_boot.py's VfsLfs2(bdev, progsize=256) and report its size in statvfs.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from shutbox_host import mp
from shutbox_host.model import boards, layout
from shutbox_host.pico import flash, fsimage, uf2

SHUTBOX = [sys.executable, "-m", "shutbox_host.cli"]
HAVE = {b.name: uf2.default_micropython(b) for b in boards.BOARDS
        if uf2.default_micropython(b).is_file()}
# The README of ../shared/rp2040: where MicroPython's firmware ends in each uf2.
FIRMWARE_END = {"RPI_PICO": 0x10052F00, "RPI_PICO_W": 0x100D6400, "RPI_PICO2": 0x10050B00,
                "RPI_PICO2_W": 0x100D1F00}
needs_uf2 = pytest.mark.skipif(len(HAVE) < 4, reason="MicroPython's uf2 files are not in "
                               "../shared/rp2040 (see docs/flashing.md)")


def _cli(*args, cwd=None):
    return subprocess.run([*SHUTBOX, "uf2", *args], capture_output=True, text=True, timeout=120,
                          cwd=cwd)


@pytest.fixture(scope="module")
def bundles(tmp_path_factory):
    """The bundle of every board whose MicroPython uf2 is here: {board: (path, summary)}."""
    out = {}
    where = tmp_path_factory.mktemp("bundles")
    for name, src in HAVE.items():
        dest = where / ("shutbox-%s.uf2" % name)
        said: list[str] = []
        out[name] = (dest, uf2.build(boards.BY_NAME[name], src, output=dest, out=said.append))
        SAID[name] = said
    return out


SAID: dict[str, list[str]] = {}  # what shutbox uf2 printed for each board's bundle


@needs_uf2
def test_it_names_the_drive_the_board_shows(bundles):
    """The RP2040's bootrom shows a drive called RPI-RP2, the RP2350's one called RP2350."""
    for name in bundles:
        drive = "RP2350" if name.startswith("RPI_PICO2") else "RPI-RP2"
        assert "onto the %s drive" % drive in SAID[name][-1], SAID[name]


@needs_uf2
@pytest.mark.parametrize("board", [b.name for b in boards.BOARDS])
def test_the_boards_table_is_micropythons_own_configuration(board):
    b = boards.BY_NAME[board]
    blocks = uf2.parse(HAVE[board].read_bytes())
    fams = sorted({x.family for x in blocks})
    assert fams == sorted(b.families)  # RP2350: its family and the E10 absolute block
    main = [x for x in blocks if x.family == b.family]
    base, img = uf2.image(main)
    assert (base, base + len(img)) == (boards.XIP_BASE, FIRMWARE_END[board])
    info = uf2.binary_info(base, img)
    assert info["program"] == "MicroPython" and info["version"] == uf2.MP_VERSION
    assert info["board"] == b.sdk_board
    assert [(a, n) for label, a, n in info["block_devices"] if label == "MicroPython"] == [
        (b.fs_addr, b.fs_bytes)]
    assert b.fs_addr + b.fs_bytes == boards.XIP_BASE + b.flash_bytes  # it runs to the end
    assert b.machine.encode() in img and b.name.encode() in img  # _machine, _build
    if b.chip == "RP2350":
        (e10,) = [x for x in blocks if x.family == boards.ABSOLUTE_FAMILY]
        assert e10.addr == boards.E10_BLOCK_ADDR


@needs_uf2
@pytest.mark.parametrize("board", [b.name for b in boards.BOARDS])
def test_the_bundle_is_micropython_then_the_filesystem_for_every_board(bundles, board):
    b = boards.BY_NAME[board]
    path, summary = bundles[board]
    data = path.read_bytes()
    blocks = uf2.parse(data)
    original = uf2.parse(HAVE[board].read_bytes())
    extra = [x for x in blocks if x.family != b.family]
    main = [x for x in blocks if x.family == b.family]
    # MicroPython's own blocks, unchanged but for their numbering; its extra block as it was
    assert [x.raw for x in extra] == [x.raw for x in original if x.family != b.family]
    mp_blocks = [x for x in original if x.family == b.family]
    assert [x.data for x in main[:len(mp_blocks)]] == [x.data for x in mp_blocks]
    assert all(x.family == b.family and x.size == 256 for x in main)
    # one download, numbered 0..N-1 of N
    assert [x.block_no for x in main] == list(range(len(main)))
    assert {x.num_blocks for x in main} == {len(main)}
    # the RP2040 bootrom erases the sector of the first block of each group of 16 block
    # numbers (pico-bootrom-rp2040 bootrom/virtual_disk.c): each group is in one sector
    groups: dict = {}
    for x in main:
        groups.setdefault(x.block_no // 16, set()).add(x.addr // 4096)
    assert all(len(s) == 1 for s in groups.values())
    assert len({next(iter(s)) for s in groups.values()}) == len(groups)
    # the filesystem: every one of its pages, from the board's address to the end of flash
    fs_pages = [x for x in main if x.addr >= b.fs_addr]
    assert [x.addr for x in fs_pages] == list(range(b.fs_addr, b.fs_addr + b.fs_bytes, 256))
    fs = b"".join(x.data for x in fs_pages)
    import littlefs

    lfs = littlefs.LittleFS(block_size=boards.BLOCK_SIZE, block_count=0, mount=False)
    lfs.context.buffer = bytearray(fs)
    lfs.mount()  # the geometry from the image's own superblock
    st = lfs.fs_stat()
    assert (st.block_size, st.block_count, st.disk_version) == (4096, b.fs_blocks, 0x00020001)
    lfs.unmount()
    # laid out exactly as `shutbox flash` leaves a board, and an empty /data
    tree = fsimage.read_tree(fs, b)
    release = flash.prepare(mp.FIRMWARE, fsimage.BOARD_MPY, companion=b.wireless, chip=b.chip)
    assert tree == release.tree()
    # the flash's erase ahead on an RP2040 board alone (layout.RP2040_ONLY)
    ahead = {p.rsplit("/", 2)[-1] for p in tree if p.endswith(("/ahead.mpy", "/chip.mpy"))}
    assert ahead == ({"ahead.mpy", "chip.mpy"} if b.chip == "RP2040" else set()), ahead
    # a Pico W and a Pico 2 W get the companion (the phones' page), a Pico none of it
    companion = sorted(p.split("/", 3)[-1] for p in tree if "/companion/" in p
                       or "/microdot/" in p)
    assert ("companion/picow.mpy" in companion and "microdot/microdot.mpy" in companion
            if b.wireless else companion == []), companion
    assert summary["deployed_bytes"] == release.deployed_bytes
    fsd = fsimage.new_fs(bytearray(fs), blocks=b.fs_blocks)
    assert fsd.listdir("/data") == []
    fsd.unmount()
    assert summary["bytes"] == len(data) == os.path.getsize(path)


def _turn(emu):
    """Play the first turn to its score (each throw and move checked against the engine; a
    whole game on the same firmware is tests/pico/test_emulator.py's)."""
    from shutbox_host.pico import autoplay

    emu.wait_for(r'"ev": "turn"', timeout_ms=8000)
    emu.run(ms=100)
    return autoplay.play_turn(emu, autoplay.engine())


@pytest.mark.node
def test_the_bundled_uf2_boots_in_the_emulated_pico_and_plays_a_turn(bundles):
    from emu_skip import require_emulator

    require_emulator()
    from shutbox_host.pico.emulator import Emulator

    if "RPI_PICO" not in bundles:
        pytest.skip("no RPI_PICO uf2 in ../shared/rp2040")
    path, _ = bundles["RPI_PICO"]
    with Emulator(uf2=path) as emu:  # the one file, as the bootrom would lay it in flash
        score = _turn(emu)
        assert score["ev"] == "score" and score["player"] == 1
        tree = fsimage.read_tree(emu.flash_image())
        assert tree["/.shutbox/current"].decode() == flash.prepare(
            mp.FIRMWARE, fsimage.BOARD_MPY).version
        assert "/data/game" in tree  # the box saves its game on the bundled littlefs


@pytest.mark.node
def test_the_pico_w_bundle_boots_on_its_848_kb_filesystem_and_saves_its_first_turn(bundles):
    """The Pico W's MicroPython runs on the emulated RP2040 (its wireless chip absent): it
    mounts the bundle's littlefs at 0x12C000, sees 212 blocks, and the box plays its first
    turn to its score and saves it: no watchdog reset, one boot, the game on its flash.
    A Pico W whose radio does not start (this one; a broken module) must not hang: its VBUS
    sense is the radio's WL_GPIO2, whose read starts the radio, and a second start after a
    failed one never ended here (shutbox.supply)."""
    from emu_skip import require_emulator

    require_emulator()
    from shutbox_host.pico.emulator import Emulator

    if "RPI_PICO_W" not in bundles:
        pytest.skip("no RPI_PICO_W uf2 in ../shared/rp2040")
    path, _ = bundles["RPI_PICO_W"]
    with Emulator(uf2=path) as emu:
        score = _turn(emu)
        assert score["ev"] == "score" and score["player"] == 1
        emu.run(ms=1000)  # past the turn's save
        tree = fsimage.read_tree(emu.flash_image(), boards.BY_NAME["RPI_PICO_W"])
        assert tree.get("/data/game")  # the turn's end saved
        # alive (a core stuck in C ignores the console's Ctrl-C), on its own filesystem
        out = emu.repl("import os, sys; s = os.statvfs('/'); print(s[0], s[2], "
                       "sys.implementation._machine)")
        assert "4096 212 Raspberry Pi Pico W with RP2040" in out, out
        assert emu.resets == [] and emu.errors == [], (emu.resets, emu.errors)
        said = [x for _, x in emu.lines]
        assert sum('"ev": "settings"' in x for x in said) == 1, said  # one boot
        # the radio's start failed once, and was not tried again (shutbox.supply), which
        # the companion says in one line of the log and plays on
        assert sum("Failed to start CYW43" in x for x in said) == 1, said
        assert [r["error"] for r in emu.events("companion")] == ["radio"]


def test_the_docs_table_is_the_boards_table():
    doc = (mp.ROOT / "docs" / "flashing.md").read_text()
    assert boards.docs_table() in doc


def test_board_names_and_reserved_pins():
    assert boards.get("Pico W") is boards.get("rpi_pico_w") is boards.BY_NAME["RPI_PICO_W"]
    assert boards.get("Raspberry Pi Pico (RP2040)").name == "RPI_PICO"
    assert boards.identify("Raspberry Pi Pico 2 W with RP2350").name == "RPI_PICO2_W"
    assert boards.identify("", "RPI_PICO2").name == "RPI_PICO2"
    assert boards.identify("Some other board with RP2040") is None
    for b in boards.BOARDS:
        assert sorted(b.reserved) == [23, 24, 25, 29]
        assert boards.reserved_why(b, 22) is None
        assert "wireless" in boards.reserved_why(b, 25) if b.wireless else \
            "on-board LED" in boards.reserved_why(b, 25)
        assert b.led == ("LED" if b.wireless else "GP25")


# ---- bad input: one line, exit 2, nothing written ------------------------------------------


def _pinmap(tmp_path, **over) -> Path:
    data = json.loads((mp.ROOT / "hardware" / "pinmap.json").read_text())
    data.update(over)
    p = tmp_path / "pinmap.json"
    p.write_text(json.dumps(data))
    return p


def _not_micropython(src: Path, dest: Path) -> Path:
    """MicroPython's uf2 with its binary info's program name made another program's."""
    data = bytearray(src.read_bytes())
    blocks = uf2.parse(bytes(data))
    base, img = uf2.image(blocks)
    at = img.index(b"MicroPython\0")  # the first: the program name's string
    page = (base + at - boards.XIP_BASE) // 256
    off = page * 512 + 32 + (base + at) % 256
    data[off:off + 12] = b"Blinky\0\0\0\0\0\0"
    assert uf2.binary_info(*uf2.image(uf2.parse(bytes(data)))).get("program") == "Blinky"
    dest.write_bytes(bytes(data))
    return dest


@needs_uf2
def test_bad_inputs_are_one_line_errors_and_nothing_is_written(tmp_path):
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    pico = HAVE["RPI_PICO"]
    junk = tmp_path / "junk.uf2"
    junk.write_bytes(b"\x00" * 4096)
    random_uf2 = tmp_path / "random.uf2"  # a valid UF2 of noise for the RP2040
    random_uf2.write_bytes(b"".join(
        uf2._block(boards.XIP_BASE + 256 * i, os.urandom(256), i, 64, boards.RP2040_FAMILY)
        for i in range(64)))
    short = tmp_path / "short.uf2"
    short.write_bytes(pico.read_bytes()[:512 * 700])
    ragged = tmp_path / "ragged.uf2"
    ragged.write_bytes(pico.read_bytes()[:512 * 700 + 100])
    blinky = _not_micropython(pico, tmp_path / "blinky.uf2")
    twelve_w = _pinmap(tmp_path, tiles=12, tile_pins=list(range(14, 26)), roll_pin=2,
                       buzzer_pin=3, led_pin=4)
    cases = [
        (["--micropython", str(junk)], "is not a UF2 file"),
        (["--micropython", str(random_uf2)], "is not MicroPython: it has no pico-sdk binary"),
        (["--micropython", str(blinky)], "is not MicroPython: it names its program 'Blinky'"),
        (["--micropython", str(HAVE["RPI_PICO2"])],
         "is a uf2 for the RP2350 (family 0xe48bff59, rp2350-arm-s), not the RP2040 of the "
         "Pico (0xe48bff56)"),
        (["--micropython", str(pico), "--board", "RPI_PICO_W"],
         "is MicroPython for the Pico (RPI_PICO), not the Pico W"),
        (["--micropython", str(short)], "is truncated: 700 of the 1327 blocks"),
        (["--micropython", str(ragged)], "is truncated: 358500 bytes is not a whole number"),
        (["--micropython", str(tmp_path / "missing.uf2")], "cannot read"),
        (["--board", "RPI_PICO3"], "unknown board 'RPI_PICO3'"),
        (["--board", "RPI_PICO_W", "--micropython", str(HAVE["RPI_PICO_W"]), "--pinmap",
          str(twelve_w)], "tile_pins[9]: GP23 is wired inside the Pico W (the wireless chip's "
                          "power)"),
        (["--micropython", str(pico), "--pinmap", str(twelve_w)],
         "tile_pins[9]: GP23 is wired inside the Pico (the power supply's mode control)"),
    ]
    for args, message in cases:
        result = _cli(*args, "--output", str(out_dir / "shutbox.uf2"))
        assert result.returncode == 2, (args, result.stdout, result.stderr)
        assert message in result.stderr, (args, result.stderr)
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, args
        assert list(out_dir.iterdir()) == [], args  # no file, not even a partial one


@needs_uf2
def test_a_twelve_tile_map_fits_every_board_and_gets_only_its_tables(tmp_path):
    """Twelve tiles, Roll, buzzer and LEDs need 15 GPIOs; every Pico has 26 on its header
    (GP0-GP22, GP26-GP28): the default 12-tile map (GP2-GP16) fits the W boards too."""
    twelve = _pinmap(tmp_path, tiles=12)
    for name in ("RPI_PICO_W", "RPI_PICO2"):
        dest = tmp_path / ("twelve-%s.uf2" % name)
        result = _cli("--board", name, "--micropython", str(HAVE[name]), "--pinmap",
                      str(twelve), "--output", str(dest), "--json")
        assert result.returncode == 0, result.stderr
        summary = json.loads(result.stdout)
        assert summary["tiles"] == 12
        b = boards.BY_NAME[name]
        fs = b"".join(x.data for x in uf2.parse(dest.read_bytes())
                      if x.family == b.family and x.addr >= b.fs_addr)
        tree = fsimage.read_tree(fs, b)
        tables = sorted(p.rsplit("/", 1)[1].split("-")[0] for p in tree
                        if p.startswith(layout.TABLES_DIR))
        assert tables == ["moves", "n12"]  # no 9- or 10-tile pack, no 9-tile hints
        pins = [p for p in tree if p.endswith("shutbox/pins.mpy")]
        assert len(pins) == 1


def test_bundle_keeps_the_sector_groups_without_the_shared_files():
    """bundle() on a small made-up MicroPython: MicroPython's last sector padded, the
    filesystem in whole sectors of 16 blocks (no shared uf2 needed)."""
    b = boards.BY_NAME["RPI_PICO"]
    pages = 21  # one sector and 5 pages
    fake = uf2.MicroPython([uf2.Block(0x2000, boards.XIP_BASE + 256 * i, 256, i, pages,
                                      b.family, uf2._block(boards.XIP_BASE + 256 * i,
                                                           bytes([i]) * 256, i, pages,
                                                           b.family))
                            for i in range(pages)], [], boards.XIP_BASE + 256 * pages, {})
    fs = bytes(range(256)) * (b.fs_bytes // 256)
    blocks = uf2.parse(uf2.bundle(fake, fs, b))
    assert len(blocks) == 32 + b.fs_bytes // 256
    assert [x.data for x in blocks[21:32]] == [b"\xff" * 256] * 11  # padding
    assert blocks[32].addr == b.fs_addr and blocks[32].block_no == 32
    assert struct.unpack_from("<I", blocks[-1].raw, 24)[0] == len(blocks)
