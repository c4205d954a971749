# Debounced inputs: bounce never makes an extra flip or press; glitches none; presses; tick wrap.
"""shutbox.debounce on CPython, fed readings at µs instants against edges drawn from the
contact model (shutbox_host.contact), with the ms clock the box passes in (ticks_ms at each
reading: the µs instant rounded down)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from shutbox import debounce
from shutbox.debounce import EV_DOWN, EV_LONG, EV_SHORT, EV_TILES, Debouncer
from shutbox.ticks import ticks_add
from shutbox_host import contact

# private on the box (no module globals): read here on CPython
SETTLE_US = debounce._SETTLE_MS * 1000
LOCK_US = debounce._LOCK_MS * 1000
LONG_US = debounce._LONG_MS * 1000
EV_UP = debounce._EV_UP

TILES = 9
ALL = (1 << TILES) - 1
ROLL = 1 << TILES
WRAP_START = ticks_add(0, -500)  # every run crosses the 2**30 ms tick wrap


def ms(start, us):
    """The ms tick at the µs instant *us* of a run that started at tick *start*."""
    return ticks_add(start, us // 1000)


def split(inputs):
    """(switches, roll) of an int with Roll's bit after the tiles'."""
    return inputs & ALL, bool(inputs & ROLL)


class Rig:
    """A debouncer fed the inputs' levels at the instants it reads them; events collected.

    ``edges`` (µs from the start -> (bit, level)) is the world; ``read_at(us)`` is one
    reading, as the box's loop takes it (Board.reader)."""

    def __init__(self, inputs=ALL, start=WRAP_START):
        self.t0 = start
        self.start = inputs
        self.edges: list[tuple[int, int, bool]] = []  # (µs, bit, level) in any order
        self.deb = Debouncer(TILES, *split(inputs), start)
        self.events: list[tuple[int, int, int, bool]] = []  # (µs, ev, levels, pressed)
        self.last = 0

    def level(self, us: int) -> int:
        v = self.start
        for t, bit, lv in sorted(self.edges):
            if t > us:
                break
            v = v | bit if lv else v & ~bit
        return v

    def add(self, at: int, bit: int, edges) -> None:
        """A contact's edges (contact model, ns from its first) from *at* µs on."""
        for t, lv in edges:
            self.edges.append((at + t // 1000, bit, lv))

    def read_at(self, us: int) -> None:
        self.last = us
        ev = self.deb.update(*split(self.level(us)), ms(self.t0, us))
        if ev:
            self.events.append((us, ev, self.deb.levels, self.deb.pressed))

    def poll(self, until: int, rng: random.Random | None = None, every: int = 1000) -> None:
        """Read from the last reading to *until*: every *every* µs, or at random spacing
        (1 to 2.5 ms, as the box's loop: a sleep of 1 ms at least, work between reads)."""
        us = self.last
        while us < until:
            us += rng.randint(1000, 2500) if rng else every
            self.read_at(us)

    def count(self, bit: int) -> int:
        return sum(1 for e in self.events if e[1] & bit)


def test_a_clean_flip_is_taken_1_ms_after_the_read_that_saw_it():
    rig = Rig()
    rig.edges.append((10_000, 1 << 8, False))  # tile 9 shut at 10 ms
    rig.poll(10_000 + SETTLE_US, every=250)  # first seen at 10.0 ms (the read at its edge)
    assert [(us, ev) for us, ev, _, _ in rig.events] == [(10_000 + SETTLE_US, EV_TILES)]
    assert rig.deb.levels == ALL & ~(1 << 8)
    rig.poll(200_000, every=250)
    assert rig.count(EV_TILES) == 1


def test_a_press_bouncing_open_between_two_readings_is_taken_at_the_second_that_reads_it():
    """Two readings of Roll pressed, 1 ms and more apart (within the window), with a reading
    of it bounced open between them: taken at the second, not 1 ms after the contact
    settles (the Roll press's target: dice rolling within 10 ms of its first edge)."""
    rig = Rig()
    # pressed at 1.0 ms, bounced open 1.5-2.6 ms, pressed from then on
    rig.edges += [(1000, ROLL, True), (1500, ROLL, False), (2600, ROLL, True)]
    for us in (1000, 2050, 3100):  # the loop's readings 1.05 ms apart
        rig.read_at(us)
    assert [(us, ev) for us, ev, _, _ in rig.events] == [(3100, EV_DOWN)]


def test_a_level_read_at_two_readings_in_a_row_is_taken_however_far_apart():
    """A loop reading every 10 ms (the soak's) or held up by a save: a level read away at a
    reading and at the next is taken there, however long between (past the window)."""
    rig = Rig()
    rig.edges.append((1000, ROLL, True))
    rig.poll(1000 + 3 * debounce._WINDOW_MS * 1000, every=debounce._WINDOW_MS * 1000)
    assert [ev for _, ev, _, _ in rig.events] == [EV_DOWN]
    assert rig.events[0][0] == 2 * debounce._WINDOW_MS * 1000


def test_two_readings_of_a_level_in_one_tick_or_a_window_apart_take_nothing():
    """Read away twice within one ms tick, or last read away _WINDOW_MS ago with a reading
    on its level between: no change yet (a glitch is read once at most: the loop reads at
    least 1 ms apart)."""
    rig = Rig()
    rig.edges += [(1100, 1, False), (1300, 1, True)]  # a glitch, read twice in tick 1
    rig.read_at(1100)
    rig.read_at(1200)
    rig.read_at(3000)
    rig.edges += [(1100 + debounce._WINDOW_MS * 1000, 1, False)]
    rig.edges += [(1200 + debounce._WINDOW_MS * 1000, 1, True)]  # another, the window on
    rig.read_at(1150 + debounce._WINDOW_MS * 1000)
    rig.read_at(5000 + debounce._WINDOW_MS * 1000)
    assert rig.events == [] and rig.deb.levels == ALL


@settings(max_examples=150, deadline=None)
@given(width=st.integers(1, 999), tile=st.integers(0, TILES), seed=st.integers(0, 999))
def test_a_glitch_shorter_than_1_ms_never_registers_however_it_is_read(width, tile, seed):
    rng = random.Random(seed)
    rig = Rig(inputs=ALL)
    at = rng.randint(1000, 5000)
    rig.add(at, 1 << tile, contact.glitch(rng, tile < TILES, width * 1000))
    rig.poll(at - rng.randint(1000, 1999))
    rig.read_at(at + rng.randint(0, width - 1))  # a reading inside the glitch, at any phase
    rig.poll(100_000, rng)
    assert rig.events == [] and rig.deb.levels == ALL and not rig.deb.pressed


@settings(max_examples=120, deadline=None)
@given(seed=st.integers(0, 10**6), tile=st.integers(0, TILES - 1),
       profile=st.sampled_from(sorted(contact.PROFILES)))
def test_a_bounced_flip_is_one_flip_to_its_settled_level(seed, tile, profile):
    """Any burst of a contact model's profile, up to 15 ms, read at random instants: exactly
    one change, to the level the contact settles on."""
    rng = random.Random(seed)
    rig = Rig()
    rig.add(5000, 1 << tile, contact.burst(rng, False, contact.PROFILES[profile]))
    rig.poll(200_000, rng)
    assert rig.count(EV_TILES) == 1
    assert rig.deb.levels == ALL & ~(1 << tile)


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 10**6), held=st.integers(debounce._PRESS_MS, 600),
       profile=st.sampled_from(sorted(contact.PROFILES)))
