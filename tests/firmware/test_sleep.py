# shutbox.sleep's decisions on CPython: the gauge's bar, and when the box may sleep.
"""The gauge's levels and colours, and the Sleeper's choice on a virtual clock: asleep after
the idle time, never while the dice roll or the computer plays, the idle time counted from
the last switch that changed. The hardware (shutbox.supply) is a stand-in here; the real
thing runs on the emulated chip in tests/pico/test_power.py."""

from __future__ import annotations

from shutbox import frame as fr
from shutbox import game, sleep
from shutbox.settings import Settings


def test_the_gauge_s_levels_and_colours():
    """The bar: none at the stop's level or under, every tile from full, at least one in
    between; green, amber under 3.5 V, red under 3.0 V, blue on USB."""
    assert [sleep.level(mv, 9) for mv in (2700, 2800, 2801, 3500, 4000, 4200, 4700)] == [
        0, 0, 1, 5, 8, 9, 9]
    assert sleep.level(4000, 12) == 11
    f = bytearray(fr.size(9))
    bars = []
    for mv, usb in ((4000, False), (3200, False), (2900, False), (2700, False), (0, True)):
        sleep.draw(f, 9, mv, usb)
        bars.append(bytes(fr.NAMES[c] for c in f[:9]).decode())
        assert not any(f[9:])  # the dice dark
    assert bars == ["GGGGGGGG.", "YYY......", "R........", "R........", "BBBBBBBBB"]


class Clock:
    def __init__(self):
        self.t = 0

    def ticks(self):
        return self.t

    def sleep_ms(self, ms):
        self.t += ms


class Supply:
    """The chip's supply on USB (the sleeper polls Roll), VSYS 4700 mV."""

    ok = True
    rp2040 = True

    def __init__(self):
        self.led = [1]

    def usb(self):
        return True

    def vsys_mv(self, radio_off=False):
        return 4700

    def led_power(self, on):
        self.led.append(int(on))


class Board:
    tiles = 9

    def __init__(self, clock):
        self.clock = clock
        self.press_at = None  # Roll goes down then (a Roll press wakes the sleeper)

    def reader(self):
        return lambda: 0

    def roll(self):
        return self.press_at is not None and self.clock.t >= self.press_at

    def tone(self, hz, ms=0):
        pass

    def show(self, f):
        pass

    def watchdog_stop(self):
        pass


class App:
    def __init__(self, state, cpu=None):
        self.game = type("G", (), {"state": state, "cpu": cpu})()
        self.tally = [0]
        self.steps = 0

    def step(self, now, levels=-1):
        self.steps += 1

    def wait(self, now):
        return 60000

    def notice(self, reasons, now):
        pass


class Cpu:
    def __init__(self, playing):
        self.on = playing

    def playing(self):
        return self.on


def _box(app):
    clock = Clock()
    board = Board(clock)
    apps = [app]
    out = []
    s = sleep.Sleeper(board, lambda now, safe: apps[-1], 0, None, False, Supply(),
                      Settings(sleep=1), clock.ticks, clock.sleep_ms, 0)
    s.out = lambda text: out.append(text) or times.append(clock.t)
    times = s.times = []
    return s, clock, board, out, apps


def _run(s, clock, until):
    """Step the sleeper as Guard.forever would with nothing changing, up to *until* ms."""
    while clock.t < until:
        s.step(clock.t)
        clock.t += max(1, s.wait(clock.t))


def test_asleep_after_the_idle_time_and_awake_at_a_press():
    s, clock, board, out, apps = _box(App(game.MOVE))
    board.press_at = 90_000
    _run(s, clock, 100_000)
    assert out[0] == '{"ev": "sleep", "why": "idle", "mv": 4700}'
    assert out[1] == '{"ev": "wake", "mv": 4700}'
    assert s.supply.led == [1, 0, 1]  # the LEDs' supply off, then on again
    # asleep at 60 s (the setting: one minute), awake once Roll was down 30 ms and the
    # supply's ramp had run (60 ms)
    assert 60_000 <= s.times[0] < 61_000 and 90_030 <= s.times[1] < 90_200
    assert len(apps) == 1 and apps[0].steps > 0  # the app made anew from make()


def test_never_while_the_dice_roll_or_the_computer_plays():
    for app in (App(game.ROLLING), App(game.MOVE, Cpu(True))):
        s, clock, board, out, apps = _box(app)
        _run(s, clock, 300_000)
        assert out == [] and s.supply.led == [1]
    s, clock, board, out, apps = _box(App(game.MOVE, Cpu(False)))
    board.press_at = 61_000
    _run(s, clock, 70_000)
    assert out[0].startswith('{"ev": "sleep", "why": "idle"')


def test_the_idle_time_counts_from_the_last_change():
    s, clock, board, out, apps = _box(App(game.READY))
    _run(s, clock, 50_000)
    s.step(clock.t, 1)  # a tile flipped at 50 s: the guard steps at the change
    _run(s, clock, 109_000)
    assert out == []
    board.press_at = 120_000
    _run(s, clock, 125_000)
    assert out and out[0].startswith('{"ev": "sleep"')


