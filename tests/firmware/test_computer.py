# The computer opponent: seats, pace, virtual tiles and each level's choices, on both interpreters.
"""shutbox.computer through shutbox.game (the CPython box, through its pins) and through the
simulated pins under MicroPython (boxrun), plus the hard level's average over thousands of
turns played through the game in boxrun's fast-forward mode, against the solver's exact
expectation (and the check that the medium level would fail that test)."""

from __future__ import annotations

import json
import math
import random
import subprocess
import tempfile
from fractions import Fraction

import pytest
from backends import cpy, press, set_open, shut, throw
from test_game import bits

from shutbox import frame as fr
from shutbox.dice import Dice
from shutbox.engine import LEVEL_EASY, LEVEL_HARD, LEVEL_MEDIUM, Engine, Rules
from shutbox.game import GAME_END, MOVE, READY, ROLLING, SETUP, TURN_END, tiles_of
from shutbox.settings import _HINT_OFF as HINT_OFF
from shutbox.ticks import ticks_add, ticks_diff
from shutbox.variants import MOVES_KIDS, ONE_DIE_NEVER, SCORING_COUNT
from shutbox_host.box import boxsim
from shutbox_host.model.leds import face, tiles_lit
from shutbox_host.model.script import ROLL_MS, Script
from shutbox_host.solve import solver

NAMES = fr.NAMES.decode()
PACE = 800  # shutbox.computer._PACE_MS
HEAP = "128k"  # functional runs; the 64 KB budget is tests/firmware/test_memory.py's


def Box(players=1, **settings):  # noqa: N802 - named as the box it makes
    """A CPython box (shutbox_host.box.drive.CpyBox) with its dice only as given."""
    return cpy(players=players, **settings)


def set_tiles(box, levels):
    """Drive the box's tiles to *levels* (bit set: open) and let the box take them."""
    set_open(box, levels)


def play(box, *moves):
    """Shut each move's tiles after the throw that is shown (the dice queued already)."""
    for move in moves:
        shut(box, *move)


def events(box, kind, player=None):
    return [r for r in box.shown().events(kind) if player is None or r.get("player") == player]


def until(box, state, limit=60000):
    """Let time pass until the game enters *state*; return the ms it took."""
    t = 0
    while box.game.state != state:
        assert t < limit, (box.game.state, box.shown().log[-3:])
        box.advance(10)
        t += 10
    return t


def human_turn(box, moves=((6, 6, (3, 9)), (1, 1, (2,)))):
    """Player 1 plays 12 -> 3 9, 2 -> 2, then 1 + 1 fits nothing: score 31."""
    for a, b, move in moves:
        throw(box, a, b)
        play(box, move)
    throw(box, 1, 1)
    assert box.game.state == TURN_END


def hand_over(box):
    """After the person's turn (human_turn), pass the box on with the tiles opened for the
    computer's turn."""
    box.advance(800)
    press(box)
    set_tiles(box, box.app.engine.full)


# ----- seats -----


@pytest.mark.parametrize("players,seats,cpu", [(1, 2, 2), (2, 3, 3), (3, 4, 4), (4, 4, 4)])
def test_the_computer_takes_the_seat_after_the_players(players, seats, cpu):
    box = Box(players=players, computer=LEVEL_HARD)
    assert box.game.cpu.seats == 1 << (cpu - 1)
    assert box.game.players == seats
    game = events(box, "game")[0]
    assert game["players"] == seats and game["computer"] == [cpu]


def test_without_the_setting_there_is_no_computer():
    box = Box(players=2)
    assert box.game.cpu is None and "computer" not in events(box, "game")[0]


# ----- a computer's turn through the game -----


def plan(eng, level, throws, picks=()):
    """The computer's turn on CPython: its moves for the throws (easy: move picks[i] % n)."""
    open_, moves, buf, k = eng.start_open, [], [0] * 15, 0
    for a, b in throws:
        n = eng.legal_into(open_, a, b, buf)
        if n == 0:
            break
        if level == LEVEL_EASY:
            m = buf[picks[k] % n]
            k += 1
        elif level == LEVEL_MEDIUM:
            m = eng.greedy_move(open_, a, b)
        else:
            m = eng.best_move(open_, a, b, False)
        moves.append(tiles_of(m))
        open_ &= ~m
        if open_ == 0:
            break
    return moves, eng.score(open_)


CPU_THROWS = [(4, 4), (6, 6), (5, 3), (2, 1), (1, 1), (1, 1), (1, 1)]


