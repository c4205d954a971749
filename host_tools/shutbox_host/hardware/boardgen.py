# `shutbox board`: every file derived from hardware/pinmap.json, generated or checked in one place.
"""Generate the pin module, wiring diagram, bill of materials and Wokwi project from the pin map.

The pin map itself (reading, checking, pins.py's text) is shutbox_host.model.pinout's.

`shutbox board` writes them; `shutbox board --check` fails when a committed file differs from a
fresh generation (so a hand edit of pins.py, or a pin map edit without regeneration, is caught).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from xml.sax.saxutils import escape

from shutbox_host.errors import UserError
from shutbox_host.model.pinout import (
    PHYSICAL,
    PICO_PINOUT,
    PIN_3V3,
    PIN_3V3_EN,
    PIN_VSYS,
    PINMAP,
    PIPS,
    PinMap,
    load,
    render_pins,
)

ROOT = Path(__file__).resolve().parents[3]
PINS_PY = "firmware/shutbox/pins.py"
WIRING_SVG = "hardware/wiring.svg"
BOM_CSV = "hardware/bom.csv"
WOKWI_DIAGRAM = "hardware/wokwi/diagram.json"
WOKWI_TOML = "hardware/wokwi/wokwi.toml"
OUTPUTS = (PINS_PY, WIRING_SVG, BOM_CSV, WOKWI_DIAGRAM, WOKWI_TOML)

LED_MA_FULL_WHITE = 60  # one WS2812B at full white (20 mA per colour)


def wokwi_pin(physical: int) -> str:
    """Return Wokwi's name for a physical pin of wokwi-pi-pico (GND pins are GND.1..GND.8)."""
    name = PICO_PINOUT[physical - 1]
    if name in ("GND", "AGND"):
        grounds = [i + 1 for i, n in enumerate(PICO_PINOUT) if n in ("GND", "AGND")]
        return "GND.%d" % (grounds.index(physical) + 1)
    return "3V3" if name == "3V3(OUT)" else name


# --- hardware/bom.csv ---------------------------------------------------------------------------

def bom_rows(pm: PinMap) -> list:
    """Return the bill of materials as (part, value, quantity, example part number, notes,
    model): *model* is the part's key in the enclosure's model (tests/hardware check that the
    two hold the same parts in the same numbers), or "(harness)" for what the harness table
    (hardware/enclosure/harness.csv) lists, "(consumable)" for what is used up."""
    from shutbox_host.hardware import stripboard

    leds = pm.led_count
    pins = len(stripboard.place(pm).connectors())
    return [
        ("Microcontroller board", "Raspberry Pi Pico (RP2040)", 1,
         "Raspberry Pi SC0915 (Pico)", "Pico W / Pico 2 also fit the same pins and holes; "
         "plugs into the wiring board", "pico"),
        ("Pin header", "1x20, 2.54 mm, male", 2, "(any)",
         "soldered to the Pico, pins down, to plug it into the wiring board", "header_1x20"),
        ("Socket header", "1x20, 2.54 mm, female, 8.5 mm", 2, "Samtec SSW-120-01-T-S",
         "on the wiring board: the Pico plugs in", "socket_1x20"),
        ("Tile switch", "hinge-lever microswitch, SPDT, micro load, OF 0.25 N max", pm.tiles,
         "Omron D2F-01FL", "one per tile, wired COM + NO; closes when the tile is shut",
         "switch"),
        ("Roll button", "momentary pushbutton, normally open, 30 mm snap-in", 1,
         "Sanwa OBSF-30", "2.8 mm (0.110 in) tabs", "roll_button"),
        ("RGB LED", "WS2812B, 5 V, on a 10 mm round breakout PCB", leds,
         "Worldsemi WS2812B-V5",
         "%d tile LEDs + 14 dice pips; breakouts carry their own 100 nF" % pm.tiles, "led"),
        ("Level shifter", "74AHCT125, quad buffer, 5 V", 1, "TI SN74AHCT125N",
         "lifts the Pico's 3.3 V data to 5 V for the first LED", "ic_74ahct125"),
        ("IC socket", "DIP-14", 1, "Mill-Max 110-43-314-41-001000", "for the 74AHCT125",
         "socket_dip14"),
        ("Resistor", "330 ohm, 1/4 W (300-500 ohm)", 1, "Stackpole CF14JT330R",
         "in series with the LED data line", "res_330"),
        ("Capacitor", "1000 uF, 16 V, electrolytic, 5 mm pitch", 1, "Panasonic EEU-FR1C102",
         "across +5V and GND where the LED chain is fed", "cap_1000u"),
        ("Capacitor", "100 nF, ceramic, 5 mm pitch", 1, "KEMET C320C104K5R5TA",
         "decoupling at the 74AHCT125's VCC pin", "cap_100n"),
        ("Buzzer", "passive piezo transducer (no built-in oscillator), 12 mm", 1,
         "TDK PS1240P02BT", "driven by PWM through the transistor; in its holder under "
         "the deck's sound hole", "buzzer"),
        ("Transistor", "NPN, small signal, TO-92", 2, "onsemi 2N3904BU",
         "the buzzer's driver and the LED supply switch's (Q3); BC547 works too", "npn"),
        ("Resistor", "1 kohm, 1/4 W", 2, "Stackpole CF14JT1K00",
         "one to the transistor's base, one across the piezo", "res_1k"),
        ("Battery holder", "3 x AA, side by side, with leads", 1, "(any, about 58 x 48 mm)",
         "on the base, two M3 countersunk screws through its floor (hardware/README.md "
         "section 3: why 3 x AA)", "battery_holder"),
        ("Battery", "AA cell, alkaline (LR6) or NiMH", 3, "Energizer E91 / Panasonic eneloop",
         "in the holder; the box runs on USB without them", "aa_cell"),
        ("Schottky diode", "1 A, 20 V, DO-41", 1, "onsemi 1N5817",
         "D1: the cells into VSYS; the Pico's own diode feeds it from USB", "diode"),
        ("P-MOSFET", "P-channel, logic level, TO-220", 1, "onsemi NDP6020P",
         "Q2: switches the LED supply from VSYS (the high side); off while the box sleeps",
         "pmos"),
        ("Step-up regulator", "5 V boost module, 0.5-5.5 V in, 3 pins VIN GND VOUT", 1,
         "Pololu U1V10F5", "U3: the LEDs' 5 V from the cells' 2.7-4.5 V (and from USB's VSYS)",
         "boost"),
        ("Resistor", "10 kohm, 1/4 W", 2, "Stackpole CF14JT10K0",
         "R5 in Q2's gate, R6 to Q3's base", "res_10k"),
        ("Resistor", "100 kohm, 1/4 W", 2, "Stackpole CF14JT100K",
         "R4 holds Q2 off, R7 holds Q3 off while the Pico starts", "res_100k"),
        ("Capacitor", "2.2 uF, ceramic, 5 mm pitch", 1, "(any, 10 V or more)",
         "C3: Q2's gate ramps, so the LED supply starts softly", "cap_2u2"),
        ("Wiring board", "stripboard, 0.1 in, cut to %d x %d holes"
         % (stripboard.COLS, stripboard.ROWS), 1, "(any, e.g. 100 x 160 mm Veroboard)",
         "the Pico's carrier: hardware/enclosure/wiring-board.svg", "stripboard"),
        ("Connector pins", "male header, 2.54 mm, break-away strip", pins, "(any)",
         "on the wiring board, one per harness wire", "pin_header"),
        ("USB cable", "micro-USB, data + power", 1, "(any)", "flashing and power",
         "usb_cable"),
        ("USB power supply", "5 V, 1 A or more", 1, "(any)", "to play without a computer",
         "(accessory)"),
    ] + enclosure_rows(pm.tiles, pins)


