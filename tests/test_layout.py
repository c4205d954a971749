# The import directions docs/design.md draws, checked on every module's imports.
"""docs/design.md (Layout): the firmware imports only itself and MicroPython's modules, with
``machine`` and ``neopixel`` in board.py alone (and ``machine`` in supply.py, the chip's power
hardware, loaded only there); the host tools import the firmware, never the
other way; no product module imports the tests' machinery but the bench's reliability part.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIRMWARE = ROOT / "firmware"
HOST = ROOT / "host_tools" / "shutbox_host"
# MicroPython's modules the firmware may use (the rp2 port's built-ins and frozen ones).
MICROPYTHON = {"array", "binascii", "gc", "hashlib", "json", "machine", "micropython",
               "neopixel", "os", "struct", "sys", "time", "vfs"}
HARDWARE = {"machine", "neopixel"}
TESTS = {"fuzzbox", "soak", "conftest", "tests", "engine_reference", "solve_reference"}


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
        assert names <= MICROPYTHON | {"shutbox"}, (rel, names - MICROPYTHON - {"shutbox"})
        if f.name == "supply.py":
            assert names & HARDWARE == {"machine"}, (rel, names & HARDWARE)
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
