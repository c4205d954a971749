// The box in words on the page: the reader of the vocabulary box.json carries (model/words.py's).
/**
 * shutbox_host.model.words keeps the words as data (templates, tables, the legend, the power-up
 * screens) and reads them for the terminal box; `shutbox web` writes that data into box.json
 * ("words") and this file reads it the same way, function for function, so the page says
 * what the terminal prints (tests/model/test_words.py runs both on the same records and LED
 * frames under Node). In the browser it is window.shutboxWords; under Node, module.exports.
 */
(function (root) {
  'use strict';

  const GAME = 0;
  const MENU = 1;
  const SELFTEST = 2;
  const RECORDS = 3;
  const ERASE = 4;
  const FACTORY = 5;

  function truthy(v) {
    return v !== undefined && v !== null && v !== false && v !== 0 && v !== '' &&
      !(Array.isArray(v) && v.length === 0);
  }

  function text(v) {
    if (Array.isArray(v)) return v.map(text).join(' ');
    if (v === true) return 'true';
    if (v === false) return 'false';
    return String(v);
  }

  function has(rec, name) {
    return Object.prototype.hasOwnProperty.call(rec, name);
  }

  function holdsTerm(term, rec, ctx) {
    if (term.startsWith('!')) return !holdsTerm(term.slice(1), rec, ctx);
    if (term.endsWith('@')) {
      const seat = rec[term.slice(0, -1)];
      return Number.isInteger(seat) && seat > 0 && !!((ctx.computer || 0) >> (seat - 1) & 1);
    }
    if (term.includes('#')) {
      const i = term.indexOf('#');
      const v = rec[term.slice(0, i)];
      return Array.isArray(v) && v.length === Number(term.slice(i + 1));
    }
    if (term.includes('=')) {
      const i = term.indexOf('=');
      const name = term.slice(0, i);
      return has(rec, name) && text(rec[name]) === term.slice(i + 1);
    }
    return truthy(rec[term]);
  }

  function holds(cond, rec, ctx) {
    return cond.split(/\s+/).filter(Boolean).every((t) => holdsTerm(t, rec, ctx));
  }

  function settingsText(values, voc) {
    const parts = [`${values[0] + 1} player${values[0] === 0 ? '' : 's'}`];
    for (let i = 1; i < Math.min(values.length, voc.defaults.length); i++) {
      if (values[i] !== voc.defaults[i]) parts.push(`${voc.options[i]} ${voc.choices[i][values[i]]}`);
    }
    return parts.join(', ');
  }

  function filter(v, name, arg, rec, ctx, voc) {
    if (name === 'join') return Array.isArray(v) ? v.map(text).join(arg) : text(v);
    if (name === 'settings') return settingsText(v, voc);
    if (Array.isArray(v)) return v.map((x) => filter(x, name, arg, rec, ctx, voc));
    if (name === 'who') return (ctx.computer || 0) >> (v - 1) & 1 ? 'computer' : `player ${v}`;
    if (name === 'map') {
      const table = voc.tables[arg];
      return has(table, text(v)) ? table[text(v)] : text(v);
    }
    if (name === 'signed') return (v >= 0 ? '+' : '') + String(v);
    if (name === 'plural') return `${v} ${arg}${v === 1 ? '' : 's'}`;
    if (name === 'minus') {
      const other = has(rec, arg) ? rec[arg] : 0;
      return v - (Array.isArray(other) ? other.length : other);
    }
    throw new Error(`no filter ${name}`);
  }

  function fill(template, rec, ctx, voc) {
    return template.replace(/\{([^{}]+)\}/g, (whole, inner) => {
      const [name, ...filters] = inner.split('|');
      if (!has(rec, name)) return '?';
      let v = rec[name];
      for (const f of filters) {
        const i = f.indexOf(':');
        v = i < 0 ? filter(v, f, '', rec, ctx, voc) : filter(v, f.slice(0, i), f.slice(i + 1), rec, ctx, voc);
      }
      return text(v);
    });
  }

  function track(rec, ctx) {
    if (rec.ev === 'settings') {
      const values = rec.values || [1, 0];
      const players = values[0] + 1;
      ctx.computer = values[1] ? 1 << Math.min(players, 3) : 0; // shutbox.computer's seat
    } else if (rec.ev === 'game') {
      ctx.computer = (rec.computer || []).reduce((m, k) => m | (1 << (k - 1)), 0);
    }
  }

  function say(rec, ctx, voc) {
    for (const [cond, template] of voc.say[rec.ev] || []) {
      if (holds(cond, rec, ctx)) return fill(template, rec, ctx, voc);
    }
    return fill(voc.unknown, rec, ctx, voc);
  }

  function face(pips, voc) {
    let lit = 0;
    for (let i = 0; i < pips.length; i++) if (pips[i] !== '.') lit |= 1 << i;
    return voc.faces.indexOf(lit);
  }

  function only(letters, allowed) {
    return [...letters].every((c) => allowed.includes(c));
  }

  function see(mode, tiles, dieA, dieB, mem, voc) {
    const a = face(dieA, voc);
    if (mode === RECORDS && only(dieA, 'M.') && a >= 1 && only(dieB, '.')) mem.page = a;
  }

  function screenLines(mode, tiles, dieA, dieB, mem, controls, voc) {
    const scr = voc.screens;
    const line = (key, fields) => fill(scr[key], Object.assign({}, controls, fields || {}), {}, voc);
    if (mode === SELFTEST) return [line('selftest')];
    if (mode === ERASE || mode === FACTORY) return [line(mode === ERASE ? 'erase' : 'factory')];
    if (mode === RECORDS) {
      const page = mem.page || 0;
      if (page >= 1 && page <= voc.recordPages.length) {
        return [line('records', { page, name: voc.recordPages[page - 1] })];
      }
      return [line('records_label')];
    }
    if (mode !== MENU) return [];
    const out = [line('menu')];
    const a = face(dieA, voc);
    const b = face(dieB, voc);
    const sections = voc.sections;
    if (only(dieA, 'C.') && a >= 1) {
      const count = [...tiles].filter((c) => c === 'C').length;
      return [line('menu_code', { digit: a, count }), line('menu_code_help')];
    }
    if (tiles.length && only(tiles, 'G')) return [line('menu_saved')];
    if (a >= 1 && a <= sections.length && b >= 1 && b <= sections[a - 1]) {
      const page = sections.slice(0, a - 1).reduce((s, x) => s + x, 0) + b - 1;
      const values = voc.choices[page];
      const lit = [...tiles].findIndex((c) => c === 'G' || c === 'R');
      const value = lit >= 0 && lit < values.length ? values[lit] : '?';
      const option = voc.options[page];
      out[0] = line('menu_page', { section: a, number: b, option, value });
      if (tiles.includes('R')) out.push(line('menu_bad', { option, value }));
      else if (page === 0) out.push(line('menu_players'));
      else out.push(line('menu_values', { values: values.map((v, k) => `${k + 1} ${v}`).join(', ') }));
    }
    out.push(line('menu_help'));
    return out;
  }

  const api = {
    GAME, MENU, SELFTEST, RECORDS, ERASE, FACTORY,
    holds, fill, track, say, settingsText, face, see, screenLines,
  };
  if (typeof module !== 'undefined' && module.exports) module.exports = api;
  else root.shutboxWords = api;
})(typeof self !== 'undefined' ? self : this);