ENCLOSURE_JSON = "hardware/enclosure.json"


def enclosure_rows(tiles: int, pins: int) -> list:
    """The enclosure's parts (hardware/README.md section 8); sizes from hardware/enclosure.json,
    the counts as `shutbox enclosure` builds them (tests/hardware checks they agree)."""
    from shutbox_host.hardware import enclosure as E
    from shutbox_host.hardware import enclosure_parts as P

    try:
        e = json.loads((ROOT / ENCLOSURE_JSON).read_text(encoding="utf-8"))
        t, pitch = float(e["material_thickness"]), float(e["tile_pitch"])
        post = pitch - float(e["tile_width"]) - 2 * float(e["tile_side_clearance"])
        rod_d = float(e["hinge_rod_diameter"])
        mag = "%g x %g mm, %s" % (float(e["magnet_diameter"]), float(e["magnet_thickness"]),
                                  e["magnet_grade"])
    except (OSError, ValueError, KeyError, TypeError):
        raise UserError("%s: unreadable; `shutbox enclosure --check` says why"
                        % ENCLOSURE_JSON) from None
    rod = tiles * pitch + post + 2 * END_POST_OUT - 0.2
    return [
        ("Power switch", "mini rocker, DPDT ON-ON, snap-in, 19 x 13 mm cutout", 1,
         "(any, KCD1 class, 4.8 mm tabs)", "in the right wall: one pole breaks the cells, "
         "the other grounds 3V3_EN when off (hardware/README.md section 3)", "power_switch"),
        ("Hinge and rest rods", "silver steel rod %g mm, cut to %.0f mm" % (rod_d, rod), 2,
         "BS 1407 silver steel %g mm x 333 mm" % rod_d,
         "one the tiles pivot on, one they lean on", "rod"),
        ("Magnet", "neodymium disc %s, axially magnetised" % mag, 2 * tiles,
         "(any, e.g. dhit MW 4x2 / N38)", "one in each tile, one in the deck under it, "
         "attracting: they hold a shut tile on its lever (hardware/README.md)", "magnet"),
        ("Deck", "%g mm plywood or acrylic, laser cut (hardware/enclosure/cut.svg)" % t, 1,
         "(made)", "countersink the green circles from the top", "deck"),
        ("Base", "%g mm plywood or acrylic, laser cut" % t, 1, "(made)",
         "countersink the green circles from below", "base"),
        ("Front wall", "%g mm plywood or acrylic, laser cut" % t, 1, "(made)", "", "front"),
        ("Back wall", "%g mm plywood or acrylic, laser cut" % t, 1, "(made)", "USB opening",
         "back"),
        ("Left wall", "%g mm plywood or acrylic, laser cut" % t, 1, "(made)", "", "left"),
        ("Right wall", "%g mm plywood or acrylic, laser cut" % t, 1, "(made)",
         "power rocker cutout", "right"),
    ] + [(name, "printed, %s" % what, n, "(made)", "STL in hardware/enclosure/stl/%s"
          % note, key) for name, what, n, note, key in (
        ("Tile", "PLA, numbered 1..%d" % tiles, tiles, "(tiles 2..N: build/enclosure/stl/)",
         "tile"),
        ("Cradle", "PLA", tiles, "", "cradle"),
        ("Hinge post", "PLA", tiles - 1, "", "hinge_post"),
        ("End post, left", "PLA", 1, "", "end_post_left"),
        ("End post, right", "PLA", 1, "", "end_post_right"),
        ("Corner post", "PLA", 4, "", "corner_post"),
        ("Dice plate", "PLA", 2, "", "dice_plate"),
        ("Buzzer holder", "PLA", 1, "", "buzzer_holder"),
        ("Light pipe, tile LED", "PETG, clear or natural", tiles, "", "light_pipe"),
        ("Light pipe, pip", "PETG, clear or natural", 14, "", "pip_light_pipe"),
        ("Tolerance coupon", "PLA, print it first", 1, "", "tolerance_coupon"),
        ("Switch-height gauge", "PLA, a jig", 1, "", "switch_gauge"))] + [
    ] + [("Screw", "%s, A2" % screw.describe(), n, "%s %sx%g A2" % (
        P.STANDARD[screw.head], screw.size, screw.length), note, screw.key)
        for screw, n, note in (
            (E.M3_CORNER, 10, "base and deck into the corner posts; 2 hold the battery "
             "holder"),
            (E.M3, 2 * tiles + 6, "deck into the cradles, dice plates and buzzer holder"),
            (E.M3_POST, 2 * (tiles + 1) + 4,
             "hinge and end posts from under the deck; 4 hold the rods' washers"),
            (E.M2_SWITCH, 2 * tiles, "each tile switch onto its cradle's slots"),
            (E.M25_BOARD, 4, "the wiring board into its standoffs"),
            (E.M25_BASE, 4, "the standoffs from under the base"))] + [
        ("Washer", "M3, ISO 7089, A2", 4, "ISO 7089 M3 A2", "over the rods' ends",
         "washer_m3"),
        ("Washer", "M2, ISO 7089, A2", 2 * tiles, "ISO 7089 M2 A2", "under the switch nuts",
         "washer_m2"),
        ("Nut", "M2 hex, ISO 4032, A2", 2 * tiles, "ISO 4032 M2 A2", "for the switch screws",
         "nut_m2"),
        ("Nut", "M3 hex, ISO 4032, A2", 2, "ISO 4032 M3 A2",
         "under the base, for the battery holder's screws", "nut_m3"),
        ("Standoff", "M2.5 x 10 mm, hex 5 mm, female-female, brass", 4, "(any)",
         "the wiring board on the base", "standoff_m25"),
        ("Foot", "self-adhesive rubber bumper, 12.7 mm x 3.5 mm", 4, "(any)",
         "under the base, clear of the screw heads", "foot"),
        ("Hook-up wire", "22 AWG stranded: red, black, orange", 1, "(any)",
         "the LED supply, the cells and the rocker (hardware/enclosure/harness.csv)",
         "(harness)"),
        ("Hook-up wire", "26 AWG stranded: blue, black, red, yellow, green, white, purple", 1,
         "(any)", "switches, Roll, LED data, buzzer, 3V3_EN", "(harness)"),
        ("Crimp housing", "Dupont 2.54 mm female, 1-pin housing and crimp contact", pins,
         "(any)", "the harness's end on the wiring board's pins", "(harness)"),
        ("Receptacle", "2.8 mm (0.110 in) female quick-connect, insulated", 2, "(any)",
         "onto the Roll button's tabs", "(harness)"),
        ("Receptacle", "4.8 mm (0.187 in) female quick-connect, insulated", 4, "(any)",
         "onto the rocker's tabs", "(harness)"),
        ("Heat-shrink tube", "1.6 mm and 2.4 mm", 1, "(any)",
         "over every soldered joint off the board", "(consumable)"),
        ("Glue", "cyanoacrylate (magnets, walls to corner posts)", 1, "(any)", "",
         "(consumable)"),
    ]


