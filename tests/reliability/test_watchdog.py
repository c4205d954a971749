# Watchdog and errors on the simulated board: a hang reboots the box, an error is logged and shown.
"""shutbox.guard, the watchdog and the boot notice, through the simulated pins under MicroPython.

Faults are injected into the simulated board (simbus.inject): a hang spins on a pin read
while the virtual clock runs, so only the simulated machine.WDT can end it (it raises a reset
that the harness turns into a reboot); an exception (RuntimeError, MemoryError, OSError) comes
out of a pin read, through the app, into the guard.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from shutbox import frame as fr
from shutbox.board import Board
from shutbox.game import MOVE, READY, SETUP
from shutbox.guard import _LOG_CAP as LOG_CAP  # private: no name in the box's RAM
from shutbox_host import mp
from shutbox_host.box import boxsim
from shutbox_host.box.plan import plan_game
from shutbox_host.model.leds import face, tiles_lit
from shutbox_host.model.script import Script

HEAP = "128k"  # the firmware with every feature (~95 KB live on the 64-bit port) and the board
MP_DIR = Path(__file__).resolve().parents[1] / "mp"
HANG, RAISE, MEMORY, IO = 1, 2, 3, 4


def run(script: Script, *args: str, flash: Path, players: int = 1) -> boxsim.Run:
    r = boxsim.run(script, "--players", str(players), "--flash", str(flash), *args,
                   heapsize=HEAP)
    assert r.returncode == 0, r.stderr[-3000:]
    assert not any(line.startswith("?") for line in r.lines), r.lines
    return r


def inject(s: Script, kind: int, after: int = 0) -> Script:
    s.lines.append("x %d %d" % (kind, after))
    return s


def a_move(s: Script) -> Script:
    """Throw 5 + 4 and shut the 9: the game is READY with tiles 1-8 open, saved."""
    return s.wait(100).dice(5, 4).click(120).wait(800).shut(9).wait(200)


def resets(r: boxsim.Run) -> list[tuple[int, int]]:
    return [(int(x.split()[1]), int(x.split()[2])) for x in r.lines if x.startswith("RESET ")]


def reasons(r: boxsim.Run) -> list[int]:
    """The watchdog's REASON after each reset: 1 it expired, 2 machine.reset(), 0 a power cut."""
    return [int(x.split()[3]) for x in r.lines if x.startswith("RESET ")]


def test_a_hang_is_ended_by_the_watchdog_and_the_game_resumes(tmp_path):
    s = a_move(Script())
    t = s.ms
    inject(s, HANG).wait(3000).state()
    s.dice(2, 2).click(120).wait(800).state()
    r = run(s, "--wdt", "2000", flash=tmp_path)
    (cause, at), = resets(r)
    assert cause == 3 and reasons(r) == [1]  # machine.WDT_RESET, REASON.TIMER
    assert t + 2000 < at <= t + 2010  # the hang began at the first poll after t
    rec = r.events("resume")[0]
    assert rec["state"] == "ready" and rec["open"] == list(range(1, 9))
    assert r.events("notice")[0]["tiles"] == [4]  # restarted after a fault
    f = r.frame_at(at + 500)
    assert face(f[2]) == face(f[3]) == 5 and "Y" in f[2]
    st = r.states()
    assert st[0]["state"] == READY and st[0]["open"] == 0xFF
    assert st[1]["state"] == MOVE and (st[1]["a"], st[1]["b"]) == (2, 2)
    log = (tmp_path / "error.log").read_text()
    assert log.count("watchdog reset") == 1


def test_without_a_watchdog_a_hang_freezes_the_box(tmp_path):
    """The control: the same hang with no watchdog never ends (the sim gives up after 60 s)."""
    s = a_move(Script())
    inject(s, HANG).wait(3000).state()
    r = run(s, "--guard", flash=tmp_path)
    assert resets(r) == [] and not r.states()
    hung = [x for x in r.lines if x.startswith("HUNG")]
    assert hung and int(hung[0].split()[1]) >= s.ms - 3000 + 60000


def test_the_app_feeds_the_watchdog(tmp_path):
    """A whole game with a 50 ms watchdog: the app feeds it every poll, so it never bites."""
    s, expect = plan_game(2, seed=3, strategy="greedy")
    r = run(s, "--wdt", "50", flash=tmp_path, players=2)
    assert resets(r) == []
    assert [e["score"] for e in r.events("score")] == expect["scores"]


@pytest.mark.parametrize("kind,name", [(RAISE, "RuntimeError"), (MEMORY, "MemoryError"),
                                       (IO, "OSError")])
