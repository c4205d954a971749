// The box's chip in a Web Worker: the real MicroPython rp2 build on rp2040js (pico.js), at real time.
/**
 * The page (app.js) owns the box's parts and the saved flash; this worker owns the chip. It
 * builds a Pico (../../pico/js/pico.js, the core `shutbox emu` and the tests drive) from the
 * flash the page kept, or from MicroPython's uf2 with the firmware's littlefs image, and runs
 * it in slices of at most SLICE_MS of wall time, never ahead of the wall's clock and at most
 * LAG_NS behind it (past that the debt is dropped: the box runs in slow motion rather than
 * racing to catch up).
 *
 * Messages from the page: {op: 'start', config, flash, migrate, levels, powered} (migrate: the
 * flash of a box made by another build, whose /data is carried over), {op: 'input', levels,
 * w} (GPIO -> level, w: the wall time of the user's action, ms since the epoch), {op: 'power',
 * on}, {op: 'now'} (answered by 'now' {t}: the chip's clock between two slices). Inputs apply as they come, in order, except that Roll's release keeps the time it was
 * held: when the chip runs slower than real time, a release waits until the chip has been
 * held as long as the user held it (a long press stays long). And each level of Roll stays
 * on the pin for at least config.pressMs of the chip's time (the firmware's shortest press,
 * which its debouncer always counts): a quick click, a tap or a key of any length is a press
 * the box takes, and so is each of two quick ones.
 * To the page: {ev: 'ready', image, carried} (the whole flash when built here; carried: the
 * files moved from the old build's box, or why they could not be), 'frame' {t, data},
 * 'console' {t, text}, 'tone' {t, hz, duty} (t: the chip's clock, ms), 'flash' {addr, data} (the bytes a finished erase or
 * program left: the page mirrors the flash from these), 'reset' {why}, 'stats' {...},
 * 'error' {msg}.
 */
import { FS_OFFSET, Pico } from '../../pico/js/pico.js';

const SLICE_MS = 5; // wall time of one slice of emulation before the worker reads messages (inputs)
const LAG_NS = 100e6; // the chip may fall this far behind the wall before the debt is dropped
const STATS_MS = 500;

let pico = null;
let cfg = null;
let powered = false;
let anchorEmu = 0; // ns of emulated time at wall time anchorWall (ms)
let anchorWall = 0;
let timer = null;
const queue = []; // inputs waiting for their emulated time: {e, levels}
let rollDown = null; // {e, w} of the Roll press under way
let rollLevel = null; // Roll's last level queued (null: none since the power-up)
let rollAt = -Infinity; // ns of emulated time it goes on the pin
let stats = null;
const decoder = new TextDecoder();

function wallMs() {
  return performance.timeOrigin + performance.now();
}

async function fetchBytes(name) {
  const res = await fetch(new URL(name, self.location.href));
  if (!res.ok) throw new Error(`${name}: HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

async function start(msg) {
  cfg = msg.config;
  const bootrom = await fetchBytes(cfg.files.bootrom);
  const opts = {
    bootrom,
    ledPin: cfg.pins.led,
    buzzerPin: cfg.pins.buzzer,
    pullups: [],
    onFrame: (t, data) => postMessage({ ev: 'frame', t: t / 1e6, data }),
    onConsole: (t, bytes) => postMessage({ ev: 'console', t: t / 1e6, text: decoder.decode(bytes, { stream: true }) }),
    onTone: (t, hz, duty) => postMessage({ ev: 'tone', t: t / 1e6, hz, duty }),
    onReset: (t, why) => postMessage({ ev: 'reset', why, t: t / 1e6 }),
    onError: (t, m) => postMessage({ ev: 'error', msg: `emulated chip at ${(t / 1e6).toFixed(1)} ms: ${m}` }),
  };
  let built = false;
  let carried = null;
  if (msg.flash) {
    opts.flash = msg.flash;
  } else {
    const [uf2, fs] = await Promise.all([fetchBytes(cfg.files.uf2), fetchBytes(cfg.files.fs)]);
    if (msg.migrate) {
      try {
        const moved = migrate(bootrom, msg.migrate, uf2, fs);
        opts.flash = moved.flash;
        carried = moved.files;
      } catch (err) {
        carried = String(err && err.message ? err.message : err);
      }
    }
    if (!opts.flash) {
      opts.uf2 = uf2;
      opts.fsImage = fs;
      opts.fsOffset = cfg.fsOffset ?? FS_OFFSET;
    }
    built = true;
  }
  pico = new Pico(opts);
  for (const [g, level] of Object.entries(msg.levels)) pico.setInput(Number(g), level);
  mirrorFlash(pico);
  postMessage({ ev: 'ready', image: built ? pico.flash.slice() : null, carried });
  if (msg.powered) powerOn(false);
}

// ---- a new build: the box's /data carried over, as `shutbox flash` keeps it ----

const MIGRATE_MS = 20000; // emulated time each REPL step may take

/** Run *p* until the console (collected in out.text) matches *re*; throw at the timeout. */
function runFor(p, out, re, what) {
  const end = p.now + MIGRATE_MS * 1e6;
  while (!re.test(out.text)) {
    if (p.now >= end || p.halted) throw new Error(`no ${what} from the box's REPL`);
    p.runUntil(p.now + 5e6);
  }
}

