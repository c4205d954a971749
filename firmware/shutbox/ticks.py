# Wrap-safe millisecond ticks: MicroPython's own time.ticks_* on the box, the same sums on a PC.
"""ticks_add / ticks_diff / ticks_ms that behave like MicroPython's on both interpreters.

The firmware never does arithmetic on raw ticks: every interval goes through ``ticks_diff``
and every deadline through ``ticks_add``, so the 2**30 ms wrap of the tick counter is harmless.
CPython (the host tests) has no ``time.ticks_*``; the fallback below uses the same period.
"""

try:
    from time import ticks_add, ticks_diff, ticks_ms
except ImportError:  # CPython: the host tests import the firmware unchanged
    import time as _time

    _PERIOD = 1 << 30  # MicroPython's MICROPY_PY_TIME_TICKS_PERIOD on rp2 and unix
    _MASK = _PERIOD - 1
    _HALF = _PERIOD >> 1

    def ticks_add(ticks, delta):  # type: ignore
        """Return *ticks* moved by *delta* ms, wrapped like MicroPython's."""
        return (ticks + delta) & _MASK

    def ticks_diff(ticks1, ticks2):  # type: ignore
        """Return the signed distance ticks1 - ticks2 across the wrap."""
        return ((ticks1 - ticks2 + _HALF) & _MASK) - _HALF

    def ticks_ms():  # type: ignore
        """Return a millisecond counter that wraps like MicroPython's."""
        return (_time.monotonic_ns() // 1000000) & _MASK  # type: ignore
