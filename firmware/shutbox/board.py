# The box's hardware: the only module that builds Pins, the NeoPixel chain, the buzzer and the WDT.
"""Board drivers built from shutbox.pins (generated from hardware/pinmap.json).

Tile switches and Roll close to GND through pull-ups: a shut tile or a pressed Roll reads
``SWITCH_ACTIVE``. One WS2812 chain carries the tile LEDs, then die A's 7 pips, then die B's.
``show`` writes palette codes straight into the NeoPixel buffer in the chain's byte order, so
updating the LEDs allocates nothing. The palette is dim on purpose: the whole chain lit white
stays around 100 mA, well inside what USB gives the Pico.
"""

from micropython import const
from shutbox import pins

_COLOURS = const(8)  # shutbox.frame.COLOURS: palette codes (private copies: see test_memory)
_PIPS = const(7)  # shutbox.frame._PIPS: LEDs per die

# Colours as (red, green, blue) at full brightness, per palette code of shutbox.frame
# (OFF, WHITE, GREEN, RED, AMBER, BLUE, MAGENTA, CYAN). Max channel 40 of 255. The host's
# simulator (shutbox_host.box.boxsim.palette) reads it to decode the LEDs.
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
_DUTY_ON = const(32768)  # 50 % duty: the loudest square wave for a piezo
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


class Board:
    """Every pin of the box, built once from shutbox.pins."""

    def __init__(self, machine_module=None):
        """Build the pins (*machine_module*: a stand-in for ``machine``, or None).

        The palette is kept as bytes in the chain's wire order (pins.LED_ORDER), 3 per code.
        """
        if machine_module is None:
            import machine as machine_module
        import neopixel

        self._machine = machine_module
        Pin = machine_module.Pin
        self.tiles = pins.TILES
        tp: list = [None] * pins.TILES  # sized once: no regrowth at boot
        for k in range(pins.TILES):
            tp[k] = Pin(pins.TILE_PINS[k], Pin.IN, Pin.PULL_UP)
        self._tile_pins = tp
        self._roll_pin = Pin(pins.ROLL_PIN, Pin.IN, Pin.PULL_UP)
        self._np = neopixel.NeoPixel(Pin(pins.LED_PIN, Pin.OUT), pins.TILES + 2 * _PIPS)
        pal = self._pal = bytearray(3 * _COLOURS)
        for code in range(_COLOURS):
            for j in range(3):
                pal[3 * code + j] = _PALETTE_RGB[3 * code + "RGB".index(pins.LED_ORDER[j])]
        self._pwm = machine_module.PWM(Pin(pins.BUZZER_PIN, Pin.OUT))
        self._pwm.duty_u16(0)

    def switches(self):
        """Return the raw tile levels: bit k set = tile k+1 open (up)."""
        m = 0
        active = pins.SWITCH_ACTIVE
        tp = self._tile_pins
        for k in range(self.tiles):
            if tp[k].value() != active:
                m |= 1 << k
        return m

    def roll(self):
        """Return True while Roll is pressed (raw, not debounced)."""
        return self._roll_pin.value() == pins.SWITCH_ACTIVE

    def show(self, frame):
        """Light the chain from a frame of palette codes (len tiles + 14); allocates nothing."""
        buf = self._np.buf
        pal = self._pal
        j = 0
        for i in range(self.tiles + 2 * _PIPS):
            c = (frame[i] & 7) * 3
            buf[j] = pal[c]
            buf[j + 1] = pal[c + 1]
            buf[j + 2] = pal[c + 2]
            j += 3
        self._np.write()

    def tone(self, freq_hz, ms=0):
        """Start a square wave of *freq_hz* on the buzzer (0 = silence).

        The buzzer cannot time itself without an interrupt; the app stops the note after
        *ms* by calling tone(0).
        """
        if freq_hz <= 0:
            self._pwm.duty_u16(0)
        else:
            self._pwm.freq(freq_hz)
            self._pwm.duty_u16(_DUTY_ON)

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
