# One model of a real switch contact: the edges a press, a release, a glitch or a slow flip makes.
"""The edges a mechanical contact makes on its pin, for every box the host drives.

A contact does not change level once: after each press and release it bounces, a burst of
edges at irregular spacing until it settles. The simulated board (shutbox_host.box.boxsim)
and the emulated chip (shutbox_host.pico) both take their edges from here, so a test that
passes on one meets the same world on the other.

The ranges (``Profile``) are the model's, chosen to cover the parts in hardware/bom.csv and
worn contacts; where a figure comes from elsewhere it is cited:

- cited: J. Ganssle, "A Guide to Debouncing" (2004, rev. 2008), 18 switches measured: mean
  bounce about 1.6 ms, the longest 6.2 ms (two outliers aside), bounce on release as well as
  on press, edges irregular (some under 1 µs apart). The Omron D2F datasheet (the tile
  switch) and the arcade button's give no bounce time.
- ``NEW``: bursts of 0.1-6 ms (the cited range), edges 5 µs-1 ms apart.
- ``WORN``: bursts up to 10 ms, the issue's target for a bounced flip (docs/reliability.md).
- ``ROUGH``: bursts up to 15 ms, beyond the targets: what the box must still take right,
  later.
- glitches: one pulse shorter than 1 ms (a spike on a long wire), then the old level.
- a slow flip: a tile held half way, chattering for up to 200 ms before it settles.

Times are integer nanoseconds from the start of the event (the emulator's clock is in ns; the
simulated board rounds to µs). Every draw takes a ``random.Random``: a seed replays a run.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

_US = 1000
_MS = 1_000_000


@dataclass(frozen=True)
class Profile:
    """How a contact bounces: burst length and edge spacing ranges, in ns."""

    name: str
    burst_min: int
    burst_max: int
    gap_min: int
    gap_max: int


NEW = Profile("new", 100 * _US, 6 * _MS, 5 * _US, 1 * _MS)
WORN = Profile("worn", 1 * _MS, 10 * _MS, 5 * _US, 2 * _MS)
ROUGH = Profile("rough", 1 * _MS, 15 * _MS, 5 * _US, 3 * _MS)
PROFILES = {p.name: p for p in (NEW, WORN, ROUGH)}
GLITCH_MAX = 1 * _MS  # a glitch is shorter than this
CHATTER_MAX = 200 * _MS  # a tile held half way chatters at most this long


def burst(rng: random.Random, level: bool, profile: Profile = NEW,
          length: int | None = None) -> list[tuple[int, bool]]:
    """The edges of one change to *level*: [(ns from the first edge, level)], starting with
    the first touch (level) at 0 and ending on *level*, an odd number of edges.

    *length*: the burst's length in ns (None: drawn from the profile). The edges are
    irregular (spacing drawn per edge), never rhythmic, so no poll rate can alias them away.
    """
    if length is None:
        length = rng.randint(profile.burst_min, profile.burst_max)
    edges = [(0, level)]
    t = 0
    cur = level
    while True:
        gap = rng.randint(profile.gap_min, profile.gap_max)
        if t + gap >= length:
            break
        t += gap
        cur = not cur
        edges.append((t, cur))
    if cur != level:  # settle on the level: the last edge at the burst's end
        edges.append((max(length, t + profile.gap_min), level))
    return edges


def glitch(rng: random.Random, level: bool, width: int | None = None) -> list[tuple[int, bool]]:
    """A spike away from *level* (the resting level) shorter than 1 ms: two edges."""
    if width is None:
        width = rng.randint(2 * _US, GLITCH_MAX - 1)
    if not 0 < width < GLITCH_MAX:
        raise ValueError("a glitch is shorter than 1 ms")
    return [(0, not level), (width, level)]


def chatter(rng: random.Random, level: bool, length: int | None = None) -> list[tuple[int, bool]]:
    """A tile held half way: edges at 0.05-5 ms for *length* ns (up to 200 ms), then
    settled on *level*."""
    if length is None:
        length = rng.randint(20 * _MS, CHATTER_MAX)
    return burst(rng, level, Profile("chatter", length, length, 50 * _US, 5 * _MS), length)


def press(rng: random.Random, held: int, profile: Profile = NEW,
          active: bool = True) -> list[tuple[int, bool]]:
    """A press of a button held *held* ns from its first edge to the release's first edge:
    a burst to *active*, then a burst back. The press is counted from its first edge."""
    down = burst(rng, active, profile)
    if held <= down[-1][0]:
        raise ValueError("a press is held past its bounce")
    up = burst(rng, not active, profile)
    return down + [(held + t, v) for t, v in up]


def settled(edges: list[tuple[int, bool]]) -> tuple[int, bool]:
    """(ns of the last edge, the level it leaves)."""
    return edges[-1]
