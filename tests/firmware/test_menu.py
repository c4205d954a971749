# The power-up combinations and screens on CPython: the settings menu, records, erasing.
"""shutbox.powerup and shutbox.menu driven through a fake board (levels, Roll, a clock).

The same screens run under MicroPython through the simulated pins in tests/test_powerup.py.
"""

from __future__ import annotations

import struct

import pytest
from test_game import bits

from shutbox import frame as fr
from shutbox import powerup, records, setfile, setnames
from shutbox.menu import Erase, Menu, RecordsView
from shutbox.records import Records
from shutbox.settings import Settings
from shutbox.store import Store
from shutbox_host.box.boxsim import face

NAMES = fr.NAMES.decode()
FULL = 0x1FF


class Board:
    """The Board API for the screens: levels and Roll set by the test, frames recorded."""

    tiles = 9

    def __init__(self, levels=FULL, roll=True):
        self.levels = levels
        self.rolling = roll
        self.frames: list[str] = []
        self.tones: list[int] = []

    def switches(self):
        return self.levels

    def roll(self):
        return self.rolling

    def show(self, frame):
        self.frames.append("".join(NAMES[c] for c in frame))

    def tone(self, hz, ms=0):
        self.tones.append(hz)


class Run:
    """A screen from power-up, stepped every 5 ms."""

    def __init__(self, tmp_path, levels=FULL, roll=True, st=None):
        self.board = Board(levels, roll)
        self.store = st or Store(str(tmp_path / "data"))
        self.now = 1000
        self.screen = powerup.prelude(self.board, self.store, self.now)
        self.done = False

    def wait(self, ms):
        for _ in range(ms // 5):
            self.now += 5
            if not self.done:
                self.done = self.screen.step(self.now)

    def release(self):
        self.board.rolling = False
        self.wait(100)

    def click(self):
        self.board.rolling = True
        self.wait(100)
        self.release()

    def hold(self):
        self.board.rolling = True
        self.wait(1000)
        self.release()

    def flip(self, k):
        self.board.levels ^= bits(k)
        self.wait(100)

    def shown(self):
        f = self.board.frames[-1]
        return f[:9], face(f[9:16]), face(f[16:23])


# ----- combinations -----


@pytest.mark.parametrize("shut,roll,mode", [
    ((), True, powerup._MENU),
    ((1,), True, powerup._SELFTEST),
    ((1, 5), True, powerup._SELFTEST),
    ((2,), True, powerup._RECORDS),
    ((2, 9), True, powerup._RESET_RECORDS),
    ((8, 9), True, powerup._FACTORY),
    ((3,), True, powerup._PLAY),
    ((2, 8), True, powerup._PLAY),
    ((), False, powerup._PLAY),
    ((2,), False, powerup._PLAY),
])
def test_combinations(shut, roll, mode):
    assert powerup.combination(FULL & ~bits(*shut), roll, 9) == mode


def test_tile_9_on_every_box_the_highest_on_smaller_ones():
    full = (1 << 12) - 1
    assert powerup.combination(full & ~bits(2, 9), True, 12) == powerup._RESET_RECORDS
    assert powerup.combination(full & ~bits(8, 9), True, 12) == powerup._FACTORY
    assert powerup.combination(full & ~bits(2, 12), True, 12) == powerup._PLAY
    full = (1 << 7) - 1
    assert powerup.combination(full & ~bits(6, 7), True, 7) == powerup._FACTORY


def test_no_screen_without_a_combination(tmp_path):
    assert Run(tmp_path, roll=False).screen is None
    assert Run(tmp_path, FULL & ~bits(1)).screen is None  # the self-test's


# ----- the settings menu -----


def test_the_menu_pages_and_values(tmp_path):
    r = Run(tmp_path)
    assert isinstance(r.screen, Menu)
    r.wait(50)
    assert r.shown() == ("WGWW.....", 1, 1)  # players: 1-4, 2 chosen
    r.release()  # letting go of Roll after power-up is no press
    assert r.screen.page == 0
    r.flip(3)  # players: 3
    assert r.shown() == ("WWGW.....", 1, 1)
    r.click()
    assert r.shown() == ("GWWW.....", 1, 2)  # computer: off
    r.flip(4)  # hard
    r.click()
    r.click()
    assert r.shown() == ("WGWW.....", 2, 1)  # one-die: high-shut
    r.flip(9)  # the highest tile: back a page
    assert r.shown()[1:] == (1, 3)
    r.flip(5)  # hints has three values: refused
    assert r.screen.vals[2] == 1 and r.board.tones[-1] == 200
    for _ in range(16):
        r.click()
    assert r.screen.page == 1  # round the pages
    assert not r.done


def test_every_page_shows_its_section_and_number(tmp_path):
    r = Run(tmp_path)
    r.release()
    seen = []
    for page in range(17):
        assert r.screen.page == page
        _, a, b = r.shown()
        seen.append((a, b))
        r.click()
    assert seen == [(1, 1), (1, 2), (1, 3), (2, 1), (2, 2), (2, 3), (2, 4), (2, 5),
                    (3, 1), (3, 2), (3, 3), (3, 4), (4, 1), (4, 2), (4, 3), (4, 4), (4, 5)]


def _to_page(r, page):
    while r.screen.page != page:
        r.click()


def test_a_long_roll_saves_and_ends_the_saved_game(tmp_path):
    st = Store(str(tmp_path / "data"))
    st.save("game", b"a game in progress", 1)
    r = Run(tmp_path, st=st)
    r.release()
    r.flip(3)  # 3 players
    _to_page(r, 12)
    r.flip(5)  # format: to-100
    r.hold()
    assert r.board.frames[-1][:9] == "GGGGGGGGG"  # saved
    r.wait(700)
    assert r.done and r.screen.changed
    s, status = setfile.load(st)
    assert status == 0 and s.players == 3 and setnames.names(s)["format"] == "to-100"
    assert st.load("game", 1) is None  # the saved game is over


def test_nothing_changed_nothing_written(tmp_path):
    r = Run(tmp_path)
    r.release()
    r.hold()
    r.wait(700)
    assert r.done and not r.screen.changed
    assert not (tmp_path / "data" / "settings").exists()


def test_settings_that_do_not_fit_are_not_saved(tmp_path):
    r = Run(tmp_path)
    r.release()
    _to_page(r, 7)
    r.flip(3)  # start: odd-open (the 2 starts shut)
    _to_page(r, 9)
    r.flip(2)  # 2-to-go
    _to_page(r, 12)
    n0 = len(r.board.frames)
    r.hold()
    r.wait(1000)
    assert not r.done and r.screen.page == 9 and r.screen.bad == 9
    assert {f[1] for f in r.board.frames[n0:]} == {"R", "."}  # the value blinks red
    assert {face(f[9:16]) for f in r.board.frames[n0:]} == {3}  # on page 3.2
    r.flip(1)  # to-go: off
    r.hold()
    r.wait(700)
    assert r.done and Store(str(tmp_path / "data")).load(setfile.NAME, 1) is not None


def test_a_failed_save_flashes_red(tmp_path):
    st = Store(str(tmp_path / "data"))
    r = Run(tmp_path, st=st)
    r.release()
    r.flip(4)
    st.save = lambda *a: 7  # the flash refuses (shutbox.store.IO_ERROR)
    r.hold()
    assert r.board.frames[-1][:9] == "RRRRRRRRR"
    r.wait(700)
    assert r.done


# ----- records -----


def _records(st, key, best, turns, shut, games):
    r = Records(st, key)
    r.buf[:16] = struct.pack(records._FORMAT, key, best, turns, shut, games)
    r.n = 1
    r.save()


def test_the_records_pages(tmp_path):
    st = Store(str(tmp_path / "data"))
    _records(st, setfile.variant_key(Settings(), 9), 4, 120, 9, 37)
    r = Run(tmp_path, FULL & ~bits(2), st=st)
    assert isinstance(r.screen, RecordsView)
    r.release()
    got = []
    for _ in range(4):
        r.wait(500)
        label = r.shown()
        r.wait(1000)
        f = r.board.frames[-1]
        got.append((label[1], f[:9].count(".") < 9 or f[9:].strip(".") != "", f))
        r.click()
    assert [g[0] for g in got] == [1, 2, 3, 4]
    numbers = []
    for *_, f in got:
        units = 9 - f[:9].count(".")
        numbers.append(10 * (face(f[9:16]) + face(f[16:23])) + units)
    assert numbers == [4, 9, 37, 120]
    colours = [set(f.replace(".", "")) for *_, f in got]
    assert colours[0] == {"B"} and colours[1] == {"G"} and colours[2] == {"W"}
    r.hold()
    assert r.done


def test_no_records_yet_shows_the_label_only(tmp_path):
    r = Run(tmp_path, FULL & ~bits(2))
    r.wait(2000)
    assert r.shown() == ("M........", 1, 0)


# ----- erasing -----


def test_erase_the_records_once_confirmed(tmp_path):
    st = Store(str(tmp_path / "data"))
    _records(st, 1, 0, 1, 1, 1)
    setfile.save(Settings(players=4), st)
    r = Run(tmp_path, FULL & ~bits(2, 9), st=st)
    assert isinstance(r.screen, Erase)
    r.wait(50)
    tiles, a, _ = r.shown()
    assert a == 2 and set(tiles) <= {"R", "."}
    r.release()
    r.hold()
    r.wait(700)
    assert r.done and st.load(records.NAME, 1) is None
    assert setfile.load(st)[0].players == 4  # the settings stay


def test_factory_reset_erases_settings_and_records(tmp_path):
    st = Store(str(tmp_path / "data"))
    _records(st, 1, 0, 1, 1, 1)
    setfile.save(Settings(players=4), st)
    r = Run(tmp_path, FULL & ~bits(8, 9), st=st)
    r.wait(50)
    assert r.shown()[1] == 3
    r.release()
    r.hold()
    r.wait(700)
    assert r.done and r.screen.changed and r.screen.settings.players == 2
    assert st.load(records.NAME, 1) is None and st.load(setfile.NAME, 1) is None


@pytest.mark.parametrize("how", ["click", "flip"])
def test_erase_can_be_left_without_erasing(tmp_path, how):
    st = Store(str(tmp_path / "data"))
    _records(st, 1, 0, 1, 1, 1)
    r = Run(tmp_path, FULL & ~bits(8, 9), st=st)
    r.release()
    r.click() if how == "click" else r.flip(9)
    r.wait(100)
    assert r.done and not r.screen.changed and st.load(records.NAME, 1) is not None
