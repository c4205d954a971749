# The simulated board's state hub: a harness sets input levels and reads what the firmware did.
"""Shared state of the fake rp2 modules (machine, neopixel) for the simulated box.

Inputs: ``set_level(gpio, v)`` drives a GPIO as an outside switch would, ``release(gpio)``
lets its pull resistor decide again. Outputs: ``leds`` holds the last bytes sent down the
WS2812 chain (``writes`` counts them), ``pwm`` each PWM pin's [freq, duty_u16, running],
``tone()`` what the buzzer plays; ``wdt`` is the watchdog's [timeout, last feed, feeds].
``clock`` is the time source of the fake watchdog and timers; a harness with a virtual clock
replaces it (and ``advance``, so that a hung CPU lets virtual time pass). Small and
preallocated: it shares the tests' 64 KB heap with the firmware, and reading a pin or writing
the LEDs must not allocate.

Resets and faults: ``Reset`` (a SystemExit) is raised by machine.reset() and by the watchdog
biting; a harness catches it and boots the firmware again, like the Pico's reset. ``inject``
arms a fault on a later pin read: a hang (the CPU spins while virtual time passes, until the
watchdog resets the board, or for HANG_LIMIT_MS without one: ``Hung``), or an exception.

The reset cause as the RP2040 reports it (MicroPython's rp2 port): machine.reset() restarts the
chip through its watchdog (pico-sdk watchdog_reboot: CTRL.TRIGGER), so the watchdog's REASON
register reads FORCE (2) after it and TIMER (1) after the watchdog expired, and
machine.reset_cause() is WDT_RESET after either (watchdog_caused_reboot(): REASON != 0;
MicroPython issue #19409). REASON and the SCRATCH0..7 registers (``reason``, ``scratch``; read
and written through machine.mem32) survive a watchdog reset and read 0 after a power cut
(``power_on``). ``rp2040()`` makes ``import sys`` name the board as rp2 does on a Pico.
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
pwm = {}  # gpio -> [Hz, duty_u16, running] as the pin outputs it (machine.PWM._show)
pwm_slices = [[16, 0, 0, 0] for _ in range(8)]  # rp2's PWM slices: [div16, TOP, freq set, on]
buzzer_pin = 15  # the PWM pin tone() reports; a harness sets it from shutbox.pins
wdt = [0, 0, 0]
reason = 0  # the watchdog's REASON: 1 TIMER (it expired), 2 FORCE (machine.reset); 0 power-on
scratch = [0] * 8  # the watchdog's SCRATCH0..7
resets = 0
timers = []
_MASK = (1 << 30) - 1  # rp2's ticks wrap at 2**30 ms (simtime)


def ticks_add(ticks, delta):
    """time.ticks_add as on rp2: modulo 2**30, a delta of half the period or more refused."""
    if not -(1 << 29) <= delta < 1 << 29:
        raise OverflowError("ticks interval overflow")
    return (ticks + delta) & _MASK


def ticks_diff(end, start):
    """time.ticks_diff as on rp2: the signed difference modulo 2**30."""
    return ((end - start + (1 << 29)) & _MASK) - (1 << 29)


clock = time.ticks_ms
advance = None  # advance(ms): move a harness's virtual clock (None: real time passes anyway)
us = 0  # µs past clock()'s ms that the core spent busy (busy_us): simtime.ticks_us adds it
sleep = time.sleep_ms  # simtime.sleep_ms: a harness with a virtual clock replaces it
BIT_NS = 1270  # a WS2812 bit as the Pico's bitstream sends it (1,232-1,312 ns, emulated)
WRITE_US = 30  # and the driver's own time a write (0.73 ms for 23 LEDs on the emulated chip)

FAULT_HANG = 1
FAULT_RAISE = 2  # RuntimeError, as a firmware bug would raise
FAULT_MEMORY = 3  # MemoryError
FAULT_IO = 4  # OSError(EIO), as a failing driver would raise
HANG_LIMIT_MS = 60000  # a hang with no watchdog: the harness gives up after this much time
fault = 0  # the armed fault (0: none)
fault_after = 0  # pin reads to let through before it trips


class Reset(SystemExit):
    """The board resets; args[0] is machine.reset_cause() after the reboot (``reason``: why the
    watchdog reset it)."""


class Hung(SystemExit):
    """A hang that no watchdog ended: the box would stay frozen until its power is cut."""


def inject(kind, after=0):
    """Arm fault *kind* (FAULT_*) to trip on the pin read after *after* more reads."""
    global fault, fault_after
    fault = kind
    fault_after = after


def _trip():
    global fault, fault_after
    if fault_after > 0:
        fault_after -= 1
        return
    kind = fault
    fault = 0
    if kind == FAULT_RAISE:
        raise RuntimeError("injected fault")
    if kind == FAULT_MEMORY:
        raise MemoryError("injected fault")
    if kind == FAULT_IO:
        raise OSError(5)
    spun = 0  # FAULT_HANG: spin as a stuck driver would, with time passing
    while True:
        if advance is not None:
            advance(1)
        spun += 1
        check_wdt()
        if spun >= HANG_LIMIT_MS:
            raise Hung(spun)


def check_wdt(now=None):
    """Reset the board (raise Reset(WDT_RESET)) if a started watchdog has gone unfed."""
    if wdt_expired(now):
        watchdog_reset(1)  # REASON.TIMER


def watchdog_reset(why):
    """The watchdog resets the chip: REASON becomes *why* (1 TIMER, 2 FORCE), the watchdog
    stops, SCRATCH0..7 stay; raise Reset(WDT_RESET) for the harness to boot again."""
    global reason
    reason = why
    wdt[0] = 0
    raise Reset(3)  # machine.WDT_RESET


def peripherals_reset():
    """A reset of the chip (the watchdog's, or power): its PWM slices stop and forget their
    frequency (the firmware sets them again at boot)."""
    for sl in pwm_slices:
        sl[0] = 16
        sl[1] = sl[2] = sl[3] = 0
    for st in pwm.values():
        st[0] = st[1] = st[2] = 0


def power_on():
    """The power was off: the watchdog is stopped, its REASON and SCRATCH registers read 0."""
    global reason
    reason = 0
    wdt[0] = 0
    for i in range(8):
        scratch[i] = 0


def rp2040():
    """Make ``import sys`` give the firmware a sys that names this board as rp2 does on a
    Pico (sys.implementation._machine "Raspberry Pi Pico with RP2040"), so that it takes its
    RP2040 paths (the watchdog's registers through machine.mem32). The caller keeps the real
    sys; call it before the firmware is imported."""
    import sys

    class Impl:
        _machine = "Raspberry Pi Pico with RP2040"

    class Sys:
        implementation = Impl

    real = sys.implementation
    for k in ("name", "version", "_mpy", "_build", "_thread"):
        if hasattr(real, k):
            setattr(Impl, k, getattr(real, k))
    for k in dir(sys):
        if not k.startswith("__") and k != "implementation":
            setattr(Sys, k, getattr(sys, k))
    sys.modules["sys"] = Sys


# Edges a harness scheduled from outside (boxrun's E: a contact's burst), in time order:
# [ms tick, µs within it, gpio, level]; each takes effect when the virtual clock reaches it
# (busy_us), so reads of the pins at distinct instants see what a real contact gives them
schedule = []


def read(gpio):
    """Return the level the firmware reads on *gpio* (Pin.value: an armed fault trips here);
    the read takes 22 µs of the virtual clock: on the emulated RP2040 (125 MHz, MicroPython
    v1.28) a Python loop reading the 9 tiles' Pin.value took 197 µs a pass, 22 µs a pin."""
    busy_us(22)
    if fault:
        _trip()
    return level(gpio)


def level(gpio):
    """Return the level on *gpio*: an output's own, else the one driven, else its pull's."""
    if mode[gpio] == 1:
        return out[gpio]
    if ext[gpio] != 255:
        return ext[gpio]
    return 1 if pull[gpio] == 1 else 0


def gpio_in():
    """Return SIO's GPIO_IN register: bit g is the level on GPIO g (machine.mem32[0xd0000004];
    on the Pico one read of every pin at one instant; 13 µs of the virtual clock, as a loop
    pass reading it through machine.mem32 took on the emulated RP2040). An armed fault
    (inject) trips here: the box's one reading of its switches a pass (Board.reader)."""
    busy_us(13)
    if fault:
        _trip()
    v = 0
    for g in range(_N):
        if level(g):
            v |= 1 << g
    return v


def set_level(gpio, v):
    """Drive *gpio* from outside (a switch), or release it with *v* None."""
    before = level(gpio)
    ext[gpio] = 255 if v is None else (1 if v else 0)
    after = level(gpio)
    h = irq.get(gpio)
    if h is not None and before != after and h[1] & (8 if after else 4):
        h[0](h[2])  # Pin.IRQ_RISING = 8, IRQ_FALLING = 4


def release(gpio):
    """Stop driving *gpio* from outside."""
    set_level(gpio, None)


def busy_us(n):
    """The core is busy for *n* µs (interrupts off, or a busy wait): with a virtual clock
    (advance), time passes, a ms at a time once whole; the scheduled edges whose time has
    come take effect."""
    global us
    if advance is None:
        return
    us += n
    while us >= 1000:
        us -= 1000
        advance(1)
    q = schedule
    while q:
        e = q[0]
        d = ticks_diff(clock(), e[0])
        if d < 0 or d == 0 and us < e[1]:
            return
        q.pop(0)
        set_level(e[2], e[3])


def record_bitstream(gpio, data):
    """Keep a copy of a NeoPixel write (no allocation once the size is known). On the Pico
    machine.bitstream sends every bit with interrupts off: the write takes the chain's time
    (552 bits for 23 LEDs: 0.70 ms; 0.73 ms a write measured on the emulated chip)."""
    global leds, writes
    if len(leds) != len(data):
        leds = bytearray(len(data))
    leds[:] = data
    writes += 1
    busy_us(len(data) * 8 * BIT_NS // 1000 + WRITE_US)


def tone():
    """Return the buzzer's frequency while it sounds, else 0."""
    st = pwm.get(buzzer_pin)
    return st[0] if st is not None and st[2] and st[1] else 0


def duty():
    """Return the buzzer's duty (duty_u16) while it sounds, else 0: how loud."""
    st = pwm.get(buzzer_pin)
    return st[1] if st is not None and st[2] else 0


def wdt_expired(now=None):
    """Return True if a started watchdog has gone unfed for longer than its timeout."""
    now = clock() if now is None else now
    return wdt[0] > 0 and ticks_diff(now, wdt[1]) > wdt[0]


def run_timers(now=None):
    """Fire every due machine.Timer callback (a harness calls this as its clock runs)."""
    now = clock() if now is None else now
    for t in list(timers):
        while t._cb is not None and ticks_diff(now, t._due) >= 0:
            cb = t._cb
            if t._mode == 0:  # ONE_SHOT
                t._cb = None
                timers.remove(t)
            else:
                t._due = ticks_add(t._due, t._period)
            cb(t)
