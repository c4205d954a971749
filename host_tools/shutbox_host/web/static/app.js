// The box in a web page: its tiles, Roll, power switch, LEDs, dice, buzzer and log, on the worker's chip.
/**
 * The chip runs in worker.js (the real MicroPython rp2 build on rp2040js). This page is the
 * rest of the box: the tile switches and Roll drive the chip's GPIOs (hardware/pinmap.json,
 * through box.json), the LEDs show the WS2812 frames the chip sends (decoded by pulse timing
 * in pico.js), the buzzer plays the PWM's frequency and duty through Web Audio, the USB
 * console's lines are the game log. The flash is mirrored here from the worker's reports and
 * kept in IndexedDB (after writes settle, and on pagehide); the tiles, the power switch and
 * the mute control are kept in localStorage, so a reload finds the box as it was left.
 *
 * Beside the box the page says what it does in the terminal box's words (words.js reads the
 * vocabulary of shutbox_host.model.words that box.json carries): the game log as sentences,
 * the power-up screen (the settings menu, the records...) read off the LEDs while it shows,
 * the LED colours' legend; the game log saves as the JSON lines `shutbox report` reads.
 *
 * window.shutbox is the page's state for the tests and the bench: frames, log, words,
 * latencies (a tile's click to its LED changing on the page), firstLitMs (navigation to the
 * first lit frame), saves, errors, stats.
 */
