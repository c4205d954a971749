# The box on its cells, on the emulated RP2040: the gauge, the warning, sleep, wake, the stop.
"""shutbox.sleep and shutbox.supply on the real rp2 build (rp2040js with the DORMANT, VBUS and
VSYS model of pico/js/power.js), through the chip's pins: VSYS set on ADC3 and VBUS sense on
GPIO 24 (Emulator.supply), the LEDs' supply switch watched on its GPIO, the frames decoded
from the LED pin, the log on the USB console.

What the emulator shows and what it cannot: the chip really executes MicroPython's
machine.lightsleep() and stops at the crystal's "coma" write, its clock and timer standing
still, until the DORMANT_WAKE registers the firmware armed see Roll's edge; the sleep's
currents, the clock tree that MicroPython winds down and up, and the USB link's suspend are
not modelled (the emulated host keeps the link): the currents come from datasheets in the
bench's power model (shutbox_host.bench.power).
"""

from __future__ import annotations

import logschema
import pytest
from emu_skip import require_emulator

pytestmark = [pytest.mark.node]

require_emulator()

from shutbox import pins  # noqa: E402
from shutbox_host.bench.rp2 import settings_file  # noqa: E402
from shutbox_host.pico import autoplay, fsimage  # noqa: E402
from shutbox_host.pico.emulator import Emulator  # noqa: E402

ALL = (1 << pins.TILES) - 1
IDLE_MS = 60_000  # the sleep setting 1-min
FULL_BAR = "GGGGGGGG" + "." * (pins.TILES - 8)  # 4000 mV: (4000-2800)/(4200-2800) x 9 = 7.7
NOTICE_X = "YY.Y.YY"  # an amber X (face 5): the notice's dice


@pytest.fixture(scope="module")
def image():
    """The firmware's flash with the idle time at its shortest, one minute."""
    return fsimage.build(extra={"/data/settings": settings_file(sleep=1)})


def _checked(emu: Emulator, kinds=("sleep", "wake", "notice")) -> list[dict]:
    """The log's records of *kinds*, each checked against docs/log.schema.json."""
    out = [r for r in emu.log if r["ev"] in kinds]
    for r in out:
        logschema.check({k: v for k, v in r.items() if k != "_ms"})
    return out


def _frames_between(emu: Emulator, t0: float, t1: float):
    return [f for f in emu.frames if t0 <= f.ms < t1]


def _pressed_at(emu: Emulator) -> float:
    """When Roll last went down (ms), from the inputs driven."""
    return max(t / 1e6 for t, lv in emu.inputs if lv.get(pins.ROLL_PIN) == pins.SWITCH_ACTIVE)


