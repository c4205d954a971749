# A fixture's value computed once per test run, shared by every pytest-xdist worker.
"""``once(tmp_path_factory, name, compute)``: *compute*'s value, made by the first worker that
asks for it and read back (pickled) by the others.

A module-scoped fixture runs once per xdist worker that gets one of its module's tests, and
``--dist worksteal`` splits a module wherever a worker steals the other's queued tests: an
emulated walk through every screen, or a search of the flash, ran two or three times a run.
Here the first worker holds a lock while it computes and leaves the value beside the
workers' temporary folders (one run's, deleted with it); a worker that asks meanwhile waits
for it (never longer than computing it itself). Without xdist it is *compute()*. An
exception is not kept: each worker that asks computes again and fails on its own."""

from __future__ import annotations

import fcntl
import os
import pickle
from collections.abc import Callable
from typing import Any


def once(tmp_path_factory, name: str, compute: Callable[[], Any]) -> Any:
    """*compute()*'s value, computed by one worker of this run (*name* names it in the
    run)."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return compute()
    where = tmp_path_factory.getbasetemp().parent / "once"
    where.mkdir(exist_ok=True)
    path = where / (name + ".pickle")
    with open(where / (name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if path.exists():
            return pickle.loads(path.read_bytes())
        value = compute()
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(pickle.dumps(value))
        tmp.replace(path)
        return value
