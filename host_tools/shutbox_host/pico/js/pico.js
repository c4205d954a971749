// The emulated Pico: rp2040js driven as a board the box's firmware runs on (no Node APIs here).
/**
 * An RP2040 (rp2040js) with what its emulator lacks filled in, as the shutbox host drives it:
 *
 * - a flash chip: the ROM's flash_range_erase ('RE') and flash_range_program ('RP'), found
 *   through the ROM function table, are replaced by breakpoint stubs that erase (0xFF) and
 *   program (AND, as NOR flash does) the emulator's flash array, and stall the core for a
 *   typical W25Q16JV time (45 ms a 4 KB sector, 0.4 ms a 256-byte page); a power cut during
 *   that time leaves the operation half done;
 * - a USB host that NAKs: the device's armed OUT transfer is held until there are bytes to
 *   send (rp2040js's USBCDC answers it at once with zero bytes, 100,000 interrupts a second);
 * - a watchdog that resets the chip: on expiry (or a forced trigger) the RP2040 is built
 *   again with fresh RAM, keeping the flash, the watchdog's REASON and SCRATCH registers and
 *   the input levels;
 * - pull-ups: inputs are driven from outside (setInput); pins named in `pullups` start high;
 * - WS2812 frames decoded from the LED data pin by pulse timing, failing loudly on timings
 *   outside the WS2812B datasheet's tolerances; the buzzer's PWM frequency and duty;
 * - DORMANT and its GPIO wake, VBUS sense and VSYS on ADC3 (power.js).
 *
 * Time is the emulator's clock (WFI/WFE jumping to the next alarm), counted across rebuilds; a
 * cycle lasts 1 / clk_sys, the system clock the firmware sets through the PLL and clock
 * registers (rp2040js's clkSys: 8 ns at the 125 MHz the rp2 port starts at, 7.52 at 133). Everything runs synchronously in `runUntil`; the caller (the Node
 * line protocol in node_main.js, or a web page) decides when. Works in a browser: it only
 * needs rp2040js and typed arrays.
 */
import { GPIOPinState, RP2040, USBCDC } from 'rp2040js';
import { fastDecoder } from './core.js';
import * as power from './power.js';

export const FLASH_SIZE = 2 * 1024 * 1024; // RPI_PICO: 2 MB (pico-sdk boards/pico.h)
export const FS_OFFSET = 0xa0000; // RPI_PICO littlefs: flash size minus 1,408 KB (rp2_flash.c)
const FLASH_BASE = 0x10000000;
// W25Q16JV typical sector erase and page program (the datasheet's maximum: 400 ms, 3 ms);
// opts.eraseNs and opts.programNs set others
const ERASE_NS_PER_4K = 45e6;
const PROGRAM_NS_PER_PAGE = 0.4e6;
const SUSPEND_NS = 20e3; // W25Q16JV tSUS: an erase suspend in effect within 20 us (datasheet)
// W25Q16JV JEDEC id (9Fh): manufacturer EFh, memory type 40h, capacity 15h (Winbond W25Q16JV
// datasheet, "Manufacturer and Device Identification" table: W25Q16JV-IQ/JQ, ID15-ID0 4015h)
export const W25Q16JV_JEDEC = 0xef4015;
const BKPT_ERASE = 0xe5;
const BKPT_PROGRAM = 0xe6;
const WATCHDOG_BASE_KEY = 0x40058; // rp2040.peripherals key of the watchdog
// WS2812B datasheet (Worldsemi, rev. 1.0): T0H 0.4 us, T1H 0.8 us, T0L 0.85 us, T1L 0.45 us,
// each +-150 ns; RES (the latch) above 50 us.
const WS = { t0h: [250, 550], t1h: [650, 950], t0l: [700, 1000], t1l: [300, 600], res: 50000 };

/** Parse a UF2 file: [{addr, data, family}] of its blocks (https://github.com/microsoft/uf2). */
export function parseUF2(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const blocks = [];
  if (bytes.length === 0 || bytes.length % 512) {
    throw new Error('not a UF2 file (its size is not a multiple of 512 bytes)');
  }
  for (let off = 0; off < bytes.length; off += 512) {
    const m0 = view.getUint32(off, true);
    const m1 = view.getUint32(off + 4, true);
    const end = view.getUint32(off + 508, true);
    if (m0 !== 0x0a324655 || m1 !== 0x9e5d5157 || end !== 0x0ab16f30) {
      throw new Error(`not a UF2 file (bad magic in block ${off / 512})`);
    }
    const flags = view.getUint32(off + 8, true);
    if (flags & 1) continue; // "not main flash"
    const addr = view.getUint32(off + 12, true);
    const size = view.getUint32(off + 16, true);
    const family = flags & 0x2000 ? view.getUint32(off + 28, true) : null;
    blocks.push({ addr, family, data: bytes.subarray(off + 32, off + 32 + size) });
  }
  return blocks;
}

export const RP2040_FAMILY = 0xe48bff56;

