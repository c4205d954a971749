# The power hardware on the chip: the LEDs' supply switch, VBUS and VSYS sense, DORMANT.
"""The box's supply as the rp2 port reaches it (hardware/README.md section 3): beside
shutbox.board the only module that touches ``machine``, and loaded only on the chip (the
guard's sleep and the gauge, shutbox.sleep): the simulated board has neither ADC nor sleep,
and a module's names are interned for good once it is loaded, which costs heap.

``Supply(machine_module=None)``: ``led_power(on)`` switches the P-MOSFET that feeds the 5 V
boost of the LEDs (Board switches it on at start); ``usb()`` reads VBUS sense (a Pico W whose
radio did not start: True); ``vsys_mv()`` reads VSYS through the Pico's divider by 3 on ADC3;
``dormant(tiles)`` stops the chip until Roll goes down.
"""

from micropython import const
from shutbox.pins import LED_POWER_PIN, ROLL_PIN, TILE_PINS

# DORMANT's wake (RP2040 datasheet 2.19.6.2): IO_BANK0 INTR0 (+0x0F0, its edges cleared by
# writing 1s) and DORMANT_WAKE_INTE0 (+0x160), 4 bits a GPIO, 8 GPIOs a register (bit 2
# EDGE_LOW); PADS_BANK0's GPIOn (+0x04 + 4n; bit 3 PUE, bit 2 PDE) through its atomic set
# (+0x2000) and clear (+0x3000) aliases. MicroPython v1.28's machine.lightsleep() with no time
# stops the crystal (DORMANT) but arms no GPIO wake (Pin.irq's came after v1.28): these do.
# BEGIN consts: written by `shutbox consts`; edit its table, not this block
_RADIO_RUNS = const(3)  # Supply.wireless: the radio started
# END consts
_INTR0 = const(0x400140F0)
_DORMANT_INTE0 = const(0x40014160)
_PADS_SET = const(0x4001E004)
_PADS_CLR = const(0x4001F004)
_PULLS = const(12)  # PUE | PDE
_PDE = const(4)
_PUE = const(8)
_VSYS_SCALE = const(9900)  # mV at the ADC's full scale: VSYS / 3 against its 3.3 V
# inside the Pico (pico-sdk's boards/pico.h, shutbox_host.model.boards): VBUS sense, high
# while USB powers it, and VSYS / 3 on ADC3; on a Pico W VBUS is the radio's WL_GPIO2 and GPIO
# 29 also the radio's clock, whose chip select (GPIO 25) high joins the VSYS divider to it
_VBUS_PIN = const(24)
_VSYS_PIN = const(29)
_WL_CS = const(25)
# The radio's power enable (pico-sdk boards/pico_w.h CYW43_DEFAULT_PIN_WL_REG_ON), an output
# of SIO's GPIO_OUT (RP2040 datasheet 2.3.1.7): the rp2 port's boot (cyw43_init) drives it
# low; the radio's first start drives it high, and it stays high whether that start worked
_SIO_OUT = const(0xD0000010)
_WL_ON = const(23)
# Supply.wireless: 0 a Pico; a Pico W: its radio not asked yet, did not start, runs
_ASK = const(1)
_NO_RADIO = const(2)


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
        # a Pico W (or 2 W): VBUS and VSYS via the radio (usb)
        self.wireless = _ASK if " W with " in m else 0
        self.rp2040 = "RP2040" in m  # DORMANT through its registers (not the RP2350's)
        self.adc = None  # VSYS's ADC, made at the first reading

    def led_power(self, on):
        """Switch the LEDs' supply (Q2 before the 5 V boost): off while the box sleeps; it
        takes shutbox.sleep's ramp (C3 on Q2's gate) to come up."""
        self.machine.Pin(LED_POWER_PIN).value(1 if on else 0)  # a static object

    def usb(self):
        """Return True while USB powers the box (VBUS sense: GPIO 24 on a Pico, the radio's
        WL_GPIO2 on a Pico W, as MicroPython's Pico W docs read it). A Pico W whose radio
        did not start counts as on USB: it never goes DORMANT (which would stop a USB
        console), and its radio is never started again.

        The first read of a WL_GPIO pin starts the radio (cyw43-driver cyw43_gpio_get ->
        cyw43_ensure_up). When cyw43_ll_bus_init fails ("[CYW43] Failed to start CYW43": no
        radio, as on the emulated chip, or a broken module) it returns without releasing the
        gSPI bus that pico-sdk's cyw43_spi_init claimed (a PIO state machine left enabled on
        GPIO 24/29, its program, two DMA channels), and cyw43_poll stays NULL, so every later
        read starts the radio again: ~350 ms of resets and test reads, another state machine,
        another copy of the program and two more DMA channels, the first machine still on
        the same pins; its transfers wait on their DMA with no timeout. On the emulated chip
        (rp2040js runs a PIO block that is already running only on wall-clock timers) that
        second start never ends and the watchdog resets the box. So the radio is started
        once: WL_REG_ON still low means never tried; its MAC (cyw43_state.mac, read without
        the bus by WLAN.config("mac")) is set only by a start that worked, zero otherwise.
        ``wireless`` keeps the answer."""
        Pin = self.machine.Pin
        w = self.wireless
        if not w:
            return Pin(_VBUS_PIN, Pin.IN).value() == 1
        if w == _ASK:
            if not self.machine.mem32[_SIO_OUT] >> _WL_ON & 1:
                Pin("WL_GPIO2", Pin.IN).value()  # the radio's first use starts it
            import network  # type: ignore[import-not-found]  # the W's (not in the rp2 stubs)

            w = self.wireless = _RADIO_RUNS if any(network.WLAN().config("mac")) else _NO_RADIO
        return w == _NO_RADIO or Pin("WL_GPIO2", Pin.IN).value() == 1

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
        roll = ROLL_PIN
        reg = (roll >> 3) << 2
        shift = (roll & 7) << 2
        tp = TILE_PINS
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
