# The box's hardware: the only module that builds Pins, the NeoPixel chain, the buzzer and the WDT.
"""Board drivers built from shutbox.pins (generated from hardware/pinmap.json).

Tile switches and Roll close to GND through pull-ups: a shut tile or a pressed Roll reads
``SWITCH_ACTIVE``. One WS2812 chain carries the tile LEDs, then die A's 7 pips, then die B's.
``show`` writes palette codes straight into the NeoPixel buffer in the chain's byte order, so
updating the LEDs allocates nothing. ``adjust(sound, brightness)`` applies the box's settings:
the palette is dim on purpose and the brightness scales it in quarter steps (low 1/4, medium
1, high 3/2 times ``_PALETTE_RGB``: channels up to 10, 40 or 60 of 255, so the box stays
under the 250 mA MicroPython declares to the USB host; the budget of each level is in
hardware/README.md); the sound sets the buzzer's PWM duty: off, soft (1/16: the
note's fundamental about 14 dB below loud's) or loud (1/2, the loudest square wave for a
piezo).
"""

# ruff: noqa: F821 - viper's ptr8 (its compiler's cast; a builtin on CPython: micropython.py)
# mypy: disable-error-code="name-defined"

import micropython
from micropython import const
from shutbox.pins import (
    BUZZER_PIN,
    LED_ORDER,
    LED_PIN,
    LED_POWER_PIN,
    ROLL_PIN,
    SWITCH_ACTIVE,
    TILE_PINS,
    TILES,
)

# BEGIN consts: written by `shutbox consts`; edit its table, not this block
_COLOURS = const(8)  # how many palette codes
_PIPS = const(7)  # LEDs per die
# END consts

# Colours as (red, green, blue) at medium brightness, per palette code of shutbox.frame
# (OFF, WHITE, GREEN, RED, AMBER, BLUE, MAGENTA, CYAN). Max channel 40 of 255. The host's
# simulator (shutbox_host.model.leds.palette) reads it and _SCALE to decode the LEDs.
_PALETTE_RGB = const(
    b"\x00\x00\x00"
    b"\x14\x14\x14"
    b"\x00\x20\x00"
    b"\x28\x00\x00"
    b"\x24\x10\x00"
    b"\x00\x00\x28"
    b"\x1e\x00\x1e"
    b"\x00\x18\x18"
)
_DUTY_ON = const(32768)  # 50 % duty: the loudest square wave for a piezo (volume loud)
# volume soft: 1/16 duty. A pulse wave of duty d has its fundamental at sin(pi d) of a square
# wave's: sin(pi / 16) = 0.195, 14 dB down
_DUTY_SOFT = const(4096)
_LOUD = const(2)  # volume(): 0 off, 1 soft, 2 loud
_MEDIUM = const(1)  # brightness(): 0 low, 1 medium, 2 high
_SCALE = const(b"\x01\x04\x06")  # per brightness: the palette times this / 4
# The duty is kept / 256 in the palette's buffer, after the colours: one byte, not one more
# attribute of the board (an attribute more grows its dict: 96 bytes of heap measured)
_DUTY = const(24)  # 3 * _COLOURS
# Then the tiles' first GPIO when they are consecutive (switches: one shift; else _NONE) ...
_FIRST = const(25)
# ... then the palette code each LED of the chain's buffer holds (show rewrites only the LEDs
# whose code changed; _NONE: unknown, after adjust): one bytearray, no attribute more
_HELD = const(26)
_NONE = const(0xFF)
# The RP2040's watchdog (datasheet 4.7; pico-sdk hardware/regs/watchdog.h), WATCHDOG_BASE
# 0x40058000: CTRL +0x00 (ENABLE bit 30; +0x3000 is its atomic clear alias), REASON +0x08
# (bit 0 TIMER: the watchdog expired; bit 1 FORCE: CTRL.TRIGGER, which machine.reset() uses;
# 0 after a power-on or RUN pin reset), SCRATCH0..7 +0x0C..+0x28 (kept by a watchdog reset).
_WATCHDOG_CTRL_CLR = const(0x4005B000)
_WATCHDOG_ENABLE = const(0x40000000)  # CTRL.ENABLE
_WATCHDOG_REASON = const(0x40058008)
_REASON_TIMER = const(1)
# SCRATCH3 carries the mark of a reset made on purpose (reset(), shutbox flash's reset):
# pico-sdk 2.2's watchdog_enable/watchdog_reboot (MicroPython's machine.WDT and reset) use
# SCRATCH4..7, the RP2040 bootrom SCRATCH0..1 (reset_usb_boot) and 4..7 (its boot vector),
# MicroPython v1.28's rp2 port none (v1.29's machine.mem_backup lends 0..3 and 5..7 to
# programs: the box is the only program).
_WATCHDOG_SCRATCH3 = const(0x40058018)
_RESET_MARK = const(0x2D534258)  # "-SBX": below 2**30, a small int on the Pico
_GPIO_IN = const(0xD0000004)  # SIO GPIO_IN (datasheet 2.3.1.7): the input level of GPIO 0..29


