// rp2040js's instruction decoder by table: the same code for each instruction, found in one step.
/**
 * rp2040js's CortexM0Core.executeInstruction decodes an instruction by testing its opcode
 * against each instruction's encoding in turn (85 tests, the last ones reached after all the
 * others): most of the emulator's time. fastDecoder(core) gives the core the same function
 * with the chain of tests replaced by a switch on a table built once from those very tests
 * (the index of the first branch whose test the 16-bit opcode passes): each branch's code is
 * rp2040js's own, unchanged, so every instruction does exactly what it did (its registers,
 * flags, memory accesses, cycles). Opcodes of 32-bit instructions (their tests read the
 * second halfword too) take rp2040js's chain as before.
 *
 * The function is rebuilt from its source text: when that text is not the shape this expects
 * (another rp2040js, a bundler's renaming), or a test reads anything but the opcode, the core
 * is left as it was (slower, the same). Module-level names the code uses are given again
 * here with rp2040js's values (cortex-m0-core.js; a bundler's numbered copy of one too, as
 * esbuild's LOG_NAME2 in the web page's worker): any other free name leaves it as it was.
 */

// the names the instruction code takes from cortex-m0-core.js's module scope, with its values
const GIVEN = {
  pcRegister: 15,
  spRegister: 13,
  LOG_NAME: 'CortexM0Core',
  signExtend8: (value) => (value << 24) >> 24,
  signExtend16: (value) => (value << 16) >> 16,
};

const KEYWORDS = new Set(['this', 'const', 'let', 'var', 'if', 'else', 'for', 'while', 'do',
  'return', 'true', 'false', 'null', 'undefined', 'new', 'typeof', 'break', 'continue',
  'switch', 'case', 'default', 'of', 'in', 'Math', 'Number', 'Boolean', 'String']);

/** Index just past the string, comment or template starting at *i*, or -1 if none starts. */
function skipLiteral(src, i) {
  const c = src[i];
  if (c === '/' && src[i + 1] === '/') {
    const j = src.indexOf('\n', i);
    return j < 0 ? src.length : j;
  }
  if (c === '/' && src[i + 1] === '*') return src.indexOf('*/', i + 2) + 2;
  if (c === "'" || c === '"') {
    let j = i + 1;
    while (src[j] !== c) j += src[j] === '\\' ? 2 : 1;
    return j + 1;
  }
  if (c === '`') {
    let j = i + 1;
    while (src[j] !== '`') {
      if (src[j] === '\\') j += 2;
      else if (src[j] === '$' && src[j + 1] === '{') j = skipTo(src, j + 2, '}') + 1;
      else j += 1;
    }
    return j + 1;
  }
  return -1;
}

/** Index of the *close* bracket matching the one just before *i* (nesting, literals skipped). */
function skipTo(src, i, close) {
  const pairs = { '(': ')', '{': '}', '[': ']' };
  for (let j = i; j < src.length;) {
    const k = skipLiteral(src, j);
    if (k >= 0) {
      j = k;
      continue;
    }
    const c = src[j];
    if (c === close) return j;
    if (pairs[c]) j = skipTo(src, j + 1, pairs[c]) + 1;
    else if (c === ')' || c === '}' || c === ']') throw new Error('unbalanced at ' + j);
    else j += 1;
  }
  throw new Error('no ' + close);
}

/** Index of the next code character at or after *i* (white space and comments skipped). */
function skipSpace(src, i) {
  for (;;) {
    while (/\s/.test(src[i])) i += 1;
    if (src[i] === '/' && (src[i + 1] === '/' || src[i + 1] === '*')) i = skipLiteral(src, i);
    else return i;
  }
}

/** The code of *src* with its comments and the text of its strings blanked out. */
function codeOnly(src) {
  let out = '';
  for (let j = 0; j < src.length;) {
    const k = skipLiteral(src, j);
    if (k >= 0) {
      out += src[j] === '`' ? '``' : ' ';
      j = k;
    } else {
      out += src[j];
      j += 1;
    }
  }
  return out;
}

/** The names *code* uses that it neither declares nor reaches as a property. */
function freeNames(code) {
  const declared = new Set();
  for (const m of code.matchAll(/\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)/g)) declared.add(m[1]);
  const free = new Set();
  for (const m of code.matchAll(/(?<![\w$.])([A-Za-z_$][\w$]*)/g)) {
    if (!declared.has(m[1]) && !KEYWORDS.has(m[1])) free.add(m[1]);
  }
  return free;
}

