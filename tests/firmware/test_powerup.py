# Settings, records and the game's rules through the simulated pins under MicroPython.
"""The real firmware (as .mpy) booting as on the box (sim/boxrun.py --powerup: the power-up
screen before the game's modules load, then app.main's start under the guard), with its
flash in a folder: a power cut is a re-run on the same folder.

The heap here is generous (HEAP): these tests are about behaviour; the firmware's memory is
measured by ``shutbox bench`` and tests/firmware/test_scenarios.py.
"""

from __future__ import annotations

import struct

from shutbox import setfile, setnames
from shutbox.records import _FORMAT as FORMAT  # private: no name in the box's RAM
from shutbox.records import NAME as RECORDS
from shutbox.settings import ATTRS, COUNTS, Settings
from shutbox.store import Store
from shutbox_host.analysis import log
from shutbox_host.box import boxsim
from shutbox_host.model.leds import face
from shutbox_host.model.script import ROLL_MS, Script

HEAP = "256k"
ALL = tuple(range(1, 10))


def run(flash, script, *args):
    r = boxsim.run(script, "--flash", str(flash), "--powerup", *args, heapsize=HEAP)
    assert r.returncode == 0, r.stderr
    assert not r.events("fault"), r.events("fault")
    return r


def store(flash):
    return Store(str(flash / "data"))


def settings_of(r):
    """The value indexes (page order) of every ``settings`` record the box logged at boot;
    their names, as the host gives them (docs/log-format.md), are the same settings."""
    out = []
    for e in r.events("settings"):
        assert e["v"] == 2 and len(e["values"]) == len(ATTRS)
        names = log.settings_names(e)
        assert names == {o: setnames.CHOICES[i][e["values"][i]]
                         for i, o in enumerate(setnames.OPTIONS)} | {"code": e["code"]}
        out.append(e["values"])
    return out


def number_shown(frame) -> int:
    """Read a number off the LEDs: tens = the dice as a throw, units = the tile bar."""
    _, tiles, a, b = frame
    if "." not in a + b:
        return 0  # every pip lit
    return 10 * (face(a) + face(b)) + len(tiles) - tiles.count(".")


def values(s):
    return [setfile.index(s, i) for i in range(len(ATTRS))]


def roll(s, *faces):
    s.dice(*faces).click(120).wait(ROLL_MS)
    return s


def play(s, moves):
    """Throws (a, b, tiles) and their moves (tiles flipped, highest first)."""
    for a, b, tiles in moves:
        roll(s, a, b)
        for k in sorted(tiles, reverse=True):
            s.flip(k).wait(80)
        s.wait(150)
    return s


def next_turn(s, levels_open=True):
    """Roll after a turn's score, then set every tile up (or down, Open the Box)."""
    s.wait(1000).click(120).wait(150)
    if levels_open:
        s.open(*ALL)
    else:
        s.shut(*ALL)
    return s.wait(100)


# ----- the menu, a power cut, and every setting -----


def _menu_visit(s, page, tile):
    """Power cut, then power up holding Roll; in the menu set *page* to value *tile*."""
    s.open(*ALL).press().wait(50)
    s.lines.append("r")  # power cut and power on (Roll held: the menu)
    s.wait(100).lines.append("m")
    s.release().wait(100)
    for _ in range(page):
        s.click(60).wait(60)
    s.flip(tile).wait(100)
    s.hold(1000).wait(900)  # saved: the green flash, then the game
    s.flip(tile).wait(100)


