# RAM with every feature on: the 64 KB budget, allocation-free steps, what loads the table.
"""The heap the firmware takes with every feature on (the computer, best-move hints and the
analysis, Canoga stakes, settings, records and the game saved on flash, the guard and the
watchdog), under the real MicroPython unix port (64-bit) on the simulated board, booted as the
Pico boots (boxrun --main: the launcher, firmware/main.py, the power-up, app.main, from a
flash folder holding the settings file): shutbox_host.bench.game.all_features, also reported
by ``shutbox bench --json`` (all_features_peak_heap_bytes).

The firmware's own share is the peak minus what the simulated board and the harness held
before the first firmware module was imported (boxrun prints it as BASE; on the Pico the
simulated machine and neopixel modules are C code). Issue 4 asks for 64 KB: the share at the
peak is within it, and the whole game completes on a heap capped at 64 KB plus the harness'
base. Issue 11 item 6: the scenarios an independent harness found to depend on luck (a box
that never starts, a game that runs out, a restart that fails, a dark box) each hold on that
cap and fail with clearly less (the controls).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from shutbox import engine, settings
from shutbox_host import mp
from shutbox_host.bench import game as bench_game

FIRMWARE_CAP = 64 * 1024  # issue 4: the firmware within a 64 KB heap
MP_DIR = Path(__file__).resolve().parents[1] / "mp"


@pytest.fixture(scope="module")
def figures():
    return bench_game.all_features(min_heap=False)


def test_every_feature_peaks_within_64k(figures):
    """Issue 4: with every feature on, the firmware's share of the heap at its peak (sampled
    after every LED write, after gc.collect()) is at most 64 KB."""
    fw = figures["all_features_firmware_peak_heap_bytes"]
    assert 0 < fw <= FIRMWARE_CAP, figures
    assert figures["all_features_peak_heap_bytes"] == fw + figures[
        "all_features_harness_heap_bytes"]


def test_every_feature_runs_on_a_64k_heap_for_the_firmware(figures, tmp_path):
    """(b) The whole all-features game, booted as the Pico boots from its settings file,
    completes with -X heapsize = the harness' base (the simulated board and boxrun, which on
    the Pico are C code and ROM) + FIRMWARE_ROOM (the room of the games the guard plays: its
    64 KB, fragmentation on the 64-bit port, the match's pass: bench_game); 8 KB less than
    its 64 KB and it runs out (the control)."""
    base = figures["all_features_harness_heap_bytes"]
    cap = bench_game.boot_cap(base)
    assert bench_game.all_features_completes(str(tmp_path / "a"), cap)
    assert not bench_game.all_features_completes(str(tmp_path / "b"),
                                                 base + FIRMWARE_CAP - 8 * 1024)


def test_the_game_completes_on_a_heap_capped_near_its_peak(figures, tmp_path):
    """The all-features game completes with -X heapsize = its peak + 24 KB (fragmentation
    and the GC's own tables) and fails on 64 KB for everything: the cap is real."""
    peak = figures["all_features_peak_heap_bytes"]
    assert bench_game.all_features_completes(str(tmp_path / "a"), peak + 24 * 1024)
    assert not bench_game.all_features_completes(str(tmp_path / "b"), 64 * 1024)


# ----- the computer's and the coach's steps allocate nothing -----


@pytest.mark.parametrize("level", [1, 2, 3])
def test_computer_and_coach_steps_allocate_nothing(level):
    r = mp.run(MP_DIR / "computer_heaplock.py", str(level), "30", heapsize="256k")
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip().endswith("OK"), r.stdout
    steps = int(r.stdout.split("STEPS")[1].split()[0])
    assert steps > 100


# ----- the optimal-play table is loaded only for the features that read it -----
# (the private constants' copies are written from one table: tests/firmware/test_consts.py)


def test_only_the_hard_computer_and_best_hints_need_the_table():
    assert settings.needs_table(settings.Settings(computer=engine.LEVEL_HARD))
    assert settings.needs_table(settings.Settings(hints=settings._HINT_BEST))
    assert not settings.needs_table(settings.Settings(computer=engine.LEVEL_MEDIUM, hints=1))


# ----- booted as the Pico boots: memory that does not depend on luck (issue 11, item 6) -----
# boxrun --main (bench_game.boot_run): the launcher, firmware/main.py, the power-up screens and
# app.main, from a flash folder laid out as `shutbox flash` leaves it, holding a saved settings
# file; the firmware's heap is FIRMWARE_ROOM on top of the harness' base (bench_game.boot_cap). The
# scenarios are bench_game's, which also bisects the smallest heap of each.

LESS = 16 * 1024  # the controls: clearly less heap than the firmware's 64 KB


@pytest.fixture(scope="module")
def cap():
    return bench_game.boot_cap()


def test_booted_with_the_hard_computer_and_best_hints_the_box_starts(cap, tmp_path):
    """(a) The box starts from a saved settings file with the hard computer and best hints."""
    r = bench_game.hard_best_run(tmp_path / "a", cap)
    assert bench_game.trouble(r) == []
    assert r.events("game")[0]["computer"] == [3]
    assert bench_game.hard_best_starts(r)
    assert bench_game.trouble(bench_game.hard_best_run(tmp_path / "b", cap - LESS))


@pytest.mark.parametrize("name", sorted(bench_game.MATCH_BESIDE))
def test_the_match_beside_them_plays_both_turns_on_the_cap(cap, tmp_path, name):
    """One person and the hard computer with best hints, the match's play loaded beside the
    rounds module, shutbox.turn's game or both, or computed (shutbox.payout: another
    variant): both turns on the cap (the person's hints the match's: its analysis' goal),
    and not on clearly less."""
    want = bench_game.MATCH_BESIDE[name]
    script = bench_game.beside_script(want)
    r = bench_game.boot_run(tmp_path / "a", want, script, cap)
    assert bench_game.trouble(r) == [] and len(r.events("score")) == 2, r.events("score")
    assert r.events("score")[0]["analysis"]["goal"] == "match"
    r = bench_game.boot_run(tmp_path / "b", want, script, cap - LESS)
    assert bench_game.trouble(r) or len(r.events("score")) < 2


@pytest.mark.parametrize("name", sorted(bench_game.MATCH_BESIDE))
def test_roll_recovers_beside_the_match(cap, tmp_path, name):
    """A MemoryError at five points of each game of bench_game.MATCH_BESIDE; Roll restarts
    every time (the match's code loaded at the start, not among a game's garbage, leaves a
    restart its room: loaded at the first turn it did not, at 2 or 3 points of 10)."""
    from shutbox_host.model.script import Script

    want = bench_game.MATCH_BESIDE[name]
    lines = bench_game.beside_script(want).lines
    waits = [i + 1 for i, x in enumerate(lines) if x.startswith("w ")]
    got = []
    for k in range(5):
        s = Script()
        s.lines = lines[:waits[(len(waits) - 1) * k // 4]] + ["x 3 0"]  # simbus.FAULT_MEMORY
        s.wait(500).release().wait(100).click(120).wait(2000)
        got.append(bench_game.recovered(bench_game.boot_run(tmp_path / str(k), want, s, cap)))
    assert got == [True] * 5


def test_two_people_with_best_hints_under_replay_play_on_the_cap(cap, tmp_path):
    """Two people, best-move hints, ties replayed: seat 2's hints are computed at its turn's
    start (shutbox.payout), late in the game, and again when Roll restarts the game after a
    fault in that turn; both turns play on the cap (the pass's arrays, made at each turn's
    start, found the heap kilobytes free but no hole of 2 KB there: shutbox.payout.load) and
    the restart recovers; not on clearly less."""
    from shutbox_host.model.script import Script

    want = {"players": 2, "hints": 2, "tie": 2}
    s = bench_game.people_script(2)
    r = bench_game.boot_run(tmp_path / "a", want, s, cap)
    assert bench_game.trouble(r) == [] and len(r.events("score")) == 2, bench_game.trouble(r)
    assert r.events("score")[1]["analysis"]["target"] == r.events("score")[0]["score"]
    f = Script()  # a fault as seat 2's first throw lands, then Roll
    f.lines = s.lines[:[i for i, x in enumerate(s.lines) if x.startswith("d ")][3] + 4]
    f.lines.append("x 3 0")  # simbus.FAULT_MEMORY
    f.wait(500).release().wait(100).click(120).wait(2000)
    r = bench_game.boot_run(tmp_path / "b", want, f, cap)
    assert bench_game.recovered(r), bench_game.trouble(r)
    assert [e["player"] for e in r.events("resume")] == [2]
    r = bench_game.boot_run(tmp_path / "c", want, s, cap - LESS)
    assert bench_game.trouble(r) or len(r.events("score")) < 2


def test_roll_recovers_from_a_fault_ten_times_in_ten(cap, tmp_path):
    """(c) A MemoryError at ten points of the all-features game; Roll restarts every time."""
    points = bench_game.fault_points()
    assert len(set(points)) == bench_game.RECOVERIES == 10
    got = [bench_game.recovered(bench_game.recovery_run(tmp_path / str(i), cap, at))
           for i, at in enumerate(points)]
    assert got == [True] * 10
    assert not bench_game.recovered(bench_game.recovery_run(tmp_path / "c", cap - LESS,
                                                            points[-1]))  # the control


def test_a_memory_error_while_main_imports_shows_the_fault_and_restarts(cap, tmp_path):
    """(d) The .py fallback cannot fit: main.py's imports fail outside the app's guard."""
    r = bench_game.py_fallback_run(tmp_path / "a", cap)
    assert not r.events("game")  # the .py firmware does not fit: main.py fails importing
    assert bench_game.shows_the_fault(r, tmp_path / "a"), r.lines
    # the restart is a reset on purpose (its mark in SCRATCH3, REASON FORCE): no hang logged
    assert "watchdog reset" not in (tmp_path / "a" / "error.log").read_text()
    # the control: 32 KB less, too little to compile even the rescue's modules from .py
    assert not bench_game.shows_the_fault(bench_game.py_fallback_run(tmp_path / "b",
                                                                     cap - 2 * LESS),
                                          tmp_path / "b")


def test_the_box_never_goes_dark_when_the_heap_runs_out(cap, tmp_path):
    """The all-features game on heaps just below what it needs (64 KB to 66 KB, 128-byte
    steps): runs out at a different point on each (the heap's layout moves), in the guard or
    outside it (firmware/main.py, then shutbox.rescue); none ends dark, a fault shows its
    pattern."""
    base = cap - bench_game.FIRMWARE_ROOM
    got = {}
    for k in range(0, 2 * 1024, 128):
        held, t = bench_game.never_dark(tmp_path / str(k), base + FIRMWARE_CAP + k)
        if not held:
            got[k] = t
    assert got == {}