/** Lay a UF2 image into a flash array; throws for another chip family or out-of-range data. */
export function loadUF2(flash, bytes) {
  const blocks = parseUF2(bytes);
  const families = new Set(blocks.map((b) => b.family).filter((f) => f !== null));
  if (!families.has(RP2040_FAMILY)) {
    const list = [...families].map((f) => '0x' + f.toString(16)).join(', ') || 'none';
    throw new Error(`the UF2 is not for the RP2040 (family ${list}, want 0xe48bff56)`);
  }
  let top = 0;
  for (const b of blocks) {
    if (b.family !== null && b.family !== RP2040_FAMILY) continue;
    const off = b.addr - FLASH_BASE;
    if (off < 0 || off + b.data.length > flash.length) {
      throw new Error(`UF2 block at 0x${b.addr.toString(16)} is outside the 2 MB flash`);
    }
    flash.set(b.data, off);
    top = Math.max(top, off + b.data.length);
  }
  return top;
}

/** A small deterministic PRNG (mulberry32) for the state of half-done flash operations. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Decodes WS2812 frames from the edges of the data pin. */
class WS2812Decoder {
  constructor(onFrame, onError) {
    this.onFrame = onFrame;
    this.onError = onError;
    this.high = false;
    this.rise = -1; // time of the last rising edge
    this.fall = -1; // time of the last falling edge
    this.bits = []; // bits of the frame under way
    this.start = 0;
    this.lastBit = -1;
  }

  edge(level, t) {
    if (level === this.high) return;
    this.high = level;
    if (level) {
      if (this.fall >= 0 && this.bits.length) {
        const low = t - this.fall;
        if (low >= WS.res) {
          this.flush();
        } else {
          const [lo, hi] = this.lastBit ? WS.t1l : WS.t0l;
          if (low < lo || low > hi) {
            this.fail(`low time ${low} ns after a ${this.lastBit} bit (bit ${this.bits.length})` +
              ` is outside ${lo}-${hi} ns and is no reset (>= ${WS.res} ns)`);
          }
        }
      }
      if (!this.bits.length) this.start = t;
      this.rise = t;
    } else {
      if (this.rise < 0) return;
      const h = t - this.rise;
      let bit;
      if (h >= WS.t0h[0] && h <= WS.t0h[1]) bit = 0;
      else if (h >= WS.t1h[0] && h <= WS.t1h[1]) bit = 1;
      else {
        this.fail(`high time ${h} ns (bit ${this.bits.length}) is neither a 0 ` +
          `(${WS.t0h[0]}-${WS.t0h[1]} ns) nor a 1 (${WS.t1h[0]}-${WS.t1h[1]} ns)`);
        bit = h > 600 ? 1 : 0;
      }
      this.bits.push(bit);
      this.lastBit = bit;
      this.fall = t;
    }
  }

  /** The line has been low since `fall`: end the frame if that is a reset by time t. */
  idle(t) {
    if (!this.high && this.bits.length && t - this.fall >= WS.res) this.flush();
  }

  flush() {
    const bits = this.bits;
    this.bits = [];
    if (bits.length % 8) {
      this.fail(`a frame of ${bits.length} bits is not whole bytes`);
    }
    const bytes = new Uint8Array(bits.length >> 3);
    for (let i = 0; i < bytes.length; i++) {
      let v = 0;
      for (let j = 0; j < 8; j++) v = (v << 1) | bits[8 * i + j];
      bytes[i] = v;
    }
    this.onFrame(this.start, bytes);
  }

  fail(message) {
    this.onError('ws2812: ' + message);
  }
}

/**
 * Word reads and writes of SRAM and of the XIP flash straight to the chip's arrays, before
 * rp2040js's own dispatch (which looks the peripherals up first on every write): the same
 * results, about 15-40 % more instructions a second (a web page must keep up with real time).
 * Unaligned, mirrored (XIP_NOALLOC, ...) and every other address go the original way.
 */
function fastMemory(chip) {
  const RAM = 0x20000000;
  const sram = chip.sramView;
  const flash = chip.flashView;
  const ramEnd = RAM + chip.sram.length - 3;
  const flashEnd = FLASH_BASE + FLASH_SIZE - 3;
  const read32 = chip.readUint32.bind(chip);
  const write32 = chip.writeUint32.bind(chip);
  chip.readUint32 = (a) => {
    if ((a & 3) === 0) {
      if (a >= RAM && a < ramEnd) return sram.getUint32(a - RAM, true);
      if (a >= FLASH_BASE && a < flashEnd) return flash.getUint32(a - FLASH_BASE, true);
    }
    return read32(a);
  };
  chip.writeUint32 = (a, v) => {
    if ((a & 3) === 0 && a >= RAM && a < ramEnd) sram.setUint32(a - RAM, v, true);
    else write32(a, v);
  };
}