def test_idle_sleep_a_glitch_a_flip_while_asleep_and_the_wake_to_the_game(image):
    with Emulator(fs=image, battery_mv=4000) as emu:
        # power-up on the cells: the gauge (8 of 9 tiles green at 4.0 V), then the game
        turn = emu.wait_for(r'"ev": "turn"', timeout_ms=8000)
        gauge = [f for f in emu.frames if f.ms < turn["_ms"]]
        assert gauge[0].key() == (FULL_BAR, "." * 7, "." * 7), gauge[0]
        assert gauge[-1].tiles == "W" * pins.TILES  # the first turn's prompt after it
        assert emu.led_power(gauge[0].ms) == 1
        # a whole turn, the box passed on and the next player's dice thrown: then the box is
        # left alone with a move to make
        score, throw = _left_with_a_throw(emu)
        assert throw["player"] == 2 and throw["moves"] > 0
        last_input = emu.inputs[-1][0] / 1e6
        slept = emu.wait_for(r'"ev": "sleep"', timeout_ms=IDLE_MS + 5000)
        assert slept["why"] == "idle" and slept["mv"] == pytest.approx(4000, abs=10)
        assert IDLE_MS <= slept["_ms"] - last_input < IDLE_MS + 1000
        emu.run(ms=500)
        assert emu.led_power() == 0 and emu.stats()["dormant"]
        asleep = emu.dormancy[-1][0]
        assert emu.dormancy[-1] == (asleep, True) and asleep - slept["_ms"] < 20
        # a tile flipped while it sleeps wakes nothing (only Roll is a wake source)
        k = 9
        emu.shut(k)
        emu.run(ms=1000)
        assert emu.stats()["dormant"] and not _frames_between(emu, slept["_ms"], emu.now_ms)
        # a glitch on Roll shorter than the shortest press (30 ms): the chip wakes, finds
        # no press and sleeps again at once; the LEDs stay off, nothing in the log
        n = len(emu.log)
        emu.press()
        emu.run(ms=10)
        emu.release()
        emu.run(ms=1000)
        woke, back = emu.dormancy[-2:]
        assert not woke[1] and back[1] and back[0] - woke[0] < 60
        assert emu.led_power() == 0 and emu.stats()["dormant"] and len(emu.log) == n
        assert not _frames_between(emu, slept["_ms"], emu.now_ms)
        # a real press wakes it to the game it left, within 300 ms of the press
        emu.click(120)
        pressed = _pressed_at(emu)
        emu.run(ms=1000)
        wake = emu.wait_for(r'"ev": "wake"', since=0)
        resume = emu.wait_for(r'"ev": "resume"', since=0)
        first = _frames_between(emu, pressed, emu.now_ms)[0]
        assert first.ms - pressed <= 300, first.ms - pressed
        assert emu.led_power() == 1 and wake["mv"] == pytest.approx(4000, abs=10)
        assert resume["state"] == "rolling" and resume["player"] == 2  # the throw stands
        assert resume["dice"] == throw["dice"] and resume["open"] == throw["open"]
        assert resume["scores"] == [score["score"], 0]
        # tile k, flipped while it slept, blinks amber as after a power cut, until put back
        emu.run(ms=600)
        seen = {f.tiles[k - 1] for f in _frames_between(emu, pressed, emu.now_ms)}
        assert "Y" in seen, seen
        emu.open(k)
        emu.run(ms=600)
        assert all(f.tiles[k - 1] != "Y" for f in _frames_between(emu, emu.now_ms - 300,
                                                                   emu.now_ms))
        records = _checked(emu)
        assert [r["ev"] for r in records] == ["sleep", "wake"], records
        assert not emu.errors


def _left_with_a_throw(emu: Emulator) -> tuple[dict, dict]:
    """A whole turn, the box passed on and the next player's dice thrown: the first turn's
    record and the throw."""
    score = autoplay.play_turn(emu, autoplay.engine())
    emu.run(ms=750)
    emu.set_open(ALL)
    emu.run(ms=100)
    emu.click(100)
    emu.wait_for(r'"ev": "turn"', timeout_ms=2000, since=len(emu.lines) - 1)
    emu.run(ms=100)
    n = len(emu.lines)
    emu.click(100)
    return score, emu.wait_for(r'"ev": "throw"', timeout_ms=2000, since=n)


