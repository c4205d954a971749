# Soak: many whole games under MicroPython with the heap capped: no MemoryError, no leak.
"""soak (tests/mp/soak_games.py): games through the simulated pins, in one process.

``make test`` plays 100 games (a few seconds), ``make check`` 25; ``SHUTBOX_SLOW=1`` (make
soak) 10,000, and ``shutbox bench --soak`` does the same. The heap is capped so that the
firmware gets 64 KB (issue 7) on top of what the simulated board and the soak script hold
(their base). The live heap is read after gc.collect() at the same point of every game: it
must be the same after the last game as after the first (tolerance: 0 bytes), with reboots
(power cuts, resuming the saved game) along the way. The GC pause is printed, never asserted
(a timing).
"""

from __future__ import annotations

import pytest
import soak
from selection import sizes


@pytest.fixture(scope="module")
def cap():
    """-X heapsize: 64 KB for the firmware on top of the simulated board and the soak script
    (soak.firmware_cap)."""
    return soak.firmware_cap()


def check(out, games):
    assert "memerr" not in out, out
    print("\nSOAK %d games: heap first %d last %d (firmware %d of it), GC pause max %d us "
          "avg %d us, %d polls, %d reboots, %.1f s" % (
              out["games"], out["first"], out["last"], out["first"] - out["base"],
              out["gcmax_us"], out["gcavg_us"], out["polls"], out["reboots"], out["seconds"]))
    assert out["games"] == games and out["winners"] == games
    assert out["last"] == out["first"]  # no leak: tolerance 0 bytes
    assert out["max"] == out["min"]  # and no game in between held more
    assert out["saves"] > 20 * games  # the game in progress was saved all along


@pytest.mark.parametrize("games", sizes(short=25, long=100))
def test_soak_games(cap, games):
    check(soak.run(games, cap, seed=11, reboot_every=games // 4), games)


def test_the_firmware_cap_is_real(cap):
    """Control: 40 KB for the firmware instead of 64 KB and the same games run out of memory
    (the cap is what the firmware gets, not a formality)."""
    assert "memerr" in soak.run(40, cap - 24 * 1024, seed=11, reboot_every=20)


def test_the_soak_sees_a_leak(tmp_path):
    """Control: a firmware that keeps every log record is reported as leaking."""
    import shutil
    import subprocess

    from shutbox_host.box import boxsim

    tree = tmp_path / "tree"
    shutil.copytree(boxsim.build(), tree, symlinks=True)
    src = (boxsim.mp.FIRMWARE / "shutbox" / "app.py").read_text()
    old = "        del log[:]\n"
    assert old in src
    init = "        self.wdt = wdt\n"
    assert init in src
    src = src.replace(old, "        self.kept.append(log[:])\n" + old)  # every record kept
    (tmp_path / "app.py").write_text(src.replace(init, init + "        self.kept = []\n"))
    subprocess.run([boxsim.mpy_cross_exe(), "-o", str(tree / "shutbox" / "app.mpy"),
                    str(tmp_path / "app.py")], check=True)
    r = soak.mp.run(soak.MP_DIR / "soak_games.py", "20", "-", "11", "0", heapsize="512k",
                    extra_path=[tree])
    line = [x for x in r.stdout.splitlines() if x.startswith("SOAK ")][0].split()[1:]
    out = {line[i]: int(line[i + 1]) for i in range(0, len(line), 2)}
    assert out["last"] > out["first"]


@pytest.mark.slow
def test_soak_10000_games(cap):
    check(soak.run(10_000, cap, seed=12, reboot_every=500), 10_000)
