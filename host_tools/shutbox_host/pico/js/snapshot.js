// The emulated chip's whole state kept and put back in place: many runs from one booted chip.
/**
 * take(roots) copies what every object reachable from *roots* holds: each data property's
 * value (an own property, a symbol's too), each Map's and Set's entries, the bytes of each
 * typed array and DataView (a whole ArrayBuffer once, however many views cover it). restore
 * writes all of it back into the same objects, so the closures the emulator wired between
 * them (rp2040js's alarms, the peripherals' hooks, pico.js's wrappers) still reach the objects
 * they were made with, now as they were. Nothing is rebuilt: a restore costs a copy of the
 * memories (the 16 MB flash array the most, a few ms).
 *
 * Exact where every piece of the emulator's state is reachable through properties: rp2040js
 * 1.4 keeps all of its state so (its closures capture `this` and constants alone), and so do
 * pico.js and power.js, except what irqoff, gcwatch, trace and go keep in closures
 * (node_main refuses a snapshot while one is on). Functions are kept by reference, never
 * walked.
 */

function walk(roots) {
  const seen = new Set();
  const saved = [];
  const whole = new Set(); // ArrayBuffers saved whole
  const stack = [...roots];
  const views = [];
  while (stack.length) {
    const o = stack.pop();
    if (o === null || typeof o !== 'object' || seen.has(o)) continue;
    seen.add(o);
    if (ArrayBuffer.isView(o)) {
      views.push(o);
    } else if (o instanceof ArrayBuffer) {
      whole.add(o);
    } else if (o instanceof Map) {
      const entries = [...o];
      saved.push({ o, map: entries });
      for (const [k, v] of entries) stack.push(k, v);
    } else if (o instanceof Set) {
      const values = [...o];
      saved.push({ o, set: values });
      stack.push(...values);
    } else {
      const props = [];
      for (const k of Reflect.ownKeys(o)) {
        const d = Object.getOwnPropertyDescriptor(o, k);
        if (!('value' in d)) continue; // an accessor: its state, if any, is in a closure
        props.push(k, d);
        stack.push(d.value);
      }
      saved.push({ o, props });
    }
  }
  for (const v of views) {
    // a view over its whole buffer saves the buffer (the flash has three views of one);
    // a part of a larger buffer (Node's pooled Buffers) only its own bytes
    if (v.byteOffset === 0 && v.byteLength === v.buffer.byteLength) whole.add(v.buffer);
  }
  for (const b of whole) saved.push({ o: b, bytes: new Uint8Array(b.slice(0)) });
  for (const v of views) {
    if (whole.has(v.buffer)) continue;
    saved.push({ o: v, bytes: new Uint8Array(v.buffer, v.byteOffset, v.byteLength).slice() });
  }
  return saved;
}

/** The state of everything reachable from *roots*, to give restore(). */
export function take(roots) {
  return walk(roots);
}

/** Put back every object *snap* saved as it was then (the properties added since deleted). */
export function restore(snap) {
  for (const s of snap) {
    const { o } = s;
    if (s.bytes) {
      const into = o instanceof ArrayBuffer ? new Uint8Array(o)
        : new Uint8Array(o.buffer, o.byteOffset, o.byteLength);
      into.set(s.bytes);
    } else if (s.map) {
      o.clear();
      for (const [k, v] of s.map) o.set(k, v);
    } else if (s.set) {
      o.clear();
      for (const v of s.set) o.add(v);
    } else {
      const keep = new Set();
      for (let i = 0; i < s.props.length; i += 2) keep.add(s.props[i]);
      for (const k of Reflect.ownKeys(o)) {
        if (!keep.has(k) && Object.getOwnPropertyDescriptor(o, k).configurable) delete o[k];
      }
      if (Array.isArray(o)) o.length = 0;
      for (let i = 0; i < s.props.length; i += 2) {
        const k = s.props[i];
        const d = s.props[i + 1];
        const now = Object.getOwnPropertyDescriptor(o, k);
        if (now && 'value' in now && now.writable) o[k] = d.value;
        else if (!now || now.configurable) Object.defineProperty(o, k, d);
      }
    }
  }
}
