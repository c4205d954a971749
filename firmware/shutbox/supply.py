# The power hardware on the chip: the LEDs' supply switch, VBUS and VSYS sense, DORMANT.
"""The box's supply as the rp2 port reaches it (hardware/README.md section 3): beside
shutbox.board the only module that touches ``machine``, and loaded only on the chip (the
guard's sleep and the gauge, shutbox.sleep): the simulated board has neither ADC nor sleep,
and a module's names are interned for good once it is loaded, which costs heap.

``Supply(machine_module=None)``: ``led_power(on)`` switches the P-MOSFET that feeds the 5 V
boost of the LEDs (Board switches it on at start); ``usb()`` reads VBUS sense; ``vsys_mv()``
reads VSYS through the Pico's divider by 3 on ADC3; ``dormant(tiles)`` stops the chip
until Roll goes down.
"""

from micropython import const
from shutbox import pins

# DORMANT's wake (RP2040 datasheet 2.19.6.2): IO_BANK0 INTR0 (+0x0F0, its edges cleared by
# writing 1s) and DORMANT_WAKE_INTE0 (+0x160), 4 bits a GPIO, 8 GPIOs a register (bit 2
# EDGE_LOW); PADS_BANK0's GPIOn (+0x04 + 4n; bit 3 PUE, bit 2 PDE) through its atomic set
# (+0x2000) and clear (+0x3000) aliases. MicroPython v1.28's machine.lightsleep() with no time
# stops the crystal (DORMANT) but arms no GPIO wake (Pin.irq's came after v1.28): these do.
_INTR0 = const(0x400140F0)
_DORMANT_INTE0 = const(0x40014160)
_PADS_SET = const(0x4001E004)
_PADS_CLR = const(0x4001F004)
_PULLS = const(12)  # PUE | PDE
_PDE = const(4)
_PUE = const(8)
_VSYS_SCALE = const(9900)  # mV at the ADC's full scale: VSYS / 3 against its 3.3 V
# inside the Pico (pico-sdk's boards/pico.h, shutbox_host.pico.boards): VBUS sense, high
# while USB powers it, and VSYS / 3 on ADC3; on a Pico W VBUS is the radio's WL_GPIO2 and GPIO
# 29 also the radio's clock, whose chip select (GPIO 25) high joins the VSYS divider to it
_VBUS_PIN = const(24)
_VSYS_PIN = const(29)
_WL_CS = const(25)


class Supply:
    """The LEDs' supply, VBUS and VSYS sense, and DORMANT, on the rp2 port."""

    def __init__(self, machine_module=None):
        if machine_module is None:
            import machine as machine_module
        import sys

        m = getattr(sys.implementation, "_machine", "")
        self.machine = machine_module
        # the rp2 port's machine sleeps and reads its ADC; a stand-in (the virtual Pico's) may not
        self.ok = hasattr(machine_module, "lightsleep") and hasattr(machine_module, "ADC")
        self.wireless = " W with " in m  # a Pico W (or 2 W): VBUS and VSYS via the radio
        self.rp2040 = "RP2040" in m  # DORMANT through its registers (not the RP2350's)
        self.adc = None  # VSYS's ADC, made at the first reading

    def led_power(self, on):
        """Switch the LEDs' supply (Q2 before the 5 V boost): off while the box sleeps; it
        takes shutbox.sleep's ramp (C3 on Q2's gate) to come up."""
        self.machine.Pin(pins.LED_POWER_PIN).value(1 if on else 0)  # a static object

    def usb(self):
        """Return True while USB powers the box (VBUS sense: GPIO 24 on a Pico, the radio's
        WL_GPIO2 on a Pico W)."""
        Pin = self.machine.Pin
        return Pin("WL_GPIO2" if self.wireless else _VBUS_PIN, Pin.IN).value() == 1

    def vsys_mv(self, radio_off=False):
        """Return VSYS in mV: ADC3 reads it through the Pico's divider by 3 (8 readings
        averaged; allocates nothing after the first call). On a Pico W, GPIO 29 is also the
        radio's clock: only with *radio_off* (at power-up, before anything starts the radio)
        is it read (``_radio_vsys``); otherwise -1."""
        if self.wireless:
            return self._radio_vsys() if radio_off else -1
        adc = self.adc
        if adc is None:
            adc = self.adc = self.machine.ADC(_VSYS_PIN)
        n = 0
        for _ in range(8):
            n += adc.read_u16() >> 4
        return n * _VSYS_SCALE >> 15

    def _radio_vsys(self):
        """VSYS on a Pico W: the radio's chip select high joins the divider to GPIO 29, read
        as ADC3, then the pin is given back to the radio (MicroPython discussion #10421)."""
        m = self.machine
        m.Pin(_WL_CS, m.Pin.OUT, value=1)
        adc = m.ADC(_VSYS_PIN)
        n = 0
        for _ in range(8):
            n += adc.read_u16() >> 4
        m.Pin(_VSYS_PIN, m.Pin.ALT, pull=m.Pin.PULL_DOWN, alt=7)
        return n * _VSYS_SCALE >> 15

    def dormant(self, tiles):
        """Stop the chip until Roll goes down: on an RP2040, DORMANT (its crystal stopped;
        time.ticks_ms() stands still) woken by Roll's falling edge, the *tiles* tiles' pulls
        turned down meanwhile (a shut tile's pull-up draws 66 uA). Elsewhere (an RP2350) it
        returns at once: the caller polls Roll instead."""
        if not self.rp2040:
            return
        mem32 = self.machine.mem32
        roll = pins.ROLL_PIN
        reg = (roll >> 3) << 2
        shift = (roll & 7) << 2
        tp = pins.TILE_PINS
        for k in range(tiles):
            mem32[_PADS_CLR + (tp[k] << 2)] = _PULLS
            mem32[_PADS_SET + (tp[k] << 2)] = _PDE
        mem32[_INTR0 + reg] = 12 << shift  # the edges seen before: cleared
        mem32[_DORMANT_INTE0 + reg] = 4 << shift  # Roll's EDGE_LOW wakes it
        self.machine.lightsleep()
        mem32[_DORMANT_INTE0 + reg] = 0
        for k in range(tiles):
            mem32[_PADS_CLR + (tp[k] << 2)] = _PULLS
            mem32[_PADS_SET + (tp[k] << 2)] = _PUE
