# `shutbox consts`: the firmware modules' shared constants, written or checked from one table.
"""Write each firmware module's block of shared constants (and shared code) from the table.

The table is shutbox_host.hardware.consttable. Each module that keeps a copy of a shared
constant has one block between ``# BEGIN consts`` and ``# END consts`` (and a block per piece
of shared code, ``# BEGIN variant_key`` ...); ``shutbox consts`` rewrites the blocks,
``shutbox consts --check`` writes nothing and fails, naming the modules, when a block differs
from the table or a module keeps a hand-made copy of a table constant outside its block.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

from shutbox_host.errors import UserError
from shutbox_host.hardware import consttable

ROOT = Path(__file__).resolve().parents[3]
FIRMWARE = "firmware/shutbox"
WIDTH = 99  # ruff's line length
BLOCK = "consts"
_CONST = re.compile(r"^(_?[A-Z][A-Z0-9_]*) = const\((.*?)\)\s*(#.*)?$")


def begin(name: str) -> str:
    """The first line of block *name*."""
    return "# BEGIN %s: written by `shutbox consts`; edit its table, not this block" % name


def end(name: str) -> str:
    """The last line of block *name*."""
    return "# END %s" % name


def literal(value) -> str:
    """The firmware's text of *value*: an int (in hex for a consttable.Hex), a str, bytes."""
    if isinstance(value, consttable.Hex):
        return "0x%X" % value
    if isinstance(value, int):
        return "%d" % value
    if isinstance(value, bytes):
        return 'b"%s"' % "".join("\\x%02x" % b for b in value)
    if '"' in value or "\\" in value:
        raise UserError("consts: a str constant with a quote or a backslash: %r" % value)
    return '"%s"' % value


def _pieces(value: str, width: int) -> list[str]:
    """*value* cut after a space or a slash into pieces of at most *width* characters."""
    words = re.findall(r"[^ /]*[ /]?", value)
    out, cur = [], ""
    for w in words:
        if cur and len(cur) + len(w) > width:
            out.append(cur)
            cur = ""
        cur += w
    if cur:
        out.append(cur)
    return out


def render_const(name: str, value, note: str) -> list[str]:
    """The lines of one constant: ``NAME = const(value)  # note``, a long str over several.

    A public str is assigned as it is: ``const()`` would keep it as an object in the .mpy's
    constants (7 more bytes for the resume module's NAME), where a plain str is a qstr.
    """
    plain = isinstance(value, str) and not name.startswith("_")
    head = "%s = %s" % (name, "" if plain else "const(")
    text = literal(value)
    line = head + text + ("" if plain else ")")
    lines = [line]
    if len(line) > WIDTH and isinstance(value, str):
        pieces = _pieces(value, WIDTH - len(head) - 3)
        lines = ['%s"%s"' % (" " * len(head) if i else head, p) for i, p in enumerate(pieces)]
        lines[-1] += "" if plain else ")"
    if note:
        if len(lines) == 1 and len(lines[0]) + 4 + len(note) <= WIDTH:
            lines[0] += "  # " + note
        else:
            lines.insert(0, "# " + note)
    return lines


def copies() -> dict[str, list[tuple[str, object, str, str]]]:
    """Module -> its copies, in the table's order: (local name, value, note, table name)."""
    out: dict[str, list[tuple[str, object, str, str]]] = {}
    seen = set()
    for c in consttable.TABLE:
        if c.name in seen:
            raise UserError("consts: %s twice in the table" % c.name)
        seen.add(c.name)
        for user in c.users.split():
            module, _, local = user.partition(":")
            out.setdefault(module, []).append((local or "_" + c.name, c.value, c.note, c.name))
    return out


def blocks() -> dict[str, dict[str, str]]:
    """Module -> block name -> the block's text between its markers."""
    out: dict[str, dict[str, str]] = {}
    for module, entries in copies().items():
        names = [e[0] for e in entries]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise UserError("consts: %s twice in %s" % (", ".join(dup), module))
        lines = []
        for local, value, note, _ in entries:
            lines.extend(render_const(local, value, note))
        out.setdefault(module, {})[BLOCK] = "".join(line + "\n" for line in lines)
    for name, (text, modules) in consttable.CODE.items():
        for module in modules:
            out.setdefault(module, {})[name] = text
    return out


