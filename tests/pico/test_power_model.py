# The bench's power model (shutbox_host.bench.power) on CPython: its sums, and its sources.
"""The model's arithmetic against sums done here by hand from its cited figures, what it reads
from the emulated chip's frames, tones and inputs on made-up ones, and every figure it uses
named with its source or its basis. (The emulated chip's own part runs in `shutbox bench`.)"""

from __future__ import annotations

import pytest

from shutbox import pins
from shutbox_host.bench import power as P
from shutbox_host.pico.emulator import Frame

LEDS = pins.TILES + 14


def test_every_figure_has_its_source_or_basis():
    for table in (P.SOURCES, P.ESTIMATES):
        for name, (value, unit, source) in table.items():
            assert isinstance(value, (int, float)) and value > 0, name
            assert isinstance(unit, str) and len(source) > 30, name
    assert not set(P.SOURCES) & set(P.ESTIMATES)


def test_the_sums_by_hand():
    c = {k: v[0] for k, v in P.SOURCES.items()}
    e = {k: v[0] for k, v in P.ESTIMATES.items()}
    # the Pico waiting: DVDD scaled to 125 MHz, IOVDD, through the 85 % regulator at 4.2 V
    pico = (9.0 * 125 / 48 + 1.2) * 3.3 / (0.85 * 4.2)
    assert P.pico_ma(0.0) == pytest.approx(pico)
    assert P.pico_ma(1.0) == pytest.approx((10.9 * 125 / 48 + 1.2) * 3.3 / (0.85 * 4.2))
    # the LEDs dark: 1 mA each at 5 V through the 80 % boost; lit: 20 mA a channel at full
    dark = LEDS * 1.0 * 5 / (0.8 * 4.2)
    assert P.five_volt_ma(LEDS, 0.0, 0.0) == pytest.approx(dark)
    assert P.five_volt_ma(LEDS, 2.5, 0.0) - dark == pytest.approx(2.5 * 20 * 5 / (0.8 * 4.2))
    assert P.five_volt_ma(LEDS, 0.0, 0.5) - dark == pytest.approx(0.5 * 5.0 * 5 / (0.8 * 4.2))
    awake = P.awake_ma(0.0, 0.0, 0.0, 0.0)
    assert awake["total"] == pytest.approx(sum(v for k, v in awake.items() if k != "total"))
    assert awake["gate_divider"] == pytest.approx(4.2 / 110)
    assert P.awake_ma(0.0, 0.0, 0.0, 4.0)["gpio_3v3"] - awake["gpio_3v3"] == pytest.approx(
        4 * 3.3 / c["pullup_kohm"] * 3.3 / (e["pico_regulator_efficiency"] * 4.2))
    asleep = P.asleep_ma()
    assert asleep["total"] == pytest.approx(c["pico_dormant_ma"] + e["mosfet_leak_ua"] / 1000)
    # DORMANT 99 % of the time, awake and waiting (2.5 % busy) the rest
    part = P.asleep_ma(0.99, 0.025)["pico"]
    assert part == pytest.approx(0.99 * c["pico_dormant_ma"] + 0.01 * P.pico_ma(0.025))
    assert c["rp2040_dvdd_dormant_ma"] < c["pico_dormant_ma"] < P.pico_ma(0.0)


def _frame(ms, rgb):
    order = pins.LED_ORDER
    raw = bytes(rgb["RGB".index(ch)] for _ in range(LEDS) for ch in order)
    return Frame(ms, "", "", "", raw)


def test_what_it_reads_from_the_chip():
    frames = [_frame(0.0, (255, 0, 51)), _frame(1000.0, (0, 0, 0)), _frame(3000.0, (0, 255, 0))]
    # 1 s of red at full and blue at a fifth on every LED, then 1 s dark, over 2 s
    assert P.led_channels(frames, 0.0, 2000.0) == pytest.approx((LEDS * 0.5, 0.0, LEDS * 0.1))
    # a window starting inside the first frame takes it from the window's start
    assert P.led_channels(frames, 500.0, 1500.0) == pytest.approx((LEDS * 0.5, 0.0, LEDS * 0.1))
    tones = [(100.0, 440.0, 0.5), (300.0, 0.0, 0.0), (900.0, 880.0, 0.0625)]
    assert P.tone_duty(tones, 0.0, 1000.0) == pytest.approx((200 * 0.5 + 100 * 0.0625) / 1000)
    shut = pins.SWITCH_ACTIVE
    g1, g2 = pins.TILE_PINS[0], pins.TILE_PINS[1]
    inputs = [(0, {g1: shut}), (int(500e6), {g2: shut}), (int(750e6), {g1: 1 - shut})]
    # tile 1 shut 0-750 ms, tile 2 from 500 ms: over 1 s, 0.75 + 0.5 tiles on average
    assert P.tiles_shut(inputs, 0, int(1000e6)) == pytest.approx(1.25)
