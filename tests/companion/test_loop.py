# The companion's copy of the box's loop against the Pico's own (shutbox.guard.Guard.forever).
"""companion.live.Live.box runs Guard.forever's loop with asyncio's sleep (the Pico's loop and
modules stay as they are): the two must keep reading, stepping, feeding and sleeping alike,
so a change to one that the other lacks fails here."""

from __future__ import annotations

import ast
import re

from shutbox_host import mp

GUARD = mp.FIRMWARE / "shutbox" / "guard.py"
LIVE = mp.FIRMWARE / "companion" / "live.py"


def _const(path, name: str) -> int:
    m = re.search(r"^%s = const\((\d+)\)" % name, path.read_text(), re.M)
    assert m, (path, name)
    return int(m.group(1))


def _loop(path, cls: str, func: str) -> ast.While:
    tree = ast.parse(path.read_text())
    c = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls)
    f = next(n for n in c.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
             and n.name == func)
    return next(n for n in ast.walk(f) if isinstance(n, ast.While))


def _calls(node) -> list[str]:
    """The box's own calls in *node* (reading, fault, step, wait, feeding), in source order,
    the receiver's name dropped (self, guard)."""
    out = []
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute | ast.Name):
            name = n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id
            if name in ("read", "fault", "poll", "tick", "wait", "sleep_us", "feed"):
                out.append((n.lineno, n.col_offset, name))
    return [name for _, _, name in sorted(out)]


def test_the_companions_loop_polls_as_the_picos_does():
    assert _const(LIVE, "_POLL_MS") == _const(GUARD, "_POLL_MS")
    pico = _loop(GUARD, "Guard", "forever")
    mine = _loop(LIVE, "Live", "box")
    # the sleep between readings: the same formula (1 ms at least, _POLL_MS at most)
    sleep = "1 if dt < 1 else dt if dt < _POLL_MS else _POLL_MS"
    assert sleep in ast.unparse(pico) and sleep in ast.unparse(mine)
    # the same reading, fault, step, wait and feed, in the same order; the companion's loop
    # first hands the debouncer the reading a ms before when a level has held since its
    # edge through a stall (Live.time_edges: the Pico W's pins time their edges)
    assert _calls(pico) == ["read", "fault", "poll", "fault", "tick", "wait", "sleep_us",
                            "feed"]
    assert _calls(mine) == ["read", "fault", "poll", "poll", "fault", "tick", "wait",
                            "sleep_us", "feed"]
    assert _const(LIVE, "_READ_US") == _const(GUARD, "_READ_US")
    # the step's condition: a changed reading or something due (and the page's change)
    cond = "lv != seen or dt <= 0"
    assert cond in ast.unparse(pico) and cond in ast.unparse(mine)


def test_the_companions_idle_loop_allocates_nothing_beside_a_listening_server():
    """tests/mp/companion_heaplock.py: the loop's passes, asyncio's sleep and the poll of
    the listening socket under micropython.heap_lock (an allocation a pass would collect
    the Pico W's heap again and again while nobody plays)."""
    import os
    import subprocess

    from shutbox_host.pico import companion

    path = ":".join([str(companion.build()), str(mp.FIRMWARE), ".frozen"])
    r = subprocess.run([mp.micropython_exe(), "-X", "heapsize=256k",
                        str(mp.ROOT / "tests" / "mp" / "companion_heaplock.py"), "300"],
                       capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, MICROPYPATH=path))
    out = r.stdout.split()
    assert r.returncode == 0 and out[0] == "PASSES" and out[-1] == "OK", r.stdout + r.stderr
    assert int(out[1]) >= 50  # (its 2 ms passes ran: about 150 in 300 ms)


def test_a_request_on_streams_that_never_wait_still_gives_the_loop_its_turns():
    """tests/mp/companion_turns.py: a request whose bytes are all there and whose writes
    never wait gives the box's loop a turn at each line read, after its route, after its
    answer and at each write (before, its lines' parse, its route and its state's JSON ran
    in one slice: 0 turns), and the state's JSON is made once per change of the game."""
    import os
    import subprocess

    from shutbox_host.pico import companion

    path = ":".join([str(companion.build()), str(mp.FIRMWARE), ".frozen"])
    r = subprocess.run([mp.micropython_exe(), "-X", "heapsize=256k",
                        str(mp.ROOT / "tests" / "mp" / "companion_turns.py")],
                       capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, MICROPYPATH=path))
    lines = [x.split() for x in r.stdout.splitlines()]
    turns = {(x[1], x[2]): int(x[3]) for x in lines if x[0] == "TURNS"}
    assert r.returncode == 0 and len(turns) == 3, r.stdout + r.stderr
    assert turns[("/api/state", "200")] >= 8  # 4 lines, route, answer, 3 writes or more
    assert turns[("/api/settings", "200")] >= 8 and turns[("/nowhere", "404")] >= 8
    assert ["PARSED", "0"] not in lines and ["PARSED", "1"] not in lines, r.stdout
    assert sum(x[0] == "PARSED" for x in lines) == 1, r.stdout  # (the second: the same JSON)
    assert lines[-1] == ["BODY", "OK"], r.stdout
