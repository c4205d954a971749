# Shared pytest fixtures: the real MicroPython interpreter and the repository's folders.
"""Fixtures for the shutbox test suite."""

from __future__ import annotations

import os

import pytest

from shutbox_host import mp

SLOW = os.environ.get("SHUTBOX_SLOW") == "1"


def pytest_collection_modifyitems(config, items):
    """Skip tests marked slow unless SHUTBOX_SLOW=1 (make soak / make bench run them)."""
    if SLOW:
        return
    skip = pytest.mark.skip(reason="long run: set SHUTBOX_SLOW=1 (make soak)")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def micropython():
    """Return the path of the real micropython interpreter (unix port)."""
    return mp.micropython_exe()


@pytest.fixture
def run_mp():
    """Return shutbox_host.mp.run: run a script under micropython with the firmware on its path."""
    return mp.run
