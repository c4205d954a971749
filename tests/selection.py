# Which tests a make target runs: a long test's two sizes, and the modules left unimported.
"""Selection by pytest marker (make test: ``-m "not short"``, make check: ``-m "not node and
not browser and not enclosure and not long"``, make soak: ``-m slow``).

``sizes(short, long)``: the parameters of a test that ``make test`` runs whole (its ``long``
one, marker ``long``) and ``make check`` runs shortened (its ``short`` one, marker ``short``:
the same code on fewer examples, cuts or games); a bare ``pytest`` runs both. What a long
test checks is its ``long`` size's: the short one is no substitute.

``module_marks`` and ``selects_none``: conftest.py leaves a module unimported when the -m
expression can select none of its tests by the markers it puts on all of them."""

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
