# Real dice and the time limit on CPython: throws entered on the tiles; a clock per decision.
"""shutbox.game with shutbox.turn (the real-dice and timeout settings) driven by hand:
each die entered by flipping its tile down and up, Roll to throw; the box's own dice must
never be asked for a person's throw (the scripted source raises), and the log marks the
entered throws. The time limit: ten ticks, then the turn's end, a clock per decision."""

from __future__ import annotations

import pytest
from test_game import bits

from shutbox import frame as fr
from shutbox import setfile, setnames, turn
from shutbox.dice import Dice
from shutbox.engine import Engine
from shutbox.game import _ERR_NONE as ERR_NONE
from shutbox.game import _ERR_SETUP as ERR_SETUP
from shutbox.game import GAME_END, MOVE, READY, SETUP, TURN_END, Settings
from shutbox.settings import ATTRS
from shutbox_host.model.leds import face

NAMES = fr.NAMES.decode()
FULL = 0x1FF


class Box:
    """A game with real dice under *settings*, a hand-driven clock and tile levels."""

    def __init__(self, **settings):
        self.settings = Settings(real_dice=1, **settings)
        self.eng = Engine(setfile.rules(self.settings, 9))
        self.faces: list[int] = []
        self.dice = Dice(self._urandom, 1)  # the game wraps it in turn.Dice
        self.now = 5000
        self.levels = FULL
        self.game = turn.Game(self.eng, self.dice, self.settings, self.levels, self.now)

    def _urandom(self, n):
        if not self.faces:
            raise AssertionError("the box threw its own dice for a person's throw")
        return bytes(self.faces.pop(0) - 1 for _ in range(n))

    def wait(self, ms):
        for _ in range(ms // 10):
            self.now += 10
            self.game.tick(self.now)

    def flip(self, *tiles):
        self.levels ^= bits(*tiles)
        self.game.tiles_changed(self.levels, self.now)
        self.wait(50)

    def enter(self, *faces):
        """Each die: its tile flipped and flipped back."""
        for k in faces:
            self.flip(k)
            self.flip(k)

    def press(self, long=False):
        self.game.roll(long, self.now)
        self.wait(700)

    def frame(self):
        f = self.game.render(self.now)
        s = "".join(NAMES[c] for c in f)
        return s[:9], s[9:16], s[16:]

    def events(self, kind):
        return [r for r in self.game.log if r["ev"] == kind]


def test_a_turn_with_real_dice_is_entered_checked_and_scored():
    box = Box(players=1)
    g = box.game
    assert g.state == SETUP
    box.enter(6, 6)
    _, a, b = box.frame()
    assert (face(a), face(b)) == (6, 6)  # the dice entered show on the dice
    assert g.err == ERR_NONE and g.state == SETUP
    box.press()
    assert g.state == MOVE and (g.a, g.b) == (6, 6)
    throw = box.events("throw")[-1]
    assert throw["dice"] == [6, 6] and throw["real"] is True
    box.flip(3)
    box.flip(9)
    assert g.state == READY and box.events("move")[-1]["shut"] == [3, 9]
    # the next throw: 5 + 4 on the tiles still open (a shut tile is flipped up and down)
    box.enter(5, 3)
    assert g.err == ERR_NONE
    box.press()
    assert (g.a, g.b) == (5, 3) and g.state == MOVE
    box.flip(8)
    assert g.state == READY
    box.enter(1, 1)
    box.press()
    box.flip(2)
    assert g.state == READY
    # a throw nothing fits: 6 + 6 with 1, 4, 5, 6, 7 open fits 5 + 7, so use 1 + 1 with no 2
    box.enter(1, 1)
    box.press()
    assert g.state == TURN_END
    score = box.events("score")[-1]
    assert score["score"] == 1 + 4 + 5 + 6 + 7 and score["throws"] == 4
    assert all(t["real"] for t in box.events("throw"))
    assert not box.faces  # the box's own dice were never thrown


def test_a_tile_away_blinks_amber_and_roll_waits_for_it():
    box = Box(players=1)
    g = box.game
    box.flip(4)  # down: not entered yet
    assert g.err == ERR_SETUP and g.err_mask == bits(4)
    tiles, _, _ = box.frame()
    assert tiles[3] in "Y."  # amber, blinking
    box.press()
    assert g.state == SETUP and box.events("refused")[-1]["why"] == "setup"
    assert not box.events("error")  # not a mistake: no buzz, no error record
    box.flip(4)
    assert g.err == ERR_NONE and g.dice.throws == 1


def test_roll_is_refused_without_the_dice_the_rules_allow():
    box = Box(players=1)
    g = box.game
    box.press()  # nothing entered
    assert g.state == SETUP and box.events("refused")[-1]["why"] == "dice"
    box.enter(4)  # one die, not allowed with 7, 8, 9 open
    box.press()
    assert g.state == SETUP and len(box.events("refused")) == 2
    box.enter(2)
    box.press()
    assert g.state == MOVE and (g.a, g.b) == (4, 2)


def test_one_die_entered_is_a_one_die_throw_where_allowed():
    box = Box(players=1)
    g = box.game
    for a, b, tiles in ((6, 3, (9,)), (4, 4, (8,)), (5, 2, (7,))):
        box.enter(a, b)
        box.press()
        box.flip(*tiles)
    assert g.state == READY and g.one_die_choice() == 1
    box.enter(5)
    box.press()
    assert g.state == MOVE and (g.a, g.b) == (5, 0)
    assert box.events("throw")[-1]["dice"] == [5]


def test_a_third_die_or_a_high_tile_clears_the_entry():
    box = Box(players=1)
    g = box.game
    box.enter(2, 3, 4)
    assert g.dice.throws == 0
    box.enter(2, 9)
    assert g.dice.throws == 0
    box.enter(5, 4)
    box.press()
    assert (g.a, g.b) == (5, 4)


def test_the_computer_throws_the_box_dice_and_they_are_not_marked():
    box = Box(players=1, computer=2)
    g = box.game
    box.enter(6, 6)
    box.press()
    box.flip(3, 9)
    box.enter(1, 1)
    box.press()
    box.flip(2)
    box.enter(1, 1)
    box.press()
    assert g.state == TURN_END
    box.faces += [6, 6, 5, 5, 4, 4, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
    box.wait(800)
    box.press()
    box.levels = FULL  # the box's tiles open: the computer's turn starts
    g.tiles_changed(box.levels, box.now)
    box.wait(30000)
    throws = box.events("throw")
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
    box = Box(players=2)
    g = box.game
    for _ in range(2):
        box.enter(3, 4)
        box.press()
        box.flip(7)
        box.enter(1, 1)
        box.press()
        box.flip(2)
        box.enter(1, 1)
        box.press()
        assert g.state == TURN_END
        box.wait(800)
        box.press()
        if g.state == SETUP:
            box.levels = FULL
            g.tiles_changed(box.levels, box.now)
            box.wait(50)
    assert g.state == GAME_END and box.events("winner")[0]["tie"] is True


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

    box = Box(players=1, moves=MOVES_KIDS)
    g = box.game
    box.enter(3, 4)
    box.press()
    assert g.state == MOVE
    box.flip(3)
    assert g.pending
    box.game.roll(False, box.now)
    assert g.state == READY and box.events("move")[-1]["shut"] == [3]
    assert len(box.events("throw")) == 1 and g.dice.throws == 0


# ----- the time limit (shutbox.turn's Game with the box's own dice) -----


class Timed(Box):
    """A game under a time limit, with the box's dice scripted (no real dice)."""

    def __init__(self, **settings):
        self.settings = Settings(**settings)
        self.eng = Engine(setfile.rules(self.settings, 9))
        self.faces = []
        self.dice = Dice(self._urandom, 1)
        self.now = 5000
        self.levels = FULL
        self.game = turn.Game(self.eng, self.dice, self.settings, self.levels, self.now)

    def throw(self, a, b):
        self.faces += [a, b]
        self.press()


@pytest.mark.parametrize("limit,seconds", [(1, 30), (2, 60)])
def test_a_decision_out_of_time_ends_the_turn_after_ten_ticks(limit, seconds):
    box = Timed(players=2, timeout=limit)
    g = box.game
    box.throw(6, 6)
    assert g.state == MOVE and g.moving(box.now) is True  # the clock runs
    sounds = g.sound_seq
    box.wait(seconds * 1000 - 10500)
    assert g.state == MOVE and g.sound_seq == sounds  # no tick before the last 10 s
    box.wait(5000)
    assert g.sound_seq - sounds == 5  # one tick a second
    end = g.t_state + seconds * 1000
    shown = "".join(NAMES[c] for c in g.render(end - 4900))  # a second's first 100 ms
    assert shown[9 + 7 + 3] == "Y" and set(shown[9:23]) <= {"Y", "."}  # the dice amber
    shown = "".join(NAMES[c] for c in g.render(end - 4500))
    assert "Y" not in shown[9:23]
    box.wait(5600)
    assert g.state == TURN_END and g.sound_seq - sounds == 10 + 1  # ten ticks, the turn's end
    assert box.events("rule")[-1] == {"ev": "rule", "rule": "timeout", "player": 1}
    assert box.events("score")[-1]["score"] == 45 and box.events("score")[-1]["throws"] == 1


def test_each_decision_has_its_own_time_and_setup_has_none():
    box = Timed(players=1, timeout=1)
    g = box.game
    box.wait(40000)  # SETUP: no clock
    assert g.state == SETUP and not box.events("rule")
    box.throw(6, 6)
    box.wait(25000)
    box.flip(3, 9)  # the move, in time
    assert g.state == READY
    box.wait(25000)  # READY: its own 30 s
    box.throw(5, 5)
    assert g.state == MOVE
    box.wait(29000)
    assert g.state == MOVE and not box.events("rule")
    box.wait(1100)
    assert g.state == TURN_END and box.events("rule")[-1]["rule"] == "timeout"


def test_the_computer_has_no_timeout():
    box = Timed(players=1, computer=2, timeout=1)
    g = box.game
    box.throw(1, 1)
    box.flip(2)
    box.throw(1, 1)
    assert g.state == TURN_END
    box.faces += [6, 6, 5, 5, 4, 4, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
    box.wait(800)
    box.press()
    box.levels = FULL
    g.tiles_changed(box.levels, box.now)
    box.wait(60000)
    assert [r["player"] for r in box.events("score")] == [1, 2] and not box.events("rule")


def test_the_timeout_setting():
    assert setnames.names(Settings(timeout=2))["timeout"] == "60-s"
    assert setfile.unpack(setfile.pack(setnames.parse("timeout=30-s"))).timeout == 1


# ----- resigning: tile 1 out of its place, then Roll held -----


def test_a_player_resigns_and_the_other_wins_a_one_round_game():
    box = Timed(players=2, resign=1)
    g = box.game
    box.throw(6, 6)
    box.flip(3, 9)
    assert g.state == READY
    box.flip(1)  # tile 1 shut before the throw: it blinks
    assert g.err_mask == 1
    box.press(long=True)
    assert g.state == TURN_END
    assert box.events("rule")[-1] == {"ev": "rule", "rule": "resign", "player": 1}
    assert box.events("score")[-1]["score"] == 45  # every tile of the start
    box.wait(800)
    box.press()
    box.levels = FULL
    g.tiles_changed(box.levels, box.now)
    box.wait(50)
    assert g.state == SETUP and g.player == 1  # the other goes on
    box.throw(1, 1)
    box.flip(2)
    box.throw(1, 1)
    assert box.events("score")[-1]["score"] == 43
    box.wait(800)
    box.press()
    assert g.state == GAME_END and box.events("winner")[-1]["players"] == [2]


def test_without_the_setting_the_combination_is_a_one_die_throw_refused():
    box = Timed(players=2)
    g = box.game
    box.flip(1)
    box.press(long=True)
    assert g.state == SETUP and not box.events("rule")


def test_a_resigned_player_plays_no_more_rounds():
    from shutbox.rounds import _FORMAT_3_ROUNDS

    box = Timed(players=3, resign=1, format=_FORMAT_3_ROUNDS)
    g = box.game
    box.flip(1)  # player 1, in SETUP
    box.press(long=True)
    assert g.state == TURN_END and box.events("rule")[-1]["player"] == 1
    seats = []
    while g.state != GAME_END:
        box.wait(800)
        box.press()
        if g.state == SETUP:
            box.levels = FULL
            g.tiles_changed(box.levels, box.now)
            box.wait(50)
            seats.append(g.player + 1)
            box.throw(1, 1)
            box.flip(2)
            box.throw(1, 1)
    assert seats.count(1) == 0 and len(seats) == 2 * 3  # the two others, three rounds
    assert 1 not in box.events("winner")[-1]["players"]
    assert all(1 not in r["players"] for r in box.events("round")[1:])
