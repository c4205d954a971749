# The real firmware on the simulated board under MicroPython (64 KB heap): physical events in,
# LEDs, dice, tones and the game log out.
"""Scenario tests through the simulated pins (shutbox_host.box.boxsim, sim/boxrun.py).

Each test scripts physical events (tiles flipped, bounce, Roll pressed and held, time) and
checks what the box showed and logged, in the manner of KMK's keyboard tests: events in,
recorded expectations out. The firmware runs as the .mpy files that go onto the Pico, under the
real MicroPython unix port, on a virtual clock that crosses the 2**30 ms tick wrap in every run.

The heap is capped at 80 KB: 64 KB for the firmware, plus 16 KB for the simulated board and
the harness, which share the heap here but are C modules on the Pico (bench.game measures
them at about 11.5 KB). test_the_firmware_fits_64k checks the firmware's own share.
"""

from __future__ import annotations

from pathlib import Path

import backends
import pytest
from backends import BACKENDS

from shutbox.game import GAME_END, MOVE, READY, SETUP, TURN_END
from shutbox_host import mp
from shutbox_host.box import boxsim
from shutbox_host.box.plan import plan_game
from shutbox_host.model.leds import face, tiles_lit
from shutbox_host.model.script import ROLL_MS, Script

# the firmware (its share is checked against 64 KB: test_the_firmware_fits_64k) and the
# simulated board, whose rp2 model (static Pin and PWM objects, PWM slices, rp2's ticks) takes
# about 8 KB of it: C data and ROM on the Pico
HEAP = "88k"
FIRMWARE_CAP = 64 * 1024


def run(script: Script, players: int = 1, *args: str, backend: str = "sim"):
    """Run *script* on the simulated board (boxrun, in one go), or on another backend
    (tests/backends.py; the tiles open at power-up from --levels)."""
    if backend != "sim":
        levels = int(args[args.index("--levels") + 1]) if "--levels" in args else -1
        with backends.box(backend, levels=levels, players=players) as b:
            return b.run(script)
    r = boxsim.run(script, "--players", str(players), *args, heapsize=HEAP)
    assert r.returncode == 0, r.stderr
    assert not any(line.startswith("?") for line in r.lines), r.lines
    return r


def number_shown(frame) -> int:
    """Read a number off the LEDs: tens = the dice as a throw, units = the tile bar."""
    _, tiles, a, b = frame
    if "." not in a + b:
        return 0  # every pip lit
    units = len(tiles) - tiles.count(".")
    assert tiles == tiles[:units] + "." * (len(tiles) - units), tiles
    return 10 * (face(a) + face(b)) + units


def roll(s: Script, *faces: int, long: bool = False) -> Script:
    """Feed the dice, press Roll and wait until the throw is shown."""
    s.dice(*faces)
    (s.hold(900) if long else s.click(120)).wait(ROLL_MS)
    return s


# ----- whole games -----


@pytest.mark.parametrize("players,seed,strategy", [(1, 3, "best"), (2, 11, "greedy"),
                                                   (3, 5, "random"), (4, 1, "best")])
@pytest.mark.parametrize("backend", backends.DICE)
def test_whole_game(players, seed, strategy, backend):
    """A whole game: every throw, move and score as planned, and every score read off the LEDs."""
    s, expect = plan_game(players, seed, strategy)
    s.wait(300)
    pages = []  # the game-end pages: Roll steps through the players' scores
    for _ in range(players + 1):
        s.click(120)
        pages.append(s.ms + 30)  # the short press registers 30 ms after the release
        s.wait(2600)
    s.state()
    r = run(s, players, backend=backend)
    assert [t["dice"] for t in r.events("throw")] == expect["throws"]
    assert [m["shut"] for m in r.events("move")] == expect["moves"]
    assert [e["score"] for e in r.events("score")] == expect["scores"]
    best = min(expect["scores"])
    win = r.events("winner")[0]
    assert win["players"] == [p + 1 for p, x in enumerate(expect["scores"]) if x == best]
    assert win["scores"] == expect["scores"] and win["score"] == best
    states = r.states()
    assert states[0]["state"] == GAME_END and states[0]["scores"] == expect["scores"]
    for i, t in enumerate(pages):
        p = (i + 1) % (players + 1)  # page 0 is the winner, page p is player p
        label, number = r.frame_at(t + 500), r.frame_at(t + 1500)
        if p == 0:
            assert set(tiles_lit(label[1], "G")) <= set(win["players"])
            assert face(label[2]) == win["players"][0]
            assert number_shown(number) == best
        else:
            assert face(label[2]) == p and label[1][p - 1] == "M"
            assert number_shown(number) == expect["scores"][p - 1]
    assert states[1]["state"] == GAME_END