/**
 * A W25Q16JV behind the RP2040's SSI (the Pico's flash chip: on unless options.flashChip is
 * false; a number is the JEDEC id it answers, another chip's), for code that drives the flash
 * itself with XIP off (an erase that it suspends and resumes); MicroPython's own erases and
 * programs still go through the ROM stubs above. rp2040js's SSI alone answers every byte 0:
 * a status read would say an erase was done that never happened. Commands are taken a byte at a time from
 * SSI DR0 writes (each answered in the RX FIFO), framed by chip select: the IO_QSPI SS
 * override (low, then high, as the ROM's flash_cs_force does) or, left to the SSI, a frame
 * that ends when the status register is polled with the TX FIFO empty (boot2's way). It
 * models (datasheet, cited): 06h write enable (WEL), 04h write disable, 05h/35h status
 * registers 1 (BUSY bit 0, WEL bit 1) and 2 (QE bit 1, SUS bit 7), 20h sector erase (needs
 * WEL; it starts when CS goes high, lasts options.eraseNs), 75h erase suspend (in effect
 * tSUS 20 us later: BUSY 0, SUS 1), 7Ah resume, 9Fh JEDEC id (EF 40 15, or the one given),
 * 4Bh unique id (zeros, as rp2040js's SSI answers); bytes with CS forced high, and flash_exit_xip's frames (0x00 bytes sent with the
 * data lines pulled high, 0xFF) do nothing.
 * While the erase runs, the sector reads as a half-erased one (old bits OR random ones),
 * and 0xFF once it is done. It fails loudly (onError) on an XIP read (an instruction fetch
 * included) while the chip is busy erasing (the check wraps the chip's reads only then: it
 * costs nothing the rest of the time) and on a command it does not model. Not
 * modelled: page program (02h), reads through commands (03h/0Bh; XIP reads are the array's),
 * quad modes (boot2's continuous-read setup is accepted as is), any minimum time between
 * a resume and the next suspend, and an erase going on through a watchdog reset (the chip is
 * built again: the sector is left half erased, as after a power cut). MicroPython's own
 * erase (the ROM stub) while a sector erase is suspended, or its program of that sector,
 * fails loudly too: the chip would ignore them.
 */
class W25Q {
  constructor(pico, chip, jedec) {
    this.pico = pico;
    this.chip = chip;
    this.jedec = jedec;
    this.frame = []; // bytes of the command under way (CS low)
    this.rx = [];
    this.wel = false;
    this.erase = null; // {addr, t0, left (ns still to do), runFrom (ns) or -1 suspended}
    this.suspendAt = -1; // a suspend takes effect at this time
    this.manual = false; // CS driven by the IO_QSPI override
    this.ssCtrl = 0;
    const ssi = chip.peripherals[0x18000];
    const ssiRead = ssi.readUint32.bind(ssi);
    const ssiWrite = ssi.writeUint32.bind(ssi);
    ssi.readUint32 = (offset) => {
      if (offset === 0x60) return this.rx.length ? this.rx.shift() : 0;
      if (offset === 0x24) return this.rx.length;
      if (offset === 0x28) {
        if (!this.manual && this.frame.length) this.endFrame();
        return 0x6 | (this.rx.length ? 0x8 : 0); // TFNF, TFE, RFNE; never BUSY
      }
      return ssiRead(offset);
    };
    ssi.writeUint32 = (offset, value) => {
      if (offset === 0x60 && (ssi.crtlr0 >>> 21 & 3) === 0) {
        this.byte(value & 0xff);
        return;
      }
      ssiWrite(offset, value);
    };
    const io = {
      readUint32: (offset) => (offset === 0x0c ? this.ssCtrl : 0),
      writeUint32: (offset, value) => {
        if (offset !== 0x0c) return;
        this.ssCtrl = value >>> 0;
        const over = (value >>> 8) & 3;
        if (over === 2) {
          this.manual = true;
          this.frame = [];
        } else if (this.manual) {
          this.endFrame();
          this.manual = over === 2;
        }
      },
      writeUint32Atomic: (offset, value, type) => {
        const cur = io.readUint32(offset);
        io.writeUint32(offset, type === 1 ? cur ^ value : type === 2 ? cur | value
          : type === 3 ? cur & ~value : value);
      },
    };
    chip.peripherals[0x40018] = io;
    // XIP reads while the flash erases: the core could not have fetched them. The chip's
    // reads are wrapped only while an erase runs (guard): a check on every read the rest of
    // the time would slow the whole emulator
    const FLASH_LO = FLASH_BASE;
    const FLASH_HI = 0x14000000;
    this.plain = {};
    this.checked = {};
    for (const name of ['readUint32', 'readUint16', 'readUint8']) {
      const read = chip[name];
      this.plain[name] = read;
      this.checked[name] = (a) => {
        if (a >= FLASH_LO && a < FLASH_HI && this.busy()) {
          this.pico.error(`w25q: XIP read of 0x${(a >>> 0).toString(16)} while the flash ` +
            `erases (pc 0x${(chip.core.PC >>> 0).toString(16)})`);
          this.pico.halted = 'an XIP read while the flash erases';
          this.pico.brk = true;
        }
        return read.call(chip, a);
      };
    }
    this.guarded = false;
  }

