# The simulated board's state hub: a harness sets input levels and reads what the firmware did.
"""Shared state of the fake rp2 modules (machine, neopixel) for the simulated box.

Inputs: ``set_level(gpio, v)`` drives a GPIO as an outside switch would, ``release(gpio)``
lets its pull resistor decide again. Outputs: ``leds`` holds the last bytes sent down the
WS2812 chain (``writes`` counts them), ``pwm`` each PWM pin's [freq, duty_u16, running],
``tone()`` what the buzzer plays; ``wdt`` is the watchdog's [timeout, last feed, feeds].
``clock`` is the time source of the fake watchdog and timers; a harness with a virtual clock
replaces it. Small and preallocated: it shares the tests' 64 KB heap with the firmware, and
reading a pin or writing the LEDs must not allocate.
"""

import time

_N = 30  # GPIO0..GPIO29
mode = bytearray(_N)  # Pin.IN / OUT / OPEN_DRAIN / ALT
pull = bytearray(_N)  # 0, Pin.PULL_UP, Pin.PULL_DOWN
out = bytearray(_N)  # the level an output drives
ext = bytearray(b"\xff" * _N)  # the level driven from outside (0xff: nothing drives it)
irq = {}  # gpio -> (handler, trigger, pin)

leds = bytearray(0)
writes = 0
pwm = {}
buzzer_pin = 15  # the PWM pin tone() reports; a harness sets it from shutbox.pins
wdt = [0, 0, 0]
reset_cause = 1  # machine.PWRON_RESET
resets = 0
timers = []
clock = time.ticks_ms


def read(gpio):
    """Return the level the firmware reads on *gpio*."""
    if mode[gpio] == 1:
        return out[gpio]
    if ext[gpio] != 255:
        return ext[gpio]
    return 1 if pull[gpio] == 1 else 0


def set_level(gpio, level):
    """Drive *gpio* from outside (a switch), or release it with level None."""
    before = read(gpio)
    ext[gpio] = 255 if level is None else (1 if level else 0)
    after = read(gpio)
    h = irq.get(gpio)
    if h is not None and before != after and h[1] & (8 if after else 4):
        h[0](h[2])  # Pin.IRQ_RISING = 8, IRQ_FALLING = 4


def release(gpio):
    """Stop driving *gpio* from outside."""
    set_level(gpio, None)


def record_bitstream(gpio, data):
    """Keep a copy of a NeoPixel write (no allocation once the size is known)."""
    global leds, writes
    if len(leds) != len(data):
        leds = bytearray(len(data))
    leds[:] = data
    writes += 1


def tone():
    """Return the buzzer's frequency while it sounds, else 0."""
    st = pwm.get(buzzer_pin)
    return st[0] if st is not None and st[2] and st[1] else 0


def wdt_expired(now=None):
    """Return True if a started watchdog has gone unfed for longer than its timeout."""
    now = clock() if now is None else now
    return wdt[0] > 0 and time.ticks_diff(now, wdt[1]) > wdt[0]


def run_timers(now=None):
    """Fire every due machine.Timer callback (a harness calls this as its clock runs)."""
    now = clock() if now is None else now
    for t in list(timers):
        while t._cb is not None and time.ticks_diff(now, t._due) >= 0:
            cb = t._cb
            if t._mode == 0:  # ONE_SHOT
                t._cb = None
                timers.remove(t)
            else:
                t._due = time.ticks_add(t._due, t._period)
            cb(t)
