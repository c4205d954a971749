# Wrap-safe millisecond ticks: MicroPython's own time.ticks_* on the box, the same sums on a PC.
"""ticks_add / ticks_diff / ticks_ms that behave like MicroPython's on both interpreters.

The firmware never does arithmetic on raw ticks: every interval goes through ``ticks_diff``
and every deadline through ``ticks_add``, so the 2**30 ms wrap of the tick counter is harmless.
CPython (the host tests) has no ``time.ticks_*``: the host's stand-in for the ``micropython``
module (host_tools/micropython.py) does the same sums with the same period there. Keeping
that fallback on the host side means the box never loads it (nor interns its names).
"""

try:
    from time import ticks_add, ticks_diff, ticks_ms
except ImportError:  # CPython: the host tests import the firmware unchanged
    from micropython import ticks_add, ticks_diff, ticks_ms  # type: ignore  # noqa: F401
