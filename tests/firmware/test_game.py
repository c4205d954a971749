# The game state machine and the LED frames, on CPython: turns, mistakes, one die, scores, winners.
"""The firmware's App on CPython (shutbox_host.box.drive.CpyBox) driven through its pins, its
dice given; its Game looked into and its picture drawn at a time to come."""

from __future__ import annotations

import pytest
from backends import cpy, open_, press, set_open, shut, throw

from shutbox import frame as fr
from shutbox.engine import Rules
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
    Settings,
)
from shutbox.variants import MODE_FORCED, MODE_LOCKED, MOVES_KIDS, ONE_DIE_NEVER
from shutbox_host.model.leds import face

NAMES = fr.NAMES.decode()
FULL = 0x1FF


def bits(*tiles):
    m = 0
    for k in tiles:
        m |= 1 << (k - 1)
    return m


def lit(box, letter="W", at=0):
    """The tiles lit *letter* in the game's picture *at* ms from now."""
    return [k + 1 for k, c in enumerate(box.frame(at)[0]) if c == letter]


def events(box, kind):
    """The log's records of *kind* (without the time the box logged them at)."""
    return [{k: v for k, v in r.items() if k != "_ms"} for r in box.shown().events(kind)]


def dice_shown(box):
    _, a, b = box.frame()
    return face(a), face(b)


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
    box = cpy()
    for faces, move in (((5, 4), (9,)), ((6, 6), (4, 8)), ((2, 1), (3,)), ((6, 5), (5, 6)),
                        ((4, 4), (1, 7))):
        throw(box, *faces)
        assert box.game.state == MOVE and dice_shown(box) == faces
        shut(box, *move)
        assert box.game.state == READY
    throw(box, 3, 5)
    assert box.game.state == TURN_END and box.game.score == 2
    assert [m["shut"] for m in events(box, "move")] == [[9], [4, 8], [3], [5, 6], [1, 7]]
    score = events(box, "score")[0]
    assert score["score"] == 2 and score["open"] == [2] and score["throws"] == 6


def test_legal_tiles_are_lit_after_the_throw():
    box = cpy()
    throw(box, 2, 1)
    assert lit(box) == [1, 2, 3]  # 3 or 1+2
    set_open(box, FULL)
    box2 = cpy()
    throw(box2, 6, 6)  # 12: every tile can take part
    assert lit(box2) == list(range(1, 10))


def test_tiles_shut_so_far_turn_green_and_only_completions_stay_lit():
    box = cpy()
    throw(box, 4, 4)  # 8
    shut(box, 1)
    assert lit(box, "G") == [1]
    assert lit(box) == [2, 3, 4, 5, 7]  # 1+7, 1+2+5, 1+3+4
    assert box.game.state == MOVE  # not a move yet
    shut(box, 7)
    assert box.game.state == READY and events(box, "move")[-1]["shut"] == [1, 7]
    assert lit(box, "G") == [1, 7]  # the accepted move flashes green ...
    box.advance(600)
    assert lit(box, "G") == [] and lit(box) == [2, 3, 4, 5, 6, 8, 9]  # ... then the box


def test_shutting_too_much_blinks_red_until_undone():
    box = cpy()
    throw(box, 2, 1)  # 3
    shut(box, 2, 5)  # 7 > 3
    g = box.game
    assert g.err == ERR_TOO_HIGH and g.err_mask == bits(2, 5)
    phases = {tuple(lit(box, "R", at)) for at in range(0, 500, 50)}
    assert phases == {(2, 5), ()}  # blinking
    assert events(box, "error")[-1]["why"] == "too-high"
    open_(box, 5)
    assert g.err == ERR_NONE and g.state == MOVE
    shut(box, 1)
    assert g.state == READY and events(box, "move")[-1]["shut"] == [1, 2]


def test_a_set_no_legal_move_contains_is_refused():
    box = cpy()
    throw(box, 2, 1)
    shut(box, 3)  # the 3 is gone
    throw(box, 1, 3)  # 4: only the 4 now
    shut(box, 1)  # 1 needs the 3
    assert box.game.err == ERR_NOT_LEGAL and lit(box, "R", 0) == [1]
    open_(box, 1)
    shut(box, 4)
    assert box.game.state == READY


def test_reopening_a_tile_shut_earlier_is_an_error_before_and_after_the_throw():
    box = cpy()
    throw(box, 5, 4)
    shut(box, 9)
    open_(box, 9)  # before the next throw
    g = box.game
    assert g.err == ERR_REOPENED and g.err_mask == bits(9)
    press(box)
    assert g.state == READY and events(box, "refused")[-1]["why"] == "reopened"
    shut(box, 9)
    assert g.err == ERR_NONE
    throw(box, 6, 2)
    assert g.state == MOVE
    open_(box, 9)  # after the throw
    assert g.err == ERR_REOPENED and lit(box, "R") == [9]
    shut(box, 9)
    shut(box, 8)
    assert g.state == READY and events(box, "move")[-1]["shut"] == [8]


