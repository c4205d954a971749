# Bouncing contacts on the simulated board: every flip and press taken once, whatever the timing.
"""The firmware on the simulated board against the contact model (shutbox_host.contact): each
contact's burst of edges lands at µs instants between and inside the box's reads (a pin read
takes time there, as on the chip), at random offsets against its poll loop. Within 50 ms of
an input's last edge the box's view of it is the settled level; every press of Roll is one
press."""

import random

import pytest

from shutbox import pins
from shutbox_host import contact
from shutbox_host.box import boxsim
from shutbox_host.model.script import Script

FLIPS = 2000
PRESSES = 600


def run(script: Script) -> boxsim.Run:
    r = boxsim.run(script, heapsize="256k")
    assert r.returncode == 0, r.stderr
    return r


@pytest.mark.parametrize("profile", ["new", "rough"])
def test_every_bounced_flip_is_taken_whatever_falls_between_the_reads(profile):
    rng = random.Random(21)
    s = Script(seed=21, profile=contact.PROFILES[profile]).wait(100)
    expect = []
    for _ in range(FLIPS):
        k = rng.randint(1, pins.TILES)
        s.bounce(k, None, rng.randint(0, 1999)).wait(50).state()
        expect.append(s.open_)
    r = run(s)
    got = [st["levels"] for st in r.states()]
    lost = [i for i, (a, b) in enumerate(zip(got, expect, strict=True)) if a != b]
    assert not lost, "%d of %d flips not taken 50 ms after their last edge: %s" % (
        len(lost), FLIPS, lost[:10])


@pytest.mark.parametrize("profile", ["new", "rough"])
def test_every_bounced_press_is_one_press(profile):
    """Tile 1 shut in SETUP: every press of Roll is refused, with one log record."""
    rng = random.Random(7)
    s = Script(seed=7, profile=contact.PROFILES[profile]).wait(100).shut(1).wait(100)
    for _ in range(PRESSES):
        s.rollbounce(None, rng.randint(40, 300), rng.randint(0, 1999)).wait(
            rng.randint(40, 200))
    s.wait(100)
    r = run(s)
    assert len(r.events("refused")) == PRESSES, "%d presses of %d" % (
        len(r.events("refused")), PRESSES)
    assert not r.events("throw") and len(r.events("game")) == 1


def test_a_flip_right_after_a_glitch_is_the_level_the_box_ends_on():
    """A glitch's edges that no read has seen yet still came before a flip set after them:
    the box ends on the flipped level (the fuzzer's careful player got stuck when the
    simulated board applied a glitch's return edge after the flip)."""
    s = Script(seed=3).wait(100)
    expect = []
    for k in range(1, pins.TILES + 1):
        s.glitch(k, 2).flip(k).wait(50).state()
        expect.append(s.open_)
    assert [st["levels"] for st in run(s).states()] == expect
