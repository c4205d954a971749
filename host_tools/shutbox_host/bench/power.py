# The power model: what the box draws playing, waiting and asleep, and how long its cells last.
"""figures(soak) -> the power_* figures: currents per state from what the emulated chip does
(measured) and what datasheets and makers give (cited), and the hours and days the cells
last.

**Measured** on the emulated RP2040 (the real rp2 build on rp2040js, shutbox_host.pico), in
one session on the cells (VSYS 4.2 V) with the idle time at one minute:

- ``power_busy_playing``: the core's busy fraction over a recorded game (two people, every
  move the engine's best: autoplay), from the first turn to the winner;
  ``power_busy_idle``: the same over 21 s at the next game's first prompt (a check of the
  cells, every 20 s, falls in it), and ``power_idle_allocs_per_s``: entries into
  MicroPython's gc_alloc a second over it (bench.rp2.find_gc_alloc);
- ``power_led_playing`` / ``power_led_idle``: the LEDs' light over the same spans, from the
  WS2812 frames decoded off the data pin, each lasting until the next: per colour channel
  (red, green, blue) the time-weighted sum over the LEDs of value / 255, i.e. how many
  channels at full they make on average;
- ``power_buzzer_duty_playing``: the buzzer's PWM duty averaged over the game (0 silent);
- ``power_shut_tiles_playing``: tiles shut on average over the game (their pull-ups draw);
- ``power_asleep_fraction``: the time the chip spent DORMANT over 10 s after it went to
  sleep; ``power_wake_ms``: Roll pressed to the first frame after it (a lower bound: the
  emulator has no flash wait states, the crystal's start-up is the firmware's setting).

**Cited** (``SOURCES``: each figure, its source): the RP2040's currents by state, the Pico
asleep, the WS2812B per channel and at rest, the boost's efficiency, the pull-ups, the cells'
capacity. **Estimates** (``ESTIMATES``, each with its basis): the core's current at 125 MHz
(the datasheet gives 48 MHz), the Pico's regulator's efficiency, D1's drop at these
currents, Q2's leakage, the alkaline cells' capacity down to the box's stop.

**Computed**: the current from the cells in each state, at VSYS 4.2 V (the cells' current is
VSYS's: D1 passes it): the Pico (its 3.3 V rail through the regulator), the LEDs and the
74AHCT125 and the buzzer (5 V through the boost), the switch's own (Q3's base, Q2's gate
divider), the tiles' pull-ups; asleep, the Pico DORMANT (a whole board's figure, measured by
a MicroPython developer) for the fraction of the time the emulated chip was, awake the rest,
and Q2's leakage (the boost, the LEDs and the 74AHCT125 have no supply then; the shut tiles'
pulls are turned down). Hours of play on each kind of cell; days asleep.
``rp2040_dvdd_dormant_ma`` is the chip's own share of the board's figure, for comparison.
"""

from __future__ import annotations

from shutbox import pins

VSYS_V = 4.2  # the cells' 1.5 V each less D1, under load: the model's operating point
LED_V = 5.0  # the boost's output