def cpu_faces(level, throws=CPU_THROWS, picks=(2, 1, 3, 0, 0, 0, 0)):
    """Dice faces in the order the computer draws them (easy: a pick byte after each throw)."""
    out = []
    for i, (a, b) in enumerate(throws):
        out += [a, b]
        if level == LEVEL_EASY:
            out.append(picks[i] + 1)  # Dice.below(n) reads byte face - 1
    return out


@pytest.mark.parametrize("level", [LEVEL_EASY, LEVEL_MEDIUM, LEVEL_HARD])
def test_each_level_plays_its_moves_on_virtual_tiles(level):
    rules = Rules(one_die=ONE_DIE_NEVER)
    box = Box(players=1, rules=rules, computer=level)
    human_turn(box)
    box.advance(800)
    press(box)  # pass the box on
    assert box.game.state == SETUP and box.game.player == 1
    set_tiles(box, box.app.engine.full)  # the box's tiles opened for the computer's turn
    box.faces += cpu_faces(level)
    until(box, TURN_END)
    want, score = plan(box.app.engine, level, CPU_THROWS, (2, 1, 3, 0, 0, 0, 0))
    assert [m["shut"] for m in events(box, "move", 2)] == want
    assert events(box, "score", 2)[0]["score"] == score
    assert box.open_ == box.app.engine.full  # nobody touched the box's tiles
    box.advance(800)
    press(box)
    assert box.game.state == GAME_END
    assert events(box, "winner")[0]["scores"] == [31, score]


def test_the_turn_goes_at_a_pace_a_person_can_follow():
    box = Box(players=1, rules=Rules(one_die=ONE_DIE_NEVER), computer=LEVEL_HARD)
    human_turn(box)
    box.advance(800)
    press(box)
    box.advance(500)
    t0 = box.ms  # the tiles opened for the computer's turn
    set_tiles(box, box.app.engine.full)
    box.faces += cpu_faces(LEVEL_HARD)
    g = box.game
    steps = []  # (ms, what): every throw and every tile the computer shuts
    throws, lit = g.throws, 9
    while g.state != TURN_END:
        if g.throws != throws:
            throws = g.throws
            steps.append((box.ms, "throw"))
        cur = bin(g.levels).count("1")  # the computer's virtual tiles still open
        if cur < lit:
            steps.append((box.ms, "tile"))
        lit = cur
        box.advance(10)
        assert box.ms - t0 < 60000
    gaps = [b[0] - a[0] for a, b in zip(steps, steps[1:], strict=False)]
    assert steps[0][0] - t0 >= PACE  # SETUP: a pause before the first throw
    assert gaps and min(gaps) >= PACE, steps
    # the tiles of a multi-tile move are shut one by one (12 -> 3 9 on this box)
    tiles = sum(len(m["shut"]) for m in events(box, "move", 2))
    assert [w for _, w in steps].count("tile") == tiles > len(events(box, "move", 2))


def test_the_leds_show_the_computers_turn():
    box = Box(players=1, rules=Rules(one_die=ONE_DIE_NEVER), computer=LEVEL_HARD)
    human_turn(box)
    hand_over(box)
    tiles, a, b = box.frame()
    assert face(a) == 2 and set(a) <= {"C", "."}  # SETUP: its seat number in cyan
    box.faces += cpu_faces(LEVEL_HARD)
    until(box, MOVE)  # 4 + 4
    tiles, a, b = box.frame()
    assert (face(a), face(b)) == (4, 4) and tiles == "WWWWWWWWW"
    box.advance(PACE)  # its move (the 8) shut on its virtual tiles, the box's tiles untouched
    until(box, READY)
    tiles, a, b = box.frame()
    assert tiles == "WWWWWWWGW" and a == b == "...C..."  # the accepted 8; two dice next
    assert box.open_ == box.app.engine.full and box.game.phys == box.app.engine.full
    box.advance(PACE)
    until(box, MOVE)  # 6 + 6 = 12 with the 8 shut: 3 and 9, one at a time
    box.advance(PACE + 10)
    tiles, _, _ = box.frame()
    assert tiles.count("G") == 1 and tiles[8] == "G" and tiles[2] == "W"


def test_its_one_die_choice_shows_before_the_throw():
    box = Box(players=1, computer=LEVEL_HARD)  # one die once 7, 8 and 9 are shut
    human_turn(box)
    hand_over(box)
    # 9, 8, 7, then 6: the hard level throws one die on 1..5 open? it follows the table
    box.faces += [6, 3, 4, 4, 4, 3, 3, 3]
    for _ in range(4):
        until(box, MOVE)
        until(box, READY)
    g = box.game
    assert g.open_ == bits(1, 2, 3, 4, 5) and g.one_die_choice() == 1
    one = box.app.engine.choose_one_die(g.open_)
    box.advance(100)
    tiles, a, b = box.frame()
    assert a == "...C..." and b == ("......." if one else "...C...")
    box.faces += [2] if one else [2, 3]
    until(box, ROLLING)
    assert (g.b == 0) == one


