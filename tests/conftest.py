# Shared pytest fixtures: the real MicroPython interpreter and the repository's folders.
"""Fixtures for the shutbox test suite."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest

from shutbox_host import mp

# tests/ on the path: shared helpers (engine_reference) and the machinery by the tests
# (reliability/fuzzbox.py, reliability/soak.py) import from any test folder
TESTS = Path(__file__).resolve().parent
for _d in (TESTS, TESTS / "reliability"):
    if str(_d) not in sys.path:
        sys.path.insert(0, str(_d))

SLOW = os.environ.get("SHUTBOX_SLOW") == "1"


def pytest_configure(config):
    """Ctrl-C reaches the tools the tests start, however the run itself was started.

    A run started in the background of a script (``make test &``, a CI runner's detached job)
    inherits SIGINT ignored, and an ignored signal stays ignored across exec: the tests that
    press Ctrl-C on ``shutbox log`` or ``shutbox emu`` would wait for an exit that never
    comes. A user's terminal delivers it, so the tests' children get it as there."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_ignore_collect(collection_path, config):
    """Leave a test module unimported when the run's -m expression selects none of its tests
    by the markers it puts on all of them (make check: the modules marked node, browser or
    enclosure), so that make check never loads the CAD stack nor runs their checks for Node.
    Deselected by marker still, never by a list of files."""
    expr = config.getoption("markexpr")
    path = Path(collection_path)
    if not expr or path.suffix != ".py" or not path.name.startswith("test_"):
        return None
    from selection import module_marks, selects_none

    marks = module_marks(path)
    return True if marks and selects_none(expr, marks) else None


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """Order the tests for the run's pytest-xdist workers (make test: ``--dist worksteal`` on
    two): each starts with its share of the long modules, longest first, each module kept
    whole, and ends with short ones the other can steal, so that no long test starts last
    and none waits on another worker's onerun value (tests/selection.py's plan); skip tests
    marked slow unless SHUTBOX_SLOW=1 (make soak runs them). Last: the shares are counted
    on the tests left once -m has deselected (make test's short ones)."""
    from selection import plan

    workers = getattr(config, "workerinput", {}).get("workercount", 1)
    items[:] = plan(items, workers)
    if SLOW:
        return
    skip = pytest.mark.skip(reason="long run: set SHUTBOX_SLOW=1 (make soak)")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


_FROZEN: list = [None]  # the module whose objects were frozen last


def pytest_runtest_setup(item):
    """At each test module's first test, leave what is alive then (the modules, tables and
    tests loaded, the module's fixtures) out of CPython's cyclic garbage collection, after
    one collection (gc.freeze): the firmware run on CPython (the CPython box) calls
    gc.collect() wherever MicroPython's heap wants one (at each boot, new game and game's
    end), and each would otherwise walk all of it again, tens of ms a call in a worker that
    collected the whole suite. Nothing the tests check on CPython depends on a collection
    (the heap's figures are MicroPython's, in their own processes)."""
    if item.module is not _FROZEN[0]:
        import gc

        _FROZEN[0] = item.module
        gc.collect()
        gc.freeze()


@pytest.fixture(scope="session")
def micropython():
    """Return the path of the real micropython interpreter (unix port)."""
    return mp.micropython_exe()


@pytest.fixture
def run_mp():
    """Return shutbox_host.mp.run: run a script under micropython with the firmware on its path."""
    return mp.run


@pytest.fixture(autouse=True)
def _box_records_follow_the_log_schema(monkeypatch):
    """Every record the firmware prints that a test reads through boxsim.parse (scenario
    tests, whole games, the virtual Pico's game...) must follow docs/log.schema.json
    (docs/log-format.md): a test whose box prints another fails there."""
    import logschema

    from shutbox_host.box import boxsim

    parse = boxsim.parse

    def checked(stdout, *args, **kwargs):
        out = parse(stdout, *args, **kwargs)
        for rec in out[2]:
            logschema.check(rec)
        return out

    monkeypatch.setattr(boxsim, "parse", checked)