# figure -> (value, unit, source)
SOURCES = {
    "rp2040_dvdd_idle_48mhz_ma": (9.0, "mA", "RP2040 datasheet, 5.7 Power Consumption, table "
                                  "'Power Consumption': BOOTSEL mode, idle, typical DVDD "
                                  "(clk_sys 48 MHz, the core waiting)"),
    "rp2040_dvdd_busy_48mhz_ma": (10.9, "mA", "RP2040 datasheet, 5.7: 'Popcorn' (media "
                                  "player, 48 MHz), typical DVDD: the core busy"),
    "rp2040_iovdd_ma": (1.2, "mA", "RP2040 datasheet, 5.7: BOOTSEL mode, typical IOVDD"),
    "rp2040_dvdd_dormant_ma": (0.18, "mA", "RP2040 datasheet, 5.7: DORMANT, typical DVDD"),
    "pico_dormant_ma": (0.99, "mA", "micropython/micropython pull request #8832 (rp2: "
                        "machine.lightsleep), Peter Hinch's measurement: a Pico drew 990 uA in "
                        "machine.lightsleep(5000), 5 V on VSYS, nothing on USB (that sleep "
                        "keeps the timer's clock; DORMANT stops the crystal too: no more)"),
    "ws2812b_channel_ma": (20.0, "mA", "Worldsemi WS2812B datasheet: 20 mA per colour at "
                           "full (hardware/README.md's budget)"),
    "ws2812b_rest_ma": (1.0, "mA", "PJRC, 'How much current do WS2812 / NeoPixel LEDs really "
                        "use?': just under 1 mA an LED while dark, two kinds measured"),
    "boost_efficiency": (0.80, "", "Pololu U1V1x step-up regulators: typical efficiency 70 % "
                         "to 90 % (the middle taken)"),
    "pullup_kohm": (50.0, "kohm", "RP2040 datasheet, the GPIO pads' electrical "
                    "characteristics: pull-up 50 to 80 kohm (the smallest: the most current)"),
    "alkaline_nominal_mah": (2850.0, "mAh", "Energizer E91 (AA alkaline) product datasheet: "
                             "typical capacity, 25 mA to 0.8 V"),
    "nimh_mah": (1900.0, "mAh", "Panasonic eneloop BK-3MCC (AA NiMH) datasheet: minimum "
                 "capacity"),
}
# figure -> (value, unit, basis)
ESTIMATES = {
    "core_clock_scale": (125 / 48, "", "the core's current taken in proportion to its clock "
                         "(the datasheet's figures are at 48 MHz, the box runs at 125 MHz): an "
                         "upper bound, the static part does not scale"),
    "pico_regulator_efficiency": (0.85, "", "the Pico's buck-boost (RT6150) from VSYS to "
                                  "3.3 V at tens of mA; no figure in the Pico datasheet"),
    "diode_drop_v": (0.3, "V", "1N5817 at 0.1-0.2 A, from its forward characteristic "
                     "(0.45 V at 1 A at most)"),
    "mosfet_leak_ua": (1.0, "uA", "Q2 off: a logic-level P-MOSFET's zero-gate-voltage drain "
                       "current, specified in the uA at 25 degrees C (the NDP6020P's IDSS); "
                       "the 74AHCT125's own tens of uA, awake, are left out"),
    "alkaline_usable_mah": (2000.0, "mAh", "the E91's 2850 mAh (25 mA to 0.8 V) less what "
                            "100-200 mA and the box's stop at about 1.03 V a cell leave in "
                            "the cells"),
}
BUZZER_MA = LED_V / 1.0  # the 1 kohm across the piezo, from +5V, while the transistor is on
BUZZER_BASE_MA = (3.3 - 0.7) / 1.0  # the transistor's base through its 1 kohm
SWITCH_BASE_MA = (3.3 - 0.7) / 10.0  # Q3's base through R6 (10 kohm) while the LEDs are on


def _c(name):
    return SOURCES[name][0]


def _e(name):
    return ESTIMATES[name][0]


# ---- the model -------------------------------------------------------------------------


def pico_ma(busy: float) -> float:
    """The Pico's draw from VSYS awake, the core busy for the fraction *busy*."""
    dvdd = (busy * _c("rp2040_dvdd_busy_48mhz_ma")
            + (1 - busy) * _c("rp2040_dvdd_idle_48mhz_ma")) * _e("core_clock_scale")
    rail = dvdd + _c("rp2040_iovdd_ma")
    return rail * 3.3 / (_e("pico_regulator_efficiency") * VSYS_V)


def five_volt_ma(leds: int, channels: float, buzzer_duty: float) -> float:
    """The 5 V rail's draw from VSYS through the boost: the LEDs at rest and lit (*channels*:
    channels at full, summed over the chain), the buzzer."""
    ma = (leds * _c("ws2812b_rest_ma") + channels * _c("ws2812b_channel_ma")
          + buzzer_duty * BUZZER_MA)
    return ma * LED_V / (_c("boost_efficiency") * VSYS_V)


