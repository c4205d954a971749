# Real dice and the time limit on CPython: throws entered on the tiles; a clock per decision.
"""shutbox.game with shutbox.turn (the real-dice and timeout settings) on the CPython box
(shutbox_host.box.drive.CpyBox) driven through its pins:
each die entered by flipping its tile down and up, Roll to throw; the box's own dice must
never be asked for a person's throw (the scripted source raises), and the log marks the
entered throws. The time limit: ten ticks, then the turn's end, a clock per decision."""

from __future__ import annotations

import pytest
from backends import cpy, flip, press, throw
from test_game import bits, events

from shutbox import frame as fr
from shutbox import setfile, setnames
from shutbox.game import _ERR_NONE as ERR_NONE
from shutbox.game import _ERR_SETUP as ERR_SETUP
from shutbox.game import GAME_END, MOVE, READY, SETUP, TURN_END, Settings
from shutbox.settings import ATTRS
from shutbox_host.model.leds import face

NAMES = fr.NAMES.decode()
FULL = 0x1FF


def real_box(**settings):
    """A CPython box with real dice under *settings*: the box's own dice only as given."""
    return cpy(real_dice=1, **settings)


def enter(box, *faces):
    """Each die: its tile flipped and flipped back."""
    for k in faces:
        flip(box, k)
        flip(box, k)


def test_a_turn_with_real_dice_is_entered_checked_and_scored():
    box = real_box(players=1)
    g = box.game
    assert g.state == SETUP
    enter(box, 6, 6)
    _, a, b = box.frame()
    assert (face(a), face(b)) == (6, 6)  # the dice entered show on the dice
    assert g.err == ERR_NONE and g.state == SETUP
    throw(box)
    assert g.state == MOVE and (g.a, g.b) == (6, 6)
    thrown = events(box, "throw")[-1]
    assert thrown["dice"] == [6, 6] and thrown["real"] is True
    flip(box, 3)
    flip(box, 9)
    assert g.state == READY and events(box, "move")[-1]["shut"] == [3, 9]
    # the next throw: 5 + 4 on the tiles still open (a shut tile is flipped up and down)
    enter(box, 5, 3)
    assert g.err == ERR_NONE
    throw(box)
    assert (g.a, g.b) == (5, 3) and g.state == MOVE
    flip(box, 8)
    assert g.state == READY
    enter(box, 1, 1)
    throw(box)
    flip(box, 2)
    assert g.state == READY
    # a throw nothing fits: 6 + 6 with 1, 4, 5, 6, 7 open fits 5 + 7, so use 1 + 1 with no 2
    enter(box, 1, 1)
    throw(box)
    assert g.state == TURN_END
    score = events(box, "score")[-1]
    assert score["score"] == 1 + 4 + 5 + 6 + 7 and score["throws"] == 4
    assert all(t["real"] for t in events(box, "throw"))
    assert not box.faces  # the box's own dice were never thrown


def test_a_tile_away_blinks_amber_and_roll_waits_for_it():
    box = real_box(players=1)
    g = box.game
    flip(box, 4)  # down: not entered yet
    assert g.err == ERR_SETUP and g.err_mask == bits(4)
    tiles, _, _ = box.frame()
    assert tiles[3] in "Y."  # amber, blinking
    throw(box)
    assert g.state == SETUP and events(box, "refused")[-1]["why"] == "setup"
    assert not events(box, "error")  # not a mistake: no buzz, no error record
    flip(box, 4)
    assert g.err == ERR_NONE and g.dice.throws == 1


def test_roll_is_refused_without_the_dice_the_rules_allow():
    box = real_box(players=1)
    g = box.game
    throw(box)  # nothing entered
    assert g.state == SETUP and events(box, "refused")[-1]["why"] == "dice"
    enter(box, 4)  # one die, not allowed with 7, 8, 9 open
    throw(box)
    assert g.state == SETUP and len(events(box, "refused")) == 2
    enter(box, 2)
    throw(box)
    assert g.state == MOVE and (g.a, g.b) == (4, 2)


