# The boxes a test can drive through shutbox_host.model.drive: one script, several backends.
"""``BACKENDS``: pytest parameters naming each backend a scenario runs on (the emulated chip
marked ``node``: make check leaves it out); ``box(name, ...)``: a new box of that backend,
ready for play (the emulated one skips, or fails on CI, where it cannot run)."""

from __future__ import annotations

import functools

import pytest

from shutbox_host.model.drive import Driver

BACKENDS = ["sim", pytest.param("emu", marks=pytest.mark.node)]


@functools.cache
def _fw_image() -> bytes:
    from shutbox_host.pico import fsimage

    return fsimage.build()


def box(name: str, levels: int = -1, heapsize: str = "256k") -> Driver:
    """A new box of backend *name* ("sim": the simulated board; "emu": the emulated RP2040),
    *levels* the tiles open at power-up."""
    if name == "sim":
        from shutbox_host.box.drive import SimBox

        return SimBox(heapsize=heapsize, levels=levels)
    from needs import require

    from shutbox_host.pico import emulator
    from shutbox_host.pico.drive import EmuBox

    require(emulator.missing(), "emulated Pico")
    return EmuBox(fs=_fw_image(), levels=levels)