END_POST_OUT = 6.0    # mm an end post reaches outside a hinge post (enclosure.Layout.end_out)


def render_bom(pm: PinMap) -> str:
    """Return the text of hardware/bom.csv."""
    import csv
    import io

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(("part", "value", "quantity", "example part number", "notes", "model"))
    writer.writerows(bom_rows(pm))
    return out.getvalue()


# --- hardware/wiring.svg ------------------------------------------------------------------------

COLOURS = {"tile": "#1f6fb4", "spare": "#9aa5b1", "roll": "#2a9d3c", "buzzer": "#8a4fbf",
           "led": "#e07b00", "gnd": "#222222", "5v": "#d62728", "3v3": "#c2185b",
           "led_power": "#b8860b",
           "idle": "#b0b0b0"}


class _Svg:
    """A tiny SVG writer: elements as lines of text, integer coordinates, escaped text."""

    def __init__(self, width, height):
        self.width, self.height = width, height
        self.items = []

    def add(self, text):
        self.items.append(text)

    def line(self, x1, y1, x2, y2, colour="#222222", width=2, dash=None):
        extra = ' stroke-dasharray="%s"' % dash if dash else ""
        self.add('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="%s"%s/>'
                 % (x1, y1, x2, y2, colour, width, extra))

    def poly(self, points, colour="#222222", width=2, fill="none", closed=False):
        tag = "polygon" if closed else "polyline"
        pts = " ".join("%d,%d" % p for p in points)
        self.add('<%s points="%s" fill="%s" stroke="%s" stroke-width="%s"/>'
                 % (tag, pts, fill, colour, width))

    def rect(self, x, y, w, h, fill="none", colour="#222222", width=2, rx=0):
        self.add('<rect x="%d" y="%d" width="%d" height="%d" rx="%d" fill="%s" stroke="%s" '
                 'stroke-width="%s"/>' % (x, y, w, h, rx, fill, colour, width))

    def circle(self, x, y, r, fill="#ffffff", colour="#222222", width=2):
        self.add('<circle cx="%d" cy="%d" r="%d" fill="%s" stroke="%s" stroke-width="%s"/>'
                 % (x, y, r, fill, colour, width))

    def text(self, x, y, text, size=12, anchor="start", colour="#222222", weight="normal",
             cls=None):
        extra = ' font-weight="bold"' if weight == "bold" else ""
        extra += ' class="%s"' % cls if cls else ""
        self.add('<text x="%d" y="%d" font-size="%d" text-anchor="%s" fill="%s"%s>%s</text>'
                 % (x, y, size, anchor, colour, extra, escape(text)))

    def render(self, title):
        head = ('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
                'viewBox="0 0 %d %d" font-family="Helvetica, Arial, sans-serif">\n'
                % (self.width, self.height, self.width, self.height))
        head += "<title>%s</title>\n" % escape(title)
        head += '<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>\n' % (
            self.width, self.height)
        return head + "\n".join(self.items) + "\n</svg>\n"


W = 1200
PX0, PX1, PY0 = 470, 730, 150          # the Pico's body: left, right, top
PITCH = 26
ROW0 = PY0 + 40                         # y of physical pins 1 and 40
BUS_L, BUS_R = 110, W - 110             # the GND buses of the switch columns


def _pin_xy(physical):
    """Return (x, y, side) of a physical pin on the drawing; side -1 left, +1 right."""
    if physical <= 20:
        return PX0, ROW0 + (physical - 1) * PITCH, -1
    return PX1, ROW0 + (40 - physical) * PITCH, 1


def _ground(svg, x, y):
    """Draw a ground symbol hanging below (x, y)."""
    svg.line(x, y, x, y + 10)
    for i, half in enumerate((12, 8, 4)):
        svg.line(x - half, y + 10 + 4 * i, x + half, y + 10 + 4 * i)


def _vline_hop(svg, x, y1, y2, hop, colour):
    """Draw a vertical wire from y1 down to y2 that hops over a horizontal wire at y = hop."""
    svg.add('<path d="M %d %d V %d A 6 6 0 0 1 %d %d V %d" fill="none" stroke="%s" '
            'stroke-width="2"/>' % (x, y1, hop - 6, x, hop + 6, y2, colour))