class PicoWMachine:
    """A Pico W's machine as far as VSYS goes: GPIO 29 is ADC3 and also the radio's clock; a
    FET joins the VSYS divider (/3) to it only while the radio's chip select (GPIO 25) is
    driven high (the Pico W's schematic); otherwise ADC3 reads the clock line, held low."""

    def __init__(self, vsys_mv):
        self.vsys_mv = vsys_mv
        self.calls = []
        self.cs_high = False
        machine = self

        class Pin:
            IN, OUT, ALT, PULL_DOWN = 0, 1, 3, 2

            def __init__(self, gpio, mode=-1, value=None, pull=None, alt=None):
                machine.calls.append(("Pin", gpio, mode, value, pull, alt))
                if gpio == 25 and mode == Pin.OUT:
                    machine.cs_high = value == 1

        class ADC:
            def __init__(self, gpio):
                machine.calls.append(("ADC", gpio))
                assert gpio == 29

            def read_u16(self):
                mv = machine.vsys_mv // 3 if machine.cs_high else 0
                return mv * 65535 // 3300

        self.Pin, self.ADC = Pin, ADC
        self.lightsleep = lambda: None


def test_vsys_on_a_pico_w_only_with_the_radio_off_its_chip_select_high_then_the_pin_back():
    from shutbox import supply

    m = PicoWMachine(4200)
    s = supply.Supply(m)
    s.wireless = True  # sys.implementation._machine names a Pico W on the chip
    assert s.vsys_mv() == -1 and m.calls == []  # the radio may run: GPIO 29 is its clock
    assert abs(s.vsys_mv(radio_off=True) - 4200) <= 10
    kinds = [c[:2] for c in m.calls]
    assert kinds == [("Pin", 25), ("ADC", 29), ("Pin", 29)], m.calls
    assert m.calls[0][2:4] == (m.Pin.OUT, 1)  # chip select high before the ADC reads
    assert m.calls[-1][2:] == (m.Pin.ALT, None, m.Pin.PULL_DOWN, 7)  # back to the radio
    # a plain Pico: ADC3 is VSYS's alone, GPIO 25 is not the radio's to touch
    m = PicoWMachine(3300)
    m.cs_high = True  # a Pico's divider is always joined
    s = supply.Supply(m)
    assert abs(s.vsys_mv() - 3300) <= 10 and [c[:2] for c in m.calls] == [("ADC", 29)]


class RadioMachine:
    """A Pico W's machine as far as its radio's start goes (cyw43-driver at MicroPython
    v1.28): the boot drives WL_REG_ON (GPIO 23, SIO GPIO_OUT) low; any read of a WL_GPIO pin
    starts the radio unless it runs (REG_ON high), and a failed start leaves it stopped, so
    the next read starts it again; WLAN.config("mac") gives cyw43_state.mac, zero until a
    start worked. *radio*: a radio that starts; *vbus*: WL_GPIO2's level."""

    def __init__(self, radio, vbus=1):
        self.radio, self.vbus = radio, vbus
        self.up = False
        self.starts = 0
        self.mac = bytes(6)
        self.mem32 = {0xD0000010: 0}
        machine = self

        class Pin:
            IN = 0

            def __init__(self, name, mode=-1):
                assert name == "WL_GPIO2" and mode == Pin.IN, name

            def value(self):
                if not machine.up:
                    machine.starts += 1
                    machine.mem32[0xD0000010] |= 1 << 23
                    machine.up = machine.radio
                    if machine.up:
                        machine.mac = b"\x28\xcd\xc1\x00\x00\x01"
                return machine.vbus if machine.up else 0

        class WLAN:
            def config(self, what):
                assert what == "mac"
                return machine.mac

        self.Pin = Pin
        self.network = type("network", (), {"WLAN": WLAN})


def test_a_pico_w_starts_its_radio_once_and_without_it_counts_as_on_usb(monkeypatch):
    """No radio (the emulated chip, a broken module): one start at the first reading, none
    after it (a second start is what hung on the emulated chip), and the box counts as on
    USB, for the power-up's Supply and the loop's alike. A radio that runs: WL_GPIO2 read at
    every call, VBUS as it is."""
    import sys

    from shutbox import supply

    for radio in (False, True):
        m = RadioMachine(radio, vbus=0)
        monkeypatch.setitem(sys.modules, "network", m.network)
        usb = []
        for _ in range(2):  # shutbox.sleep.prelude's Supply, then main's
            s = supply.Supply(m)
            s.wireless = True  # sys.implementation._machine names a Pico W on the chip
            usb += [s.usb(), s.usb()]
            m.vbus = 1
        assert m.starts == 1
        assert usb == ([True] * 4 if not radio else [False, False, True, True])