def test_a_bouncy_short_press_is_one_press(seed, held, profile):
    rng = random.Random(seed)
    rig = Rig()
    p = contact.PROFILES[profile]
    while True:
        try:
            edges = contact.press(rng, held * 1_000_000, p)
            break
        except ValueError:  # held within its own burst: draw again
            continue
    rig.add(3000, ROLL, edges)
    rig.poll(held * 1000 + 300_000, rng)
    assert rig.count(EV_DOWN) == 1 and rig.count(EV_UP) == 1
    assert rig.count(EV_SHORT) == 1 and rig.count(EV_LONG) == 0


def test_a_flip_and_back_within_the_lock_out_ends_where_it_rests():
    rig = Rig()
    rig.edges += [(2000, 1, False), (12_000, 1, True)]  # tile 1 shut, open again 10 ms on
    rig.poll(100_000, every=500)
    assert [lv for _, _, lv, _ in rig.events] == [ALL & ~1, ALL]
    assert rig.events[1][0] >= rig.events[0][0] + LOCK_US  # held back by the lock-out


def test_a_tile_held_half_way_ends_settled():
    rng = random.Random(11)
    rig = Rig()
    rig.add(1000, 1 << 3, contact.chatter(rng, False, 200_000_000))
    rig.poll(500_000, rng)
    assert rig.deb.levels == ALL & ~(1 << 3)
    assert rig.events[-1][2] == ALL & ~(1 << 3)