  /** Wrap the chip's reads in the XIP check while an erase runs (not suspended), else not. */
  guard() {
    const on = this.erase !== null && this.erase.runFrom >= 0;
    if (on === this.guarded) return;
    this.guarded = on;
    const fns = on ? this.checked : this.plain;
    for (const name in fns) this.chip[name] = fns[name];
  }

  /** Bring the erase up to now: done, or its suspend in effect. */
  update() {
    const e = this.erase;
    if (!e) return;
    const now = this.pico.now;
    if (e.runFrom >= 0) {
      const stop = this.suspendAt >= 0 ? Math.min(this.suspendAt, now) : now;
      if (stop - e.runFrom >= e.left) {
        this.pico.flash.fill(0xff, e.addr, e.addr + 4096);
        this.erase = null;
        this.suspendAt = -1;
        this.wel = false;
        this.pico.erasesAhead = (this.pico.erasesAhead || 0) + 1;
        this.guard();
        if (this.pico.opts.onFlash) {
          this.pico.opts.onFlash(e.t0, e.runFrom + e.left, true, e.addr, 4096, null);
        }
        this.pico.erasedAhead(e.addr);
        return;
      }
      if (this.suspendAt >= 0 && now >= this.suspendAt) {
        e.left -= this.suspendAt - e.runFrom;
        e.runFrom = -1;
        this.suspendAt = -1;
        this.guard();
      }
    }
  }

  busy() {
    this.update();
    return this.erase !== null && this.erase.runFrom >= 0;
  }

  status(n) {
    this.update();
    const e = this.erase;
    if (n === 1) return (e && e.runFrom >= 0 ? 1 : 0) | (this.wel ? 2 : 0);
    return 2 | (e && e.runFrom < 0 ? 0x80 : 0);
  }

  byte(b) {
    if (((this.ssCtrl >>> 8) & 3) === 3) {
      this.rx.push(0xff); // CS forced high: the chip is not selected
      return;
    }
    const f = this.frame;
    f.push(b);
    const op = f[0];
    let out = 0;
    if (f.length > 1 && (op === 0x05 || op === 0x35)) out = this.status(op === 0x05 ? 1 : 2);
    else if (op === 0x9f && f.length >= 2 && f.length <= 4) out = (this.jedec >>> (8 * (4 - f.length))) & 0xff;
    this.rx.push(out);
    if (!this.manual && f.length === 1 && op === 0x75) this.endFrame();
  }

  endFrame() {
    const f = this.frame;
    this.frame = [];
    if (!f.length) return;
    const op = f[0];
    this.update();
    const now = this.pico.now;
    const e = this.erase;
    // flash_exit_xip's frames: sent with the data lines pulled high (the chip reads 1s)
    if (op === 0x05 || op === 0x35 || op === 0xff || f.every((x) => x === 0)) return;
    if (op === 0x06) {
      if (!(e && e.runFrom >= 0)) this.wel = true;
    } else if (op === 0x01) {
      // write status (boot2 sets QE, already set, when SR2 is not exactly 0x02: SUS makes
      // it 0x82 while an erase is suspended); ignored during a suspend, as the chip does
      if (!e) this.wel = false;
    } else if (op === 0x4b || op === 0x9f) {
      // the unique id's bytes were answered 0 as they came, the JEDEC id's as the chip's
    } else if (op === 0x04) {
      this.wel = false;
    } else if (op === 0x20 && f.length === 4) {
      if (e) {
        this.pico.error('w25q: a sector erase while another is under way or suspended');
        return;
      }
      if (!this.wel) return; // ignored, as the chip does
      const addr = ((f[1] << 16) | (f[2] << 8) | f[3]) & ~0xfff;
      if (addr + 4096 > FLASH_SIZE) {
        this.pico.error(`w25q: erase past the flash: 0x${addr.toString(16)}`);
        return;
      }
      this.erase = { addr, t0: now, left: this.pico.opts.eraseNs ?? ERASE_NS_PER_4K,
        runFrom: now };
      this.pico.irqSlice = true;
      const rnd = prng(now ^ addr);
      const fl = this.pico.flash;
      for (let i = addr; i < addr + 4096; i++) fl[i] |= Math.floor(rnd() * 256);
      this.guard();
    } else if (op === 0x75) {
      if (e && e.runFrom >= 0 && this.suspendAt < 0) this.suspendAt = now + SUSPEND_NS;
    } else if (op === 0x7a) {
      if (e && e.runFrom < 0) e.runFrom = now;
      this.pico.irqSlice = true;
      this.guard();
    } else {
      this.pico.error(`w25q: command 0x${op.toString(16)} (${f.length} bytes: ` +
        `${f.map((b) => b.toString(16)).join(' ')}; CS ${this.manual ? 'forced' : 'SSI'}, ` +
        `CTRLR0 0x${(this.chip.peripherals[0x18000].crtlr0 >>> 0).toString(16)}) not modelled`);
    }
  }
}

