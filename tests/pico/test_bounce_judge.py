# The bounced-input harness's judge on made-up frames and logs: it finds what it must find.
"""shutbox_host.pico.bounce.judge without the emulator: each fault it counts, planted."""

from __future__ import annotations

import random

from shutbox_host.model.drive import Driver, Shown
from shutbox_host.pico import bounce

_MS = 1_000_000
OPEN = "WWWWWWWWW"


class Told(Driver):
    """What judge() reads of a box: what it showed (frames, the log, flash operations) and
    its clock, made up."""

    def __init__(self, frames, log=()):
        self.out = Shown(frames=[(ms, tiles, die_a, ".......") for ms, tiles, die_a in frames],
                         log=list(log))
        self.ms = 0.0

    def shown(self) -> Shown:
        return self.out


def judged(frames, samples, log=(), presses=(), asked=()):
    emu = Told(frames)
    b = bounce.Bouncer(emu, random.Random(1))
    emu.out.log = list(log)
    emu.ms = 10_000.0
    b.presses = list(presses)
    b.asked = list(asked)
    for kind, what, t0, t1, level, until in samples:
        s = bounce.Sample(kind, what, int(t0 * _MS), int(t1 * _MS), level, 1)
        s.until = int(until * _MS)
        b.res.samples.append(s)
    return bounce.judge(emu, b)


def test_a_flip_shown_is_timed_from_its_first_edge_and_late_past_its_target():
    shut3 = "WW.WWWWWW"
    res = judged([(0, OPEN, "...M..."), (104, shut3, "...M..."), (300, OPEN, "...M...")],
                 [("clean", "tile 3", 100, 100, False, 250),
                  ("bounced", "tile 3", 280, 285, True, 400)])
    a, b = res.samples
    assert round(a.latency_ms, 3) == 4 and not a.lost and not a.late()
    assert round(b.latency_ms, 3) == 20 and not b.lost and b.late()  # 20 ms > 15 ms


def test_a_save_that_overlaps_an_input_gives_it_save_ms_more_and_no_more():
    late = []
    for saving in (False, True):
        for ms in (bounce.ROLL_MS + 0.5, bounce.ROLL_MS + bounce.SAVE_MS + 0.5):
            s = bounce.Sample("roll", "roll", 0, 0, True, 1, latency_ms=ms, saving=saving)
            late.append(s.late())
    assert late == [True, True, False, True]


def test_a_flip_never_shown_or_shown_then_undone_is_lost():
    shut3 = "WW.WWWWWW"
    res = judged([(0, OPEN, "...M..."), (170, shut3, "...M..."), (500, shut3, "...M..."),
                  (520, OPEN, "...M...")],
                 [("clean", "tile 3", 100, 100, False, 160),  # never shown before the next
                  ("clean", "tile 3", 160, 160, False, 250),  # shown 10 ms after: fine
                  ("clean", "tile 3", 505, 505, False, 600)])  # shown at once, then undone
    assert [s.lost for s in res.samples] == [True, False, True]


def test_a_glitch_that_shows_or_logs_is_wrong():
    res = judged([(0, OPEN, "...M..."), (130, "W.WWWWWWW", "...M...")],
                 [("glitch", "tile 5", 100, 100.5, True, 200),
                  ("glitch", "tile 2", 100, 100.5, True, 200),
                  ("glitch", "roll", 300, 300.5, True, 400)],
                 log=[{"ev": "error", "_ms": 350.0}])
    assert [bool(s.wrong) for s in res.samples] == [False, True, True]


def test_a_press_answered_by_rolling_dice_a_throw_with_no_press_a_game_not_asked_for():
    res = judged([(0, OPEN, "...M..."), (108, OPEN, "W.W.W.W"), (2000, OPEN, "...M...")],
                 [("roll", "roll", 100, 160, True, 900),
                  ("roll", "roll", 2100, 2160, True, 3000)],  # never rolled: lost
                 log=[{"ev": "throw", "_ms": 708.0}, {"ev": "throw", "_ms": 5000.0},
                      {"ev": "game", "_ms": 6000.0}, {"ev": "game", "_ms": 7000.0}],
                 presses=[(100 * _MS, 160 * _MS), (2100 * _MS, 2160 * _MS)],
                 asked=[(6900.0, 7100.0)])
    a, b = res.samples
    assert round(a.latency_ms, 3) == 8 and not a.lost and not a.late()
    assert b.lost and b.latency_ms is None
    assert res.phantoms == [5000.0]  # 2.8 s after the last press: none explains it
    assert res.unexpected_games == [6000.0]
    f = res.figures()
    assert f["rp2_lost_inputs"] == 1 and f["rp2_phantom_throws"] == 1
    assert f["rp2_unintended_new_games"] == 1 and f["rp2_roll_to_throw_ms_max"] == 8