def test_the_box_tiles_and_roll_are_ignored_during_its_turn():
    box = Box(players=1, rules=Rules(one_die=ONE_DIE_NEVER), computer=LEVEL_MEDIUM)
    human_turn(box)
    hand_over(box)
    box.faces += cpu_faces(LEVEL_MEDIUM)
    until(box, MOVE)
    n = len(box.shown().log)
    set_tiles(box, box.app.engine.full & ~bits(5))  # someone flips a tile of the real box
    press(box)  # and presses Roll
    assert box.game.err == 0 and not events(box, "error") and not events(box, "refused")
    assert len(box.shown().log) == n
    until(box, TURN_END)
    want, score = plan(box.app.engine, LEVEL_MEDIUM, CPU_THROWS)
    assert [m["shut"] for m in events(box, "move", 2)] == want
    box.advance(800)
    press(box)
    assert box.game.state == GAME_END
    press(box, long=True)  # a new game: player 1 must open the 5 again
    assert box.game.state == SETUP and box.game.err_mask == bits(5)


@pytest.mark.parametrize("level", [LEVEL_EASY, LEVEL_MEDIUM, LEVEL_HARD])
def test_many_turns_follow_the_level_on_cpython(level):
    """200 computer turns (every seat the computer's): every move is the level's choice (3
    rounds added up: hard aims at the lowest expected score; its match play in one round
    is test_match_play's)."""
    eng = Engine(Rules())
    rng = random.Random(level)
    box = Box(players=1, computer=level, format=1)
    box.faces = [rng.randint(1, 6) for _ in range(40000)]
    g = box.game
    g.cpu.seats, g.cpu.players = 15, 4
    now = box.now  # the game stepped alone, below the pins, on a clock of its own
    g.new_game(now)
    checked = scored = 0
    seen = -1
    while scored < 200:
        scored += sum(1 for r in g.log if r["ev"] == "score")
        del g.log[:]
        st = g.state
        if st == MOVE and g.transitions != seen and g.cpu._seen == g.transitions:
            seen = g.transitions  # the computer has just planned its move for this throw
            m = g.cpu.plan
            if level == LEVEL_MEDIUM:
                assert m == eng.greedy_move(g.open_, g.a, g.b)
            elif level == LEVEL_HARD:
                assert m == eng.best_move(g.open_, g.a, g.b, g.locked)
            else:
                assert eng.is_legal(g.open_, g.a, g.b, m)
            checked += 1
        if st in (TURN_END, GAME_END) and ticks_diff(now, g.t_state) >= 800:
            g.roll(st == GAME_END, now)
        now = ticks_add(now, 50)
        g.tick(now)
    assert checked > 600