def test_every_setting_through_the_menu_survives_a_power_cut(tmp_path):
    s = Script().wait(100)
    want = [values(Settings())]  # the first boot: the defaults, quietly
    cur = list(want[0])
    for page in range(len(ATTRS)):
        default = cur[page]
        for v in [v for v in range(COUNTS[page]) if v != default] + [default]:
            _menu_visit(s, page, v + 1)
            cur[page] = v
            want.append(list(cur))
    s.lines.append("r")  # and once more, without Roll held: the last settings
    s.wait(200)
    r = run(tmp_path, s)
    got = settings_of(r)
    assert got == want + [want[-1]]
    assert [e["status"] for e in r.events("settings")][:2] == [1, 0]  # missing, then saved
    games = r.events("game")
    # a new game at every boot whose settings change a game; sound, brightness and sleep do
    # not (the saved game resumes), nor the last boot, with the same settings
    box = {ATTRS.index("sound"), ATTRS.index("brightness"), ATTRS.index("sleep")}
    fresh = [want[0]] + [w for w, before in zip(want[1:], want, strict=False)
                         if any(w[i] != before[i] for i in range(len(ATTRS)) if i not in box)]
    assert len(games) == len(fresh) == len(want) - 11
    assert len(r.events("resume")) == 11 + 1
    # the game plays what the settings say: players, and the rules of a turn
    for g, vals in zip(games, fresh, strict=True):
        rules = [setnames.CHOICES[i][vals[i]] for i in range(3, 8)]
        if vals[ATTRS.index("same_throws")]:
            rules[0] = "never"  # one die is not offered with the same throws
        assert [g["rules"][k] for k in setnames.OPTIONS[3:8]] == rules
        assert g["players"] >= vals[0] + 1
    assert [line for line in r.lines if line.startswith("M ")][0].startswith("M Menu 0 ")


def test_menu_changes_reach_the_game_and_a_reboot(tmp_path):
    s = Script().wait(100)
    s.release().wait(100)
    s.flip(1).wait(100)  # players: 1
    for _ in range(12):
        s.click(60).wait(60)
    s.flip(2).wait(100)  # format: 3-rounds
    s.hold(1000).wait(900).flip(1, 2).wait(200)
    s.state()
    r = run(tmp_path, s, "--roll-held")
    assert r.events("game")[-1]["players"] == 1
    assert r.events("round")[-1]["round"] == 1
    r2 = run(tmp_path, Script().wait(300))  # a power cut later: the same settings
    vals = settings_of(r2)[-1]
    assert setnames.CHOICES[12][vals[12]] == "3-rounds" and vals[0] == 0
    assert r2.events("settings")[-1]["status"] == 0


# ----- damaged files, resets, records -----


def test_a_damaged_settings_file_gives_defaults_and_the_leds_say_so(tmp_path):
    setfile.save(Settings(players=4), store(tmp_path))
    path = tmp_path / "data" / "settings"
    raw = bytearray(path.read_bytes())
    raw[13] ^= 0xFF
    path.write_bytes(bytes(raw))
    r = run(tmp_path, Script().wait(1500))
    assert r.events("settings")[0]["status"] >= 2
    assert r.events("game")[-1]["players"] == 2
    assert r.events("notice")[0]["tiles"] == [1]
    early = [f for f in r.frames if f[0] < 1500]
    assert early and all(face(f[2]) == 5 and set(f[2]) == {"Y", "."} for f in early)
    assert {f[1][0] for f in early} == {"Y", "."}  # tile 1: the settings file
    again = run(tmp_path, Script().wait(500))  # the defaults were written: no notice now
    assert again.events("settings")[0]["status"] == 0 and not again.events("notice")


def test_damaged_records_start_again_and_the_leds_say_so(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "records").write_bytes(b"SHBX" + bytes(30))
    r = run(tmp_path, Script().wait(500))
    assert r.events("notice")[0]["tiles"] == [2]


def _game_for_records(s):
    """A one-player game: 33 (unlucky-7), then the winner."""
    play(s, [(6, 6, (3, 9))])
    roll(s, 3, 4)
    return s.wait(1000).click(120).wait(300)