def test_one_die_entered_is_a_one_die_throw_where_allowed():
    box = real_box(players=1)
    g = box.game
    for a, b, tiles in ((6, 3, (9,)), (4, 4, (8,)), (5, 2, (7,))):
        enter(box, a, b)
        throw(box)
        flip(box, *tiles)
    assert g.state == READY and g.one_die_choice() == 1
    enter(box, 5)
    throw(box)
    assert g.state == MOVE and (g.a, g.b) == (5, 0)
    assert events(box, "throw")[-1]["dice"] == [5]


def test_a_third_die_or_a_high_tile_clears_the_entry():
    box = real_box(players=1)
    g = box.game
    enter(box, 2, 3, 4)
    assert g.dice.throws == 0
    enter(box, 2, 9)
    assert g.dice.throws == 0
    enter(box, 5, 4)
    throw(box)
    assert (g.a, g.b) == (5, 4)


def test_the_computer_throws_the_box_dice_and_they_are_not_marked():
    box = real_box(players=1, computer=2)
    g = box.game
    enter(box, 6, 6)
    throw(box)
    flip(box, 3, 9)
    enter(box, 1, 1)
    throw(box)
    flip(box, 2)
    enter(box, 1, 1)
    throw(box)
    assert g.state == TURN_END
    box.faces += [6, 6, 5, 5, 4, 4, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
    box.advance(800)
    throw(box)
    box.set_open(FULL)  # the box's tiles open: the computer's turn starts
    box.advance(30000)
    throws = events(box, "throw")
    mine = [t for t in throws if t["player"] == 1]
    cpu = [t for t in throws if t["player"] == 2]
    assert mine and cpu and all(t.get("real") for t in mine)
    assert not any("real" in t for t in cpu) and cpu[0]["dice"] == [6, 6]


def test_the_setting_and_its_conflicts():
    assert setnames.names(Settings(real_dice=1))["real-dice"] == "on"
    assert setfile.conflict(Settings(real_dice=1, same_throws=1)) == ATTRS.index("same_throws")
    assert setfile.conflict(Settings(real_dice=1, code=42)) == ATTRS.index("real_dice")
    with pytest.raises(ValueError, match="real-dice"):
        setnames.parse("real-dice=on,same-throws=on")
    s = setnames.parse("real-dice=on")
    assert setfile.unpack(setfile.pack(s)).real_dice == 1


def test_a_game_ends_as_usual_with_real_dice():
    box = real_box(players=2)
    g = box.game
    for _ in range(2):
        enter(box, 3, 4)
        throw(box)
        flip(box, 7)
        enter(box, 1, 1)
        throw(box)
        flip(box, 2)
        enter(box, 1, 1)
        throw(box)
        assert g.state == TURN_END
        box.advance(800)
        throw(box)
        if g.state == SETUP:
            box.set_open(FULL)
            box.advance(50)
    assert g.state == GAME_END and events(box, "winner")[0]["tie"] is True


# ----- on MicroPython, booted as the Pico boots, within the 64 KB cap -----


def test_real_dice_through_the_pins_booted_within_the_heap_cap(tmp_path):
    """The real firmware (.mpy), booted from a settings file with real dice (and the hard
    computer, best hints), on the simulated pins under the all-features cap (64 KB + the
    harness): a person's turn entered on the tiles, the computer's on the box's dice."""
    from shutbox_host.bench import game as bench_game
    from shutbox_host.model.script import ROLL_MS, Script

    s = Script().wait(300)

    def enter(*faces):
        for k in faces:
            s.flip(k).wait(80).flip(k).wait(80)

    enter(6, 6)
    s.click(120).wait(ROLL_MS + 100).shut(3, 9).wait(200)
    enter(2, 9)  # a tile above 6 clears the entry
    s.click(120).wait(200)  # refused: no dice
    enter(1, 1)
    s.click(120).wait(ROLL_MS + 100).shut(2).wait(200)
    enter(1, 1)
    s.click(120).wait(ROLL_MS + 100)  # nothing fits: the turn ends
    s.wait(1000).open(2, 3, 9).wait(100).click(120).wait(300)
    s.dice(4, 4, 6, 6, 5, 3, 2, 1, 1, 1, 1, 1, 1, 1).wait(40000)  # the computer's turn
    s.click(120).wait(3000)
    settings = {"players": 1, "computer": 3, "hints": 2, "real_dice": 1, "timeout": 2,
                "resign": 1}
    r = bench_game.boot_run(tmp_path / "a", settings, s, bench_game.boot_cap())
    assert bench_game.trouble(r) == []
    assert r.events("settings")[0]["values"][ATTRS.index("real_dice")] == 1
    throws = r.events("throw")
    mine = [t for t in throws if t["player"] == 1]
    assert [t["dice"] for t in mine] == [[6, 6], [1, 1], [1, 1]]
    assert all(t.get("real") is True for t in mine)
    cpu = [t for t in throws if t["player"] == 2]
    assert cpu and not any("real" in t for t in cpu)
    assert [x["why"] for x in r.events("refused")] == ["dice"]
    assert r.events("score")[0]["score"] == 1 + 4 + 5 + 6 + 7 + 8
    assert r.events("winner")


def test_roll_takes_a_pending_move_and_throws_nothing():
    """The kids' moves: 3 shut of a 3 + 4 could still grow to 3 and 4; Roll takes it, and the
    next throw is entered, not thrown by the box."""
    from shutbox.variants import MOVES_KIDS

    box = real_box(players=1, moves=MOVES_KIDS)
    g = box.game
    enter(box, 3, 4)
    throw(box)
    assert g.state == MOVE
    flip(box, 3)
    assert g.pending
    press(box)
    assert g.state == READY and events(box, "move")[-1]["shut"] == [3]
    assert len(events(box, "throw")) == 1 and g.dice.throws == 0


# ----- the time limit (shutbox.turn's Game with the box's own dice) -----


def timed(**settings):
    """A CPython box under a time limit, its own dice only as given (no real dice)."""
    return cpy(**settings)


@pytest.mark.parametrize("limit,seconds", [(1, 30), (2, 60)])
def test_a_decision_out_of_time_ends_the_turn_after_ten_ticks(limit, seconds):
    box = timed(players=2, timeout=limit)
    g = box.game
    throw(box, 6, 6)
    assert g.state == MOVE and g.moving(box.now) is True  # the clock runs
    sounds = g.sound_seq
    box.advance(seconds * 1000 - 10500)
    assert g.state == MOVE and g.sound_seq == sounds  # no tick before the last 10 s
    box.advance(5000)
    assert g.sound_seq - sounds == 5  # one tick a second
    end = g.t_state + seconds * 1000
    shown = "".join(NAMES[c] for c in g.render(end - 4900))  # a second's first 100 ms
    assert shown[9 + 7 + 3] == "Y" and set(shown[9:23]) <= {"Y", "."}  # the dice amber
    shown = "".join(NAMES[c] for c in g.render(end - 4500))
    assert "Y" not in shown[9:23]
    box.advance(5600)
    assert g.state == TURN_END and g.sound_seq - sounds == 10 + 1  # ten ticks, the turn's end
    assert events(box, "rule")[-1] == {"ev": "rule", "rule": "timeout", "player": 1}
    assert events(box, "score")[-1]["score"] == 45 and events(box, "score")[-1]["throws"] == 1


def test_each_decision_has_its_own_time_and_setup_has_none():
    box = timed(players=1, timeout=1)
    g = box.game
    box.advance(40000)  # SETUP: no clock
    assert g.state == SETUP and not events(box, "rule")
    throw(box, 6, 6)
    box.advance(25000)
    flip(box, 3, 9)  # the move, in time
    assert g.state == READY
    box.advance(25000)  # READY: its own 30 s
    throw(box, 5, 5)
    assert g.state == MOVE
    box.advance(29000)
    assert g.state == MOVE and not events(box, "rule")
    box.advance(1100)
    assert g.state == TURN_END and events(box, "rule")[-1]["rule"] == "timeout"


def test_the_computer_has_no_timeout():
    box = timed(players=1, computer=2, timeout=1)
    g = box.game
    throw(box, 1, 1)
    flip(box, 2)
    throw(box, 1, 1)
    assert g.state == TURN_END
    box.faces += [6, 6, 5, 5, 4, 4, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
    box.advance(800)
    throw(box)
    box.set_open(FULL)
    box.advance(60000)
    assert [r["player"] for r in events(box, "score")] == [1, 2] and not events(box, "rule")


def test_the_timeout_setting():
    assert setnames.names(Settings(timeout=2))["timeout"] == "60-s"
    assert setfile.unpack(setfile.pack(setnames.parse("timeout=30-s"))).timeout == 1


# ----- resigning: tile 1 out of its place, then Roll held -----


def test_a_player_resigns_and_the_other_wins_a_one_round_game():
    box = timed(players=2, resign=1)
    g = box.game
    throw(box, 6, 6)
    flip(box, 3, 9)
    assert g.state == READY
    flip(box, 1)  # tile 1 shut before the throw: it blinks
    assert g.err_mask == 1
    throw(box, long=True)
    assert g.state == TURN_END
    assert events(box, "rule")[-1] == {"ev": "rule", "rule": "resign", "player": 1}
    assert events(box, "score")[-1]["score"] == 45  # every tile of the start
    box.advance(800)
    throw(box)
    box.set_open(FULL)
    box.advance(50)
    assert g.state == SETUP and g.player == 1  # the other goes on
    throw(box, 1, 1)
    flip(box, 2)
    throw(box, 1, 1)
    assert events(box, "score")[-1]["score"] == 43
    box.advance(800)
    throw(box)
    assert g.state == GAME_END and events(box, "winner")[-1]["players"] == [2]


def test_without_the_setting_the_combination_is_a_one_die_throw_refused():
    box = timed(players=2)
    g = box.game
    flip(box, 1)
    throw(box, long=True)
    assert g.state == SETUP and not events(box, "rule")


def test_a_resigned_player_plays_no_more_rounds():
    from shutbox.rounds import _FORMAT_3_ROUNDS

    box = timed(players=3, resign=1, format=_FORMAT_3_ROUNDS)
    g = box.game
    flip(box, 1)  # player 1, in SETUP
    throw(box, long=True)
    assert g.state == TURN_END and events(box, "rule")[-1]["player"] == 1
    seats = []
    while g.state != GAME_END:
        box.advance(800)
        throw(box)
        if g.state == SETUP:
            box.set_open(FULL)
            box.advance(50)
            seats.append(g.player + 1)
            throw(box, 1, 1)
            flip(box, 2)
            throw(box, 1, 1)
    assert seats.count(1) == 0 and len(seats) == 2 * 3  # the two others, three rounds
    assert 1 not in events(box, "winner")[-1]["players"]
    assert all(1 not in r["players"] for r in events(box, "round")[1:])


def test_when_the_last_players_resign_a_match_ends_in_a_draw():
    """Three rounds: player 1 resigns in the first, player 2 plays it and resigns in the
    second: nobody is left, the game ends there (no third round), a draw between both seats
    whose score is the lowest total."""
    from shutbox.rounds import _FORMAT_3_ROUNDS

    box = timed(players=2, resign=1, format=_FORMAT_3_ROUNDS)
    g = box.game
    flip(box, 1)  # player 1, in SETUP
    throw(box, long=True)
    box.advance(800)
    throw(box)
    box.set_open(FULL)
    box.advance(50)
    assert g.state == SETUP and g.player == 1
    throw(box, 1, 1)
    flip(box, 2)
    throw(box, 1, 1)  # player 2: 43
    box.advance(800)
    throw(box)  # round 2: player 2 alone
    box.set_open(FULL)
    box.advance(50)
    assert g.state == SETUP and g.player == 1
    flip(box, 1)
    throw(box, long=True)  # player 2 resigns: 43 + 45
    box.advance(800)
    throw(box)
    assert g.state == GAME_END
    assert [r["round"] for r in events(box, "round")] == [1, 2]
    win = events(box, "winner")[-1]
    assert win["players"] == [1, 2] and win["tie"] and win["scores"] == [45, 88]
    assert win["score"] == 45 and win["rounds"] == 2