def test_easy_picks_every_legal_move_alike():
    """Dice.below: the easy level's pick is fair (exhaustive over every byte)."""

    class Dry(Exception):
        pass

    for n in range(1, 16):
        counts = [0] * n
        rejected = 0
        for b in range(256):
            source = [bytes([b])]
            d = Dice(lambda k, source=source: source.pop() if source else _dry(Dry), 1)
            try:
                counts[d.below(n)] += 1
            except Dry:  # the byte was rejected: a fresh one is drawn
                rejected += 1
        assert counts == [256 // n] * n and rejected == 256 % n


def _dry(exc):
    raise exc


def test_a_game_saved_in_the_computers_turn_resumes_there(tmp_path):
    """Power cut in the computer's turn: the game resumes in it, the computer finishes its
    turn on its virtual tiles and the box does not wait for its own tiles to match them."""
    from shutbox import resume
    from shutbox.store import OK, Store

    rules = Rules(one_die=ONE_DIE_NEVER)
    box = Box(players=1, rules=rules, computer=LEVEL_HARD)
    human_turn(box)
    hand_over(box)
    box.faces += cpu_faces(LEVEL_HARD)
    until(box, MOVE)
    until(box, READY)  # its first move (the 8) made
    store = Store(str(tmp_path / "data"))
    store.save(resume.NAME, resume.snapshot(box.game), resume.VERSION)
    after = Box(players=1, rules=rules, computer=LEVEL_HARD)
    after.faces = box.faces  # the dice still to come
    rs = resume.Resume(store)
    assert rs.load(after.game, box.app.engine.full, after.now) == OK  # the box's tiles all open
    after.wake()  # the game loaded below the pins: the box steps it from now on
    g = after.game
    assert g.player == 1 and g.state == READY and g.open_ == box.app.engine.full & ~bits(8)
    assert rs.expect == -1  # no hold: the box's tiles stay open
    until(after, TURN_END)
    want, score = plan(box.app.engine, LEVEL_HARD, CPU_THROWS)
    assert [m["shut"] for m in events(after, "move", 2)] == want[1:]
    assert events(after, "score", 2)[0]["score"] == score


# ----- the hints setting on the computer's turn -----


def test_no_hints_light_the_computers_box_all_the_same():
    box = Box(players=1, rules=Rules(one_die=ONE_DIE_NEVER), computer=LEVEL_HARD, hints=HINT_OFF)
    human_turn(box)
    hand_over(box)
    box.faces += cpu_faces(LEVEL_HARD)
    until(box, MOVE)
    tiles, _, _ = box.frame()
    assert tiles == "WWWWWWWWW"  # its virtual box, whatever the hints setting


# ----- through the simulated pins under MicroPython -----


def boxrun(s: Script, *args: str, heap: str = HEAP) -> boxsim.Run:
    r = boxsim.run(s, "--quiet" if "--quiet" in args else "--players", *(
        [a for a in args if a != "--quiet"] or ["1"]), heapsize=heap)
    assert r.returncode == 0, r.stderr
    assert not any(line.startswith("?") for line in r.lines), r.lines
    return r


def settings_line(**kw) -> str:
    return "b " + " ".join("%s=%d" % (k, v) for k, v in kw.items())


def roll(s: Script, *faces: int, long: bool = False) -> Script:
    s.dice(*faces)
    (s.hold(900) if long else s.click(120)).wait(ROLL_MS)
    return s


def mp_human_turn(s: Script) -> Script:
    """Player 1 (the box's tiles): 12 -> 3 9, 2 -> 2, then 1 + 1: score 31."""
    roll(s, 6, 6)
    s.shut(9).wait(80).shut(3).wait(200)
    roll(s, 1, 1)
    s.shut(2).wait(200)
    roll(s, 1, 1)
    return s


@pytest.mark.parametrize("level", [LEVEL_EASY, LEVEL_MEDIUM, LEVEL_HARD])
def test_each_level_through_the_pins(level):
    """The real firmware (.mpy) on the simulated board: player 1 against the computer."""
    s = Script()
    s.lines.append(settings_line(players=1, computer=level, one_die=ONE_DIE_NEVER))
    s.wait(100)
    mp_human_turn(s)
    s.wait(1000).open(2, 3, 9).wait(100)
    s.dice(*cpu_faces(level))
    s.click(120)
    start = s.ms
    s.wait(300).click(120)  # Roll during the computer's turn: refused
    s.wait(40000)
    s.click(120).wait(500).state()
    r = boxrun(s)
    log = r.log[r.log.index(r.events("game")[-1]):]
    moves = [m["shut"] for m in log if m["ev"] == "move" and m["player"] == 2]
    want, score = plan(Engine(Rules(one_die=ONE_DIE_NEVER)), level, CPU_THROWS,
                       (2, 1, 3, 0, 0, 0, 0))
    assert moves == want
    assert [e["score"] for e in log if e["ev"] == "score"] == [31, score]
    assert [e for e in log if e["ev"] == "game"][0]["computer"] == [2]
    assert r.states()[-1]["state"] == GAME_END
    frames = [f for f in r.frames if f[0] >= start]
    assert any(face(f[2]) == 2 and "C" in f[2] for f in frames)  # its seat, in cyan
    assert any(f[2] == f[3] == "...C..." for f in frames)  # the two dice it throws next
    # its move's tiles turn green one by one on its virtual box
    greens = [len(tiles_lit(f[1], "G")) for f in frames]
    assert 1 in greens
    throws = [t for t in log if t["ev"] == "throw" and t["player"] == 2]
    assert len(throws) == len(want) + (1 if score else 0)


def test_idle_polls_in_the_computers_turn_allocate_nothing():
    """heap_lock over polls between the computer's steps, hints and analysis on."""
    s = Script()
    s.lines.append(settings_line(players=1, computer=LEVEL_HARD, hints=2))
    s.wait(100)
    mp_human_turn(s)
    s.wait(1000).lockcheck(200)  # the score view with the count of choices short
    s.open(2, 3, 9).wait(100)
    s.dice(*cpu_faces(LEVEL_HARD))
    s.click(120).wait(60).lockcheck(300)  # SETUP: the pause before its first throw
    s.wait(1600).lockcheck(150)  # its throw shown, before its first tile
    s.wait(20000)
    r = boxrun(s)
    locks = [line for line in r.lines if line.startswith("LOCK")]
    assert locks == ["LOCK 200 200", "LOCK 300 300", "LOCK 150 150"], r.lines


# ----- the hard level's average through the game -----


def exact(rules_kw: dict, how: str) -> tuple[Fraction, Fraction]:
    """Return the solver's exact (mean, variance) of a turn's final score."""
    var = solver.Variant(**rules_kw)
    res = solver.solve(var, objective="min-expected") if how == "hard" else solver.solve(
        var, policy=how)
    m = res.expected_score
    v = sum((p * (sc - m) ** 2 for sc, p in res.distribution.items()), Fraction(0))
    return m, v


def fast_forward(settings: dict, turns: int, seed: int) -> subprocess.Popen:
    argv, env = boxsim.command("--quiet", heapsize="256k")
    script = tempfile.TemporaryFile("w+")  # b: a new box, these settings, dice from *seed*
    script.write("%s\na %d 400\nq\n" % (settings_line(seed=seed, **settings), turns))
    script.seek(0)
    return subprocess.Popen(argv, stdin=script, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, **boxsim.tied())


def scores_of(p: subprocess.Popen) -> list[int]:
    out, err = p.communicate(timeout=300)
    assert p.returncode == 0, err
    assert out.rstrip().endswith("AUTO %d" % sum(1 for x in out.splitlines()
                                                 if '"ev": "score"' in x)), out[-300:]
    return [json.loads(x)["score"] for x in out.splitlines() if '"ev": "score"' in x]


def z_score(scores: list[int], mean: Fraction, var: Fraction) -> float:
    n = len(scores)
    return (sum(scores) / n - float(mean)) / math.sqrt(float(var) / n)


# Kids' moves with Missionary scoring: the rule of thumb loses 0.8 tiles a turn, half a sigma
MISSIONARY = {"moves": MOVES_KIDS, "scoring": SCORING_COUNT}


def test_the_hard_level_averages_the_exact_expectation_through_the_game():
    """Turns played by the computer through the app (pins, debouncer, game, LEDs) in boxrun's
    fast-forward mode: hard agrees with the solver's exact expectation within 4 sigma (sigma
    from the exact distribution) on the standard box (1000 turns) and on a variant where the
    rule of thumb is far from optimal (500 turns: medium's mean sits 11.7 of hard's sigmas
    away), where the medium level, run the same way, fails the same test."""
    _hard_against_the_exact_expectation(1000, 500)


@pytest.mark.slow
def test_the_hard_level_averages_the_exact_expectation_through_the_game_long():
    """The same with 10,000 and 5,000 turns (make soak)."""
    _hard_against_the_exact_expectation(10_000, 5000)


def _hard_against_the_exact_expectation(n_std: int, n_var: int) -> None:
    runs = {
        "hard-var": fast_forward(dict(computer=LEVEL_HARD, **MISSIONARY), n_var, 7),
        "medium-var": fast_forward(dict(computer=LEVEL_MEDIUM, **MISSIONARY), n_var, 8),
        "hard-std": fast_forward(dict(computer=LEVEL_HARD), n_std, 9),
    }
    hard_m, hard_v = exact(MISSIONARY, "hard")
    med_m, med_v = exact(MISSIONARY, "greedy")
    std_m, std_v = exact({}, "hard")
    # separation: medium's expected mean sits this many of hard's sigmas away
    sep = float(med_m - hard_m) / math.sqrt(float(hard_v) / n_var)
    assert sep > 10, sep  # so medium fails a 4-sigma test with overwhelming probability
    hard = scores_of(runs["hard-var"])
    medium = scores_of(runs["medium-var"])
    std = scores_of(runs["hard-std"])
    assert len(hard) == len(medium) == n_var and len(std) == n_std
    z_hard = z_score(hard, hard_m, hard_v)
    z_std = z_score(std, std_m, std_v)
    z_medium = z_score(medium, hard_m, hard_v)
    assert abs(z_hard) < 4, z_hard
    assert abs(z_std) < 4, z_std
    assert abs(z_medium) > 4, z_medium  # the same test catches the rule of thumb
    assert abs(z_score(medium, med_m, med_v)) < 4  # ... which plays as the solver says