@pytest.mark.slow
def test_the_cells_running_down_during_play_warn_then_stop_safely(image):
    """(make soak: a minute of the chip's time at its 20 s checks.)"""
    with Emulator(fs=image, battery_mv=4000) as emu:
        emu.wait_for(r'"ev": "turn"', timeout_ms=8000)
        _, throw = _left_with_a_throw(emu)
        # the cells run low: the notice (tile 5, both dice an amber X) at the next check
        emu.supply(2950)
        t_low = emu.now_ms
        notice = emu.wait_for(r'"ev": "notice"', timeout_ms=25000, since=len(emu.lines))
        assert notice["tiles"] == [5] and notice["_ms"] - t_low <= 20_500
        emu.run(ms=1000)
        warned = _frames_between(emu, notice["_ms"], notice["_ms"] + 1000)
        assert {f.die_a for f in warned} == {NOTICE_X} and "Y" in {f.tiles[4] for f in warned}
        # under the stop's level at two checks running: the game saved, the box sleeps
        emu.supply(2700)
        t_flat = emu.now_ms
        stop = emu.wait_for(r'"ev": "sleep"', timeout_ms=45000, since=len(emu.lines))
        assert stop["why"] == "battery" and stop["mv"] == pytest.approx(2700, abs=10)
        assert stop["_ms"] - t_flat <= 40_500
        emu.run(ms=500)
        assert emu.led_power() == 0 and emu.stats()["dormant"]
        # a press on flat cells: the empty gauge (tile 1 red) a second, then asleep again
        emu.click(120)
        pressed = _pressed_at(emu)
        emu.run(ms=1500)
        empty = _frames_between(emu, pressed, emu.now_ms)
        assert empty and {f.key() for f in empty} == {("R" + "." * (pins.TILES - 1),
                                                       "." * 7, "." * 7)}
        assert emu.led_power() == 0 and emu.stats()["dormant"]
        # new cells: the next press wakes it, the game where it was
        emu.supply(4200)
        n = len(emu.lines)
        emu.click(120)
        back = emu.wait_for(r'"ev": "resume"', timeout_ms=2000, since=n)
        assert back["state"] == "rolling" and back["dice"] == throw["dice"]
        records = _checked(emu)
        kinds = [r["ev"] for r in records if r["ev"] != "notice"]
        assert kinds == ["sleep", "wake"], kinds
        assert {tuple(r["tiles"]) for r in records if r["ev"] == "notice"} == {(5,)}
        assert not emu.errors




def test_flat_cells_at_power_up_stop_safely_and_the_gauge_on_request(image):
    with Emulator(fs=image, battery_mv=2600) as emu:
        stop = emu.wait_for(r'"ev": "sleep"', timeout_ms=8000)
        assert stop["why"] == "battery" and stop["mv"] == pytest.approx(2600, abs=10)
        shown = [f.key() for f in emu.frames if f.ms < stop["_ms"]]
        assert shown == [("R" + "." * (pins.TILES - 1), "." * 7, "." * 7)]
        emu.run(ms=500)
        assert emu.led_power() == 0 and emu.stats()["dormant"]
        assert not [r for r in emu.log if r["ev"] in ("settings", "game", "turn")]
        # new cells and a press: the box starts
        emu.supply(4000)
        emu.click(120)
        turn = emu.wait_for(r'"ev": "turn"', timeout_ms=5000)
        assert turn["player"] == 1
        # Roll held with tile 3 shut at power-up (on USB: no gauge otherwise): the whole bar
        # blue until a press of Roll, then the game
        emu.supply(4700, usb=True)
        emu.shut(3)
        emu.press()
        emu.power_cycle()
        emu.run(ms=1500)
        emu.release()
        emu.run(ms=2000)
        t = emu.now_ms
        held = [f.key() for f in emu.frames if f.ms > turn["_ms"] + 100]
        assert held and set(held) == {("B" * pins.TILES, "." * 7, "." * 7)}, set(held)
        n = len(emu.lines)
        emu.click(120)
        emu.wait_for(r'"ev": "(turn|resume)"', timeout_ms=5000, since=n)
        assert not [r for r in emu.log if r["_ms"] > t and r["ev"] == "sleep"]
        # low cells at power-up: one tile red, then the game with the notice (tile 5)
        emu.supply(2950)
        emu.open(3)
        n, t = len(emu.lines), emu.now_ms
        emu.power_cycle()
        notice = emu.wait_for(r'"ev": "notice"', timeout_ms=8000, since=n)
        assert notice["tiles"] == [5]
        shown = [f.key() for f in emu.frames if t < f.ms < notice["_ms"]]
        assert shown and shown[0] == ("R" + "." * (pins.TILES - 1), "." * 7, "." * 7), shown
        assert [r["ev"] for r in _checked(emu)] == ["sleep", "wake", "notice"]
        assert not emu.errors
