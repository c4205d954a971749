# The game under every setting beyond one round, on CPython: formats, ties, stakes, variants.
"""shutbox.game with shutbox.rounds on the CPython box (shutbox_host.box.drive.CpyBox) driven
through its pins (levels, presses, time), its dice only as given.

Each test plays the rule it is about to its end and checks the game log, the state and what
the LEDs show; tests/firmware/test_powerup.py plays the same rules under MicroPython through the
simulated pins.
"""

from __future__ import annotations

import pytest
from backends import cpy, flip, press, set_open, throw
from test_game import bits, events

from shutbox import frame as fr
from shutbox import setfile, setnames
from shutbox.game import _ERR_NONE as ERR_NONE
from shutbox.game import _ERR_NOT_LEGAL as ERR_NOT_LEGAL
from shutbox.game import _ERR_SETUP as ERR_SETUP
from shutbox.game import _ROLLOFF as ROLLOFF  # private: folded in on the box
from shutbox.game import (
    GAME_END,
    MOVE,
    READY,
    SETUP,
    TURN_END,
    Settings,
)
from shutbox.game import parts as parts_of
from shutbox.rounds import _DIES, _ROLLER  # private: folded in on the box
from shutbox.rounds import _FORMAT_3_ROUNDS as FORMAT_3_ROUNDS
from shutbox.rounds import _FORMAT_5_ROUNDS as FORMAT_5_ROUNDS
from shutbox.rounds import _FORMAT_OUT_AT_45 as FORMAT_OUT_AT_45
from shutbox.rounds import _FORMAT_TO_100 as FORMAT_TO_100
from shutbox.rounds import _STAKES_CANOGA as STAKES_CANOGA
from shutbox.rounds import _TIE_REPLAY as TIE_REPLAY
from shutbox.rounds import _TIE_ROLL_OFF as TIE_ROLL_OFF
from shutbox.rounds import _TO_GO_2 as TO_GO_2
from shutbox.rounds import _TO_GO_3 as TO_GO_3
from shutbox.variants import START_EVEN_OPEN, START_LOW_THREE_SHUT, START_ODD_OPEN
from shutbox_host.model.leds import face

NAMES = fr.NAMES.decode()
FULL = 0x1FF
# A turn that shuts the box without a throw of 7 (for unlucky-7 games).
SHUT = [(6, 6, (3, 9)), (5, 5, (2, 8)), (6, 5, (4, 7)), (3, 3, (6,)), (3, 3, (1, 5))]


def rounds_box(**settings):
    """A CPython box under *settings* at its first turn (Open the Box's: every tile shut),
    its dice only as the test gives them."""
    return cpy(players=Settings(**settings).players,
               levels=0 if Settings(**settings).open_box else FULL,
               **{k: v for k, v in settings.items() if k != "players"})


def next_turn(box):
    """Roll after a turn's score; then set the tiles up for the next turn."""
    assert box.game.state == TURN_END, box.game.state
    box.advance(800)
    press(box)
    if box.game.state == SETUP:
        set_open(box, box.game.open_ ^ box.game.inv)


def number_shown(tiles, a, b):
    """Read a number off the LEDs: tens = the dice as a throw, units = the tile bar."""
    if all(c != "." for c in a + b):
        return 0
    units = sum(c != "." for c in tiles)
    return 10 * (face(a) + face(b)) + units


def play(box, moves):
    """Throws (a, b, tiles) and their moves."""
    for a, b, tiles in moves:
        throw(box, a, b)
        flip(box, *tiles)


def unlucky(box, *moves):
    """A turn under unlucky-7: the throws (a, b, tiles) given, then a 7 ends it."""
    play(box, moves)
    throw(box, 3, 4)
    assert box.game.state == TURN_END


# ----- formats -----


def test_three_rounds_add_up_and_the_first_player_moves_a_seat():
    box = rounds_box(players=2, format=FORMAT_3_ROUNDS, unlucky7=True)
    g = box.game
    order = []
    while g.state != GAME_END:
        order.append(g.player + 1)
        if g.player == 0:
            unlucky(box, (6, 6, (3, 9)))  # 33
        else:
            unlucky(box)  # 45
        next_turn(box)
    assert order == [1, 2, 2, 1, 1, 2]
    assert [e["round"] for e in events(box, "round")] == [1, 2, 3]
    assert [e["total"] for e in events(box, "score")] == [33, 45, 90, 66, 99, 135]
    win = events(box, "winner")[-1]
    assert win["players"] == [1] and win["scores"] == [99, 135] and win["rounds"] == 3