def test_an_exception_is_logged_shown_and_roll_restarts(tmp_path, kind, name):
    s = a_move(Script())
    t = s.ms
    inject(s, kind).wait(1000).state()
    s.click(120).wait(200).state()  # Roll: restart, resuming the game
    s.dice(3, 1).click(120).wait(800).state()
    r = run(s, "--wdt", "2000", flash=tmp_path)
    fault = r.events("fault")[0]
    assert fault["error"] == name and fault["n"] == 1 and not fault["safe"]
    assert resets(r) == []  # the guard kept feeding the watchdog
    log = (tmp_path / "error.log").read_text()
    assert "fault 1" in log and "Traceback" in log and name in log
    assert "injected fault" in log or kind == IO
    shown = [f for f in r.frames if t < f[0] < t + 1000]
    assert shown, "the fault pattern was never drawn"
    for f in shown:
        assert set(f[1][0::2]) in ({"R"}, {"."}) and set(f[1][1::2]) in ({"R"}, {"."})
        assert f[1][0] != f[1][1]  # odd and even tiles alternate
        assert f[2] == f[3] == "RR.R.RR"  # both dice a red X (face 5)
    assert {f[1][0] for f in shown} == {"R", "."}  # and they blink
    st = r.states()
    assert st[0]["state"] == -1  # faulted: no app
    assert st[1]["state"] == READY and st[1]["open"] == 0xFF  # restarted, resumed
    assert st[2]["state"] == MOVE
    assert r.events("resume") and r.events("notice")[0]["tiles"] == [4]


def test_the_box_restarts_by_itself_after_ten_seconds(tmp_path):
    s = a_move(Script())
    inject(s, RAISE).wait(9000).state().wait(1500).state()
    r = run(s, flash=tmp_path)
    st = r.states()
    assert st[0]["state"] == -1 and st[1]["state"] == READY
    assert len(r.events("resume")) == 1


def test_a_fault_right_after_a_restart_starts_a_new_game(tmp_path):
    """A saved game that makes the firmware fail at once cannot trap the box in a loop."""
    s = a_move(Script())
    inject(s, RAISE).wait(500).click(120).wait(300)  # restart: the game resumes ...
    inject(s, RAISE).wait(500).click(120).wait(300).state()  # ... and fails again at once
    r = run(s, flash=tmp_path, players=2)
    faults = r.events("fault")
    assert [f["safe"] for f in faults] == [False, True]
    assert len(r.events("resume")) == 1  # the second restart did not resume
    st = r.states()[0]
    assert st["state"] == SETUP and st["player"] == 1 and st["scores"] == [0, 0]


def test_faults_in_fault_mode_are_survived(tmp_path):
    """The LEDs or the Roll button failing while the fault shows: the box still restarts."""
    s = a_move(Script())
    inject(s, RAISE).wait(100)
    inject(s, IO).wait(100)  # the fault mode's own pin read fails
    inject(s, RAISE, 3).wait(11000).state()
    r = run(s, flash=tmp_path)
    assert len(r.events("fault")) == 1
    assert r.states()[0]["state"] == READY


def test_the_error_log_is_capped(tmp_path):
    s = a_move(Script())
    for _ in range(40):
        inject(s, RAISE).wait(50).click(60).wait(6000)  # 6 s: each restart is a normal one
    s.state()
    r = run(s, flash=tmp_path)
    assert len(r.events("fault")) == 40
    log, old = tmp_path / "error.log", tmp_path / "error.old"
    assert old.exists() and LOG_CAP < old.stat().st_size < LOG_CAP + 1024
    assert 0 < log.stat().st_size < LOG_CAP + 1024
    assert "fault 40" in log.read_text()
    assert r.states()[0]["state"] == READY


# ----- the Pico's side: main(), the reset cause, stopping the watchdog -----


def test_main_starts_the_watchdog_and_stops_it_on_ctrl_c():
    """app.main() under MicroPython: the guard runs, the WDT is started, Ctrl-C stops it."""
    r = mp.run(MP_DIR / "main_watchdog.py", heapsize="512k",
               extra_path=[boxsim.build(), MP_DIR])
    assert r.returncode == 0 and not r.stderr, r.stdout + r.stderr
    assert '"fault"' not in r.stdout, r.stdout
    out = dict(line.split(" ", 1) for line in r.stdout.splitlines() if " " in line)
    assert out["WDT"] == "8000"  # started with app._WATCHDOG_MS
    assert out["STOPPED"] == "1" and out["INTERRUPT"] == "1"
    assert int(out["FEEDS"]) >= 50  # fed every poll
    assert out["FILES"] == "game / data"  # the game saved in /data; no error.log
    # the constructors app.prelude dropped are back: main forgot their modules on the Ctrl-C
    assert out["AGAIN"] == "9 /data 3 9"


