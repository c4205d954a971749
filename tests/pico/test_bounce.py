# Bouncing switches against the emulated RP2040 and the simulated and CPython boxes: all shown.
"""Thousands of bounced edges (shutbox_host.contact) at random instants against the poll loop.

shutbox_host.pico.bounce lands every edge on its pin at its exact ns (µs on the CPython box)
and judges the box by what it sent: its LED frames and its JSON log; one seeded script on
the emulated chip, the simulated board and the CPython box (shutbox_host.model.drive). The targets
(bounce.CLEAN_MS, BOUNCED_MS, ROLL_MS, LOST_MS): a clean flip shown within 10 ms, a flip
bouncing up to 10 ms within 15 ms of its first edge, a Roll press answered by rolling dice
within 10 ms; nothing lost (shown within 50 ms of the last edge and still shown when the next
input comes), no glitch under 1 ms changing anything, no throw without a press, no new game
nobody asked for.
"""

from __future__ import annotations

import backends
import pytest
from onerun import once

from shutbox import pins
from shutbox_host import contact
from shutbox_host.pico import bounce

# the backends the run plays on: one script (bounce's, seeded) on each; the simulated board's
# pin reads take the chip's time (simbus.read, gpio_in), on a clock that keeps the script's
BACKENDS = ["cpy", "sim", pytest.param("emu", marks=pytest.mark.node)]


def _box(name: str):
    """A box of backend *name* at its first turn, 300 ms on (the emulated one skips, or fails
    on CI, where it cannot run)."""
    box = backends.box(name)
    box.advance(300)
    return box


def _check(res: bounce.Result, edges: int) -> None:
    why = res.summary()
    assert res.edges >= edges, why
    # the run covered every kind of input, each judged
    for kind in (*bounce.KINDS, "roll_move"):
        assert res.of(kind), "no %s input: %s" % (kind, why)
    assert res.of("clean") and all(s.latency_ms is not None for s in res.of("clean")
                                   if not s.lost), why
    assert res.throws >= len(res.of("roll")) // 2, why  # the presses did throw
    assert not res.lost(), why
    assert not res.wrong(), why
    assert res.phantom_throws == 0, why
    assert res.unintended_new_games == 0, why


@pytest.fixture(scope="module", params=BACKENDS)
def two_thousand(request, tmp_path_factory) -> bounce.Result:
    """The run on each backend, once for its three tests on whichever workers (onerun)."""
    def run():
        with _box(request.param) as box:
            return bounce.run(box, seed=2121, edges=2000)

    return once(tmp_path_factory, "bounce-" + request.param, run)


@pytest.mark.node
def test_edges_land_on_the_pins_at_their_ns_and_the_chip_reads_them_there():
    """Emulator.drive: each edge is on the pin from its ns on (within the instruction under
    way), and every read of GPIO_IN after it returns the new level."""
    with _box("emu") as box:
        emu = box.emu
        g = pins.TILE_PINS[0]
        t = emu.now_ns + 3_000_123
        edges = [(t + dt, g, 1 - v) for dt, v in
                 [(0, 1), (17_000, 0), (17_500, 1), (900_003, 0), (2_400_000, 1)]]
        n = len(emu.inputs)
        emu.trace(True)
        emu.drive(edges)
        emu.run(ms=5)
        emu.trace(False)
        landed = [(ns, lv[g]) for ns, lv in emu.inputs[n:]]
        assert [lv for _, lv in landed] == [e[2] for e in edges]
        for (ns, _), e in zip(landed, edges, strict=True):
            assert 0 <= ns - e[0] < 100  # ns: the instruction under way when it came
        # every read after an edge (and before the next) returns that edge's level
        reads = [(ms * 1e6, v >> g & 1) for kind, ms, v in emu.reads if kind == "G"]
        assert reads
        for i, (ns, lv) in enumerate(landed):
            end = landed[i + 1][0] if i + 1 < len(landed) else float("inf")
            assert all(v == lv for r, v in reads if ns < r < end)


def test_an_edge_lands_on_the_simulated_board_at_its_us_after_thousands_of_waits():
    """The board's clock keeps the script's: a wait whose last pass keeps the core busy (its
    reads, an LED write) runs past its end, and the next wait ends that much sooner; so a
    clean flip scheduled at its µs after 3,000 waits of 1 ms is shown as soon as after none
    (within a few ms of the script's instant, as the first test's flips are)."""
    g = pins.TILE_PINS[0]

    def latency(waits: int) -> float:
        with _box("sim") as box:
            for _ in range(waits):
                box.advance(1)
            n = len(box.shown().frames)
            t = box.ms + 0.5
            box.edges(g, [(500, pins.SWITCH_ACTIVE)])
            box.advance(40)
            f = next(f for f in box.shown().frames[n:] if f[1][0] != "W")
            return f[0] - t

    first = latency(0)
    assert 0 <= first <= bounce.CLEAN_MS
    assert abs(latency(3000) - first) <= 1  # the reads' µs: at most one ms either way


def test_two_thousand_bounced_edges_none_lost_wrong_or_phantom(two_thousand):
    _check(two_thousand, 2000)


def test_two_thousand_bounced_edges_clean_flips_shown_within_10_ms(two_thousand):
    """Every clean flip (one edge) shown within 10 ms of its edge."""
    late = [s for s in two_thousand.late() if s.kind == "clean"]
    assert two_thousand.of("clean") and not late, two_thousand.summary()


def test_two_thousand_bounced_edges_are_all_shown_within_the_targets(two_thousand):
    """Clean flips within 10 ms, bounced ones within 15 ms of their first edge, Roll presses
    answered within 10 ms (a level taken at its second reading within the debounce's
    window, a bounce back read between them or not: shutbox.debounce)."""
    assert not two_thousand.late(), two_thousand.summary()


@pytest.mark.slow
@pytest.mark.node
@pytest.mark.parametrize("seed", [1, 2])
def test_twenty_thousand_bounced_edges_rough_contacts_too(seed):
    """The long run: 2 x 10,000 edges, also with contacts bouncing up to 15 ms (ROUGH: past
    the latency target, so its flips are judged for loss only)."""
    with _box("emu") as box:
        res = bounce.run(box, seed=seed, edges=10000,
                         profiles=(contact.NEW, contact.WORN, contact.ROUGH))
    _check(res, 10000)
