# The long game for 2 on CPython: one shuts, the other reopens, extra turns, the winner.
"""shutbox.long's Game on the CPython box (shutbox_host.box.drive.CpyBox) driven through its
pins, its dice given: player 1 shuts, player 2
takes the box as it is and reopens shut tiles that add up to each throw, a turn with a double
is followed by an extra turn, the box passes back and forth, and the first to shut or open
every tile wins; every move is checked both ways; a power cut resumes it in the right view."""

from __future__ import annotations

import logschema  # tests/: the log's JSON Schema
from backends import cpy, flip, press, throw
from test_game import bits, events

from shutbox import resume, setfile, setnames
from shutbox.game import _ERR_REOPENED as ERR_REOPENED
from shutbox.game import _ERR_TOO_HIGH as ERR_TOO_HIGH
from shutbox.game import GAME_END, MOVE, READY, SETUP, TURN_END, Settings
from shutbox.settings import ATTRS

FULL = 0x1FF


def long_box(**settings):
    """The CPython box with the long game for 2 (and *settings*), its dice only as given."""
    return cpy(players=2, long=1, **settings)


def up(box):
    """The tiles the box's model has up (real tiles, whoever plays)."""
    return box.game.open_ ^ box.game.inv


def test_one_shuts_the_other_reopens_and_opening_every_tile_wins():
    box = long_box()
    g = box.game
    assert g.state == SETUP and g.player == 0 and events(box, "game")[0]["long"] is True
    throw(box, 4, 5)
    flip(box, 9)  # shut: 9
    throw(box, 1, 1)  # a double: an extra turn after this one
    flip(box, 2)
    throw(box, 5, 6)
    flip(box, 5, 6)
    throw(box, 6, 2)
    flip(box, 8)
    throw(box, 6, 5)  # 1 3 4 7 open: 11 = 7 + 4
    flip(box, 7, 4)
    assert up(box) == bits(1, 3) and g.state == READY
    throw(box, 6, 4)  # 1 + 3 = 4: stopped
    assert g.state == TURN_END and g.next() == 0
    tiles, a, b = box.frame()
    assert tiles == "W.W......" and "M" in a and "M" in b  # player 1 again: both dice
    assert g.moving(box.now) is False  # nothing changes until Roll
    box.advance(700)
    press(box)
    assert events(box, "rule")[-1] == {"ev": "rule", "rule": "extra-turn", "player": 1}
    assert events(box, "turn_end")[-1] == {"ev": "turn_end", "player": 1, "next": 1,
                                          "long": True}
    assert g.state == READY and g.player == 0 and "M" in box.frame()[1]  # no setup
    throw(box, 2, 3)  # 1 + 3 = 4: stopped, no extra turn left: player 2 takes the box
    assert g.state == TURN_END and g.next() == 1
    tiles, a, b = box.frame()
    assert tiles == ".W.WWWWWW" and "M" in a and "M" not in b  # player 2 plays the shut ones
    box.advance(700)
    press(box)
    assert events(box, "turn")[-1] == {"ev": "turn", "player": 2, "reopen": True,
                                      "long": True, "open": [2, 4, 5, 6, 7, 8, 9]}
    assert g.state == READY and g.player == 1 and not g.err
    throw(box, 6, 6)
    assert g.state == MOVE
    flip(box, 3)  # the wrong way: the open 3 shut
    assert g.err == ERR_REOPENED and g.err_mask == bits(3)
    flip(box, 3)
    flip(box, 8, 5)  # up: 8 + 5 = 13, more than 12
    assert g.err == ERR_TOO_HIGH
    flip(box, 5)
    flip(box, 4)  # 8 + 4 reopened
    assert g.state == READY and up(box) == bits(1, 3, 4, 8)
    move = events(box, "move")[-1]
    assert move["shut"] == [4, 8] and move["reopen"] is True  # the tiles reopened (mirrored)
    assert events(box, "throw")[-1]["reopen"] is True
    assert not any("reopen" in r for r in events(box, "throw")[:-1] if r["player"] == 1)
    for dice, tiles in (((4, 5), (9,)), ((3, 4), (7,)), ((5, 6), (5, 6))):
        throw(box, *dice)
        flip(box, *tiles)
    assert g.state == READY
    throw(box, 1, 1)
    flip(box, 2)  # every tile open: player 2 wins at once
    assert g.state == GAME_END and g.winners == 0b10
    assert events(box, "winner")[-1] == {"ev": "winner", "players": [2], "score": 0,
                                        "scores": [0, 0], "tie": False, "long": True}
    assert not events(box, "score")  # no scores: nothing for the records
    tiles, a, _ = box.frame()
    assert "G" in a
    ms = g.moving(box.now)  # the tiles blink: the next change
    assert 0 < ms <= 250 and box.frame()[0] == tiles
    assert box.frame(ms)[0] != tiles
    for rec in box.shown().log:  # every record of the long game is in the log's format
        logschema.check({k: v for k, v in rec.items() if k != "_ms"})
    press(box, long=True)  # a new game: the tiles as they are (all open), player 1 shuts
    g = box.game
    assert g.state == SETUP and g.player == 0 and g.open_ == FULL and g.inv == 0


