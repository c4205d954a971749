# The tests' machinery stays out of the product: checked on the host tools' source.
"""The host tools carry no test machinery (docs/design.md, Layout): every child process is
tied to its parent (``mp.tied``: killed when the tool dies, however it dies); the
environment the tools read is a known list, each variable with what it is for (no switch that
makes the product kill itself); no machine-wide path; no module-wide hook a test sets (a
hook is an argument: ``flash.flash(on_point=...)``); the flash is steps a reader can follow;
the tests and the bench call nothing private of each other. Each check is shown to see what
it looks for on a planted module. (Chromium is started by Playwright's driver, not by
subprocess here: the driver exits and closes its browsers when this process's pipe to it
closes, however this process dies.)
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HOST = ROOT / "host_tools" / "shutbox_host"
# run by the unix port's micropython (the simulated board, the virtual Pico's own side):
# the box's side of a harness, not a CPython tool
UNDER_MICROPYTHON = ("box/sim/", "pico/vpico_repl.py")

SPAWN = {"run", "Popen", "call", "check_call", "check_output"}

# Every environment variable the host tools read, and what it is for.
ENVIRONMENT = {
    "SHUTBOX_CACHE": "where the cache is (mp.cache_dir)",
    "SHUTBOX_SHARED": "another ../shared/rp2040 (pico.inputs)",
    "SHUTBOX_UF2": "the RPI_PICO uf2 to use (make UF2=)",
    "SHUTBOX_UF2_PICO_W": "the RPI_PICO_W uf2 to use (the Pico W's emulated chip)",
    "SHUTBOX_BOOTROM": "the RP2040 bootrom to use (make BOOTROM=)",
    "SHUTBOX_UF2_URL": "where shutbox fetch downloads the uf2 from (a mirror)",
    "SHUTBOX_BOOTROM_URL": "where shutbox fetch downloads the bootrom from (a mirror)",
    "SHUTBOX_NODE_MODULES": "another node_modules with rp2040js and esbuild",
    "SHUTBOX_CHROMIUM": "another Chromium for the page's driver",
    # set by pico/vpico.py for the interpreter it starts, read by that interpreter
    # (vpico_repl.py): the board it plays and its flash
    "SHUTBOX_VPICO_BOARD": "the virtual Pico's board name (parent to child)",
    "SHUTBOX_VPICO_MACHINE": "the virtual Pico's machine name (parent to child)",
    "SHUTBOX_VPICO_LFS": "the virtual Pico's littlefs image (parent to child)",
    "SHUTBOX_VPICO_CUT": "the virtual Pico's power cut, asked by VPico.cut_after (parent "
                         "to child)",
}

# The only absolute paths the host tools name, and why.
PATHS = {
    "/usr/bin/chromium": "Debian's Chromium, the page driver's default (SHUTBOX_CHROMIUM)",
    "/tmp": "boxsim's folder of links, one per process, locked and removed at its exit: its "
            "fixed length keeps the simulated box's heap the same wherever the checkout is",
}


def _cpython_modules(host: Path = HOST) -> list[Path]:
    return [p for p in sorted(host.rglob("*.py"))
            if not p.relative_to(host).as_posix().startswith(UNDER_MICROPYTHON)]


def untied(path: Path) -> list[int]:
    """The lines of *path* that start a child process without ``**tied(...)`` among the
    call's arguments (subprocess.run, Popen, call, check_call, check_output)."""
    out = []
    for n in ast.walk(ast.parse(path.read_text())):
        if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                and n.func.attr in SPAWN and getattr(n.func.value, "id", "") == "subprocess"):
            if not any(k.arg is None and isinstance(k.value, ast.Call)
                       and "tied" in (getattr(k.value.func, "attr", ""),
                                      getattr(k.value.func, "id", ""))
                       for k in n.keywords):
                out.append(n.lineno)
    return out


def test_every_child_process_is_tied_to_its_parent():
    bad = {str(p.relative_to(HOST)): lines for p in _cpython_modules() if (lines := untied(p))}
    assert not bad, "children not tied to their parent (add **mp.tied()): %s" % bad


