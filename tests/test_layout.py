# The import directions docs/design.md draws, checked on every module's imports.
"""docs/design.md (Layout): the firmware imports only itself and MicroPython's modules, with
``machine`` and ``neopixel`` in board.py alone (and ``machine`` in supply.py, the chip's power
hardware, loaded only there, with ``network``: the Pico W's radio, whose VBUS sense it is;
``network`` in companion/picow.py, which starts the radio's networking);
the host tools import the firmware, never the other way; no product module imports the
tests' machinery but the bench's reliability part. The host tools' sub-packages import the
floor (shutbox_host/model/) and each other only as the drawing's exceptions allow
(tests/importmap.py), the floor no sub-package, and docs/design.md holds the drawing the
code makes. The Pico W's companion (firmware/companion/) may import microdot (its web
framework), asyncio and the sockets besides; of the shutbox package only sleep.py (the
chip's loop) imports the companion, and only on a Pico W (its radio), so a Pico runs none
of it.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import importmap

ROOT = Path(__file__).resolve().parents[1]
FIRMWARE = ROOT / "firmware"
HOST = ROOT / "host_tools" / "shutbox_host"
# MicroPython's modules the firmware may use (the rp2 port's built-ins and frozen ones).
MICROPYTHON = {"array", "binascii", "gc", "hashlib", "json", "machine", "micropython",
               "neopixel", "network", "os", "struct", "sys", "time", "vfs"}
# only board.py (supply.py: machine and network) reaches them
HARDWARE = {"machine", "neopixel", "network"}
# the Pico W's companion (firmware/companion/) only: its web framework, its scheduler and the
# sockets of its DNS
COMPANION = {"asyncio", "companion", "microdot", "select", "socket"}
TESTS = {"fuzzbox", "soak", "conftest", "tests", "engine_reference", "solve_reference",
         "selection"}


def imports(path: Path) -> set[str]:
    """The top-level names of every module *path* imports (import, from, __import__ of a
    string constant)."""
    out = set()
    for n in ast.walk(ast.parse(path.read_text())):
        if isinstance(n, ast.Import):
            out |= {a.name.split(".")[0] for a in n.names}
        elif isinstance(n, ast.ImportFrom) and n.module and not n.level:
            out.add(n.module.split(".")[0])
        elif (isinstance(n, ast.Call) and getattr(n.func, "id", "") == "__import__"
              and n.args and isinstance(n.args[0], ast.Constant)):
            out.add(str(n.args[0].value).split(".")[0])
    return out


def test_the_firmware_imports_only_itself_and_micropython():
    seen = set()
    for f in sorted(FIRMWARE.rglob("*.py")):
        names = imports(f)
        seen |= names
        rel = f.relative_to(ROOT)
        allowed = MICROPYTHON | {"shutbox"}
        if rel.parts[1] == "companion":
            allowed |= COMPANION
        elif f.name == "sleep.py":  # a Pico W's loop beside the companion (companion.picow)
            allowed |= {"companion"}
        elif f.name == "chip.py":  # the Pico's flash through its registers (code in RAM)
            allowed |= {"rp2", "uctypes"}
        assert names <= allowed, (rel, names - allowed)
        if f.name == "supply.py":
            assert names & HARDWARE == {"machine", "network"}, (rel, names & HARDWARE)
        elif f.name == "chip.py":
            assert names & HARDWARE == {"machine"}, (rel, names & HARDWARE)
        elif rel.parts[1:] == ("companion", "picow.py"):  # the Pico W's radio, its network
            assert names & HARDWARE == {"network"}, (rel, names & HARDWARE)
        elif f.name != "board.py":
            assert not names & HARDWARE, (rel, names & HARDWARE)
    assert HARDWARE <= seen  # (board.py is scanned: the check can see them)


def test_the_host_tools_never_import_the_tests():
    for f in sorted(HOST.rglob("*.py")):
        names = imports(f)
        rel = f.relative_to(ROOT)
        if rel.parts[-2:] == ("bench", "reliability.py"):
            assert names & TESTS == {"fuzzbox", "soak"}, names & TESTS  # the drawn exception
            continue
        assert not names & TESTS, (rel, names & TESTS)


def test_the_check_sees_an_import(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("import machine.pin\nfrom soak import run\n__import__('shutbox.game')\n"
                 "from . import near\n")
    assert imports(f) == {"machine", "soak", "shutbox"}


def test_the_host_sub_packages_import_each_other_only_as_drawn():
    bad = importmap.forbidden(importmap.imports())
    assert not bad, "sibling imports docs/design.md's drawing does not allow: %s" % bad


def test_the_floor_imports_only_the_firmware_and_the_shared_helpers():
    helpers = {"errors", "mp", "contact", importmap.FLOOR}
    seen = set()
    for f in sorted((HOST / importmap.FLOOR).rglob("*.py")):
        for n in ast.walk(ast.parse(f.read_text())):
            if isinstance(n, ast.Import):
                names = [a.name for a in n.names]
            elif isinstance(n, ast.ImportFrom) and not n.level:  # from a package: its modules
                names = ["%s.%s" % (n.module, a.name) for a in n.names]
            else:
                continue
            for name in names:
                parts = name.split(".")
                if parts[0] == "shutbox_host":
                    seen.add(parts[1])
                    assert parts[1] in helpers, (f.relative_to(ROOT), name)
    assert "errors" in seen and importmap.FLOOR in seen  # the check sees the floor's imports


def test_design_md_holds_the_import_drawing_the_code_makes():
    """python tests/importmap.py rewrites it."""
    text = importmap.DESIGN.read_text()
    assert importmap.rewrite(text) == text, "stale drawing: run python tests/importmap.py"
    assert importmap.drawing() in text


def test_the_drawing_check_sees_a_sibling_import(tmp_path):
    """A sibling import no exception allows (here the emulator taking the LED reader from
    the simulated box, late, inside a function) is found and drawn as not allowed; the
    drawn exceptions are not; the floor and the shared helpers may import no sub-package."""
    host = tmp_path / "shutbox_host"
    for pkg in ("bench", "box", "model", "pico", "web"):
        (host / pkg).mkdir(parents=True)
        (host / pkg / "__init__.py").write_text("")
    (host / "box" / "boxsim.py").write_text("from shutbox_host.model import leds\n")
    (host / "box" / "webbox.py").write_text("from shutbox_host.pico import companion\n")
    (host / "pico" / "companion.py").write_text("")
    (host / "pico" / "emulator.py").write_text(
        "import os\n\ndef decode():\n    from shutbox_host.box import boxsim\n")
    (host / "model" / "leds.py").write_text("import shutbox_host.web\n")
    (host / "bench" / "rp2.py").write_text("from shutbox_host.pico import emulator\n")
    (host / "mp.py").write_text("import shutbox_host.box.boxsim\n")  # a helper: below all
    (host / "cli.py").write_text("from shutbox_host import mp\n")
    (host / "web" / "build.py").write_text("from shutbox_host.pico import emulator\n")
    found = importmap.imports(host)
    assert ("box/boxsim.py", "shutbox_host.model.leds") in found
    assert importmap.forbidden(found) == [("model/leds.py", "shutbox_host.web"),
                                          ("mp.py", "shutbox_host.box.boxsim"),
                                          ("pico/emulator.py", "shutbox_host.box.boxsim")]
    drawn = importmap.drawing(host)
    assert "NOT ALLOWED: pico/emulator.py imports shutbox_host.box.boxsim" in drawn
    assert drawn.count("NOT ALLOWED") == 3, drawn


# What a test calls to skip where a tool is missing -> the marker make check deselects it by.
NEEDS = {"require_emulator": {"node"}, "require_build": {"node"}, "missing": {"node"},
         "pico_w": {"node"},
         "require_browser": {"node", "browser"}, "node_exe": {"node"}, "which:node": {"node"},
         "importorskip:build123d": {"enclosure"}, "find_spec:build123d": {"enclosure"}}


def _marks(decorators) -> set[str]:
    """The pytest.mark.NAME names among *decorators* (or a pytestmark list's elements)."""
    return {d.attr for d in decorators
            if isinstance(d, ast.Attribute) and getattr(d.value, "attr", "") == "mark"}


def _needs(node) -> set[str]:
    """The markers the skips called anywhere inside *node* ask for."""
    out = set()
    for n in ast.walk(node):
        if not isinstance(n, ast.Call):
            continue
        name = getattr(n.func, "id", None) or getattr(n.func, "attr", "")
        arg = n.args[0].value if n.args and isinstance(n.args[0], ast.Constant) else None
        out |= NEEDS.get(name, set()) | NEEDS.get("%s:%s" % (name, arg), set())
    return out


def unmarked(path: Path) -> list[str]:
    """Where *path* skips for a missing tool without the marker make check deselects by:
    'module' or a test's name, with the markers missing."""
    tree = ast.parse(path.read_text())
    module = set()
    for n in tree.body:
        if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "pytestmark":
            module = _marks(n.value.elts if isinstance(n.value, ast.List) else [n.value])
    out = []
    top = [n for n in tree.body if not isinstance(n, ast.FunctionDef)]
    lack = set().union(*(_needs(n) for n in top)) - module
    if lack:
        out.append("module: %s" % sorted(lack))
    for f in (n for n in tree.body if isinstance(n, ast.FunctionDef)):
        if f.name.startswith("test_"):
            lack = _needs(f) - module - _marks(f.decorator_list)
            if lack:
                out.append("%s: %s" % (f.name, sorted(lack)))
    return out


def test_every_test_that_needs_node_chromium_or_cad_is_marked_so():
    """make check deselects by the markers node, browser and enclosure: a test that needs
    one of those tools (it calls require_emulator, require_build, require_browser, or skips
    without build123d) and lacks its marker would run in make check wherever the tool is
    installed, and the fast loop would be slow again."""
    bad = {str(f.relative_to(ROOT)): u for f in sorted((ROOT / "tests").rglob("test_*.py"))
           if (u := unmarked(f))}
    assert not bad, bad


def test_the_marker_check_sees_a_missing_marker(tmp_path):
    f = tmp_path / "test_x.py"
    f.write_text("from emu_skip import require_emulator\nrequire_emulator()\n"
                 "def test_a():\n    pass\n")
    assert unmarked(f) == ["module: ['node']"]
    f.write_text("import pytest\npytestmark = [pytest.mark.node]\n"
                 "from emu_skip import require_emulator\nrequire_emulator()\n")
    assert unmarked(f) == []
    f.write_text("def test_a():\n    import shutil\n    shutil.which('node')\n")
    assert unmarked(f) == ["test_a: ['node']"]


def _make_marks(target: str) -> str:
    """The -m expression of the pytest run `make <target>` makes (make -n: nothing runs)."""
    r = subprocess.run(["make", "-n", "-C", str(ROOT), target], capture_output=True,
                       text=True, timeout=60)
    found = re.findall(r'pytest -q .*-m "([^"]*)"', r.stdout)
    assert len(found) == 1, r.stdout + r.stderr
    return found[0]


def test_make_check_runs_the_short_tests_and_make_test_the_long_ones():
    """A long test (tests/selection.py) runs whole in make test and shortened in make check;
    neither runs a test twice; make check leaves out what needs Node, Chromium or CAD."""
    from _pytest.mark.expression import Expression

    def runs(target, *marks):
        return Expression.compile(_make_marks(target)).evaluate(lambda m: m in marks)

    assert runs("check") and runs("check", "short") and runs("check", "slow")
    assert not any(runs("check", m) for m in ("long", "node", "browser", "enclosure"))
    assert runs("pytest") and runs("pytest", "long") and not runs("pytest", "short")
    assert all(runs("pytest", m) for m in ("node", "browser", "enclosure", "slow"))
    # make soak: the slow ones, and the long ones again with SHUTBOX_SLOW=1 (test_lean's
    # every cut reads it)
    assert runs("soak", "slow") and runs("soak", "long") and not runs("soak")
    assert not runs("soak", "short")


def test_sizes_gives_a_short_and_a_long_version():
    from selection import sizes

    short, long = sizes(1, 2)
    assert (short.values, short.id, [m.name for m in short.marks]) == ((1,), "short", ["short"])
    assert (long.values, long.id, [m.name for m in long.marks]) == ((2,), "long", ["long"])


def test_a_module_marked_as_a_whole_is_left_unimported_when_no_test_of_it_can_run():
    """make check leaves the modules marked node, browser or enclosure unimported (the CAD
    stack is seconds of imports a process), by their markers, read from their source; a run
    whose -m can select a test of theirs (make test, make soak's slow ones) collects them."""
    from selection import module_marks, selects_none

    check = _make_marks("check")
    assert module_marks(ROOT / "tests" / "hardware" / "test_enclosure.py") == {"enclosure"}
    assert module_marks(ROOT / "tests" / "web" / "test_web.py") == {"node", "browser"}
    assert module_marks(ROOT / "tests" / "test_layout.py") == set()
    assert selects_none(check, {"enclosure"}) and selects_none(check, {"node"})
    assert not selects_none(check, set()) and not selects_none(check, {"slow"})
    assert not selects_none(_make_marks("pytest"), {"node", "browser"})
    assert not selects_none("slow", {"node"})  # a slow test in a node module: make soak's
    assert not selects_none("node", {"enclosure"})  # it could carry node too
    # pytest in a process of its own, over the folders (a module named on the command line
    # is always collected): which of the two it imported, and what it skipped
    code = ("import sys, pytest\n"
            "pytest.main(['--collect-only', '-q', '-rs', '-p', 'no:cacheprovider', '-m', "
            "sys.argv[1], 'tests/hardware', 'tests/web'])\n"
            "print('IMPORTED', [m for m in ('test_enclosure', 'test_web') if m in sys.modules])\n")
    r = subprocess.run([sys.executable, "-c", code, check], cwd=ROOT, capture_output=True,
                       text=True, timeout=300)
    assert "IMPORTED []" in r.stdout, r.stdout[-2000:] + r.stderr[-2000:]
    assert not re.search(r"SKIPPED.*test_(enclosure|web)", r.stdout), r.stdout


def test_each_xdist_worker_starts_with_its_share_of_the_long_modules_each_whole():
    """selection.plan, on the real cost list: in --dist worksteal's first split (consecutive
    shares of equal counts), each worker's share starts with long modules, longest first,
    each module whole and in one share, the shares' costs within the longest module's of
    each other, and ends with the short tests; every test is there once. One process: the
    collection's order."""
    from selection import COSTS, plan

    class Item:
        def __init__(self, nodeid):
            self.nodeid = nodeid

    items = [Item("%s::t%d" % (path, k)) for path in sorted(COSTS) for k in range(3)]
    items += [Item("tests/short/test_%d.py::t" % k) for k in range(400)]
    for workers in (2, 3):
        out = plan(list(items), workers)
        assert sorted(map(id, out)) == sorted(map(id, items))
        shares, pos = [], 0
        for k in range(workers):
            n = (len(items) - pos) // (workers - k)
            shares.append([it.nodeid.split("::")[0] for it in out[pos:pos + n]])
            pos += n
        loads = []
        for paths in shares:
            long_ = [p for p in paths if p in COSTS]
            order = list(dict.fromkeys(long_))
            assert paths[:len(long_)] == long_ == [p for p in order for _ in range(3)]
            assert [COSTS[p] for p in order] == sorted((COSTS[p] for p in order), reverse=True)
            loads.append(sum(COSTS[p] for p in order))
        assert all(sum(p in paths for paths in shares) == 1 for p in COSTS)
        assert max(loads) - min(loads) <= max(COSTS.values())
    assert plan(list(items), 1) == items
