# The firmware's modules use one another through named parts only: Game's API, named slots.
"""No firmware module reads or sets another object's ``_private`` name; the game's parts
(shutbox.computer, rounds, coach, resume and turn) call only the Game methods that game.py's
docstring lists under "Parts API"; the boot list (shutbox.powerup.read) and the records' tally
(shutbox.records.Records.tally) are read through named slots, whose copies match the lists
really built, and the boot list has no slot that is always None.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from types import SimpleNamespace

from shutbox import app as app_mod
from shutbox import powerup, records
from shutbox.engine import Engine, Rules
from shutbox.settings import Settings
from shutbox.store import Store

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware"
PARTS = ("computer", "rounds", "coach", "resume", "turn")  # the modules that drive the game
GAME_NAMES = {"g", "game"}  # what the parts call the game (self.game, or a parameter)


def private_uses(root: Path) -> list[str]:
    """Every ``x._name`` under *root* (the firmware's .py files) where x is not ``self``: a
    private name of another object or module (dunder names are Python's, not private)."""
    out = []
    for f in sorted(root.rglob("*.py")):
        for n in ast.walk(ast.parse(f.read_text())):
            if (isinstance(n, ast.Attribute) and n.attr.startswith("_")
                    and not n.attr.startswith("__")
                    and not (isinstance(n.value, ast.Name) and n.value.id == "self")):
                out.append("%s:%d: %s" % (f.relative_to(root), n.lineno, ast.unparse(n)))
    return out


def _is_game(node) -> bool:
    """``g``, ``game`` or ``self.game``."""
    if isinstance(node, ast.Name):
        return node.id in GAME_NAMES
    return (isinstance(node, ast.Attribute) and node.attr == "game"
            and isinstance(node.value, ast.Name) and node.value.id == "self")


def game_calls(path: Path) -> list[tuple[int, str]]:
    """The Game methods the module *path* calls: (line, name) of each ``g.name(...)``; an
    alias of ``self.game`` under another name fails (its calls would go unseen)."""
    out = []
    for n in ast.walk(ast.parse(path.read_text())):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                _is_game(n.func.value):
            out.append((n.lineno, n.func.attr))
        elif isinstance(n, ast.Assign) and _is_game(n.value) and \
                isinstance(n.value, ast.Attribute):
            for t in n.targets:
                assert isinstance(t, ast.Name) and t.id in GAME_NAMES, (path.name, n.lineno)
    return out


def parts_api(game_py: Path) -> set[str]:
    """The method names game.py's docstring lists under "Parts API:" (``name(...)``)."""
    doc = ast.get_docstring(ast.parse(game_py.read_text())) or ""
    at = doc.find("Parts API:")
    assert at >= 0, "game.py's docstring has no Parts API section"
    return set(re.findall(r"``(\w+)\(", doc[at:]))


def game_methods(game_py: Path) -> set[str]:
    tree = ast.parse(game_py.read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Game")
    return {n.name for n in cls.body if isinstance(n, ast.FunctionDef)}


def unlisted_calls(shutbox: Path) -> list[str]:
    """The parts' calls of Game methods that the Parts API does not list."""
    api = parts_api(shutbox / "game.py")
    return ["%s.py:%d: %s" % (m, line, name) for m in PARTS
            for line, name in game_calls(shutbox / (m + ".py")) if name not in api]


def shared_tables(engine_py: Path) -> set[str]:
    """The private names engine.py's docstring lets a second engine share ("Shared tables:")."""
    doc = ast.get_docstring(ast.parse(engine_py.read_text())) or ""
    at = doc.find("Shared tables:")
    assert at >= 0, "engine.py's docstring has no Shared tables section"
    return set(re.findall(r"``(_\w+)``", doc[at:doc.find("\n\n", at)]))


def contract_uses(root: Path) -> list[str]:
    """The private uses that are the engine's shared-tables contract: in companion/moves.py,
    shutbox/scores.py and shutbox/payout.py, ``e.<name>`` of a name engine.py's docstring
    lists."""
    names = shared_tables(root / "shutbox" / "engine.py")
    return [u for u in private_uses(root)
            if u.startswith(("companion/moves.py:", "shutbox/scores.py:",
                             "shutbox/payout.py:"))
            and u.split(": ", 1)[1] in {"e." + n for n in names}]


def test_no_firmware_module_uses_another_objects_private_names():
    uses = private_uses(FIRMWARE)
    allowed = contract_uses(FIRMWARE)
    assert len(allowed) >= 5, allowed  # the companion's ranking shares the engine's tables
    assert [u for u in uses if u not in allowed] == []


def test_the_parts_call_only_the_game_methods_its_docstring_lists():
    shutbox = FIRMWARE / "shutbox"
    api = parts_api(shutbox / "game.py")
    assert api and api <= game_methods(shutbox / "game.py"), api
    assert not [name for name in api if name.startswith("_")], api
    assert unlisted_calls(shutbox) == []
    called = {name for m in PARTS for _, name in game_calls(shutbox / (m + ".py"))}
    assert len(called) >= 6, called  # the check sees the parts' calls


def test_the_checks_see_a_private_use_and_an_unlisted_call(tmp_path):
    (tmp_path / "game.py").write_text('"""Parts API:\n\n* ``enter(state, now)``."""\n\n'
                                      "class Game:\n    def enter(self, s, now):\n"
                                      "        self._check(now)\n")
    (tmp_path / "computer.py").write_text("def f(g):\n    g.enter(0, 1)\n")
    (tmp_path / "rounds.py").write_text("def f(self):\n    self.game._check(0)\n")
    (tmp_path / "coach.py").write_text("def f(self):\n    g = self.game\n    g.roll(0)\n")
    (tmp_path / "resume.py").write_text("")
    (tmp_path / "turn.py").write_text("")
    assert private_uses(tmp_path) == ["rounds.py:2: self.game._check"]
    assert unlisted_calls(tmp_path) == ["rounds.py:2: _check", "coach.py:3: roll"]


# ----- named slots: the boot list and the records' tally -----


def test_resume_saves_the_four_slots_from_turns_on():
    """The slots' copies (app, powerup, records, resume) are written from one table
    (tests/firmware/test_consts.py); resume saves the four slots from turns on, in order."""
    r = records
    assert [r._T_TURNS + i for i in range(4)] == [r._T_TURNS, r._T_BEST, r._T_SHUT,
                                                    r._T_BEGAN]


def test_the_tally_has_the_slots_records_names(tmp_path):
    st = Store(str(tmp_path / "data"))
    t = records.Records(st, 1234).tally(0b100)
    r = records
    assert len(t) == r._T_GAMES + 1
    assert t[r._T_STORE] is st and t[r._T_KEY] == 1234 and t[r._T_SKIP] == 0b100
    assert (t[r._T_TURNS], t[r._T_BEST], t[r._T_SHUT]) == (0, r._NONE, 0)
    assert t[r._T_BEGAN] == t[r._T_GAMES] == 0


class _Board:
    """The Board API app.start uses: every tile open, Roll up."""

    tiles = 9

    def switches(self, levels=-1):
        return 0x1FF

    def roll(self, levels=-1):
        return False

    def show(self, frame):
        pass

    def tone(self, hz, ms=0):
        pass

    def adjust(self, sound, brightness):
        pass


def test_the_boot_list_has_the_slots_powerup_names_and_no_dead_one(tmp_path, capsys):
    st = Store(str(tmp_path / "data"))
    board = _Board()
    boot = powerup.read(SimpleNamespace(tiles=9), st)
    assert '"ev": "settings"' in capsys.readouterr().out  # printed, not kept in the list
    p = powerup
    assert len(boot) == p._BOOT_ENGINE and None not in boot
    assert isinstance(boot[p._BOOT_SETTINGS], Settings)
    assert isinstance(boot[p._BOOT_RULES], Rules) and boot[p._BOOT_NOTICES] == 0
    assert len(boot[p._BOOT_TALLY]) == records._T_GAMES + 1
    boot[p._BOOT_NOTICES] = 2  # the records' notice: shown at the first start only
    app = app_mod.start(board, bytes, 1000, st, boot, out=lambda line: None)
    assert app.notices == 2 and boot[p._BOOT_NOTICES] == 0
    assert len(boot) == p._BOOT_ENGINE + 1 and isinstance(boot[p._BOOT_ENGINE], Engine)
    assert app.engine is boot[p._BOOT_ENGINE] and app.tally is boot[p._BOOT_TALLY]
    again = app_mod.start(board, bytes, 2000, st, boot, out=lambda line: None)
    assert again.engine is app.engine and again.notices == 0 and len(boot) == p._BOOT_ENGINE + 1
