# CPython stand-in for MicroPython's `micropython` module: the firmware imports unchanged.
"""The few `micropython` names the firmware uses, as CPython no-ops (and time.ticks_*)."""

import builtins


def const(value):
    """Return *value*: on the Pico `const` folds it into the bytecode."""
    return value


def native(func):
    """Return *func* unchanged (the Pico compiles it to machine code)."""
    return func


viper = native


def _ptr(buf):
    """Return *buf*: viper's ptr8/ptr16/ptr32 casts index an array's or a bytearray's items,
    as CPython's own indexing does."""
    return buf


# viper's casts are names its compiler knows, not a module's: on CPython they are builtins
# while this stand-in is loaded (the firmware imports it before any viper function runs)
builtins.ptr8 = builtins.ptr16 = builtins.ptr32 = _ptr  # type: ignore[attr-defined]


def heap_lock():
    """Do nothing: CPython has no lockable heap (tests use the real MicroPython for this)."""
    return 0


def heap_unlock():
    """Do nothing; see heap_lock."""
    return 0


def mem_info(*_args):
    """Do nothing on CPython."""


# time.ticks_* as MicroPython has them (CPython's time has none). shutbox.ticks takes these on
# the host, so that the firmware carries no fallback the box would load but never run.
_TICKS_PERIOD = 1 << 30  # MICROPY_PY_TIME_TICKS_PERIOD on rp2 and unix
_TICKS_MASK = _TICKS_PERIOD - 1
_TICKS_HALF = _TICKS_PERIOD >> 1


def ticks_add(ticks, delta):
    """Return *ticks* moved by *delta* ms, wrapped like MicroPython's."""
    return (ticks + delta) & _TICKS_MASK


def ticks_diff(ticks1, ticks2):
    """Return the signed distance ticks1 - ticks2 across the wrap."""
    return ((ticks1 - ticks2 + _TICKS_HALF) & _TICKS_MASK) - _TICKS_HALF


def ticks_ms():
    """Return a millisecond counter that wraps like MicroPython's."""
    import time

    return (time.monotonic_ns() // 1000000) & _TICKS_MASK