def test_a_bouncing_tile_does_not_hold_up_another():
    rig = Rig()
    rig.edges.append((1000, 1, False))  # tile 1 shut cleanly
    for i in range(20):  # tile 2 chatters for 40 ms meanwhile
        rig.edges.append((1000 + 2000 * i, 2, i % 2 == 1))
    rig.poll(60_000, every=500)
    assert rig.events[0][2] & 1 == 0 and rig.events[0][0] <= 1000 + SETTLE_US


def test_a_long_press_fires_while_held_and_its_release_is_no_short_press():
    rig = Rig()
    rig.edges.append((1000, ROLL, True))
    rig.poll(1000 + SETTLE_US + LONG_US - 1000, every=500)
    assert rig.count(EV_LONG) == 0
    rig.poll(1000 + SETTLE_US + LONG_US + 1000, every=500)
    assert rig.count(EV_LONG) == 1
    rig.edges.append((3_000_000, ROLL, False))
    rig.poll(3_100_000, every=1000)
    assert rig.count(EV_LONG) == 1 and rig.count(EV_SHORT) == 0 and rig.count(EV_UP) == 1


def test_roll_held_at_power_up_gives_no_press_until_pressed_again():
    rig = Rig(inputs=ALL | ROLL)
    assert rig.deb.pressed  # held since before the debouncer was built
    rig.edges += [(1_500_000, ROLL, False), (1_600_000, ROLL, True), (1_700_000, ROLL, False)]
    rig.poll(1_550_000)
    assert rig.count(EV_LONG) == 0 and rig.count(EV_SHORT) == 0
    rig.poll(1_800_000)
    assert rig.count(EV_SHORT) == 1


def test_tiles_and_roll_in_the_same_reading_both_register():
    rig = Rig()
    rig.edges += [(1000, 0b110, False), (1000, ROLL, True)]
    rig.poll(1000 + SETTLE_US, every=1000)
    ev = rig.events[0][1]
    assert ev & EV_TILES and ev & EV_DOWN
    assert rig.deb.levels == ALL & ~0b110


def test_bits_above_the_inputs_are_ignored_as_tiles():
    rig = Rig()
    rig.edges.append((1000, 1 << 12, True))  # a stray bit from a 12-pin read
    rig.poll(100_000)
    assert all(not e[1] & EV_TILES for e in rig.events) and rig.deb.levels == ALL


