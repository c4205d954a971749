# CPython stand-in for MicroPython's `micropython` module: the firmware imports unchanged.
"""The few `micropython` names the firmware uses, as CPython no-ops."""


def const(value):
    """Return *value*: on the Pico `const` folds it into the bytecode."""
    return value


def native(func):
    """Return *func* unchanged (the Pico compiles it to machine code)."""
    return func


viper = native


def heap_lock():
    """Do nothing: CPython has no lockable heap (tests use the real MicroPython for this)."""
    return 0


def heap_unlock():
    """Do nothing; see heap_lock."""
    return 0


def mem_info(*_args):
    """Do nothing on CPython."""
