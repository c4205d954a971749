# The contact model (shutbox_host.contact): bursts that settle, glitches that do not, in range.
"""Every burst ends on its level inside its profile's length, edges alternate and are
irregular; a glitch is under 1 ms and comes back; a press is down then up; bad asks refused."""

import random

import pytest

from shutbox_host import contact


@pytest.mark.parametrize("profile", list(contact.PROFILES.values()), ids=lambda p: p.name)
def test_bursts_settle_on_their_level_within_the_profile(profile):
    rng = random.Random(7)
    gaps = set()
    for i in range(500):
        level = bool(i & 1)
        edges = contact.burst(rng, level, profile)
        assert edges[0] == (0, level)
        assert contact.settled(edges)[1] is level
        assert len(edges) % 2 == 1
        for (t0, v0), (t1, v1) in zip(edges, edges[1:], strict=False):
            assert v1 is not v0 and t1 > t0
            gaps.add(t1 - t0)
        assert edges[-1][0] <= profile.burst_max + profile.gap_max
    assert len(gaps) > 100  # irregular: no fixed rhythm a poll could alias away


def test_glitch_is_shorter_than_a_ms_and_returns():
    rng = random.Random(3)
    for _ in range(200):
        (t0, v0), (t1, v1) = contact.glitch(rng, True)
        assert t0 == 0 and v0 is False and v1 is True and 0 < t1 < contact.GLITCH_MAX
    with pytest.raises(ValueError):
        contact.glitch(rng, True, width=contact.GLITCH_MAX)


def test_press_goes_down_then_up():
    rng = random.Random(5)
    edges = contact.press(rng, 50_000_000)
    assert edges[0] == (0, True) and edges[-1][1] is False
    assert min(t for t, v in edges if t >= 50_000_000) == 50_000_000
    with pytest.raises(ValueError):
        contact.press(rng, 0, contact.WORN)


def test_chatter_lasts_and_settles():
    rng = random.Random(9)
    edges = contact.chatter(rng, False, 200_000_000)
    assert contact.settled(edges) == (edges[-1][0], False)
    assert 150_000_000 < edges[-1][0] <= 205_000_000 and len(edges) > 40