class FakeMachine(types.SimpleNamespace):
    WDT_RESET = 3


def board_with(machine, monkeypatch, chip):
    b = Board.__new__(Board)  # only the watchdog helpers, no pins
    b._machine = machine
    monkeypatch.setattr(sys.implementation, "_machine", chip, raising=False)
    return b


def test_watchdog_stop_clears_the_rp2040_enable_bit(monkeypatch):
    mem: dict[int, int] = {}
    b = board_with(FakeMachine(mem32=mem), monkeypatch, "Raspberry Pi Pico with RP2040")
    b.watchdog_stop()
    assert mem == {0x40058000 + 0x3000: 1 << 30}  # CTRL's atomic clear alias, ENABLE bit


def test_watchdog_stop_does_nothing_elsewhere(monkeypatch):
    mem: dict[int, int] = {}
    board_with(FakeMachine(mem32=mem), monkeypatch, "Raspberry Pi Pico 2 with RP2350") \
        .watchdog_stop()
    board_with(FakeMachine(), monkeypatch, "RP2040").watchdog_stop()  # no mem32: the sim
    assert mem == {}


def test_watchdog_reset_reads_the_reset_cause_off_the_rp2040(monkeypatch):
    assert board_with(FakeMachine(reset_cause=lambda: 3), monkeypatch, "").watchdog_reset()
    assert not board_with(FakeMachine(reset_cause=lambda: 1), monkeypatch, "").watchdog_reset()
    mem: dict[int, int] = {}  # an RP2350: its watchdog is elsewhere, reset_cause() decides
    assert board_with(FakeMachine(mem32=mem, reset_cause=lambda: 3), monkeypatch,
                      "Raspberry Pi Pico 2 with RP2350").watchdog_reset()
    assert mem == {}


RP2040 = "Raspberry Pi Pico with RP2040"
REASON, SCRATCH3 = 0x40058000 + 0x08, 0x40058000 + 0x18  # WATCHDOG_BASE + REASON, SCRATCH3


def reset_mark(monkeypatch) -> int:
    """The mark Board.reset() leaves on an RP2040: SCRATCH3, written before machine.reset()."""
    mem: dict[int, int] = {}
    seen = []
    board_with(FakeMachine(mem32=mem, reset=lambda: seen.append(dict(mem))), monkeypatch,
               RP2040).reset()
    (before,) = seen  # machine.reset() called once, the mark written before it
    assert list(before) == [SCRATCH3] and before[SCRATCH3] != 0
    return before[SCRATCH3]


@pytest.mark.parametrize("reason,marked,hung", [
    (1, False, True),  # TIMER: the watchdog expired
    (2, False, False),  # FORCE: machine.reset() (a flash, mpremote reset)
    (0, False, False),  # a power-on or RUN pin reset
    (1, True, False),  # expired, but after a reset made on purpose (its mark in SCRATCH3)
    (3, False, True),
])
def test_on_the_rp2040_only_the_watchdogs_expiry_is_a_hang(monkeypatch, reason, marked, hung):
    mem = {REASON: reason, SCRATCH3: reset_mark(monkeypatch) if marked else 0}
    b = board_with(FakeMachine(mem32=mem, reset_cause=lambda: 3), monkeypatch, RP2040)
    assert b.watchdog_reset() is hung
    assert mem[SCRATCH3] == 0  # the mark is read once


def test_a_reset_on_purpose_marks_scratch3_on_the_rp2040_only(monkeypatch):
    assert 0 < reset_mark(monkeypatch) < 1 << 30  # a small int on the Pico: no allocation
    mem: dict[int, int] = {}
    seen = []
    b = board_with(FakeMachine(mem32=mem, reset=lambda: seen.append(1)), monkeypatch,
                   "Raspberry Pi Pico 2 with RP2350")
    b.reset()
    assert seen == [1] and mem == {}


