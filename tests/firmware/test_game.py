# The game state machine and the LED frames, on CPython: turns, mistakes, one die, scores, winners.
"""shutbox.game driven directly (levels, presses, time) with scripted dice; frames read back."""

from __future__ import annotations

import pytest

from shutbox import frame as fr
from shutbox.dice import Dice
from shutbox.engine import Engine, Rules
from shutbox.game import _ERR_EARLY as ERR_EARLY
from shutbox.game import _ERR_NONE as ERR_NONE
from shutbox.game import _ERR_NOT_LEGAL as ERR_NOT_LEGAL
from shutbox.game import _ERR_REOPENED as ERR_REOPENED
from shutbox.game import _ERR_SETUP as ERR_SETUP
from shutbox.game import _ERR_TOO_HIGH as ERR_TOO_HIGH
from shutbox.game import (
    GAME_END,
    MOVE,
    READY,
    ROLLING,
    SETUP,
    TURN_END,
    Game,
    Settings,
)
from shutbox.variants import MODE_FORCED, MODE_LOCKED, MOVES_KIDS, ONE_DIE_NEVER
from shutbox_host.model.leds import face

NAMES = fr.NAMES.decode()


def bits(*tiles):
    m = 0
    for k in tiles:
        m |= 1 << (k - 1)
    return m


