# The host tools' import drawing: measured from the code, written into docs/design.md.
"""Which sub-package of shutbox_host imports which, read from every module's imports.

``imports(host)`` lists every import of one sub-package's module by another's (the module
and the one it imports); ``edges`` folds them into sub-packages; ``drawing`` is the text of
docs/design.md's import drawing (between ``BEGIN`` and ``END``), made from those edges;
``forbidden`` the imports the drawing does not allow (``ALLOWED``): tests/test_layout.py
checks that there are none and that the docs hold the drawing as this module makes it.
Run as a script it rewrites docs/design.md (``--check``: it only says whether it would).

Imports inside functions count as much as those at the top: a module imported late is still
imported. The shared helpers (the top-level modules: ``errors``, ``mp``, ``contact``) and
the firmware are below every sub-package; ``cli.py`` above them all, naming its commands'
modules as strings.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HOST = ROOT / "host_tools" / "shutbox_host"
DESIGN = ROOT / "docs" / "design.md"
BEGIN = ("<!-- imports:begin: from the code, by tests/importmap.py "
         "(tests/test_layout.py checks it) -->")
END = "<!-- imports:end -->"

FLOOR = "model"  # what every host tool knows about a box: imports no sub-package
# The drawing's exceptions: (importer, imported, why). The importer is a sub-package or one
# of its modules (a path under shutbox_host/), the imported a sub-package or a module (dotted,
# under shutbox_host), "*" every one. Any other import of a sibling fails tests/test_layout.py.
ALLOWED = (
    ("bench", "*", "on top: it measures every part"),
    ("web", "pico", "on the emulator: the page runs the chip"),
    ("analysis", "solve", "on the solver: play against exact play"),
    ("hardware/cardgen.py", "solve.strategy", "the strategy card's figures (cardgen)"),
    ("box/webbox.py", "pico.companion", "the web box runs the companion (webbox)"),
)
# The order of the drawing's rows: from the top down.
ORDER = ("bench", "web", "analysis", "box", "hardware", "pico", "solve", FLOOR)


def packages(host: Path = HOST) -> list[str]:
    """The sub-packages of *host* (folders with an __init__.py)."""
    return sorted(p.name for p in host.iterdir() if (p / "__init__.py").is_file())


def _module(host: Path, name: str) -> bool:
    """True if the dotted *name* (shutbox_host....) is a module or package under *host*."""
    p = host.parent.joinpath(*name.split("."))
    return p.with_suffix(".py").is_file() or (p / "__init__.py").is_file()


def imports(host: Path = HOST) -> list[tuple[str, str]]:
    """Every (module, imported module) where a module of one sub-package of *host* imports
    one of another, or a top-level module (cli.py, a shared helper) imports a sub-package:
    paths relative to *host*, dotted names of what they import
    (``from shutbox_host.box import boxsim`` names ``shutbox_host.box.boxsim``)."""
    subs = set(packages(host))
    out = set()
    for f in sorted(host.rglob("*.py")):
        rel = f.relative_to(host)
        if len(rel.parts) > 1 and rel.parts[0] not in subs:
            continue
        names = []
        for n in ast.walk(ast.parse(f.read_text())):
            if isinstance(n, ast.Import):
                names += [a.name for a in n.names]
            elif isinstance(n, ast.ImportFrom) and n.module and not n.level:
                for a in n.names:
                    sub = "%s.%s" % (n.module, a.name)
                    names.append(sub if _module(host, sub) else n.module)
        for name in names:
            parts = name.split(".")
            if (parts[0] == host.name and len(parts) > 1 and parts[1] in subs
                    and parts[1] != rel.parts[0]):
                out.add((rel.as_posix(), name))
    return sorted(out)


def edges(found: list[tuple[str, str]]) -> dict[str, set[str]]:
    """{sub-package: the sub-packages it imports} from ``imports``' list."""
    out: dict[str, set[str]] = {}
    for rel, name in found:
        out.setdefault(rel.split("/")[0], set()).add(name.split(".")[1])
    return out


def allowed(rel: str, name: str) -> str | None:
    """Why the module *rel* (a path under shutbox_host/) may import *name* (dotted): the
    floor, or an exception of ``ALLOWED``; None when the drawing does not allow it (a shared
    helper importing a sub-package, the floor importing one, a sibling import no exception
    covers)."""
    src, dst = rel.split("/")[0], name.split(".")[1]
    if "/" not in rel:
        return "on top" if rel == "cli.py" else None
    if src == FLOOR:
        return None
    if dst == FLOOR:
        return "the floor"
    tail = name.split(".", 1)[1]
    for who, what, why in ALLOWED:
        if (rel == who or rel.startswith(who + "/")) and (
                what in ("*", tail) or tail.startswith(what + ".")):
            return why
    return None


def forbidden(found: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The imports of ``imports``' list the drawing does not allow (``allowed``)."""
    return [(rel, name) for rel, name in found if allowed(rel, name) is None]


def drawing(host: Path = HOST) -> str:
    """The import drawing of *host*'s sub-packages, as docs/design.md holds it: a row per
    sub-package, from the top down, with what it imports and why (the exceptions drawn)."""
    subs = packages(host)
    listed = imports(host)
    found = edges(listed)
    whys: dict[str, list[str]] = {}
    for rel, name in listed:
        why = allowed(rel, name) or "NOT ALLOWED: %s imports %s" % (rel, name)
        if why != "the floor" and why not in whys.setdefault(rel.split("/")[0], []):
            whys[rel.split("/")[0]].append(why)
    rows = [p for p in ORDER if p in subs] + [p for p in subs if p not in ORDER]
    rows += sorted(set(found) - set(rows))  # a top-level module importing a sub-package
    table = []
    for p in rows:
        dst = sorted(found.get(p, set()))
        arrow = "-> " + " ".join(d + "/" for d in dst) if dst else ""
        why = "; ".join(whys.get(p, []))
        if p == FLOOR and not dst:
            why = "the floor: the firmware and the helpers only"
        table.append((p + "/" if p in subs else p, arrow, why))
    w1 = max(len(r[0]) for r in table) + 2
    w2 = max(len(r[1]) for r in table) + 3
    lines = ["```", "cli.py: shutbox COMMAND imports one sub-package's module (named as a string)"]
    lines += [("%-*s%-*s%s" % (w1, a, w2, b, c)).rstrip() for a, b, c in table]
    lines += ["errors.py, mp.py, contact.py: the shared helpers, below every sub-package", "```"]
    return "\n".join(lines) + "\n"


def rewrite(text: str, host: Path = HOST) -> str:
    """*text* (docs/design.md) with the part between BEGIN and END made anew."""
    if BEGIN not in text or END not in text:
        raise SystemExit("%s: no %s ... %s markers" % (DESIGN, BEGIN, END))
    head, rest = text.split(BEGIN, 1)
    return head + BEGIN + "\n" + drawing(host) + END + rest.split(END, 1)[1]


def main(argv: list[str]) -> int:
    old = DESIGN.read_text()
    new = rewrite(old)
    if "--check" in argv:
        if new != old:
            print("docs/design.md: the import drawing is stale: run python tests/importmap.py")
            return 1
        return 0
    if new != old:
        DESIGN.write_text(new)
        print("docs/design.md: the import drawing rewritten")
    for rel, name in forbidden(imports()):
        print("not allowed: %s imports %s" % (rel, name))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