def test_the_fault_and_notice_patterns_are_distinct():
    """Fault: every tile red or dark in alternation, red X dice; notice: amber, steady X."""
    f = bytearray(fr.size(9))
    fr.fault(f, 9, 0, 0)
    assert list(f[:9]) == [fr.OFF, fr.RED] * 4 + [fr.OFF]
    fr.fault(f, 9, 250, 0)
    assert list(f[:9]) == [fr.RED, fr.OFF] * 4 + [fr.RED]
    assert face("".join("x" if c else "." for c in f[9:16])) == 5
    assert set(f[9:]) == {fr.RED, fr.OFF}
    fr.notice(f, 9, 0b1010, 0, 0)
    assert tiles_lit("".join(chr(fr.NAMES[c]) for c in f[:9]), "Y") == [2, 4]
    assert set(f[9:]) == {fr.AMBER, fr.OFF}
    fr.notice(f, 9, 0b1010, 100, 0)
    assert set(f[:9]) == {fr.OFF}  # the reasons blink fast


def test_a_box_flashed_without_its_tables_names_the_file_and_shows_the_fault(tmp_path):
    """No tables/moves.bin (an incomplete copy): the guard's fault names the missing file."""
    import shutil
    import subprocess

    tree = tmp_path / "fw"
    shutil.copytree(boxsim.build(), tree, symlinks=True)
    (tree / "shutbox" / "tables").unlink()  # the build links the tables in: take them away
    (tree / "shutbox" / "tables").mkdir()
    argv, env = boxsim.command("--flash", str(tmp_path / "flash"), "--powerup", heapsize=HEAP)
    env["MICROPYPATH"] = str(tree)
    p = subprocess.run(argv, input="w 1000\nq\n", capture_output=True, text=True, env=env,
                       timeout=60, **boxsim.tied())
    frames, _, log, _ = boxsim.parse(p.stdout)
    faults = [e for e in log if e["ev"] == "fault"]
    assert faults and faults[0]["error"] == "OSError", p.stdout[-2000:]
    assert "moves.bin" in faults[0]["text"], faults[0]
    assert "missing table file" in (tmp_path / "flash" / "error.log").read_text()
    assert any(f[2] == f[3] == "RR.R.RR" for f in frames), "the fault pattern was never drawn"
# ----- a reset made on purpose is no hang (issue 17): rp2's machine.reset() is the watchdog's ---


def test_a_reset_on_purpose_is_no_hang(tmp_path):
    """machine.reset() (a flash, mpremote reset) restarts the chip through its watchdog: the
    reset cause reads WDT_RESET as after a hang, REASON FORCE; the box resumes with no notice
    and logs nothing."""
    s = a_move(Script()).reset().wait(500).state()
    r = run(s, "--wdt", "2000", flash=tmp_path)
    (cause, _at), = resets(r)
    assert cause == 3 and reasons(r) == [2]  # machine.WDT_RESET, REASON.FORCE
    assert r.events("resume") and not r.events("notice")
    assert not (tmp_path / "error.log").exists()
    assert r.states()[0]["state"] == READY and r.states()[0]["open"] == 0xFF


def test_after_a_hang_a_reset_on_purpose_and_a_power_cut_are_no_hangs(tmp_path):
    """The hang is logged once: REASON says FORCE after machine.reset(), 0 after a power cut."""
    s = a_move(Script())
    inject(s, HANG).wait(3000)
    s.reset().wait(500).power_cut().wait(500).state()
    r = run(s, "--wdt", "2000", flash=tmp_path)
    assert [c for c, _ in resets(r)] == [3, 3, 0] and reasons(r) == [1, 2, 0]
    assert [e["tiles"] for e in r.events("notice")] == [[4]]  # after the hang only
    assert (tmp_path / "error.log").read_text().count("watchdog reset") == 1
    assert r.states()[0]["state"] == READY


def _booted(flash, script):
    """The box booted as the Pico boots it (boxrun --main), the watchdog at 2 s."""
    from shutbox_host.bench import game as bench_game

    return bench_game.boot_run(flash, None, script, HEAP)


def test_booted_as_the_pico_a_reset_on_purpose_is_no_hang_and_a_hang_is(tmp_path):
    """Through firmware/main.py and app.main: machine.reset() gives no notice and no log line;
    a hang (its 8 s watchdog) gives both; the rescue's restart of a box that cannot start
    is a reset on purpose (Board.reset: its mark in SCRATCH3)."""
    s = a_move(Script()).reset().wait(1000)
    inject(s, HANG).wait(9000).state()
    r = _booted(tmp_path / "a", s)
    assert reasons(r) == [2, 1]
    assert [e["tiles"] for e in r.events("notice")] == [[4]]
    assert r.log.index(r.events("notice")[0]) > r.log.index(r.events("resume")[1])
    assert (tmp_path / "a" / "error.log").read_text().count("watchdog reset") == 1