@pytest.mark.parametrize("backend", backends.DICE)
def test_a_new_game_after_the_end(backend):
    s, expect = plan_game(1, 2, "greedy")
    s.wait(300).hold(1000).wait(100).state()
    r = run(s, 1, backend=backend)
    assert len(r.events("game")) == 2
    assert r.states()[-1]["state"] == SETUP


# ----- the example turn of seed 001, with the LEDs recorded -----

EXAMPLE = [  # throw, tiles to shut, tiles lit once the throw shows
    ((5, 4), (9,), "WWWWWWWWW"),
    ((6, 6), (4, 8), "WWWWWWWW."),
    ((2, 1), (3,), "WWW......"),
    ((6, 5), (5, 6), "....WW..."),
    ((4, 4), (1, 7), "W.....W.."),
]


@pytest.mark.parametrize("backend", backends.DICE)
def test_seed_001_example_turn(backend):
    s = Script().wait(100)
    checks = []
    for throw, tiles, lit in EXAMPLE:
        roll(s, *throw)
        checks.append((s.ms, throw, lit))
        for k in tiles:
            s.shut(k).wait(60)
        checks.append((s.ms + 100, None, tiles))
        s.wait(700)
    roll(s, 3, 5)
    end = s.ms
    s.wait(3000).state()
    with backends.box(backend, heapsize=HEAP, players=1) as b:
        r = b.run(s)
    for ms, throw, want in checks:
        f = r.frame_at(ms)
        if throw:
            assert f[1] == want and (face(f[2]), face(f[3])) == throw, (ms, f)
        else:  # just accepted: the move flashes green
            assert tiles_lit(f[1], "G") == list(want), (ms, f)
    assert [m["shut"] for m in r.events("move")] == [list(t) for _, t, _ in EXAMPLE]
    last = dict(r.events("throw")[-1])
    assert last.pop("_ms") >= end - ROLL_MS  # the time it was logged (by then: boxrun's)
    assert last == {"ev": "throw", "player": 1, "dice": [3, 5], "total": 8, "open": [2],
                    "moves": 0}
    assert r.events("score")[0]["score"] == 2
    label, number = r.frame_at(end + 500), r.frame_at(end + 1500)
    assert label[1:] == ("M........", "...M...", ".......")  # player 1 ...
    assert number[1:] == ("BB.......", ".......", ".......")  # ... scored 2
    assert r.states()[0]["state"] == TURN_END
    assert any(hz == 1000 for _, hz in r.tones)  # the roll sound


# ----- mistakes -----


def blinking(r: boxsim.Run, start: int, end: int, letter: str) -> set:
    """Return the sets of tiles shown in *letter* by the frames written in [start, end)."""
    return {tuple(tiles_lit(f[1], letter)) for f in r.frames if start <= f[0] < end}


@pytest.mark.parametrize("backend", backends.DICE)
def test_shutting_too_much_then_undoing_it(backend):
    s = Script().wait(100)
    roll(s, 2, 1)
    s.shut(2).wait(100).shut(6).wait(100)
    t = s.ms
    s.wait(600).open(6).wait(100).shut(1).wait(100).state()
    r = run(s, backend=backend)
    assert [e["why"] for e in r.events("error")] == ["too-high"]
    assert r.events("error")[0]["tiles"] == [2, 6]
    assert blinking(r, t, t + 600, "R") == {(2, 6), ()}
    assert r.events("move")[0]["shut"] == [1, 2]
    assert r.states()[0]["state"] == READY


@pytest.mark.parametrize("backend", backends.DICE)
def test_a_tile_reopened_or_flipped_before_the_throw_stops_the_roll(backend):
    s = Script().wait(100)
    roll(s, 5, 4)
    s.shut(9).wait(200).open(9).wait(100)  # reopened
    s.click().wait(800).state()  # refused
    s.shut(9).wait(100).shut(3).wait(100)  # flipped before the throw
    t = s.ms
    s.wait(600).click().wait(800).state()
    s.open(3).wait(100)
    roll(s, 6, 2)
    s.state()
    r = run(s, backend=backend)
    assert [e["why"] for e in r.events("error")] == ["reopened", "early"]
    assert [e["why"] for e in r.events("refused")] == ["reopened", "early"]
    assert blinking(r, t, t + 600, "R") == {(3,), ()}
    st = r.states()
    assert st[0]["state"] == READY and st[0]["err_mask"] == 1 << 8
    assert st[1]["state"] == READY and st[1]["err_mask"] == 1 << 2
    assert st[2]["state"] == MOVE and len(r.events("throw")) == 2