def test_records_are_kept_shown_and_erased(tmp_path):
    setfile.save(Settings(players=1, unlucky7=True), store(tmp_path))
    run(tmp_path, _game_for_records(Script().wait(100)))
    # the next boot resumes the finished game (GAME_END): a long Roll starts a new one
    run(tmp_path, _game_for_records(Script().wait(100).hold(1000).wait(300)))
    raw = store(tmp_path).load(RECORDS, 1)
    assert struct.unpack(FORMAT, raw) == (
        setfile.variant_key(Settings(unlucky7=True), 9), 33, 2, 0, 2)
    # power up with tile 2 shut and Roll held: the records
    s = Script(levels=0x1FF & ~2).wait(100).release().wait(100)
    pages = []
    for _ in range(4):
        pages.append(s.ms + 1600)
        s.wait(2000).click(120)
    s.hold(1000).wait(300)
    r = run(tmp_path, s, "--roll-held", "--levels", str(0x1FF & ~2))
    shown = [number_shown(r.frame_at(t)) for t in pages]
    assert shown == [33, 0, 2, 2]  # best, boxes shut (0: every pip lit), games, turns
    assert r.events("game") or r.events("resume")  # then the game (the saved one resumes)
    # tiles 2 and 9 shut with Roll held: erase them
    s = Script(levels=0x1FF & ~(2 | 256)).wait(100).release().wait(100).hold(1000).wait(800)
    run(tmp_path, s, "--roll-held", "--levels", str(0x1FF & ~(2 | 256)))
    assert store(tmp_path).load(RECORDS, 1) is None
    assert setfile.load(store(tmp_path))[0].unlucky7  # the settings stay


def test_factory_reset(tmp_path):
    setfile.save(Settings(players=4, format=2), store(tmp_path))
    store(tmp_path).save(RECORDS, bytes(16), 1)
    levels = 0x1FF & ~(128 | 256)
    s = Script(levels=levels).wait(100).release().wait(100).hold(1000).wait(800)
    r = run(tmp_path, s, "--roll-held", "--levels", str(levels))
    assert r.events("game")[-1]["players"] == 2
    assert store(tmp_path).load(RECORDS, 1) is None
    assert store(tmp_path).load(setfile.NAME, setfile.VERSION) is None


def test_the_self_test_combination_runs_the_self_test_until_power_off(tmp_path):
    """Roll held with tile 1 shut: the self-test (shutbox.selftest, as powerup.screens runs
    it), no menu and no game, until the power switch goes off (boxrun's o); then a normal
    power-up plays."""
    s = Script(levels=0x1FE).wait(40)
    s.lines.append("m")
    s.wait(8000)  # past the sweep, the colours and the dice: the switch echo
    s.lines.append("o")
    s.release().wait(100)
    s.lines.append("r")
    s.wait(300)
    r = run(tmp_path, s, "--roll-held", "--levels", str(0x1FE))
    assert "M SelfTest -1 " in r.lines
    assert r.frame_at(40)[1:] == ("W........", ".......", ".......")  # the sweep's first LED
    echo = r.frame_at(8040)
    assert echo[1:] == ("G........", "GGGGGGG", "GGGGGGG")  # tile 1 shut, Roll held
    off = r.frame_at(8100)
    assert off[1:] == (".........", ".......", ".......")  # switched off: dark
    assert not [t for t in r.tones if 8040 < t[0] and t[1]]  # and silent
    assert len(r.events("settings")) == 1 and r.events("game")  # only after power-on


# ----- the rules of every setting, played through the pins -----


def _boot_with(tmp_path, **opts):
    setfile.save(Settings(**opts), store(tmp_path))


def test_three_rounds_and_roll_off_through_the_pins(tmp_path):
    _boot_with(tmp_path, players=2, format=1, tie=1, unlucky7=True)
    s = Script().wait(100)
    for _ in range(3):
        for _ in range(2):
            play(s, [(6, 6, (3, 9))])
            roll(s, 3, 4)
            next_turn(s)
    s.wait(800).dice(5).click(120).wait(800).dice(2).click(120).wait(800).click(120)
    s.wait(500)
    r = run(tmp_path, s)
    assert [e["round"] for e in r.events("round")] == [1, 2, 3]
    assert r.events("rolloff")[0]["players"] == [1, 2]
    assert [e["die"] for e in r.events("rolloff_die")] == [5, 2]
    win = r.events("winner")[-1]
    assert win["players"] == [2] and win["scores"] == [99, 99] and win["rounds"] == 3


