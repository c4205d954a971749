# References that cannot rot: every name and path the code's docstrings and comments cite exists.
"""The docstrings and comments of firmware/, host_tools/ and tests/ name modules, classes,
attributes (``shutbox.frame.number``, ``Board.adjust``, ``frame.GREEN``), files of the
repository (``tests/firmware/test_scenarios.py``, ``docs/design.md``) and sections of its
Markdown pages (``docs/playing.md ("Settings and combinations")``). Each must exist, as
tests/test_docs.py holds the docs' figures and links: a renamed or removed thing fails here,
naming the file and line that still cites it.

What is checked:

- a dotted name starting with ``shutbox.`` or ``shutbox_host.``: imported and looked up;
- ``X.y`` where X is one of the repository's modules (its last name: ``frame``, ``boxsim``)
  or classes (``Board``, ``Game``): y is an attribute of the module, of a class defined in
  it, or of the class, or an attribute its methods set (``self.y = ...``); ``y*`` is any
  attribute starting so. Names of MicroPython's own modules (``machine``, ``micropython``,
  ``neopixel``: the simulated board stands in for them) are MicroPython's, not checked;
- a path whose first folder is one of the repository's folders: the tail of a tracked file
  or folder (``sim/boxrun.py`` is host_tools/shutbox_host/box/sim/boxrun.py);
- a Markdown page followed by a quoted section name: a heading of that page holds it.
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import io
import re
import subprocess
import tokenize
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXTERNAL = {"machine", "micropython", "neopixel", "time", "rp2"}  # MicroPython's modules
# X.y where y is a file's type: a file's name (pins.py, box.json), not an attribute.
FILE_TYPES = {"py", "mpy", "js", "json", "md", "bin", "txt", "tmp", "html", "css", "uf2", "img",
              "svg", "pdf", "csv", "png", "jsonl", "step", "stl", "ini", "toml"}
# Paths the box makes on its own flash (not files of the repository).
ON_THE_BOX = {"shutbox/tables.idx", "shutbox/pins.mpy"}


def tracked() -> list[str]:
    return subprocess.run(["git", "ls-files"], capture_output=True, text=True, cwd=str(ROOT),
                          check=True).stdout.split()


FILES = tracked()
SOURCES = [p for p in FILES if p.endswith(".py")
           and p.split("/")[0] in ("firmware", "host_tools", "tests")]
DIRS = {"/".join(p.split("/")[:i]) for p in FILES for i in range(1, p.count("/") + 1)}
FOLDER_NAMES = {d.rsplit("/", 1)[-1] for d in DIRS}


@functools.cache
def texts(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every comment and docstring of the Python file *path*."""
    source = path.read_text()
    out = [(tok.start[0], tok.string)
           for tok in tokenize.generate_tokens(io.StringIO(source).readline)
           if tok.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc and node.body:
                out.append((node.body[0].lineno, doc))
    return out


# ----- what the names can be -----


def _modules() -> dict[str, object]:
    """Every module of the repository's packages, by its full name."""
    out = {}
    for rel in FILES:
        if not rel.endswith(".py") or "/sim/" in rel or rel.endswith("/main.py"):
            continue
        if rel.startswith("firmware/shutbox/"):
            name = "shutbox." + rel[len("firmware/shutbox/"):-3]
        elif rel.startswith("host_tools/shutbox_host/"):
            name = "shutbox_host." + rel[len("host_tools/shutbox_host/"):-3]
        else:
            continue
        name = name.replace("/", ".").removesuffix(".__init__")
        try:
            out[name] = importlib.import_module(name)
        except ImportError:
            if rel.startswith("firmware/"):  # the Pico's alone (shutbox.chip: machine, rp2)
                out[name] = _outline_file(name, rel)
            # else a tool whose optional package is not installed (build123d)
    return out


def _outline_file(name: str, rel: str) -> types.ModuleType:
    """The module *name* whose source is *rel*, as its top-level names (read, not run)."""
    mod = types.ModuleType(name)
    for node in ast.parse((ROOT / rel).read_text()).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            setattr(mod, node.name, None)
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    setattr(mod, t.id, None)
    return mod


def _outline(pkg: str) -> types.ModuleType:
    """A package of firmware/ that CPython does not import (the Pico W's companion needs
    MicroPython's asyncio): its modules and their top-level names, read from the source."""
    out = types.ModuleType(pkg)
    for rel in FILES:
        if rel.startswith("firmware/%s/" % pkg) and rel.endswith(".py"):
            mod = _outline_file(pkg + "." + rel.rsplit("/", 1)[-1][:-3], rel)
            setattr(out, mod.__name__.rsplit(".", 1)[-1], mod)
    return out


MODULES = _modules()
MODULES["companion"] = _outline("companion")
SHORT: dict[str, list] = {}  # a module's last name, or a class's name -> the objects
for _name, _mod in MODULES.items():
    SHORT.setdefault(_name.rsplit(".", 1)[-1], []).append(_mod)
    for _cls in vars(_mod).values():
        if inspect.isclass(_cls) and getattr(_cls, "__module__", None) == _name:
            SHORT.setdefault(_cls.__name__, []).append(_cls)
for _ext in EXTERNAL:
    SHORT.pop(_ext, None)


@functools.cache
def _self_attrs(cls) -> frozenset[str]:
    """The attributes the methods of *cls* (and its bases of ours) set on self."""
    out: set[str] = set()
    for klass in cls.__mro__:
        if klass.__module__ not in MODULES:
            continue
        try:
            tree = ast.parse(inspect.getsource(klass))
        except (OSError, TypeError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                    node.value.id == "self" and isinstance(node.ctx, ast.Store):
                out.add(node.attr)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                out.add(node.target.id)  # a dataclass's field
    return frozenset(out)


def _names(o) -> set[str]:
    out = set(dir(o))
    if inspect.isclass(o):
        out |= _self_attrs(o)
    return out


@functools.cache
def _pool(obj) -> frozenset[str]:
    """The names *obj* has (a module: with those of the classes defined in it)."""
    pool = _names(obj)
    if inspect.ismodule(obj):
        for cls in vars(obj).values():
            if inspect.isclass(cls) and cls.__module__ == obj.__name__:
                pool |= _names(cls)
    return frozenset(pool)


def has(obj, attr: str) -> bool:
    """Whether *attr* (``name*``: any name so starting) is an attribute of *obj* (a module:
    also of a class defined in it; a class: also set on self by its methods)."""
    pool = _pool(obj)
    if attr.endswith("*"):
        return any(n.startswith(attr[:-1]) for n in pool)
    return attr in pool


def resolve_full(name: str) -> bool:
    """Whether the dotted name ``shutbox...`` / ``shutbox_host...`` exists."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        mod = MODULES.get(".".join(parts[:i]))
        if mod is None and ".".join(parts[:i]) in ("shutbox", "shutbox_host"):
            mod = importlib.import_module(".".join(parts[:i]))
        if mod is None:
            continue
        obj = mod
        for attr in parts[i:]:
            if not has(obj, attr):
                return False
            obj = getattr(obj, attr, None)
            if obj is None:
                return True  # set on instances: nothing further to look into
        return True
    return False


FULL = re.compile(r"(?<![\w.])((?:shutbox_host|shutbox)(?:\.[A-Za-z_]\w*)+\*?)")
DOTTED = re.compile(r"(?<![\w./-])([A-Za-z_]\w*)\.([A-Za-z_]\w*\*?)(?![\w/-]|\.\w)")
PATH = re.compile(r"(?<![\w./~-])((?:[\w.-]+/)+[\w.-]*)")
SECTION = re.compile(r"([\w/.-]*\.md|README)(?:'s|,)? \(?\"([^\"]+)\"")


@functools.cache
def resolve_path(path: str) -> bool:
    """Whether *path* is the tail of a tracked file or folder (an N in a lower-case name is
    a number: tables/nN.bin is tables/n9.bin)."""
    path = path.rstrip("/.")
    parts = [re.compile(re.escape(p).replace("N", r"\d+") if p != p.upper() and
                        re.fullmatch(r"[a-zN_.-]+", p) else re.escape(p))
             for p in path.split("/")]
    for known in FILES + sorted(DIRS):
        kp = known.split("/")
        if len(kp) >= len(parts) and all(
                r.fullmatch(k) for r, k in zip(parts, kp[-len(parts):], strict=True)):
            return True
    if path.endswith(".mpy") and resolve_path(path[:-4] + ".py"):
        return True  # a module as the flash sends it, compiled (shutbox/chip.mpy)
    return path in ON_THE_BOX


def references(text: str):
    """Yield (offset, kind, what, ok) for every reference in *text*."""
    for m in FULL.finditer(text):
        name = m.group(1).rstrip(".")
        yield m.start(), "name", name, resolve_full(name)
    for m in DOTTED.finditer(text):
        x, y = m.groups()
        if x in ("shutbox", "shutbox_host") or x not in SHORT or y in FILE_TYPES:
            continue
        yield m.start(), "name", "%s.%s" % (x, y), any(has(obj, y) for obj in SHORT[x])
    for m in PATH.finditer(text):
        path = m.group(1)
        first = path.split("/")[0]
        if (first not in FOLDER_NAMES and first not in ("docs", "tests")) or "<" in path \
                or "*" in path or "://" in text[max(0, m.start() - 8):m.start() + 3] \
                or path.rstrip(".").endswith((".c", ".h")):  # pico-sdk's, MicroPython's
            continue
        yield m.start(), "path", path, resolve_path(path)
    for m in SECTION.finditer(text):
        page, section = m.group(1), " ".join(m.group(2).split())
        page = "README.md" if page == "README" else page
        md = next((ROOT / p for p in FILES if p.endswith(page)), None)
        ok = md is not None and any(section.lower() in line.lower()
                                    for line in md.read_text().splitlines()
                                    if line.startswith("#"))
        yield m.start(), "section", '%s "%s"' % (page, section), ok


def test_every_name_path_and_section_cited_exists():
    bad = []
    for rel in SOURCES:
        for line, text in texts(ROOT / rel):
            for at, kind, what, ok in references(text):
                if not ok:
                    bad.append("%s:%d: %s %s" % (rel, line + text.count("\n", 0, at), kind,
                                                 what))
    assert not bad, "cited but not there:\n" + "\n".join(sorted(set(bad)))


UNCITABLE = re.compile(r"\bseed \d{3}\b|(?<!MicroPython )\bissue #?\d+", re.I)


def test_the_product_cites_nothing_a_reader_cannot_look_up():
    """The rule pages are named as docs/rules.md names them (the solver's page, the play
    site), not by their file numbers outside the repository; no issue numbers."""
    bad = ["%s:%d: %s" % (rel, line + text.count("\n", 0, m.start()), m.group())
           for rel in SOURCES if not rel.startswith("tests/")
           for line, text in texts(ROOT / rel) for m in UNCITABLE.finditer(text)]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("text, ok", [
    ("shutbox.frame.number", True), ("shutbox.frame.nonesuch", False),
    ("Board.adjust", True), ("Board.volume", False), ("frame.GREEN", True),
    ("settings.ATTR*", True), ("settings.HINT_*", False), ("Game.log", True),
    ("tests/firmware/test_scenarios.py", True), ("tests/test_scenarios.py", False),
    ("sim/boxrun.py", True), ('docs/playing.md ("Settings and combinations")', True),
    ('README.md ("Settings and combinations")', False),
])
def test_the_checker_finds_what_is_gone(text, ok):
    """Stale names of the kind this test was written for fail; live ones pass."""
    found = list(references(text))
    assert found and all(r[3] for r in found) == ok, found