@pytest.mark.parametrize("backend", backends.DICE)
def test_tiles_left_shut_blink_amber_until_opened(backend):
    s = Script(levels=0b101111010)  # tiles 1, 3 and 8 shut at power-up
    s.wait(600).click().wait(800).state()
    s.open(1, 3, 8).wait(100)
    roll(s, 1, 1).state()
    r = run(s, 1, "--levels", str(0b101111010), backend=backend)
    assert blinking(r, 0, 600, "Y") == {(1, 3, 8), ()}
    assert r.events("refused")[0]["why"] == "setup" and not r.events("error")
    assert [x["state"] for x in r.states()] == [SETUP, MOVE]


@pytest.mark.parametrize("backend", backends.DICE)
def test_roll_pressed_while_a_mistake_shows_is_refused_and_logged(backend):
    s = Script().wait(100)
    roll(s, 2, 1)
    s.shut(2).wait(100).shut(6).wait(100)  # 2 + 6 > 3: too high
    s.click().wait(300).state()
    r = run(s, backend=backend)
    assert [(e["why"], e["tiles"]) for e in r.events("refused")] == [("too-high", [2, 6])]
    assert len(r.events("throw")) == 1 and r.states()[0]["state"] == MOVE


@pytest.mark.parametrize("backend", backends.DICE)
def test_a_tile_reopened_from_the_move_just_accepted_blinks_red_at_once(backend):
    s = Script().wait(100)
    roll(s, 5, 4)
    s.shut(9).wait(60)  # 9 = 5 + 4: accepted; its tile flashes green for 0.5 s ...
    s.open(9)  # ... and is opened again inside that flash
    t = s.ms
    s.wait(500).state()
    r = run(s, backend=backend)
    assert [m["shut"] for m in r.events("move")] == [[9]]
    assert r.events("error")[0]["why"] == "reopened"
    after = [f for f in r.frames if t + 40 <= f[0] < t + 500]  # debounced: 30 ms
    assert after and all(f[1][8] != "G" for f in after), [f[1] for f in after]
    assert any(f[1][8] == "R" for f in after)


@pytest.mark.parametrize("backend", backends.DICE)
def test_roll_held_5_s_starts_a_new_game_without_throwing_first(backend):
    s = Script().wait(100)
    s.press().wait(5300).release().wait(300).state()
    r = run(s, backend=backend)
    assert not r.events("throw")  # the long press (0.7 s) never threw the dice
    assert len(r.events("game")) == 2 and r.states()[0]["state"] == SETUP


# ----- bounce and presses -----


@pytest.mark.parametrize("backend", backends.DICE)
def test_bouncy_switches_make_one_flip_and_one_press(backend):
    s = Script().wait(100)
    s.dice(4, 4).rollbounce(15).wait(ROLL_MS)
    s.bounce(1, 20).wait(100).bounce(7, 12).wait(100)  # 1 + 7 = 8
    s.glitch(5, 800).wait(200)  # a 0.8 ms spike on an open tile: nothing
    s.state()
    r = run(s, backend=backend)
    assert len(r.events("throw")) == 1
    assert [m["shut"] for m in r.events("move")] == [[1, 7]]
    assert not r.events("error") and not r.events("refused")
    assert r.states()[0]["state"] == READY


@pytest.mark.parametrize("backend", backends.DICE)
def test_one_die_by_long_press(backend):
    s = Script().wait(100)
    roll(s, 3, 3, long=True)  # every tile open: a long press is still two dice
    s.shut(6).wait(150)
    for throw, tile in (((6, 3), 9), ((4, 4), 8), ((4, 3), 7)):
        roll(s, *throw)
        s.shut(tile).wait(150)
    s.wait(600)
    t = s.ms
    roll(s, 5, long=True)
    s.state()
    r = run(s, backend=backend)
    assert [e["dice"] for e in r.events("throw")] == [[3, 3], [6, 3], [4, 4], [4, 3], [5]]
    assert {f[3] for f in r.frames if t - 500 <= f[0] < t} == {"...Y...", "......."}
    st = r.states()[0]
    assert st["a"] == 5 and st["b"] == 0 and st["state"] == MOVE
    assert (face(r.frames[-1][2]), face(r.frames[-1][3])) == (5, 0)


# ----- memory and time -----