def test_player_2_stopped_passes_the_box_back_and_shutting_every_tile_wins():
    box = long_box()
    g = box.game
    for dice, tiles in (((6, 3), (9,)), ((5, 3), (8,)), ((3, 4), (7,)), ((5, 1), (6,)),
                        ((2, 3), (5,)), ((3, 1), (4,))):
        throw(box, *dice)
        flip(box, *tiles)
    throw(box, 6, 5)  # 1 2 3 open: stopped, no double
    box.advance(700)
    press(box)
    assert g.player == 1 and g.open_ == bits(4, 5, 6, 7, 8, 9)  # mirrored: to reopen
    throw(box, 1, 2)  # 3: nothing shut makes 3 (4 is the lowest): player 2 is stopped
    assert g.state == TURN_END and g.next() == 0
    box.advance(700)
    press(box)
    assert events(box, "turn_end")[-1] == {"ev": "turn_end", "player": 2, "next": 1,
                                          "long": True}
    assert g.player == 0 and g.inv == 0 and g.open_ == bits(1, 2, 3) and g.state == READY
    throw(box, 2, 4)
    flip(box, 1, 2, 3)  # shut: player 1 wins
    assert g.state == GAME_END and events(box, "winner")[-1]["players"] == [1]


def test_a_long_game_resumes_in_the_reopening_player_s_view():
    box = long_box()
    for dice, tiles in (((6, 3), (9,)), ((6, 5), (6, 5)), ((6, 2), (8,)), ((6, 4), (7, 3))):
        throw(box, *dice)
        flip(box, *tiles)
    throw(box, 6, 6)  # 1 2 4 open: stopped by a double, which is an extra turn
    box.advance(700)
    press(box)
    throw(box, 1, 2)
    flip(box, 1, 2)
    throw(box, 6, 5)  # 4 open: stopped; player 2 next
    box.advance(700)
    press(box)
    throw(box, 2, 1)
    flip(box, 3)  # reopened: 3
    saved = bytes(resume.snapshot(box.game))
    again = long_box()
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
    box = long_box(start=1)
    g = box.game
    assert g.state == SETUP and g.err
    flip(box, 1, 2, 3)  # the start: 1 2 3 shut
    assert not g.err
    for dice, tiles in (((6, 3), (9,)), ((5, 3), (8,)), ((3, 4), (7,)), ((5, 1), (6,))):
        throw(box, *dice)
        flip(box, *tiles)
    throw(box, 6, 5)  # 4 5 open: stopped
    assert g.state == TURN_END and box.frame()[0] == ".....WWWW"  # player 2's: 6 to 9
    box.advance(700)
    press(box)
    assert g.player == 1 and g.open_ == bits(6, 7, 8, 9) and not g.err
    for dice, tiles in (((4, 2), (6,)), ((5, 2), (7,)), ((5, 3), (8,))):
        throw(box, *dice)
        flip(box, *tiles)
    throw(box, 4, 5)
    flip(box, 9)
    assert g.state == GAME_END and events(box, "winner")[-1]["players"] == [2]
    assert box.open_ == bits(4, 5, 6, 7, 8, 9)
