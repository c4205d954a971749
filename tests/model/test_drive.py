# The protocol that drives any box: the runner's verbs, and every backend has the protocol's.
"""shutbox_host.model.drive: a scenario script played as verbs (``play``), in order, the pins
of one instant driven together; a verb a backend lacks stops the run naming the backend; and
every backend (CpyBox, SimBox, EmuBox, TermBox, PageBox) implements the verbs no box can go
without."""

from __future__ import annotations

import pytest

from shutbox import pins
from shutbox_host.model import drive
from shutbox_host.model.script import Script

ACTIVE = pins.SWITCH_ACTIVE


class Recorder(drive.Driver):
    """A box that records the verbs it is given."""

    name = "a recording box"

    def __init__(self):
        self.seen: list = []

    def levels(self, levels):
        self.seen.append(("levels", levels))

    def edges(self, gpio, edges):
        self.seen.append(("edges", gpio, edges))

    def advance(self, ms):
        self.seen.append(("advance", ms))

    def power_cut(self):
        self.seen.append(("power_cut",))

    def shown(self):
        return drive.Shown()


def test_a_script_becomes_the_verbs_in_order():
    s = Script(seed=1).wait(10).shut(2, 3).press().wait(5).release().glitch(4, 300)
    s.power_cut().wait(1)
    b = Recorder()
    b.run(s)
    t2, t3, roll, t4 = (pins.TILE_PINS[1], pins.TILE_PINS[2], pins.ROLL_PIN,
                        pins.TILE_PINS[3])
    assert b.seen[:5] == [("advance", 10), ("levels", {t2: ACTIVE, t3: ACTIVE, roll: ACTIVE}),
                          ("advance", 5), ("levels", {roll: 1 - ACTIVE}),
                          b.seen[4]]
    kind, gpio, edges = b.seen[4]
    assert (kind, gpio) == ("edges", t4) and edges[-1][1] == 1 - ACTIVE  # open: it ends so
    assert all(0 <= us < 1000 for us, _ in edges)  # a glitch: under 1 ms
    assert b.seen[5:] == [("advance", 1), ("power_cut",), ("advance", 1)]


def test_the_readable_script_is_the_same_script():
    a, b = Recorder(), Recorder()
    a.run("wait 10\nshut 2 3\nclick 150\nwait 20\nflip 2")
    b.run(Script().wait(10).shut(2, 3).click(150).wait(20).flip(2))
    assert a.seen == b.seen and len(a.seen) == 6


def test_a_box_without_a_verb_says_so_and_stops_there():
    b = Recorder()
    with pytest.raises(drive.Unsupported, match="a recording box"):
        b.run("wait 10\nshut 2\ndice 3 4\nwait 5")
    assert b.seen == [("advance", 10), ("levels", {pins.TILE_PINS[1]: ACTIVE})]
    with pytest.raises(drive.Unsupported, match="'s'"):
        Recorder().run("state")


def _backends():
    from shutbox_host.box.drive import CpyBox, SimBox
    from shutbox_host.box.play import TermBox
    from shutbox_host.box.webbox import WebBox
    from shutbox_host.pico.drive import EmuBox
    from shutbox_host.web.drive import PageBox

    return [CpyBox, SimBox, EmuBox, TermBox, PageBox, WebBox]


@pytest.mark.parametrize("verb", ["levels", "advance", "power_cut", "shown"])
def test_every_backend_has_the_verbs_every_box_needs(verb):
    missing = [cls.__name__ for cls in _backends()
               if getattr(cls, verb) is getattr(drive.Driver, verb)]
    assert not missing, "%s without %s" % (missing, verb)
    assert all(issubclass(cls, drive.Driver) for cls in _backends())


@pytest.mark.parametrize("backend", ["cpy", "sim", "web"])
def test_the_dice_given_show_on_every_box_that_takes_them(backend):
    """One script on the CPython box, the simulated board and the web box (its companion
    serving, on the wall clock): the faces given are the throw logged and shown."""
    import backends

    from shutbox_host.model.leds import face
    from shutbox_host.model.script import ROLL_MS

    s = Script().wait(300).dice(3, 4).click(120).wait(ROLL_MS + 300)
    with backends.box(backend) as b:
        r = b.run(s)
    assert [t["dice"] for t in r.events("throw")] == [[3, 4]], r.log
    last = r.frames[-1]
    assert (face(last[2]), face(last[3])) == (3, 4), r.frames[-3:]