def test_an_idle_poll_allocates_nothing():
    """Polls under micropython.heap_lock in every kind of state, blinking included."""
    s = Script().wait(100).lockcheck(300)  # setup, waiting for Roll
    s.dice(4, 4).click(120).wait(50).lockcheck(200)  # the dice rolling
    s.wait(500).shut(8).wait(800)
    roll(s, 2, 1)
    s.lockcheck(300)  # a throw shown
    s.shut(2, 6).wait(100).lockcheck(300)  # an error blinking
    s.open(6).shut(1).wait(100).lockcheck(300)  # the accepted move flashing
    roll(s, 6, 6)
    s.shut(3, 9).wait(100)
    roll(s, 1, 1)  # nothing fits: turn end
    s.wait(200).lockcheck(600)  # the score view
    s.wait(800).click().wait(100).lockcheck(600)  # game end
    r = run(s)
    locks = [line for line in r.lines if line.startswith("LOCK")]
    assert locks == ["LOCK 300 300", "LOCK 200 200"] + ["LOCK 300 300"] * 3 + [
        "LOCK 600 600"] * 2
    assert [m["shut"] for m in r.events("move")] == [[8], [1, 2], [3, 9]]
    assert [e["why"] for e in r.events("error")] == ["too-high"]
    assert r.events("winner")


def test_the_heap_lock_check_catches_an_allocation():
    """Control: a poll that logs (an error settling under the lock) is caught."""
    s = Script().wait(100)
    roll(s, 2, 1)
    s.shut(2, 6).lockcheck(300)  # the debounced error is logged during the locked polls
    r = run(s)
    done, n = r.answer("LOCK")
    assert done < n


@pytest.mark.parametrize("backend", backends.DICE)
def test_a_steady_picture_is_not_rewritten(backend):
    s = Script().wait(100)
    roll(s, 6, 6)
    t = s.ms
    s.wait(2000)  # the throw shown, nothing blinking: the LEDs are written once
    r = run(s, backend=backend)
    assert [f for f in r.frames if t < f[0] <= t + 2000] == []


def test_the_simulated_loop_sleeps_as_the_picos_and_a_flip_shows_at_once():
    """boxrun's loop is Guard.forever's: a pass (one read of the switches) every 2 ms, the
    app stepped only when a switch changed or it said something is due (App.wait). A box
    showing a throw, nothing moving, steps a handful of times in 2 s (a loop stepping the
    app at every pass: 1,000 times); a tile shut then shows on the LEDs 2 ticks after the
    pass that saw it (the debouncer's settle; the passes come every 2 ms, every ms while a
    level is unsettled): 4 ms after the flip at most, its frame sent before the log."""
    s = Script().wait(100)
    roll(s, 6, 6)
    s.wait(1000).loop_count().wait(2000).loop_count()
    t = s.ms
    s.shut(9).wait(200)
    r = run(s)
    counts = [[int(x) for x in line.split()[1:]] for line in r.lines if line.startswith("N ")]
    (p0, s0), (p1, s1) = counts
    assert 990 <= p1 - p0 <= 1010  # a pass every 2 ms
    assert s1 - s0 <= 5, counts
    before = [f for f in r.frames if f[0] <= t][-1]
    shown = next(f for f in r.frames if f[0] > t and f[1][8] != before[1][8])
    assert 2 <= shown[0] - t <= 4, (t, shown)


def test_the_score_and_the_winner_step_only_when_their_picture_changes():
    """A score view changes each second of its cycle (the player's number 1 s, the score
    2 s), the winner's tiles blink at 1 Hz (lit 500 ms, dark 500 ms) for its first second:
    the app steps then and not at the 50 Hz frame pace (150 steps in 3 s), and the LEDs still
    show every change."""
    s = Script().wait(100)
    roll(s, 1, 1)
    s.shut(2).wait(100)
    roll(s, 1, 1)  # nothing fits: the turn ends, its score (43) shows
    s.wait(500).loop_count()
    t0 = s.ms
    s.wait(3000).loop_count()  # the score view: one whole cycle
    s.click().wait(100).loop_count()
    t1 = s.ms
    s.wait(3000).loop_count()  # the winner's view
    r = run(s, 1)
    counts = [[int(x) for x in line.split()[1:]] for line in r.lines if line.startswith("N ")]
    (_, s0), (_, s1), (_, s2), (_, s3) = counts
    assert r.events("winner")
    assert s1 - s0 <= 4, counts  # at 1, 3 (the cycle's start) and maybe one edge more
    # the blink's 2 edges in the label's second, the number's 2, the fanfare's notes (4)
    assert s3 - s2 <= 10, counts
    # what they showed: the label and the score in turn, the winner's tile blinking
    score = {number_shown(f) for f in r.frames if t0 < f[0] <= t0 + 3000 and "M" not in f[1]}
    assert score == {43}, score
    # tile 1 lit from the winner's first frame (the click, 100 ms before t1), dark 500 ms on
    label = [f for f in r.frames if t1 - 100 < f[0] <= t1 + 800 and "M" not in f[1]]
    lit = [f[0] for f in label if f[1] == "G........"]
    dark = [f[0] for f in label if f[1] == "........."]
    assert len(lit) + len(dark) == len(label) and lit and dark, label
    assert max(lit) < min(dark) and abs(min(dark) - min(lit) - 500) <= 20, label