def test_a_tile_flipped_before_the_throw_stops_the_roll():
    box = cpy()
    throw(box, 5, 4)
    shut(box, 9)
    shut(box, 2)  # too early
    g = box.game
    assert g.err == ERR_EARLY and events(box, "error")[-1]["why"] == "early"
    press(box)
    box.advance(700)
    assert g.state == READY and g.throws == 1
    open_(box, 2)
    throw(box, 1, 1)
    assert g.state == MOVE and g.throws == 2


def test_before_a_turn_shut_tiles_blink_amber_until_opened():
    box = cpy()
    shut(box, 2, 5)  # the box was left like this
    g = box.game
    assert g.state == SETUP and g.err == ERR_SETUP
    assert {tuple(lit(box, "Y", at)) for at in range(0, 500, 50)} == {(2, 5), ()}
    assert box.frame()[1] == "...M..."  # player 1 on die A
    press(box)
    assert g.state == SETUP and events(box, "refused")[-1]["why"] == "setup"
    assert events(box, "error") == []  # setting up is not a mistake
    open_(box, 2, 5)
    throw(box, 3, 3)
    assert g.state == MOVE


def test_roll_is_ignored_during_the_animation():
    box = cpy(faces=[2, 2])
    press(box)
    assert box.game.state == ROLLING
    press(box)
    box.advance(700)
    assert box.game.throws == 1 and dice_shown(box) == (2, 2)


# ----- one die -----


def _shut_high(box):
    for faces, tile in (((6, 3), 9), ((4, 4), 8), ((4, 3), 7)):
        throw(box, *faces)
        shut(box, tile)


def test_one_die_by_long_press_once_7_8_9_are_shut():
    box = cpy()
    assert box.game.one_die_choice() == 0
    throw(box, 3, 3, long=True)  # not allowed yet: two dice
    assert events(box, "throw")[-1]["dice"] == [3, 3]
    shut(box, 6)
    _shut_high(box)
    assert box.game.one_die_choice() == 1
    pips = {box.frame(at)[2] for at in range(0, 600, 50)}
    assert pips == {"...Y...", "......."}  # die B's centre blinks: one die is possible
    throw(box, 5, long=True)
    assert events(box, "throw")[-1]["dice"] == [5] and dice_shown(box) == (5, 0)
    shut(box, 5)
    throw(box, 1, 2)  # a short press is still two dice
    assert events(box, "throw")[-1]["dice"] == [1, 2]


def test_locked_mode_keeps_one_die_for_the_rest_of_the_turn():
    box = cpy(rules=Rules(one_die_mode=MODE_LOCKED))
    throw(box, 3, 3)
    shut(box, 6)
    _shut_high(box)
    throw(box, 4, long=True)
    shut(box, 4)
    assert box.game.one_die_choice() == 2
    throw(box, 2)  # a short press: still one die
    assert events(box, "throw")[-1]["dice"] == [2]


def test_forced_mode_throws_one_die_whenever_allowed():
    box = cpy(rules=Rules(one_die_mode=MODE_FORCED))
    throw(box, 3, 3)
    shut(box, 6)
    _shut_high(box)
    throw(box, 5)
    assert events(box, "throw")[-1]["dice"] == [5]


def test_without_the_one_die_rule_a_long_press_is_two_dice():
    box = cpy(rules=Rules(one_die=ONE_DIE_NEVER))
    throw(box, 3, 3)
    shut(box, 6)
    _shut_high(box)
    assert box.game.one_die_choice() == 0
    throw(box, 1, 1, long=True)
    assert events(box, "throw")[-1]["dice"] == [1, 1]


# ----- a move a longer move could extend (some variants) -----


def test_an_extendable_move_is_accepted_after_a_pause_or_on_roll():
    box = cpy(rules=Rules(moves=MOVES_KIDS))  # the total, one die, or both dice
    throw(box, 3, 5)
    shut(box, 3)  # legal alone, but 3 and 5 is legal too
    g = box.game
    assert g.state == MOVE and g.pending
    box.advance(1000)
    assert g.state == MOVE
    shut(box, 5)
    assert g.state == READY and events(box, "move")[-1]["shut"] == [3, 5]
    throw(box, 1, 2)
    shut(box, 1)
    box.advance(1600)
    assert g.state == READY and events(box, "move")[-1]["shut"] == [1]
    throw(box, 2, 4)
    shut(box, 2)
    throw(box, 6, 6)  # Roll accepts the pending {2} and throws at once
    assert events(box, "move")[-1]["shut"] == [2] and events(box, "throw")[-1]["dice"] == [6, 6]


# ----- scores, turns and the winner -----


