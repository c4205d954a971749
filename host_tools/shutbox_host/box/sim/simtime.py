# rp2's `time` for the simulated box: its 2**30 ms tick period, on the simulated board's clock.
"""The parts of MicroPython's ``time`` the firmware uses, as the Pico's rp2 port gives them.

On rp2 ``ticks_ms``/``ticks_us`` wrap at 2**30 (``MICROPY_PY_TIME_TICKS_PERIOD`` is the small
int range of a 32-bit port: ticks_add(0, -1) is 1073741823); on the 64-bit unix port the
simulated board runs on they wrap at 2**62, so a firmware storing ticks in 32-bit words, or
relying on the wrap, would pass on the host and fail on the Pico. boxrun installs this module
as ``time`` before the firmware loads. The clock is ``simbus.clock`` (ms) plus
``simbus.us`` (µs within that ms, which the LED chain's bitstream advances: it blocks the
core for every bit it sends, as on the Pico); ``sleep_ms`` is ``simbus.sleep`` (the
harness's: in boxrun --main its commands run there).
"""

import time as _host

import simbus

_MASK = (1 << 30) - 1
ticks_add = simbus.ticks_add
ticks_diff = simbus.ticks_diff


def ticks_ms():
    return simbus.clock() & _MASK


def ticks_us():
    return (simbus.clock() * 1000 + simbus.us) & _MASK


def ticks_cpu():
    return ticks_us()


def sleep_ms(ms):
    if ms > 0:
        simbus.sleep(ms)


def sleep_us(us):
    if us > 0:
        simbus.busy_us(us)


def sleep(s):
    sleep_ms(int(s * 1000))


time = _host.time
gmtime = _host.gmtime
localtime = _host.localtime
mktime = _host.mktime
