# The boxes a test can drive through shutbox_host.model.drive: one script, several backends.
"""``BACKENDS``: pytest parameters naming each backend a scenario runs on (the emulated chip
marked ``node``: make check leaves it out); ``box(name, ...)``: a new box of that backend,
ready for play (the emulated one skips, or fails on CI, where it cannot run)."""

from __future__ import annotations

import functools

import pytest

from shutbox_host.model.drive import Driver

BACKENDS = ["cpy", "sim", pytest.param("emu", marks=pytest.mark.node)]
DICE = ["cpy", "sim"]  # the backends that take a script's dice (the chip draws its own)
# the terminal box plays on the wall clock: only for short scripts that time nothing finely
TERM = "term"


@functools.cache
def _fw_image() -> bytes:
    from shutbox_host.pico import fsimage

    return fsimage.build()


def box(name: str, levels: int = -1, heapsize: str = "256k", players: int = 2) -> Driver:
    """A new box of backend *name* ("cpy": the App on CPython; "sim": the simulated board;
    "term": the terminal box, booted as ``shutbox play`` boots it, on the wall clock;
    "emu": the emulated RP2040, its flash image's 2 players), *levels* the tiles open at
    power-up."""
    if name == "cpy":
        from shutbox_host.box.drive import CpyBox

        return CpyBox(players=players, levels=levels)
    if name == "sim":
        from shutbox_host.box.drive import SimBox

        return SimBox("--players", str(players), heapsize=heapsize, levels=levels)
    if name == TERM:
        from shutbox_host.box.play import TermBox

        assert levels == -1 and players == 2, "the terminal box starts as shutbox play does"
        return TermBox(heapsize=heapsize)
    assert players == 2, "the emulated box plays its flash image's settings: 2 players"
    from needs import require

    from shutbox_host.pico import emulator
    from shutbox_host.pico.drive import EmuBox

    require(emulator.missing(), "emulated Pico")
    return EmuBox(fs=_fw_image(), levels=levels)
