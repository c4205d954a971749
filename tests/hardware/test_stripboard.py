# The wiring board: its stripboard layout from the pin map, checked as a netlist.
"""Tests of shutbox_host.hardware.stripboard: the layout of every supported tile count routes
with every net in one piece and no strip shared; the netlist is the circuit of hardware/README.md
section 3; the check sees a missing cut, a missing link and two parts in one hole; the drawing
shows both sides."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from shutbox_host.hardware import stripboard as S
from shutbox_host.model import pinout

ROOT = Path(__file__).resolve().parents[2]
PINMAP = json.loads((ROOT / "hardware/pinmap.json").read_text())


def _pm(**changes):
    return pinout.parse(dict(PINMAP, **changes))


@pytest.mark.parametrize("tiles", [2, 9, 10, 12])
def test_every_net_is_connected_and_no_strip_is_shared(tiles):
    lay = S.place(_pm(tiles=tiles))
    assert S.check(lay) == []
    assert len(lay.cuts) > 10 and lay.links
    # every strip piece carries at most one net
    net_at = {(c, r): p.nets[n] for p in lay.parts for n, c, r in p.holes()}
    for seg in S.segments(lay):
        assert len({net_at[h] for h in seg if h in net_at}) <= 1


def test_netlist_is_the_circuit_of_the_guide():
    pm = _pm()
    lay = S.place(pm)
    nets = S.nets(lay)
    phys = pinout.PHYSICAL

    def pins(net):
        return set(nets[net])

    for k in range(1, pm.tiles + 1):
        assert ("U1", str(phys[pm.tile_pins[k - 1]])) in pins("TILE%d" % k)
    assert ("U1", str(phys[pm.roll_pin])) in pins("ROLL")
    # LED data: GPIO -> 74AHCT125 1A; 1Y -> 330 ohm -> the chain's connector
    assert pins("LED_3V3") == {("U1", str(phys[pm.led_pin])), ("U2", "2")}
    assert ("U2", "3") in pins("LED_5V") and ("R1", "b") in pins("LED_5V")
    assert ("R1", "a") in pins("LED_DIN")
    # the 74AHCT125: VCC and the unused enables to +5V, 1OE, the unused inputs and GND to GND
    assert {("U2", p) for p in ("14", "4", "10", "13")} <= pins("+5V")
    assert {("U2", p) for p in ("7", "1", "5", "9", "12")} <= pins("GND")
    assert {("C1", "a"), ("C2", "+")} <= pins("+5V") and {("C1", "b"), ("C2", "-")} <= pins("GND")
    # the buzzer: GPIO -> 1k -> base; emitter to GND; 1k across the piezo from +5V to collector
    assert ("R2", "a") in pins("BUZZER") and {("R2", "b"), ("Q1", "B")} == pins("BUZ_BASE")
    assert ("Q1", "E") in pins("GND") and {("Q1", "C"), ("R3", "b")} <= pins("BUZ_C")
    # the power: the cells (rocker pole 1, BAT_SW) through D1 into VSYS (pin 39); Q2 from VSYS
    # into the boost U3, whose output is the +5V rail; the gate held at VSYS by R4 and C3,
    # pulled through R5 by Q3, whose base the LED power GPIO drives through R6 (R7 to GND)
    bat = pins("BAT_SW")
    assert ("D1", "a") in bat and len(bat) == 2 and any(r.startswith("J") for r, _ in bat)
    assert {("U1", "39"), ("D1", "k"), ("Q2", "S"), ("R4", "a"), ("C3", "a")} == pins("VSYS")
    assert pins("BOOST_IN") == {("Q2", "D"), ("U3", "VIN")}
    assert ("U3", "VOUT") in pins("+5V") and ("U3", "GND") in pins("GND")
    assert pins("GATE") == {("Q2", "G"), ("R4", "b"), ("C3", "b"), ("R5", "a")}
    assert pins("PWR_C") == {("R5", "b"), ("Q3", "C")} and ("Q3", "E") in pins("GND")
    assert pins("PWR_B") == {("Q3", "B"), ("R6", "a"), ("R7", "a")} and ("R7", "b") in pins("GND")
    assert pins("LED_PWR") == {("U1", str(phys[pm.led_power_pin])), ("R6", "b")}
    assert "VBUS" not in nets  # the rocker no longer switches USB's 5 V: Q2 does
    # the rocker's wires and the cells' - lead: BAT_SW, 3V3_EN, GND
    assert ("U1", "37") in pins("3V3_EN")
    for net in ("BAT_SW", "3V3_EN", "+5V", "GND", "LED_DIN", "BUZ_C", "ROLL"):
        assert any(ref.startswith("J") for ref, _ in nets[net]), net
    assert lay.part(lay.cells_gnd).nets["1"] == "GND"


def test_check_sees_a_missing_cut_a_missing_link_and_a_shared_hole():
    lay = S.place(_pm())
    lay.cuts = lay.cuts[1:]
    assert any("are joined" in b for b in S.check(lay))
    lay = S.place(_pm())
    lay.links = lay.links[1:]
    assert any("pieces" in b for b in S.check(lay))
    lay = S.place(_pm())
    part = lay.part("R3")
    part.col, part.row = lay.part("R1").col, lay.part("R1").row
    S._route(lay, {})
    assert any("used by R1 and R3" in b or "under" in b for b in S.check(lay))


def test_drawing_shows_both_sides():
    lay = S.place(_pm())
    root = ET.fromstring(S.svg(lay, "board"))
    texts = " ".join(t.text or "" for t in root.iter() if t.tag.endswith("text"))
    assert "component side" in texts and "copper side" in texts
    assert "U1 Pico" in texts and "U2 74AHCT125" in texts and "R1 330 ohm" in texts
    assert "%d cuts" % len(lay.cuts) in texts
    lines = [e for e in root.iter() if e.tag.endswith("line")]
    assert len(lines) >= len(lay.links) + len(S.segments(lay))
