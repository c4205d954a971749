# The power-up combinations and screens on CPython: the settings menu, records, erasing.
"""shutbox.powerup and shutbox.menu on the CPython box (shutbox_host.box.drive.CpyBox) powered
up on a flash folder with a combination held, driven through its pins.

The same screens run under MicroPython through the simulated pins in
tests/firmware/test_powerup.py.
"""

from __future__ import annotations

import struct

import pytest
from test_game import bits

from shutbox import powerup, records, setfile, setnames
from shutbox.menu import Erase, Menu, RecordsView
from shutbox.records import Records
from shutbox.settings import Settings
from shutbox.store import Store
from shutbox_host.box.drive import CpyBox
from shutbox_host.model.leds import face

FULL = 0x1FF


def power_up(tmp_path, levels=FULL, roll=True, st=None, tiles=9):
    """The CPython box powered up with the tiles *levels* and Roll held (*roll*) on the flash
    *st* (None: a new one in tmp_path): its power-up screen (``screen``), stepped."""
    return CpyBox(tiles=tiles, levels=levels, held=roll,
                  store=st or Store(str(tmp_path / "data")))


# what a player does on a screen, each followed by the time for it to answer


def release(r):
    r.release()
    r.advance(100)


def click(r):
    r.press()
    r.advance(100)
    release(r)


def hold(r):
    r.press()
    r.advance(1000)
    release(r)


def flip(r, k):
    r.flip(k)
    r.advance(100)


def frames(r):
    """Every frame the box showed: the tiles, then die A's pips, then die B's (letters)."""
    return ["".join(f[1:]) for f in r.shown().frames]


def tones(r):
    """Every note the box played (Hz, 0: silence), as heard."""
    return [hz for _, hz in r.shown().tones]


def last(r):
    """The picture now: the tiles (letters) and the two dice's faces."""
    _, tiles, a, b = r.shown().frames[-1]
    return tiles, face(a), face(b)


# ----- combinations -----


