# `shutbox flash` and unmodified mpremote against the emulated Pico, through its pty bridge.
"""The emulated RP2040's USB console behind a pseudo-terminal (shutbox_host.pico.emu_cli).

A blank MicroPython board gets a full flash with the real mpremote (through `shutbox flash
--port`), after which the box plays and holds exactly the files the image builder lays out
(fsimage.build); a second flash copies nothing. Beside it (the two run in parallel), a board
laid out by the image builder gets flashes of a version B cut at random moments (the emulator
stopped there, the flash kept, the power cut), the box playing after each (version A, or B
once the switch happened), and a last flash completes, after which the box plays B. The long
version (more cuts) runs under SHUTBOX_SLOW=1 (make soak).
"""
from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from emu_skip import require_emulator

pytestmark = [pytest.mark.node]

require_emulator()

from shutbox_host import mp  # noqa: E402
from shutbox_host.model import layout  # noqa: E402
from shutbox_host.pico import emu_cli, fsimage  # noqa: E402
from shutbox_host.pico.emulator import Emulator  # noqa: E402

SHUTBOX = Path(sys.executable).with_name("shutbox")
MPREMOTE = Path(sys.executable).with_name("mpremote")


def _plays(emu: Emulator) -> dict:
    """Power up from the flash as it is and play the first throw; return the throw record."""
    n = len(emu.lines)
    emu.power_cycle()
    emu.wait_for(r'"ev": "(turn|resume)"', timeout_ms=6000, since=n)
    emu.set_open((1 << 9) - 1)
    emu.run(ms=200)
    m = len(emu.lines)
    emu.click(100)
    return emu.wait_for(r'"ev": "throw"', timeout_ms=3000, since=m)


def _flash_cmd(port: str, firmware: Path) -> list[str]:
    return [str(SHUTBOX), "flash", "--port", port, "--firmware", str(firmware)]


def _booted(emu: Emulator, since: int, timeout_s: float = 120) -> None:
    """While the bridge runs: wait until the box has started again after a flash's reset
    (its first turn or resumed game on the console), as a user waits for the LEDs."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if any('"ev": "turn"' in x or '"ev": "resume"' in x for _, x in emu.lines[since:]):
            return
        time.sleep(0.2)
    raise AssertionError("the box did not start after the flash: %s" % emu.lines[-3:])


def _version(emu: Emulator) -> str:
    return fsimage.read_tree(emu.flash_image())["/.shutbox/current"].decode()


def test_a_blank_board_flashed_by_mpremote_through_the_pty_bridge():
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    with Emulator() as emu:  # a blank board: MicroPython only
        bridge = emu_cli.Bridge(emu)
        port = bridge.start()
        # unmodified mpremote sees a Pico running MicroPython
        out = subprocess.run([str(MPREMOTE), "connect", port, "exec",
                              "import sys; print(sys.platform, sys.implementation._mpy)"],
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 0 and out.stdout.split() == ["rp2", "4870"], out
        # a full flash
        n = len(emu.lines)
        full = subprocess.run(_flash_cmd(port, mp.FIRMWARE), capture_output=True, text=True,
                              timeout=400, env=env)
        assert full.returncode == 0, full.stdout + full.stderr
        assert "switched to fw-" in full.stdout
        _booted(emu, n)
        # a second flash copies nothing
        again = subprocess.run(_flash_cmd(port, mp.FIRMWARE), capture_output=True,
                               text=True, timeout=120, env=env)
        assert again.returncode == 0 and "nothing to copy" in again.stdout, again.stdout
        bridge.pause()
        # the flashes' resets (through the watchdog on rp2) are no hang: no notice, no fault,
        # nothing in /error.log
        assert not [x for _, x in emu.lines[n:] if '"ev": "notice"' in x or '"ev": "fault"' in x]
        tree = fsimage.read_tree(emu.flash_image())
        assert "/error.log" not in tree
        # the board holds what the image builder lays out (the cut flashes below start there)
        built = fsimage.read_tree(fsimage.build())
        assert {p: v for p, v in tree.items() if not p.startswith("/data/")} == \
            {p: v for p, v in built.items() if not p.startswith("/data/")}
        assert _plays(emu)["player"] == 1


def _cut_flashes(fw_image: bytes, fw_b: Path, cuts: int, seed: int) -> None:
    """From a board flashed with firmware/ (version A, as the image builder lays it out):
    *cuts* flashes of version B cut at random moments, the box playing after each, then a
    whole flash of B, after which the box plays B."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    with Emulator(fs=fw_image) as emu:
        version_a = _version(emu)
        rng = random.Random(seed)
        seen = set()
        cut_outputs = []
        for _ in range(cuts):
            bridge = emu_cli.Bridge(emu)
            port = bridge.start()
            proc = subprocess.Popen(_flash_cmd(port, fw_b), stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True, env=env)
            lines: list[str] = []
            reader = threading.Thread(target=lambda p=proc, out=lines: out.extend(p.stdout),
                                      daemon=True)
            reader.start()
            try:  # a random moment once it writes to the board's flash (or of its start)
                for _ in range(1200):
                    if any("staging" in x for x in lines) or proc.poll() is not None:
                        break
                    time.sleep(0.1)
                time.sleep(rng.uniform(0.2, 4.0))
            finally:
                bridge.pause()  # the power goes here: nothing more runs
                proc.kill()
                proc.wait(timeout=30)
                reader.join(timeout=10)
            cut_outputs.append("".join(lines))
            seen.add(_version(emu))
            assert _plays(emu)["player"] == 1  # the box plays whatever version it starts
        bridge = emu_cli.Bridge(emu)
        port = bridge.start()
        done = subprocess.run(_flash_cmd(port, fw_b), capture_output=True, text=True,
                              timeout=400, env=env)
        assert done.returncode == 0, (done.stdout + done.stderr, cut_outputs)
        bridge.pause()
        tree = fsimage.read_tree(emu.flash_image())
        version_b = tree["/.shutbox/current"].decode()
        assert version_b != version_a
        assert tree["/.shutbox/%s/shutbox/emu_tag.mpy" % version_b]
        assert tree[layout.LAUNCHER_PATH] == layout.LAUNCHER.encode()
        assert _plays(emu)["player"] == 1
        assert seen <= {version_a, version_b}  # each cut left a whole version, A or B


@pytest.fixture
def fw_b(tmp_path) -> Path:
    """firmware/ with one module more: version B, a code-only update of version A."""
    fw_b = tmp_path / "fw_b"
    shutil.copytree(mp.FIRMWARE, fw_b, ignore=shutil.ignore_patterns("__pycache__"))
    (fw_b / "shutbox" / "emu_tag.py").write_text("TAG = 'B'\n")
    return fw_b


def test_flashes_cut_at_random_moments_leave_a_whole_version_through_the_pty(fw_image, fw_b):
    _cut_flashes(fw_image, fw_b, cuts=3, seed=11)


@pytest.mark.slow
def test_flashes_cut_at_random_moments_long(fw_image, fw_b):
    _cut_flashes(fw_image, fw_b, cuts=20, seed=12)
