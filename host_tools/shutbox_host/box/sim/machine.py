# Fake rp2 `machine` module for the simulated box: shadows the unix port's own `machine` module.
"""The parts of rp2's ``machine`` the firmware uses, with the Pico's signatures and constants.

State lives in ``simbus``, where a harness sets input levels and reads outputs. Values the
Pico refuses (GPIO outside 0..29, a PWM frequency below 8 Hz, a watchdog timeout above
8388 ms) raise ValueError as there. Kept small: the tests run the firmware and this board
together on a 64 KB heap.
"""

import time

import simbus

PWRON_RESET = 1
WDT_RESET = 3


class Pin:
    """A GPIO, as rp2's machine.Pin(id, mode=-1, pull=-1, *, value=None, drive, alt)."""

    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    ALT = 3
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, id, mode=-1, pull=-1, *, value=None, drive=0, alt=-1):
        if isinstance(id, str) and id[:2] == "GP":
            id = int(id[2:])
        if not isinstance(id, int) or not 0 <= id < 30:
            raise ValueError("invalid pin")
        self._id = id
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


class PWM:
    """A PWM output, as rp2's machine.PWM(dest, *, freq, duty_u16, duty_ns, invert)."""

    def __init__(self, dest, *, freq=None, duty_u16=None, duty_ns=None, invert=False):
        gpio = dest._id if isinstance(dest, Pin) else Pin(dest)._id
        self._st = simbus.pwm.setdefault(gpio, [1907, 0, 1])  # rp2's default frequency
        self.init(freq=freq, duty_u16=duty_u16)

    def init(self, *, freq=None, duty_u16=None, duty_ns=None, invert=False):
        self._st[2] = 1
        if freq is not None:
            self.freq(freq)
        if duty_u16 is not None:
            self.duty_u16(duty_u16)

    def freq(self, value=None):
        """Return or set the frequency in Hz (at least 8 Hz at 125 MHz)."""
        if value is None:
            return self._st[0]
        if not 8 <= value <= 62_500_000:
            raise ValueError("freq out of range")
        self._st[0] = value

    def duty_u16(self, value=None):
        """Return or set the duty cycle, 0..65535."""
        if value is None:
            return self._st[1]
        self._st[1] = max(0, min(65535, value))

    def deinit(self):
        self._st[2] = 0


class WDT:
    """The watchdog, as rp2's machine.WDT(id=0, timeout=5000); see simbus.wdt_expired()."""

    def __init__(self, id=0, timeout=5000):
        if timeout > 8388:
            raise ValueError("timeout exceeds 8388ms")
        simbus.wdt[0] = timeout
        self.feed()

    def feed(self):
        simbus.wdt[1] = simbus.clock()
        simbus.wdt[2] += 1


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
        self._due = time.ticks_add(simbus.clock(), self._period)
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
    REASON (+0x08, read-only) and SCRATCH0..7 (+0x0C..+0x28). Other addresses: ValueError,
    so a firmware reaching for a register the board does not model fails loudly."""

    def __getitem__(self, addr):
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
