# Fake rp2 `machine` module for the simulated box: shadows the unix port's own `machine` module.
"""The parts of rp2's ``machine`` the firmware uses, with the Pico's signatures and behaviour.

State lives in ``simbus``, where a harness sets input levels and reads outputs. As on the
Pico's rp2 port (MicroPython v1.28, the probes of tests/pico/test_sim_follows_chip.py):

- a Pin, a PWM channel and the WDT are static objects (``Pin(n)`` is the same object every
  time, made here at import): on the Pico they are C data, not the firmware's heap;
- GPIO outside 0..29 is ValueError("invalid pin");
- PWM: the two channels of a slice (GPIO 2k, 2k+1) share its frequency and its enable; the
  frequency and the duty are rp2's integers (divider in 1/16, TOP at most 65534, rounding
  as ports/rp2/machine_pwm.c), so freq() and duty_u16() read back what the chip does
  (123457 Hz reads 123518); below 8 Hz is ValueError("freq too small"); a new PWM reads 0 Hz
  and does not run until its frequency is set; deinit stops the whole slice;
- WDT: id 0 only (ValueError "WDT(1) doesn't exist"), timeout 0..8388 ms (a larger or
  negative one: ValueError "timeout exceeds 8388"); 0 resets the chip at once;
- machine.bitstream takes the time of the bits it sends (simbus.record_bitstream).

Kept small: the tests run the firmware and this board together on a 64 KB heap.
"""

import simbus

PWRON_RESET = 1
WDT_RESET = 3
_GPIOS = 30
_SYS_HZ = 125_000_000  # clk_sys
_TOP_MAX = 65534  # rp2's largest TOP: 65535 then still gives a 100 % duty


class Pin:
    """A GPIO, as rp2's machine.Pin(id, mode=-1, pull=-1, *, value=None, drive, alt): one
    static object per GPIO (rp2's machine_pin_obj_table)."""

    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    ALT = 3
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __new__(cls, id, *args, **kw):
        if isinstance(id, str) and id[:2] == "GP":
            id = int(id[2:])
        if not isinstance(id, int) or not 0 <= id < _GPIOS:
            raise ValueError("invalid pin")
        return _PINS[id]

    def __init__(self, id, mode=-1, pull=-1, *, value=None, drive=0, alt=-1):
        self.init(mode, pull, value=value)

    def init(self, mode=-1, pull=-1, *, value=None, drive=0, alt=-1):
        """Re-configure; arguments left at -1 / None keep their setting."""
        if mode is not None and mode != -1:
            if not 0 <= mode <= 3:
                raise ValueError("invalid pin mode")
            simbus.mode[self._id] = mode
        if pull != -1:
            simbus.pull[self._id] = pull or 0
        if value is not None:
            self.value(value)

    def value(self, x=None):
        """Read the level, or drive an output with x."""
        if x is None:
            return simbus.read(self._id)
        simbus.out[self._id] = 1 if x else 0

    __call__ = value

    def on(self):
        self.value(1)

    def off(self):
        self.value(0)

    def irq(self, handler=None, trigger=IRQ_FALLING | IRQ_RISING, hard=False):
        """Call handler(pin) on the chosen edges of levels set through simbus."""
        simbus.irq[self._id] = (handler, trigger, self)
        if handler is None:
            del simbus.irq[self._id]


_PINS = []  # rp2's static Pin objects: made here, as the chip's are C data (no firmware heap)
for _g in range(_GPIOS):
    _p = object.__new__(Pin)
    _p._id = _g
    _PINS.append(_p)