class Box:
    """A game with a hand-driven clock, tile levels and dice faces."""

    def __init__(self, players=1, rules=None, faces=(), **settings):
        self.eng = Engine(rules or Rules())
        self.faces = list(faces)
        self.dice = Dice(self._urandom, 1)  # one byte per throw: the faces come in order
        self.now = 5000
        self.levels = self.eng.full
        self.game = Game(self.eng, self.dice, Settings(players=players, **settings),
                         self.levels, self.now)

    def _urandom(self, n):
        return bytes(self.faces.pop(0) - 1 for _ in range(n))

    def wait(self, ms):
        for _ in range(ms // 10):
            self.now += 10
            self.game.tick(self.now)

    def _set(self, levels):
        self.levels = levels
        self.game.tiles_changed(levels, self.now)
        self.wait(50)

    def shut(self, *tiles):
        self._set(self.levels & ~bits(*tiles))

    def open(self, *tiles):
        self._set(self.levels | bits(*tiles))

    def open_all(self):
        self._set(self.eng.full)

    def press(self, long=False):
        self.game.roll(long, self.now)

    def throw(self, *faces, long=False):
        self.faces += faces
        self.press(long)
        self.wait(700)

    def frame(self, at=0):
        f = self.game.render(self.now + at)
        t = self.eng.tiles
        s = "".join(NAMES[c] for c in f)
        return s[:t], s[t:t + 7], s[t + 7:]

    def lit(self, letter="W", at=0):
        return [k + 1 for k, c in enumerate(self.frame(at)[0]) if c == letter]

    def dice_shown(self):
        _, a, b = self.frame()
        return face(a), face(b)

    def events(self, kind):
        return [r for r in self.game.log if r["ev"] == kind]


def number_shown(tiles, a, b):
    """Read a number off the LEDs: tens = the dice as a throw, units = the tile bar."""
    if all(c != "." for c in a + b):
        return 0
    lit = [c != "." for c in tiles]
    units = sum(lit)
    assert lit == [True] * units + [False] * (len(tiles) - units), tiles  # a bar from tile 1
    return 10 * (face(a) + face(b)) + units


# ----- a turn -----


def test_seed_001_example_turn():
    """Throws 9, 12, 3, 11, 8, 8 closing 9 / 4 8 / 3 / 5 6 / 1 7 leave the 2: score 2."""
    box = Box()
    for throw, move in (((5, 4), (9,)), ((6, 6), (4, 8)), ((2, 1), (3,)), ((6, 5), (5, 6)),
                        ((4, 4), (1, 7))):
        box.throw(*throw)
        assert box.game.state == MOVE and box.dice_shown() == throw
        box.shut(*move)
        assert box.game.state == READY
    box.throw(3, 5)
    assert box.game.state == TURN_END and box.game.score == 2
    assert [m["shut"] for m in box.events("move")] == [[9], [4, 8], [3], [5, 6], [1, 7]]
    score = box.events("score")[0]
    assert score["score"] == 2 and score["open"] == [2] and score["throws"] == 6


def test_legal_tiles_are_lit_after_the_throw():
    box = Box()
    box.throw(2, 1)
    assert box.lit() == [1, 2, 3]  # 3 or 1+2
    box.open_all()
    box2 = Box()
    box2.throw(6, 6)  # 12: every tile can take part
    assert box2.lit() == list(range(1, 10))


def test_tiles_shut_so_far_turn_green_and_only_completions_stay_lit():
    box = Box()
    box.throw(4, 4)  # 8
    box.shut(1)
    assert box.lit("G") == [1]
    assert box.lit() == [2, 3, 4, 5, 7]  # 1+7, 1+2+5, 1+3+4
    assert box.game.state == MOVE  # not a move yet
    box.shut(7)
    assert box.game.state == READY and box.events("move")[-1]["shut"] == [1, 7]
    assert box.lit("G") == [1, 7]  # the accepted move flashes green ...
    box.wait(600)
    assert box.lit("G") == [] and box.lit() == [2, 3, 4, 5, 6, 8, 9]  # ... then the box


def test_shutting_too_much_blinks_red_until_undone():
    box = Box()
    box.throw(2, 1)  # 3
    box.shut(2, 5)  # 7 > 3
    g = box.game
    assert g.err == ERR_TOO_HIGH and g.err_mask == bits(2, 5)
    phases = {tuple(box.lit("R", at)) for at in range(0, 500, 50)}
    assert phases == {(2, 5), ()}  # blinking
    assert box.events("error")[-1]["why"] == "too-high"
    box.open(5)
    assert g.err == ERR_NONE and g.state == MOVE
    box.shut(1)
    assert g.state == READY and box.events("move")[-1]["shut"] == [1, 2]


def test_a_set_no_legal_move_contains_is_refused():
    box = Box()
    box.throw(2, 1)
    box.shut(3)  # the 3 is gone
    box.throw(1, 3)  # 4: only the 4 now
    box.shut(1)  # 1 needs the 3
    assert box.game.err == ERR_NOT_LEGAL and box.lit("R", 0) == [1]
    box.open(1)
    box.shut(4)
    assert box.game.state == READY


def test_reopening_a_tile_shut_earlier_is_an_error_before_and_after_the_throw():
    box = Box()
    box.throw(5, 4)
    box.shut(9)
    box.open(9)  # before the next throw
    g = box.game
    assert g.err == ERR_REOPENED and g.err_mask == bits(9)
    box.press()
    assert g.state == READY and box.events("refused")[-1]["why"] == "reopened"
    box.shut(9)
    assert g.err == ERR_NONE
    box.throw(6, 2)
    assert g.state == MOVE
    box.open(9)  # after the throw
    assert g.err == ERR_REOPENED and box.lit("R") == [9]
    box.shut(9)
    box.shut(8)
    assert g.state == READY and box.events("move")[-1]["shut"] == [8]


def test_a_tile_flipped_before_the_throw_stops_the_roll():
    box = Box()
    box.throw(5, 4)
    box.shut(9)
    box.shut(2)  # too early
    g = box.game
    assert g.err == ERR_EARLY and box.events("error")[-1]["why"] == "early"
    box.press()
    box.wait(700)
    assert g.state == READY and g.throws == 1
    box.open(2)
    box.throw(1, 1)
    assert g.state == MOVE and g.throws == 2


def test_before_a_turn_shut_tiles_blink_amber_until_opened():
    box = Box()
    box.shut(2, 5)  # the box was left like this
    g = box.game
    assert g.state == SETUP and g.err == ERR_SETUP
    assert {tuple(box.lit("Y", at)) for at in range(0, 500, 50)} == {(2, 5), ()}
    assert box.frame()[1] == "...M..."  # player 1 on die A
    box.press()
    assert g.state == SETUP and box.events("refused")[-1]["why"] == "setup"
    assert box.events("error") == []  # setting up is not a mistake
    box.open(2, 5)
    box.throw(3, 3)
    assert g.state == MOVE


def test_roll_is_ignored_during_the_animation():
    box = Box(faces=[2, 2])
    box.press()
    assert box.game.state == ROLLING
    box.press()
    box.wait(700)
    assert box.game.throws == 1 and box.dice_shown() == (2, 2)


# ----- one die -----


def _shut_high(box):
    for throw, tile in (((6, 3), 9), ((4, 4), 8), ((4, 3), 7)):
        box.throw(*throw)
        box.shut(tile)


def test_one_die_by_long_press_once_7_8_9_are_shut():
    box = Box()
    assert box.game.one_die_choice() == 0
    box.throw(3, 3, long=True)  # not allowed yet: two dice
    assert box.events("throw")[-1]["dice"] == [3, 3]
    box.shut(6)
    _shut_high(box)
    assert box.game.one_die_choice() == 1
    pips = {box.frame(at)[2] for at in range(0, 600, 50)}
    assert pips == {"...Y...", "......."}  # die B's centre blinks: one die is possible
    box.throw(5, long=True)
    assert box.events("throw")[-1]["dice"] == [5] and box.dice_shown() == (5, 0)
    box.shut(5)
    box.throw(1, 2)  # a short press is still two dice
    assert box.events("throw")[-1]["dice"] == [1, 2]


def test_locked_mode_keeps_one_die_for_the_rest_of_the_turn():
    box = Box(rules=Rules(one_die_mode=MODE_LOCKED))
    box.throw(3, 3)
    box.shut(6)
    _shut_high(box)
    box.throw(4, long=True)
    box.shut(4)
    assert box.game.one_die_choice() == 2
    box.throw(2)  # a short press: still one die
    assert box.events("throw")[-1]["dice"] == [2]


def test_forced_mode_throws_one_die_whenever_allowed():
    box = Box(rules=Rules(one_die_mode=MODE_FORCED))
    box.throw(3, 3)
    box.shut(6)
    _shut_high(box)
    box.throw(5)
    assert box.events("throw")[-1]["dice"] == [5]


def test_without_the_one_die_rule_a_long_press_is_two_dice():
    box = Box(rules=Rules(one_die=ONE_DIE_NEVER))
    box.throw(3, 3)
    box.shut(6)
    _shut_high(box)
    assert box.game.one_die_choice() == 0
    box.throw(1, 1, long=True)
    assert box.events("throw")[-1]["dice"] == [1, 1]


# ----- a move a longer move could extend (some variants) -----


def test_an_extendable_move_is_accepted_after_a_pause_or_on_roll():
    box = Box(rules=Rules(moves=MOVES_KIDS))  # the total, one die, or both dice
    box.throw(3, 5)
    box.shut(3)  # legal alone, but 3 and 5 is legal too
    g = box.game
    assert g.state == MOVE and g.pending
    box.wait(1000)
    assert g.state == MOVE
    box.shut(5)
    assert g.state == READY and box.events("move")[-1]["shut"] == [3, 5]
    box.throw(1, 2)
    box.shut(1)
    box.wait(1600)
    assert g.state == READY and box.events("move")[-1]["shut"] == [1]
    box.throw(2, 4)
    box.shut(2)
    box.throw(6, 6)  # Roll accepts the pending {2} and throws at once
    assert box.events("move")[-1]["shut"] == [2] and box.events("throw")[-1]["dice"] == [6, 6]


# ----- scores, turns and the winner -----


def _turn(box, throws):
    """Play throws given as (a, b, tiles to shut)."""
    for a, b, tiles in throws:
        box.throw(a, b)
        box.shut(*tiles)


def test_two_players_winner_and_every_score_readable_from_the_leds():
    box = Box(players=2)
    g = box.game
    _turn(box, [(5, 4, (9,)), (6, 6, (4, 8))])
    box.throw(1, 1)  # open 1 2 3 5 6 7: 2 fits
    box.shut(2)
    box.throw(6, 6)  # 12 from 1 3 5 6 7: 5+7 fits
    box.shut(5, 7)
    box.throw(6, 6)  # 12 from 1 3 6: nothing
    assert g.state == TURN_END and g.score == 10
    # the score view: the player's number, then the number
    assert box.frame(100)[0][0] == "M" and face(box.frame(100)[1]) == 1
    assert number_shown(*box.frame(1500)) == 10
    box.press()
    assert g.state == TURN_END  # too soon after the turn ended
    box.wait(800)
    box.press()
    assert g.state == SETUP and g.player == 1 and face(box.frame()[1]) == 2
    box.wait(100)
    assert set(box.lit("Y", 0)) == {2, 5, 7, 8, 9, 4}  # player 2 must open them
    box.open_all()
    _turn(box, [(5, 4, (9,)), (4, 4, (8,)), (4, 3, (7,)), (3, 3, (6,)), (4, 1, (5,))])
    box.throw(6, 6)
    assert g.score == 10 and g.state == TURN_END
    box.wait(800)
    box.press()
    assert g.state == GAME_END
    win = box.events("winner")[-1]
    assert win == {"ev": "winner", "players": [1, 2], "score": 10, "scores": [10, 10],
                   "tie": True}
    tiles, a, b = box.frame(50)
    assert face(a) == 1 and face(b) == 2 and set(box.lit("G", 50)) == {1, 2}  # both won
    assert number_shown(*box.frame(1500)) == 10
    for p in (1, 2):  # Roll steps through every player's score
        box.press()
        assert g.page == p
        assert face(box.frame(100)[1]) == p and box.frame(100)[0][p - 1] == "M"
        assert number_shown(*box.frame(1500)) == g.scores[p - 1]
    box.press()
    assert g.page == 0
    box.press(long=True)  # a new game
    assert g.state == SETUP and g.player == 0 and len(box.events("game")) == 2


def test_the_lowest_score_wins():
    box = Box(players=3)
    g = box.game
    for score_throws in ([(6, 6, (3, 9))], [(5, 4, (9,))], [(2, 1, (3,))]):
        box.open_all()
        _turn(box, score_throws)
        while g.state != TURN_END:  # then 12s, played greedily, until one does not fit
            box.throw(6, 6)
            if g.state == MOVE:
                move = box.eng.greedy_move(g.open_, 6, 6)
                box.shut(*[k for k in range(1, 10) if move >> (k - 1) & 1])
        box.wait(800)
        box.press()
    assert g.state == GAME_END
    scores = g.scores[:3]
    best = min(scores)
    assert box.events("winner")[-1]["players"] == [p + 1 for p in range(3) if scores[p] == best]


def test_shutting_the_box_celebrates_then_shows_zero():
    box = Box()
    _turn(box, [(6, 6, (3, 9)), (5, 5, (2, 8)), (4, 3, (7,)), (3, 3, (6,)), (4, 1, (5,)),
                (2, 3, (1, 4))])
    g = box.game
    assert g.state == TURN_END and g.shut_box and g.score == 0
    assert box.events("score")[-1]["shut_box"] is True
    colours = {box.frame(at)[0] for at in range(0, 2000, 100)}
    assert len(colours) > 3  # colours running along the tiles
    assert number_shown(*box.frame(4500)) == 0  # then 0: every pip lit
    assert g.sound_seq > 0


def test_shut_wins_ends_the_game_at_once():
    box = Box(players=3, shut_wins=True)
    _turn(box, [(6, 6, (3, 9)), (5, 5, (2, 8)), (4, 3, (7,)), (3, 3, (6,)), (4, 1, (5,)),
                (2, 3, (1, 4))])
    box.wait(800)
    box.press()
    g = box.game
    assert g.state == GAME_END
    assert box.events("winner")[-1]["players"] == [1]
    assert box.events("turn_end")[-1]["next"] == 0


def test_one_player_game_ends_after_one_turn():
    box = Box(players=1)
    box.throw(2, 1)
    box.shut(3)
    box.throw(1, 1)
    box.shut(2)
    box.throw(1, 1)  # 2 is gone, 1 alone is not 2
    box.wait(800)
    box.press()
    assert box.game.state == GAME_END and box.events("winner")[-1]["scores"] == [40]


def test_settings_reject_a_bad_player_count():
    with pytest.raises(ValueError):
        Settings(players=5)
    with pytest.raises(ValueError):
        Settings(players=0)


# ----- frames -----


@pytest.mark.parametrize("n", [1, 7, 9, 10, 23, 40, 45, 78, 99, 129])
def test_numbers_read_back(n):
    f = bytearray(fr.size(9))
    fr.number(f, 9, n, fr.BLUE, 0, 0)
    s = "".join(NAMES[c] for c in f)
    assert number_shown(s[:9], s[9:16], s[16:]) == n


def test_a_long_number_is_shown_digit_by_digit():
    f = bytearray(fr.size(9))
    seen = []
    for t in range(0, 5 * 900, 900):
        fr.number(f, 9, 1204, fr.BLUE, t + 10, 0)
        s = "".join(NAMES[c] for c in f)
        seen.append((s[:9].count("B"), face(s[9:16])))
    # digits 1, 2, 0, 4 with their places 4, 3, 2, 1 counted from the right, then a gap
    assert seen == [(1, 4), (2, 3), (0, 2), (4, 1), (0, 0)]


def test_pip_patterns_are_the_die_faces():
    order = ("top-left", "top-right", "middle-left", "centre", "middle-right", "bottom-left",
             "bottom-right")
    want = {1: {"centre"}, 2: {"top-left", "bottom-right"},
            3: {"top-left", "centre", "bottom-right"},
            4: {"top-left", "top-right", "bottom-left", "bottom-right"},
            5: {"top-left", "top-right", "centre", "bottom-left", "bottom-right"},
            6: set(order) - {"centre"}}
    for f, pips in want.items():
        assert {order[i] for i in range(7) if fr._FACE_PIPS[f] >> i & 1} == pips
