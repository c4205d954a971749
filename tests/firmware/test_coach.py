# Hints off / legal tiles / best move, the beat-target hint and the post-turn analysis.
"""shutbox.coach through the simulated pins under MicroPython (boxrun) and through
shutbox.game on CPython: what the LEDs light for each hints setting, the beat-target hint for
a later player, the count of choices that fell short (log and LEDs), the one-die hint."""

from __future__ import annotations

import random

import pytest
from test_game import bits

from shutbox import frame as fr
from shutbox.dice import Dice
from shutbox.engine import Engine, Rules
from shutbox.game import MOVE, READY, TURN_END, Game
from shutbox.settings import _HINT_BEST as HINT_BEST
from shutbox.settings import _HINT_LEGAL as HINT_LEGAL
from shutbox.settings import _HINT_OFF as HINT_OFF
from shutbox.settings import Settings
from shutbox_host.box import boxsim
from shutbox_host.model.leds import face, tiles_lit
from shutbox_host.model.script import ROLL_MS, Script

HEAP = "128k"  # functional runs; the 64 KB budget is tests/firmware/test_memory.py's
NAMES = fr.NAMES.decode()


def boxrun(s: Script) -> boxsim.Run:
    r = boxsim.run(s, "--players", "1", heapsize=HEAP)
    assert r.returncode == 0, r.stderr
    assert not any(line.startswith("?") for line in r.lines), r.lines
    return r


def new_box(**settings) -> Script:
    """A script that first sets the box up with these Settings attributes (boxrun's b)."""
    s = Script()
    s.lines.append("b " + " ".join("%s=%d" % kv for kv in settings.items()))
    return s.wait(100)


def roll(s: Script, *faces: int, long: bool = False) -> Script:
    s.dice(*faces)
    (s.hold(900) if long else s.click(120)).wait(ROLL_MS)
    return s


def shut(s: Script, *tiles: int) -> Script:
    for k in tiles:
        s.shut(k).wait(80)
    return s.wait(150)


def after_boot(r: boxsim.Run) -> list:
    """The log from the box set up by the script's b command on."""
    games = [i for i, rec in enumerate(r.log) if rec["ev"] == "game"]
    return r.log[games[-1]:]


def number_shown(frame) -> int:
    _, tiles, a, b = frame
    if "." not in a + b:
        return 0
    units = len(tiles) - tiles.count(".")
    return 10 * (face(a) + face(b)) + units


# ----- what MOVE lights -----


@pytest.mark.parametrize("hints,lit", [(HINT_OFF, "........."), (HINT_LEGAL, "WWWWWWWW."),
                                       (HINT_BEST, "WWWWWWWC.")])
def test_each_hints_setting_lights_its_tiles(hints, lit):
    """4 + 4 on a full box: nothing, every tile that can take part, or those plus the best
    move (the 8) in cyan; once the 1 is shut, only what completes a move with it."""
    s = new_box(players=1, hints=hints)
    roll(s, 4, 4)
    first = s.ms
    s.shut(1).wait(100)
    second = s.ms
    r = boxrun(s)
    assert r.frame_at(first)[1] == lit
    after = r.frame_at(second)[1]
    if hints == HINT_OFF:
        assert after == "G........"
    else:  # 1 + 7, 1 + 2 + 5, 1 + 3 + 4; the 8 no longer fits with the 1: no cyan
        assert after == "GWWWW.W.."


# ----- the score to beat -----


def _two_turns_of_31(players: int):
    """Player 1 scores 31 (6 + 6: 3 9, 1 + 1: 2, 1 + 1: none), player 2 is shown its hint for
    6 + 6 on a full box and plays the same turn: (the run, when player 1's hint and player
    2's show)."""
    s = new_box(players=players, hints=HINT_BEST)
    roll(s, 6, 6)
    p1_hint = s.ms
    shut(s, 9, 3)
    roll(s, 1, 1)
    shut(s, 2)
    roll(s, 1, 1)  # nothing fits: 31
    s.wait(1000).open(2, 3, 9).wait(100).click(120).wait(200)
    roll(s, 6, 6)
    p2_hint = s.ms
    shut(s, 9, 3)
    roll(s, 1, 1)
    shut(s, 2)
    roll(s, 1, 1)
    s.wait(500)
    return boxrun(s), p1_hint, p2_hint


