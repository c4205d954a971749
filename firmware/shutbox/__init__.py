# shutbox: the Shut the Box firmware package, the same files on the Pico and on a PC.
"""Shut the Box for a Raspberry Pi Pico: rules engine, game, drivers."""

__version__ = "0.1.0"
# The flash's idle step: None, or a list whoever mounts littlefs on shutbox.ahead (its start)
# makes, [its step] while it has work, else empty (a waiting screen's pass then tests the
# list alone, as a box without it tests None); the box's loop (Guard.forever) calls idle[0](ms)
# in every sleep of ms ms and sleeps itself if it returns False.
idle = None


def forget(name):
    """On MicroPython, drop the module shutbox.<name> so its code and data can be collected
    (a module needed only now and then: the next import loads it again from flash)."""
    import sys

    if sys.implementation.name == "micropython":
        sys.modules.pop("shutbox." + name, None)
        try:
            delattr(sys.modules["shutbox"], name)
        except (AttributeError, KeyError):
            pass
