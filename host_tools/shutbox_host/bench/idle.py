# How idle the box is on each screen that waits for the player, from the emulated RP2040's clock.
"""figures(soak) -> rp2_idle_busy_pct_<screen> and rp2_idle_allocs_per_s_<screen>.

One emulated Pico (shutbox_host.pico.emulator) is booted once and taken through every screen
that waits for a press or a flip, nothing touched while each is measured (``screens``):

- turn: a turn's start (SETUP, every tile open), as rp2_idle_busy_fraction measures it;
- score: the score after a turn (TURN_END: the player's number, then the score, cycling);
- winner: the game's end (GAME_END: the winner's tiles blinking, the best score, cycling);
- resume: a game resumed after a power cut whose tiles differ from the saved game's (they
  blink amber until put back);
- menu: the settings menu (Roll held at power-up, then released);
- records: the records screen (Roll held with tile 2 shut at power-up);
- selftest: the self-test's last phase (Roll held with tile 1 shut at power-up), which echoes
  each switch on its LED until power-off.

The first second after a power-up's turn screen is measured apart (``settle``, not a
waiting screen: the box's one-off work after power-up, the flash's erase ahead walking its
metadata pairs and checking its free blocks); the turn's window follows it.

Busy: the core's time executing (not in WFE/WFI) over _WINDOW_MS, in per cent; allocations:
entries into MicroPython's gc_alloc (shutbox_host.bench.rp2.find_gc_alloc) a second over the
same window. The window is a whole cycle of the slowest view (3 s) after the screen settled.
"""

from __future__ import annotations

from shutbox import pins
from shutbox_host.model.script import SETTLE_MS
from shutbox_host.pico import autoplay, fsimage
from shutbox_host.pico.emulator import Emulator

SCREENS = ("turn", "score", "winner", "resume", "menu", "records", "selftest")
_WINDOW_MS = 3000  # one cycle of a score view (label 1 s, number 2 s)
_TURN = r'"ev": "turn"'
_ALL = (1 << pins.TILES) - 1


def _window(emu: Emulator, gc_alloc: int, ms: float = _WINDOW_MS) -> tuple[float, float]:
    """Run *ms* touching nothing; return (busy %, gc_alloc entries a second)."""
    emu.count_entries([gc_alloc])
    st0 = emu.stats()
    emu.run(ms=ms)
    st1 = emu.stats()
    elapsed = st1["now"] - st0["now"]
    allocs = st1["counts"].get(str(gc_alloc), 0) - st0["counts"].get(str(gc_alloc), 0)
    return (round(100 * (st1["busy_ns"] - st0["busy_ns"]) / elapsed, 2),
            round(allocs / (elapsed / 1e9), 1))


def _power_up(emu: Emulator, shut: tuple[int, ...] = (), roll: bool = False) -> int:
    """Cut the power and power up again with the tiles *shut* and Roll held if *roll*;
    return the console line index at the power-up."""
    emu.set_open(_ALL & ~sum(1 << (k - 1) for k in shut))
    if roll:
        emu.press()
    else:
        emu.release()
    n = len(emu.lines)
    emu.power_cycle()
    return n


def screens(emu: Emulator, gc_alloc: int, only=SCREENS) -> dict[str, tuple[float, float]]:
    """Take the booted box (*emu*, fresh flash: the default settings, 2 players) through the
    waiting screens; return {screen: (busy %, allocations a second)} for those in *only*."""
    out: dict[str, tuple[float, float]] = {}
    eng = autoplay.engine()
    n = _power_up(emu)
    emu.wait_for(r'"ev": "(turn|resume)"', timeout_ms=5000, since=n)
    # the power-up's own work after the first frame (the flash's erase ahead walks its
    # pairs and free blocks once: shutbox.ahead), measured apart; the turn's screen after it
    settle = _window(emu, gc_alloc, SETTLE_MS)
    if "turn" in only:
        out["settle"] = settle
        out["turn"] = _window(emu, gc_alloc)
    score = autoplay.play_turn(emu, eng)
    # past a shut box's celebration (3 s), the log lines and the save
    emu.run(ms=3500 if score["shut_box"] else 500)
    if "score" in only:
        out["score"] = _window(emu, gc_alloc)
    emu.set_open(_ALL)
    emu.run(ms=100)
    n = len(emu.lines)
    emu.click(100)
    emu.wait_for(_TURN, timeout_ms=3000, since=n)  # player 2
    emu.run(ms=300)
    score = autoplay.play_turn(emu, eng)
    emu.run(ms=3500 if score["shut_box"] else 1000)
    emu.set_open(_ALL)
    emu.run(ms=100)
    n = len(emu.lines)
    emu.click(100)
    emu.wait_for(r'"ev": "winner"', timeout_ms=3000, since=n)
    emu.run(ms=1000)  # the records saved, the first view under way
    if "winner" in only:
        out["winner"] = _window(emu, gc_alloc)
    # a new game (Roll held 5 s), its first throw saved; then a power cut with tile 1 shut
    emu.press()
    emu.run(ms=5200)
    emu.release()
    emu.run(ms=300)
    n = len(emu.lines)
    emu.click(100)
    emu.wait_for(r'"ev": "throw"', timeout_ms=3000, since=n)
    emu.run(ms=500)
    n = _power_up(emu, shut=(1,))
    emu.wait_for(r'"ev": "resume"', timeout_ms=5000, since=n)
    emu.run(ms=2500)  # past the boot's first frames
    if "resume" in only:
        out["resume"] = _window(emu, gc_alloc)
    for name, shut in (("menu", ()), ("records", (2,)), ("selftest", (1,))):
        if name not in only:
            continue
        _power_up(emu, shut=shut, roll=True)
        emu.run(ms=600)
        emu.release()
        # the self-test's sweep, colours and dice take 7.3 s before its echo
        emu.run(ms=8000 if name == "selftest" else 1000)
        out[name] = _window(emu, gc_alloc)
    return out


def measure(uf2=None, bootrom=None, only=SCREENS) -> dict[str, tuple[float, float]]:
    """Boot one emulated Pico flashed with the firmware, find gc_alloc, then ``screens``."""
    from shutbox_host.bench.rp2 import find_gc_alloc

    with Emulator(uf2, bootrom, fs=fsimage.build()) as emu:
        emu.wait_for(_TURN, timeout_ms=5000)
        emu.repl("")  # Ctrl-C: the firmware stops its watchdog; the REPL
        gc_alloc = find_gc_alloc(emu)
        return screens(emu, gc_alloc, only)


def figures(soak=False, uf2=None, bootrom=None):
    """Measure the figures; {} with a note when the emulator cannot run here."""
    from shutbox_host.pico import emulator

    why = emulator.missing()
    if why is not None:
        return {"rp2_idle_skipped": why}
    out: dict = {}
    for name, (busy, allocs) in measure(uf2, bootrom).items():
        out["rp2_idle_busy_pct_" + name] = busy
        out["rp2_idle_allocs_per_s_" + name] = allocs
    return out
