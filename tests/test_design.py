# docs/design.md held to the code: what it lists by hand is what the code has.
"""docs/design.md against the code (tests/designmap.py reads the page): the firmware's module
index is the one the modules' header lines make; every host module is named in its
sub-package's bullet; the bench's parts are ``bench.PARTS`` in its order; the backends'
table has every adapter of model/drive.py's protocol, each in its module, and the page names
every verb of the protocol; the parts API
drawn is game.py's; every member the API blocks name exists in its class; every test folder
is named in design.md and docs/development.md. Each check is shown failing on a planted
drift.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import designmap as D

ROOT = Path(__file__).resolve().parents[1]
TEXT = D.DESIGN.read_text()


def test_design_md_holds_the_module_index_the_code_makes():
    """python tests/designmap.py rewrites it."""
    assert D.rewrite(TEXT) == TEXT, "stale module index: run python tests/designmap.py"
    for p in sorted((D.FIRMWARE / "shutbox").glob("*.py")):
        if p.name != "__init__.py":
            assert "| `shutbox/%s` | %s |" % (p.name, D.header(p)) in TEXT


def test_the_index_check_sees_a_new_module(tmp_path):
    (tmp_path / "shutbox").mkdir()
    (tmp_path / "main.py").write_text("# The entry point.\n")
    (tmp_path / "shutbox" / "game.py").write_text("# The game | its state.\nx = 1\n")
    text = "a\n%s\n%s\nb\n" % (D.BEGIN, D.END)
    made = D.rewrite(text, tmp_path)
    assert "| `main.py` | The entry point. |\n| `shutbox/game.py` | The game \\| its state. |" \
        in made
    (tmp_path / "shutbox" / "new.py").write_text("// A new one.\n")
    assert D.rewrite(made, tmp_path) != made


def test_every_host_module_is_named_in_its_packages_bullet():
    assert D.unnamed(TEXT) == []
    assert set(D.bullets(TEXT)) >= {"", "model", "box", "pico", "bench"}  # the bullets found


def test_the_bullet_check_sees_an_unnamed_module(tmp_path):
    host = tmp_path / "shutbox_host"
    for rel in ("cli.py", "box/__init__.py", "box/boxsim.py", "box/sim/machine.py",
                "box/sim/norflash.py", "web/static/app.js", "bench/rp2.py"):
        (host / rel).parent.mkdir(parents=True, exist_ok=True)
        (host / rel).write_text("")
    text = ("\n## Layout\n- `host_tools/shutbox_host/` — tools:\n  - `cli.py` (dispatch);\n"
            "  - `box/` — `sim/` (`machine.py`), `boxsim.py`;\n  - `web/` — `static/app.js`;\n"
            "  - `bench/` — parts (`rp2`: the chip)\n- `tests/` — ...\n")
    assert D.unnamed(text, host) == ["box/sim/norflash.py"]


def test_the_bench_parts_are_drawn_in_their_order():
    from shutbox_host import bench

    assert D.bench_parts(TEXT) == [name.rsplit(".", 1)[1] for name in bench.PARTS]


def test_the_parts_check_sees_a_part_left_out():
    text = TEXT.replace("`idle`: the waiting screens on the chip; ", "")
    assert text != TEXT and "idle" not in D.bench_parts(text)


def adapters() -> dict[str, str]:
    """Every class of the host tools that adapts a box to model/drive.py's protocol (a
    subclass of its Driver): {class: its module, under shutbox_host/}."""
    out = {}
    for p in sorted(D.HOST.rglob("*.py")):
        for n in ast.parse(p.read_text()).body:
            if isinstance(n, ast.ClassDef) and any(
                    ast.unparse(b) in ("Driver", "drive.Driver") for b in n.bases):
                out[n.name] = p.relative_to(D.HOST).as_posix()
    return out


def test_the_backends_table_has_every_adapter_in_its_module():
    found = adapters()
    assert len(found) >= 5, found  # the check sees them
    assert D.backends(TEXT) == found


def test_the_backends_check_sees_a_moved_adapter():
    text = TEXT.replace("`TermBox` (box/play.py)", "`TermBox` (box/term.py)")
    assert text != TEXT and D.backends(text) != adapters()


def protocol() -> set[str]:
    """The verbs of model/drive.py's Box protocol: its methods and attributes."""
    tree = ast.parse((D.HOST / "model" / "drive.py").read_text())
    box = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Box")
    return {n.name for n in box.body if isinstance(n, ast.FunctionDef)} | {
        n.target.id for n in box.body if isinstance(n, ast.AnnAssign)}


