# Sound, brightness and challenge codes through the simulated pins, under MicroPython.
"""The box's own settings and challenge codes on the real firmware (as .mpy) on the simulated
board: the LEDs' bytes at each brightness (and no allocation in an idle poll), the buzzer's
duty at each volume, a code's throws as the host computes them (shutbox_host.box.daily),
the same for any play, through a power cut, entered on the tiles in the menu, and shown at
the game's end.
"""

from __future__ import annotations

import pytest

from shutbox import pins
from shutbox.settings import Settings
from shutbox_host.box import boxsim, daily
from shutbox_host.box.plan import plan_game
from shutbox_host.model.leds import brightness_of, face, palette
from shutbox_host.model.script import ROLL_MS, Script

HEAP = "84k"  # the least these games need is 83,456 bytes (main too); 82k failed on a hole
ALL = tuple(range(1, pins.TILES + 1))


def run(script: Script, *args: str, heapsize: str = HEAP) -> boxsim.Run:
    r = boxsim.run(script, *args, heapsize=heapsize)
    assert r.returncode == 0, r.stderr
    assert not any(line.startswith("?") for line in r.lines), r.lines
    assert not r.events("fault"), r.events("fault")
    return r


def box(s: Script, **attrs) -> Script:
    """A new box (boxrun's b command: wiped flash, the clock back to 0 ms) with Settings
    *attrs*; what the box before it showed ends at the NEWBOX line."""
    s.echo("NEWBOX")
    s.lines.append("b " + " ".join("%s=%d" % kv for kv in attrs.items()))
    return s


def last_box(r: boxsim.Run) -> boxsim.Run:
    """The output of the last box only (after the last NEWBOX), parsed again."""
    out = r.stdout.rsplit("NEWBOX\n", 1)[-1]
    b = boxsim.Run(r.returncode, out, r.stderr)
    b.frames, b.tones, b.log, b.lines = boxsim.parse(out, b.volume)
    return b


def raw_frames(r: boxsim.Run) -> list[bytes]:
    return [bytes.fromhex(line.split()[2]) for line in r.stdout.splitlines()
            if line.startswith("F ")]


# ----- brightness and sound -----


@pytest.mark.parametrize("level", [0, 1, 2])
def test_brightness_scales_every_colour_and_an_idle_poll_allocates_nothing(level):
    s = box(Script(), players=1, brightness=level).wait(100).lockcheck(300)
    s.dice(6, 6).click(120).wait(ROLL_MS).lockcheck(300)  # the throw shown
    s.shut(9, 8).wait(100).lockcheck(300)  # too high: an error blinking red
    s.open(8).shut(3).wait(200)
    r = last_box(run(s))
    assert [line for line in r.lines if line.startswith("LOCK")] == ["LOCK 300 300"] * 3
    frames = raw_frames(r)
    assert frames and all(brightness_of(f) in (level, -1) for f in frames)
    assert {brightness_of(f) for f in frames} >= {level}
    pal = palette(level=level)
    lit = {f[i:i + 3] for f in frames for i in range(0, len(f), 3)}
    assert lit <= {pal[3 * c:3 * c + 3] for c in range(8)}
    assert {"W", "R", "M"} <= {c for f in r.frames for part in f[1:] for c in part}
    assert max(max(f) for f in frames) == (10, 40, 60)[level]  # red at 40 x 1/4, 1, 3/2


@pytest.mark.parametrize("level,duty", [(0, 0), (1, 4096), (2, 32768)])
def test_sound_sets_the_buzzer_s_duty(level, duty):
    s = box(Script(), players=1, sound=level).wait(100)
    s.dice(6, 6).click(120).wait(ROLL_MS).shut(3, 9).wait(300)  # roll, accept
    s.shut(2).wait(300)  # an error buzz
    r = last_box(run(s))
    notes = [d for _ms, d in r.volume if d]
    if duty:
        # the duty the pin gives: rp2 rounds it to the slice's TOP (125 MHz / Hz steps: at
        # the buzzer's few kHz, a readback within 1 of what was set)
        assert len(notes) >= 4 and all(abs(d - duty) <= 1 for d in notes), notes
        assert [hz for _ms, hz in r.tones if hz]
    else:
        assert not notes and not [hz for _ms, hz in r.tones if hz]  # silent
    assert r.events("move") and r.events("error")  # the game went on as ever


# ----- challenge codes -----