/**
 * Split executeInstruction's source into {head, tests: [source], bodies: [block], last
 * (the final else's block), tail}; throws when it is not an if/else-if chain after a head
 * that ends with `let deltaCycles = 1;`.
 */
function split(src) {
  const open = src.indexOf('{');
  const mark = 'let deltaCycles = 1;';
  const at = src.indexOf(mark);
  if (open < 0 || at < 0 || !/^executeInstruction\s*\(\)\s*$/.test(src.slice(0, open).trim())) {
    throw new Error('not the expected executeInstruction');
  }
  const head = src.slice(open + 1, at + mark.length);
  const tests = [];
  const bodies = [];
  let i = skipSpace(src, at + mark.length);
  const start = i;
  let last = null;
  for (;;) {
    if (!src.startsWith('if', i)) throw new Error('no if at ' + i);
    i = skipSpace(src, i + 2);
    if (src[i] !== '(') throw new Error('no test at ' + i);
    const end = skipTo(src, i + 1, ')');
    tests.push(src.slice(i + 1, end));
    i = skipSpace(src, end + 1);
    if (src[i] !== '{') throw new Error('no block at ' + i);
    const close = skipTo(src, i + 1, '}');
    bodies.push(src.slice(i, close + 1));
    i = skipSpace(src, close + 1);
    if (!src.startsWith('else', i)) break;
    i = skipSpace(src, i + 4);
    if (src[i] === '{') {
      const close2 = skipTo(src, i + 1, '}');
      last = src.slice(i, close2 + 1);
      i = close2 + 1;
      break;
    }
  }
  const chain = src.slice(start, i);
  const tail = src.slice(i, src.lastIndexOf('}'));
  return { head, tests, bodies, last, chain, tail };
}

let built; // {make, table} once per rp2040js executeInstruction source, or null: leave it

function build(original) {
  const src = original.toString();
  let parts;
  try {
    parts = split(src);
  } catch {
    return null;
  }
  const { head, tests, bodies, last, chain, tail } = parts;
  if (tests.length > 250 || !/const opcode = /.test(head) || !/const opcode2 = /.test(head)) {
    return null;
  }
  // the tests must read the opcodes alone: then each one's result is a function of them
  const checks = [];
  for (const t of tests) {
    const names = freeNames(codeOnly(t));
    for (const n of names) if (n !== 'opcode' && n !== 'opcode2') return null;
    checks.push(new Function('opcode', 'opcode2', `return !!(${t});`));
  }
  // 32-bit instructions (their first halfword) go through the chain: their tests read opcode2
  const wide = new Function('opcode', 'return ' +
    /const wideInstruction = ([^;]+);/.exec(head)[1] + ';');
  const table = new Uint8Array(65536);
  for (let op = 0; op < 65536; op++) {
    if (wide(op)) continue; // 0: the chain
    let k = 0;
    while (k < checks.length && !checks[k](op, 0)) k++;
    table[op] = k + 1; // checks.length + 1: the final else
  }
  // the module-level names, as the source spells them (a bundler may number them: LOG_NAME2)
  const given = {};
  for (const n of freeNames(codeOnly(src))) {
    const base = n in GIVEN ? n : n.replace(/\d+$/, '');
    if (base in GIVEN) given[n] = GIVEN[base];
    else if (n !== 'executeInstruction') return null;
  }
  // one function an instruction (V8 optimizes each alone; one huge function it optimizes
  // late and throws away often), the 32-bit ones' chain one more
  const handlers = [chain, ...bodies, last || '{}'].map((b) => `function (opcode, opcode2, ` +
    `opcodePC) {\nlet deltaCycles = 1;\n${b}\nreturn deltaCycles;\n}`);
  const body = head + '\ndeltaCycles = HANDLERS[DISPATCH[opcode]].call(this, opcode, ' +
    'opcode2, opcodePC);\n' + tail;
  const names = Object.keys(given);
  const make = new Function(...names, 'DISPATCH', `const HANDLERS = [${handlers.join(',\n')}];` +
    `\nreturn function executeInstruction() {${body}\n};`);
  return { make: () => make(...names.map((n) => given[n]), table), fn: null };
}

/** Give *core* (a CortexM0Core) the table-decoded executeInstruction; false if left as it was. */
export function fastDecoder(core) {
  const original = Object.getPrototypeOf(core).executeInstruction;
  if (built === undefined || (built && built.original !== original)) {
    built = build(original);
    if (built) {
      built.original = original;
      built.fn = built.make();
    }
  }
  if (!built) return false;
  core.executeInstruction = built.fn;
  return true;
}