def test_the_firmware_fits_64k():
    """What the firmware holds once running, minus the simulated board, stays under 64 KB."""
    r = run(Script().wait(100).heap())
    used, free = r.answer("H")
    sim = mp.run("import gc, simbus, machine, neopixel\ngc.collect()\nprint(gc.mem_alloc())",
                 extra_path=[boxsim.build()], heapsize=HEAP)
    assert sim.returncode == 0, sim.stderr
    firmware = used - int(sim.stdout)
    assert 0 < firmware < FIRMWARE_CAP - 8 * 1024, (used, firmware)  # room for a game's peak
    assert free > 8 * 1024, (used, free)


# ----- the simulated board itself -----


def test_the_simulated_board_follows_the_rp2_api():
    r = mp.run(Path(__file__).resolve().parents[1] / "mp" / "sim_board.py", heapsize=HEAP)
    assert r.returncode == 0 and not r.stderr, r.stderr
    assert r.stdout.strip().endswith("FAIL 0"), r.stdout


# ----- one script, every box (shutbox_host.model.drive: the simulated board, the chip) -----
# Scripts without dice (the emulated chip draws its own) and without the simulated board's
# questions: each is judged by what every box shows, its frames and its log.


@pytest.mark.parametrize("backend", [*BACKENDS, backends.TERM])
def test_a_throw_shows_the_dice_it_logs(backend):
    """One press of Roll: one throw logged, the dice shown as logged, the roll's sound (the
    script and its check: tests/backends.py's, which the web page's test runs too)."""
    s = backends.throw_script()
    with backends.box(backend) as b:
        backends.check_throw(b.run(s), s)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_tile_shut_before_the_first_throw_blinks_amber_and_stops_the_roll(backend):
    s = Script().wait(100).shut(3)
    t = s.ms
    s.wait(700).click(120).wait(ROLL_MS)  # refused while tile 3 is shut
    s.open(3).wait(100).click(120).wait(ROLL_MS)
    with backends.box(backend) as b:
        r = b.run(s)
    before, after = r.frame_at(t), r.frames_in(t, t + 10)  # shown at once: 2 polls
    assert before is not None and not tiles_lit(before[1], "Y"), before
    assert after and tiles_lit(after[0][1], "Y") == [3], after
    blink = {tuple(tiles_lit(f[1], "Y")) for f in r.frames_in(t, t + 600)}
    assert blink == {(3,), ()}, blink
    assert [(e["why"], e["tiles"]) for e in r.events("refused")] == [("setup", [3])]
    assert len(r.events("throw")) == 1 and not r.events("error")


@pytest.mark.parametrize("backend", BACKENDS)
def test_roll_held_5_s_starts_a_new_game_on_every_box(backend):
    s = Script().wait(100).press().wait(5300).release().wait(300)
    with backends.box(backend) as b:
        r = b.run(s)
    assert not r.events("throw")
    assert len(r.events("game")) == 2 and r.events("game")[-1]["_ms"] >= 5000, r.log


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_bouncing_press_and_a_glitch_make_one_throw_on_every_box(backend):
    s = Script(seed=5).wait(100).rollbounce(15).wait(ROLL_MS)
    s.glitch(5, 800).wait(200)  # a 0.8 ms spike on an open tile: nothing
    with backends.box(backend) as b:
        r = b.run(s)
    assert len(r.events("throw")) == 1, r.log
    assert not r.events("error") and not r.events("refused"), r.log


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_power_cut_mid_game_and_the_box_comes_back_on_every_box(backend):
    """The power cut after a throw: the box starts again (a new game where it has no flash,
    the CPython box and the simulated board here; the game resumed from its flash on the
    emulated chip) and lights its LEDs within a second, having booted in its own time."""
    s = Script().wait(100).click(120).wait(ROLL_MS + 300)
    t = s.ms
    s.power_cut().wait(1500)
    with backends.box(backend) as b:
        r = b.run(s)
    back = [e["ev"] for e in r.log if e["_ms"] >= t and e["ev"] in ("game", "resume")]
    assert back == (["resume"] if backend == "emu" else ["game"]), r.log
    lit = [f for f in r.frames if t <= f[0] < t + 1000]
    assert lit and "W" in lit[0][1], r.frames[-3:]