@pytest.mark.parametrize("shut,roll,mode", [
    ((), True, powerup._MENU),
    ((1,), True, powerup._SELFTEST),
    ((1, 5), True, powerup._SELFTEST),
    ((2,), True, powerup._RECORDS),
    ((2, 9), True, powerup._RESET_RECORDS),
    ((8, 9), True, powerup._FACTORY),
    ((3,), True, powerup._GAUGE),
    ((3,), False, powerup._PLAY),
    ((3, 4), True, powerup._PLAY),
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
    assert power_up(tmp_path, roll=False).screen is None
    assert power_up(tmp_path, FULL & ~bits(1)).screen is None  # the self-test's


# ----- the settings menu -----


def test_the_menu_pages_and_values(tmp_path):
    r = power_up(tmp_path)
    assert isinstance(r.screen, Menu)
    r.advance(50)
    assert last(r) == ("WGWW.....", 1, 1)  # players: 1-4, 2 chosen
    release(r)  # letting go of Roll after power-up is no press
    assert r.screen.page == 0
    flip(r, 3)  # players: 3
    assert last(r) == ("WWGW.....", 1, 1)
    click(r)
    assert last(r) == ("GWWW.....", 1, 2)  # computer: off
    flip(r, 4)  # hard
    click(r)
    click(r)
    assert last(r) == ("WGWW.....", 2, 1)  # one-die: high-shut
    flip(r, 9)  # the highest tile: back a page
    assert last(r)[1:] == (1, 3)
    flip(r, 5)  # hints has three values: refused
    assert r.screen.vals[2] == 1 and tones(r)[-1] == 200
    for _ in range(25):
        click(r)
    assert r.screen.page == 1  # round the pages
    assert not r.done


def test_every_page_shows_its_section_and_number(tmp_path):
    r = power_up(tmp_path)
    release(r)
    seen = []
    for page in range(26):
        assert r.screen.page == page
        _, a, b = last(r)
        seen.append((a, b))
        click(r)
    assert seen == [(1, 1), (1, 2), (1, 3), (2, 1), (2, 2), (2, 3), (2, 4), (2, 5),
                    (3, 1), (3, 2), (3, 3), (3, 4), (4, 1), (4, 2), (4, 3), (4, 4), (4, 5),
                    (5, 1), (5, 2), (5, 3), (6, 1), (6, 2), (6, 3), (6, 4), (6, 5), (6, 6)]
    assert r.screen.page == 0


SOUND, BRIGHTNESS, SLEEP, REAL_DICE, TWO_TILES, TIMEOUT, RESIGN, LONG, CODE = range(17, 26)


def test_sound_and_brightness_take_effect_as_they_are_chosen(tmp_path):
    st = Store(str(tmp_path / "data"))
    st.save("game", b"a game in progress", 1)
    r = power_up(tmp_path, st=st)
    assert (r.board.sound, r.board.light) == (2, 1)  # the defaults: loud, medium
    release(r)
    _to_page(r, SOUND)
    assert last(r) == ("WWG......", 5, 1)
    n = len(tones(r))
    flip(r, 1)  # off: the chirp of the choice is silent
    assert r.board.sound == 0 and not any(tones(r)[n:])
    n = len(tones(r))
    flip(r, 2)  # soft
    assert r.board.sound == 1 and 1320 in tones(r)[n:]
    click(r)
    assert last(r) == ("WGW......", 5, 2)
    flip(r, 3)  # high
    assert r.board.light == 2
    hold(r)
    r.advance(700)
    assert r.done and r.screen.changed
    s, _ = setfile.load(st)
    assert (s.sound, s.brightness) == (1, 2)
    assert st.load("game", 1) == b"a game in progress"  # they change no game: it goes on


def test_the_sleep_page_chooses_the_idle_time_and_ends_no_game(tmp_path):
    st = Store(str(tmp_path / "data"))
    st.save("game", b"a game in progress", 1)
    r = power_up(tmp_path, st=st)
    release(r)
    _to_page(r, SLEEP)
    assert last(r) == ("WWGWW....", 5, 3)  # off, 1, 5, 10, 30 minutes: 5 chosen
    flip(r, 6)  # no sixth value: refused
    assert tones(r)[-1] == 200
    flip(r, 1)  # off: the box never sleeps
    assert last(r) == ("GWWWW....", 5, 3)
    hold(r)
    r.advance(700)
    assert r.done and r.screen.changed
    assert setfile.load(st)[0].sleep == 0
    assert st.load("game", 1) == b"a game in progress"  # the idle time changes no game


def test_the_saved_sound_and_brightness_apply_from_power_up(tmp_path):
    st = Store(str(tmp_path / "data"))
    setfile.save(setnames.parse("sound=off,brightness=low"), st)
    r = power_up(tmp_path, FULL & ~bits(2), st=st)  # the records: any screen
    assert (r.board.sound, r.board.light) == (0, 0)


def _enter(r, *digits):
    """Enter a code digit by digit: flip as many tiles as the digit (the next ones in turn,
    so that some go up and some down), then a short Roll."""
    k = 0
    for d in digits:
        for _ in range(d):
            flip(r, k % 9 + 1)
            k += 1
        click(r)


def test_a_code_entered_on_the_tiles(tmp_path):
    st = Store(str(tmp_path / "data"))
    st.save("game", b"a game in progress", 1)
    r = power_up(tmp_path, st=st)
    release(r)
    _to_page(r, CODE)
    r.advance(200)
    assert last(r) == ("GW.......", 6, 6)  # tile 1: no code
    flip(r, 2)  # enter one
    assert r.screen.entry == 0
    assert last(r) == (".........", 1, 0) and "C" in frames(r)[-1][9:16]
    flip(r, 5)
    flip(r, 6)
    assert last(r)[0] == "CC......."  # two tiles flipped: a 2 so far
    flip(r, 6)  # flipped back: no more
    assert last(r)[0] == "C........"
    click(r)  # the first digit: 1
    assert r.screen.entry == 1 and last(r)[1] == 2
    click(r)  # 0
    _enter(r, 9, 7)
    assert r.screen.entry == -1 and r.screen.code == 1097
    # the code shows at once, digit by digit: die A the place, the tiles the digit (cyan)
    seen = []
    for _ in range(4):
        f = frames(r)[-1]
        seen.append((face(f[9:16]), f[:9].count("C"), set(f[:9]) <= {"C", "."}))
        r.advance(900)
    assert seen == [(1, 1, True), (2, 0, True), (3, 9, True), (4, 7, True)]
    hold(r)
    r.advance(700)
    assert r.done and r.screen.changed
    s, _ = setfile.load(st)
    assert s.code == 1097 and setnames.names(s)["code"] == "1097"
    assert st.load("game", 1) is None  # a new code: the saved game is over


def test_more_than_nine_tiles_is_no_digit_and_a_long_roll_keeps_the_old_code(tmp_path):
    st = Store(str(tmp_path / "data"))
    setfile.save(Settings(code=4321), st)
    r = power_up(tmp_path, st=st)
    release(r)
    _to_page(r, CODE)
    r.advance(100)
    assert last(r) == ("WG.......", 6, 6)  # tile 2: a code
    r.advance(1000)
    f = frames(r)[-1]
    assert face(f[9:16]) == 1 and f[:9] == "CCCC....."  # its first digit, 4
    flip(r, 2)
    _enter(r, 3)
    assert r.screen.entry == 1
    hold(r)  # before the fourth digit: the old code stays
    r.advance(700)
    assert r.done and not r.screen.changed and r.screen.settings.code == 4321
    assert setfile.load(st)[0].code == 4321


def test_ten_tiles_flipped_blink_red_and_roll_enters_nothing(tmp_path):
    r = power_up(tmp_path, (1 << 12) - 1, tiles=12)
    release(r)
    _to_page(r, CODE)
    flip(r, 2)
    for k in range(1, 11):
        flip(r, k)
    r.advance(150)
    assert frames(r)[-1][:12] in ("RRRRRRRRRRRR", "............")
    n = len(tones(r))
    click(r)
    assert r.screen.entry == 0 and tones(r)[n:][0] == 200  # a buzz, still digit 1
    flip(r, 10)
    click(r)  # 9
    assert r.screen.entry == 1 and r.screen.digits == 9


def test_tile_1_on_the_code_page_turns_the_code_off(tmp_path):
    st = Store(str(tmp_path / "data"))
    setfile.save(Settings(code=7), st)
    r = power_up(tmp_path, st=st)
    release(r)
    _to_page(r, CODE)
    flip(r, 1)
    assert r.screen.code == -1 and last(r) == ("GW.......", 6, 6)
    hold(r)
    r.advance(700)
    assert setfile.load(st)[0].code == -1


def _to_page(r, page):
    while r.screen.page != page:
        click(r)


def test_a_long_roll_saves_and_ends_the_saved_game(tmp_path):
    st = Store(str(tmp_path / "data"))
    st.save("game", b"a game in progress", 1)
    r = power_up(tmp_path, st=st)
    release(r)
    flip(r, 3)  # 3 players
    _to_page(r, 12)
    flip(r, 5)  # format: to-100
    hold(r)
    assert frames(r)[-1][:9] == "GGGGGGGGG"  # saved
    r.advance(700)
    assert r.done and r.screen.changed
    s, status = setfile.load(st)
    assert status == 0 and s.players == 3 and setnames.names(s)["format"] == "to-100"
    assert st.load("game", 1) is None  # the saved game is over


def test_nothing_changed_nothing_written(tmp_path):
    r = power_up(tmp_path)
    release(r)
    hold(r)
    r.advance(700)
    assert r.done and not r.screen.changed
    assert not (tmp_path / "data" / "settings").exists()


def test_settings_that_do_not_fit_are_not_saved(tmp_path):
    r = power_up(tmp_path)
    release(r)
    _to_page(r, 7)
    flip(r, 3)  # start: odd-open (the 2 starts shut)
    _to_page(r, 9)
    flip(r, 2)  # 2-to-go
    _to_page(r, 12)
    n0 = len(frames(r))
    hold(r)
    r.advance(1000)
    assert not r.done and r.screen.page == 9 and r.screen.bad == 9
    assert {f[1] for f in frames(r)[n0:]} == {"R", "."}  # the value blinks red
    assert {face(f[9:16]) for f in frames(r)[n0:]} == {3}  # on page 3.2
    flip(r, 1)  # to-go: off
    hold(r)
    r.advance(700)
    assert r.done and Store(str(tmp_path / "data")).load(setfile.NAME, setfile.VERSION) is not None


def test_a_failed_save_flashes_red(tmp_path):
    st = Store(str(tmp_path / "data"))
    r = power_up(tmp_path, st=st)
    release(r)
    flip(r, 4)
    st.save = lambda *a: 7  # the flash refuses (shutbox.store._IO_ERROR)
    hold(r)
    assert frames(r)[-1][:9] == "RRRRRRRRR"
    r.advance(700)
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
    r = power_up(tmp_path, FULL & ~bits(2), st=st)
    assert isinstance(r.screen, RecordsView)
    release(r)
    got = []
    for _ in range(4):
        r.advance(500)
        label = last(r)
        r.advance(1000)
        f = frames(r)[-1]
        got.append((label[1], f[:9].count(".") < 9 or f[9:].strip(".") != "", f))
        click(r)
    assert [g[0] for g in got] == [1, 2, 3, 4]
    numbers = []
    for *_, f in got:
        units = 9 - f[:9].count(".")
        numbers.append(10 * (face(f[9:16]) + face(f[16:23])) + units)
    assert numbers == [4, 9, 37, 120]
    colours = [set(f.replace(".", "")) for *_, f in got]
    assert colours[0] == {"B"} and colours[1] == {"G"} and colours[2] == {"W"}
    hold(r)
    assert r.done


def test_no_records_yet_shows_the_label_only(tmp_path):
    r = power_up(tmp_path, FULL & ~bits(2))
    r.advance(2000)
    assert last(r) == ("M........", 1, 0)


# ----- erasing -----


def test_erase_the_records_once_confirmed(tmp_path):
    st = Store(str(tmp_path / "data"))
    _records(st, 1, 0, 1, 1, 1)
    setfile.save(Settings(players=4), st)
    r = power_up(tmp_path, FULL & ~bits(2, 9), st=st)
    assert isinstance(r.screen, Erase)
    r.advance(50)
    tiles, a, _ = last(r)
    assert a == 2 and set(tiles) <= {"R", "."}
    release(r)
    hold(r)
    r.advance(700)
    assert r.done and st.load(records.NAME, 1) is None
    assert setfile.load(st)[0].players == 4  # the settings stay


def test_factory_reset_erases_settings_and_records(tmp_path):
    st = Store(str(tmp_path / "data"))
    _records(st, 1, 0, 1, 1, 1)
    setfile.save(Settings(players=4), st)
    r = power_up(tmp_path, FULL & ~bits(8, 9), st=st)
    r.advance(50)
    assert last(r)[1] == 3
    release(r)
    hold(r)
    r.advance(700)
    assert r.done and r.screen.changed and r.screen.settings.players == 2
    assert st.load(records.NAME, 1) is None and st.load(setfile.NAME, setfile.VERSION) is None


@pytest.mark.parametrize("how", ["click", "flip"])
def test_erase_can_be_left_without_erasing(tmp_path, how):
    st = Store(str(tmp_path / "data"))
    _records(st, 1, 0, 1, 1, 1)
    r = power_up(tmp_path, FULL & ~bits(8, 9), st=st)
    release(r)
    click(r) if how == "click" else flip(r, 9)
    r.advance(100)
    assert r.done and not r.screen.changed and st.load(records.NAME, 1) is not None


def test_real_dice_on_page_6_1_keep_the_saved_game_and_refuse_a_code(tmp_path):
    """Real dice are the box's own option (a saved game goes on); with a challenge code they
    do not fit: the real-dice page blinks red until one of them is off."""
    st = Store(str(tmp_path / "data"))
    st.save("game", b"a game in progress", 1)
    r = power_up(tmp_path, st=st)
    release(r)
    _to_page(r, REAL_DICE)
    assert last(r) == ("GW.......", 6, 1)
    flip(r, 2)  # on
    hold(r)
    r.advance(700)
    assert r.done and setfile.load(st)[0].real_dice == 1
    assert st.load("game", 1) is not None  # not a game option: the saved game goes on
    setfile.save(Settings(code=7), st)
    r = power_up(tmp_path, st=st)
    release(r)
    _to_page(r, REAL_DICE)
    flip(r, 2)
    hold(r)
    r.advance(1000)
    assert not r.done and r.screen.page == REAL_DICE and r.screen.bad == REAL_DICE
    flip(r, 1)  # off
    hold(r)
    r.advance(700)
    assert r.done and setfile.load(st)[0].real_dice == 0


@pytest.mark.parametrize("page,shown,tile,name,value,kept", [
    # two-tiles shapes the game (after the box's own options): choosing it ends a saved game
    pytest.param(TWO_TILES, ("GW.......", 6, 2), 2, "two_tiles", 1, False, id="two-tiles"),
    # the time limit (off, 30 s, 60 s) changes no game's rules: a saved game goes on
    pytest.param(TIMEOUT, ("GWW......", 6, 3), 3, "timeout", 2, True, id="timeout-60-s"),
    # resigning changes no game's rules: a saved game goes on
    pytest.param(RESIGN, ("GW.......", 6, 4), 2, "resign", 1, True, id="resign"),
])
def test_an_option_on_page_6_ends_the_saved_game_only_if_it_shapes_the_game(
        tmp_path, page, shown, tile, name, value, kept):
    """The page shows the option's value; flipping tile *tile* and holding Roll saves
    *value*; the saved game goes on (*kept*) unless the option shapes the game."""
    st = Store(str(tmp_path / "data"))
    st.save("game", b"a game in progress", 1)
    r = power_up(tmp_path, st=st)
    release(r)
    _to_page(r, page)
    assert last(r) == shown
    flip(r, tile)
    hold(r)
    r.advance(700)
    assert r.done and getattr(setfile.load(st)[0], name) == value
    assert (st.load("game", 1) is not None) == kept


def test_the_long_game_on_page_6_5_ends_the_saved_game_and_refuses_the_computer(tmp_path):
    """The long game shapes the game: choosing it ends a saved game; with the computer on it
    does not fit (two people), and the menu shows its page."""
    st = Store(str(tmp_path / "data"))
    st.save("game", b"a game in progress", 1)
    setfile.save(Settings(computer=2), st)
    r = power_up(tmp_path, st=st)
    release(r)
    _to_page(r, LONG)
    assert last(r) == ("GW.......", 6, 5)
    flip(r, 2)  # on
    hold(r)
    r.advance(1000)
    assert not r.done and r.screen.page == LONG and r.screen.bad == LONG
    _to_page(r, 1)  # the computer: off
    flip(r, 1)
    hold(r)
    r.advance(700)
    assert r.done and setfile.load(st)[0].long == 1
    assert st.load("game", 1) is None
