# The simulated rp2 board itself: Pin, PWM, WDT, Timer and NeoPixel behave as on the Pico.
"""Run under micropython with host_tools/shutbox_host/box/sim on the path (it shadows machine).

Prints one line per failed check, then "CHECKS <n> FAIL <n>".
"""

import time

import machine
import neopixel
import simbus

checks = 0
fails = 0


def check(ok, what):
    global checks, fails
    checks += 1
    if not ok:
        fails += 1
        print("FAIL", what)


def raises(fn, exc=ValueError):
    try:
        fn()
    except exc:
        return True
    return False


Pin = machine.Pin
check(Pin.IN == 0 and Pin.OUT == 1 and Pin.PULL_UP == 1 and Pin.PULL_DOWN == 2, "constants")
check(Pin.IRQ_FALLING == 4 and Pin.IRQ_RISING == 8, "irq constants")
p = Pin(5, Pin.IN, Pin.PULL_UP)
check(p.value() == 1, "a pulled-up input reads 1")
simbus.set_level(5, 0)
check(p.value() == 0 and p() == 0, "a switch to GND reads 0")
simbus.release(5)
check(Pin(5).value() == 1, "released: the pull-up decides again")
check(Pin(6, Pin.IN, Pin.PULL_DOWN).value() == 0, "pull-down reads 0")
o = Pin("GP7", Pin.OUT, value=1)
check(o.value() == 1, "an output reads back what it drives")
o.off()
check(Pin(7).value() == 0, "the same GPIO seen through a second Pin object")
check(raises(lambda: Pin(30)), "GPIO 30 does not exist")
check(raises(lambda: Pin(3, 9)), "a bad mode")
seen = []
q = Pin(8, Pin.IN, Pin.PULL_UP)
q.irq(lambda pin: seen.append(pin.value()), Pin.IRQ_FALLING)
simbus.set_level(8, 0)
simbus.set_level(8, 1)
simbus.set_level(8, 0)
check(seen == [0, 0], "IRQ_FALLING fires on falling edges only")

pwm = machine.PWM(Pin(15))
check(simbus.tone() == 0, "a new PWM is silent")
pwm.freq(880)
pwm.duty_u16(32768)
check(pwm.freq() == 880 and pwm.duty_u16() == 32768 and simbus.tone() == 880, "PWM")
check(raises(lambda: pwm.freq(2)), "below 8 Hz is refused")
pwm.deinit()
check(simbus.tone() == 0, "deinit stops it")

now = [1000]
simbus.clock = lambda: now[0]
check(raises(lambda: machine.WDT(timeout=9000)), "rp2's watchdog tops out at 8388 ms")
w = machine.WDT(timeout=100)
now[0] = 1090
check(not simbus.wdt_expired(), "fed in time")
w.feed()
now[0] = 1180
check(not simbus.wdt_expired(), "fed again at 1090")
now[0] = 1300
check(simbus.wdt_expired(), "starved")

ticks = []
t = machine.Timer(period=50, mode=machine.Timer.PERIODIC, callback=lambda tm: ticks.append(1))
now[0] = 1460
simbus.run_timers()
check(len(ticks) == 3, "a periodic timer fires every 50 ms")
t.deinit()
one = []
machine.Timer(mode=machine.Timer.ONE_SHOT, period=10, callback=lambda tm: one.append(1))
now[0] = 2000
simbus.run_timers()
simbus.run_timers()
check(one == [1], "a one-shot timer fires once")
simbus.clock = time.ticks_ms

np = neopixel.NeoPixel(Pin(16), 3)
np[1] = (10, 20, 30)
check(np.buf == bytearray(b"\x00\x00\x00\x14\x0a\x1e\x00\x00\x00"), "GRB order in buf")
check(np[1] == (10, 20, 30) and len(np) == 3, "getitem and len")
np.fill((1, 2, 3))
writes = simbus.writes
np.write()
check(simbus.writes == writes + 1 and simbus.leds == b"\x02\x01\x03" * 3, "write")
check(len(machine.unique_id()) == 8 and machine.reset_cause() == machine.PWRON_RESET, "misc")
check(raises(machine.reset, SystemExit) and simbus.resets == 1, "reset stops the program")
print("CHECKS %d FAIL %d" % (checks, fails))
