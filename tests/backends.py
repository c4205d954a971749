# The boxes a test can drive through shutbox_host.model.drive: one script, several backends.
"""``BACKENDS``: pytest parameters naming each backend a scenario runs on (the emulated chip
marked ``node``: make check leaves it out); ``box(name, ...)``: a new box of that backend,
ready for play (the emulated one skips, or fails on CI, where it cannot run); a script with
its check that the web page's test runs too (``throw_script``, ``check_throw``)."""

from __future__ import annotations

import functools

import pytest

from shutbox_host.model.drive import Driver, Shown
from shutbox_host.model.leds import face
from shutbox_host.model.script import ROLL_MS, Script

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


def throw_script() -> Script:
    """A press of Roll on a box ready for play, and the time for its throw to show."""
    return Script().wait(100).click(120).wait(ROLL_MS + 300)


def check_throw(r: Shown, s: Script) -> None:
    """What every box shows of throw_script *s*: one throw logged, its dice on the LEDs at
    the end, the roll's sound (1000 Hz) while the dice rolled."""
    throws = r.events("throw")
    assert len(throws) == 1, r.log
    last = r.frame_at(s.ms)
    assert last is not None and last[0] > 100, r.frames[-3:]  # drawn after the press
    assert [face(last[2]), face(last[3])] == throws[0]["dice"], (last, throws)
    assert any(hz == 1000 and 100 <= ms < 100 + ROLL_MS for ms, hz in r.tones), r.tones
