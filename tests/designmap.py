# docs/design.md against the code: the firmware's module index written, its lists read back.
"""What docs/design.md says that the code can make or check.

``index(firmware)`` is the text of the firmware's module index (between ``BEGIN`` and
``END``): every module of firmware/ with its header line, the house style's one-line summary
of the file. Run as a script this module rewrites it (``--check``: it only says whether it
would). The readers below take the lists the prose keeps by hand out of the page, for
tests/test_design.py to hold against the code: the host tools' modules each package's bullet
names (``bullets``), the bench's parts (``bench_parts``), the backends' table
(``backends``) and the protocol's verbs (``verbs``), Game's parts API (``parts_api``) and
the members the API blocks name (``api_names``).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIRMWARE = ROOT / "firmware"
HOST = ROOT / "host_tools" / "shutbox_host"
DESIGN = ROOT / "docs" / "design.md"
BEGIN = ("<!-- modules:begin: from each module's header line, by tests/designmap.py "
         "(tests/test_design.py checks it) -->")
END = "<!-- modules:end -->"


def header(path: Path) -> str:
    """The header line of *path*: its first line, without the comment's mark."""
    first = path.read_text().split("\n", 1)[0]
    return re.sub(r"^(#|//|/\*)\s*|\s*\*/$", "", first)


def index(firmware: Path = FIRMWARE) -> str:
    """The module index: a table of firmware/'s .py files (main.py, then each package's
    modules in name order) and what each header line says."""
    rows = ["| module | what it is (its header line) |", "|---|---|"]
    paths = sorted(firmware.glob("*.py")) + sorted(
        p for p in firmware.glob("*/*.py") if p.name != "__init__.py")
    for p in paths:
        rows.append("| `%s` | %s |" % (p.relative_to(firmware).as_posix(),
                                       header(p).replace("|", "\\|")))
    return "\n".join(rows) + "\n"


def rewrite(text: str, firmware: Path = FIRMWARE) -> str:
    """*text* (docs/design.md) with the index between BEGIN and END made anew."""
    if BEGIN not in text or END not in text:
        raise SystemExit("%s: no %s ... %s markers" % (DESIGN, BEGIN, END))
    head, rest = text.split(BEGIN, 1)
    return head + BEGIN + "\n" + index(firmware) + END + rest.split(END, 1)[1]


# ----- the lists the prose keeps, read back -----


def section(text: str, title: str) -> str:
    """The text of the ``## title`` section of *text* (to the next ``## ``; the heading may
    go on after *title*)."""
    at = text.index("\n## %s" % title)
    end = text.find("\n## ", at + 1)
    return text[at:end if end >= 0 else len(text)]


def bullets(text: str) -> dict[str, str]:
    """The host tools' bullets of the Layout section: {"": the shared helpers' bullet,
    "box": box/'s, ...}: each sub-package's ``  - `name/` — ...`` with its lines."""
    layout = section(text, "Layout")
    host = layout[layout.index("- `host_tools/shutbox_host/`"):]
    host = host[:host.index("\n- ")]
    out = {}
    for part in re.split(r"\n  - ", host)[1:]:
        m = re.match(r"`(\w+)/` — ", part)
        key = m.group(1) if m else ""
        out[key] = out.get(key, "") + part
    return out


def unnamed(text: str, host: Path = HOST) -> list[str]:
    """The host tools' files (modules, the page's and the emulator's scripts) that their
    sub-package's bullet does not name (as `name`, `folder/name`, or a module as `stem`);
    the top-level ones are looked for in the shared helpers' bullet."""
    found = bullets(text)
    out = []
    for p in sorted(host.rglob("*")):
        if p.suffix not in (".py", ".js", ".html", ".css") or p.name == "__init__.py":
            continue
        rel = p.relative_to(host)
        key = rel.parts[0] if len(rel.parts) > 1 else ""
        names = re.escape(p.name) + ("|" + re.escape(p.stem) if p.suffix == ".py" else "")
        if not re.search(r"[`/](%s)`" % names, found.get(key, "")):
            out.append(rel.as_posix())
    return out


def bench_parts(text: str) -> list[str]:
    """The bench's parts as the bench/ bullet lists them, in its order."""
    bench = bullets(text)["bench"]
    inside = bench[bench.index("in its order ("):]
    return re.findall(r"(?:\(|;\s+)`(\w+)`:", inside)


def backends(text: str) -> dict[str, str]:
    """The backends' table of "Driving a box": {class: its module, as the header names it}."""
    head = next(line for line in section(text, "Driving a box").split("\n")
                if line.startswith("| verb |"))
    return dict((m.group(1), m.group(2))
                for m in re.finditer(r"`(\w+)` \(([\w/]+\.py)\)", head))


def verbs(text: str) -> set[str]:
    """The verbs the first paragraph of "Driving a box" names (`name` or `name(...)`)."""
    para = section(text, "Driving a box").split("\n\n")[0]
    return set(re.findall(r"`(\w+)(?:\([^`]*\))?`", para))


def parts_api(text: str) -> set[str]:
    """The Game methods the "Game and app" block lists as the parts API."""
    block = section(text, "Game and app")
    at = block.index("# the parts API")
    lines = []
    for line in block[at:].split("\n"):
        if not line.lstrip().startswith("#"):
            break
        lines.append(line)
    return set(re.findall(r"\.(\w+)\(", " ".join(lines)))


def api_names(text: str, classes) -> list[tuple[str, str]]:
    """(class, member) for each member the API blocks (```) name: a line ``Name(...)`` opens
    a class of *classes* (its following ``  .member`` lines), ``Name.member`` names one."""
    out = []
    for block in re.findall(r"```\n(.*?)```", text, re.S):
        cls = None
        for line in block.split("\n"):
            code = line.split("#")[0]
            m = re.match(r"(\w+)[.(]", code)
            if m and m.group(1) in classes:
                cls = m.group(1)
                out += [(cls, n) for n in re.findall(r"\b%s\.(\w+)" % cls, code)]
            elif line[:1] not in (" ", ""):
                cls = None
            elif cls and re.match(r"\s+\.", code):
                out += [(cls, n) for n in re.findall(r"(?:^|[\s/,])\.(\w+)", code)]
    return out


def main(argv: list[str]) -> int:
    old = DESIGN.read_text()
    new = rewrite(old)
    if "--check" in argv:
        if new != old:
            print("docs/design.md: the module index is stale: run python tests/designmap.py")
            return 1
        return 0
    if new != old:
        DESIGN.write_text(new)
        print("docs/design.md: the module index rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
