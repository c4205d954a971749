# `shutbox bench --only settings`: the heap of the power-up screens and of games under settings.
"""Memory of the settings menu and of the game under its settings, measured as bench.game
does (the .mpy firmware on the simulated board under the MicroPython unix port; after every
LED write ``gc.collect()`` then ``gc.mem_alloc()``; the largest reading minus the base that
the simulated board and boxrun hold before the first firmware module is imported). Every run
boots as app.main does (``boxrun --flash DIR --powerup``: the power-up screen before the game's
modules, then settings and records from the flash, the guard and the saved game):

- settings_menu_peak_heap_bytes: Roll held at power-up; every page of the menu turned;
- settings_records_view_peak_heap_bytes: tile 2 shut: the four records pages;
- settings_default_game_peak_heap_bytes: a 2-player game (bench.game's) under the defaults;
- settings_all_game_peak_heap_bytes: a 2-player game with every game setting of
  shutbox.rounds on (3 rounds, roll-off, Canoga, same throws, unlucky-7, 2-to-go,
  most-tiles): three rounds, a tie, a roll-off;
- settings_rounds_extra_bytes: the difference of the two games' peaks.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from shutbox import setfile
from shutbox.settings import Settings
from shutbox.store import Store
from shutbox_host.box import boxsim
from shutbox_host.box.plan import plan_game
from shutbox_host.model.script import ROLL_MS, Script

ALL_SETTINGS = Settings(players=2, format=1, tie=1, stakes=1, same_throws=1, unlucky7=1,
                        to_go=1, most_tiles=1)


def _roll(s, *faces):
    s.dice(*faces).click(120).wait(ROLL_MS)


def all_game() -> Script:
    """Three rounds of 33 each (the second player's throws replayed), then a roll-off."""
    s = Script().wait(100)
    for _round in range(3):
        for first in (True, False):
            if first:
                _roll(s, 6, 6)  # 12: with the 2 (2-to-go), four tiles (most-tiles)
            else:
                s.click(120).wait(ROLL_MS)  # the same throws
            for k in (6, 3, 2, 1):
                s.flip(k).wait(80)
            s.wait(150)
            if first:
                _roll(s, 3, 4)  # 7: unlucky
            else:
                s.click(120).wait(ROLL_MS)
            s.wait(1000).click(120).wait(150).open(*range(1, 10)).wait(100)
    s.wait(800).dice(5).click(120).wait(800).dice(2).click(120).wait(800).click(120)
    return s.wait(3000)


def _menu() -> Script:
    s = Script().wait(100).release().wait(100)
    for _ in range(16):
        s.click(60).wait(60)
    return s.flip(3).wait(300)


def _records_view() -> Script:
    s = Script(levels=0x1FF & ~2).wait(100).release().wait(100)
    for _ in range(4):
        s.wait(2000).click(120)
    return s


def _peak(folder: Path, script: Script, settings: Settings | None, *args: str):
    """Run *script* booting from a fresh flash *folder*; return (the firmware's peak: the peak
    minus the simulated board's and boxrun's base, run)."""
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "data").mkdir(parents=True)
    if settings is not None:
        setfile.save(settings, Store(str(folder / "data")))
    r = boxsim.run(script, "--flash", str(folder), "--powerup", "--peak", *args,
                   heapsize="1m")
    if r.returncode != 0:
        raise RuntimeError("the settings bench failed: " + r.stderr.strip()[-300:])
    return r.answer("PEAK")[0] - r.answer("BASE")[0], r


def figures(soak: bool = False) -> dict:
    """Return the settings' heap figures (see the module docstring)."""
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        menu, _ = _peak(d / "menu", _menu(), None, "--roll-held")
        levels = str(0x1FF & ~2)
        view, _ = _peak(d / "view", _records_view(), None, "--roll-held", "--levels", levels)
        plan, _ = plan_game(2, 1, "best")
        default, r1 = _peak(d / "default", plan.wait(3000), Settings())
        every, r2 = _peak(d / "all", all_game(), ALL_SETTINGS)
    if not r1.events("winner") or r2.events("winner")[-1]["players"] != [2]:
        raise RuntimeError("a settings bench game did not end as planned")
    return {
        "settings_menu_peak_heap_bytes": menu,
        "settings_records_view_peak_heap_bytes": view,
        "settings_default_game_peak_heap_bytes": default,
        "settings_all_game_peak_heap_bytes": every,
        "settings_rounds_extra_bytes": every - default,
    }