def fill(text: str, module: str, new: dict[str, str]) -> str:
    """*text* (a module's source) with its blocks replaced by *new*'s; UserError for a block
    whose markers are missing or out of order."""
    lines = text.splitlines(keepends=True)
    for name, body in new.items():
        starts = [i for i, ln in enumerate(lines) if ln.startswith("# BEGIN %s:" % name)]
        ends = [i for i, ln in enumerate(lines) if ln.rstrip("\n") == end(name)]
        if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
            raise UserError("consts: %s: needs one `# BEGIN %s: ...` line and one "
                            "`%s` line after it" % (_rel(module), name, end(name)))
        lines[starts[0]:ends[0] + 1] = [begin(name) + "\n", body, end(name) + "\n"]
    return "".join(lines)


def outside(text: str) -> list[str]:
    """The lines of *text* outside its generated blocks."""
    out, inside = [], False
    for line in text.splitlines():
        if line.startswith("# BEGIN "):
            inside = True
        elif line.startswith("# END "):
            inside = False
        elif not inside:
            out.append(line)
    return out


def hand_copies(root: Path) -> list[str]:
    """Constants of the table kept by hand: ``module: NAME`` for each ``_NAME = const(v)``
    outside the blocks whose value is the table's (another value is another constant)."""
    values = {"_" + c.name: literal(c.value) for c in consttable.TABLE}
    out = []
    for path in sorted((root / FIRMWARE).glob("*.py")) + sorted(
            (root / FIRMWARE).parent.glob("companion/*.py")):
        for line in outside(path.read_text(encoding="utf-8")):
            m = _CONST.match(line)
            if m and m.group(1) in values and values[m.group(1)] == literal_of(m.group(2)):
                out.append("%s: %s" % (path.stem, m.group(1)))
    return out


def literal_of(text: str) -> str | None:
    """*text* (a const's argument) as literal() writes it, or None when it is no literal."""
    try:
        value = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError):
        return None
    if isinstance(value, int) and text.strip().lower().startswith("0x"):
        value = consttable.Hex(value)
    return literal(value) if isinstance(value, int | str | bytes) else None


def _rel(module: str) -> str:
    """A table user's path: ``mod`` in firmware/shutbox, ``pkg/mod`` (the Pico W's companion,
    ``companion/live``) in firmware/pkg."""
    return "firmware/%s.py" % module if "/" in module else "%s/%s.py" % (FIRMWARE, module)


def generate(root) -> dict[str, str]:
    """Path (relative to *root*) -> the module's text with its blocks written from the table."""
    root = Path(root)
    out = {}
    for module, new in sorted(blocks().items()):
        rel = _rel(module)
        try:
            text = (root / rel).read_text(encoding="utf-8")
        except OSError as e:
            raise UserError("consts: %s: %s" % (rel, e.strerror)) from None
        out[rel] = fill(text, module, new)
    return out


def stale(root) -> list[str]:
    """The modules under *root* whose blocks differ from the table, or that keep a copy of a
    table constant by hand (``module: NAME``)."""
    root = Path(root)
    bad = [rel for rel, text in generate(root).items()
           if (root / rel).read_text(encoding="utf-8") != text]
    return bad + hand_copies(root)


def write(root) -> list[str]:
    """Write every module whose blocks differ from the table; return their paths."""
    root = Path(root)
    changed = []
    for rel, text in generate(root).items():
        path = root / rel
        if path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8", newline="\n")
            changed.append(rel)
    return changed


def configure(parser):
    """Add the consts flags."""
    parser.add_argument("--check", action="store_true",
                        help="write nothing; fail if a module's block differs from the table")
    parser.add_argument("--root", default=str(ROOT), metavar="DIR",
                        help="repository folder of the firmware (default: this one)")


def run(args) -> int:
    """Write (or check) the firmware modules' shared constants."""
    root = Path(args.root)
    if args.check:
        bad = stale(root)
        if bad:
            print("consts: out of date (run `shutbox consts`, or add the copy to the table): "
                  "%s" % ", ".join(bad), file=sys.stderr)
            return 1
        print("%d modules match the constants' table" % len(blocks()))
        return 0
    changed = write(root)
    for rel in changed:
        print("wrote %s" % rel)
    if not changed:
        print("up to date: %d modules" % len(blocks()))
    for copy in hand_copies(root):
        print("kept by hand (add it to the table): %s" % copy, file=sys.stderr)
    return 0