def test_the_turn_score_then_the_running_total_in_white():
    box = rounds_box(players=1, format=FORMAT_5_ROUNDS, unlucky7=True)
    unlucky(box, (6, 6, (3, 9)))
    next_turn(box)
    unlucky(box, (5, 4, (9,)))
    score, total = box.frame(1500), box.frame(3500)
    assert number_shown(*score) == 36 and set("".join(score)) <= {"B", "."}
    assert number_shown(*total) == 69 and set("".join(total)) <= {"W", "."}


def test_five_rounds():
    box = rounds_box(players=1, format=FORMAT_5_ROUNDS, unlucky7=True)
    for _ in range(5):
        assert box.game.state == SETUP
        unlucky(box)
        next_turn(box)
    assert box.game.state == GAME_END and box.game.scores[0] == 5 * 45
    assert events(box, "winner")[-1]["rounds"] == 5


def test_one_round_stays_one_round_with_a_match():
    box = rounds_box(players=2, unlucky7=True)  # unlucky-7 brings the match in; the format is one
    unlucky(box, (6, 6, (3, 9)))
    next_turn(box)
    unlucky(box)
    next_turn(box)
    assert box.game.state == GAME_END and events(box, "winner")[-1]["players"] == [1]


def test_out_at_45_when_the_last_go_out_together_the_lower_total_wins():
    box = rounds_box(players=3, format=FORMAT_OUT_AT_45, unlucky7=True)
    g = box.game
    unlucky(box)  # player 1: 45, out
    next_turn(box)
    unlucky(box, (6, 6, (3, 9)))  # player 2: 33
    next_turn(box)
    unlucky(box, (5, 5, (2, 8)))  # player 3: 35
    next_turn(box)
    assert events(box, "out")[-1]["players"] == [1]
    assert g.state == SETUP and g.player == 1  # round 2 starts at seat 2; player 1 is out
    unlucky(box, (6, 6, (3, 9)), (5, 5, (2, 8)))  # 33 + 23 = 56: out
    next_turn(box)
    assert g.player == 2
    unlucky(box, (6, 6, (3, 9)), (5, 5, (2, 8)), (6, 5, (4, 7)))  # 35 + 12 = 47: out too
    next_turn(box)
    assert g.state == GAME_END
    assert events(box, "winner")[-1]["players"] == [3]
    assert g.scores[:3] == [45, 56, 47]


def test_out_at_45_the_last_player_left_wins():
    box = rounds_box(players=2, format=FORMAT_OUT_AT_45, unlucky7=True)
    unlucky(box)
    next_turn(box)
    assert box.game.state == SETUP  # the round is played out
    unlucky(box, (6, 6, (3, 9)))
    next_turn(box)
    assert box.game.state == GAME_END and events(box, "winner")[-1]["players"] == [2]


def test_to_100_ends_after_the_round_in_which_a_total_reaches_100():
    box = rounds_box(players=2, format=FORMAT_TO_100, unlucky7=True)
    g = box.game
    turns = 0
    while g.state != GAME_END:
        if g.player == 0:
            unlucky(box)
        else:
            unlucky(box, (6, 6, (3, 9)))
        next_turn(box)
        turns += 1
    assert turns == 6 and g.scores[:2] == [135, 99]  # 90 and 66 after two rounds: on
    assert events(box, "winner")[-1]["players"] == [2]


def test_shut_wins_ends_a_longer_game_at_once():
    box = rounds_box(players=2, format=FORMAT_3_ROUNDS, shut_wins=True)
    play(box, SHUT)
    assert box.game.shut_box
    next_turn(box)
    assert box.game.state == GAME_END
    win = events(box, "winner")[-1]
    assert win["players"] == [1] and win["rounds"] == 1


def test_without_shut_wins_a_shut_box_scores_0_and_play_goes_on():
    box = rounds_box(players=2, format=FORMAT_3_ROUNDS)
    play(box, SHUT)
    next_turn(box)
    assert box.game.state == SETUP and box.game.player == 1


# ----- ties -----


def _tie(box):
    """Both players score 33 (under unlucky-7)."""
    for _ in range(2):
        unlucky(box, (6, 6, (3, 9)))
        next_turn(box)


def test_tie_shared():
    box = rounds_box(players=2, unlucky7=True)
    _tie(box)
    win = events(box, "winner")[-1]
    assert win["players"] == [1, 2] and win["tie"] is True


