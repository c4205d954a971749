# Debounced inputs: bounce never makes an extra flip or press; short and long presses; tick wrap.
"""shutbox.debounce on CPython, polled every millisecond with a clock passed in."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from shutbox import debounce
from shutbox.debounce import EV_DOWN, EV_LONG, EV_SHORT, EV_TILES, Debouncer
from shutbox.ticks import ticks_add, ticks_diff

# private on the box (no module globals): read here on CPython
SETTLE_MS = debounce._SETTLE_MS
LONG_MS = debounce._LONG_MS
EV_UP = debounce._EV_UP

TILES = 9
ALL = (1 << TILES) - 1
WRAP_START = ticks_add(0, -500)  # every run crosses the 2**30 ms tick wrap


class Rig:
    """A debouncer fed a raw level timeline, one poll per millisecond; events are collected."""

    def __init__(self, switches=ALL, roll=False, start=WRAP_START):
        self.now = start
        self.t0 = start
        self.switches = switches
        self.roll = roll
        self.deb = Debouncer(TILES, switches, roll, start)
        self.events: list[tuple[int, int, int]] = []  # (ms, ev, levels)

    def run(self, ms: int) -> None:
        for _ in range(ms):
            self.now = ticks_add(self.now, 1)
            ev = self.deb.update(self.switches, self.roll, self.now)
            if ev:
                self.events.append((ticks_diff(self.now, self.t0), ev, self.deb.levels))

    def count(self, bit: int) -> int:
        return sum(1 for _, ev, _ in self.events if ev & bit)

    def chatter(self, flip, gaps) -> None:
        """Apply flip() (toggle the raw input) after each gap in ms: a contact bouncing."""
        for gap in gaps:
            flip()
            self.run(gap)


def test_a_clean_flip_registers_once_after_the_settle_time():
    rig = Rig()
    rig.switches = ALL & ~(1 << 8)  # tile 9 shut
    rig.run(SETTLE_MS - 1)
    assert rig.events == []
    rig.run(2)
    assert [(ev, lv) for _, ev, lv in rig.events] == [(EV_TILES, ALL & ~(1 << 8))]
    rig.run(200)
    assert rig.count(EV_TILES) == 1


@settings(max_examples=60, deadline=None)
@given(gaps=st.lists(st.integers(1, 19), min_size=1, max_size=12).filter(lambda g: sum(g) <= 20),
       tile=st.integers(0, TILES - 1))
def test_bounce_up_to_20_ms_is_one_flip(gaps, tile):
    """Any chatter lasting up to 20 ms that ends on the new level gives exactly one change."""
    rig = Rig()
    bit = 1 << tile
    if len(gaps) % 2 == 0:
        gaps = gaps + [1]  # an odd number of toggles ends on the new level

    def flip():
        rig.switches ^= bit

    rig.chatter(flip, gaps)
    rig.run(300)
    assert rig.count(EV_TILES) == 1
    assert rig.deb.levels == ALL & ~bit


@settings(max_examples=60, deadline=None)
@given(width=st.integers(1, 20), tile=st.integers(0, TILES - 1))
def test_a_glitch_of_up_to_20_ms_never_registers(width, tile):
    rig = Rig()
    rig.switches ^= 1 << tile
    rig.run(width)
    rig.switches ^= 1 << tile
    rig.run(300)
    assert rig.events == []
    assert rig.deb.levels == ALL


def test_a_bouncing_tile_does_not_hold_up_another():
    rig = Rig()
    rig.switches &= ~1  # tile 1 shut cleanly
    for _ in range(20):  # tile 2 chatters for 40 ms meanwhile
        rig.switches ^= 2
        rig.run(2)
    assert rig.events and rig.events[0][2] & 1 == 0  # tile 1 seen on time
    assert rig.events[0][0] <= SETTLE_MS + 1


@settings(max_examples=40, deadline=None)
@given(down=st.lists(st.integers(1, 19), min_size=1, max_size=8).filter(lambda g: sum(g) <= 20),
       up=st.lists(st.integers(1, 19), min_size=1, max_size=8).filter(lambda g: sum(g) <= 20),
       held=st.integers(60, 400))
def test_a_bouncy_short_press_is_one_press(down, up, held):
    rig = Rig()
    if len(down) % 2 == 0:
        down = down + [1]
    if len(up) % 2 == 0:
        up = up + [1]

    def flip():
        rig.roll = not rig.roll

    rig.chatter(flip, down)
    rig.run(held)
    rig.chatter(flip, up)
    rig.run(200)
    assert rig.count(EV_DOWN) == 1 and rig.count(EV_UP) == 1
    assert rig.count(EV_SHORT) == 1 and rig.count(EV_LONG) == 0


def test_a_long_press_fires_while_held_and_its_release_is_no_short_press():
    rig = Rig()
    rig.roll = True
    rig.run(SETTLE_MS + LONG_MS - 2)
    assert rig.count(EV_LONG) == 0
    rig.run(3)
    assert rig.count(EV_LONG) == 1
    rig.run(2000)  # holding longer adds nothing
    rig.roll = False
    rig.run(100)
    assert rig.count(EV_LONG) == 1 and rig.count(EV_SHORT) == 0 and rig.count(EV_UP) == 1


def test_roll_held_at_power_up_gives_no_press_until_pressed_again():
    rig = Rig(roll=True)
    assert rig.deb.pressed  # held since before the debouncer was built
    rig.run(LONG_MS * 2)
    rig.roll = False
    rig.run(100)
    assert rig.count(EV_LONG) == 0 and rig.count(EV_SHORT) == 0
    rig.roll = True
    rig.run(100)
    rig.roll = False
    rig.run(100)
    assert rig.count(EV_SHORT) == 1


def test_tiles_and_roll_in_the_same_poll_both_register():
    rig = Rig()
    rig.switches = ALL & ~0b110
    rig.roll = True
    rig.run(SETTLE_MS + 1)
    ev = rig.events[0][1]
    assert ev & EV_TILES and ev & EV_DOWN
    assert rig.deb.levels == ALL & ~0b110


def test_bits_above_the_tiles_are_ignored():
    rig = Rig()
    rig.switches = ALL | 1 << 12  # a stray bit from a 12-pin read
    rig.run(100)
    assert rig.events == [] and rig.deb.levels == ALL


def test_timing_is_the_same_across_the_tick_wrap():
    """The same press before and across the 2**30 wrap gives the same event times."""
    times = []
    for start in (1000, ticks_add(0, -(SETTLE_MS + LONG_MS // 2))):
        rig = Rig(start=start)
        rig.roll = True
        rig.run(SETTLE_MS + LONG_MS + 10)
        times.append([(ms, ev) for ms, ev, _ in rig.events])
    assert times[0] == times[1]
    assert [ev for _, ev in times[0]] == [EV_DOWN, EV_LONG]


@settings(max_examples=80, deadline=None)
@given(flips=st.lists(st.tuples(st.integers(1, 80), st.integers(0, TILES)), max_size=25),
       roll=st.booleans())
def test_polling_only_when_a_level_changes_or_wait_says_gives_the_same_events(flips, roll):
    """The Pico's loop (Guard.forever) sleeps: it feeds the debouncer only when a raw level
    changed or at the time ``wait`` gave. Every event then comes at the same ms as with a
    poll every ms: a wait longer than the true one would delay or lose them."""
    t0 = WRAP_START
    timeline = {}  # ms -> (switches, roll) from then on
    sw, r, ms = ALL, roll, 0
    for gap, k in flips:  # k == TILES: Roll
        ms += gap
        if k == TILES:
            r = not r
        else:
            sw ^= 1 << k
        timeline[ms] = (sw, r)
    end = ms + LONG_MS + 100

    def run(sleeping):
        deb = Debouncer(TILES, ALL, roll, t0)
        level = (ALL, roll)
        events, due, seen = [], 0, None
        for i in range(1, end):
            level = timeline.get(i, level)
            now = ticks_add(t0, i)
            if sleeping and level == seen and ticks_diff(now, due) < 0:
                continue
            seen = level
            ev = deb.update(level[0], level[1], now)
            if ev:
                events.append((i, ev, deb.levels, deb.pressed))
            due = ticks_add(now, deb.wait(now, 60000))
        return events

    assert run(True) == run(False)


def test_wait_counts_down_to_the_settle_and_the_long_press():
    rig = Rig()
    assert rig.deb.wait(rig.now, 5000) == 5000  # nothing under way: the most
    rig.switches = ALL & ~1
    rig.run(1)  # seen changing at this poll
    assert rig.deb.wait(rig.now, 5000) == SETTLE_MS
    rig.run(10)
    assert rig.deb.wait(rig.now, 5000) == SETTLE_MS - 10
    rig.run(SETTLE_MS)
    rig.roll = True
    rig.run(SETTLE_MS + 1)  # Roll settled down now: its long press is due LONG_MS after
    assert rig.deb.pressed and rig.deb.wait(rig.now, 5000) == LONG_MS
    rig.run(LONG_MS)
    assert rig.deb.wait(rig.now, 5000) == 5000 and rig.count(EV_LONG) == 1