class PWM:
    """A PWM channel, as rp2's machine.PWM(dest, *, freq, duty_u16, duty_ns, invert): one
    static object per channel (slice = GPIO >> 1 & 7, channel A or B = GPIO & 1); the slice's
    divider, TOP and enable are shared by its two channels (simbus.pwm_slices). State per
    GPIO for the harness: simbus.pwm[gpio] = [Hz, duty_u16, running] as the pin outputs it."""

    def __new__(cls, dest, *args, **kw):
        gpio = dest._id if isinstance(dest, Pin) else Pin(dest)._id
        ch = _CHANNELS[(gpio >> 1 & 7) * 2 + (gpio & 1)]
        ch._gpio = gpio
        ch._type = 0  # no duty set (rp2's make_new)
        return ch

    def __init__(self, dest, *, freq=None, duty_u16=None, duty_ns=None, invert=False):
        self.init(freq=freq, duty_u16=duty_u16)
        simbus.mode[self._gpio] = 3  # the pin's function is PWM

    def init(self, *, freq=None, duty_u16=None, duty_ns=None, invert=False):
        if freq is not None:
            self.freq(freq)
        if duty_u16 is not None:
            self.duty_u16(duty_u16)
        self._show()

    def _slice(self):
        return simbus.pwm_slices[self._n >> 1]

    def freq(self, value=None):
        """Return or set the frequency in Hz: rp2's divider (1/16 steps) and TOP, the
        readback rounded as there (0 before it is set)."""
        sl = self._slice()
        if value is None:
            if not sl[2]:
                return 0
            d = sl[0] * (sl[1] + 1)
            return (16 * _SYS_HZ + d // 2) // d
        if (_SYS_HZ + value // 2) // value < _TOP_MAX:
            div16 = 16
            top = (_SYS_HZ + value // 2) // value - 1
        else:
            d = _TOP_MAX * value
            div16 = (16 * _SYS_HZ + d - 1) // d
            d = div16 * value
            top = (16 * _SYS_HZ + d // 2) // d - 1
        if div16 < 16:
            raise ValueError("freq too large")
        if div16 >= 256 * 16:
            raise ValueError("freq too small")
        sl[0] = div16
        sl[1] = top
        sl[2] = 1
        n = self._n & ~1
        for k in range(n, n + 2):  # rp2: both channels' duty again (a range allocates nothing)
            ch = _CHANNELS[k]
            if ch._type:
                ch.duty_u16(ch._duty)

    def duty_u16(self, value=None):
        """Return or set the duty, 0..65535 (more is 65535): the compare level rounded to
        the slice's TOP, the readback rounded back as rp2 does."""
        sl = self._slice()
        if value is None:
            if not self._type or not sl[2]:
                return 0
            return (self._cc * 65535 + (sl[1] + 1) // 2) // (sl[1] + 1)
        if value > 65535:
            value = 65535
        self._cc = ((value * (sl[1] + 1) + 32767) & 0xFFFFFFFF) // 65535 & 0xFFFF
        self._duty = value
        self._type = 1
        if sl[2]:
            sl[3] = 1  # a frequency and a duty: the slice runs
        self._show()

    def deinit(self):
        """Stop the slice: both its channels (rp2's pwm_set_enabled(slice, false))."""
        self._slice()[3] = 0
        self._show()
        other = _CHANNELS[self._n ^ 1]
        if other._gpio >= 0:
            other._show()

    def _show(self):
        st = simbus.pwm.get(self._gpio)
        if st is None:
            st = simbus.pwm[self._gpio] = [0, 0, 0]
        sl = self._slice()
        st[0] = self.freq()
        st[1] = self.duty_u16()
        st[2] = sl[3]


_CHANNELS = []  # rp2's static PWM objects, 2 a slice (made here, as the Pins)
for _g in range(16):
    _c = object.__new__(PWM)
    _c._n = _g
    _c._gpio = -1
    _c._type = 0
    _c._duty = 0
    _c._cc = 0
    _CHANNELS.append(_c)
del _g, _p, _c


class WDT:
    """The watchdog, as rp2's machine.WDT(id=0, timeout=5000): one static object; see
    simbus.wdt_expired()."""

    def __new__(cls, id=0, timeout=5000):
        if id != 0:
            raise ValueError("WDT(%d) doesn't exist" % id)
        if not 0 <= timeout <= 8388:  # rp2: a uint32, so negative is too large too
            raise ValueError("timeout exceeds 8388")
        return _WDT

    def __init__(self, id=0, timeout=5000):
        simbus.wdt[0] = timeout
        self.feed()
        if timeout == 0:  # a load of 0: the watchdog resets the chip at once
            simbus.watchdog_reset(1)

    def feed(self):
        simbus.wdt[1] = simbus.clock()
        simbus.wdt[2] += 1


_WDT = object.__new__(WDT)


class Timer:
    """A software timer, as rp2's machine.Timer; simbus.run_timers() fires it."""

    ONE_SHOT = 0
    PERIODIC = 1

    def __init__(self, id=-1, *, mode=PERIODIC, period=-1, freq=-1, callback=None):
        self._cb = None
        if callback is not None:
            self.init(mode=mode, period=period, freq=freq, callback=callback)

    def init(self, *, mode=PERIODIC, period=-1, freq=-1, callback=None):
        self._period = max(1, 1000 // freq if freq > 0 else period)
        self._mode = mode
        self._cb = callback
        self._due = simbus.ticks_add(simbus.clock(), self._period)
        if self not in simbus.timers:
            simbus.timers.append(self)

    def deinit(self):
        self._cb = None
        if self in simbus.timers:
            simbus.timers.remove(self)


def bitstream(pin, encoding, timing, data):
    """Send data down a WS2812 chain: the simulated board keeps a copy."""
    simbus.record_bitstream(pin._id, data)


def unique_id():
    return b"\xe6\x61\x41\x04\x03\x5a\x2c\x31"


def freq(hz=None):
    return 125_000_000


def reset_cause():
    """WDT_RESET when the watchdog reset the chip (REASON != 0: it expired, or machine.reset()
    triggered it), else PWRON_RESET: rp2's watchdog_caused_reboot()."""
    return WDT_RESET if simbus.reason else PWRON_RESET


def reset():
    """Restart the chip as rp2 does, through the watchdog (REASON.FORCE): the simulated board
    stops the program (simbus.Reset); a harness restarts it."""
    simbus.resets += 1
    simbus.watchdog_reset(2)


class _Mem32:
    """machine.mem32 for the RP2040 watchdog's registers (WATCHDOG_BASE 0x40058000): CTRL
    (+0x00: its ENABLE bit, and the atomic clear alias +0x3000, which stops the watchdog),
    REASON (+0x08, read-only) and SCRATCH0..7 (+0x0C..+0x28); and SIO's GPIO_IN (0xd0000004,
    read-only: every pin's level, simbus.gpio_in). Other addresses: ValueError, so a firmware
    reaching for a register the board does not model fails loudly."""

    def __getitem__(self, addr):
        if addr == 0xD0000004:
            return simbus.gpio_in()
        k = (addr - 0x4005800C) >> 2
        if addr == 0x40058008:
            return simbus.reason
        if addr & 3 == 0 and 0 <= k < 8:
            return simbus.scratch[k]
        if addr == 0x40058000:
            return 0x40000000 if simbus.wdt[0] else 0
        raise ValueError("no register at 0x%08x on the simulated board" % addr)

    def __setitem__(self, addr, value):
        k = (addr - 0x4005800C) >> 2
        if addr & 3 == 0 and 0 <= k < 8:
            simbus.scratch[k] = value & 0xFFFFFFFF
        elif addr == 0x4005B000:  # CTRL's clear alias: ENABLE cleared stops the watchdog
            if value & 0x40000000:
                simbus.wdt[0] = 0
        elif addr != 0x40058008:  # REASON is read-only: a write does nothing
            raise ValueError("no register at 0x%08x on the simulated board" % addr)


mem32 = _Mem32()


soft_reset = reset