def test_out_at_45_and_canoga_through_the_pins(tmp_path):
    _boot_with(tmp_path, players=2, format=3, stakes=1, unlucky7=True)
    s = Script().wait(100)
    roll(s, 3, 4)  # player 1: 45, out
    next_turn(s)
    play(s, [(6, 6, (3, 9))])
    roll(s, 3, 4)  # player 2: 33
    next_turn(s)
    r = run(tmp_path, s)
    assert r.events("out")[0]["players"] == [1]
    win = r.events("winner")[-1]
    assert win["players"] == [2] and win["balance"] == [-12, 12]


def test_to_100_and_replay_through_the_pins(tmp_path):
    _boot_with(tmp_path, players=2, format=4, tie=2, unlucky7=True)
    s = Script().wait(100)
    for _ in range(6):  # 45 each, three rounds: 135 and 135, a tie
        roll(s, 3, 4)
        next_turn(s)
    play(s, [(6, 6, (3, 9))])  # the tie-break round: player 1 33
    roll(s, 3, 4)
    next_turn(s)
    roll(s, 3, 4)  # player 2 45
    next_turn(s)
    r = run(tmp_path, s)
    assert r.events("round")[-1]["tiebreak"] == 1
    win = r.events("winner")[-1]
    assert win["players"] == [1] and win["scores"] == [135, 135]


def test_same_throws_through_the_pins(tmp_path):
    _boot_with(tmp_path, players=2, same_throws=True)
    s = Script().wait(100)
    play(s, [(6, 6, (3, 9)), (5, 5, (2, 8))])
    roll(s, 1, 1)
    next_turn(s)
    for tiles in ((5, 7), (1, 9)):  # no dice fed: the recorded throws come back
        s.click(120).wait(ROLL_MS)
        for k in tiles:
            s.flip(k).wait(80)
        s.wait(150)
    s.click(120).wait(ROLL_MS).state()
    r = run(tmp_path, s, "--seed", "77")
    throws = [e["dice"] for e in r.events("throw")]
    assert throws == [[6, 6], [5, 5], [1, 1]] * 2


def test_unlucky_7_open_box_to_go_most_tiles_through_the_pins(tmp_path):
    _boot_with(tmp_path, players=1, open_box=True, to_go=1, most_tiles=True,
               unlucky7=True, shut_wins=True)
    s = Script(levels=0).wait(100)
    roll(s, 4, 4)  # 8: must open the 2 and the most tiles: 1 2 5
    s.flip(8).wait(200)  # refused
    s.flip(8).wait(100)
    s.flip(1, 2, 5).wait(200)
    roll(s, 3, 4)  # 7: the turn ends
    s.state()
    r = run(tmp_path, s, "--levels", "0")
    assert r.events("throw")[0]["moves"] == 1
    assert r.events("error")[0]["why"] == "not-legal"
    assert r.events("move")[0]["shut"] == [1, 2, 5]
    assert r.events("rule")[-1]["rule"] == "unlucky-7"
    assert r.events("score")[-1]["score"] == 45 - 8


def test_hints_and_computer_reach_the_game(tmp_path):
    _boot_with(tmp_path, players=1, hints=2)
    s = Script().wait(100)
    roll(s, 6, 6)
    s.wait(100).state()
    r = run(tmp_path, s)
    tiles = r.frames[-1][1]
    assert "C" in tiles  # the best move in cyan
    assert log.settings_names(r.events("settings")[-1])["hints"] == "best"


# ----- the box's own entry point (firmware/main.py: booted on a virtual Pico by test_flash) -----


def test_screens_without_a_combination_unload_what_they_loaded(run_mp):
    code = ("import sys\nfrom shutbox import powerup\npowerup.screens()\n"
            "powerup.unload('powerup')\n"
            "print(sorted(m for m in sys.modules if m.startswith('shutbox.')))\n")
    r = run_mp(code, heapsize="256k", cwd="/tmp")
    assert r.returncode == 0, r.stderr
    loaded = r.stdout.strip()
    # the engine stays: the saved settings' Rules (powerup.read) are the first of the game's
    # objects, made on a heap that holds nothing else yet
    for name in ("powerup", "menu", "setfile", "setnames", "records", "game", "app"):
        assert "'shutbox.%s'" % name not in loaded, loaded
