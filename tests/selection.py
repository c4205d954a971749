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


# Seconds a module's tests take in make test: every one of its tests' durations (setup, call
# and teardown) summed, from a fresh-clone make test (2199e95, 2 workers, --durations=0, the
# machine shared: only their order counts); a module under 10 s is not here and costs
# COST_PER_TEST a test. Only the order of the workers' shares follows these.
COSTS = {
    # the pty bridge since woken by the chip's output (its time alone x0.85): 215 s before
    "tests/pico/test_emu_pty.py": 156,
    # its references' search since cut from 13 runs to 2 (FOUND): 245 s before; then its
    # cuts replayed from one boot (emugame.Replays, its time alone x0.67): 129 s before
    "tests/pico/test_emu_records.py": 86,
    # its cuts since replayed from one boot (its time alone x0.66): 122 s before
    "tests/companion/test_picow_names.py": 81,
    # the locked and forced variants' match vectors since taken from their optional twins,
    # each play's distribution pushed once (its CPU time alone 80 -> 44 s): 146 s before
    "tests/solve/test_tables.py": 80,
    "tests/pico/test_bounce.py": 90,
    # three of its tests since sharing one boot (its time alone x0.91): 84 s before
    "tests/pico/test_emulator.py": 76,
    "tests/web/test_web.py": 73,
    "tests/hardware/test_enclosure.py": 69,
    "tests/pico/test_flash.py": 64,
    "tests/pico/test_lean.py": 60,
    "tests/firmware/test_contacts.py": 54,
    # its cuts since replayed from one boot (its time alone x0.62): 51 s before
    "tests/pico/test_emu_flash.py": 32,
    "tests/firmware/test_scenarios.py": 48,
    "tests/pico/test_interrupt.py": 47,
    "tests/firmware/test_match_play.py": 47,
    "tests/firmware/test_memory.py": 44,
    "tests/companion/test_companion.py": 42,
    "tests/reliability/test_fuzz.py": 41,
    "tests/firmware/test_saves.py": 40,
    "tests/pico/test_screens_idle.py": 38,
    "tests/pico/test_power.py": 33,
    "tests/firmware/test_hints.py": 33,
    "tests/companion/test_names.py": 32,
    "tests/companion/test_picow.py": 31,
    "tests/box/test_play.py": 29,
    "tests/firmware/test_payout_play.py": 29,
    "tests/pico/test_uf2.py": 28,
    "tests/firmware/test_powerup.py": 24,
    "tests/solve/test_match.py": 23,
    "tests/reliability/test_soak.py": 19,
    "tests/reliability/test_records_cuts.py": 19,
    "tests/reliability/test_store.py": 19,
    "tests/analysis/test_report.py": 19,
    "tests/pico/test_save_latency.py": 18,
    "tests/test_layout.py": 18,
    "tests/firmware/test_computer.py": 16,
    "tests/reliability/test_resume.py": 16,
    "tests/reliability/test_watchdog.py": 16,
    "tests/test_package.py": 15,
    "tests/companion/test_page.py": 14,
    "tests/firmware/test_match_beside.py": 12,
    "tests/pico/test_vpico.py": 11,
    "tests/firmware/test_engine.py": 11,
    "tests/solve/test_bench_solve.py": 10,
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