def test_a_later_player_of_three_gets_the_matchs_hint():
    """Three players: for player 2 after a 31, 6 + 6 on a full box is best played 3 9 for the
    match (player 3 still to play: the later seats' patches, shutbox.scores), where the best
    chance to beat 31 alone is 4 8 (the hint before them, which this fails on); playing it
    falls short of nothing."""
    r, _p1, p2_hint = _two_turns_of_31(3)
    assert tiles_lit(r.frame_at(p2_hint)[1], "C") == [3, 9]
    scores = [e for e in after_boot(r) if e["ev"] == "score"]
    assert scores[1]["analysis"] == {"short": 0, "cost": 0, "goal": "beat-target",
                                     "target": 31}


def test_a_later_player_gets_the_beat_target_hint():
    """Two players: player 1 scores 31; for player 2, 6 + 6 on a full box is best played 4 8
    to beat 31 (player 1 was shown 3 9, the match's play for seat 1, here also the lowest
    expected score's)."""
    r, p1_hint, p2_hint = _two_turns_of_31(2)  # player 2 plays 3 9: short of the best
    assert tiles_lit(r.frame_at(p1_hint)[1], "C") == [3, 9]
    assert tiles_lit(r.frame_at(p2_hint)[1], "C") == [4, 8]
    eng = Engine(Rules())
    assert eng.set_target(31)
    after_39 = eng.full & ~bits(3, 9)
    after_48 = eng.full & ~bits(4, 8)
    cost = eng.p_beat(after_48) - eng.p_beat(after_39)
    assert cost > 0
    scores = [e for e in after_boot(r) if e["ev"] == "score"]
    assert [e["score"] for e in scores] == [31, 31]
    assert scores[0]["analysis"] == {"short": 0, "cost": 0, "goal": "match"}
    assert scores[1]["analysis"] == {"short": 1, "cost": cost, "goal": "beat-target",
                                     "target": 31}


def test_the_score_to_beat_is_the_best_so_far_this_round():
    """The coach's target at a turn's start: the best final score so far this round (a
    score of 0 cannot be beaten, only tied by a shut box: the aim is the best chance of one,
    the pack's MATCH_SHUT, the match's play there; shutbox.target)."""
    eng = Engine(Rules())
    game = Game(eng, Dice(lambda n: bytes(n)), Settings(players=3, hints=HINT_BEST), eng.full,
                0)
    assert game.coach.target == -2  # nobody has played: seat 1 plays the match's play
    game.played, game.scores[:3] = 0b011, [12, 7, 0]
    game.coach.turn()
    assert game.coach.target == 7
    game.scores[:3] = [12, 9, 0]
    game.coach.turn()
    assert game.coach.target == 9
    game.played = 0b100
    game.coach.turn()
    assert game.coach.target == 0


def test_the_score_to_beat_survives_a_power_cut():
    """A game saved in player 2's turn (of 3) resumes aiming at player 1's score again."""
    from shutbox import resume
    from shutbox.store import OK

    eng = Engine(Rules())

    def new_game(faces):
        return Game(eng, Dice(lambda n: bytes(faces.pop(0) - 1 for _ in range(n)), 1),
                    Settings(players=3, hints=HINT_BEST), eng.full, 0)

    faces = [6, 6, 1, 1, 1, 1, 6, 6]
    g = new_game(faces)
    now = 0
    for move in (bits(3, 9), bits(2), None):  # player 1: 31
        g.roll(False, now)
        now += 700
        g.tick(now)
        if move:
            g.tiles_changed(g.levels & ~move, now)
    assert g.state == TURN_END and g.score == 31
    now += 1000
    g.roll(False, now)
    g.tiles_changed(eng.full, now)
    assert g.player == 1 and g.coach.target == 31
    data = bytes(resume.snapshot(g))
    again = new_game([6, 6])
    assert resume.restore(again, data, now) == OK
    assert again.player == 1 and again.coach.target == 31
    again.roll(False, now)
    again.tick(now + 700)
    # the match's hint with player 3 still to play (the later seats' patch over the block of
    # 31: beat-target's alone is 4 8), as before the cut
    assert again.best == bits(3, 9)


# ----- the analysis after a turn -----

TURN = [  # dice, long press, tiles shut (in order); the choices are checked below
    ((6, 6), False, (7, 5)),  # not 3 9: short
    ((4, 4), False, (8,)),
    ((6, 3), False, (9,)),  # 1 2 3 4 6 left: one die allowed, two dice are better
    ((4,), True, (3, 1)),  # one die (short); then 1 3 rather than the 4
    ((1, 1), False, (2,)),
    ((5, 6), False, ()),  # 4 6 left, 11 fits nothing
]


