# The boxes a test can drive through shutbox_host.model.drive: one script, several backends.
"""``BACKENDS``: pytest parameters naming each backend a scenario runs on (the emulated chip
marked ``node``: make check leaves it out); ``box(name, ...)``: a new box of that backend,
ready for play (the emulated one skips, or fails on CI, where it cannot run; it is booted once
a process and put back as it was then for each test: ``_emu_box``); a script with
its check that the web page's test runs too (``throw_script``, ``check_throw``); a CPython
box whose dice are all given (``cpy``) and the steps a test plays on any box, each followed
by the time for the box to take it (``shut``, ``open_``, ``flip``, ``press``,
``throw``); ``paired``: the web box paired with as its page does."""

from __future__ import annotations

import functools

import pytest

from shutbox import pins
from shutbox_host.model.drive import Driver, Shown
from shutbox_host.model.leds import face
from shutbox_host.model.script import PRESS_MS, ROLL_MS, Script

BACKENDS = ["cpy", "sim", pytest.param("emu", marks=pytest.mark.node)]
DICE = ["cpy", "sim"]  # the backends that take a script's dice (the chip draws its own)
# the terminal box plays on the wall clock: only for short scripts that time nothing finely
TERM = "term"
# the simulated board with its companion serving: on the wall clock too, its dice given
WEB = "web"


@functools.cache
def _fw_image() -> bytes:
    from shutbox_host.pico import fsimage

    return fsimage.build()


def box(name: str, levels: int = -1, heapsize: str = "256k", players: int = 2) -> Driver:
    """A new box of backend *name* ("cpy": the App on CPython; "sim": the simulated board;
    "term": the terminal box, booted as ``shutbox play`` boots it, on the wall clock;
    "web": the simulated board with its companion serving, on the wall clock;
    "emu": the emulated RP2040, its flash image's 2 players), *levels* the tiles open at
    power-up."""
    if name == "cpy":
        from shutbox_host.box.drive import CpyBox

        return CpyBox(players=players, levels=levels)
    if name == "sim":
        from shutbox_host.box.drive import SimBox

        return SimBox("--players", str(players), heapsize=heapsize, levels=levels)
    if name == WEB:
        from shutbox_host.box.webbox import WebBox

        assert levels == -1, "the web box starts with every tile open"
        return WebBox(players=players)
    if name == TERM:
        from shutbox_host.box.play import TermBox

        assert levels == -1 and players == 2, "the terminal box starts as shutbox play does"
        return TermBox(heapsize=heapsize)
    assert players == 2, "the emulated box plays its flash image's settings: 2 players"
    from needs import require

    from shutbox_host.pico import emulator

    require(emulator.missing(), "emulated Pico")
    return _emu_box(levels)


# The emulated boxes booted so far in this process, ready for play, by their tiles at
# power-up: [Emulator, its snapshot then, the box on it still open]
_EMU: dict[int, list] = {}


def _emu_box(levels: int) -> Driver:
    """An emulated box ready for play: the chip booted once in this process for these
    *levels* and put back as it was then (Emulator.snapshot: the same chip, the same records,
    as a fresh boot's), its own boot only while another box from it is still open."""
    from shutbox_host.pico.drive import EmuBox

    slot = _EMU.get(levels)
    if slot is not None and (slot[0].proc is None or slot[0].proc.poll() is not None):
        slot = None  # its Node process ended (a test that failed there): boot again
    if slot is not None and slot[2]:
        return EmuBox(fs=_fw_image(), levels=levels)
    if slot is None:
        first = EmuBox(fs=_fw_image(), levels=levels)
        _EMU[levels] = slot = [first.emu, first.emu.snapshot(), False]
    emu = slot[0]
    emu.restore(slot[1])
    box = EmuBox.attach(emu)
    if levels != -1:
        box.open_ = levels & ((1 << pins.TILES) - 1)
    slot[2] = True

    def close() -> None:
        slot[2] = False

    box.close = close  # type: ignore[method-assign]
    return box


def throw_script() -> Script:
    """A press of Roll on a box ready for play, and the time for its throw to show."""
    return Script().wait(100).click(120).wait(ROLL_MS + 300)


def check_throw(r: Shown, s: Script) -> None:
    """What every box shows of throw_script *s*: one throw logged, its dice on the LEDs at
    the end, the roll's sound (1000 Hz) while the dice rolled."""
    throws = r.events("throw")
    assert len(throws) == 1, r.log
    # at the script's end, or once the throw is shown where its record came later
    last = r.frame_at(max(s.ms, throws[0].get("_ms", 0) + TAKE_MS))
    assert last is not None and last[0] > 100, r.frames[-3:]  # drawn after the press
    assert [face(last[2]), face(last[3])] == throws[0]["dice"], (last, throws)
    # from the press to the throw's record, on the box's own clock
    assert any(hz == 1000 and 100 <= ms <= throws[0]["_ms"] for ms, hz in r.tones), (r.tones,
                                                                                    throws)


# ----- the steps a test plays on any box, and the time each lets pass -----

TAKE_MS = 50  # after a tile moved: the box has taken it and shown it
AFTER_PRESS_MS = 30  # after Roll let go: its release taken and the lock-out over
LONG_MS = 800  # a long press of Roll (the debouncer's is 700 ms)


def cpy(players: int = 1, faces=(), **settings) -> Driver:
    """A CPython box with *players* under *settings* (and rules=Rules(...)), its dice only
    the faces a test gives (*faces*, then ``throw``'s): any other throw fails the test."""
    from shutbox_host.box.drive import CpyBox

    box = CpyBox(players=players, scripted=True, **settings)
    if faces:
        box.dice(list(faces))
    return box


def shut(box: Driver, *tiles: int) -> None:
    box.shut(*tiles)
    box.advance(TAKE_MS)


def open_(box: Driver, *tiles: int) -> None:
    box.open(*tiles)
    box.advance(TAKE_MS)


def flip(box: Driver, *tiles: int) -> None:
    box.flip(*tiles)
    box.advance(TAKE_MS)


def set_open(box: Driver, mask: int) -> None:
    box.set_open(mask)
    box.advance(TAKE_MS)


def press(box: Driver, long: bool = False) -> None:
    """Roll pressed and let go (held LONG_MS: a long press), and taken."""
    if long:
        box.hold(LONG_MS)
    else:
        box.click(PRESS_MS)
    box.advance(AFTER_PRESS_MS)


def throw(box: Driver, *faces: int, long: bool = False) -> None:
    """The dice's next *faces* given, Roll pressed, and the throw shown (ROLL_MS)."""
    if faces:
        box.dice(list(faces))
    press(box, long)
    box.advance(ROLL_MS)


def paired(box) -> dict:
    """Pair with the web box *box* as its page does (the code its dice show, asked for and
    sent back): the header a paired request carries."""
    import time

    t = time.monotonic()
    assert box.request("POST", "/api/pair")[0] == 202
    status, r = box.request("POST", "/api/pair", body={"code": box.pairing_code(t)})
    assert status == 200, r
    return {"X-Pair-Token": r["token"]}
