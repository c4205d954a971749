# The long game for 2 on CPython: one shuts, the other reopens, extra turns, the winner.
"""shutbox.long's Game driven by hand (the box's dice scripted): player 1 shuts, player 2
takes the box as it is and reopens shut tiles that add up to each throw, a turn with a double
is followed by an extra turn, the box passes back and forth, and the first to shut or open
every tile wins; every move is checked both ways; a power cut resumes it in the right view."""

from __future__ import annotations

import logschema  # tests/: the log's JSON Schema
from test_game import bits

from shutbox import frame as fr
from shutbox import long, resume, setfile, setnames
from shutbox.dice import Dice
from shutbox.engine import Engine
from shutbox.game import _ERR_REOPENED as ERR_REOPENED
from shutbox.game import _ERR_TOO_HIGH as ERR_TOO_HIGH
from shutbox.game import GAME_END, MOVE, READY, SETUP, TURN_END, Settings
from shutbox.settings import ATTRS

NAMES = fr.NAMES.decode()
FULL = 0x1FF


class Box:
    """A long game with the box's dice scripted, a hand-driven clock and tile levels."""

    def __init__(self, **settings):
        self.settings = Settings(players=2, long=1, **settings)
        self.eng = Engine(setfile.rules(self.settings, 9))
        self.faces: list[int] = []
        self.dice = Dice(self._urandom, 1)
        self.now = 5000
        self.levels = FULL
        self.game = long.Game(self.eng, self.dice, self.settings, self.levels, self.now)

    def _urandom(self, n):
        return bytes(self.faces.pop(0) - 1 for _ in range(n))

    def wait(self, ms):
        for _ in range(ms // 10):
            self.now += 10
            self.game.tick(self.now)

    def flip(self, *tiles):
        self.levels ^= bits(*tiles)
        self.game.tiles_changed(self.levels, self.now)
        self.wait(50)

    def throw(self, a, b):
        self.faces += [a, b]
        self.game.roll(False, self.now)
        self.wait(700)

    def press(self, long=False):
        self.game.roll(long, self.now)
        self.wait(100)

    def frame(self):
        f = self.game.render(self.now)
        s = "".join(NAMES[c] for c in f)
        return s[:9], s[9:16], s[16:]

    def events(self, kind):
        return [r for r in self.game.log if r["ev"] == kind]


def up(box):
    """The tiles the box's model has up (real tiles, whoever plays)."""
    return box.game.open_ ^ box.game.inv


def test_one_shuts_the_other_reopens_and_opening_every_tile_wins():
    box = Box()
    g = box.game
    assert g.state == SETUP and g.player == 0 and box.events("game")[0]["long"] is True
    box.throw(4, 5)
    box.flip(9)  # shut: 9
    box.throw(1, 1)  # a double: an extra turn after this one
    box.flip(2)
    box.throw(5, 6)
    box.flip(5, 6)
    box.throw(6, 2)
    box.flip(8)
    box.throw(6, 5)  # 1 3 4 7 open: 11 = 7 + 4
    box.flip(7, 4)
    assert up(box) == bits(1, 3) and g.state == READY
    box.throw(6, 4)  # 1 + 3 = 4: stopped
    assert g.state == TURN_END and g.next() == 0
    tiles, a, b = box.frame()
    assert tiles == "W.W......" and "M" in a and "M" in b  # player 1 again: both dice
    assert g.moving(box.now) is False  # nothing changes until Roll
    box.wait(700)
    box.press()
    assert box.events("rule")[-1] == {"ev": "rule", "rule": "extra-turn", "player": 1}
    assert box.events("turn_end")[-1] == {"ev": "turn_end", "player": 1, "next": 1,
                                          "long": True}
    assert g.state == READY and g.player == 0 and "M" in box.frame()[1]  # no setup
    box.throw(2, 3)  # 1 + 3 = 4: stopped, no extra turn left: player 2 takes the box
    assert g.state == TURN_END and g.next() == 1
    tiles, a, b = box.frame()
    assert tiles == ".W.WWWWWW" and "M" in a and "M" not in b  # player 2 plays the shut ones
    box.wait(700)
    box.press()
    assert box.events("turn")[-1] == {"ev": "turn", "player": 2, "reopen": True,
                                      "long": True, "open": [2, 4, 5, 6, 7, 8, 9]}
    assert g.state == READY and g.player == 1 and not g.err
    box.throw(6, 6)
    assert g.state == MOVE
    box.flip(3)  # the wrong way: the open 3 shut
    assert g.err == ERR_REOPENED and g.err_mask == bits(3)
    box.flip(3)
    box.flip(8, 5)  # up: 8 + 5 = 13, more than 12
    assert g.err == ERR_TOO_HIGH
    box.flip(5)
    box.flip(4)  # 8 + 4 reopened
    assert g.state == READY and up(box) == bits(1, 3, 4, 8)
    move = box.events("move")[-1]
    assert move["shut"] == [4, 8] and move["reopen"] is True  # the tiles reopened (mirrored)
    assert box.events("throw")[-1]["reopen"] is True
    assert not any("reopen" in r for r in box.events("throw")[:-1] if r["player"] == 1)
    for dice, tiles in (((4, 5), (9,)), ((3, 4), (7,)), ((5, 6), (5, 6))):
        box.throw(*dice)
        box.flip(*tiles)
    assert g.state == READY
    box.throw(1, 1)
    box.flip(2)  # every tile open: player 2 wins at once
    assert g.state == GAME_END and g.winners == 0b10
    assert box.events("winner")[-1] == {"ev": "winner", "players": [2], "score": 0,
                                        "scores": [0, 0], "tie": False, "long": True}
    assert not box.events("score")  # no scores: nothing for the records
    tiles, a, _ = box.frame()
    assert "G" in a
    ms = g.moving(box.now)  # the tiles blink: the next change
    assert 0 < ms <= 250 and box.frame()[0] == tiles
    box.now += ms
    assert box.frame()[0] != tiles
    for rec in g.log:  # every record of the long game is in the log's format
        logschema.check(rec)
    box.press(long=True)  # a new game: the tiles as they are (all open), player 1 shuts
    assert g.state == SETUP and g.player == 0 and g.open_ == FULL and g.inv == 0


def test_player_2_stopped_passes_the_box_back_and_shutting_every_tile_wins():
    box = Box()
    g = box.game
    for dice, tiles in (((6, 3), (9,)), ((5, 3), (8,)), ((3, 4), (7,)), ((5, 1), (6,)),
                        ((2, 3), (5,)), ((3, 1), (4,))):
        box.throw(*dice)
        box.flip(*tiles)
    box.throw(6, 5)  # 1 2 3 open: stopped, no double
    box.wait(700)
    box.press()
    assert g.player == 1 and g.open_ == bits(4, 5, 6, 7, 8, 9)  # mirrored: to reopen
    box.throw(1, 2)  # 3: nothing shut makes 3 (4 is the lowest): player 2 is stopped
    assert g.state == TURN_END and g.next() == 0
    box.wait(700)
    box.press()
    assert box.events("turn_end")[-1] == {"ev": "turn_end", "player": 2, "next": 1,
                                          "long": True}
    assert g.player == 0 and g.inv == 0 and g.open_ == bits(1, 2, 3) and g.state == READY
    box.throw(2, 4)
    box.flip(1, 2, 3)  # shut: player 1 wins
    assert g.state == GAME_END and box.events("winner")[-1]["players"] == [1]


def test_a_long_game_resumes_in_the_reopening_player_s_view():
    box = Box()
    for dice, tiles in (((6, 3), (9,)), ((6, 5), (6, 5)), ((6, 2), (8,)), ((6, 4), (7, 3))):
        box.throw(*dice)
        box.flip(*tiles)
    box.throw(6, 6)  # 1 2 4 open: stopped by a double, which is an extra turn
    box.wait(700)
    box.press()
    box.throw(1, 2)
    box.flip(1, 2)
    box.throw(6, 5)  # 4 open: stopped; player 2 next
    box.wait(700)
    box.press()
    box.throw(2, 1)
    box.flip(3)  # reopened: 3
    saved = bytes(resume.snapshot(box.game))
    again = Box()
    assert resume.restore(again.game, saved, again.now) == resume.OK
    g = again.game
    assert g.player == 1 and g.inv == FULL and g.state == READY
    assert g.open_ == bits(1, 2, 5, 6, 7, 8, 9)  # still to reopen
    levels = bits(3, 4)  # the box's tiles as they were
    g.tiles_changed(levels, again.now)
    assert not g.err


def test_the_long_game_setting():
    s = Settings(long=1)
    assert setnames.names(s)["long-game"] == "on" and setfile.conflict(s) == -1
    assert setfile.unpack(setfile.pack(s)).long == 1
    page = ATTRS.index("long")
    for other in ({"players": 3}, {"computer": 3, "players": 1}, {"hints": 2},
                  {"open_box": 1}, {"format": 1}, {"stakes": 1}, {"two_tiles": 1},
                  {"real_dice": 1}, {"timeout": 1}, {"resign": 1}, {"code": 42}):
        assert setfile.conflict(Settings(long=1, **other)) == page, other
    assert setfile.conflict(Settings(long=1, hints=0, moves=1, one_die=2)) == -1


def test_a_long_game_through_the_pins_booted_within_the_heap_cap(tmp_path):
    """The real firmware (.mpy), booted from a settings file with the long game, on the
    simulated pins under the all-features cap (64 KB + the harness: the bench's long game):
    player 1 shuts, player 2 reopens (tiles flipped up), the box passes back, player 1 shuts
    the last tiles and wins; the long game's own heap peak stays within the firmware's 64 KB."""
    from shutbox_host.bench import game as bench_game

    r = bench_game.long_game_run(tmp_path / "a")
    assert bench_game.trouble(r) == []
    assert r.events("settings")[0]["values"][ATTRS.index("long")] == 1
    assert r.events("game")[0]["long"] is True
    assert [t.get("reopen", False) for t in r.events("turn")] == [False, True, False]
    assert r.events("move")[6]["shut"] == [9] and r.events("move")[6]["player"] == 2
    assert [e["next"] for e in r.events("turn_end")] == [2, 1]
    assert r.events("winner")[0]["players"] == [1]
    assert r.answer("PEAK")[0] - r.answer("BASE")[0] <= 64 * 1024


def test_tiles_shut_at_the_start_stay_out_of_play():
    """start low-three-shut: tiles 1 to 3 stay shut and out of play; player 2 opening every
    tile in play (4 to 9) wins."""
    box = Box(start=1)
    g = box.game
    assert g.state == SETUP and g.err
    box.flip(1, 2, 3)  # the start: 1 2 3 shut
    assert not g.err
    for dice, tiles in (((6, 3), (9,)), ((5, 3), (8,)), ((3, 4), (7,)), ((5, 1), (6,))):
        box.throw(*dice)
        box.flip(*tiles)
    box.throw(6, 5)  # 4 5 open: stopped
    assert g.state == TURN_END and box.frame()[0] == ".....WWWW"  # player 2's: 6 to 9
    box.wait(700)
    box.press()
    assert g.player == 1 and g.open_ == bits(6, 7, 8, 9) and not g.err
    for dice, tiles in (((4, 2), (6,)), ((5, 2), (7,)), ((5, 3), (8,))):
        box.throw(*dice)
        box.flip(*tiles)
    box.throw(4, 5)
    box.flip(9)
    assert g.state == GAME_END and box.events("winner")[-1]["players"] == [2]
    assert box.levels == bits(4, 5, 6, 7, 8, 9)
