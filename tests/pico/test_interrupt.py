# A Ctrl-C at any instant of the boot, on the real rp2 build: the REPL, never a fault.
"""A developer's Ctrl-C (mpremote and `shutbox flash` send one as they open the port) stops
the box at MicroPython's REPL at whatever instant of its boot it comes, as it does a plain
MicroPython script: no fault on the console or the LEDs, nothing in /error.log, and the
watchdog (started just before the box's loop) stopped, so the REPL stays.

One emulated Pico boots a box once to learn when its USB console is up (the first instant a
host can send anything) and when the first turn starts; then, from the same flash each time
(power cycled), it is interrupted at instants spread evenly between the two: a box as
`shutbox flash` leaves it (its first boot), and one with a game in progress (it resumes).
MicroPython's import takes any exception of a mounted folder's stat for "no such file", so
while the boot's shortcut (shutbox.bootfs) is mounted an interrupt used to become a false
ImportError, or vanish.
"""

from __future__ import annotations

import re

import pytest
from emu_skip import require_emulator

pytestmark = [pytest.mark.node]

require_emulator()

from shutbox_host.pico import fsimage  # noqa: E402
from shutbox_host.pico.emulator import Emulator  # noqa: E402

INSTANTS = {"fresh": 21, "game in progress": 11}  # from the USB console's connection
# to the first turn (or the resumed one), both included
PROMPT_MS = 2000  # from the Ctrl-C to the REPL's prompt, at most
WATCHDOG_MS = 9000  # past the box's 8 s watchdog: a watchdog left running resets the chip
FAULT_TILES = {"R.R.R.R.R", ".R.R.R.R."}  # the fault pattern's tiles (shutbox.frame.fault)


def _boot(emu: Emulator, flash: bytes) -> tuple[float, float]:
    """Power up from *flash*; return when (ms from the power-up) the USB console connected
    and the first turn (or the saved game's) started."""
    emu.set_flash(flash)
    emu.power_cycle()
    t0, n_connects, n_lines = emu.now_ms, len(emu.connects), len(emu.lines)
    start = emu.wait_for(r'"ev": "(turn|resume)"', timeout_ms=5000, since=n_lines)
    assert emu.connects[n_connects:], "the USB console never came up"
    return emu.connects[n_connects] - t0, start["_ms"] - t0


def _interrupted(emu: Emulator, flash: bytes, at: float) -> list[str]:
    """Power up from *flash*, Ctrl-C *at* ms; what went wrong."""
    emu.set_flash(flash)
    emu.power_cycle()
    t0, n, n_lines, n_resets = emu.now_ms, len(emu.console), len(emu.lines), len(emu.resets)
    emu.run(ms=at)
    emu.write(b"\x03")
    wrong = []
    try:
        emu.prompt(timeout_ms=PROMPT_MS, since=n)
    except Exception:  # noqa: BLE001 - said below, with the rest
        wrong.append("no REPL prompt")
    if "KeyboardInterrupt" not in bytes(emu.console[n:]).decode("utf-8", "replace"):
        wrong.append("no KeyboardInterrupt")
    faults = [x for _, x in emu.lines[n_lines:] if re.search(r'"ev": "fault"', x)]
    if faults:
        wrong.append("fault: %s" % faults[0])
    if {f.tiles for f in emu.frames_since(t0)} & FAULT_TILES:
        wrong.append("the fault pattern on the LEDs")
    log = fsimage.read_tree(emu.flash_image()).get("/error.log", b"")
    if log:
        wrong.append("/error.log: %r" % log.splitlines()[-1:])
    emu.run(ms=WATCHDOG_MS)  # at the REPL: nothing resets the chip
    if emu.resets[n_resets:]:
        wrong.append("reset: %s" % emu.resets[n_resets:])
    return wrong


def _across_the_boot(fw_image, box: str, count: int = 0, step_ms: float = 0) -> None:
    """Interrupt *box* at *count* instants spread evenly over its boot, or every *step_ms*."""
    with Emulator(fs=fw_image) as emu:
        flash = emu.flash_image()  # as `shutbox flash` leaves it, before the first boot
        if box == "game in progress":
            emu.wait_for(r'"ev": "turn"', timeout_ms=5000)
            emu.click(100)
            emu.wait_for(r'"ev": "throw"', timeout_ms=3000)
            emu.run(ms=1000)  # saved
            flash = emu.flash_image()
        first, last = _boot(emu, flash)
        assert 0 < first < last
        if step_ms:
            count = int((last - first) / step_ms) + 1
            instants = [first + step_ms * i for i in range(count)]
        else:
            instants = [first + (last - first) * i / (count - 1) for i in range(count)]
        failures = []
        for at in instants:
            wrong = _interrupted(emu, flash, at)
            if wrong:
                failures.append("Ctrl-C at %.1f ms of the boot: %s" % (at, "; ".join(wrong)))
        assert not failures, "%d of %d instants:\n%s" % (len(failures), count,
                                                         "\n".join(failures))


@pytest.mark.parametrize("box", list(INSTANTS))
def test_a_ctrl_c_at_any_instant_of_the_boot_stops_at_the_repl(fw_image, box):
    """A box as `shutbox flash` leaves it (its first boot), and one with a game in progress
    saved (its boot resumes it)."""
    _across_the_boot(fw_image, box, count=INSTANTS[box])


@pytest.mark.slow
@pytest.mark.parametrize("box", list(INSTANTS))
def test_a_ctrl_c_every_2_ms_of_the_boot_stops_at_the_repl(fw_image, box):
    """make soak: the same every 2 ms of the boot (about 150 instants each)."""
    _across_the_boot(fw_image, box, step_ms=2)


def test_a_ctrl_c_at_the_rescue_s_fault_pattern_stops_its_watchdog(fw_image):
    """An error outside the guard (shutbox.rescue: the fault pattern under the watchdog): a
    Ctrl-C there too gives a REPL that stays."""
    with Emulator(fs=fw_image) as emu:
        emu.wait_for(r'"ev": "turn"', timeout_ms=5000)
        emu.repl("from shutbox import rescue\nrescue.run(RuntimeError('injected'))\n",
                 wait=False)
        fault = emu.wait_for(r'"ev": "fault"', timeout_ms=3000)
        assert fault["text"] == "injected"
        emu.run(ms=300)
        assert {f.tiles for f in emu.frames_since(fault["_ms"])} & FAULT_TILES
        n, n_resets = len(emu.console), len(emu.resets)
        emu.write(b"\x03")
        emu.prompt(timeout_ms=PROMPT_MS, since=n)
        emu.run(ms=WATCHDOG_MS)
        assert emu.resets[n_resets:] == []
