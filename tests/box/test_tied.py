# A simulated box or a virtual Pico never outlives the process that started it.
"""boxsim.tied(): the parent that starts boxrun dies (SIGKILL: no clean-up of its own runs)
while the box is deep in a virtual wait; the box is gone within seconds, not left spinning
on as an orphan. The control: the same parent without tied() leaves its box running."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="PR_SET_PDEATHSIG is Linux's")

# The parent: starts boxrun playing a million of the computer's turns (hours of the host's
# time), prints the box's pid, then waits to be killed
PARENT = """
import subprocess, sys, time
from shutbox_host.box import boxsim
argv, env = boxsim.command("--quiet", heapsize="256k")
opts = boxsim.tied() if sys.argv[1] == "tied" else {}
p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env, **opts)
p.stdin.write(b"b computer=1 players=1\\na 1000000 400\\n")
p.stdin.flush()
print(p.pid, flush=True)
time.sleep(600)
"""


def _alive(pid: int) -> bool:
    """True while *pid* runs (a zombie, dead but not yet reaped by init, is not running)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            stat = f.read()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] != "Z"


# The parent of a virtual Pico (shutbox_host.pico.vpico): its interpreter's pid, then a wait
PARENT_VPICO = """
import sys, tempfile, time
from pathlib import Path
from shutbox_host.pico import vpico
pico = vpico.VirtualPico(Path(tempfile.mkdtemp()) / "flash")
pico.start()
print(pico._proc.pid, flush=True)
time.sleep(600)
"""


def _orphan_after_kill(mode: str, parent_code: str = PARENT) -> bool:
    """Kill a parent of *mode* and return True if its box still runs 3 s later (then end it)."""
    parent = subprocess.Popen([sys.executable, "-c", parent_code, mode],
                              stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    try:
        time.sleep(0.5)
        assert _alive(child), "the box did not start"
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline and _alive(child):
            time.sleep(0.05)
        return _alive(child)
    finally:
        if _alive(child):
            os.kill(child, signal.SIGKILL)


def test_the_box_dies_with_its_parent():
    assert not _orphan_after_kill("tied")


def test_control_an_untied_box_outlives_its_parent():
    assert _orphan_after_kill("plain")


def test_a_virtual_pico_dies_with_its_parent():
    """A failing test (killed by its timeout, say) leaves no virtual Pico's interpreter."""
    assert not _orphan_after_kill("tied", PARENT_VPICO)