(() => {
  const SAVE_SETTLE_MS = 300; // a burst of flash writes is saved once it has been quiet this long
  const FRAMES_KEPT = 2000;
  const LOG_LINES_SHOWN = 300;
  const PENDING_MS = 2000; // a flip whose LED has not changed by then is not waited for
  const STORE = 'shutbox-box';
  const WORDS_SHOWN = 200;
  const SLOW = 0.9; // below this speed the status says the box runs in slow motion
  const $ = (sel) => document.querySelector(sel);
  const W = window.shutboxWords;

  const state = {
    ready: false,
    powered: true,
    rollHeld: false,
    latched: false,
    muted: false,
    tiles: 0, // bit k set: tile k+1 open (up)
    frames: [], // {t (emulated ms), w (page ms), hex}
    log: [], // JSON records of the console, each with _w (page ms) and _t (emulated ms)
    lines: [], // every console line
    latencies: [], // {tile, ms}
    unanswered: 0, // flips whose LED did not change within PENDING_MS
    superseded: 0, // flips followed by another of the same tile before the LED changed
    measure: true, // time the flips (false: flips the box ignores, as its tiles during a score)
    firstLitMs: null,
    saves: 0,
    dirty: false, // flash writes not yet handed to IndexedDB
    unsaved: false, // writes not yet saved (dirty, or a save not yet complete)
    errors: [],
    stats: null,
    tone: { hz: 0, duty: 0 },
    tones: [], // every note the buzzer played: {hz, duty, t (emulated ms), w (page ms)}
    audio: null, // the Web Audio context's state, once a click or a key started it
    notice: null,
    carried: null, // a new build: the files carried over from the old one's box (or why not)
    build: null,
    words: [], // the game log in words (words.js), as the page shows it
    mode: 0, // the power-up screen showing (words.js MENU, RECORDS...; 0: the game)
    screen: [], // that screen in words, as the page shows it
    letters: '', // the last frame's LEDs as palette letters: tiles, die A, die B
  };
  window.shutbox = state;
  // The chip's clock now (ms), asked of the worker: a promise for the tests, whose scripts
  // keep the box's time, not the wall's (a loaded machine runs the chip in slow motion).
  const chipWaits = [];
  window.shutboxChipMs = () => new Promise((resolve) => {
    chipWaits.push(resolve);
    if (worker) worker.postMessage({ op: 'now' });
  });

  let cfg = null;
  let worker = null;
  let mirror = null; // the flash, as the chip left it
  let db = null;
  let saveTimer = null;
  let consoleTail = '';
  let resetting = false; // a new box: nothing is saved again as the page goes away
  const ctx = {}; // what the log is read with (words.js track: the computer's seats)
  let mem = {}; // what the power-up screen's frames said (words.js see)
  const pending = new Map(); // tile index -> {t, key}: clicks waiting for their LED to change
  const leds = []; // LED elements in chain order
  const tileEls = [];
  let ledKeys = [];

  // ---- storage ----

  function openDb() {
    return new Promise((resolve, reject) => {
      const req = indexedDB.open(STORE, 1);
      req.onupgradeneeded = () => req.result.createObjectStore('box');
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
  }

  function dbGet(key) {
    return new Promise((resolve, reject) => {
      const req = db.transaction('box').objectStore('box').get(key);
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
  }

  function dbPut(key, value) {
    return new Promise((resolve, reject) => {
      const tx = db.transaction('box', 'readwrite');
      tx.objectStore('box').put(value, key); // the value is copied here, synchronously
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error);
    });
  }

  function saveFlash() {
    if (saveTimer !== null) clearTimeout(saveTimer);
    saveTimer = null;
    if (resetting || !state.dirty || !db || !mirror) {
      state.unsaved = state.dirty;
      return;
    }
    state.dirty = false;
    dbPut('flash', { build: cfg.build, flash: mirror, saved: Date.now() })
      .then(() => {
        state.saves += 1;
        state.unsaved = state.dirty || saveTimer !== null;
        showStatus();
      })
      .catch((err) => fail(`the box's flash could not be saved: ${err}`));
  }

  function keepLocal() {
    if (resetting) return;
    localStorage.setItem('shutbox.tiles', String(state.tiles));
    localStorage.setItem('shutbox.power', state.powered ? '1' : '0');
    localStorage.setItem('shutbox.muted', state.muted ? '1' : '0');
  }

  // ---- the chip ----

  function levelsOf() {
    const lv = {};
    const act = cfg.pins.active;
    for (let k = 0; k < cfg.tiles; k++) {
      lv[cfg.pins.tiles[k]] = state.tiles >> k & 1 ? 1 - act : act;
    }
    lv[cfg.pins.roll] = state.rollHeld || state.latched ? act : 1 - act;
    return lv;
  }

  function send(levels) {
    if (worker && state.ready) {
      worker.postMessage({ op: 'input', levels, w: performance.timeOrigin + performance.now() });
    }
  }

  function onWorker(event) {
    const m = event.data;
    if (m.ev === 'frame') onFrame(m.t, m.data);
    else if (m.ev === 'console') onConsole(m.t, m.text);
    else if (m.ev === 'now') {
      for (const resolve of chipWaits.splice(0)) resolve(m.t);
    } else if (m.ev === 'tone') {
      state.tone = { hz: m.hz, duty: m.duty };
      state.tones.push({ hz: m.hz, duty: m.duty, t: m.t, w: performance.now() });
      if (state.tones.length > FRAMES_KEPT) state.tones.shift();
      applyTone();
    } else if (m.ev === 'flash') {
      if (mirror) {
        mirror.set(m.data, m.addr);
        state.dirty = true;
        state.unsaved = true;
        if (saveTimer !== null) clearTimeout(saveTimer);
        saveTimer = setTimeout(saveFlash, SAVE_SETTLE_MS);
      }
    } else if (m.ev === 'ready') {
      if (typeof m.carried === 'number') {
        state.notice = `a new build of the box: its ${m.carried} saved files carried over`;
      } else if (m.carried) {
        state.notice = `a new build of the box: a new box (the old one's files: ${m.carried})`;
      }
      state.carried = m.carried;
      if (m.image) {
        mirror = m.image;
        state.dirty = true;
        saveFlash();
      }
      state.ready = true;
      send(levelsOf()); // what changed while the worker loaded
      showStatus();
      showScreen();
    } else if (m.ev === 'stats') {
      state.stats = m;
      showStatus();
    } else if (m.ev === 'reset') {
      addLine(`(the chip restarted: ${m.why})`);
      startScreen(); // it boots again: the power-up screen the switches ask for
    } else if (m.ev === 'error') {
      fail(m.msg);
    }
  }

  function fail(msg) {
    state.errors.push(msg);
    console.error('shutbox: ' + msg);
    $('#status').textContent = msg;
    $('#status').classList.add('error');
  }

  // ---- LEDs ----

  let rgbOf = null; // wire bytes -> [r, g, b]
  const names = new Map(); // "r,g,b" -> palette letter
  const levels = new Map(); // "r,g,b" -> brightness level (0 low, 1 medium, 2 high)

  function setupColours() {
    const order = cfg.ledOrder;
    const idx = ['R', 'G', 'B'].map((c) => order.indexOf(c));
    rgbOf = (data, i) => [data[3 * i + idx[0]], data[3 * i + idx[1]], data[3 * i + idx[2]]];
    cfg.palettes.forEach((pal, level) => {
      for (let c = 0; c < cfg.names.length; c++) {
        const key = pal.slice(3 * c, 3 * c + 3).join(',');
        names.set(key, cfg.names[c]);
        if (c) levels.set(key, level);
      }
    });
  }

  // The LEDs' light is dim on purpose (channels up to 10, 40 or 60 of 255 by brightness: board.py's _SCALE):
  // on a screen each shows its hue at full strength, a little dimmer for the lower levels.
  const LEVEL_SHADE = [0.62, 0.85, 1];

  function shade(rgb) {
    const m = Math.max(...rgb);
    const level = levels.get(rgb.join(','));
    const f = level === undefined ? 0.6 + 0.4 * Math.min(1, m / cfg.fullScale) : LEVEL_SHADE[level];
    return rgb.map((v) => Math.round((v * 255 * f) / m));
  }

  function paint(el, rgb) {
    const key = rgb.join(',');
    el.dataset.c = names.get(key) || '?';
    el.dataset.rgb = key;
    if (!rgb[0] && !rgb[1] && !rgb[2]) {
      el.style.background = '';
      el.style.boxShadow = '';
      el.classList.remove('lit');
      return;
    }
    const c = `rgb(${shade(rgb).join(', ')})`;
    el.style.background = c;
    el.style.boxShadow = `0 0 ${6 + 6 * Math.sqrt(Math.max(...rgb) / cfg.fullScale)}px ${c}, 0 0 2px ${c}`;
    el.classList.add('lit');
  }

  function onFrame(t, data) {
    const w = performance.now();
    let hex = '';
    for (const b of data) hex += (b < 16 ? '0' : '') + b.toString(16);
    state.frames.push({ t, w, hex });
    if (state.frames.length > FRAMES_KEPT) state.frames.splice(0, state.frames.length - FRAMES_KEPT);
    const n = Math.min(leds.length, data.length / 3);
    let lit = false;
    let letters = '';
    for (let i = 0; i < n; i++) {
      const rgb = rgbOf(data, i);
      const key = rgb.join(',');
      letters += names.get(key) || '?';
      if (key !== '0,0,0') lit = true;
      if (ledKeys[i] !== key) {
        ledKeys[i] = key;
        if (state.powered) paint(leds[i], rgb);
      }
    }
    if (lit && state.firstLitMs === null) state.firstLitMs = w;
    state.letters = letters;
    if (state.mode) {
      const t = cfg.tiles;
      W.see(state.mode, letters.slice(0, t), letters.slice(t, t + 7), letters.slice(t + 7, t + 14), mem,
        cfg.words);
      showScreen();
    }
    for (const [k, p] of pending) {
      if (w - p.t > PENDING_MS) {
        pending.delete(k); // the box did not answer this flip on its LED (it may ignore it)
        state.unanswered += 1;
      } else if (ledKeys[k] !== p.key) {
        pending.delete(k);
        // the LED is on the page once the browser has drawn this frame
        requestAnimationFrame(() => {
          state.latencies.push({ tile: k + 1, ms: performance.now() - p.t });
        });
      }
    }
  }

  function dark() {
    for (const el of leds) paint(el, [0, 0, 0]);
  }

  // ---- the console: the game log ----

  function addLine(text) {
    state.lines.push(text);
    const pre = $('#log');
    const atEnd = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 8;
    const div = document.createElement('div');
    div.textContent = text;
    if (text.startsWith('{')) div.className = 'json';
    pre.appendChild(div);
    while (pre.childNodes.length > LOG_LINES_SHOWN) pre.removeChild(pre.firstChild);
    if (atEnd) pre.scrollTop = pre.scrollHeight;
  }

  function addWords(text) {
    state.words.push(text);
    const list = $('#words');
    const li = document.createElement('li');
    li.textContent = text;
    list.appendChild(li);
    while (list.childNodes.length > WORDS_SHOWN) list.removeChild(list.firstChild);
    list.scrollTop = list.scrollHeight;
  }

  // The power-up screen in words while it shows (the settings menu, the records, ...), and
  // what the switched-off box waits for.
  function showScreen() {
    const voc = cfg.words;
    let lines = [];
    if (!state.powered) {
      lines = [W.fill(voc.screens.off, voc.controls, {}, voc)];
    } else if (state.mode) {
      const l = state.letters;
      const t = cfg.tiles;
      lines = W.screenLines(state.mode, l.slice(0, t), l.slice(t, t + 7), l.slice(t + 7, t + 14), mem,
        voc.controls, voc);
    }
    if (lines.join('\n') === state.screen.join('\n')) return;
    state.screen = lines;
    const el = $('#screen');
    el.replaceChildren(...lines.map((x) => {
      const p = document.createElement('p');
      p.textContent = x;
      return p;
    }));
    el.hidden = !lines.length;
  }

  // The box starts: with Roll held, the power-up screen its tiles ask for (shutbox.powerup's
  // combination, as box.json lists it for every tile mask), else the game.
  function startScreen() {
    mem = {};
    state.mode = state.rollHeld || state.latched ? cfg.powerOn[state.tiles] : W.GAME;
    showScreen();
  }

  function onConsole(t, text) {
    consoleTail += text;
    let i;
    while ((i = consoleTail.indexOf('\n')) >= 0) {
      const line = consoleTail.slice(0, i).replace(/\r$/, '');
      consoleTail = consoleTail.slice(i + 1);
      if (line.startsWith('{')) {
        let rec = null;
        try {
          rec = JSON.parse(line);
        } catch (err) {
          // a line that only looks like JSON: shown, not parsed
        }
        if (rec !== null && typeof rec === 'object' && typeof rec.ev === 'string') {
          W.track(rec, ctx);
          addWords(W.say(rec, ctx, cfg.words));
          if (rec.ev === 'settings') {
            state.mode = W.GAME; // the power-up screen is over: the game starts
            showScreen();
          }
          rec._w = performance.now();
          rec._t = t;
          state.log.push(rec);
        }
      }
      addLine(line);
    }
  }

  // ---- the buzzer ----

  let audio = null;
  const waves = new Map();

  function audioOn() {
    if (!audio) {
      const Ctx = window.AudioContext || window.webkitAudioContext;
      if (!Ctx) return;
      const ctx = new Ctx();
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      gain.gain.value = 0;
      osc.connect(gain).connect(ctx.destination);
      osc.start();
      audio = { ctx, osc, gain, duty: -1 };
    }
    if (audio.ctx.state === 'suspended') audio.ctx.resume();
    state.audio = audio.ctx.state;
    applyTone();
  }

  // A pulse wave of the PWM's duty (soft is 1/16, loud 1/2: a square wave), not normalised,
  // so a soft note is as much quieter as the piezo's.
  function pulseWave(duty) {
    let w = waves.get(duty);
    if (!w) {
      const n = 32;
      const re = new Float32Array(n);
      const im = new Float32Array(n);
      for (let k = 1; k < n; k++) {
        const a = (2 / (k * Math.PI)) * Math.sin(k * Math.PI * duty);
        re[k] = a * Math.cos(k * Math.PI * duty);
        im[k] = a * Math.sin(k * Math.PI * duty);
      }
      w = audio.ctx.createPeriodicWave(re, im, { disableNormalization: true });
      waves.set(duty, w);
    }
    return w;
  }

  function applyTone() {
    const { hz, duty } = state.tone;
    const on = hz > 0 && duty > 0 && state.powered && !state.muted;
    $('#buzzer').classList.toggle('on', hz > 0 && duty > 0 && state.powered);
    if (!audio) return;
    const t = audio.ctx.currentTime;
    if (on) {
      if (audio.duty !== duty) {
        audio.osc.setPeriodicWave(pulseWave(duty));
        audio.duty = duty;
      }
      audio.osc.frequency.setValueAtTime(hz, t);
    }
    audio.gain.gain.setTargetAtTime(on ? 0.25 : 0, t, 0.002);
  }

  // ---- the controls ----

  function ledKey(k) {
    return ledKeys[k];
  }

  function flip(k, event) {
    if (k >= cfg.tiles) return;
    if (state.measure) {
      if (pending.has(k)) state.superseded += 1; // flipped again before its LED changed
      pending.set(k, { t: event && event.timeStamp ? event.timeStamp : performance.now(), key: ledKey(k) });
    }
    state.tiles ^= 1 << k;
    drawTiles();
    keepLocal();
    send({ [cfg.pins.tiles[k]]: state.tiles >> k & 1 ? 1 - cfg.pins.active : cfg.pins.active });
  }

  function drawTiles() {
    for (let k = 0; k < cfg.tiles; k++) {
      const up = !!(state.tiles >> k & 1);
      tileEls[k].classList.toggle('shut', !up);
      tileEls[k].setAttribute('aria-pressed', up ? 'false' : 'true');
    }
  }

  function roll(down) {
    const was = state.rollHeld || state.latched;
    state.rollHeld = down;
    const now = state.rollHeld || state.latched;
    $('#roll').classList.toggle('down', now);
    if (now !== was) send({ [cfg.pins.roll]: now ? cfg.pins.active : 1 - cfg.pins.active });
  }

  function latch() {
    const was = state.rollHeld || state.latched;
    state.latched = !state.latched;
    const now = state.rollHeld || state.latched;
    $('#hold').classList.toggle('on', state.latched);
    $('#roll').classList.toggle('down', now);
    if (now !== was) send({ [cfg.pins.roll]: now ? cfg.pins.active : 1 - cfg.pins.active });
  }

  function power() {
    state.powered = !state.powered;
    keepLocal();
    drawPower();
    if (!state.powered) {
      dark();
      state.mode = W.GAME;
    } else {
      ledKeys = leds.map(() => '0,0,0');
    }
    if (state.powered) startScreen();
    else showScreen();
    showStatus();
    applyTone();
    if (worker && state.ready) worker.postMessage({ op: 'power', on: state.powered });
  }

  function drawPower() {
    $('#power').classList.toggle('on', state.powered);
    $('#power').setAttribute('aria-pressed', state.powered ? 'true' : 'false');
    $('#box').classList.toggle('off', !state.powered);
  }

  function mute() {
    state.muted = !state.muted;
    keepLocal();
    $('#mute').classList.toggle('on', state.muted);
    $('#mute').textContent = state.muted ? 'sound: muted' : 'sound: on';
    applyTone();
  }

  async function newBox() {
    if (!confirm('Start a new box? Its settings, records and the game in progress are erased.')) return;
    if (saveTimer !== null) clearTimeout(saveTimer);
    resetting = true; // pagehide must not save the old box's tiles or flash again
    state.dirty = false;
    mirror = null;
    if (worker) worker.terminate();
    worker = null;
    await new Promise((resolve) => {
      const tx = db.transaction('box', 'readwrite');
      tx.objectStore('box').delete('flash');
      tx.oncomplete = resolve;
      tx.onerror = resolve;
    });
    localStorage.removeItem('shutbox.tiles');
    localStorage.removeItem('shutbox.power');
    location.reload();
  }

  const TILE_KEYS = '1234567890-=';

  function keys() {
    window.addEventListener('keydown', (e) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const k = TILE_KEYS.indexOf(e.key);
      if (k >= 0 && k < cfg.tiles) {
        if (!e.repeat) flip(k, e);
      } else if (e.key === ' ') {
        e.preventDefault();
        if (!e.repeat) roll(true);
      } else if (e.key === 'r' || e.key === 'R') {
        if (!e.repeat) latch();
      } else if (e.key === 'p' || e.key === 'P') {
        if (!e.repeat) power();
      } else if (e.key === 'm' || e.key === 'M') {
        if (!e.repeat) mute();
      } else {
        return;
      }
      audioOn(); // after the input: its first start takes tens of ms
      e.preventDefault();
    });
    window.addEventListener('keyup', (e) => {
      if (e.key === ' ') {
        e.preventDefault(); // not also a click of the button that has the focus
        roll(false);
      }
    });
  }

  // ---- the page ----

  function buildBox() {
    const ledRow = $('#tile-leds');
    const tileRow = $('#tiles');
    for (let k = 0; k < cfg.tiles; k++) {
      const led = document.createElement('span');
      led.className = 'led';
      led.id = `led-${k + 1}`;
      ledRow.appendChild(led);
      leds.push(led);
      const t = document.createElement('button');
      t.className = 'tile';
      t.id = `tile-${k + 1}`;
      t.textContent = String(k + 1);
      t.title = `tile ${k + 1} (key ${TILE_KEYS[k]})`;
      t.addEventListener('pointerdown', (e) => {
        flip(k, e);
        audioOn(); // after the input: its first start takes tens of ms
      });
      t.addEventListener('keydown', (e) => {
        if (e.key === 'Enter') flip(k, e);
      });
      tileRow.appendChild(t);
      tileEls.push(t);
    }
    for (const die of ['a', 'b']) {
      const el = $(`#die-${die}`);
      for (let i = 0; i < cfg.pips; i++) {
        const pip = document.createElement('span');
        pip.className = `led pip p${i}`;
        pip.id = `pip-${die}${i}`;
        el.appendChild(pip);
        leds.push(pip);
      }
    }
    ledKeys = leds.map(() => '0,0,0');
    const r = $('#roll');
    r.addEventListener('pointerdown', (e) => {
      r.setPointerCapture(e.pointerId);
      roll(true);
      audioOn(); // after the press: its first start takes tens of ms
    });
    for (const ev of ['pointerup', 'pointercancel', 'lostpointercapture']) {
      r.addEventListener(ev, () => roll(false));
    }
    r.addEventListener('contextmenu', (e) => e.preventDefault());
    // Enter on the focused Roll presses it as long as the key is held (space: keys())
    r.addEventListener('keydown', (e) => {
      if (e.key !== 'Enter') return;
      e.preventDefault();
      if (!e.repeat) roll(true);
    });
    r.addEventListener('keyup', (e) => {
      if (e.key === 'Enter') roll(false);
    });
    $('#hold').addEventListener('click', () => latch());
    $('#power').addEventListener('click', () => {
      power();
      audioOn();
    });
    $('#mute').addEventListener('click', () => mute());
    $('#newbox').addEventListener('click', () => newBox());
    $('#save-log').addEventListener('click', () => saveLog());
    keys();
    legend();
  }

  // The LED colours in words (the terminal's legend), each beside its colour.
  function legend() {
    const ul = $('#legend');
    const pal = cfg.palettes[1];
    for (const [letter, name, meaning] of cfg.words.legend) {
      const code = cfg.names.indexOf(letter);
      const li = document.createElement('li');
      const led = document.createElement('span');
      led.className = 'led';
      paint(led, pal.slice(3 * code, 3 * code + 3));
      const b = document.createElement('b');
      b.textContent = name;
      li.append(led, b, ` ${meaning}`);
      ul.appendChild(li);
    }
  }

  // The game log as a file: the JSON lines the box printed, as `shutbox play --log` writes
  // them (docs/log-format.md), which `shutbox report` reads.
  function saveLog() {
    const lines = state.lines.filter((x) => x.startsWith('{'));
    const blob = new Blob([lines.map((x) => x + '\n').join('')], { type: 'application/x-ndjson' });
    const a = document.createElement('a');
    const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
    a.href = URL.createObjectURL(blob);
    a.download = `shutbox-log-${stamp}.jsonl`;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  }

  // The status line in players' words; the emulator's own figures in its tooltip.
  function showStatus() {
    if (state.errors.length) return;
    const s = state.stats;
    let text;
    if (!state.ready) text = 'Starting the box...';
    else if (!state.powered) text = 'The box is switched off.';
    else if (s && s.emuMs > 3000 && s.speed < SLOW) {
      text = `The box is on, in slow motion (${s.speed.toFixed(1)} times real time): this ` +
        'computer is busy.';
    } else text = 'The box is on.';
    if (state.saves) text += ' Its settings, records and game are kept in this browser.';
    if (state.notice) text += ` ${state.notice[0].toUpperCase()}${state.notice.slice(1)}.`;
    $('#status').textContent = text;
    $('#status').title = s ? `emulated ${(s.emuMs / 1000).toFixed(1)} s, ${s.speed.toFixed(2)} ` +
      `times real time, the emulator's load ${Math.round(100 * s.load)} %, flash saved ` +
      `${state.saves} times` : '';
  }

  // Opened as a file (file://) the page cannot load its parts: it says how to serve it.
  function served() {
    if (location.protocol !== 'file:') return true;
    $('#status').textContent = 'This page must be served, not opened as a file: run ' +
      '`shutbox web` (or `make web`, then `shutbox web`) and open the address it prints.';
    $('#status').classList.add('error');
    return false;
  }

  async function main() {
    if (!served()) return;
    const res = await fetch('box.json');
    if (!res.ok) throw new Error(`box.json: HTTP ${res.status} (build the page again: make web)`);
    cfg = await res.json();
    state.build = cfg.build;
    setupColours();
    state.tiles = (1 << cfg.tiles) - 1;
    const tiles = localStorage.getItem('shutbox.tiles');
    if (tiles !== null && /^\d+$/.test(tiles)) state.tiles = Number(tiles) & ((1 << cfg.tiles) - 1);
    state.powered = localStorage.getItem('shutbox.power') !== '0';
    state.muted = localStorage.getItem('shutbox.muted') === '1';
    buildBox();
    drawTiles();
    drawPower();
    $('#mute').classList.toggle('on', state.muted);
    $('#mute').textContent = state.muted ? 'sound: muted' : 'sound: on';
    let flash = null;
    let migrate = null;
    try {
      db = await openDb();
      const saved = await dbGet('flash');
      if (saved && saved.build === cfg.build && saved.flash && saved.flash.length === cfg.flashSize) {
        flash = saved.flash;
      } else if (saved && saved.flash && saved.flash.length === cfg.flashSize) {
        migrate = saved.flash; // another build's box: its /data goes to the new one
      }
    } catch (err) {
      state.notice = `no IndexedDB (${err}): nothing survives a reload`;
    }
    mirror = flash;
    worker = new Worker(cfg.files.worker);
    worker.onmessage = onWorker;
    worker.onerror = (e) => fail(`the emulator's worker failed: ${e.message}`);
    worker.postMessage({
      op: 'start', config: cfg, flash, migrate, levels: levelsOf(), powered: state.powered,
    });
    window.addEventListener('pagehide', () => {
      keepLocal();
      saveFlash();
    });
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'hidden') saveFlash();
    });
    showStatus();
  }

  main().catch((err) => fail(`the page could not start: ${err && err.message ? err.message : err}`));
})();