@pytest.mark.parametrize("players,strategy", [(1, "best"), (2, "greedy"), (3, "random")])
def test_a_code_throws_what_the_host_computes_whatever_the_play(players, strategy):
    """Every throw the box makes under code 1234 is the code's (daily.throws), seat by seat,
    throw by throw, and no dice are fed: two boxes that play differently throw alike."""
    plan, expect = plan_game(players, 5, strategy, code=1234)
    s = box(Script(), players=players, code=1234)
    s.lines += plan.lines
    r = last_box(run(s))
    assert [t["dice"] for t in r.events("throw")] == expect["throws"]
    assert [m["shut"] for m in r.events("move")] == expect["moves"]
    assert [e["score"] for e in r.events("score")] == expect["scores"]
    game = r.events("game")[-1]
    assert game["code"] == "1234" and game["v"] == 2
    # seat by seat: throw j of each turn is the code's throw j, whatever was thrown before
    by_seat: dict = {}
    for t in r.events("throw"):
        by_seat.setdefault(t["player"], []).append(tuple(t["dice"]))
    for seat, got in by_seat.items():
        want = daily.throws(1234, Settings(players=players), pins.TILES, seat - 1, n=len(got))
        assert [g if len(g) == 2 else (g[0], w[1]) for g, w in zip(got, want, strict=True)] \
            == want, seat


def test_another_code_other_dice_and_no_code_the_fed_dice():
    s = box(Script(), players=1, code=1235).wait(100).click(120).wait(ROLL_MS)
    box(s, players=1).wait(100).dice(2, 5).click(120).wait(ROLL_MS)
    r = run(s)
    throws = [tuple(t["dice"]) for t in r.events("throw")]
    assert throws[0] == daily.throws(1235, n=1)[0] != daily.throws(1234, n=1)[0]
    assert throws[1] == (2, 5)  # without a code the dice are the random source's (fed here)
    assert "code" not in last_box(r).events("game")[-1]


def test_the_code_shows_at_the_game_end_and_allocates_nothing():
    plan, expect = plan_game(1, 2, "greedy", code=42)
    s = box(Script(), players=1, code=42)
    s.lines += plan.lines[:-1]  # all but its last line (state)
    s.wait(9000).lockcheck(2500)  # 5 s more: the winner, the score and the code, locked
    r = last_box(run(s))
    assert r.answer("LOCK") == [2500, 2500]  # showing the code allocates nothing
    end = r.events("winner")
    assert end and end[0]["score"] == expect["scores"][0]
    # the last Roll (released 200 ms before the plan's end) ends the game 30 ms after; after
    # the winner (1 s) and the score (2 s): the code's digits 0, 0, 4, 2 in cyan
    t0 = plan.ms - 200 + 30
    digits = []
    for k in range(4):
        f = r.frame_at(t0 + 3000 + 900 * k + 450)
        assert set(f[1]) <= {"C", "."} and set(f[2]) <= {"C", "."}, f
        digits.append((face(f[2]), f[1].count("C")))
    assert digits == [(1, 0), (2, 0), (3, 4), (4, 2)]


def test_a_power_cut_mid_turn_keeps_the_code_s_throws(tmp_path):
    """Cut after every throw of a turn: each boot resumes and the next throw is the code's."""
    plan, expect = plan_game(1, 4, "best", code=777)
    s = box(Script(), players=1, code=777)
    for line in plan.lines:
        s.lines.append(line)
        if line.startswith("w %d" % ROLL_MS):  # a throw shown: pull the plug
            s.lines += ["r", "w 300"]
    r = last_box(run(s, "--flash", str(tmp_path), heapsize="256k"))
    assert len(r.events("resume")) == len(expect["throws"])
    # a throw saved as it was thrown lands again after the cut: each is logged once more
    throws = [e["dice"] for i, e in enumerate(r.log) if e["ev"] == "throw"
              and not (i and r.log[i - 1]["ev"] == "resume")]
    assert throws == expect["throws"]
    assert [m["shut"] for m in r.events("move")] == expect["moves"]
    assert [e["score"] for e in r.events("score")] == expect["scores"]


def test_a_code_entered_in_the_menu_reaches_the_game(tmp_path):
    """Power up with Roll held, go to 5.3, enter 0 0 4 2 on the tiles, save: the box throws
    code 0042's dice, its settings record and game record say so."""
    s = Script().wait(100).release().wait(100)
    for _ in range(20):  # to the code's page, the last
        s.click(60).wait(60)
    s.flip(2).wait(100)  # a new code
    k = 0
    for digit in (0, 0, 4, 2):
        for _ in range(digit):
            s.flip(k % 9 + 1).wait(80)
            k += 1
        s.click(60).wait(100)
    s.hold(1000).wait(900)  # saved: the green flash, then the game
    s.open(*ALL).wait(200).click(120).wait(ROLL_MS)
    r = run(s, "--flash", str(tmp_path), "--powerup", "--roll-held", heapsize="256k")
    settings = r.events("settings")[-1]
    assert settings["code"] == "0042" and settings["v"] == 2 and settings["status"] == 0
    assert r.events("game")[-1]["code"] == "0042"
    assert tuple(r.events("throw")[0]["dice"]) == daily.throws(42, n=1)[0]