/**
 * The emulated Pico. `options`: bootrom (Uint8Array, 16 KB), uf2 (Uint8Array) or flash
 * (a whole 2 MB image), fsImage + fsOffset (a littlefs image), ledPin, buzzerPin, pullups
 * (GPIOs that read high unless driven), vbus and vsysMv (the supply: USB by default, VSYS
 * 4700 mV), watchPins (GPIOs whose output level onPin reports), and callbacks:
 * onConsole(t, bytes), onFrame(t, bytes), onTone(t, hz, duty), onReset(t, why),
 * onError(t, message), onConnect(t), onFlash(t0, t1, erase, addr, count, data) (a flash
 * operation, the time it takes and the bytes a program writes), onDormant(t, asleep), onPin(t, gpio, level: 1, 0 or -1 not driven).
 */
export class Pico {
  constructor(options) {
    this.opts = options;
    this.bootrom = new Uint32Array(4096);
    const rom = options.bootrom;
    if (!rom || rom.length !== 16384) throw new Error('the bootrom must be 16,384 bytes');
    new Uint8Array(this.bootrom.buffer).set(rom);
    this.flash = new Uint8Array(FLASH_SIZE).fill(0xff);
    if (options.flash) this.flash.set(options.flash.subarray(0, FLASH_SIZE));
    else if (options.uf2) loadUF2(this.flash, options.uf2);
    if (options.fsImage) this.flash.set(options.fsImage, options.fsOffset ?? FS_OFFSET);
    this.inputs = new Map(); // gpio -> level driven from outside
    for (const g of options.pullups || []) this.inputs.set(g, true);
    this.supply = { vbus: options.vbus ?? true, vsysMv: options.vsysMv ?? 4700 };
    this.inputs.set(power.VBUS_GPIO, this.supply.vbus);
    this.dormantNs = 0; // wall time the chip spent DORMANT (its clock stopped)
    this.base = 0; // ns of emulated time before the current chip was built
    this.resets = 0;
    this.busyNs = 0; // time the core executed instructions (not WFI/WFE, not stalled)
    this.waitNs = 0;
    this.stallNs = 0;
    this.erases = 0;
    this.programs = 0;
    this.hooks = null; // {pc: Set of addresses, hit(pc)} counted entries (bench)
    this.blHook = null; // (core) => void after each BL/BLX
    this.halted = null; // why the core stopped for good (a breakpoint, a fault)
    this.traceMask = 0; // GPIOs whose reads are traced (0: no trace)
    this.spans = null; // [start, end, ...] of the core's busy spans between WFI/WFE (bench)
    this.spanStart = -1;
    this.build({ reason: 0, scratch: new Uint32Array(8) });
  }

  /** Emulated time in ns since the first power-up. */
  get now() {
    return this.base + this.chip.clock.nanos;
  }

  /** (Re)build the chip: fresh RAM and peripherals, the flash and the input levels kept. */
  build(watchdog) {
    if (this.chip) this.base += this.chip.clock.nanos;
    const chip = new RP2040();
    fastDecoder(chip.core);
    const noop = () => {};
    chip.logger = { debug: noop, info: noop, warn: noop, error: (c, m) => this.error(`${c}: ${m}`) };
    chip.loadBootrom(this.bootrom);
    chip.flash.set(this.flash);
    this.flash = chip.flash.subarray(0, FLASH_SIZE); // one array: the chip's own
    this.chip = chip;
    // a cycle's ns follow clk_sys as the firmware sets it (machine.freq: the PLL, the mux)
    // (whole ns on the clock: the part of a cycle left over is carried to the next)
    this.cycleNs = 1e9 / chip.clkSys;
    this.fracNs = 0;
    chip.addClockListener((hz) => {
      this.cycleNs = 1e9 / hz;
    });
    fastMemory(chip);
    this.patchRom(chip);
    const fc = this.opts.flashChip ?? true;
    this.w25q = fc === false ? null
      : new W25Q(this, chip, typeof fc === 'number' ? fc : W25Q16JV_JEDEC);
    const wd = chip.peripherals[WATCHDOG_BASE_KEY];
    wd.reason = watchdog.reason;
    wd.scratchData.set(watchdog.scratch);
    wd.onWatchdogTrigger = () => {
      // rp2040js would fire the expired alarm again at once, forever: stop it, then reset
      wd.alarm.enable = false;
      wd.timer.enable = false;
      this.pendingReset = wd.reason & 2 ? 'force' : 'watchdog';
      this.brk = true;
    };
    this.watchdog = wd;
    power.attach(this, chip);
    this.pendingReset = null;
    this.stall = null; // a flash operation under way: {kind, addr, count, data, t0, t1}
    chip.onBreak = (code) => this.onBreak(code);
    if (this.blHook) chip.core.blTaken = this.blHook;
    for (const [g, level] of this.inputs) chip.gpio[g].setInputValue(level);
    // the LED chain
    const led = this.opts.ledPin;
    this.ws = null;
    if (led !== undefined) {
      this.ws = new WS2812Decoder(
        (t, bytes) => this.opts.onFrame && this.opts.onFrame(t, bytes),
        (message) => this.error(message));
      const pin = chip.gpio[led];
      pin.addListener((value) => this.ws.edge(value === GPIOPinState.High, this.now));
    }
    for (const g of this.opts.watchPins || []) {
      const pin = chip.gpio[g];
      const level = (v) => (v === GPIOPinState.High ? 1 : v === GPIOPinState.Low ? 0 : -1);
      if (this.opts.onPin) this.opts.onPin(this.now, g, level(pin.value));
      pin.addListener((v) => this.opts.onPin && this.opts.onPin(this.now, g, level(v)));
    }
    // the buzzer
    this.tone = { hz: 0, duty: 0 };
    const bz = this.opts.buzzerPin;
    if (bz !== undefined) {
      const ch = chip.pwm.channels[(bz >> 1) & 7];
      const write = ch.writeRegister.bind(ch);
      ch.writeRegister = (offset, value) => {
        write(offset, value);
        this.checkTone();
      };
      const pin = chip.gpio[bz];
      pin.addListener(() => this.checkTone());
    }
    // the USB host: enumerate, then carry bytes both ways; OUT transfers wait for bytes
    this.hostBytes = [];
    this.heldRead = null;
    const cdc = new USBCDC(chip.usbCtrl);
    cdc.onDeviceConnected = () => {
      this.connected = true;
      if (this.opts.onConnect) this.opts.onConnect(this.now);
    };
    cdc.onSerialData = (bytes) => this.opts.onConsole && this.opts.onConsole(this.now, bytes);
    chip.usbCtrl.onEndpointRead = (endpoint, size) => {
      if (endpoint !== cdc.outEndpoint) return;
      this.heldRead = size;
      this.feedHost();
    };
    this.cdc = cdc;
    this.connected = false;
    if (this.traceMask) this.hookTrace(chip);
    chip.core.PC = FLASH_BASE; // boot2 at the start of flash, the ROM mapped at 0
  }

