# The two sizes of a long test: whole in make test, shortened in make check (the fast loop).
"""``sizes(short, long)``: the parameters of a test that ``make test`` runs whole (its
``long`` one, pytest marker ``long``) and ``make check`` runs shortened (its ``short`` one,
marker ``short``: the same code on fewer examples, cuts or games). ``make test`` deselects
``short`` (``-m "not short"``), ``make check`` deselects ``long``; a bare ``pytest`` runs
both. What a long test checks is its ``long`` size's: the short one is no substitute."""

from __future__ import annotations

import pytest


def sizes(short, long) -> list:
    """pytest.param's of *short* (id "short", marker short) and *long* (id "long", marker
    long), for ``@pytest.mark.parametrize``."""
    return [pytest.param(short, id="short", marks=pytest.mark.short),
            pytest.param(long, id="long", marks=pytest.mark.long)]