def test_the_tie_check_sees_an_untied_child(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("import subprocess\nfrom shutbox_host import mp\n"
                 "subprocess.run(['a'], **mp.tied())\n"
                 "p = subprocess.Popen(['b'], stdout=subprocess.PIPE)\n"
                 "subprocess.check_output(['c'], **{'text': True})\n")
    assert untied(f) == [4, 5]


def environment(paths) -> set[str]:
    """The environment variables the modules *paths* name (os.environ, os.getenv, or a
    table of names: every SHUTBOX_* string)."""
    names = set()
    for p in paths:
        for n in ast.walk(ast.parse(p.read_text())):
            if isinstance(n, ast.Constant) and isinstance(n.value, str):
                names |= set(re.findall(r"\bSHUTBOX_[A-Z0-9_]*[A-Z0-9]\b", n.value)) & {
                    n.value.strip()}
            if (isinstance(n, ast.Call) and getattr(n.func, "attr", "") in ("get", "getenv")
                    and n.args and isinstance(n.args[0], ast.Constant)
                    and ast.unparse(n.func.value) in ("os.environ", "os", "_os")):
                names.add(n.args[0].value)
            if (isinstance(n, ast.Subscript) and ast.unparse(n.value) == "os.environ"
                    and isinstance(n.slice, ast.Constant)):
                names.add(n.slice.value)
    return names


# the non-shutbox variables the tools read: the usual ones of the system and of the tools
SYSTEM = {"XDG_CACHE_HOME", "NODE", "MICROPYTHON", "MPY_CROSS"}


def test_the_tools_read_only_the_environment_listed_here():
    """A new variable (a test's switch, say) must be listed with what it is for."""
    names = environment(sorted(HOST.rglob("*.py")))
    extra = names - set(ENVIRONMENT) - SYSTEM
    assert not extra, "environment read by the host tools but not listed: %s" % sorted(extra)
    assert set(ENVIRONMENT) <= names, sorted(set(ENVIRONMENT) - names)  # none listed for nothing


def test_the_environment_check_sees_a_new_switch(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("import os\nif os.environ.get('SHUTBOX_FLASH_KILL_AT'):\n    pass\n"
                 "x = os.getenv('OTHER')\ny = os.environ['THIRD']\n"
                 "TABLE = ('SHUTBOX_UF2', 'a SHUTBOX_CACHE in words')\n")
    assert environment([f]) == {"SHUTBOX_FLASH_KILL_AT", "OTHER", "THIRD", "SHUTBOX_UF2"}


def suicides(path: Path) -> list[str]:
    """The calls in *path* by which a process ends itself or signals a process: os.kill,
    os.killpg, os.abort, os._exit, signal.raise_signal, signal.pthread_kill."""
    out = []
    for n in ast.walk(ast.parse(path.read_text())):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
            name = ast.unparse(n.func)
            if name in ("os.kill", "os.killpg", "os.abort", "os._exit", "signal.raise_signal",
                        "signal.pthread_kill"):
                out.append("%s:%d" % (name, n.lineno))
    return out


def test_no_tool_kills_itself():
    """Only the tie's child, before its exec, ends itself (its parent died meanwhile); a
    child is ended by its handle (Popen.kill), never by a number."""
    found = {str(p.relative_to(HOST)): s for p in _cpython_modules() if (s := suicides(p))}
    assert found == {"mp.py": [found.get("mp.py", ["?"])[0]]}, found
    assert found["mp.py"][0].startswith("os._exit:")
    tree = ast.parse((HOST / "mp.py").read_text())
    die = next(f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)
               and f.name == "_die_with")
    assert any(isinstance(n, ast.Call) and ast.unparse(n.func) == "os._exit"
               for n in ast.walk(die))


def test_the_kill_check_sees_a_kill(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\nos._exit(3)\n")
    assert suicides(f) == ["os.kill:2", "os._exit:3"]


def absolute_paths(path: Path) -> set[str]:
    """The absolute paths of the system that *path* names in its code (strings only)."""
    out = set()
    for n in ast.walk(ast.parse(path.read_text())):
        if (isinstance(n, ast.Constant) and isinstance(n.value, str)
                and re.match(r"/(tmp|var|usr|home|run|opt|etc|dev/shm|root)(/|$)", n.value)):
            out.add(n.value)
    return out


def test_the_tools_name_no_machine_wide_path_but_the_listed():
    found = set().union(*(absolute_paths(p) for p in _cpython_modules()))
    assert found <= set(PATHS), sorted(found - set(PATHS))


def test_the_path_check_sees_a_shared_folder(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("from pathlib import Path\nLINKS = Path('/tmp/.shutbox')\nX = '/tmpx'\n")
    assert absolute_paths(f) == {"/tmp/.shutbox"}


def hooks(path: Path) -> list[str]:
    """Module-wide hooks in *path*: a module-level name bound to None (or a no-op lambda)
    that the module calls: set from outside, it changes what every caller gets."""
    tree = ast.parse(path.read_text())
    unset = set()
    for n in tree.body:
        targets = n.targets if isinstance(n, ast.Assign) else (
            [n.target] if isinstance(n, ast.AnnAssign) and n.value is not None else [])
        value = getattr(n, "value", None)
        if (isinstance(value, ast.Constant) and value.value is None) or isinstance(
                value, ast.Lambda):
            unset |= {t.id for t in targets if isinstance(t, ast.Name)}
    called = {n.func.id for n in ast.walk(tree)
              if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    return sorted(unset & called)


def test_no_module_wide_hook():
    found = {str(p.relative_to(HOST)): h for p in _cpython_modules() if (h := hooks(p))}
    assert not found, found


def test_the_hook_check_sees_a_module_hook(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("on_point = None\nX = None\n\ndef flash():\n    on_point('x')\n    X\n")
    assert hooks(f) == ["on_point"]


def long_functions(path: Path, most: int) -> list[str]:
    """The functions and methods of *path* longer than *most* lines."""
    return ["%s (%d lines)" % (n.name, n.end_lineno - n.lineno + 1)
            for n in ast.walk(ast.parse(path.read_text()))
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            and n.end_lineno - n.lineno + 1 > most]


def test_the_flash_is_steps_a_reader_can_follow():
    """No step of pico/flash.py is longer than 80 lines (the flash was one of 238)."""
    assert not long_functions(HOST / "pico" / "flash.py", 80)
    assert long_functions(HOST / "pico" / "flash.py", 40)  # the check sees its functions


def privates_used(path: Path, prefixes: tuple[str, ...]) -> list[str]:
    """The private names *path* reaches in modules it imported from a module whose name
    starts with one of *prefixes* (``mod._name``, ``from mod import _name``)."""
    tree = ast.parse(path.read_text())
    aliases = set()
    out = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            aliases |= {(a.asname or a.name) for a in n.names if a.name.startswith(prefixes)}
        elif isinstance(n, ast.ImportFrom) and n.module:
            for a in n.names:
                full = n.module + "." + a.name
                if full.startswith(prefixes) or n.module.startswith(prefixes):
                    aliases.add(a.asname or a.name)
                    if a.name.startswith("_"):
                        out.append(full)
    for n in ast.walk(tree):
        if (isinstance(n, ast.Attribute) and n.attr.startswith("_")
                and not n.attr.startswith("__") and ast.unparse(n.value) in aliases):
            out.append("%s.%s" % (ast.unparse(n.value), n.attr))
    return sorted(set(out))


# the tests' machinery the bench runs (bench/reliability.py)
MACHINERY = ("fuzzbox", "soak", "logschema")


def test_the_tests_and_the_bench_call_nothing_private_of_each_other():
    tests = {str(p.relative_to(ROOT)): u for p in sorted((ROOT / "tests").rglob("*.py"))
             if (u := privates_used(p, ("shutbox_host.bench",)))}
    assert not tests, "tests calling the bench's privates: %s" % tests
    bench = {str(p.relative_to(ROOT)): u for p in sorted((HOST / "bench").glob("*.py"))
             if (u := privates_used(p, MACHINERY))}
    assert not bench, "the bench calling the tests' privates: %s" % bench


def test_the_private_check_sees_a_private(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("from shutbox_host.bench import game as bench_game\n"
                 "from shutbox_host.bench.settings import _ALL, all_game\n"
                 "import fuzzbox\n"
                 "bench_game._run(1)\nbench_game.run()\nfuzzbox._BOX\n")
    assert privates_used(f, ("shutbox_host.bench",)) == [
        "bench_game._run", "shutbox_host.bench.settings._ALL"]
    assert privates_used(f, MACHINERY) == ["fuzzbox._BOX"]