def test_tie_roll_off_the_lowest_die_wins_and_ties_throw_again():
    box = rounds_box(players=2, unlucky7=True, tie=TIE_ROLL_OFF)
    g = box.game
    _tie(box)
    assert g.state == ROLLOFF and events(box, "rolloff")[-1]["players"] == [1, 2]
    tiles, a, b = box.frame(0)
    assert face(a) == 1 and face(b) == 0 and tiles == "MM......."  # player 1 to throw
    press(box)
    assert g.match.st[_DIES] == 0  # too soon: ignored
    for f, who in ((4, 1), (4, 2)):
        box.advance(800)
        box.faces.append(f)
        press(box)
        assert (face(box.frame(0)[1]), face(box.frame(0)[2])) == (who, f)
    box.advance(800)
    press(box)  # both threw 4: they throw again
    assert g.state == ROLLOFF and g.match.st[_DIES] == 0 and g.match.st[_ROLLER] == 0
    for f in (5, 2):
        box.advance(800)
        box.faces.append(f)
        press(box)
    box.advance(800)
    press(box)
    assert g.state == GAME_END
    win = events(box, "winner")[-1]
    assert win["players"] == [2] and win["tie"] is False
    assert [e["die"] for e in events(box, "rolloff_die")] == [4, 4, 5, 2]


def test_tie_replay_the_tied_players_play_one_more_round():
    box = rounds_box(players=3, unlucky7=True, tie=TIE_REPLAY)
    g = box.game
    unlucky(box, (6, 6, (3, 9)))  # 33
    next_turn(box)
    unlucky(box)  # 45
    next_turn(box)
    unlucky(box, (6, 6, (3, 9)))  # 33
    next_turn(box)
    assert g.state == SETUP and g.match.tiebreak == 1 and g.player == 0
    assert events(box, "round")[-1]["players"] == [1, 3]
    unlucky(box, (5, 4, (9,)))  # 36
    next_turn(box)
    assert g.player == 2  # player 2 is not in the tie-break
    unlucky(box, (6, 6, (3, 9)), (4, 4, (8,)))  # 25
    next_turn(box)
    assert g.state == GAME_END
    win = events(box, "winner")[-1]
    assert win["players"] == [3] and win["scores"] == [33, 45, 33]  # totals unchanged


# ----- stakes -----


def test_canoga_losers_pay_the_difference_a_shut_box_twice():
    box = rounds_box(players=3, format=FORMAT_3_ROUNDS, unlucky7=True, stakes=STAKES_CANOGA)
    g = box.game
    unlucky(box, (6, 6, (3, 9)))  # 33
    next_turn(box)
    unlucky(box)  # 45
    next_turn(box)
    unlucky(box, (5, 5, (2, 8)))  # 35
    next_turn(box)
    assert events(box, "stakes")[-1]["balance"] == [14, -12, -2]
    assert g.player == 1  # round 2, seat 2 first: player 2 shuts the box
    play(box, SHUT)
    assert g.shut_box
    next_turn(box)
    unlucky(box, (6, 6, (3, 9)))  # player 3: 33
    next_turn(box)
    unlucky(box)  # player 1: 45
    next_turn(box)
    assert events(box, "stakes")[-1]["balance"] == [14 - 90, -12 + 156, -2 - 66]
    assert g.state == SETUP and g.match.round == 3


def test_canoga_balance_shows_at_game_end_green_won_red_owes():
    box = rounds_box(players=2, stakes=STAKES_CANOGA, unlucky7=True)
    g = box.game
    unlucky(box, (6, 6, (3, 9)))  # 33
    next_turn(box)
    unlucky(box)  # 45
    next_turn(box)
    assert g.state == GAME_END and events(box, "winner")[-1]["balance"] == [12, -12]
    press(box)  # player 1's page: the score (green: the winner), then the balance
    assert number_shown(*box.frame(1500)) == 33
    won = box.frame(3500)
    assert number_shown(*won) == 12 and set("".join(won)) <= {"G", "."}
    press(box)
    owes = box.frame(3500)
    assert number_shown(*box.frame(1500)) == 45
    assert number_shown(*owes) == 12 and set("".join(owes)) <= {"R", "."}


def test_canoga_a_player_a_shut_box_kept_from_playing_pays_double_the_full_box():
    box = rounds_box(players=2, stakes=STAKES_CANOGA, shut_wins=True)
    play(box, SHUT)
    next_turn(box)
    assert events(box, "winner")[-1]["balance"] == [90, -90]


# ----- the turn variants -----


