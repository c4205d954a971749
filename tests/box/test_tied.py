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


# A process that builds the simulated board and lays out a flash as the Pico's: the folders
# its links are in, and whether each link leads to what it names; then it does {then}
LINKS = """
import os, sys, tempfile
from pathlib import Path
from shutbox_host.box import boxsim
tree = boxsim.build()
with boxsim.pico_flash(Path(tempfile.mkdtemp()) / "flash") as opts:
    flash = Path(opts[1])
    print(tree.parent, flash.parent, (tree / "shutbox" / "game.mpy").is_file(),
          (flash / "main.py").is_file(), flush=True)
    {then}
"""


def test_the_simulated_boards_links_belong_to_one_process_and_go_with_it():
    """The links that give the simulated board's folders a path of fixed length (the heap
    figures do not depend on where the checkout is) are in a folder of the process that made
    them, whose path is as long in every run, gone when the process ends: none under a
    machine-wide folder that another process, checkout or user shares."""
    seen = []
    for _ in range(2):
        r = subprocess.run([sys.executable, "-c", LINKS.format(then="pass")],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        tree_dir, flash_dir, built, laid_out = r.stdout.split()
        assert (built, laid_out) == ("True", "True")
        assert tree_dir == flash_dir and tree_dir.startswith("/tmp/") and len(tree_dir) == 13
        assert not os.path.exists(tree_dir)  # removed when its process ended
        seen.append(tree_dir)
    assert seen[0] != seen[1]  # each process its own


def test_a_folder_of_links_left_by_a_killed_process_goes_with_the_next_one():
    """A process killed outright (no clean-up of its own runs) leaves its folder of links;
    the next process that makes one removes it, and never the folder of one that lives."""
    killed = subprocess.run([sys.executable, "-c", LINKS.format(then="os.kill(os.getpid(), 9)")],
                            capture_output=True, text=True, timeout=300)
    assert killed.returncode == -9, killed.stderr
    left = killed.stdout.split()[0]
    assert os.path.isdir(left)  # nothing of its own removed it
    living = subprocess.Popen([sys.executable, "-c", LINKS.format(then="sys.stdin.read()")],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        mine = living.stdout.readline().split()[0]
        assert not os.path.exists(left)  # swept by the next process
        r = subprocess.run([sys.executable, "-c", LINKS.format(then="pass")],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        assert os.path.isdir(mine)  # a living process's folder is kept
    finally:
        living.communicate("", timeout=60)
    assert not os.path.exists(mine)


# The parent of the box with its web companion (shutbox_host.box.webbox): its pid, then a wait
PARENT_WEBBOX = """
import sys, tempfile, time
from pathlib import Path
from shutbox_host.box import webbox
box = webbox.WebBox(Path(tempfile.mkdtemp()) / "flash")
print(box.proc.pid, flush=True)
time.sleep(600)
"""


def test_a_box_with_its_web_companion_dies_with_its_parent():
    """The box serving its page on a port (tests of the companion) is gone with the process
    that started it, not left listening."""
    assert not _orphan_after_kill("tied", PARENT_WEBBOX)
