# RAM with every feature on: the 64 KB budget, allocation-free steps, constants kept private.
"""The heap the firmware takes with every feature on (the computer, best-move hints and the
analysis, Canoga stakes, settings, records and the game saved on flash, the guard and the
watchdog), under the real MicroPython unix port (64-bit) on the simulated board, booted
through shutbox.powerup as on the Pico: shutbox_host.bench_game.all_features, also reported
by ``shutbox bench --json`` (all_features_peak_heap_bytes).

The firmware's own share is the peak minus what the simulated board and the harness held
before the first firmware module was imported (boxrun prints it as BASE). Issue 4 asks for
64 KB; the 64-bit port measures more than that (shutbox bench), so that test is an
expected failure until it fits, and a budget test catches growth in the meantime.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from shutbox import coach, computer, engine, game, settings, variants
from shutbox_host import bench_game, mp

FIRMWARE_CAP = 64 * 1024  # issue 4: the firmware within a 64 KB heap
FIRMWARE_BUDGET = 92 * 1024  # what it takes now on the 64-bit port, plus 4 KB of room
MP_DIR = Path(__file__).resolve().parent / "mp"


@pytest.fixture(scope="module")
def figures():
    return bench_game.all_features(min_heap=False)


def test_every_feature_runs_within_its_budget(figures):
    fw = figures["all_features_firmware_peak_heap_bytes"]
    assert 0 < fw <= FIRMWARE_BUDGET, figures
    assert figures["all_features_peak_heap_bytes"] == fw + figures[
        "all_features_harness_heap_bytes"]


@pytest.mark.xfail(strict=True, reason="the 64-bit unix port measures about 88 KB for the "
                   "firmware with every feature on (shutbox bench: all_features_*); "
                   "the Pico's 32-bit "
                   "objects and qstr pools are smaller")
def test_the_firmware_fits_64k_with_every_feature_on(figures):
    assert figures["all_features_firmware_peak_heap_bytes"] <= FIRMWARE_CAP, figures


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
        (game._MODE_LOCKED, v.MODE_LOCKED), (game._MODE_FORCED, v.MODE_FORCED),
        (settings._ONE_DIE_HIGH_SHUT, v.ONE_DIE_HIGH_SHUT),
        (computer._EASY, engine.LEVEL_EASY), (computer._MEDIUM, engine.LEVEL_MEDIUM),
        (computer._SETUP, game.SETUP), (computer._READY, game.READY),
        (computer._MOVE, game.MOVE), (computer._MAX_SEATS, game._MAX_PLAYERS),
        (coach._P_SCALE, engine.P_SCALE), (coach._CYCLE_MS, game._CYCLE_MS),
        (coach._CYCLE2_MS, game._CYCLE2_MS),
    ]
    assert [a for a, b in pairs] == [b for a, b in pairs]
    assert settings.Settings(computer=engine.LEVEL_HARD).needs_table()
    assert not settings.Settings(computer=engine.LEVEL_MEDIUM, hints=1).needs_table()