class Board:
    """Every pin of the box, built once from shutbox.pins."""

    def __init__(self, machine_module=None):
        """Build the pins (*machine_module*: a stand-in for ``machine``, or None).

        The palette is kept as bytes in the chain's wire order (LED_ORDER), 3 per code.
        """
        if machine_module is None:
            import machine as machine_module
        import neopixel

        self._machine = machine_module
        Pin = machine_module.Pin
        self.tiles = TILES
        tp: list = [None] * TILES  # sized once: no regrowth at boot
        # the buzzer's duty / 256 (adjust), the tiles' first GPIO, the codes held (show)
        pal = self._pal = bytearray(_HELD + TILES + 2 * _PIPS)
        pal[_FIRST] = TILE_PINS[0]
        for k in range(TILES):
            tp[k] = Pin(TILE_PINS[k], Pin.IN, Pin.PULL_UP)
            if TILE_PINS[k] != TILE_PINS[0] + k:
                pal[_FIRST] = _NONE
        self._tile_pins = tp
        self._roll_pin = Pin(ROLL_PIN, Pin.IN, Pin.PULL_UP)
        self._np = neopixel.NeoPixel(Pin(LED_PIN, Pin.OUT), TILES + 2 * _PIPS)
        self.adjust(_LOUD, _MEDIUM)
        self._pwm = machine_module.PWM(Pin(BUZZER_PIN, Pin.OUT))
        self._pwm.duty_u16(0)
        # the LEDs' supply on (hardware/README.md section 3); shutbox.supply switches it
        Pin(LED_POWER_PIN, Pin.OUT, value=1)

    def adjust(self, sound, brightness):
        """Set the buzzer's volume (*sound*: 0 off, 1 soft, 2 loud) for the next notes and
        scale the palette for LED *brightness* (0 low, 1 medium, 2 high) from the next
        ``show`` on: integer quarter steps, computed here once, not per frame."""
        pal = self._pal
        pal[_DUTY] = (_DUTY_ON if sound == _LOUD else _DUTY_SOFT if sound else 0) >> 8
        k = _SCALE[brightness]
        for code in range(_COLOURS):
            for j in range(3):
                v = _PALETTE_RGB[3 * code + "RGB".index(LED_ORDER[j])]
                pal[3 * code + j] = v * k >> 2
        for j in range(_HELD, len(pal)):  # every LED's colour changed: the next show redraws
            pal[j] = _NONE

    def reader(self):
        """Return a function of no arguments giving one reading of every switch as one int:
        bit g is GPIO g's level (only the tiles' and Roll's pins). The box's loop
        (Guard.forever) takes one reading a pass, compares it with the last to spot a change
        and hands the step that same reading (``switches(levels)``, ``roll(levels)``), so no
        edge between two reads can leave the box's view apart from the pins'.

        On an RP2040 it is one read of SIO's GPIO_IN register (all 30 GPIO levels at one
        instant) through machine.mem32, allocation-free; elsewhere the pins' values, one after
        the other.
        """
        m = 1 << ROLL_PIN
        for k in range(self.tiles):
            m |= 1 << TILE_PINS[k]
        mem32 = self._rp2040()
        if mem32 is not None:
            return lambda: mem32[_GPIO_IN] & m
        tp = self._tile_pins  # elsewhere (no GPIO_IN): the pins, one after the other

        def read():
            v = self._roll_pin.value() << ROLL_PIN
            for k in range(TILES):
                v |= tp[k].value() << TILE_PINS[k]
            return v

        return read

    def pins(self):
        """Return the switches' pins (machine.Pin): the tiles' in order, then Roll's."""
        return self._tile_pins + [self._roll_pin]

    def switches(self, levels=-1):
        """Return the tile levels of a reading (``reader``; -1: read the pins now): bit k set
        = tile k+1 open (up)."""
        # (few locals: a frame of at most 11 slots stays off the heap, whose allocation costs
        # the step 0.1-0.2 ms on the emulated RP2040 once the heap holds the game's garbage)
        g = self._pal[_FIRST]
        if levels >= 0 and g != _NONE:  # the tiles on consecutive GPIOs: one shift, no loop
            return (levels if SWITCH_ACTIVE == 0 else ~levels) >> g & (1 << self.tiles) - 1
        m = 0
        for k in range(self.tiles):
            g = self._tile_pins[k].value() if levels < 0 else levels >> TILE_PINS[k] & 1
            if g != SWITCH_ACTIVE:
                m |= 1 << k
        return m

    def roll(self, levels=-1):
        """Return True while Roll is pressed (not debounced) in a reading (``reader``; -1:
        read the pin now)."""
        v = self._roll_pin.value() if levels < 0 else levels >> ROLL_PIN & 1
        return v == SWITCH_ACTIVE

    @micropython.viper
    def show(self, frame):
        """Light the chain from a frame of palette codes (len tiles + 14); allocates nothing.

        Only the LEDs whose code changed since the last show are written into the chain's
        buffer (an input changes one to three of 23), by machine code (viper: the loop took
        0.3-0.7 ms of a step on the emulated RP2040 as bytecode; CPython runs it as Python)."""
        buf = ptr8(self._np.buf)
        pal = ptr8(self._pal)
        f = ptr8(frame)
        i = int(self.tiles) + 2 * _PIPS
        while i:
            i -= 1
            c = f[i] & 7
            if pal[_HELD + i] != c:
                pal[_HELD + i] = c
                c *= 3
                buf[3 * i] = pal[c]
                buf[3 * i + 1] = pal[c + 1]
                buf[3 * i + 2] = pal[c + 2]
        self._np.write()

    def tone(self, freq_hz, ms=0):
        """Start a square wave of *freq_hz* on the buzzer at the volume set (``adjust``; 0 =
        silence).

        The buzzer cannot time itself without an interrupt; the app stops the note after
        *ms* by calling tone(0).
        """
        duty = self._pal[_DUTY] << 8
        if freq_hz <= 0 or not duty:
            self._pwm.duty_u16(0)
        else:
            self._pwm.freq(freq_hz)
            self._pwm.duty_u16(duty)

    def watchdog(self, timeout_ms):
        """Start the hardware watchdog (it cannot be stopped) and return it; feed() it."""
        return self._machine.WDT(timeout=timeout_ms)

    def _rp2040(self):
        """Return machine.mem32 on an RP2040 (the watchdog's registers), else None."""
        import sys  # a local name: no module global for this use

        mem32 = getattr(self._machine, "mem32", None)
        if mem32 is not None and "RP2040" in getattr(sys.implementation, "_machine", ""):
            return mem32
        return None

    def reset(self):
        """Restart the chip on purpose (a fresh heap; main.py runs again): not a hang.

        On an RP2040 the mark in SCRATCH3 tells the next boot (watchdog_reset) so, whatever
        REASON says: machine.reset() restarts the chip through the watchdog.
        """
        mem32 = self._rp2040()
        if mem32 is not None:
            mem32[_WATCHDOG_SCRATCH3] = _RESET_MARK
        self._machine.reset()

    def watchdog_reset(self):
        """Return True if the last reset was the watchdog's expiry (the box had hung).

        On rp2, machine.reset() goes through the watchdog too, so reset_cause() says
        WDT_RESET after every flash (MicroPython issue #19409). On an RP2040 the box reads
        the watchdog's REASON: its TIMER bit is set only when the watchdog expired (FORCE is
        machine.reset()), and a reset made on purpose (reset(), shutbox flash) leaves its
        mark in SCRATCH3, read and cleared here. Elsewhere: reset_cause().
        """
        mem32 = self._rp2040()
        if mem32 is None:
            m = self._machine
            return m.reset_cause() == m.WDT_RESET
        marked = mem32[_WATCHDOG_SCRATCH3] == _RESET_MARK
        mem32[_WATCHDOG_SCRATCH3] = 0
        return bool(mem32[_WATCHDOG_REASON] & _REASON_TIMER) and not marked

    def watchdog_stop(self):
        """Stop a running watchdog (a developer took over the console: Ctrl-C, mpremote).

        machine.WDT has no stop; the RP2040's WATCHDOG CTRL register does: its ENABLE bit
        (30) is cleared through the register's atomic clear alias (+0x3000). Elsewhere
        (another chip) this does nothing.
        """
        mem32 = self._rp2040()
        if mem32 is not None:
            mem32[_WATCHDOG_CTRL_CLR] = _WATCHDOG_ENABLE