def awake_ma(busy: float, channels: float, buzzer_duty: float, shut: float) -> dict:
    """Every part's draw from the cells awake (mA), and the total."""
    rail33 = SWITCH_BASE_MA + buzzer_duty * BUZZER_BASE_MA + shut * 3.3 / _c("pullup_kohm")
    parts = {
        "pico": pico_ma(busy),
        "leds_5v": five_volt_ma(pins.TILES + 14, channels, buzzer_duty),
        "gpio_3v3": rail33 * 3.3 / (_e("pico_regulator_efficiency") * VSYS_V),
        "gate_divider": VSYS_V / (100 + 10),  # R4 and R5 while Q3 holds the gate down
    }
    parts["total"] = sum(parts.values())
    return parts


def asleep_ma(fraction: float = 1.0, busy: float = 0.0) -> dict:
    """Every part's draw from the cells asleep (mA), and the total: the Pico DORMANT for the
    *fraction* of the time the emulated chip was, awake (the core busy for *busy*) the rest;
    the LEDs, the 74AHCT125 and the buzzer have no supply (Q2 off: its leakage)."""
    parts = {"pico": fraction * _c("pico_dormant_ma") + (1 - fraction) * pico_ma(busy),
             "mosfet": _e("mosfet_leak_ua") / 1000}
    parts["total"] = sum(parts.values())
    return parts


# ---- what the emulated chip does -------------------------------------------------------


def led_channels(frames, t0: float, t1: float) -> tuple[float, float, float]:
    """(red, green, blue): the time-weighted sum over the LEDs of each channel's value / 255
    between *t0* and *t1* (ms), each frame lasting until the next."""
    order = pins.LED_ORDER
    idx = [order.index(c) for c in "RGB"]
    acc = [0.0, 0.0, 0.0]
    shown = [f for f in frames if f.ms < t1]
    before = [f for f in shown if f.ms <= t0]
    span = ([before[-1]] if before else []) + [f for f in shown if f.ms > t0]
    for i, f in enumerate(span):
        a = max(f.ms, t0)
        b = span[i + 1].ms if i + 1 < len(span) else t1
        if b <= a:
            continue
        raw = f.raw
        for ch in range(3):
            acc[ch] += (b - a) * sum(raw[k + idx[ch]] for k in range(0, len(raw), 3)) / 255
    return tuple(round(v / (t1 - t0), 4) for v in acc)


def tone_duty(tones, t0: float, t1: float) -> float:
    """The buzzer's duty averaged between *t0* and *t1*."""
    acc = 0.0
    cur = 0.0
    last = t0
    for ms, hz, duty in tones:
        if ms >= t1:
            break
        if ms > t0:
            acc += (ms - last) * cur
            last = ms
        cur = duty if hz else 0.0
    acc += (t1 - last) * cur
    return round(acc / (t1 - t0), 5)


def tiles_shut(inputs, t0_ns: int, t1_ns: int) -> float:
    """Tiles shut on average between the two times (ns), from the levels driven."""
    gpio_tile = {pins.TILE_PINS[k]: k for k in range(pins.TILES)}
    level = dict.fromkeys(range(pins.TILES), 1 - pins.SWITCH_ACTIVE)
    acc = 0.0
    last = t0_ns
    for t, lv in inputs:
        if t >= t1_ns:
            break
        if t > t0_ns:
            acc += (t - last) * sum(v == pins.SWITCH_ACTIVE for v in level.values())
            last = t
        for g, v in lv.items():
            if g in gpio_tile:
                level[gpio_tile[g]] = v
    acc += (t1_ns - last) * sum(v == pins.SWITCH_ACTIVE for v in level.values())
    return round(acc / (t1_ns - t0_ns), 3)


