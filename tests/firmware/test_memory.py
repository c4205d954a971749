# RAM with every feature on: the 64 KB budget, allocation-free steps, constants kept private.
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

from shutbox import app as _app
from shutbox import board as _board
from shutbox import coach, computer, engine, frame, game, hand, setnames, settings, variants
from shutbox import debounce as _debounce
from shutbox import guard as _guard
from shutbox import menu as _menu
from shutbox import powerup as _powerup
from shutbox import records as _records
from shutbox import rescue as _rescue
from shutbox import resume as _resume
from shutbox import rounds as _rounds
from shutbox import sleep as _sleep
from shutbox import store as _store
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
    completes with -X heapsize = 64 KB + the harness' base (the simulated board and boxrun,
    which on the Pico are C code and ROM); 8 KB less and it runs out (the control)."""
    cap = bench_game.boot_cap(figures["all_features_harness_heap_bytes"])
    assert bench_game._all_features_completes(str(tmp_path / "a"), cap)
    assert not bench_game._all_features_completes(str(tmp_path / "b"), cap - 8 * 1024)


def test_the_game_completes_on_a_heap_capped_near_its_peak(figures, tmp_path):
    """The all-features game completes with -X heapsize = its peak + 24 KB (fragmentation
    and the GC's own tables) and fails on 64 KB for everything: the cap is real."""
    peak = figures["all_features_peak_heap_bytes"]
    assert bench_game._all_features_completes(str(tmp_path / "a"), peak + 24 * 1024)
    assert not bench_game._all_features_completes(str(tmp_path / "b"), 64 * 1024)


# ----- the computer's and the coach's steps allocate nothing -----


@pytest.mark.parametrize("level", [1, 2, 3])
def test_computer_and_coach_steps_allocate_nothing(level):
    r = mp.run(MP_DIR / "computer_heaplock.py", str(level), "30", heapsize="256k")
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip().endswith("OK"), r.stdout
    steps = int(r.stdout.split("STEPS")[1].split()[0])
    assert steps > 100


# ----- private constants: the copies match their sources -----


def test_private_constants_match_their_sources():
    """Modules keep private copies of a few constants (folded in at compile time, no module
    globals in RAM); each copy equals the value it stands for."""
    v = variants
    pairs = [
        (engine._MIN_TILES, v.MIN_TILES), (engine._MAX_TILES, v.MAX_TILES),
        (engine._DEFAULT_TILES, v.DEFAULT_TILES), (engine._ONE_DIE_NEVER, v.ONE_DIE_NEVER),
        (engine._ONE_DIE_HIGH_SHUT, v.ONE_DIE_HIGH_SHUT),
        (engine._ONE_DIE_SUM_LE_6, v.ONE_DIE_SUM_LE_6), (engine._ONE_DIE_RULES, len(v.ONE_DIE)),
        (engine._MODE_OPTIONAL, v.MODE_OPTIONAL), (engine._MODE_LOCKED, v.MODE_LOCKED),
        (engine._MODE_FORCED, v.MODE_FORCED), (engine._MODES, len(v.ONE_DIE_MODE)),
        (engine._MOVES_ANY, v.MOVES_ANY), (engine._MOVE_RULES, len(v.MOVES)),
        (engine._SCORING_SUM, v.SCORING_SUM), (engine._SCORING_DIGITAL, v.SCORING_DIGITAL),
        (engine._SCORING_COUNT, v.SCORING_COUNT), (engine._SCORINGS, len(v.SCORING)),
        (engine._START_ALL_OPEN, v.START_ALL_OPEN),
        (engine._START_LOW_THREE_SHUT, v.START_LOW_THREE_SHUT),
        (engine._START_ODD_OPEN, v.START_ODD_OPEN), (engine._START_EVEN_OPEN, v.START_EVEN_OPEN),
        (engine._STARTS, len(v.START)),
        (game._MAX_MOVES, engine.MAX_MOVES),
        (game._MODE_LOCKED, v.MODE_LOCKED), (game._MODE_FORCED, v.MODE_FORCED),
        (game._HINT_OFF, settings._HINT_OFF), (game._HINT_BEST, settings._HINT_BEST),
        (game._FAST_MS, frame._FAST_MS), (game._OFF, frame.OFF), (game._WHITE, frame.WHITE),
        (game._GREEN, frame.GREEN), (game._RED, frame.RED), (game._AMBER, frame.AMBER),
        (game._BLUE, frame.BLUE), (game._MAGENTA, frame.MAGENTA), (game._CYAN, frame.CYAN),
        (settings._ONE_DIE_HIGH_SHUT, v.ONE_DIE_HIGH_SHUT),
        (_board._COLOURS, frame.COLOURS), (_board._PIPS, frame._PIPS),
        (computer._EASY, engine.LEVEL_EASY), (computer._MEDIUM, engine.LEVEL_MEDIUM),
        (computer._SETUP, game.SETUP), (computer._READY, game.READY),
        (computer._MOVE, game.MOVE), (computer._MAX_SEATS, game._MAX_PLAYERS),
        (coach._P_SCALE, engine.P_SCALE), (coach._CYCLE_MS, game._CYCLE_MS),
        (coach._CYCLE2_MS, game._CYCLE2_MS),
        (_rounds._GAME_END, game.GAME_END), (_rounds._ROLLOFF, game._ROLLOFF),
        (_rounds._MAX, game._MAX_PLAYERS), (_rounds._SND_WIN, game._SND_WIN),
        (_rounds._SND_DIE, game._SND_ROLL), (_resume._ROLLOFF, game._ROLLOFF),
        (_resume._SND_NO, game._SND_NO), (_resume._EV_TILES, _debounce.EV_TILES),
        (_resume._EV_PRESSES, _debounce.EV_SHORT | _debounce.EV_LONG),
        (_resume._EV_ROLL, _debounce.EV_DOWN | _debounce._EV_UP),
        # the application shell (app, guard, powerup, menu, records, store)
        (_app._HINT_BEST, settings._HINT_BEST),
        (_powerup._NOTICE_SETTINGS, _app._NOTICE_SETTINGS),
        (_powerup._NOTICE_RECORDS, _app._NOTICE_RECORDS),
        (_guard._NOTICE_FAULT, _app._NOTICE_FAULT),
        (_rescue._WATCHDOG_MS, _app._WATCHDOG_MS), (_guard._POLL_MS, _powerup._POLL_MS),
        (_menu._MENU, _powerup._MENU), (_menu._RECORDS, _powerup._RECORDS),
        (_menu._BLINK_MS, frame._BLINK_MS), (_app._BLINK_MS, frame._BLINK_MS),
        (_menu._DIGIT_MS, frame._DIGIT_MS), (_menu._DIRECT_MAX, frame._DIRECT_MAX),
        (_menu._RESET_RECORDS, _powerup._RESET_RECORDS),
        (_menu._FACTORY, _powerup._FACTORY),
        (_menu._NONE, _records._NONE),
        (_records._TRUNCATED, _store._TRUNCATED),
        (_resume._NONE, _records._NONE),
        # the cells and sleep (the chip's: shutbox.sleep)
        (_sleep._ROLLING, game.ROLLING), (_sleep._NOTICE_BATTERY, _app._NOTICE_BATTERY),
        (len(_sleep._MINUTES), settings.COUNTS[19]),
        # real dice (shutbox.hand)
        (hand._SND_NO, game._SND_NO), (hand._SETUP, game.SETUP), (hand._READY, game.READY),
        (hand._ROLLING, game.ROLLING), (hand._MOVE, game.MOVE),
        (hand._ERR_NONE, game._ERR_NONE), (hand._ERR_SETUP, game._ERR_SETUP),
    ]
    assert [a for a, b in pairs] == [b for a, b in pairs]
    names = [v.ONE_DIE, v.ONE_DIE_MODE, v.MOVES, v.SCORING, v.START]
    assert game._RULE_NAMES == "/".join(
        " ".join((key,) + vals) for key, vals in zip(setnames.OPTIONS[3:8], names, strict=True))
    assert settings.Settings(computer=engine.LEVEL_HARD).needs_table()
    assert not settings.Settings(computer=engine.LEVEL_MEDIUM, hints=1).needs_table()


# ----- booted as the Pico boots: memory that does not depend on luck (issue 11, item 6) -----
# boxrun --main (bench_game.boot_run): the launcher, firmware/main.py, the power-up screens and
# app.main, from a flash folder laid out as `shutbox flash` leaves it, holding a saved settings
# file; the firmware's heap is 64 KB on top of the harness' base (bench_game.boot_cap). The
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