/** Stop the firmware by Ctrl-C (it stops its watchdog) and wait for the REPL's prompt. */
function toRepl(p, out) {
  const end = p.now + MIGRATE_MS * 1e6;
  while (!p.connected && p.now < end) p.runUntil(p.now + 5e6);
  p.runUntil(p.now + 300e6); // the firmware under way
  out.text = '';
  p.write([3]);
  p.runUntil(p.now + 50e6);
  p.write([3]);
  runFor(p, out, />>> $/, 'prompt');
}

/** Paste *code* at the prompt (paste mode), run it, return what it printed. */
function paste(p, out, code) {
  out.text = '';
  p.write([5, ...new TextEncoder().encode(code.replace(/\n/g, '\r')), 4]);
  runFor(p, out, /=== [\s\S]*>>> $/, 'answer');
  return out.text;
}

const DUMP = `import os, binascii
def _w(d):
    for n in os.listdir(d):
        q = d + '/' + n
        if os.stat(q)[0] & 0x4000:
            _w(q)
        else:
            with open(q, 'rb') as f:
                print('F', q, binascii.hexlify(f.read()).decode())
_w('/data')
print('END')
`;

/**
 * Copy every file under /data of the box's old flash (another build's firmware) to a flash
 * laid out anew (*uf2*, the new firmware's *fs* image), through each chip's USB console as a
 * developer would with mpremote; return {flash, files}. The settings, records and the game
 * in progress go with them (a game the new firmware cannot take up is replaced, as on a box).
 */
function migrate(bootrom, oldFlash, uf2, fs) {
  const out = { text: '' };
  const onConsole = (t, bytes) => { out.text += decoder.decode(bytes, { stream: true }); };
  const base = { bootrom, ledPin: cfg.pins.led, buzzerPin: cfg.pins.buzzer, onConsole };
  const pull = [...cfg.pins.tiles, cfg.pins.roll]; // every switch open, Roll up
  const old = new Pico({ ...base, flash: oldFlash, pullups: pull });
  toRepl(old, out);
  const text = paste(old, out, DUMP);
  if (!/\bEND\r?\n/.test(text)) throw new Error("the old box's files could not be read");
  const files = [...text.matchAll(/^F (\S+) ([0-9a-f]*)\r?$/gm)].map((m) => [m[1], m[2]]);
  const fresh = new Pico({ ...base, uf2, fsImage: fs, fsOffset: cfg.fsOffset ?? FS_OFFSET, pullups: pull });
  toRepl(fresh, out);
  for (const [path, hex] of files) {
    const dirs = path.split('/').slice(1, -1);
    const code = [
      'import os, binascii',
      ...dirs.map((_, i) => {
        const d = '/' + dirs.slice(0, i + 1).join('/');
        return `try:\n    os.mkdir('${d}')\nexcept OSError:\n    pass`;
      }),
      `with open('${path}', 'wb') as f:\n    f.write(binascii.unhexlify('${hex}'))`,
      "print('OK')",
      '',
    ].join('\n');
    if (!/\bOK\r?\n/.test(paste(fresh, out, code))) throw new Error(`${path} could not be written`);
  }
  fresh.runUntil(fresh.now + 100e6); // the last writes done
  if (fresh.stall) fresh.finishStall(fresh.stall.t1);
  return { flash: fresh.flash.slice(), files: files.length };
}

/** Report the bytes each finished flash operation left (the page keeps the flash). */
function mirrorFlash(p) {
  const finish = p.finishStall.bind(p);
  p.finishStall = (upTo) => {
    const s = p.stall;
    const whole = finish(upTo);
    const end = Math.min(p.flash.length, s.addr + s.count + 256);
    postMessage({ ev: 'flash', addr: s.addr, data: p.flash.slice(s.addr, end) });
    return whole;
  };
  // the box's own erases ahead (firmware/shutbox/chip.py through the flash chip's commands)
  p.erasedAhead = (addr) => postMessage({ ev: 'flash', addr, data: p.flash.slice(addr, addr + 4096) });
}