def test_unlucky_7_ends_the_turn_at_once():
    box = rounds_box(players=1, unlucky7=True)
    throw(box, 6, 6)
    flip(box, 3, 9)
    throw(box, 3, 4)  # 7: the 7 tile is open, but a 7 ends the turn unplayed
    g = box.game
    assert g.state == TURN_END and g.score == 33
    assert events(box, "rule")[-1] == {"ev": "rule", "rule": "unlucky-7", "player": 1}
    assert events(box, "throw")[-1]["moves"] == 0 and g.open_ & bits(7)  # no move left


def _replayed(box, *moves):
    """Throws without dice scripted (the recorded ones), and their moves."""
    for tiles in moves:
        throw(box, )
        flip(box, *tiles)


def test_same_throws_every_player_gets_the_first_players_throws():
    box = rounds_box(players=3, same_throws=True)
    g = box.game
    assert box.app.engine.rules.one_die == 0  # one die is not offered (seed 001)
    play(box, [(6, 6, (3, 9)), (5, 5, (2, 8))])
    throw(box, 1, 1)  # open 1 4 5 6 7: 2 does not fit
    assert g.score == 23
    next_turn(box)
    _replayed(box, (5, 7), (1, 9), (2,))  # player 2 plays the same throws otherwise
    play(box, [(6, 6, (4, 8))])  # and gets further: a new throw, recorded
    throw(box, 1, 1)  # another: open 3 6, nothing
    assert g.score == 9
    next_turn(box)
    _replayed(box, (5, 7), (1, 9), (2,), (4, 8))  # player 3: five throws, none new
    throw(box, )
    assert g.state == TURN_END and g.score == 9
    throws = [e["dice"] for e in events(box, "throw")]
    assert throws == [[6, 6], [5, 5], [1, 1]] + [[6, 6], [5, 5], [1, 1], [6, 6], [1, 1]] * 2


def test_same_throws_start_again_each_round():
    box = rounds_box(players=1, same_throws=True, format=FORMAT_3_ROUNDS)
    play(box, [(6, 6, (3, 9))])
    throw(box, 1, 1)  # 1 + 1: the 1 alone is not 2, the 2 is there: it fits
    flip(box, 2)
    throw(box, 5, 6)
    flip(box, 4, 7)
    throw(box, 6, 6)  # 12 from 1 5 6 8: nothing ... 1 + 5 + 6 = 12 fits
    flip(box, 1, 5, 6)
    throw(box, 1, 1)  # open 8
    next_turn(box)
    throw(box, 2, 2)  # round 2: a new first throw, not the recorded one
    assert events(box, "throw")[-1]["dice"] == [2, 2]


def test_2_to_go_the_first_throw_must_shut_the_2_and_a_4_loses_at_once():
    box = rounds_box(players=2, to_go=TO_GO_2)
    g = box.game
    throw(box, 1, 3)  # 4 cannot take the 2: the turn ends, nothing shut
    assert g.state == TURN_END and g.score == 45
    assert events(box, "rule")[-1] == {"ev": "rule", "rule": "2-to-go", "player": 1}
    next_turn(box)
    throw(box, 2, 3)
    assert events(box, "throw")[-1]["moves"] == 1  # only 2 + 3
    flip(box, 5)
    assert g.err == ERR_NOT_LEGAL
    flip(box, 5)
    flip(box, 2)
    flip(box, 3)
    assert g.state == READY and g.open_ == FULL & ~bits(2, 3)
    throw(box, 2, 3)  # the second throw: any move
    flip(box, 5)
    assert g.state == READY and g.open_ == FULL & ~bits(2, 3, 5)


def test_3_to_go_the_first_throw_must_shut_the_3_and_a_2_loses_at_once():
    box = rounds_box(players=1, to_go=TO_GO_3)
    throw(box, 1, 1)
    assert box.game.state == TURN_END and box.game.score == 45
    assert events(box, "rule")[-1]["rule"] == "3-to-go"
    box = rounds_box(players=1, to_go=TO_GO_3)
    throw(box, 2, 2)  # 4: only 1 + 3
    flip(box, 4)
    assert box.game.err == ERR_NOT_LEGAL
    flip(box, 4)
    flip(box, 1, 3)
    assert box.game.state == READY