def _turn(box, throws):
    """Play throws given as (a, b, tiles to shut)."""
    for a, b, tiles in throws:
        throw(box, a, b)
        shut(box, *tiles)


def test_two_players_winner_and_every_score_readable_from_the_leds():
    box = cpy(players=2)
    g = box.game
    _turn(box, [(5, 4, (9,)), (6, 6, (4, 8))])
    throw(box, 1, 1)  # open 1 2 3 5 6 7: 2 fits
    shut(box, 2)
    throw(box, 6, 6)  # 12 from 1 3 5 6 7: 5+7 fits
    shut(box, 5, 7)
    throw(box, 6, 6)  # 12 from 1 3 6: nothing
    assert g.state == TURN_END and g.score == 10
    # the score view: the player's number, then the number
    assert box.frame(100)[0][0] == "M" and face(box.frame(100)[1]) == 1
    assert number_shown(*box.frame(1500)) == 10
    press(box)
    assert g.state == TURN_END  # too soon after the turn ended
    box.advance(800)
    press(box)
    assert g.state == SETUP and g.player == 1 and face(box.frame()[1]) == 2
    box.advance(100)
    assert set(lit(box, "Y", 0)) == {2, 5, 7, 8, 9, 4}  # player 2 must open them
    set_open(box, FULL)
    _turn(box, [(5, 4, (9,)), (4, 4, (8,)), (4, 3, (7,)), (3, 3, (6,)), (4, 1, (5,))])
    throw(box, 6, 6)
    assert g.score == 10 and g.state == TURN_END
    box.advance(800)
    press(box)
    assert g.state == GAME_END
    win = events(box, "winner")[-1]
    assert win == {"ev": "winner", "players": [1, 2], "score": 10, "scores": [10, 10],
                   "tie": True}
    tiles, a, b = box.frame(50)
    assert face(a) == 1 and face(b) == 2 and set(lit(box, "G", 50)) == {1, 2}  # both won
    assert number_shown(*box.frame(1500)) == 10
    for p in (1, 2):  # Roll steps through every player's score
        press(box)
        assert g.page == p
        assert face(box.frame(100)[1]) == p and box.frame(100)[0][p - 1] == "M"
        assert number_shown(*box.frame(1500)) == g.scores[p - 1]
    press(box)
    assert g.page == 0
    press(box, long=True)  # a new game
    assert g.state == SETUP and g.player == 0 and len(events(box, "game")) == 2


def test_the_lowest_score_wins():
    box = cpy(players=3)
    g = box.game
    for score_throws in ([(6, 6, (3, 9))], [(5, 4, (9,))], [(2, 1, (3,))]):
        set_open(box, FULL)
        _turn(box, score_throws)
        while g.state != TURN_END:  # then 12s, played greedily, until one does not fit
            throw(box, 6, 6)
            if g.state == MOVE:
                move = box.app.engine.greedy_move(g.open_, 6, 6)
                shut(box, *[k for k in range(1, 10) if move >> (k - 1) & 1])
        box.advance(800)
        press(box)
    assert g.state == GAME_END
    scores = g.scores[:3]
    best = min(scores)
    assert events(box, "winner")[-1]["players"] == [p + 1 for p in range(3) if scores[p] == best]


def test_shutting_the_box_celebrates_then_shows_zero():
    box = cpy()
    _turn(box, [(6, 6, (3, 9)), (5, 5, (2, 8)), (4, 3, (7,)), (3, 3, (6,)), (4, 1, (5,)),
                (2, 3, (1, 4))])
    g = box.game
    assert g.state == TURN_END and g.shut_box and g.score == 0
    assert events(box, "score")[-1]["shut_box"] is True
    colours = {box.frame(at)[0] for at in range(0, 2000, 100)}
    assert len(colours) > 3  # colours running along the tiles
    assert number_shown(*box.frame(4500)) == 0  # then 0: every pip lit
    assert g.sound_seq > 0


def test_shut_wins_ends_the_game_at_once():
    box = cpy(players=3, shut_wins=True)
    _turn(box, [(6, 6, (3, 9)), (5, 5, (2, 8)), (4, 3, (7,)), (3, 3, (6,)), (4, 1, (5,)),
                (2, 3, (1, 4))])
    box.advance(800)
    press(box)
    g = box.game
    assert g.state == GAME_END
    assert events(box, "winner")[-1]["players"] == [1]
    assert events(box, "turn_end")[-1]["next"] == 0


def test_one_player_game_ends_after_one_turn():
    box = cpy(players=1)
    throw(box, 2, 1)
    shut(box, 3)
    throw(box, 1, 1)
    shut(box, 2)
    throw(box, 1, 1)  # 2 is gone, 1 alone is not 2
    box.advance(800)
    press(box)
    assert box.game.state == GAME_END and events(box, "winner")[-1]["scores"] == [40]


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
