// The Node side of shutbox_host.pico.emulator: the emulated Pico behind a line protocol.
/**
 * One JSON object a line on stdin (commands), one a line on stdout (events). The core is
 * pico.js; this file only adds files, the clock of the wall and the pipes.
 *
 * Commands ({"op": ...}; every one is answered by {"ev": "done", "id": ..., "t": ns} after
 * its events, or {"ev": "fail", "id": ..., "msg": ...}):
 *   init {bootrom, uf2 | flash, fs, fs_offset, led, buzzer, pullups, vbus, vsys_mv, watch,
 *     flash_data (1: each flash event carries the bytes programmed)}
 *   run {ns | until_ns, match (a RegExp source, one console line), frames (stop after n)}
 *   input {levels: {gpio: 0|1}}     write {b64}     line {dtr, rts}
 *   supply {vbus: 0|1, vsys_mv}: USB present or not (GPIO 24), VSYS (ADC3 reads a third)
 *   flash_get {path}   flash_set {path}   power_cycle   watchdog_reset   stats
 *   trace {mask}: report timer and GPIO_IN reads (trace events, "T<ns>:<us>"/"G<ns>:<levels>")
 *   spans {on}: start (or stop) recording the core's busy spans; returns those recorded
 *   count {addrs: [pc]}: count entries at these addresses (bench: gc_alloc)
 *   irqoff {on}: start (or stop) recording the spans with interrupts off, each marked 1 where
 *     the flash chip took an erase or resume in it (the erase ahead's slices); returns those
 *     recorded (spans, three numbers a span)
 *   bltrace {on, r0 | pcs}: report BL targets (with r1) entered with r0 == the given value,
 *     or of the given addresses (finding gc_alloc)
 *   gcwatch {on, entry}: record each call of the function at *entry* (MicroPython's
 *     gc_collect: bench.picow) as its entry and return ns, and when *mid* (a function it
 *     calls: gc_collect_end, the sweep) was first entered in it (-1: never), until off
 *     (returns them: spans, three numbers a call);
 *   gcarm {levels}: drive these inputs at the watched function's next entry (a press landing
 *     as a collection starts); gcarm {} returns when that was (armed_at ns, -1: not yet)
 *   go {lag_ms}: run freely at about real time (the pty bridge) until pause
 *   snapshot: keep the chip's whole state (snapshot.js), answered with its number (snap);
 *     restore {snap}: put it back (the chip then runs on exactly as it did from there);
 *     drop {snap}: forget it
 *   pause   quit
 * Events: console {t, b64}, frame {t, hex}, tone {t, hz, duty}, reset {t, why},
 *   connect {t}, error {t, msg}, flash {t, t1, erase, addr, count, b64 (flash_data: the
 *   bytes a program writes)}, dormant {t, on},
 *   pin {t, gpio, level} (a watched GPIO's output: 1, 0, -1 not driven).
 * stdin closing (the Python side gone) ends the process.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { FS_OFFSET, Pico } from './pico.js';
import * as snapshot from './snapshot.js';

// rp2040js and its users may print: keep stdout for the protocol only
console.log = console.info = console.debug = (...a) => process.stderr.write(a.join(' ') + '\n');

let pico = null;
let going = null; // the free-running state of `go`
let lineText = ''; // the console line under way (for run's match)
let matchRe = null;
let matched = false;
let framesWanted = 0;
let framesSeen = 0;
let failed = null;
const out = [];
const traceBuf = [];
const snaps = new Map(); // number -> {state, lineText}: snapshot's

function flushTrace() {
  if (traceBuf.length) {
    emit({ ev: 'trace', d: traceBuf.join(' ') });
    traceBuf.length = 0;
  }
}

function emit(obj) {
  out.push(JSON.stringify(obj));
  if (out.length >= 64) flush();
}

function flush() {
  if (out.length) {
    process.stdout.write(out.join('\n') + '\n');
    out.length = 0;
  }
}

function b64(bytes) {
  return Buffer.from(bytes).toString('base64');
}

function onConsole(t, bytes) {
  emit({ ev: 'console', t, b64: b64(bytes) });
  for (const c of bytes) {
    if (c === 10) {
      if (matchRe && matchRe.test(lineText)) {
        matched = true;
        pico.requestStop();
      }
      lineText = '';
    } else if (c !== 13) {
      lineText += String.fromCharCode(c);
    }
  }
  if (matchRe && lineText && matchRe.test(lineText)) {
    // a line still under way (a prompt) matches too
    matched = true;
    pico.requestStop();
  }
}

function onFrame(t, bytes) {
  emit({ ev: 'frame', t, hex: Buffer.from(bytes).toString('hex') });
  framesSeen += 1;
  if (framesWanted && framesSeen >= framesWanted) pico.requestStop();
}

function make(cmd) {
  const opts = {
    bootrom: readFileSync(cmd.bootrom),
    ledPin: cmd.led,
    buzzerPin: cmd.buzzer,
    pullups: cmd.pullups || [],
    vbus: cmd.vbus === undefined ? true : !!cmd.vbus,
    vsysMv: cmd.vsys_mv,
    eraseNs: cmd.erase_ns,
    programNs: cmd.program_ns,
    flashChip: cmd.flash_chip, // undefined: the W25Q16JV; false: none; a number: its JEDEC id
    watchPins: cmd.watch || [],
    onDormant: (t, on) => emit({ ev: 'dormant', t, on: on ? 1 : 0 }),
    onPin: (t, gpio, level) => emit({ ev: 'pin', t, gpio, level }),
    onConsole,
    onFrame,
    onTone: (t, hz, duty) => emit({ ev: 'tone', t, hz, duty }),
    onReset: (t, why) => emit({ ev: 'reset', t, why }),
    onConnect: (t) => emit({ ev: 'connect', t }),
    onFlash: (t0, t1, erase, addr, count, data) => {
      const ev = { ev: 'flash', t: t0, t1, erase, addr, count };
      if (cmd.flash_data && data) ev.b64 = Buffer.from(data).toString('base64');
      emit(ev);
    },
    onTrace: (t, kind, v) => {
      traceBuf.push(`${kind}${Math.round(t)}:${v}`);
      if (traceBuf.length >= 512) flushTrace();
    },
    onError: (t, msg) => {
      emit({ ev: 'error', t, msg });
      failed = msg;
      if (pico) pico.requestStop();
    },
  };
  if (cmd.flash) opts.flash = readFileSync(cmd.flash);
  else opts.uf2 = readFileSync(cmd.uf2);
  if (cmd.fs) {
    opts.fsImage = readFileSync(cmd.fs);
    opts.fsOffset = cmd.fs_offset ?? FS_OFFSET;
  }
  pico = new Pico(opts);
}

function run(cmd) {
  const target = cmd.until_ns ?? pico.now + cmd.ns;
  matchRe = cmd.match ? new RegExp(cmd.match) : null;
  matched = false;
  framesWanted = cmd.frames || 0;
  framesSeen = 0;
  failed = null;
  pico.runUntil(target);
  flushTrace();
  matchRe = null;
  let why = 'time';
  if (failed) why = 'error';
  else if (pico.halted) why = 'halted';
  else if (matched) why = 'match';
  else if (framesWanted && framesSeen >= framesWanted) why = 'frames';
  return { why };
}

function stats() {
  return {
    now: pico.now,
    busy_ns: pico.busyNs,
    wait_ns: pico.waitNs,
    dormant_ns: pico.dormantNs,
    dormant: pico.dormant,
    supply: pico.supply,
    stall_ns: pico.stallNs,
    resets: pico.resets,
    erases: pico.erases,
    erases_ahead: pico.erasesAhead || 0,
    programs: pico.programs,
    counts: pico.hooks ? Object.fromEntries(pico.hooks.counts) : {},
    connected: pico.connected,
    buzzer: pico.buzzer(),
  };
}

function setCount(addrs) {
  const counts = new Map(addrs.map((a) => [a, 0]));
  pico.hooks = {
    pc: new Set(addrs),
    counts,
    hit: (pc) => counts.set(pc, counts.get(pc) + 1),
  };
}

function blTrace(cmd) {
  if (!cmd.on) {
    pico.blHook = null;
    pico.chip.core.blTaken = () => {};
    const found = pico.blFound || {};
    pico.blFound = null;
    return { targets: found };
  }
  const want = cmd.r0 >>> 0;
  const pcs = cmd.pcs ? new Set(cmd.pcs) : null;
  pico.blFound = {};
  pico.blHook = (core) => {
    if (pcs ? pcs.has(core.PC) : core.registers[0] === want) {
      const key = core.PC.toString(16) + ':' + (core.registers[1] >>> 0);
      pico.blFound[key] = (pico.blFound[key] || 0) + 1;
    }
  };
  pico.chip.core.blTaken = pico.blHook;
  return {};
}

function gcWatch(cmd) {
  if (!cmd.on) {
    const got = { spans: pico.gcSpans || [], armed_at: pico.gcArmedAt ?? -1 };
    pico.hooks = null;
    pico.gcSpans = null;
    pico.gcArm = null;
    return got;
  }
  const entry = cmd.entry >>> 0;
  const mid = cmd.mid ? cmd.mid >>> 0 : -1; // a function it calls: when the first call begins
  const spans = [];
  const pc = new Set([entry]);
  if (mid >= 0) pc.add(mid);
  let tm = -1;
  let ret = -1;
  let sp = 0;
  let t0 = 0;
  pico.gcSpans = spans;
  pico.gcArm = null;
  pico.gcArmedAt = -1;
  pico.hooks = {
    pc,
    counts: new Map(),
    hit: (at, core) => {
      if (at === mid) {
        if (ret >= 0 && tm < 0) tm = pico.now;
      } else if (at === entry && ret < 0) {
        // a call: its return is to LR with the caller's SP (a BL pushes nothing)
        t0 = pico.now;
        tm = -1;
        ret = (core.registers[14] & ~1) >>> 0;
        sp = core.SP >>> 0;
        pc.add(ret);
        if (pico.gcArm) {
          for (const [g, level] of Object.entries(pico.gcArm)) pico.setInput(Number(g), level);
          pico.gcArm = null;
          pico.gcArmedAt = t0;
        }
      }
      if (at === ret && core.SP >>> 0 === sp) {
        spans.push(t0, pico.now, tm);
        if (ret !== entry) pc.delete(ret);
        ret = -1;
      }
    },
  };
  return {};
}

// ---- go: run freely at about the wall's pace, the lag bounded ----

function goStep() {
  if (!going) return;
  const wall = performance.now();
  let target = going.emu0 + (wall - going.wall0) * 1e6;
  if (target - pico.now > going.lag) {
    // behind by more than the bound (busy code runs slower than a real chip): do not race
    going.emu0 = pico.now;
    going.wall0 = wall;
    target = pico.now + 1e6;
  }
  const deadline = wall + 20;
  pico.runUntil(Math.max(target, pico.now + 1000), () => performance.now() > deadline);
  flush();
  going.timer = setTimeout(goStep, pico.now >= target ? 2 : 0);
}

const handlers = {
  init: (c) => (make(c), {}),
  run,
  input: (c) => {
    for (const [g, level] of Object.entries(c.levels)) pico.setInput(Number(g), level);
    return {};
  },
  write: (c) => (pico.write(Buffer.from(c.b64, 'base64')), {}),
  supply: (c) => (pico.setSupply(!!c.vbus, c.vsys_mv), {}),
  line: (c) => (pico.setLineState(c.dtr, c.rts), {}),
  flash_get: (c) => {
    if (pico.stall) pico.finishStall(pico.now);
    writeFileSync(c.path, pico.flash);
    return {};
  },
  flash_set: (c) => {
    const data = readFileSync(c.path);
    pico.flash.fill(0xff);
    pico.flash.set(data.subarray(0, pico.flash.length));
    return {};
  },
  power_cycle: () => (pico.powerCycle(), {}),
  watchdog_reset: () => (pico.watchdogReset('force'), {}),
  stats,
  trace: (c) => (pico.trace(c.mask), {}),
  spans: (c) => {
    const got = pico.spans || [];
    pico.spans = c.on ? [] : null;
    pico.spanStart = -1;
    return { spans: got };
  },
  count: (c) => (setCount(c.addrs), {}),
  irqoff: (c) => ({ spans: pico.irqOff(!!c.on) }),
  bltrace: blTrace,
  gcwatch: gcWatch,
  gcarm: (c) => {
    if (!c.levels) return { armed_at: pico.gcArm ? -1 : pico.gcArmedAt ?? -1 };
    pico.gcArm = c.levels;
    pico.gcArmedAt = -1;
    return {};
  },
  go: (c) => {
    going = { emu0: pico.now, wall0: performance.now(), lag: (c.lag_ms ?? 500) * 1e6 };
    setTimeout(goStep, 0);
    return {};
  },
  snapshot: () => {
    // what go, irqoff, gcwatch and trace keep in closures, not properties, would be missed
    if (going || pico.irqSpans || pico.gcSpans || pico.chip.traced) {
      throw new Error('no snapshot while go, irqoff, gcwatch or trace is on');
    }
    flushTrace();
    const snap = snaps.size ? Math.max(...snaps.keys()) + 1 : 1;
    snaps.set(snap, { state: snapshot.take([pico]), lineText });
    return { snap };
  },
  restore: (c) => {
    const s = snaps.get(c.snap);
    if (!s) throw new Error(`no snapshot ${c.snap}`);
    if (going) throw new Error('restore while go is on');
    snapshot.restore(s.state);
    lineText = s.lineText;
    return {};
  },
  drop: (c) => (snaps.delete(c.snap), {}),
  pause: () => {
    if (going) clearTimeout(going.timer);
    going = null;
    return {};
  },
  quit: () => {
    flush();
    process.exit(0);
  },
};

let pending = '';
process.stdin.on('data', (chunk) => {
  pending += chunk.toString('utf8');
  let i;
  while ((i = pending.indexOf('\n')) >= 0) {
    const line = pending.slice(0, i);
    pending = pending.slice(i + 1);
    if (!line.trim()) continue;
    let cmd;
    try {
      cmd = JSON.parse(line);
      const h = handlers[cmd.op];
      if (!h) throw new Error(`unknown op ${cmd.op}`);
      if (!pico && cmd.op !== 'init') throw new Error('init first');
      const res = h(cmd);
      emit({ ev: 'done', id: cmd.id, t: pico ? pico.now : 0, ...res });
    } catch (err) {
      emit({ ev: 'fail', id: cmd && cmd.id, msg: String(err && err.message ? err.message : err) });
    }
    flush();
  }
});
process.stdin.on('end', () => {
  flush();
  process.exit(0);
});
process.stdout.on('error', () => process.exit(0));