  /**
   * Trace what the firmware reads: onTrace(t, 'T', us) for the last timer read before a
   * GPIO_IN read (time.ticks_ms() before a poll), onTrace(t, 'G', levels & mask) for each
   * GPIO_IN read. A replay of the firmware's polls on the host takes exactly these inputs.
   */
  trace(mask) {
    this.traceMask = mask >>> 0;
    if (mask) this.hookTrace(this.chip);
  }

  hookTrace(chip) {
    if (chip.traced) return;
    chip.traced = true;
    const sio = chip.sio;
    const sioRead = sio.readUint32.bind(sio);
    let timerUs = -1;
    let fresh = false;
    sio.readUint32 = (offset) => {
      const v = sioRead(offset);
      if (offset === 4 && this.traceMask && this.opts.onTrace) {
        const t = this.now;
        if (fresh) this.opts.onTrace(t, 'T', timerUs);
        fresh = false;
        this.opts.onTrace(t, 'G', v & this.traceMask);
      }
      return v;
    };
    const timer = chip.peripherals[0x40054];
    const timerRead = timer.readUint32.bind(timer);
    timer.readUint32 = (offset) => {
      const v = timerRead(offset);
      if (offset === 0x28 || offset === 0x0c) {
        timerUs = Math.floor(chip.clock.nanos / 1000);
        fresh = true;
      }
      return v;
    };
  }

  /** Replace the ROM's flash erase and program by breakpoint stubs. */
  patchRom(chip) {
    const rom = new DataView(chip.bootrom.buffer);
    const table = rom.getUint16(0x14, true);
    const found = {};
    for (let p = table; ; p += 4) {
      const code = rom.getUint16(p, true);
      if (!code) break;
      found[code] = rom.getUint16(p + 2, true) & ~1;
    }
    const RE = 0x52 | (0x45 << 8);
    const RP = 0x52 | (0x50 << 8);
    if (!found[RE] || !found[RP]) throw new Error('the bootrom has no flash_range_erase/program');
    rom.setUint16(found[RE], 0xbe00 | BKPT_ERASE, true);
    rom.setUint16(found[RE] + 2, 0x4770, true); // bx lr
    rom.setUint16(found[RP], 0xbe00 | BKPT_PROGRAM, true);
    rom.setUint16(found[RP] + 2, 0x4770, true);
  }