def _flag(svg, x, y, side, label, colour):
    """Draw a net flag (a label shaped like an arrow) starting at (x, y) and pointing outward."""
    w = 12 + 7 * len(label)
    x2 = x + side * w
    tip = x2 + side * 10
    svg.poly([(x, y - 10), (x2, y - 10), (tip, y), (x2, y + 10), (x, y + 10)], colour, 2,
             "#ffffff", closed=True)
    svg.text((x + x2) // 2, y + 4, label, 11, "middle", colour, "bold")
    return tip


def _switch(svg, x, y, side, colour, button=False):
    """Draw a switch between x and x + side*40 on row y (a pushbutton when *button*)."""
    a, b = x, x + side * 40
    svg.circle(a, y, 3, colour=colour)
    svg.circle(b, y, 3, colour=colour)
    if button:
        svg.line(a - side * 2, y - 9, b + side * 2, y - 9, colour)
        svg.line((a + b) // 2, y - 9, (a + b) // 2, y - 17, colour)
    else:
        svg.line(a + side * 3, y - 1, b - side * 2, y - 14, colour)
    return b


def _chain_panel(svg, pm, top, pin):
    """Draw the LED chain: data flag, 74AHCT125, series resistor, LEDs, dice, power rails."""
    c = COLOURS
    svg.text(30, top, "LED chain: WS2812B at 5 V, data through a 74AHCT125 level shifter",
             15, weight="bold")
    y = top + 90                                  # the data line
    rail5, rail0 = top + 40, top + 150           # +5V and GND rails
    end = _flag(svg, 30, y, 1, "LED DATA GP%d (pin %d)" % (pm.led_pin, pin), c["led"])
    # 74AHCT125: one buffer used; OE low enables it.
    bx, by, bw, bh = 300, y - 32, 120, 64
    svg.rect(bx, by, bw, bh, "#fff8ee", c["led"], 2, 4)
    svg.text(bx + bw // 2, by + 28, "74AHCT125", 13, "middle", weight="bold")
    svg.text(bx + bw // 2, by + 46, "one of 4 buffers", 10, "middle", "#666666")
    svg.line(end, y, bx, y, c["led"])
    svg.text(bx - 4, y - 5, "1A (2)", 9, "end")
    svg.text(bx + bw + 4, y - 5, "1Y (3)", 9)
    svg.line(bx + 30, by, bx + 30, rail5, c["5v"])
    svg.text(bx + 34, by - 5, "VCC (14)", 9)
    svg.line(bx + 30, by + bh, bx + 30, rail0, c["gnd"])
    svg.text(bx + 34, by + bh + 12, "GND (7)", 9)
    svg.line(bx + 90, by + bh, bx + 90, rail0, c["gnd"])
    svg.text(bx + 94, by + bh + 12, "1OE (1)", 9)
    # 100 nF decoupling beside the chip.
    cx = bx - 40
    _vline_hop(svg, cx, rail5, y + 14, y, c["5v"])
    svg.line(cx - 9, y + 14, cx + 9, y + 14)
    svg.line(cx - 9, y + 20, cx + 9, y + 20)
    svg.line(cx, y + 20, cx, rail0, c["gnd"])
    svg.text(cx - 12, y + 40, "100 nF", 10, "end")
    # Series resistor, then the first LED.
    rx = bx + bw + 40
    svg.line(bx + bw, y, rx, y, c["led"])
    svg.rect(rx, y - 7, 50, 14, "#ffffff", "#222222", 2)
    svg.text(rx + 25, y - 12, "330 Ω", 11, "middle")
    # 1000 uF bulk capacitor across the rails where the chain is fed.
    kx = rx + 80
    _vline_hop(svg, kx, rail5, y + 14, y, c["5v"])
    svg.line(kx - 10, y + 14, kx + 10, y + 14)
    svg.add('<path d="M %d %d Q %d %d %d %d" fill="none" stroke="#222222" stroke-width="2"/>'
            % (kx - 10, y + 24, kx, y + 18, kx + 10, y + 24))
    svg.line(kx, y + 21, kx, rail0, c["gnd"])
    svg.text(kx + 8, y + 10, "+", 12)
    svg.text(kx - 14, y + 40, "1000 µF", 10, "end")
    # The tile LEDs in a row, chain order left to right.
    lx0, pitch, size = rx + 100, 44, 30
    svg.line(rx + 50, y, lx0, y, c["led"])
    x = lx0
    for k in range(1, pm.tiles + 1):
        svg.rect(x, y - size // 2, size, size, "#fffbe6", c["led"], 2, 4)
        svg.text(x + size // 2, y + 4, "T%d" % k, 11, "middle", weight="bold")
        svg.text(x + size // 2, y + size // 2 + 12, "#%d" % (k - 1), 9, "middle", "#666666")
        svg.line(x + size // 2, y - size // 2, x + size // 2, rail5, c["5v"], 1.5)
        svg.line(x + size // 2, y + size // 2 + 14, x + size // 2, rail0, c["gnd"], 1.5)
        if k < pm.tiles:
            svg.line(x + size, y, x + pitch, y, c["led"])
        x += pitch
    last_x = x - pitch + size
    rail_end = max(last_x + 40, 1080)
    for rail, colour, name in ((rail5, c["5v"], "+5V"), (rail0, c["gnd"], "GND")):
        svg.line(cx, rail, rail_end, rail, colour)
        svg.text(rail_end + 6, rail + 4, name, 11, colour=colour, weight="bold")
    svg.text(cx, rail5 - 8, "+5V rail: the boost module U3 (the LED supply, below)", 10,
             colour=c["5v"])
    # The dice, each a 3 x 3 grid with its 7 pips numbered in chain order.
    dy = rail0 + 40
    order = ((0, 0), (2, 0), (0, 1), (1, 1), (2, 1), (0, 2), (2, 2))
    first = pm.tiles
    dx0, box, step = 260, 150, 45
    # Route the data line: from the last tile LED, right, down under the GND rail, left,
    # down to die A's first pip.
    turn = last_x + 20
    pip1 = (dx0 + 30, dy + 30)
    svg.poly([(last_x, y), (turn, y), (turn, dy - 16), (dx0 - 24, dy - 16),
              (dx0 - 24, pip1[1]), (pip1[0] - 13, pip1[1])], c["led"], 2)
    svg.text(30, dy + 30, "then die A and die B:", 12, weight="bold")
    svg.text(30, dy + 48, "data in at pip 1, out of", 11)
    svg.text(30, dy + 64, "pip 7 to the next die", 11)
    for d, name in enumerate("AB"):
        ox = dx0 + d * (box + 80)
        svg.rect(ox, dy, box, box, "#fffdf5", "#222222", 2, 14)
        svg.text(ox + box // 2, dy + box + 18, "die %s" % name, 12, "middle", weight="bold")
        centres = [(ox + 30 + step * col, dy + 30 + step * row) for col, row in order]
        for i, (px, py) in enumerate(centres):
            svg.circle(px, py, 13, "#fffbe6", c["led"], 2)
            svg.text(px, py + 4, str(i + 1), 11, "middle", weight="bold")
            svg.text(px, py + 25, "#%d" % (first + d * PIPS + i), 9, "middle", "#666666")
        if d == 0:   # pip 7 of die A out to pip 1 of die B
            (ax, ay), bx1 = centres[-1], ox + box + 80 + 30
            mid = ox + box + 40
            svg.poly([(ax + 13, ay), (mid, ay), (mid, dy + 30), (bx1 - 13, dy + 30)],
                     c["led"], 2)
    nx = dx0 + 2 * box + 130
    svg.text(nx, dy + 20, "#n = place on the chain (frame[n])", 11, colour="#666666")
    svg.text(nx, dy + 40, "Pips: 1 top-left, 2 top-right, 3 middle-left,", 11)
    svg.text(nx, dy + 56, "4 centre, 5 middle-right, 6 bottom-left, 7 bottom-right.", 11)
    svg.text(nx, dy + 76, "Every LED: DIN from the one before, DOUT to the next;", 11)
    svg.text(nx, dy + 92, "+5V and GND to the rails (thick wires; feed a long", 11)
    svg.text(nx, dy + 108, "chain at both ends).", 11)
    svg.text(nx, dy + 128, "74AHCT125: unused inputs 2A, 3A, 4A (pins 5, 9, 12)", 11)
    svg.text(nx, dy + 144, "to GND, their 2OE, 3OE, 4OE (pins 4, 10, 13) to +5V.", 11)
    return dy + box + 40


def _npn(svg, qx, y, name):
    """An NPN transistor centred at (qx, y): base in from the left at qx - 12, collector up to
    y - 40 and emitter down to a ground at y + 44, both at qx + 10."""
    svg.circle(qx, y, 24, "#ffffff")
    svg.line(qx - 12, y - 14, qx - 12, y + 14, "#222222", 3)
    svg.line(qx - 12, y - 6, qx + 10, y - 22)   # collector leg
    svg.line(qx - 12, y + 6, qx + 10, y + 22)   # emitter leg
    svg.poly([(qx + 10, y + 22), (qx + 1, y + 20), (qx + 6, y + 13)], "#222222", 1, "#222222",
             closed=True)
    svg.text(qx + 30, y + 4, name, 11)
    svg.text(qx - 22, y - 4, "B", 9, "end")
    svg.line(qx + 10, y - 22, qx + 10, y - 40)
    svg.text(qx + 14, y - 28, "C", 9)
    svg.line(qx + 10, y + 22, qx + 10, y + 44)
    svg.text(qx + 14, y + 36, "E", 9)
    _ground(svg, qx + 10, y + 44)


def _resistor_v(svg, x, y0, y1, label, right=True, colour="#222222"):
    """A resistor (or capacitor) drawn upright between (x, y0) and (x, y1), its label beside."""
    mid = (y0 + y1) // 2
    svg.line(x, y0, x, mid - 13, colour)
    svg.rect(x - 7, mid - 13, 14, 26, "#ffffff")
    svg.line(x, mid + 13, x, y1, colour)
    svg.text(x + 12 if right else x - 12, mid + 4, label, 10, "start" if right else "end")


def _buzzer_panel(svg, pm, top, pin):
    """Draw the buzzer driver: PWM pin, base resistor, NPN, piezo to +5V."""
    c = COLOURS
    svg.text(30, top, "Buzzer: passive piezo switched by an NPN transistor", 15, weight="bold")
    y = top + 120
    end = _flag(svg, 30, y, 1, "BUZZER GP%d (pin %d)" % (pm.buzzer_pin, pin), c["buzzer"])
    rx = end + 30
    svg.line(end, y, rx, y, c["buzzer"])
    svg.rect(rx, y - 7, 50, 14, "#ffffff")
    svg.text(rx + 25, y - 12, "1 kΩ", 11, "middle")
    qx = rx + 120                                # the transistor's body
    svg.line(rx + 50, y, qx - 12, y, c["buzzer"])
    _npn(svg, qx, y, "NPN 2N3904")
    # The piezo between +5V and the collector, with 1 k across it to bleed its charge.
    py = y - 40
    svg.rect(qx - 5, py - 40, 30, 40, "#f4ecfb", c["buzzer"], 2, 4)
    svg.text(qx + 10, py - 16, "♪", 14, "middle", c["buzzer"])
    svg.text(qx - 10, py - 24, "piezo", 11, "end")
    svg.line(qx + 10, py - 40, qx + 10, py - 60, c["5v"])
    svg.line(qx + 10, py, qx + 60, py)
    svg.line(qx + 10, py - 50, qx + 60, py - 50)
    svg.rect(qx + 53, py - 40, 14, 30, "#ffffff")
    svg.line(qx + 60, py - 50, qx + 60, py - 40)
    svg.line(qx + 60, py - 10, qx + 60, py)
    svg.text(qx + 72, py - 20, "1 kΩ", 11)
    svg.line(qx - 20, py - 60, qx + 40, py - 60, c["5v"])
    svg.text(qx + 46, py - 56, "+5V", 11, colour=c["5v"], weight="bold")
    return y + 80


def _rocker(svg, vx, vy, ey):
    """The power rocker (DPDT, right wall), drawn on: pole 1 joins the cells' + to D1 and VSYS
    (pin 39), pole 2 lets 3V3_EN (pin 37) go; off, pole 1 opens and pole 2 grounds 3V3_EN,
    which stops the Pico's regulator (hardware/README.md section 3)."""
    c = COLOURS
    x = vx + 230                                   # the contacts the poles close when on
    svg.text(x - 20, vy - 30, "POWER ROCKER (DPDT, right wall), drawn ON", 11, weight="bold",
             colour="#444444")
    # pole 1, on the VSYS row: D1 (anode towards the rocker, cathode to VSYS)
    dx = x - 90
    svg.line(vx + 5, vy, dx, vy, c["5v"])
    svg.poly([(dx, vy), (dx + 16, vy - 8), (dx + 16, vy + 8)], c["5v"], 2, "#ffffff", True)
    svg.line(dx, vy - 8, dx, vy + 8, c["5v"])
    svg.text(dx + 8, vy - 12, "D1 1N5817", 9, "middle")
    svg.line(dx + 16, vy, x - 4, vy, c["5v"])
    # pole 1: ON contact (to D1), the unused OFF below it, the common to the cells' +
    svg.circle(x, vy, 4, "#ffffff", c["5v"])
    svg.circle(x, vy + 16, 4, "#ffffff", "#bbbbbb")
    svg.circle(x + 60, vy + 8, 4, "#ffffff", "#222222")
    svg.line(x + 56, vy + 7, x + 5, vy + 1, "#222222", 3)
    svg.text(x, vy - 8, "ON", 9, "middle", "#666666")
    svg.line(x + 64, vy + 8, x + 100, vy + 8, c["5v"])
    svg.text(x + 104, vy + 12, "BAT+ (the cells)", 10, colour=c["5v"], weight="bold")
    # pole 2: the common on 3V3_EN, the unused ON contact, the OFF contact to GND
    svg.line(vx + 5, ey, x - 4, ey, c["3v3"])
    svg.text(vx + 10, ey - 6, "3V3_EN", 10, colour=c["3v3"])
    svg.circle(x, ey, 4, "#ffffff", "#222222")
    svg.circle(x + 60, ey - 8, 4, "#ffffff", "#bbbbbb")
    svg.circle(x + 60, ey + 8, 4, "#ffffff", c["gnd"])
    svg.line(x + 4, ey - 1, x + 55, ey - 8, "#222222", 3)
    svg.text(x + 70, ey + 12, "OFF: to GND", 9, colour="#666666")
    svg.line(x + 60, ey + 12, x + 60, ey + 30, c["gnd"])
    _ground(svg, x + 60, ey + 30)
    svg.line(x + 30, vy + 6, x + 30, ey - 4, "#222222", 1, "3 3")   # the poles move together
    svg.text(x - 150, ey + 62, "Off, pole 1 cuts the cells and pole 2 grounds 3V3_EN: the "
             "Pico's regulator stops.", 10, colour="#444444")


def _power_panel(svg, pm, top, pin):
    """The LED supply's high-side switch: Q2 from VSYS into the 5 V boost module U3, driven
    by the LED power GPIO through Q3; R4 holds Q2 off, C3 with R5 ramps its gate."""
    c = COLOURS
    svg.text(30, top, "LED supply: a P-MOSFET from VSYS into a 5 V step-up module, off while "
             "the box sleeps", 15, weight="bold")
    y = top + 50                                      # the VSYS rail
    svg.line(60, y, 620, y, c["5v"])
    svg.text(60, y - 8, "VSYS (pin 39): the cells through D1, or USB through the Pico's own "
             "diode", 10, colour=c["5v"])
    g = y + 70                                        # the gate node
    _resistor_v(svg, 340, y, g, "C3 2.2 µF", right=False)
    _resistor_v(svg, 390, y, g, "R4 100 kΩ")
    svg.line(300, g, 450, g, "#222222")
    svg.rect(450, y + 40, 40, 60, "#ffffff", "#222222", 2, 4)      # Q2: S up, G left, D down
    svg.line(470, y, 470, y + 40, c["5v"])
    svg.text(470, y + 74, "Q2", 11, "middle", weight="bold")
    svg.text(498, y + 60, "NDP6020P (P-channel):", 10)
    svg.text(498, y + 74, "S to VSYS, G, D to U3", 10)
    svg.line(470, y + 100, 470, y + 130, c["5v"])
    svg.rect(430, y + 130, 80, 40, "#fff8ee", c["5v"], 2, 4)       # U3
    svg.text(470, y + 148, "U3 5 V boost", 10, "middle", weight="bold")
    svg.text(470, y + 162, "VIN GND VOUT", 9, "middle", "#666666")
    svg.line(510, y + 150, 570, y + 150, c["5v"])
    svg.text(576, y + 154, "+5V rail: the LEDs, the 74AHCT125, the buzzer", 11,
             colour=c["5v"], weight="bold")
    svg.line(470, y + 170, 470, y + 186, c["gnd"])
    _ground(svg, 470, y + 186)
    qx, qy = 290, y + 170                             # Q3, its collector up to R5
    _resistor_v(svg, 300, g, qy - 40, "R5 10 kΩ", right=False)
    _npn(svg, qx, qy, "Q3 2N3904")
    end = _flag(svg, 30, qy, 1, "LED POWER GP%d (pin %d)" % (pm.led_power_pin, pin),
                c["led_power"])
    svg.line(end, qy, 222, qy, c["led_power"])
    svg.rect(222, qy - 7, 26, 14, "#ffffff")
    svg.text(235, qy - 12, "R6 10 kΩ", 9, "middle")
    svg.line(248, qy, qx - 12, qy, c["led_power"])
    _resistor_v(svg, 262, qy, qy + 56, "R7 100 kΩ", right=False, colour=c["gnd"])
    _ground(svg, 262, qy + 56)
    for i, text in enumerate((
            "GPIO high: Q3 pulls Q2's gate down through R5; C3 ramps the gate, so the LED",
            "supply starts softly (no surge that would sag the cells).",
            "GPIO low (the box asleep) or floating (R7, while the Pico starts): R4 holds the",
            "gate at VSYS and Q2 is off: U3, the LEDs and the 74AHCT125 draw nothing.")):
        svg.text(690, y + 20 + 16 * i, text, 11)
    return qy + 90


def _pin_table(svg, pm, x, top):
    """Draw the pin table: function, GPIO, physical pin."""
    svg.text(x, top, "Pin map (hardware/pinmap.json)", 15, weight="bold")
    rows = [("Tile %d" % k, g) for k, g in enumerate(pm.tile_pins[:pm.tiles], 1)]
    rows += [("Roll button", pm.roll_pin), ("Buzzer (PWM)", pm.buzzer_pin),
             ("LED data", pm.led_pin), ("LED power", pm.led_power_pin)]
    y = top + 24
    svg.text(x, y, "function", 11, weight="bold")
    svg.text(x + 150, y, "GPIO", 11, weight="bold")
    svg.text(x + 210, y, "pin", 11, weight="bold")
    for label, gpio in rows:
        y += 16
        svg.text(x, y, label, 11)
        svg.text(x + 150, y, "GP%d" % gpio, 11)
        svg.text(x + 210, y, str(PHYSICAL[gpio]), 11)
    return y


def render_svg(pm: PinMap) -> str:
    """Return the wiring diagram (hardware/wiring.svg) for a pin map."""
    c = COLOURS
    roles = pm.roles()
    by_pin = {PHYSICAL[g]: (g,) + roles[g] for g in roles}
    svg = _Svg(W, 0)
    svg.text(30, 40, "shutbox wiring: %d-tile box" % pm.tiles, 24, weight="bold")
    svg.text(30, 64, "Generated from hardware/pinmap.json by `shutbox board`; do not edit. "
             "The Pico is seen from above, USB at the top; small numbers are physical pins.",
             12, colour="#444444")
    svg.text(30, 82, "Switches close to GND (internal pull-ups, no resistors): a shut tile "
             "or a pressed Roll button reads 0.", 12, colour="#444444")
    # The Pico.
    svg.rect(PX0, PY0, PX1 - PX0, 20 * PITCH + 44, "#1b7a3a", "#0f4d24", 2, 8)
    svg.rect((PX0 + PX1) // 2 - 30, PY0 - 16, 60, 24, "#c8c8c8", "#555555", 2, 3)
    svg.text((PX0 + PX1) // 2, PY0 - 22, "USB", 11, "middle", "#555555")
    svg.text((PX0 + PX1) // 2, PY0 + 20 * PITCH // 2 + 30, "Raspberry Pi", 14, "middle",
             "#ffffff", "bold")
    svg.text((PX0 + PX1) // 2, PY0 + 20 * PITCH // 2 + 48, "Pico", 14, "middle",
             "#ffffff", "bold")
    bus_rows = {-1: [], 1: []}
    for physical in range(1, 41):
        x, y, side = _pin_xy(physical)
        name = PICO_PINOUT[physical - 1]
        role = by_pin.get(physical)
        if role:
            colour = c[role[1]]
        elif name in ("GND", "AGND"):
            colour = c["gnd"]
        elif physical == PIN_VSYS:
            colour = c["5v"]
        else:
            colour = c["idle"]
        svg.rect(x - 5, y - 5, 10, 10, "#f2d16b", colour, 2, 2)
        svg.text(x - side * 16, y + 4, str(physical), 10, "middle", "#ffffff")
        svg.text(x - side * 30, y + 4, name, 11, "end" if side > 0 else "start",
                 "#ffffff", "bold" if role else "normal")
        if not role:
            continue
        gpio, kind, k = role
        stub = x + side * 40
        svg.line(x + side * 5, y, stub, y, colour)
        if kind in ("tile", "roll"):
            far = BUS_R if side > 0 else BUS_L
            sw_x = far - side * 130
            svg.line(stub, y, sw_x, y, colour)
            b = _switch(svg, sw_x, y, side, colour, button=kind == "roll")
            svg.line(b, y, far, y, c["gnd"])
            label = "Tile %d" % k if kind == "tile" else "Roll"
            svg.text((stub + sw_x) // 2, y - 5, label, 12, "middle", colour, "bold")
            bus_rows[side].append(y)
        elif kind == "spare":
            svg.text(stub + side * 6, y + 4, "spare: tile %d of a %d-tile box"
                     % (k, len(pm.tile_pins)), 11, "end" if side < 0 else "start", colour)
        else:
            label = {"buzzer": "BUZZER", "led": "LED DATA", "led_power": "LED POWER"}[kind]
            _flag(svg, stub, y, side, label, colour)
    # GND buses for the switches, each tied to the side's ground pin nearest their middle.
    for side, rows in bus_rows.items():
        if not rows:
            continue
        far = BUS_R if side > 0 else BUS_L
        grounds = [p for p in range(1, 41) if PICO_PINOUT[p - 1] == "GND"
                   and _pin_xy(p)[2] == side]
        middle = (min(rows) + max(rows)) // 2
        gnd = min(grounds, key=lambda p: (abs(_pin_xy(p)[1] - middle), p))
        gx, gy, _ = _pin_xy(gnd)
        svg.line(gx + side * 5, gy, far, gy, c["gnd"])
        top, bottom = min(rows + [gy]), max(rows + [gy])
        svg.line(far, top, far, bottom + 20, c["gnd"], 3)
        svg.circle(far, gy, 4, c["gnd"], c["gnd"])
        _ground(svg, far, bottom + 20)
        svg.text(far + side * 18, bottom + 34, "GND", 12, "end" if side < 0 else "start",
                 c["gnd"], "bold")
    # Power pins on the right: the rocker's two poles, one GND feeds the panels below.
    vx, vy, _ = _pin_xy(PIN_VSYS)
    _rocker(svg, vx, vy, _pin_xy(PIN_3V3_EN)[1])
    gx, gy, _ = _pin_xy(38)
    svg.line(gx + 5, gy, gx + 40, gy, c["gnd"])
    _flag(svg, gx + 40, gy, 1, "GND", c["gnd"])
    tx, ty, _ = _pin_xy(PIN_3V3)
    svg.text(tx + 14, ty + 4, "3V3(OUT): not used (pull-ups are inside the RP2040)", 10,
             colour="#777777")
    # The panels below the Pico.
    bottom = PY0 + 20 * PITCH + 80
    svg.line(20, bottom - 20, W - 20, bottom - 20, "#dddddd", 1)
    y = _chain_panel(svg, pm, bottom + 10, PHYSICAL[pm.led_pin])
    svg.line(20, y - 10, W - 20, y - 10, "#dddddd", 1)
    end = max(_buzzer_panel(svg, pm, y + 20, PHYSICAL[pm.buzzer_pin]),
              _pin_table(svg, pm, 700, y + 20))
    svg.line(20, end + 10, W - 20, end + 10, "#dddddd", 1)
    end = _power_panel(svg, pm, end + 40, PHYSICAL[pm.led_power_pin])
    svg.height = end + 50
    leds = pm.led_count
    svg.text(30, svg.height - 20, "Power: %d LEDs × %d mA = %d mA at full white, more than "
             "USB's 500 mA, so the firmware caps brightness; see hardware/README.md."
             % (leds, LED_MA_FULL_WHITE, leds * LED_MA_FULL_WHITE), 12, colour="#444444")
    return svg.render("shutbox wiring: %d-tile box" % pm.tiles)


# --- hardware/wokwi/ ----------------------------------------------------------------------------

WOKWI_ENV = "micropython-20241129-v1.24.1"  # the MicroPython wokwi.com loads for the Pico


def wokwi_parts_and_connections(pm: PinMap):
    """Return (parts, connections) of the Wokwi diagram for a pin map."""
    gnd_left = wokwi_pin(3)      # GND.1
    gnd_right = wokwi_pin(38)    # GND.8
    parts = [{"type": "wokwi-pi-pico", "id": "pico", "top": 0, "left": 0,
              "attrs": {"env": WOKWI_ENV}}]
    conns = []
    # Tiles: slide switches in a row (common pin 2 to the GPIO, pin 3 to GND: slid right =
    # shut), each with its LED above it, as on the box.
    for k in range(1, pm.tiles + 1):
        left = -330 + (k - 1) * 55
        parts.append({"type": "wokwi-slide-switch", "id": "tile%d" % k, "top": -170,
                      "left": left, "attrs": {}})
        parts.append({"type": "wokwi-neopixel", "id": "led%d" % k, "top": -230,
                      "left": left + 6, "attrs": {}})
        conns.append(["pico:GP%d" % pm.tile_pins[k - 1], "tile%d:2" % k, "blue", []])
        conns.append(["tile%d:3" % k, "pico:%s" % gnd_left if k == 1 else "tile%d:3" % (k - 1),
                      "black", []])
    # The dice: 3 x 3 grids, pips in chain order.
    order = ((0, 0), (2, 0), (0, 1), (1, 1), (2, 1), (0, 2), (2, 2))
    pips = []
    for d, name in enumerate("ab"):
        for i, (col, row) in enumerate(order, 1):
            pid = "pip_%s%d" % (name, i)
            parts.append({"type": "wokwi-neopixel", "id": pid, "top": -60 + row * 30,
                          "left": 200 + d * 120 + col * 30, "attrs": {}})
            pips.append(pid)
    chain = ["led%d" % k for k in range(1, pm.tiles + 1)] + pips
    conns.append(["pico:GP%d" % pm.led_pin, chain[0] + ":DIN", "green", []])
    conns.append(["pico:VBUS", chain[0] + ":VDD", "red", []])
    conns.append(["pico:%s" % gnd_right, chain[0] + ":VSS", "black", []])
    for a, b in zip(chain[:-1], chain[1:], strict=True):
        conns.append([a + ":DOUT", b + ":DIN", "green", []])
        conns.append([a + ":VDD", b + ":VDD", "red", []])
        conns.append([a + ":VSS", b + ":VSS", "black", []])
    parts.append({"type": "wokwi-pushbutton", "id": "roll", "top": 70, "left": 220,
                  "attrs": {"color": "red", "label": "Roll", "key": "r"}})
    conns.append(["pico:GP%d" % pm.roll_pin, "roll:1.l", "green", []])
    conns.append(["roll:2.l", "pico:%s" % gnd_right, "black", []])
    parts.append({"type": "wokwi-buzzer", "id": "buzzer", "top": 60, "left": 360,
                  "attrs": {"volume": "0.1"}})
    conns.append(["pico:GP%d" % pm.buzzer_pin, "buzzer:2", "purple", []])
    conns.append(["buzzer:1", "pico:%s" % gnd_right, "black", []])
    # The serial console (game log, REPL) on UART0 when its pins are free.
    used = set(pm.roles())
    if not used & {0, 1}:
        conns.append(["pico:GP0", "$serialMonitor:RX", "", []])
        conns.append(["pico:GP1", "$serialMonitor:TX", "", []])
    return parts, conns


def render_wokwi_diagram(pm: PinMap) -> str:
    """Return hardware/wokwi/diagram.json: one part or connection per line."""
    parts, conns = wokwi_parts_and_connections(pm)
    lines = ["{", '  "version": 1,',
             '  "author": "shutbox (generated from hardware/pinmap.json by shutbox board)",',
             '  "editor": "wokwi",', '  "parts": [']
    lines += ["    %s%s" % (json.dumps(p, ensure_ascii=False), "," if i < len(parts) - 1 else "")
              for i, p in enumerate(parts)]
    lines += ["  ],", '  "connections": [']
    lines += ["    %s%s" % (json.dumps(cn), "," if i < len(conns) - 1 else "")
              for i, cn in enumerate(conns)]
    lines += ["  ],", '  "dependencies": {}', "}"]
    return "\n".join(lines) + "\n"


def render_wokwi_toml(pm: PinMap) -> str:
    """Return hardware/wokwi/wokwi.toml for Wokwi for VS Code (MicroPython from a .uf2)."""
    return (
        "# Wokwi for VS Code: the simulated %d-tile box. GENERATED by `shutbox board`.\n"
        "# Put the Pico's MicroPython image here as micropython.uf2 (see hardware/README.md),\n"
        "# start the simulator, then copy the firmware over the serial port on localhost:4000.\n"
        "[wokwi]\n"
        "version = 1\n"
        'firmware = "micropython.uf2"\n'
        'elf = "micropython.uf2"\n'
        "rfc2217ServerPort = 4000\n"
    ) % pm.tiles


# --- the command --------------------------------------------------------------------------------

def generate(pm: PinMap) -> dict:
    """Return {relative path: text} of every generated file."""
    return {
        PINS_PY: render_pins(pm),
        WIRING_SVG: render_svg(pm),
        BOM_CSV: render_bom(pm),
        WOKWI_DIAGRAM: render_wokwi_diagram(pm),
        WOKWI_TOML: render_wokwi_toml(pm),
    }


def stale(pm: PinMap, root) -> list:
    """Return the generated files under *root* that differ from a fresh generation."""
    root = Path(root)
    out = []
    for rel, text in generate(pm).items():
        path = root / rel
        try:
            current = path.read_text(encoding="utf-8")
        except OSError:
            current = None
        if current != text:
            out.append(rel)
    return out


def write(pm: PinMap, root) -> list:
    """Write every generated file under *root*; return the paths that changed."""
    root = Path(root)
    changed = []
    for rel, text in generate(pm).items():
        path = root / rel
        try:
            if path.read_text(encoding="utf-8") == text:
                continue
        except OSError:
            pass
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="\n")
        changed.append(rel)
    return changed


def configure(parser):
    """Add the board flags."""
    parser.add_argument("--check", action="store_true",
                        help="write nothing; fail if a generated file differs from the pin map")
    parser.add_argument("--pinmap", default=None, metavar="PATH",
                        help="pin map to read (default: hardware/pinmap.json under --root)")
    parser.add_argument("--board", default=None,
                        help="the Pico board to check the pins against: RPI_PICO, RPI_PICO_W, "
                             "RPI_PICO2, RPI_PICO2_W (default: the pin map's \"board\")")
    parser.add_argument("--root", default=str(ROOT), metavar="DIR",
                        help="repository folder the files are written under (default: this one)")


def run(args) -> int:
    """Generate (or check) every file derived from the pin map."""
    root = Path(args.root)
    pm = load(args.pinmap or root / PINMAP, args.board)
    if args.check:
        bad = stale(pm, root)
        for rel in bad:
            print("out of date: %s (run `shutbox board`)" % rel, file=sys.stderr)
        if not bad:
            print("%d generated files match %s" % (len(OUTPUTS), PINMAP))
        return 1 if bad else 0
    changed = write(pm, root)
    for rel in changed:
        print("wrote %s" % rel)
    if not changed:
        print("up to date: %d files" % len(OUTPUTS))
    print("%s: %d tiles, %d LEDs on GP%d, Roll on GP%d, buzzer on GP%d"
          % (pm.board.product, pm.tiles, pm.led_count, pm.led_pin, pm.roll_pin,
             pm.buzzer_pin))
    return 0