def test_timing_is_the_same_across_the_tick_wrap():
    """The same press before and across the 2**30 µs wrap gives the same event times."""
    times = []
    for start in (1000, ticks_add(0, -(LONG_US // 2))):
        rig = Rig(start=start)
        rig.edges.append((1000, ROLL, True))
        rig.poll(LONG_US + 10_000)
        times.append([(us, ev) for us, ev, _, _ in rig.events])
    assert times[0] == times[1]
    assert [ev for _, ev in times[0]] == [EV_DOWN, EV_LONG]


@settings(max_examples=80, deadline=None)
@given(flips=st.lists(st.tuples(st.integers(3000, 80_000), st.integers(0, TILES)), max_size=25),
       roll=st.booleans())
def test_reading_only_on_a_change_or_when_wait_says_loses_nothing(flips, roll):
    """The Pico's loop (Guard.forever) sleeps: at each reading it steps the debouncer only
    when the reading changed or at the time ``wait`` gave (whole ms, rounded up). Fed the
    same readings, every input then changes as often, to the same levels, less than 2 ms
    after it does when every reading is stepped (a change taken up to 1 ms late starts its
    lock-out as late, and the wait rounds up: two changes may come in one step); a wait
    longer than the true one would delay or lose them. (A pulse of about 1 ms may be taken
    by one and not the other: both end where the input rests; the glitch test covers it.)"""
    start = ALL | (ROLL if roll else 0)
    timeline = []
    v, us = start, 0
    for gap, k in flips:
        us += gap
        v ^= 1 << k
        timeline.append((us, v))
    end = us + LONG_US + 100_000

    def level(t):
        cur = start
        for at, lv in timeline:
            if at > t:
                break
            cur = lv
        return cur

    def run(sleeping):
        deb = Debouncer(TILES, *split(start), WRAP_START)
        events, due, seen, t = [], 0, None, 0
        while t < end:
            t += 250
            lv = level(t)
            if sleeping and lv == seen and t < due:
                continue
            seen = lv
            ev = deb.update(*split(lv), ms(WRAP_START, t))
            if ev:
                events.append((t, ev, deb.levels, deb.pressed))
            due = (t // 1000 + deb.wait(ms(WRAP_START, t), 60000)) * 1000
        return events

    def per_input(events):
        """Each input's changes: [(µs, level)] per bit (the tiles, then Roll)."""
        out = [[] for _ in range(TILES + 1)]
        prev = start
        for t, _ev, levels, pressed in events:
            v = levels | (ROLL if pressed else 0)
            for i in range(TILES + 1):
                if (v ^ prev) >> i & 1:
                    out[i].append((t, v >> i & 1))
            prev = v
        return out

    slept, dense = per_input(run(True)), per_input(run(False))
    for s_bit, d_bit in zip(slept, dense, strict=True):
        assert [lv for _, lv in s_bit] == [lv for _, lv in d_bit]
        assert all(0 <= a[0] - b[0] < 2000 for a, b in zip(s_bit, d_bit, strict=True))


def test_wait_counts_down_to_the_settle_the_lock_out_and_the_long_press():
    rig = Rig()
    now = lambda t: ms(rig.t0, t)  # noqa: E731
    assert rig.deb.wait(now(0), 5000) == 5000  # nothing under way: the most
    rig.edges.append((1000, 1, False))
    rig.read_at(1000)  # seen changing at this reading: read again in 1 ms
    assert rig.deb.wait(now(1000), 5000) == 1
    rig.read_at(3000)  # taken
    rig.edges.append((3500, 1, True))  # back at once: held back by the lock-out
    rig.read_at(3500)
    assert rig.deb.levels == ALL & ~1
    assert rig.deb.wait(now(3500), 5000) == LOCK_US // 1000
    rig.read_at(3000 + LOCK_US)
    assert rig.deb.levels == ALL
    rig.edges.append((40_000, ROLL, True))
    rig.read_at(40_000)
    rig.read_at(42_000)  # Roll down now: its long press is due LONG_US after
    assert rig.deb.pressed and rig.deb.wait(now(42_000), 5000) == LONG_US // 1000
    rig.read_at(42_000 + LONG_US)
    assert rig.deb.wait(now(42_000 + LONG_US), 5000) == 5000 and rig.count(EV_LONG) == 1
