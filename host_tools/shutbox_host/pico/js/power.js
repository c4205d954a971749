// What rp2040js leaves out of the Pico's power: DORMANT and its GPIO wake, VBUS and VSYS sense.
/**
 * Added to a Pico (pico.js) at every build of its chip:
 *
 * - DORMANT: rp2040js keeps the XOSC's "coma" write (XOSC DORMANT) as a flag, but nothing
 *   wakes it, so xosc_dormant() (MicroPython's machine.lightsleep() without a time) waits for
 *   a STABLE that never comes. Here the write stops the core, as the RP2040's stopped crystal
 *   does (datasheet 2.11.5.2, 2.16.5): no instruction runs and the chip's own clock stands
 *   still (its timer too: time.ticks_ms() does not move while asleep), while the emulated
 *   wall time (Pico.now) goes on. The chip wakes when IO_BANK0's DORMANT_WAKE registers
 *   (INTE/INTF/INTS, +0x160..+0x18c, which rp2040js lacks: kept here) see their edge or level
 *   on a pin driven from outside; the crystal then restarts, which takes its STARTUP delay
 *   (256 x DELAY cycles of 12 MHz, x4 with X4) of wall time before the core runs on.
 * - VBUS sense (GPIO 24 on a Pico: high while USB powers it) is an input like a switch's;
 *   VSYS reaches ADC channel 3 through the Pico's divider by 3 (R5, R6 of its schematic), so
 *   the ADC reads VSYS / 3 against its 3.3 V reference: setSupply(vbus, vsysMv).
 *
 * Not modelled: the currents (the bench's power model takes them from datasheets), the ROSC
 * and the clock tree (MicroPython reprograms them around a sleep; rp2040js runs every
 * peripheral on one clock whatever they say), USB's suspend (the emulated host keeps the
 * link), and a wake from the RTC.
 */

const XOSC_KEY = 0x40024; // rp2040.peripherals key of the XOSC
const IO_BANK0_KEY = 0x40014;
const XOSC_DORMANT = 0x08;
const COMA = 0x636f6d61; // "coma": XOSC DORMANT's value that stops the crystal
const DORMANT_INTE0 = 0x160;
const DORMANT_INTF0 = 0x170;
const DORMANT_INTS3 = 0x18c;
const XOSC_HZ = 12e6;
export const VBUS_GPIO = 24;
export const VSYS_CHANNEL = 3;
const VSYS_FULL_SCALE_MV = 3 * 3300; // the divider by 3, the ADC's 3.3 V reference

/** The 12-bit ADC code of VSYS *mv* on channel 3. */
export function vsysCode(mv) {
  return Math.max(0, Math.min(4095, Math.round((mv * 4096) / VSYS_FULL_SCALE_MV)));
}

/** Attach the model to the freshly built chip of *pico*. */
export function attach(pico, chip) {
  const xosc = chip.peripherals[XOSC_KEY];
  const io = chip.peripherals[IO_BANK0_KEY];
  const inte = new Uint8Array(30); // DORMANT_WAKE_INTE nibbles per GPIO
  const intf = new Uint8Array(30);
  pico.dormantWake = { inte, intf };
  pico.dormant = false;
  const ints = (g) => (chip.gpio[g].irqStatus & inte[g]) | intf[g];
  const xoscWrite = xosc.writeUint32.bind(xosc);
  xosc.writeUint32 = (offset, value) => {
    xoscWrite(offset, value);
    if (offset === XOSC_DORMANT && value >>> 0 === COMA) {
      pico.dormant = true;
      pico.brk = true;
      if (pico.opts.onDormant) pico.opts.onDormant(pico.now, true);
      checkWake(pico); // a wake source already set wakes it at once
    }
  };
  const ioRead = io.readUint32.bind(io);
  const ioWrite = io.writeUint32.bind(io);
  io.readUint32 = (offset) => {
    if (offset >= DORMANT_INTE0 && offset <= DORMANT_INTS3) {
      const reg = offset & ~0xf;
      const first = (offset & 0xf) * 2;
      let v = 0;
      for (let i = 7; i >= 0; i--) {
        const g = first + i;
        if (g >= 30) continue;
        const n = reg === DORMANT_INTE0 ? inte[g] : reg === DORMANT_INTF0 ? intf[g] : ints(g);
        v = (v << 4) | n;
      }
      return v >>> 0;
    }
    return ioRead(offset);
  };
  io.writeUint32 = (offset, value) => {
    if (offset >= DORMANT_INTE0 && offset < DORMANT_INTF0 + 0x10) {
      const arr = offset < DORMANT_INTF0 ? inte : intf;
      const first = (offset & 0xf) * 2;
      for (let i = 0; i < 8; i++) if (first + i < 30) arr[first + i] = (value >>> (4 * i)) & 0xf;
      return;
    }
    if (offset >= DORMANT_INTF0 + 0x10 && offset <= DORMANT_INTS3) return; // INTS: read-only
    ioWrite(offset, value);
  };
  chip.adc.channelValues[VSYS_CHANNEL] = vsysCode(pico.supply.vsysMv);
}

/** Wake *pico* if a dormant-wake source of its chip is active; true when it woke. */
export function checkWake(pico) {
  if (!pico.dormant) return false;
  const { inte, intf } = pico.dormantWake;
  const gpio = pico.chip.gpio;
  for (let g = 0; g < 30; g++) {
    if ((gpio[g].irqStatus & inte[g]) | intf[g]) {
      wake(pico);
      return true;
    }
  }
  return false;
}

function wake(pico) {
  const xosc = pico.chip.peripherals[XOSC_KEY];
  // the crystal starts again: STARTUP.DELAY x 256 cycles (x 4 with X4) before it is stable
  const x4 = xosc.startup & 0x100000 ? 4 : 1;
  const startNs = (((xosc.startup & 0x3fff) * 256 * x4) / XOSC_HZ) * 1e9;
  pico.base += startNs;
  pico.dormantNs += startNs;
  pico.dormant = false;
  xosc.writeUint32(XOSC_DORMANT, 0x77616b65); // "wake": rp2040js's XOSC is stable again
  if (pico.opts.onDormant) pico.opts.onDormant(pico.now, false);
}