def test_every_verb_of_the_protocol_is_drawn():
    verbs = protocol()
    assert {"levels", "edges", "press", "run", "close"} <= verbs  # the check sees them
    assert verbs - D.verbs(TEXT) == set()


def test_the_verbs_check_sees_a_verb_left_out():
    text = TEXT.replace(", and `close()` (the box stops: its process ends)", "")
    assert text != TEXT and protocol() - D.verbs(text) == {"close"}


def _game_py_parts_api() -> set[str]:
    doc = ast.get_docstring(ast.parse((D.FIRMWARE / "shutbox" / "game.py").read_text()))
    assert doc and "Parts API:" in doc
    return set(re.findall(r"``(\w+)\(", doc[doc.index("Parts API:"):]))


def test_the_parts_api_drawn_is_game_pys():
    """tests/firmware/test_parts.py holds the parts to game.py's list; this, the page."""
    assert D.parts_api(TEXT) == _game_py_parts_api()


def test_the_parts_api_check_sees_a_method_left_out():
    text = TEXT.replace(" .one_die_choice()", "")
    assert text != TEXT and D.parts_api(text) != _game_py_parts_api()


def members() -> dict[str, set[str]]:
    """Every class of the firmware: {name: its methods, class attributes and the attributes
    its methods set on self}."""
    out: dict[str, set[str]] = {}
    for p in sorted(D.FIRMWARE.rglob("*.py")):
        for c in ast.parse(p.read_text()).body:
            if not isinstance(c, ast.ClassDef):
                continue
            names = out.setdefault(c.name, set())
            for n in ast.walk(c):
                if isinstance(n, ast.FunctionDef):
                    names.add(n.name)
                elif (isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)
                      and ast.unparse(n.value) == "self"):
                    names.add(n.attr)
            for n in c.body:
                if isinstance(n, ast.Assign):
                    names |= {t.id for t in n.targets if isinstance(t, ast.Name)}
                elif isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name):
                    names.add(n.target.id)
    return out


def test_every_member_the_api_blocks_name_exists():
    have = members()
    named = D.api_names(TEXT, have)
    assert len({c for c, _ in named}) >= 8, named  # Engine, Board, Game, App, Guard, ...
    assert [(c, n) for c, n in named if n not in have[c]] == []


def test_the_member_check_sees_a_renamed_method():
    have = members()
    text = TEXT.replace("  .greedy_move(open_, a, b) -> mask", "  .greedy(open_, a, b) -> mask")
    assert text != TEXT
    assert [(c, n) for c, n in D.api_names(text, have) if n not in have[c]] == [
        ("Engine", "greedy")]


def test_every_test_folder_is_named_in_the_design_and_the_development_pages():
    folders = sorted(p.name for p in (ROOT / "tests").iterdir()
                     if p.is_dir() and any(p.glob("*.py")))
    assert "firmware" in folders and "mp" in folders
    layout = D.section(TEXT, "Layout")
    tests = layout[layout.index("- `tests/`"):]
    development = (ROOT / "docs" / "development.md").read_text()
    for name in folders:
        assert re.search(r"`(tests/)?%s/`" % name, tests), name
        assert "`tests/%s/`" % name in development, name


def _defines(module: str) -> set[str]:
    """The top-level functions of the host module *module* (dotted; a package: its
    __init__.py), read without importing it."""
    path = ROOT / "host_tools" / Path(*module.split("."))
    path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    return {n.name for n in ast.parse(path.read_text()).body if isinstance(n, ast.FunctionDef)}


def test_the_conventions_hold_for_every_command_and_every_bench_part():
    """Conventions: a command's module defines configure(parser) and run(args); a bench
    part, figures(soak); the Layout names every command where its module is drawn."""
    from shutbox_host import bench, cli

    layout = D.section(TEXT, "Layout")
    for name, (module, _) in cli.COMMANDS.items():
        assert {"configure", "run"} <= _defines(module), module
        assert "`shutbox %s" % name in layout, name
    for module in bench.PARTS:
        assert "figures" in _defines(module), module


def test_the_conventions_check_sees_a_missing_function(tmp_path, monkeypatch):
    (tmp_path / "host_tools" / "pkg").mkdir(parents=True)
    (tmp_path / "host_tools" / "pkg" / "cmd.py").write_text(
        "def configure(parser):\n    pass\n\nclass X:\n    def run(self):\n        pass\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert _defines("pkg.cmd") == {"configure"}