function powerOn(cycle) {
  if (cycle) pico.powerCycle();
  powered = true;
  queue.length = 0;
  rollLevel = null;
  rollAt = -Infinity;
  anchorEmu = pico.now;
  anchorWall = wallMs();
  stats = { w: anchorWall, e: pico.now, busy: pico.busyNs, work: 0 };
  schedule(0);
}

function powerOff() {
  powered = false;
  if (timer !== null && timer !== 'now') clearTimeout(timer);
  timer = null;
  queue.length = 0;
  rollDown = null;
}

function input(levels, w) {
  if (!powered) {
    // the chip is off: the levels are there when it powers up
    for (const [g, level] of Object.entries(levels)) pico.setInput(Number(g), level);
    return;
  }
  let e = Math.max(pico.now, queue.length ? queue[queue.length - 1].e : 0);
  const roll = String(cfg.pins.roll);
  if (roll in levels && levels[roll] !== rollLevel) {
    e = Math.max(e, rollAt + cfg.pressMs * 1e6); // the level before held long enough
    const pressed = levels[roll] === cfg.pins.active;
    if (pressed) rollDown = { e, w };
    else if (rollDown) {
      e = Math.max(e, rollDown.e + (w - rollDown.w) * 1e6);
      rollDown = null;
    }
    rollLevel = levels[roll];
    rollAt = e;
  }
  queue.push({ e, levels });
  if (timer !== 'now') schedule(0);
}

function apply(item) {
  for (const [g, level] of Object.entries(item.levels)) pico.setInput(Number(g), level);
}

// Going on at once through a message (a zero setTimeout is clamped to 4 ms once nested)
const kick = new MessageChannel();
kick.port1.onmessage = () => {
  if (timer === 'now') step();
};

function schedule(ms) {
  if (timer !== null && timer !== 'now') clearTimeout(timer);
  if (ms > 0) {
    timer = setTimeout(step, ms);
  } else {
    timer = 'now';
    kick.port2.postMessage(0);
  }
}

function step() {
  timer = null;
  if (!powered || !pico || pico.halted) return;
  const t0 = performance.now();
  const w = performance.timeOrigin + t0;
  let target = anchorEmu + (w - anchorWall) * 1e6;
  if (target - pico.now > LAG_NS) {
    // slower than real time: keep LAG_NS of debt, drop the rest
    anchorEmu -= target - pico.now - LAG_NS; // (the anchor moves back: the debt past LAG_NS is forgiven)
    target = pico.now + LAG_NS;
  }
  const deadline = t0 + SLICE_MS;
  const late = () => performance.now() > deadline;
  for (;;) {
    while (queue.length && queue[0].e <= pico.now) apply(queue.shift());
    const until = Math.min(target, queue.length ? queue[0].e : Infinity);
    if (until > pico.now) pico.runUntil(until, late);
    if (pico.halted || pico.now >= target || late()) break;
  }
  while (queue.length && queue[0].e <= pico.now) apply(queue.shift());
  const t1 = performance.now();
  stats.work += t1 - t0;
  if (t1 + performance.timeOrigin - stats.w >= STATS_MS) report(t1 + performance.timeOrigin);
  if (pico.halted) {
    postMessage({ ev: 'error', msg: `the emulated core stopped: ${pico.halted}` });
    return;
  }
  // caught up: wait for the wall (the firmware sleeps 2 ms between polls); else go on at once
  schedule(pico.now >= target ? 2 : 0);
}

function report(w) {
  const dw = w - stats.w;
  const de = pico.now - stats.e;
  postMessage({
    ev: 'stats',
    emuMs: pico.now / 1e6,
    speed: de / 1e6 / dw, // emulated time / wall time (1: real time)
    load: stats.work / dw, // the share of the wall the worker spent emulating
    busy: de > 0 ? (pico.busyNs - stats.busy) / de : 0, // the chip's share of time executing
  });
  stats = { w, e: pico.now, busy: pico.busyNs, work: 0 };
}

self.onmessage = (event) => {
  const msg = event.data;
  try {
    if (msg.op === 'start') {
      start(msg).catch((err) => postMessage({ ev: 'error', msg: String(err && err.message ? err.message : err) }));
    } else if (!pico) {
      // not started yet: nothing to drive
    } else if (msg.op === 'input') {
      input(msg.levels, msg.w);
    } else if (msg.op === 'power') {
      if (msg.on && !powered) powerOn(true);
      else if (!msg.on && powered) powerOff();
    } else if (msg.op === 'now') {
      postMessage({ ev: 'now', t: pico.now / 1e6 });
    }
  } catch (err) {
    postMessage({ ev: 'error', msg: String(err && err.message ? err.message : err) });
  }
};