  onBreak(code) {
    const r = this.chip.core.registers;
    if (code === BKPT_ERASE || code === BKPT_PROGRAM) {
      const erase = code === BKPT_ERASE;
      const addr = r[0] >>> 0;
      const count = r[erase ? 1 : 2] >>> 0;
      let data = null;
      if (!erase) {
        data = new Uint8Array(count);
        for (let i = 0; i < count; i++) data[i] = this.chip.readUint8(r[1] + i);
      }
      const w = this.w25q;
      if (w && w.erase && (erase || (addr < w.erase.addr + 4096 && addr + count > w.erase.addr))) {
        // the chip ignores an erase during a suspend, and a program of the suspended sector
        this.error(`w25q: ${erase ? 'an erase' : 'a program of the sector'} while a sector ` +
          `erase is suspended (0x${w.erase.addr.toString(16)})`);
        return;
      }
      const t0 = this.now;
      const dt = erase ? (this.opts.eraseNs ?? ERASE_NS_PER_4K) * Math.ceil(count / 4096)
        : (this.opts.programNs ?? PROGRAM_NS_PER_PAGE) * Math.ceil(count / 256);
      if (addr + count > FLASH_SIZE) {
        this.error(`flash ${erase ? 'erase' : 'program'} past the 2 MB flash: 0x${addr.toString(16)}+${count}`);
        return;
      }
      this.stall = { erase, addr, count, data, t0, t1: t0 + dt };
      this.brk = true;
      if (this.opts.onFlash) this.opts.onFlash(t0, t0 + dt, erase, addr, count, data);
      if (erase) this.erases += Math.ceil(count / 4096);
      else this.programs += Math.ceil(count / 256);
      return;
    }
    this.brk = true;
    this.halted = `the core hit a breakpoint (bkpt #${code}) at 0x${(this.chip.core.PC - 2).toString(16)}`;
    this.error(this.halted);
  }

  /** Apply the flash operation under way, the whole of it or (a power cut) the part done. */
  finishStall(upTo) {
    const s = this.stall;
    this.stall = null;
    const f = this.flash;
    const whole = upTo >= s.t1;
    const n = whole ? s.count : Math.floor((s.count * (upTo - s.t0)) / (s.t1 - s.t0));
    if (s.erase) f.fill(0xff, s.addr, s.addr + n);
    else for (let i = 0; i < n; i++) f[s.addr + i] &= s.data[i];
    if (!whole) {
      // the cells under way when the power went: some bits done, some not
      const rnd = prng(upTo ^ s.addr);
      const end = Math.min(s.count, n + 256);
      for (let i = n; i < end; i++) {
        const mask = Math.floor(rnd() * 256);
        if (s.erase) f[s.addr + i] |= mask;
        else f[s.addr + i] &= s.data[i] | mask;
      }
    }
    return whole;
  }

  error(message) {
    if (this.opts.onError) this.opts.onError(this.now, message);
  }

  /** A sector the flash chip erased on its own commands (W25Q): the web page mirrors it. */
  erasedAhead(addr) {}

  /**
   * Record from now on the spans with interrupts off (PRIMASK set, cpsid i), each marked 1
   * where the flash chip took a sector erase or a resume in it (the box's erase ahead), else
   * 0 (MicroPython's own: its flash erases and programs, its atomic sections); off: stop.
   * Returns those recorded so far as [t0 ns, t1 ns, mark, ...]. The core's PRIMASK is then a
   * property (slower): the bench's alone.
   */
  irqOff(on) {
    const core = this.chip.core;
    const got = this.irqSpans || [];
    if (this.irqSpans) {
      const pm = core.PM;
      delete core.PM;
      core.PM = pm;
      this.irqSpans = null;
    }
    if (on) {
      const spans = [];
      this.irqSpans = spans;
      let pm = core.PM;
      let t0 = -1;
      Object.defineProperty(core, 'PM', {
        configurable: true,
        get: () => pm,
        set: (v) => {
          if (v && !pm) {
            t0 = this.now;
            this.irqSlice = false;
          } else if (!v && pm && t0 >= 0) {
            spans.push(t0, this.now, this.irqSlice ? 1 : 0);
          }
          pm = v;
        },
      });
    }
    return got;
  }

  checkTone() {
    const bz = this.opts.buzzerPin;
    const chip = this.chip;
    const ch = chip.pwm.channels[(bz >> 1) & 7];
    let hz = 0;
    let duty = 0;
    const pin = chip.gpio[bz];
    if (pin.functionSelect === 4 && ch.csr & 1) {
      const div = ch.timer.prescaler;
      const period = (ch.top + 1) * (ch.csr & 2 ? 2 : 1);
      const cc = bz & 1 ? ch.cc >>> 16 : ch.cc & 0xffff;
      duty = Math.min(1, cc / (ch.top + 1));
      if (duty > 0) hz = Math.round((chip.clkSys / div / period) * 100) / 100;
      else duty = 0;
    }
    if (hz !== this.tone.hz || duty !== this.tone.duty) {
      this.tone = { hz, duty };
      if (this.opts.onTone) this.opts.onTone(this.now, hz, duty);
    }
  }

  /** Drive GPIO *gpio* high (true) or low from outside; kept across rebuilds. The same
   * level again is no edge (rp2040js would latch one). */
  setInput(gpio, level) {
    this.inputs.set(gpio, !!level);
    const pin = this.chip.gpio[gpio];
    if (pin.rawInputValue === !!level) return;
    pin.setInputValue(!!level);
    power.checkWake(this);
  }