def test_most_tiles_a_throw_must_shut_as_many_tiles_as_it_can():
    box = rounds_box(players=1, most_tiles=True)
    throw(box, 4, 4)  # 8: 1 2 5 and 1 3 4 are the longest
    assert events(box, "throw")[-1]["moves"] == 2
    assert box.frame()[0] == "WWWWW...."  # only their tiles light
    flip(box, 8)
    assert box.game.err == ERR_NOT_LEGAL
    flip(box, 8)
    flip(box, 1, 3, 4)
    assert box.game.state == READY and box.game.open_ == FULL & ~bits(1, 3, 4)


def test_open_the_box_tiles_start_shut_and_the_face_down_tiles_score():
    box = rounds_box(players=1, open_box=True)
    g = box.game
    assert g.state == SETUP and g.err == ERR_NONE  # every tile down: the start position
    flip(box, 5)
    assert g.err == ERR_SETUP and box.frame()[0][4] == "Y"  # an opened tile blinks amber
    flip(box, 5)
    throw(box, 4, 4)
    assert box.frame()[0] == "WWWWWWWW."  # the tiles that can take part: all face down
    flip(box, 8)  # open the 8
    assert g.state == READY
    play(box, [(6, 6, (3, 9)), (1, 1, (2,))])
    throw(box, 1, 1)  # face down: 1 4 5 6 7; 2 does not fit
    assert g.state == TURN_END and g.score == 1 + 4 + 5 + 6 + 7
    assert box.open_ == bits(2, 3, 8, 9)


def test_open_the_box_and_the_others_use_the_same_mirror():
    box = rounds_box(players=1, open_box=True, to_go=TO_GO_2)
    throw(box, 2, 3)
    flip(box, 5)
    assert box.game.err == ERR_NOT_LEGAL  # the first throw must open the 2
    flip(box, 5)
    flip(box, 2, 3)
    assert box.game.state == READY


# ----- settings that do not fit together -----


@pytest.mark.parametrize("to_go,start", [(TO_GO_2, START_ODD_OPEN),
                                         (TO_GO_2, START_LOW_THREE_SHUT),
                                         (TO_GO_3, START_EVEN_OPEN)])
def test_to_go_needs_its_tile_in_play(to_go, start):
    s = Settings(to_go=to_go, start=start)
    assert setfile.conflict(s) == 9
    with pytest.raises(ValueError, match="needs tile"):
        setnames.check(s)


def test_a_match_only_when_a_setting_needs_one():
    assert rounds_box(players=2).game.match is None
    assert rounds_box(players=2, open_box=True).game.match is None
    for kw in ({"format": 1}, {"tie": 1}, {"stakes": 1}, {"same_throws": 1},
               {"unlucky7": 1}, {"to_go": 1}, {"most_tiles": 1}):
        assert rounds_box(players=2, **kw).game.match is not None, kw


def test_game_states_are_distinct():
    assert len({SETUP, READY, MOVE, TURN_END, GAME_END, ROLLOFF}) == 6


# ----- two-tiles: a move shuts at most two tiles -----


def test_two_tiles_keeps_the_moves_of_one_or_two_tiles_and_ends_a_turn_without_them():
    box = rounds_box(players=1, two_tiles=1)
    g = box.game
    throw(box, 6, 6)
    moves = sorted(g.legal[i] for i in range(g.moves))
    assert moves == sorted([bits(3, 9), bits(4, 8), bits(5, 7)])  # no 1 2 9, no 1 2 4 5 ...
    flip(box, 1, 2)  # part of 1 2 9 only: no legal move holds them now
    assert g.err == ERR_NOT_LEGAL
    flip(box, 1, 2)
    flip(box, 3, 9)
    play(box, [(5, 5, (2, 8)), (6, 5, (4, 7))])
    assert g.open_ == bits(1, 5, 6)
    throw(box, 6, 6)  # 1 + 5 + 6 would shut the box: three tiles
    assert g.state == TURN_END and events(box, "score")[-1]["score"] == 12
    assert events(box, "throw")[-1]["moves"] == 0


def test_without_two_tiles_the_same_throws_shut_the_box():
    box = rounds_box(players=1)
    g = box.game
    play(box, [(6, 6, (3, 9)), (5, 5, (2, 8)), (6, 5, (4, 7)), (6, 6, (1, 5, 6))])
    assert g.state == TURN_END and events(box, "score")[-1]["score"] == 0


def test_two_tiles_is_a_game_option_with_its_own_records_and_dice():
    assert "rounds" in parts_of(Settings(two_tiles=1))
    assert setnames.names(Settings(two_tiles=1))["two-tiles"] == "on"
    assert setfile.variant_key(Settings(two_tiles=1), 9) == setfile.variant_key(
        Settings(), 9) | 1 << 19
