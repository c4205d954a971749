# Proof under the real micropython that the companion's loop allocates nothing while idle.
"""Run under micropython: companion_heaplock.py MS (MICROPYPATH: the companion's build, the
firmware, .frozen).

The companion's loop (companion.live.Live.box) runs beside its server listening on
127.0.0.1 (companion.web), with no phone connected, on a stand-in guard (the box's own idle
step is shown allocation-free by tests/firmware/test_scenarios.py); for MS ms its passes
run between micropython.heap_lock() and heap_unlock(): the loop's reading, its figures,
asyncio's sleep and the poll of the listening socket. Any allocation raises MemoryError.
Prints "PASSES <n> OK", or "ALLOC" and exits 1.
"""

import asyncio
import gc
import sys

from companion import web
from companion.live import Live

import micropython


class _Board:
    def reader(self):
        return self.read

    def read(self):
        return 5  # the same reading every pass: nothing changed


class _Guard:
    """What the loop uses of shutbox.guard.Guard: a board, no watchdog, steps and waits."""

    def __init__(self):
        self.board = _Board()
        self.wdt = None
        self.app = None
        self.steps = 0

    def poll(self, now, levels):
        self.steps += 1

    def tick(self, now):
        pass

    def wait(self, now):
        return 60000

    def fault(self, exc, now):
        raise exc


ms = int(sys.argv[1])
live = Live()
guard = _Guard()
app = web.make(live)


async def locked():
    while app.server is None:  # listening first
        await asyncio.sleep_ms(5)
    await asyncio.sleep_ms(50)
    gc.collect()
    p0 = live.passes
    micropython.heap_lock()
    try:
        await asyncio.sleep_ms(ms)
    except MemoryError:
        micropython.heap_unlock()
        print("ALLOC")
        sys.exit(1)
    micropython.heap_unlock()
    print("PASSES %d OK" % (live.passes - p0))
    sys.exit(0)


async def main():
    asyncio.create_task(web._serve(app, "127.0.0.1", 0, print))
    asyncio.create_task(locked())
    await live.box(guard)


try:
    asyncio.run(main())
except MemoryError:
    micropython.heap_unlock()
    print("ALLOC")
    sys.exit(1)
