# The companion's collections of the heap: started here, so that none rescans the heap.
"""``collect()``: a collection of the heap, made by the box's loop (companion.live) between
two readings of the switches once the server's work has left enough garbage (``Live.spent``).

Why here. MicroPython marks the live heap depth first with a stack of 64 blocks; when a
block has more unmarked children than the stack has room for, it notes an overflow and,
after the mark, scans the whole heap again for marked blocks whose children it missed (on
the Pico W: 8 ms more, a collection of 9 ms becomes 17). It starts from the running
function's module globals, then sys.modules and the rest of its roots, then the stack.
From the globals of companion.live, microdot or asyncio (a collection MicroPython starts
itself in an allocation, in a request or an event stream) the first path runs through
asyncio's task queue into the box's loop and the server, and the wide tables along it
(the Live's attributes, module globals and constants, the routes, a coroutine's state)
leave 78-108 blocks on the stack at its deepest: an overflow (57-61 from companion.web's,
where the server collected between requests before: near the limit). From the firmware
package's own globals (its submodules first) it went 39 deep at most (the mark replayed on
copies of the emulated Pico W's RAM taken as collections began, between and during
requests); this module's globals hold that package and this function only, and no
collection made here has rescanned (shutbox bench: picow_inputs_*_gc_rescans).
"""

import gc

import shutbox  # noqa: F401 - the collection's first root: the firmware's modules first


def collect():
    """Collect the heap (with this module's globals as the mark's first root)."""
    gc.collect()