def measure(uf2=None, bootrom=None) -> dict:
    """The measured figures (see the module doc)."""
    from shutbox_host.bench.rp2 import find_gc_alloc, settings_file
    from shutbox_host.pico import autoplay, fsimage
    from shutbox_host.pico.emulator import Emulator

    with Emulator(uf2, bootrom) as emu:
        emu.run(ms=300)
        emu.write(b"\r\n")
        emu.prompt(since=0)
        gc_alloc = find_gc_alloc(emu)
    fs = fsimage.build(extra={"/data/settings": settings_file(sleep=1)})
    out: dict = {}
    with Emulator(uf2, bootrom, fs=fs, battery_mv=int(VSYS_V * 1000)) as emu:
        turn = emu.wait_for(r'"ev": "turn"', timeout_ms=8000)
        t0, st0, n0 = turn["_ms"], emu.stats(), emu.now_ns
        win = autoplay.play_game(emu, players=2)
        t1, st1 = win["_ms"], emu.stats()
        out["power_busy_playing"] = round((st1["busy_ns"] - st0["busy_ns"])
                                          / (st1["now"] - st0["now"]), 4)
        out["power_led_playing"] = led_channels(emu.frames, t0, t1)
        out["power_buzzer_duty_playing"] = tone_duty(emu.tones, t0, t1)
        out["power_shut_tiles_playing"] = tiles_shut(emu.inputs, n0, int(t1 * 1e6))
        out["power_game_s"] = round((t1 - t0) / 1000, 1)
        # a new game (Roll held 5 s), all tiles up: its first prompt, left alone
        emu.set_open((1 << pins.TILES) - 1)
        n = len(emu.lines)
        emu.press()
        emu.run(ms=5200)
        emu.release()
        emu.wait_for(r'"ev": "turn"', timeout_ms=3000, since=n)
        emu.run(ms=1000)
        emu.count_entries([gc_alloc])
        t2, st2 = emu.now_ms, emu.stats()
        emu.run(ms=21_000)
        t3, st3 = emu.now_ms, emu.stats()
        out["power_busy_idle"] = round((st3["busy_ns"] - st2["busy_ns"])
                                       / (st3["now"] - st2["now"]), 4)
        allocs = st3["counts"][str(gc_alloc)] - st2["counts"].get(str(gc_alloc), 0)
        out["power_idle_allocs_per_s"] = round(allocs / ((t3 - t2) / 1000), 2)
        out["power_led_idle"] = led_channels(emu.frames, t2, t3)
        slept = emu.wait_for(r'"ev": "sleep"', timeout_ms=70_000)
        emu.run(ms=100)
        st4 = emu.stats()
        emu.run(ms=10_000)
        st5 = emu.stats()
        out["power_asleep_fraction"] = round((st5["dormant_ns"] - st4["dormant_ns"])
                                             / (st5["now"] - st4["now"]), 4)
        out["power_idle_to_sleep_s"] = round((slept["_ms"] - t2 + 1000) / 1000, 1)
        emu.press()
        pressed = emu.now_ms
        emu.run(ms=150)
        emu.release()
        emu.run(ms=500)
        first = next(f for f in emu.frames if f.ms > pressed)
        out["power_wake_ms"] = round(first.ms - pressed, 1)
    return out


def figures(soak=False, uf2=None, bootrom=None):
    """The power_* figures; {} with a note when the emulator cannot run here."""
    from shutbox_host.pico import emulator

    why = emulator.missing()
    if why is not None:
        return {"power_skipped": why}
    out = measure(uf2, bootrom)
    play = awake_ma(out["power_busy_playing"], sum(out["power_led_playing"]),
                    out["power_buzzer_duty_playing"], out["power_shut_tiles_playing"])
    idle = awake_ma(out["power_busy_idle"], sum(out["power_led_idle"]), 0.0, 0.0)
    sleep = asleep_ma(out["power_asleep_fraction"], out["power_busy_idle"])
    out["power_ma_playing"] = round(play["total"], 1)
    out["power_ma_playing_parts"] = {k: round(v, 2) for k, v in play.items()}
    out["power_ma_idle"] = round(idle["total"], 1)
    out["power_ma_idle_parts"] = {k: round(v, 2) for k, v in idle.items()}
    out["power_ma_asleep"] = round(sleep["total"], 3)
    alkaline, nimh = _e("alkaline_usable_mah"), _c("nimh_mah")
    out["power_hours_playing_alkaline"] = round(alkaline / play["total"], 1)
    out["power_hours_playing_nimh"] = round(nimh / play["total"], 1)
    out["power_days_asleep_alkaline"] = round(alkaline / sleep["total"] / 24)
    out["power_days_asleep_nimh"] = round(nimh / sleep["total"] / 24)
    out["power_cited"] = {k: list(v) for k, v in SOURCES.items()}
    out["power_estimated"] = {k: [round(v[0], 4), v[1], v[2]] for k, v in ESTIMATES.items()}
    return out
