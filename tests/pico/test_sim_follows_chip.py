# The simulated board against the real rp2 port: the same probes on both give the same answers.
"""Issue 11 item 7: the simulated board (host_tools/shutbox_host/box/sim: machine, neopixel,
simbus, simtime, on the unix port) follows what the real MicroPython rp2 build does on the
emulated RP2040, probe by probe: the 2**30 tick wrap, the watchdog's limits, the pins as static
objects, PWM's frequency and duty as the chip rounds them, its slices shared by two channels,
SIO's GPIO_IN read through machine.mem32 (the box's loop reads the switches so), and the time a
WS2812 frame keeps the core busy (machine.bitstream). Each line is printed by the same code on
both; the chip's answers are the reference, none is written here.
"""

from __future__ import annotations

import pytest
from emu_skip import require_emulator

pytestmark = [pytest.mark.node]

require_emulator()

from shutbox import pins  # noqa: E402
from shutbox_host import mp  # noqa: E402
from shutbox_host.box import boxsim  # noqa: E402
from shutbox_host.pico.emulator import Emulator  # noqa: E402

PROBE = """\
import time, machine
from machine import Pin, PWM
def err(f):
    try:
        f()
        return 'ok'
    except Exception as e:
        return '%s: %s' % (type(e).__name__, e)
print('@ticks', time.ticks_add(0, -1), time.ticks_diff(0, time.ticks_add(0, -1)),
      time.ticks_add(1 << 29, (1 << 29) - 1), time.ticks_diff(1 << 29, 0),
      err(lambda: time.ticks_add(0, 1 << 29)))
print('@wdt', err(lambda: machine.WDT(timeout=8389)), err(lambda: machine.WDT(1, 1000)))
print('@pin', Pin(5) is Pin(5), err(lambda: Pin(30)))
a = PWM(Pin(18))  # slice 1, channels A and B: GPIOs the box leaves free
print('@pwm same', a is PWM(Pin(18)))
a.freq(123457)
print('@pwm freq', a.freq())
a.freq(2000)
a.duty_u16(4096)
print('@pwm duty', a.freq(), a.duty_u16())
a.freq(1234)
print('@pwm duty again', a.freq(), a.duty_u16())
b = PWM(Pin(19))
b.freq(1000)
b.duty_u16(32768)
print('@pwm slice', a.freq(), b.freq(), a.duty_u16(), b.duty_u16())
print('@pwm small', err(lambda: a.freq(7)))
a.deinit()
b.deinit()
t1 = Pin(TILE1, Pin.IN, Pin.PULL_UP)  # tile 1's switch: open (driven high, or pulled up)
print('@gpio_in', machine.mem32[0xd0000004] >> TILE1 & 1, t1.value())
import neopixel
np = neopixel.NeoPixel(Pin(LED_PIN), LEDS)
np[0] = (1, 2, 3)
t = time.ticks_us()
np.write()
dt = time.ticks_diff(time.ticks_us(), t)
print('@bitstream', (dt + 125) // 250)  # quarter ms
print('@END')
""".replace("LED_PIN", str(pins.LED_PIN)).replace("LEDS", str(pins.TILES + 14)) \
    .replace("TILE1", str(pins.TILE_PINS[0]))

# then tile 1 is shut (its GPIO driven low from outside)
PROBE2 = """\
print('@gpio_in', machine.mem32[0xd0000004] >> TILE1 & 1, t1.value())
print('@END')
"""
PROBE2 = PROBE2.replace("TILE1", str(pins.TILE_PINS[0]))

# the simulated board as boxrun sets it up: rp2's time on a virtual clock that the core's
# busy time (the bitstream) advances
SIM_PRELUDE = """\
import sys, simbus, simtime
sys.modules['time'] = simtime
_now = [0]
def _adv(ms):
    _now[0] += ms
simbus.clock = lambda: _now[0]
simbus.advance = _adv
"""


def _answers(text: str) -> list[str]:
    """The probe's answers: its lines marked @ (not the paste mode's echo of the code)."""
    lines = [x.strip() for x in text.splitlines() if x.startswith("@")]
    assert lines and lines[-1] == "@END", text
    return lines[:-1]


def test_the_simulated_board_answers_the_probes_as_the_chip_does(tmp_path):
    with Emulator() as emu:  # a blank board: MicroPython only
        emu.run(ms=300)
        emu.write(b"\r\n")
        emu.prompt(since=0)
        chip = _answers(emu.exec(PROBE))
        emu.shut(1)
        emu.run(ms=10)
        chip += _answers(emu.exec(PROBE2))
    script = tmp_path / "probe.py"
    script.write_text(SIM_PRELUDE + PROBE.replace("print('@END')\n", "")
                      + "simbus.set_level(%d, 0)\n" % pins.TILE_PINS[0] + PROBE2)
    r = mp.run(script, extra_path=[boxsim.build()], heapsize="256k")
    assert r.returncode == 0, r.stderr
    sim = _answers(r.stdout)
    # rp2: a 2**30 period; a delta of half of it or more is refused
    assert chip[0] == ("@ticks 1073741823 1 1073741823 -536870912 "
                       "OverflowError: ticks interval overflow")
    assert sim == chip
