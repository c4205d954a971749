# Which tests a make target runs and in what order: a long test's sizes, modules left unimported.
"""Selection by pytest marker (make test: ``-m "not short"``, make check: ``-m "not node and
not browser and not enclosure and not long"``, make soak: ``-m slow``), and the order the
workers of ``--dist worksteal`` get the tests in (``plan``).

``sizes(short, long)``: the parameters of a test that ``make test`` runs whole (its ``long``
one, marker ``long``) and ``make check`` runs shortened (its ``short`` one, marker ``short``:
the same code on fewer examples, cuts or games); a bare ``pytest`` runs both. What a long
test checks is its ``long`` size's: the short one is no substitute.

``module_marks`` and ``selects_none``: conftest.py leaves a module unimported when the -m
expression can select none of its tests by the markers it puts on all of them.

``plan(items, workers)``: the tests ordered so that each worker starts with its share of the
long modules (by ``COSTS``), the longest first, and ends with short tests that the other worker
can steal."""

from __future__ import annotations

import ast
import itertools
import re
from pathlib import Path

import pytest


def sizes(short, long) -> list:
    """pytest.param's of *short* (id "short", marker short) and *long* (id "long", marker
    long), for ``@pytest.mark.parametrize``."""
    return [pytest.param(short, id="short", marks=pytest.mark.short),
            pytest.param(long, id="long", marks=pytest.mark.long)]


def module_marks(path: Path) -> set[str]:
    """The markers a test module puts on every one of its tests (``pytestmark =
    [pytest.mark.NAME, ...]``), read from its source: the module is not imported."""
    try:
        tree = ast.parse(path.read_text())
    except (OSError, SyntaxError, UnicodeDecodeError):
        return set()
    for n in tree.body:
        if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "pytestmark":
            elts = n.value.elts if isinstance(n.value, (ast.List, ast.Tuple)) else [n.value]
            return {e.attr for e in elts if isinstance(e, ast.Attribute)
                    and getattr(e.value, "attr", "") == "mark"}
    return set()


def selects_none(expr: str, marks: set[str]) -> bool:
    """Whether the -m expression *expr* is false for every test carrying *marks*, whatever
    other markers the test has (each marker *expr* names tried present and absent)."""
    from _pytest.mark.expression import Expression

    if "(" in expr:  # markers with arguments: left to pytest
        return False
    compiled = Expression.compile(expr)
    others = sorted(set(re.findall(r"[A-Za-z_]\w*", expr)) - {"and", "or", "not"} - marks)
    for k in range(len(others) + 1):
        for extra in itertools.combinations(others, k):
            have = marks | set(extra)
            if compiled.evaluate(have.__contains__):
                return False
    return True


# Seconds a module's tests take in make test: its tests of the slowest 120 (setup and call)
# summed, from a quiet fresh-clone make test (c77ab3d, 2 workers, --durations=120); a module
# not here costs COST_PER_TEST a test. Only the order of the workers' shares follows these.
COSTS = {
    # the CPU of a whole generation, its tests since split a file and a variant a test
    "tests/solve/test_tables.py": 125,
    "tests/pico/test_emu_pty.py": 141,
    "tests/pico/test_emu_records.py": 128,
    "tests/companion/test_picow_names.py": 110,
    "tests/pico/test_bounce.py": 80,
    "tests/pico/test_screens_idle.py": 67,
    "tests/hardware/test_enclosure.py": 62,
    "tests/pico/test_emu_flash.py": 56,
    "tests/web/test_web.py": 55,
    "tests/pico/test_lean.py": 50,
    "tests/reliability/test_fuzz.py": 42,
    "tests/companion/test_picow.py": 39,
    "tests/companion/test_companion.py": 38,
    "tests/firmware/test_scenarios.py": 37,
    "tests/pico/test_emulator.py": 36,
    "tests/firmware/test_contacts.py": 31,
    "tests/pico/test_interrupt.py": 30,
    "tests/firmware/test_saves.py": 28,
    "tests/companion/test_names.py": 28,
    "tests/pico/test_power.py": 22,
    "tests/pico/test_uf2.py": 16,
    "tests/pico/test_save_latency.py": 16,
    "tests/companion/test_page.py": 15,
    "tests/firmware/test_memory.py": 14,
    "tests/box/test_play.py": 13,
    "tests/pico/test_flash.py": 12,
    "tests/firmware/test_match_play.py": 10,
    "tests/firmware/test_payout_play.py": 9,
    "tests/solve/test_match.py": 8,
    "tests/reliability/test_records_cuts.py": 7,
    "tests/firmware/test_hints.py": 7,
    "tests/companion/test_wifi.py": 7,
    "tests/test_package.py": 6,
    "tests/reliability/test_soak.py": 6,
    "tests/companion/test_rate.py": 6,
    "tests/firmware/test_computer.py": 5,
}
COST_PER_TEST = 0.2


def plan(items: list, workers: int) -> list:
    """*items* ordered for ``--dist worksteal`` on *workers* workers, which gives worker k the
    k-th of *workers* consecutive shares of the list (equal counts) and lets a worker that has
    run out take the second half of another's queue. The modules in COSTS, each kept whole
    (its module fixtures built on one worker, a onerun value computed before another worker
    can ask for it), go to the share with the least cost so far, longest first; each share
    then starts with its long modules, longest first, and ends with the other tests (in their
    order), which the stealing spreads so that both workers end together."""
    if workers < 2:
        return items
    modules: dict[str, list] = {}
    for item in items:
        modules.setdefault(item.nodeid.split("::")[0], []).append(item)
    shares: list[list] = [[] for _ in range(workers)]
    load = [0.0] * workers
    for path in sorted((p for p in modules if p in COSTS), key=lambda p: -COSTS[p]):
        k = load.index(min(load))
        shares[k] += modules[path]
        load[k] += COSTS[path] + COST_PER_TEST * len(modules[path])
    rest = [item for path, its in modules.items() if path not in COSTS for item in its]
    out: list = []
    for k in range(workers):  # worksteal's first split: len(pending) // nodes remaining
        quota = (len(items) - len(out)) // (workers - k)
        fill = max(0, quota - len(shares[k]))
        out += shares[k] + rest[:fill]
        del rest[:fill]
    return out + rest
