# The rp2 API as a contract: firmware/ type-checks against the Pico's stubs, and bad calls fail.
"""Type-check tests against micropython-rp2-rpi-pico-stubs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STUBS = ROOT / ".venv" / "mpstubs"


def _mypy(target: Path):
    env = dict(os.environ, MYPYPATH=str(STUBS))
    cmd = [sys.executable, "-m", "mypy", "--custom-typeshed-dir", str(STUBS),
           "--config-file", str(ROOT / "firmware" / "mypy.ini"), "--no-incremental", str(target)]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)


pytestmark = pytest.mark.skipif(not STUBS.is_dir(), reason="rp2 stubs not installed: make venv")


def test_a_call_the_pico_lacks_fails(tmp_path):
    """A made-up Pin method and a CPython-only module are rejected by the rp2 stubs."""
    bad = tmp_path / "bad.py"
    bad.write_text("import machine\nmachine.Pin(2).frobnicate()\nimport tkinter\n")
    result = _mypy(bad)
    assert result.returncode != 0
    assert "frobnicate" in result.stdout
    assert "tkinter" in result.stdout


def test_real_rp2_calls_pass(tmp_path):
    """The calls the firmware relies on exist in the rp2 stubs."""
    good = tmp_path / "good.py"
    good.write_text(
        "import machine, neopixel, time, os, micropython\n"
        "p = machine.Pin(2, machine.Pin.IN, machine.Pin.PULL_UP)\n"
        "v: int = p.value()\n"
        "pwm = machine.PWM(machine.Pin(15))\npwm.freq(440)\npwm.duty_u16(0)\n"
        "np = neopixel.NeoPixel(machine.Pin(16), 23)\nnp.write()\n"
        "machine.WDT(timeout=2000).feed()\n"
        "d = time.ticks_diff(time.ticks_ms(), time.ticks_add(time.ticks_ms(), 5))\n"
        "b = os.urandom(4)\nmicropython.heap_lock()\nmicropython.heap_unlock()\n"
    )
    result = _mypy(good)
    assert result.returncode == 0, result.stdout


@pytest.mark.skipif(shutil.which("make") is None, reason="make not found")
def test_firmware_typechecks():
    """firmware/ as committed passes the rp2 type check."""
    result = _mypy(ROOT / "firmware")
    assert result.returncode == 0, result.stdout