  /** The supply: USB present (*vbus*, GPIO 24 high) and VSYS in mV (ADC3 reads a third). */
  setSupply(vbus, vsysMv) {
    this.supply = { vbus: !!vbus, vsysMv };
    this.chip.adc.channelValues[power.VSYS_CHANNEL] = power.vsysCode(vsysMv);
    this.setInput(power.VBUS_GPIO, vbus);
  }

  /** Send bytes from the USB host to the device (its console input). */
  write(bytes) {
    for (const b of bytes) this.hostBytes.push(b);
    this.feedHost();
  }

  feedHost() {
    if (this.heldRead === null || !this.hostBytes.length || !this.cdc.initialized) return;
    const n = Math.min(this.heldRead, this.hostBytes.length);
    const buf = new Uint8Array(this.hostBytes.splice(0, n));
    this.heldRead = null;
    this.chip.usbCtrl.endpointReadDone(this.cdc.outEndpoint, buf);
  }

  /** The host raises or drops DTR/RTS (a program opening or closing the port). */
  setLineState(dtr, rts) {
    if (!this.cdc.initialized) return;
    this.cdc.cdcSetControlLineState((dtr ? 1 : 0) | (rts ? 2 : 0));
  }

  /** Power off and on again: fresh RAM and watchdog, the flash and the inputs kept. */
  powerCycle() {
    if (this.stall) this.finishStall(this.now);
    this.resets += 1;
    this.build({ reason: 0, scratch: new Uint32Array(8) });
  }

  /** The watchdog's reset: as a power cycle, but REASON and SCRATCH survive. */
  watchdogReset(why) {
    const wd = this.watchdog;
    const keep = { reason: wd.reason, scratch: new Uint32Array(wd.scratchData) };
    if (this.stall) this.finishStall(this.now);
    this.resets += 1;
    this.build(keep);
    if (this.opts.onReset) this.opts.onReset(this.now, why);
  }

  /**
   * Run until emulated time *target* (ns), or until stop() returns true (checked after every
   * console chunk and frame, and every few thousand instructions). Returns the time reached.
   * A flash operation under way at *target* is left under way (power it off to cut it).
   */
  runUntil(target, stop = null) {
    this.stopFlag = false;
    this.brk = false;
    let n = 0;
    while (!this.stopFlag && !this.halted) {
      const chip = this.chip;
      const core = chip.core;
      const clock = chip.clock;
      const base = this.base;
      const now = base + clock.nanos;
      if (now >= target) break;
      if (this.pendingReset) {
        this.watchdogReset(this.pendingReset);
        continue;
      }
      if (this.dormant) {
        // the crystal stopped: wall time passes, the chip's own clock does not
        if (this.spans !== null && this.spanStart >= 0) {
          this.spans.push(this.spanStart, now);
          this.spanStart = -1;
        }
        this.dormantNs += target - now;
        this.base += target - now;
        continue;
      }
      if (this.stall) {
        const until = Math.min(this.stall.t1, target);
        clock.tick(until - now);
        this.stallNs += until - now;
        if (until >= this.stall.t1) this.finishStall(until);
        continue;
      }
      this.brk = false;
      if (core.waiting) {
        let dt = clock.nanosToNextAlarm;
        if (dt <= 0 || now + dt > target) dt = target - now;
        clock.tick(dt);
        this.waitNs += dt;
        n += 2000;
      } else {
        if (this.spans !== null && this.spanStart < 0) this.spanStart = now;
        // a burst of instructions: at most 100 us, checks only where something happened
        const limit = Math.min(target - base, clock.nanos + 100000);
        let busy = 0;
        let frac = this.fracNs;
        const hooks = this.hooks;
        if (hooks === null) {
          while (!this.brk && !core.waiting && clock.nanos < limit) {
            frac += core.executeInstruction() * this.cycleNs;
            const ns = Math.floor(frac);
            frac -= ns;
            clock.tick(ns);
            busy += ns;
          }
        } else {
          const pcs = hooks.pc;
          while (!this.brk && !core.waiting && clock.nanos < limit) {
            if (pcs.has(core.PC)) hooks.hit(core.PC, core);
            frac += core.executeInstruction() * this.cycleNs;
            const ns = Math.floor(frac);
            frac -= ns;
            clock.tick(ns);
            busy += ns;
          }
        }
        this.fracNs = frac;
        this.busyNs += busy;
        n += busy / this.cycleNs;
        if (this.spans !== null && core.waiting) {
          this.spans.push(this.spanStart, this.base + clock.nanos);
          this.spanStart = -1;
        }
      }
      if (n >= 50000) {
        n = 0;
        if (this.ws) this.ws.idle(this.base + this.chip.clock.nanos);
        if (stop && stop()) break;
      }
    }
    if (this.ws) this.ws.idle(this.now);
    return this.now;
  }

  /** Ask a runUntil under way to return (from a callback). */
  requestStop() {
    this.stopFlag = true;
    this.brk = true;
  }

  /** The buzzer now: {hz, duty} (hz 0: silent). */
  buzzer() {
    return { ...this.tone };
  }
}
