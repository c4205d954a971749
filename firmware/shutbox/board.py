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
# simulator (shutbox_host.boxsim.palette) reads it to decode the LEDs.
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
_WATCHDOG_CTRL_CLR = const(0x4005B000)  # RP2040 WATCHDOG_BASE 0x40058000 + CTRL 0 + clear alias
_WATCHDOG_ENABLE = const(0x40000000)  # CTRL.ENABLE


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

    def reset(self):
        """Restart the chip on purpose (a fresh heap; main.py runs again): not a hang."""
        self._machine.reset()

    def watchdog_reset(self):
        """Return True if the last reset was the watchdog's (the box had hung)."""
        m = self._machine
        return m.reset_cause() == m.WDT_RESET

    def watchdog_stop(self):
        """Stop a running watchdog (a developer took over the console: Ctrl-C, mpremote).

        machine.WDT has no stop; the RP2040's WATCHDOG CTRL register does: its ENABLE bit
        (30) is cleared through the register's atomic clear alias (+0x3000). Elsewhere
        (the simulated board, another chip) this does nothing.
        """
        import sys  # a local name: no module global for this one use

        mem32 = getattr(self._machine, "mem32", None)
        if mem32 is not None and "RP2040" in getattr(sys.implementation, "_machine", ""):
            mem32[_WATCHDOG_CTRL_CLR] = _WATCHDOG_ENABLE