def expected_analysis(turn):
    """Count and cost of the choices that fell short, from the engine (CPython)."""
    eng = Engine(Rules())
    o, short, cost, hints = eng.full, 0, 0, []
    for dice, long, tiles in turn:
        a, b = dice if len(dice) == 2 else (dice[0], 0)
        if eng.one_die_allowed(o):
            hints.append(eng.choose_one_die(o))
            loss = eng.one_die_loss(o, long)
            if loss > 0:
                short, cost = short + 1, cost + loss
        if tiles:
            loss = eng.move_loss(o, a, b, bits(*tiles))
            assert loss >= 0
            if loss > 0:
                short, cost = short + 1, cost + loss
            o &= ~bits(*tiles)
        else:
            assert eng.greedy_move(o, a, b) == 0  # no move: the turn ends
    return short, cost, hints, eng.score(o)


def test_the_analysis_counts_the_choices_that_fell_short():
    short, cost, hints, score = expected_analysis(TURN)
    assert short == 3 and hints == [False] * 3  # the script's premise
    s = new_box(players=1, hints=HINT_BEST)
    ready = []
    for dice, long, tiles in TURN:
        s.wait(300)
        ready.append(s.ms)
        roll(s, *dice, long=long)
        shut(s, *tiles)
    end = s.ms
    s.wait(8000)
    r = boxrun(s)
    rec = [e for e in after_boot(r) if e["ev"] == "score"][0]
    assert rec["score"] == score
    assert rec["analysis"] == {"short": short, "cost": cost, "goal": "min-expected"}
    # before throws 4 to 6 (one die allowed) die B's centre pip blinks amber: two dice
    for t in ready[3:]:
        pips = {r.frame_at(ms)[3][3] for ms in range(t - 400, t, 10)}
        assert pips == {"Y", "."}, pips
    # the score view: player, score, then the count in cyan for a second, repeating
    counts = [f for f in r.frames if f[0] > end and set(f[1] + f[2] + f[3]) <= {"C", "."}
              and "C" in f[1] + f[2] + f[3]]
    assert counts and {number_shown(f) for f in counts} == {short}
    assert any(number_shown(f) == score and "B" in f[1] + f[2] + f[3]
               for f in r.frames if f[0] > end)


def test_the_one_die_hint_is_cyan_when_one_die_is_better():
    eng = Engine(Rules())
    o = bits(1, 2, 3)
    assert eng.choose_one_die(o)  # the premise: 1 2 3 left, one die is better
    s = new_box(players=1, hints=HINT_BEST)
    for dice, tiles in (((6, 3), (9,)), ((4, 4), (8,)), ((4, 3), (7,)), ((3, 3), (6,)),
                        ((3, 2), (5,)), ((2, 2), (4,))):
        roll(s, *dice)
        shut(s, *tiles)
    t = s.ms
    s.wait(1000)
    r = boxrun(s)
    pips = {r.frame_at(ms)[3][3] for ms in range(t, t + 1000, 10)}
    assert pips == {"C", "."}, pips


# ----- CPython: the analysis equals the engine's figures over many turns -----


def test_random_play_is_measured_choice_by_choice():
    """300 turns of random choices (dice and moves), one player, hints best: every turn's
    analysis equals the sum of the engine's move_loss and one_die_loss over its choices."""
    rng = random.Random(4)
    eng = Engine(Rules())
    faces = []
    game = Game(eng, Dice(lambda n: bytes(faces.pop(0) - 1 for _ in range(n)), 1),
                Settings(players=1, hints=HINT_BEST), eng.full, 0)
    now = 0
    levels = eng.full
    buf = [0] * 15
    for _ in range(300):
        short = cost = 0
        while game.state != TURN_END:
            assert game.state in (0, READY)
            long = rng.random() < 0.5
            if game.one_die_choice() == 1:
                loss = eng.one_die_loss(game.open_, long, game.locked)
                short, cost = short + (loss > 0), cost + max(loss, 0)
            faces += [rng.randint(1, 6), rng.randint(1, 6)]
            game.roll(long, now)
            now += 700
            game.tick(now)
            del faces[:]
            if game.state != MOVE:
                break
            n = eng.legal_into(game.open_, game.a, game.b, buf)
            m = buf[rng.randrange(n)]
            loss = eng.move_loss(game.open_, game.a, game.b, m, game.locked)
            short, cost = short + (loss > 0), cost + loss
            levels &= ~m
            game.tiles_changed(levels, now)
            now += 10
        rec = game.log[-1] if game.log[-1]["ev"] == "score" else [
            e for e in game.log if e["ev"] == "score"][-1]
        assert rec["analysis"] == {"short": short, "cost": cost, "goal": "min-expected"}
        assert game.coach.shown == short
        now += 1000
        game.roll(False, now)  # GAME_END
        game.roll(True, now)  # a new game
        levels = eng.full
        game.tiles_changed(levels, now)
        del game.log[:]
