# `shutbox enclosure`: the box's mechanical half (case, flipping tiles, switch mounts), build123d.
"""Build the parametric enclosure from hardware/enclosure.json and the pin map, check it, write it.

The box is six laser-cut panels (deck, base, four walls) held by printed corner posts; on the deck
a row of printed hinge posts carries two steel rods: the hinge rod the tiles pivot on and the rest
rod the open tiles lean against. Under the deck each tile has a printed cradle holding its lever
microswitch (slotted, so the switch can be set to its own operating point), its LED and a magnet
that keeps the shut tile down against the lever's spring. The dice pips have LED plates, the Roll
button and the power switch snap into the deck and a wall, the Pico sits on standoffs with its
USB socket behind an opening in the back wall.

`shutbox enclosure` writes the committed outputs (hardware/enclosure/: renders, drawing, cut
files, printable STLs, parts list) and the heavy ones (build/enclosure/: STEP of every part and
of the assembly); `--check` regenerates the committed ones and fails when any differs. The
geometric checks (valid solids, no collisions, lever travel, USB plug, print bed) are functions
here, run by the tests and by `--check`.
"""

from __future__ import annotations

import functools
import io
import json
import math
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from shutbox_host.errors import UserError, read_json

ROOT = Path(__file__).resolve().parents[3]
PARAMS = "hardware/enclosure.json"
PINMAP = "hardware/pinmap.json"
OUT = "hardware/enclosure"          # committed outputs, relative to the repository
BUILD = "build/enclosure"           # heavy outputs (STEP), written by `make enclosure`
TILE_COUNTS = (9, 10, 12)           # the tile counts the firmware ships tables for
FIXED_STAMP = "2000-01-01T00:00:00"  # STEP header time: fixed so a regeneration is byte-equal
TOL = 1e-3                          # mm^3: an intersection smaller than this is a touch


# --- the lever microswitch --------------------------------------------------------------------

@dataclass(frozen=True)
class Switch:
    """A hinge-lever microswitch; heights are above the mounting-hole centre line (datasheet)."""

    part: str
    source: str
    of_max: float        # N, operating force
    rf_min: float        # N, releasing force
    ot_min: float        # mm, overtravel past the operating position
    md_max: float        # mm, movement differential (release position = OP + MD at most)
    fp_max: float        # mm, free position
    op: float            # mm, operating position, nominal
    op_tol: float        # mm, +- on OP
    length: float        # body, along the lever
    height: float
    thickness: float
    screw: str
    # Modelled, not in the datasheet excerpt: see the comment of SWITCHES.
    hole_d: float = 2.1
    hole_pitch: float = 6.5
    hole_z: float = 1.5      # hole centres above the body's bottom
    pivot_in: float = 2.0    # lever pivot from the body's back end
    lever_len: float = 9.8   # pivot to the actuating point at the lever's end
    lever_w: float = 3.0
    lever_t: float = 0.3

    @property
    def top(self) -> float:
        """Height of the body's top above the hole centre line."""
        return self.height - self.hole_z

    @property
    def rp_max(self) -> float:
        """Highest release position: the lever must be let up past it for the switch to open."""
        return self.op + self.md_max

    def lever_height(self, angle: float) -> float:
        """Height of the actuating point for a lever raised *angle* degrees off the body."""
        return self.top + self.lever_t + self.lever_len * math.sin(math.radians(angle))

    def lever_angle(self, height: float) -> float:
        """Inverse of lever_height."""
        s = (height - self.top - self.lever_t) / self.lever_len
        return math.degrees(math.asin(max(-1.0, min(1.0, s))))


# Omron D2F hinge-lever models, from the Omron D2F datasheet ("Ultra Subminiature Basic Switch",
# Dimensions/Operating Characteristics, Hinge Lever Models D2F-L / D2F-01L / D2F-FL / D2F-01FL;
# also at datasheetandpdf.com/EN/OMRON/4/D2F_12.htm): OF max 0.78 N (L) or 0.25 N (FL),
# RF min 0.05 N (L) or 0.02 N (FL), OT min 0.55 mm, MD max 0.5 mm, FP max 10 mm,
# OP 6.8 +- 1.5 mm (so pretravel FP - OP is about 3.2 mm); body 12.8 x 6.5 x 5.8 mm; "use M2
# mounting screws"; lever t = 0.3 stainless steel. The 01 models are the micro-load ones (0.1 A),
# right for a GPIO with a 50 kohm pull-up. Modelled, not in that excerpt: mounting holes 2.1 mm
# at 6.5 mm pitch, their centres 1.5 mm above the bottom (the D2F-compatible Panasonic ABJ's
# drawing gives OP 6.8 from the mounting hole and 8.3 from the stand-off), the lever pivot 2 mm
# from the body's end and 9.8 mm from the actuating point, the lever 3 mm wide.
_D2F = dict(ot_min=0.55, md_max=0.5, fp_max=10.0, op=6.8, op_tol=1.5, length=12.8, height=6.5,
            thickness=5.8, screw="M2",
            source="Omron D2F datasheet, hinge lever models (D2F-L/-01L/-FL/-01FL)")
SWITCHES = {
    "omron-d2f-01fl": Switch(part="Omron D2F-01FL", of_max=0.25, rf_min=0.02, **_D2F),
    "omron-d2f-l": Switch(part="Omron D2F-L", of_max=0.78, rf_min=0.05, **_D2F),
}

# Other bought parts, as modelled.
PICO = dict(length=51.0, width=21.0, pcb=1.0, hole_d=2.1, hole_dx=47.0, hole_dy=11.4)  # datasheet
PICO_USB = dict(width=8.0, height=2.9, depth=5.5, overhang=1.3)   # micro-B socket, envelope
# Micro-USB spec 1.01: the Micro-B plug is 6.85 x 1.8 mm, its overmould at most 10.6 x 8.5 mm.
USB_PLUG = dict(width=6.85, height=1.8, mould_w=10.6, mould_h=8.5, mould_len=25.0)
LED = dict(chip=5.0, chip_h=1.6, pcb_h=1.6)   # WS2812B: 5.0 x 5.0 x 1.6 mm (Worldsemi datasheet)
STRIPBOARD = dict(length=70.0, width=50.0, pcb=1.6, parts_h=12.0, hole_inset=3.5)
# Envelopes (keep-out volumes, not datasheet figures): a 30 mm snap-in arcade button
# (Sanwa OBSF-30 class) and a snap-in mini rocker (KCD1 class) behind its cutout.
ROLL_BUTTON = dict(bezel_d=33.0, bezel_h=3.0, cap_d=24.0, cap_h=6.0, body_d=29.6, body_h=22.0,
                   switch=(20.0, 13.0, 11.0))
POWER_SWITCH_DEPTH = 22.0
STANDOFF_AF = {"M2": 4.0, "M2.5": 5.0}


# --- parameters ---------------------------------------------------------------------------------

# key -> (minimum, maximum, what it is); all numbers in mm unless said. Cross-checks in _check.
NUMBERS = {
    "printer_min_wall": (0.3, 3.0, "the thinnest wall the printer makes"),
    "material_thickness": (2.0, 6.0, "laser-cut panel thickness"),
    "inner_height": (30.0, 120.0, "inside height from base to deck"),
    "side_margin": (4.0, 60.0, "from the inner side wall to the first hinge post"),
    "front_margin": (4.0, 60.0, "from the inner front wall to the dice"),
    "back_margin": (2.0, 60.0, "from the rest rod to the inner back wall"),
    "tile_width": (4.0, 60.0, "tile width"),
    "tile_pitch": (10.0, 80.0, "tile centre to centre"),
    "tile_length": (20.0, 80.0, "hinge axis to tile tip"),
    "tile_thickness": (3.0, 12.0, "tile thickness"),
    "tile_lean": (3.0, 30.0, "degrees an open tile leans back past upright"),
    "tile_side_clearance": (0.1, 3.0, "gap each side between a tile and its hinge posts"),
    "hinge_rod_diameter": (1.5, 6.0, "steel rod for the hinge and the rest"),
    "rod_clearance": (0.05, 1.0, "bore over the rod's diameter"),
    "boss_depth": (0.5, 10.0, "how far the tile's boss reaches into the deck"),
    "boss_radius": (4.0, 60.0, "hinge axis to the centre of the tile's boss"),
    "overtravel": (0.05, 5.0, "how far a shut tile presses the lever past its operating point"),
    "window_clearance": (0.2, 5.0, "gap around the boss and lever in the deck window"),
    "magnet_diameter": (2.0, 15.0, "disc magnet diameter"),
    "magnet_thickness": (1.0, 6.0, "disc magnet thickness"),
    "fit_clearance": (0.05, 1.0, "gap for a part in a pocket"),
    "led_board_diameter": (6.0, 20.0, "round WS2812B breakout diameter"),
    "led_window": (2.0, 15.0, "hole over a tile LED"),
    "pip_pitch": (6.0, 30.0, "distance between die pips"),
    "pip_window": (2.0, 20.0, "hole over a pip LED"),
    "roll_hole": (12.0, 40.0, "Roll button mounting hole"),
    "usb_clearance": (0.1, 3.0, "gap around the USB plug's overmould in the back wall"),
    "standoff_height": (3.0, 20.0, "height of the Pico's and the wiring board's standoffs"),
}
PAIRS = {"printer_bed": (50.0, 1000.0, "printer bed size X, Y"),
         "power_cutout": (5.0, 40.0, "power switch panel cutout, width and height")}
KEYS = set(NUMBERS) | set(PAIRS) | {"switch", "_comment"}


@dataclass
class Params:
    """Validated parameters: attribute per key of enclosure.json, the switch resolved."""

    values: dict
    switch: Switch
    source: str = PARAMS

    def __getattr__(self, name):
        try:
            return self.__dict__["values"][name]
        except KeyError:
            raise AttributeError(name) from None


def parse(data, source=PARAMS) -> Params:
    """Validate the decoded parameter file; every mistake is a one-line UserError."""
    if not isinstance(data, dict):
        raise UserError("%s: expected a JSON object" % source)
    unknown = sorted(set(data) - KEYS)
    if unknown:
        raise UserError("%s: unknown key %r (known: %s)"
                        % (source, unknown[0], ", ".join(sorted(KEYS - {"_comment"}))))
    values = {}
    for key, (lo, hi, what) in NUMBERS.items():
        if key not in data:
            raise UserError("%s: missing key %r (%s)" % (source, key, what))
        v = data[key]
        if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v):
            raise UserError("%s: %s must be a number (%s), not %r" % (source, key, what, v))
        if not lo <= v <= hi:
            raise UserError("%s: %s = %g is outside %g..%g (%s)" % (source, key, v, lo, hi, what))
        values[key] = float(v)
    for key, (lo, hi, what) in PAIRS.items():
        if key not in data:
            raise UserError("%s: missing key %r (%s)" % (source, key, what))
        v = data[key]
        if (not isinstance(v, list) or len(v) != 2 or not all(
                isinstance(x, (int, float)) and not isinstance(x, bool) for x in v)):
            raise UserError("%s: %s must be two numbers (%s), not %r" % (source, key, what, v))
        if not all(lo <= x <= hi for x in v):
            raise UserError("%s: %s = %r is outside %g..%g (%s)" % (source, key, v, lo, hi, what))
        values[key] = (float(v[0]), float(v[1]))
    name = data.get("switch")
    if name not in SWITCHES:
        raise UserError("%s: switch must be one of %s, not %r"
                        % (source, ", ".join(sorted(SWITCHES)), name))
    p = Params(values, SWITCHES[name], source)
    _check(p)
    return p


def _need(ok, source, text):
    if not ok:
        raise UserError("%s: %s" % (source, text))


def _check(p: Params) -> None:
    """Cross-checks between values: what cannot be built, named with its limit."""
    s, sw, wall = p.source, p.switch, p.printer_min_wall
    _need(p.material_thickness >= wall, s, "material_thickness = %g is thinner than "
          "printer_min_wall = %g" % (p.material_thickness, wall))
    need_w = max(sw.thickness, sw.lever_w + 2 * p.window_clearance) + 2 * wall
    _need(p.tile_width >= need_w, s, "tile_width = %g is narrower than its switch: at least %g "
          "(the %s is %g thick, plus walls of printer_min_wall)"
          % (p.tile_width, need_w, sw.part, sw.thickness))
    post = p.tile_pitch - p.tile_width - 2 * p.tile_side_clearance
    _need(post >= 2 * wall, s, "tile_pitch = %g leaves hinge posts %g wide; at least %g "
          "(tile_width + 2 x tile_side_clearance + 2 x printer_min_wall)"
          % (p.tile_pitch, post, p.tile_width + 2 * p.tile_side_clearance + 2 * wall))
    bore = p.hinge_rod_diameter + p.rod_clearance
    skin = (p.tile_thickness - bore) / 2
    _need(skin >= wall, s, "tile_thickness = %g leaves %.2f around the hinge bore; at least "
          "%g (hinge_rod_diameter + rod_clearance + 2 x printer_min_wall)"
          % (p.tile_thickness, skin, bore + 2 * wall))
    _need(p.tile_thickness - p.magnet_thickness - p.fit_clearance >= wall, s,
          "magnet_thickness = %g leaves less than printer_min_wall over the magnet in a %g tile"
          % (p.magnet_thickness, p.tile_thickness))
    _need(abs(p.magnet_thickness - p.material_thickness) < 1e-9, s,
          "magnet_thickness = %g must equal material_thickness = %g (the deck magnet sits "
          "flush in a hole through the deck)" % (p.magnet_thickness, p.material_thickness))
    _need(p.overtravel <= sw.ot_min, s, "overtravel = %g is more than the %s's guaranteed "
          "overtravel OT min %g" % (p.overtravel, sw.part, sw.ot_min))
    # The switch body must sit below the deck: hole centre = deck top - boss - (OP - overtravel).
    below = p.boss_depth + sw.op - p.overtravel - sw.top
    _need(below >= p.material_thickness + 0.5, s, "boss_depth = %g puts the switch body into "
          "the deck: at least %g" % (p.boss_depth, p.boss_depth + p.material_thickness + 0.5
                                     - below))
    _need(p.boss_depth < p.material_thickness + 8, s, "boss_depth = %g is too long" % p.boss_depth)
    pips = p.pip_pitch - p.led_board_diameter - 2 * p.fit_clearance
    _need(pips >= wall, s, "pip_pitch = %g leaves %.2f between LED boards; at least %g "
          "(led_board_diameter + 2 x fit_clearance + printer_min_wall)"
          % (p.pip_pitch, pips, p.led_board_diameter + 2 * p.fit_clearance + wall))
    _need(p.led_window <= p.led_board_diameter and p.pip_window <= p.led_board_diameter, s,
          "led_window and pip_window must not exceed led_board_diameter = %g"
          % p.led_board_diameter)
    reach = p.boss_radius + 7
    _need(p.tile_length >= reach + p.magnet_diameter + 2, s, "tile_length = %g is too short "
          "for the boss and the magnet: at least %g"
          % (p.tile_length, reach + p.magnet_diameter + 2))
    _need(p.inner_height >= 30, s, "inner_height too small")


def load(path) -> Params:
    """Read and validate a parameter file."""
    _, data = read_json(path)
    return parse(data, str(path))


# --- layout: every position, computed once from the parameters --------------------------------

@dataclass
class Layout:
    """Positions of everything; x along the tile row, y from the front, z up; origin at the
    front-left bottom corner of the base."""

    p: Params
    tiles: int
    v: dict = field(default_factory=dict)

    def __post_init__(self):
        p, sw, t = self.p, self.p.switch, self.p.material_thickness
        self.t = t
        self.zb = t + p.inner_height           # deck bottom
        self.zt = self.zb + t                  # deck top
        self.post_w = p.tile_pitch - p.tile_width - 2 * p.tile_side_clearance
        self.x0 = t + p.side_margin + self.post_w / 2     # first hinge post's centre
        self.width = 2 * self.x0 + self.tiles * p.tile_pitch
        # y, front to back: dice, tile LEDs, shut tiles, hinge axis, rest rod
        self.die = 3 * p.pip_pitch + p.pip_window          # square around a die's pips
        self.plate = 2 * p.pip_pitch + p.led_board_diameter + 8.0   # a die's LED plate
        self.y_dice = t + p.front_margin + self.plate / 2
        self.y_led = self.y_dice + self.plate / 2 + 8.0
        self.y_hinge = self.y_led + p.led_board_diameter / 2 + 4.0 + p.tile_length
        self.z_hinge = self.zt + p.tile_thickness / 2
        self.r_rod = p.hinge_rod_diameter / 2
        lean = math.radians(p.tile_lean)
        self.u_rest = 0.6 * p.tile_length      # where along the open tile the rest rod touches
        off = p.tile_thickness / 2 + self.r_rod + 0.02
        self.y_rest = self.y_hinge + self.u_rest * math.sin(lean) + off * math.cos(lean)
        self.z_rest = self.z_hinge + self.u_rest * math.cos(lean) - off * math.sin(lean)
        self.depth = math.ceil(self.y_rest + self.r_rod + 3.0 + p.back_margin + t)
        self.height = self.zt
        # the switch under each tile: its lever's end under the tile's boss
        self.h_shut = sw.op - p.overtravel     # actuating height when shut (design)
        self.z_hole = self.zt - p.boss_depth - self.h_shut
        self.a_shut = sw.lever_angle(self.h_shut)
        self.a_free = sw.lever_angle(sw.fp_max)
        self.y_boss = self.y_hinge - p.boss_radius
        # lever points back (+y): pivot in front of the boss
        self.y_pivot = self.y_boss - sw.lever_len * math.cos(math.radians(self.a_shut))
        self.y_switch = self.y_pivot + sw.length / 2 - sw.pivot_in   # body centre
        self.y_magnet = self.y_hinge - p.tile_length + p.magnet_diameter / 2 + 2.5
        # the front row: dice A and B, then Roll
        mid = self.width / 2
        self.x_dice = (mid - 55.0, mid - 5.0)
        self.x_roll = mid + 55.0
        self.y_roll = self.y_dice
        # Pico at the back right, USB towards the back wall; wiring board at the back left
        self.pico_x = self.width - t - 20.0 - PICO["width"]
        self.usb_face = self.depth - t - 1.0          # socket's face, 1 mm inside the wall
        self.pico_y1 = self.usb_face - PICO_USB["overhang"]
        self.pico_z = t + p.standoff_height
        self.usb_z = self.pico_z + PICO["pcb"] + PICO_USB["height"] / 2
        self.board_x = t + 17.0
        self.board_y1 = self.depth - t - 10.0
        self.y_power = t + 30.0
        self.z_power = t + p.inner_height / 2

    def tile_x(self, k: int) -> float:
        """Centre x of tile k (1-based)."""
        return self.x0 + (k - 0.5) * self.p.tile_pitch

    def post_x(self, i: int) -> float:
        """Centre x of hinge post i (0..tiles)."""
        return self.x0 + i * self.p.tile_pitch

    def pips(self, d: int):
        """(x, y) of the 7 pips of die d in chain order (pinmap.json: top-left ... bottom-right);
        the die's top is towards the back of the box."""
        s, cx, cy = self.p.pip_pitch, self.x_dice[d], self.y_dice
        grid = ((-1, 1), (1, 1), (-1, 0), (0, 0), (1, 0), (-1, -1), (1, -1))
        return [(cx + i * s, cy + j * s) for i, j in grid]


# --- 2D panels (laser cut): one description gives the solid, the SVG and the DXF ---------------

@dataclass
class Flat:
    """A flat part: outline w x h and holes, as ('rect', cx, cy, w, h) or ('circle', cx, cy, d),
    plus engraving polylines; local 2D coordinates, origin at the lower left corner."""

    name: str
    w: float
    h: float
    holes: list = field(default_factory=list)
    engrave: list = field(default_factory=list)

    def cut_length(self) -> float:
        """Total laser path: outline and every hole."""
        n = 2 * (self.w + self.h)
        for hole in self.holes:
            n += math.pi * hole[3] if hole[0] == "circle" else 2 * (hole[3] + hole[4])
        return n


def _digit_segments(ch: str, x: float, y: float, w: float, h: float) -> list:
    """Seven-segment strokes of one digit as polylines [(x, y), ...], lower left at (x, y)."""
    segs = {"a": ((0, 1), (1, 1)), "b": ((1, 1), (1, .5)), "c": ((1, .5), (1, 0)),
            "d": ((0, 0), (1, 0)), "e": ((0, 0), (0, .5)), "f": ((0, .5), (0, 1)),
            "g": ((0, .5), (1, .5))}
    lit = {"0": "abcdef", "1": "bc", "2": "abged", "3": "abgcd", "4": "fgbc", "5": "afgcd",
           "6": "afgedc", "7": "abc", "8": "abcdefg", "9": "abcdfg"}[ch]
    return [[(x + a * w, y + b * h) for a, b in segs[s]] for s in lit]


def number_strokes(n: int, cx: float, cy: float, h: float) -> list:
    """Polylines of the number n, centred at (cx, cy), digits h tall."""
    text = str(n)
    w, gap = h * 0.5, h * 0.25
    total = len(text) * w + (len(text) - 1) * gap
    out = []
    for i, ch in enumerate(text):
        out += _digit_segments(ch, cx - total / 2 + i * (w + gap), cy - h / 2, w, h)
    return out


def flats(lay: Layout) -> list:
    """The six laser-cut panels with every hole, in panel coordinates."""
    p, t, W, D = lay.p, lay.t, lay.width, lay.depth
    deck = Flat("deck", W, D)
    base = Flat("base", W, D)
    corner = [(t + 5, t + 5), (W - t - 5, t + 5), (t + 5, D - t - 5), (W - t - 5, D - t - 5)]
    for x, y in corner:
        deck.holes.append(("circle", x, y, 3.4))
        base.holes.append(("circle", x, y, 3.4))
    sw, c = p.switch, p.window_clearance
    win_w = max(4.0, sw.lever_w) + 2 * c
    # the lever crosses the deck's underside this far from its pivot at the free position
    z_pivot = lay.z_hole + sw.top + sw.lever_t
    cross = (lay.zb - z_pivot) / math.sin(math.radians(lay.a_free))
    y_w0 = lay.y_pivot + max(0.0, cross) * math.cos(math.radians(lay.a_free)) - c
    y_w1 = lay.y_boss + 1.0 + c
    for k in range(1, lay.tiles + 1):
        cx = lay.tile_x(k)
        deck.holes.append(("rect", cx, (y_w0 + y_w1) / 2, win_w, y_w1 - y_w0))
        deck.holes.append(("circle", cx, lay.y_magnet, p.magnet_diameter + p.fit_clearance / 2))
        deck.holes.append(("circle", cx, lay.y_led, p.led_window))
        for dx in (-1, 1):
            deck.holes.append(("circle", cx + dx * _cradle_screw_dx(lay), lay.y_led, 3.4))
        deck.engrave += number_strokes(k, cx, lay.y_led - p.led_board_diameter / 2 - 6.0, 6.0)
    for i in range(lay.tiles + 1):
        deck.holes.append(("circle", lay.post_x(i), lay.y_rest, 3.4))
        deck.holes.append(("circle", lay.post_x(i), lay.y_hinge - 2.5, 3.4))
    for d in range(2):
        for x, y in lay.pips(d):
            deck.holes.append(("circle", x, y, p.pip_window))
        cx, cy, half = lay.x_dice[d], lay.y_dice, lay.die / 2
        deck.engrave.append([(cx - half, cy - half), (cx + half, cy - half),
                             (cx + half, cy + half), (cx - half, cy + half),
                             (cx - half, cy - half)])
        for sx, sy in _plate_screws(lay, d):
            deck.holes.append(("circle", sx, sy, 3.4))
    deck.holes.append(("circle", lay.x_roll, lay.y_roll, p.roll_hole))
    # base: standoffs of the Pico (M2) and of the wiring board (M2.5)
    for x, y in _pico_holes(lay):
        base.holes.append(("circle", x, y, 2.4))
    for x, y in _board_holes(lay):
        base.holes.append(("circle", x, y, 2.9))
    h = p.inner_height
    front = Flat("front", W, h)
    back = Flat("back", W, h)
    bw = USB_PLUG["mould_w"] + 2 * p.usb_clearance
    bh = USB_PLUG["mould_h"] + 2 * p.usb_clearance
    # the back wall seen from behind: x mirrored
    back.holes.append(("rect", W - _usb_x(lay), lay.usb_z - t, bw, bh))
    left = Flat("left", D - 2 * t, h)
    right = Flat("right", D - 2 * t, h)
    pw, ph = p.power_cutout
    right.holes.append(("rect", lay.y_power - t, lay.z_power - t, pw, ph))
    return [deck, base, front, back, left, right]


def _cradle_screw_dx(lay: Layout) -> float:
    return lay.p.led_board_diameter / 2 + lay.p.fit_clearance + 2.0 + 1.7


def _plate_screws(lay: Layout, d: int):
    half = lay.plate / 2 - 3.5
    cx, cy = lay.x_dice[d], lay.y_dice
    return [(cx - half, cy + half), (cx + half, cy - half)]


def _usb_x(lay: Layout) -> float:
    return lay.pico_x + PICO["width"] / 2


def _pico_holes(lay: Layout):
    x0 = lay.pico_x + (PICO["width"] - PICO["hole_dy"]) / 2
    y0 = lay.pico_y1 - (PICO["length"] - PICO["hole_dx"]) / 2
    return [(x0 + i * PICO["hole_dy"], y0 - j * PICO["hole_dx"]) for j in (0, 1) for i in (0, 1)]


def _board_holes(lay: Layout):
    b, i = STRIPBOARD, STRIPBOARD["hole_inset"]
    x0, y1 = lay.board_x, lay.board_y1
    return [(x0 + i, y1 - i), (x0 + b["length"] - i, y1 - i), (x0 + i, y1 - b["width"] + i),
            (x0 + b["length"] - i, y1 - b["width"] + i)]


# --- solids -------------------------------------------------------------------------------------

@dataclass
class Item:
    """One part of the assembly: its solid, what it is and how it is made."""

    name: str
    shape: object
    kind: str            # "cut", "printed" or "bought"
    part: str            # the part it is an instance of (one STL/STEP per part)
    colour: tuple
    group: str           # for the exploded view


COLOURS = {"panel": (0.80, 0.66, 0.46), "tile": (0.96, 0.93, 0.84), "print": (0.30, 0.45, 0.70),
           "post": (0.35, 0.35, 0.40), "steel": (0.72, 0.74, 0.78), "switch": (0.15, 0.15, 0.15),
           "lever": (0.85, 0.85, 0.88), "led": (0.95, 0.95, 0.95), "pcb": (0.10, 0.45, 0.20),
           "pico": (0.12, 0.55, 0.25), "button": (0.85, 0.15, 0.12), "magnet": (0.55, 0.55, 0.6),
           "brass": (0.80, 0.65, 0.25), "usb": (0.2, 0.2, 0.2)}


def _bd():
    """Import build123d on first use (it takes seconds): the CLI stays quick for other commands."""
    import build123d
    return build123d


def _box(x0, x1, y0, y1, z0, z1):
    bd = _bd()
    return bd.Pos(x0, y0, z0) * bd.Box(x1 - x0, y1 - y0, z1 - z0,
                                       align=(bd.Align.MIN, bd.Align.MIN, bd.Align.MIN))


def _cyl_z(x, y, z0, z1, d):
    bd = _bd()
    return bd.Pos(x, y, z0) * bd.Cylinder(d / 2, z1 - z0, align=(bd.Align.CENTER, bd.Align.CENTER,
                                                                  bd.Align.MIN))


def _cyl_x(x0, x1, y, z, d):
    bd = _bd()
    return bd.Pos(x0, y, z) * bd.Rot(0, 90, 0) * bd.Cylinder(
        d / 2, x1 - x0, align=(bd.Align.CENTER, bd.Align.CENTER, bd.Align.MIN))


def _cyl_y(x, y0, y1, z, d):
    bd = _bd()
    return bd.Pos(x, y0, z) * bd.Rot(-90, 0, 0) * bd.Cylinder(
        d / 2, y1 - y0, align=(bd.Align.CENTER, bd.Align.CENTER, bd.Align.MIN))


def _hex_z(x, y, z0, z1, af):
    bd = _bd()
    return bd.Pos(x, y, z0) * bd.extrude(bd.RegularPolygon(af / math.sqrt(3), 6), z1 - z0)


def flat_solid(f: Flat, t: float):
    """Extrude a flat part *t* thick (in its own 2D frame, thickness along +z from 0)."""
    bd = _bd()
    solid = _box(0, f.w, 0, f.h, 0, t)
    cuts = []
    for hole in f.holes:
        if hole[0] == "circle":
            cuts.append(_cyl_z(hole[1], hole[2], -1, t + 1, hole[3]))
        else:
            _, cx, cy, w, h = hole
            cuts.append(_box(cx - w / 2, cx + w / 2, cy - h / 2, cy + h / 2, -1, t + 1))
    if cuts:
        solid = solid - bd.Compound(children=cuts) if len(cuts) > 1 else solid - cuts[0]
    return solid


def _place_flat(f: Flat, lay: Layout):
    """The panel's solid moved to its place in the box."""
    bd = _bd()
    s, t, W, D = flat_solid(f, lay.t), lay.t, lay.width, lay.depth
    if f.name == "base":
        return s
    if f.name == "deck":
        return bd.Pos(0, 0, lay.zb) * s
    up = bd.Rot(90, 0, 0)      # panel (x, y, thickness) -> (x, -thickness, y): stood up
    if f.name == "front":
        return bd.Pos(0, t, t) * up * s
    if f.name == "back":       # seen from behind: panel x runs along -x
        return bd.Pos(W, D - t, t) * bd.Rot(0, 0, 180) * up * s
    turn = bd.Rot(0, 0, 90) * up   # panel x -> y, thickness -> x
    if f.name == "left":
        return bd.Pos(0, t, t) * turn * s
    return bd.Pos(W - t, t, t) * turn * s


def tile_solid(lay: Layout, k: int):
    """Tile k, shut (lying on the deck, tip to the front); its number on the underside."""
    bd = _bd()
    p, cx = lay.p, lay.tile_x(k)
    w, t, L = p.tile_width, p.tile_thickness, p.tile_length
    x0, x1 = cx - w / 2, cx + w / 2
    yh, zh, zt = lay.y_hinge, lay.z_hinge, lay.zt
    body = _box(x0, x1, yh - L, yh, zt, zt + t) + _cyl_x(x0, x1, yh, zh, t)
    sw = p.switch
    tip = lay.y_boss
    boss = _box(cx - 2.0, cx + 2.0, tip - 3.0, tip + 1.0, zt - p.boss_depth, zt + 0.01)
    body = body + boss
    cuts = [_cyl_x(x0 - 1, x1 + 1, yh, zh, p.hinge_rod_diameter + p.rod_clearance),
            _cyl_z(cx, lay.y_magnet, zt - 1, zt + p.magnet_thickness + p.fit_clearance,
                   p.magnet_diameter + p.fit_clearance)]
    # a nail notch under the tip, to lift a shut tile
    notch = bd.Pos(cx, yh - L, zt) * bd.Rot(45, 0, 0) * bd.Box(w - 4, 2.0, 2.0)
    cuts.append(notch)
    # the number, grooved 0.6 mm into the underside (facing the player when the tile is up)
    u0 = p.boss_radius + 3.5 + (L - p.boss_radius - 3.5 - p.magnet_diameter - 4.5) / 2
    hgt = min(14.0, L - p.boss_radius - p.magnet_diameter - 9.0)
    for stroke in number_strokes(k, 0.0, 0.0, hgt):
        (a0, b0), (a1, b1) = stroke
        xa, xb = sorted((cx + a0, cx + a1))
        ya, yb = sorted((yh - u0 - b0, yh - u0 - b1))
        cuts.append(_box(xa - 0.6, xb + 0.6, ya - 0.6, yb + 0.6, zt - 1, zt + 0.6))
    del sw
    return body - bd.Compound(children=cuts)


def tile_pose(lay: Layout, shape, shut: bool):
    """Return the tile moved to its shut or open (leaning back on the rest rod) position."""
    if shut:
        return shape
    bd = _bd()
    axis = bd.Axis((0, lay.y_hinge, lay.z_hinge), (1, 0, 0))
    return shape.rotate(axis, -(90.0 + lay.p.tile_lean))


def tile_at(lay: Layout, shape, angle: float):
    """The tile raised *angle* degrees from shut (for the sweep check)."""
    bd = _bd()
    return shape.rotate(bd.Axis((0, lay.y_hinge, lay.z_hinge), (1, 0, 0)), -angle)


def switch_solids(lay: Layout, k: int, angle: float):
    """(body, lever) of tile k's microswitch, the lever raised *angle* degrees."""
    bd = _bd()
    sw, cx = lay.p.switch, lay.tile_x(k)
    ys, zh = lay.y_switch, lay.z_hole
    y0 = ys - sw.length / 2
    body = _box(cx - sw.thickness / 2, cx + sw.thickness / 2, y0, y0 + sw.length,
                zh - sw.hole_z, zh + sw.top)
    holes = [_cyl_x(cx - 5, cx + 5, ys + dy, zh, sw.hole_d)
             for dy in (-sw.hole_pitch / 2, sw.hole_pitch / 2)]
    body = body - bd.Compound(children=holes)
    zp = zh + sw.top + sw.lever_t
    yp = y0 + sw.pivot_in
    lever = _box(cx - sw.lever_w / 2, cx + sw.lever_w / 2, yp, yp + sw.lever_len,
                 zp - sw.lever_t, zp)
    lever = lever.rotate(bd.Axis((0, yp, zp), (1, 0, 0)), angle)
    return body, lever


def lever_tip_height(lay: Layout, angle: float) -> float:
    """Actuating height (above the hole centres) of the lever at *angle*."""
    return lay.p.switch.lever_height(angle)


def cradle_solid(lay: Layout, k: int):
    """Tile k's printed cradle: flange under the deck (LED pocket, switch window), switch web."""
    bd = _bd()
    p, sw, cx = lay.p, lay.p.switch, lay.tile_x(k)
    fw = p.tile_pitch - 0.6
    zb, ft = lay.zb, 5.0
    y0 = lay.y_led - p.led_board_diameter / 2 - 3.0
    y_sw0 = lay.y_switch - sw.length / 2
    y1 = y_sw0 + sw.length + 3.0
    flange = _box(cx - fw / 2, cx + fw / 2, y0, y1, zb - ft, zb)
    web_x0 = cx + sw.thickness / 2
    web_x1 = web_x0 + 3.0
    z_web0 = lay.z_hole - sw.hole_z - 4.0
    web = _box(web_x0, web_x1, y_sw0 - 2.0, y1, z_web0, zb - ft + 0.01)
    solid = flange + web
    c = p.fit_clearance
    led_stack = LED["pcb_h"] + LED["chip_h"] + c
    cuts = [
        _cyl_z(cx, lay.y_led, zb - led_stack, zb + 1, p.led_board_diameter + 2 * c),
        _cyl_z(cx, lay.y_led, zb - ft - 1, zb, p.led_board_diameter - 3.0),
        # room for the switch body and its lever, through the flange
        _box(cx - sw.thickness / 2 - 0.8, web_x0, y_sw0 - 0.8, y_sw0 + sw.length + 0.8,
             zb - ft - 1, zb + 1),
    ]
    for dx in (-1, 1):
        cuts.append(_cyl_z(cx + dx * _cradle_screw_dx(lay), lay.y_led, zb - ft - 1, zb + 1, 2.5))
    # slots for the switch's M2 screws: the switch slides +-OP tolerance to meet its own OP
    slot = 2 * sw.op_tol
    for dy in (-sw.hole_pitch / 2, sw.hole_pitch / 2):
        y = lay.y_switch + dy
        cuts.append(_box(web_x0 - 1, web_x1 + 1, y - 1.1, y + 1.1,
                         lay.z_hole - slot / 2, lay.z_hole + slot / 2))
        for z in (lay.z_hole - slot / 2, lay.z_hole + slot / 2):
            cuts.append(_cyl_x(web_x0 - 1, web_x1 + 1, y, z, 2.2))
    return solid - bd.Compound(children=cuts)


def cradle_slot(lay: Layout) -> tuple:
    """(lowest, highest) hole-centre height the cradle's slots allow, relative to the design."""
    return (-lay.p.switch.op_tol, lay.p.switch.op_tol)


def post_solid(lay: Layout, i: int):
    """Hinge post i: holds the hinge rod and, higher and behind, the rest rod."""
    bd = _bd()
    p, x = lay.p, lay.post_x(i)
    w = lay.post_w
    x0, x1 = x - w / 2, x + w / 2
    r = lay.r_rod + 2.0
    yh, zh, yr, zr = lay.y_hinge, lay.z_hinge, lay.y_rest, lay.z_rest
    zt = lay.zt
    low = _box(x0, x1, yh - 5.0, yr + r, zt, zh + r)
    col = _box(x0, x1, yr - r, yr + r, zt, zr)
    solid = low + col + _cyl_x(x0, x1, yr, zr, 2 * r)
    bore = p.hinge_rod_diameter + p.rod_clearance
    cuts = [_cyl_x(x0 - 1, x1 + 1, yh, zh, bore), _cyl_x(x0 - 1, x1 + 1, yr, zr, bore),
            _cyl_z(x, yr, zt - 1, zt + 10, 2.5), _cyl_z(x, yh - 2.5, zt - 1, zt + 5, 2.5)]
    return solid - bd.Compound(children=cuts)


def corner_solid(lay: Layout, x: float, y: float):
    """A printed corner post the panels screw into (M3 self-tapping, top and bottom)."""
    bd = _bd()
    t, h = lay.t, lay.p.inner_height
    s = 10.0
    sx = t if x < lay.width / 2 else lay.width - t - s
    sy = t if y < lay.depth / 2 else lay.depth - t - s
    solid = _box(sx, sx + s, sy, sy + s, t, t + h)
    cx, cy = sx + s / 2, sy + s / 2
    return solid - bd.Compound(children=[_cyl_z(cx, cy, t - 1, t + 12, 2.5),
                                         _cyl_z(cx, cy, t + h - 12, t + h + 1, 2.5)])


def dice_plate_solid(lay: Layout, d: int):
    """Die d's LED plate under the deck: a pocket per pip."""
    bd = _bd()
    p, cx, cy, s = lay.p, lay.x_dice[d], lay.y_dice, lay.plate / 2
    zb, ft = lay.zb, 5.0
    solid = _box(cx - s, cx + s, cy - s, cy + s, zb - ft, zb)
    c = p.fit_clearance
    led_stack = LED["pcb_h"] + LED["chip_h"] + c
    cuts = []
    for x, y in lay.pips(d):
        cuts.append(_cyl_z(x, y, zb - led_stack, zb + 1, p.led_board_diameter + 2 * c))
        cuts.append(_cyl_z(x, y, zb - ft - 1, zb, p.led_board_diameter - 3.0))
    for x, y in _plate_screws(lay, d):
        cuts.append(_cyl_z(x, y, zb - ft - 1, zb + 1, 2.5))
    return solid - bd.Compound(children=cuts)


def led_solid(lay: Layout, x: float, y: float):
    """A round WS2812B breakout sitting in its pocket, the LED facing up into the window."""
    p, c = lay.p, lay.p.fit_clearance
    z0 = lay.zb - LED["pcb_h"] - LED["chip_h"] - c
    pcb = _cyl_z(x, y, z0, z0 + LED["pcb_h"], p.led_board_diameter)
    h = LED["chip"] / 2
    chip = _box(x - h, x + h, y - h, y + h, z0 + LED["pcb_h"], z0 + LED["pcb_h"] + LED["chip_h"])
    return pcb + chip


def magnet_solid(x, y, z0, d, t):
    return _cyl_z(x, y, z0, z0 + t, d)


def rod_solid(lay: Layout, y: float, z: float):
    """A steel rod through every hinge post (its ends flush with the end posts)."""
    return _cyl_x(lay.post_x(0) - lay.post_w / 2, lay.post_x(lay.tiles) + lay.post_w / 2, y, z,
                  lay.p.hinge_rod_diameter)


def rod_length(lay: Layout) -> float:
    return lay.post_x(lay.tiles) - lay.post_x(0) + lay.post_w


def pico_solid(lay: Layout):
    """The Pico: board (with its four holes) and the micro-USB socket at the back edge."""
    bd = _bd()
    x0, y1, z0 = lay.pico_x, lay.pico_y1, lay.pico_z
    board = _box(x0, x0 + PICO["width"], y1 - PICO["length"], y1, z0, z0 + PICO["pcb"])
    holes = [_cyl_z(x, y, z0 - 1, z0 + 2, PICO["hole_d"]) for x, y in _pico_holes(lay)]
    board = board - bd.Compound(children=holes)
    u, xc = PICO_USB, _usb_x(lay)
    z1 = z0 + PICO["pcb"]
    sock = _box(xc - u["width"] / 2, xc + u["width"] / 2, lay.usb_face - u["depth"],
                lay.usb_face, z1, z1 + u["height"])
    return board + sock


def usb_plug_solid(lay: Layout):
    """A micro-B plug seated in the Pico's socket: its overmould from the socket's face out."""
    u, xc, zc = USB_PLUG, _usb_x(lay), lay.usb_z
    y = lay.usb_face
    return _box(xc - u["mould_w"] / 2, xc + u["mould_w"] / 2, y, y + u["mould_len"],
                zc - u["mould_h"] / 2, zc + u["mould_h"] / 2)


def standoff_solids(lay: Layout):
    """(name, solid, thread) of the standoffs on the base: the Pico's and the wiring board's."""
    t, h = lay.t, lay.p.standoff_height
    out = [("standoff_m2_%d" % i, _hex_z(x, y, t, t + h, STANDOFF_AF["M2"]), "M2")
           for i, (x, y) in enumerate(_pico_holes(lay))]
    out += [("standoff_m25_%d" % i, _hex_z(x, y, t, t + h, STANDOFF_AF["M2.5"]), "M2.5")
            for i, (x, y) in enumerate(_board_holes(lay))]
    return out


def board_solid(lay: Layout):
    """The wiring board (stripboard) and the keep-out of the parts soldered on it."""
    b, z0 = STRIPBOARD, lay.t + lay.p.standoff_height
    x0, y1 = lay.board_x, lay.board_y1
    pcb = _box(x0, x0 + b["length"], y1 - b["width"], y1, z0, z0 + b["pcb"])
    parts = _box(x0 + 8, x0 + b["length"] - 8, y1 - b["width"] + 8, y1 - 8, z0 + b["pcb"],
                 z0 + b["pcb"] + b["parts_h"])
    return pcb + parts


def roll_solid(lay: Layout):
    """Envelope of the Roll button: bezel and cap above the deck, body and switch below."""
    r, x, y, zt = ROLL_BUTTON, lay.x_roll, lay.y_roll, lay.zt
    top = _cyl_z(x, y, zt, zt + r["bezel_h"], r["bezel_d"]) + _cyl_z(
        x, y, zt + r["bezel_h"], zt + r["bezel_h"] + r["cap_h"], r["cap_d"])
    body = _cyl_z(x, y, zt - r["body_h"], zt, r["body_d"])
    sx, sy, sz = r["switch"]
    sw = _box(x - sx / 2, x + sx / 2, y - sy / 2, y + sy / 2, zt - r["body_h"] - sz,
              zt - r["body_h"])
    return top + body + sw


def power_switch_solid(lay: Layout):
    """Envelope of the snap-in rocker: bezel outside the right wall, body inside."""
    pw, ph = lay.p.power_cutout
    W, y, z, t = lay.width, lay.y_power, lay.z_power, lay.t
    b = 1.5
    bezel = _box(W, W + 2.0, y - pw / 2 - b, y + pw / 2 + b, z - ph / 2 - b, z + ph / 2 + b)
    body = _box(W - t - POWER_SWITCH_DEPTH, W, y - pw / 2, y + pw / 2, z - ph / 2, z + ph / 2)
    return bezel + body


# --- the assembly -------------------------------------------------------------------------------

@dataclass
class Design:
    """Every part of one box, placed, with the states of its tiles."""

    lay: Layout
    items: list
    shut: tuple           # tile numbers shown shut in this assembly

    def by_name(self, name):
        for it in self.items:
            if it.name == name:
                return it
        raise KeyError(name)


def lever_rest_angle(lay: Layout, tile, k: int, steps: int = 30) -> float:
    """The angle the lever of tile k's switch comes to rest at under *tile* (in its pose): the
    highest angle up to the free position at which the lever does not cut into the tile, found
    by bisection on the real solids. Returns the free angle when the tile does not touch it."""
    _, lever = switch_solids(lay, k, lay.a_free)
    if (lever & tile).volume <= TOL:
        return lay.a_free
    lo, hi = -5.0, lay.a_free   # lever never goes below the body (angle 0); -5 is a bracket
    for _ in range(steps):
        mid = (lo + hi) / 2
        _, lever = switch_solids(lay, k, mid)
        if (lever & tile).volume <= TOL:
            lo = mid
        else:
            hi = mid
        if hi - lo < 0.01:     # degrees: 0.002 mm at the lever's end
            break
    return lo


def build(params: Params, tiles: int, shut=None) -> Design:
    """Build the whole box for *tiles* tiles; *shut* lists the tiles drawn shut (default: the
    even-numbered ones, so the assembly shows both states)."""
    bd = _bd()
    lay = Layout(params, tiles)
    shut = tuple(k for k in range(1, tiles + 1) if k % 2 == 0) if shut is None else tuple(shut)
    items = []
    C = COLOURS

    def add(name, shape, kind, part, colour, group):
        items.append(Item(name, shape, kind, part, colour, group))

    for f in flats(lay):
        add(f.name, _place_flat(f, lay), "cut", f.name, C["panel"],
            "deck" if f.name == "deck" else ("base" if f.name == "base" else "wall_" + f.name))
    for x, y in ((0, 0), (1, 0), (0, 1), (1, 1)):
        add("corner_%d%d" % (x, y), corner_solid(lay, x * lay.width, y * lay.depth), "printed",
            "corner_post", C["print"], "base")
    # Posts, cradles and switches are the same solid at every tile: build one, move copies.
    post0 = post_solid(lay, 0)
    for i in range(tiles + 1):
        add("hinge_post_%d" % i, bd.Pos(i * params.tile_pitch, 0, 0) * post0, "printed",
            "hinge_post", C["post"], "posts")
    add("hinge_rod", rod_solid(lay, lay.y_hinge, lay.z_hinge), "bought", "hinge_rod", C["steel"],
        "rods")
    add("rest_rod", rod_solid(lay, lay.y_rest, lay.z_rest), "bought", "rest_rod", C["steel"],
        "rods")
    p = params
    cradle0 = cradle_solid(lay, 1)
    tile1 = tile_solid(lay, 1)
    # the lever's rest angle under tile 1, measured on the solids, for each state
    angles = {state: lever_rest_angle(lay, tile_pose(lay, tile1, state), 1)
              for state in (True, False)}
    switch0 = {state: switch_solids(lay, 1, a) for state, a in angles.items()}
    led0 = led_solid(lay, lay.tile_x(1), lay.y_led)
    for k in range(1, tiles + 1):
        is_shut = k in shut
        move = bd.Pos((k - 1) * params.tile_pitch, 0, 0)
        tile = tile_pose(lay, tile1 if k == 1 else tile_solid(lay, k), is_shut)
        add("tile_%d" % k, tile, "printed", "tile_%d" % k, C["tile"], "tiles")
        mag = magnet_solid(lay.tile_x(k), lay.y_magnet, lay.zt + p.fit_clearance / 2,
                           p.magnet_diameter, p.magnet_thickness)
        add("tile_magnet_%d" % k, tile_pose(lay, mag, is_shut), "bought", "magnet", C["magnet"],
            "tiles")
        add("deck_magnet_%d" % k, magnet_solid(lay.tile_x(k), lay.y_magnet, lay.zb,
                                               p.magnet_diameter, p.magnet_thickness),
            "bought", "magnet", C["magnet"], "deck")
        add("cradle_%d" % k, move * cradle0, "printed", "cradle", C["print"], "under")
        body, lever = switch0[is_shut]
        add("switch_%d" % k, move * body, "bought", "switch", C["switch"], "under")
        add("lever_%d" % k, move * lever, "bought", "switch", C["lever"], "under")
        add("tile_led_%d" % k, move * led0, "bought", "led", C["led"], "under")
    for d in range(2):
        add("dice_plate_%d" % d, dice_plate_solid(lay, d), "printed", "dice_plate", C["print"],
            "under")
        for j, (x, y) in enumerate(lay.pips(d)):
            add("pip_led_%d_%d" % (d, j + 1), led_solid(lay, x, y), "bought", "led", C["led"],
                "under")
    add("roll_button", roll_solid(lay), "bought", "roll_button", C["button"], "deck")
    add("power_switch", power_switch_solid(lay), "bought", "power_switch", C["switch"],
        "wall_right")
    add("pico", pico_solid(lay), "bought", "pico", C["pico"], "base")
    for name, solid, _ in standoff_solids(lay):
        add(name, solid, "bought", name.rsplit("_", 1)[0], C["brass"], "base")
    add("wiring_board", board_solid(lay), "bought", "wiring_board", C["pcb"], "base")
    return Design(lay, items, shut)


# --- checks -------------------------------------------------------------------------------------

def check_solids(design: Design) -> list:
    """Return 'name: problem' for every part that is not made of valid, closed solids."""
    bad = []
    for it in design.items:
        solids = it.shape.solids()
        if not solids:
            bad.append("%s: no solid" % it.name)
        for s in solids:
            if not s.is_valid:
                bad.append("%s: invalid solid" % it.name)
            elif not s.is_manifold:
                bad.append("%s: open shell (an edge without two faces)" % it.name)
            elif s.volume <= 0:
                bad.append("%s: no volume" % it.name)
    return bad


def _bbox_overlap(a, b, eps=1e-6):
    return (a.min.X < b.max.X - eps and b.min.X < a.max.X - eps and a.min.Y < b.max.Y - eps
            and b.min.Y < a.max.Y - eps and a.min.Z < b.max.Z - eps and b.min.Z < a.max.Z - eps)


def collisions(items) -> list:
    """Return (name, name, volume) for every pair of parts whose solids overlap by more than
    TOL mm^3 (touching faces are fine); bounding boxes skip the pairs far apart."""
    boxes = [it.shape.bounding_box() for it in items]
    out = []
    for i in range(len(items)):
        for j in range(i + 1, len(items)):
            if not _bbox_overlap(boxes[i], boxes[j]):
                continue
            if items[i].part == items[j].part == "switch" and (
                    items[i].name.split("_")[-1] == items[j].name.split("_")[-1]):
                continue    # a switch's own body and lever
            v = (items[i].shape & items[j].shape).volume
            if v > TOL:
                out.append((items[i].name, items[j].name, v))
    return out


def lever_report(design: Design, k: int) -> dict:
    """Lever heights of tile k's switch, shut and open, measured on the solids, against the
    datasheet: shut must be past OP and within OT; open must be past the release point."""
    lay, sw = design.lay, design.lay.p.switch
    base = tile_solid(lay, k)
    shut = lever_rest_angle(lay, tile_pose(lay, base, True), k)
    open_ = lever_rest_angle(lay, tile_pose(lay, base, False), k)
    return {"shut_height": sw.lever_height(shut), "open_height": sw.lever_height(open_),
            "op": sw.op, "op_min": sw.op - sw.op_tol, "op_max": sw.op + sw.op_tol,
            "ot_min": sw.ot_min, "rp_max": sw.rp_max, "fp_max": sw.fp_max,
            "slot": cradle_slot(lay)}


def sweep_collisions(design: Design, k: int, angles=(3, 8, 15, 30, 50, 70, 90)) -> list:
    """Return (angle, part) wherever tile k, on its way up, cuts into the deck, posts or rods."""
    lay = design.lay
    base = tile_solid(lay, k)
    fixed = [it for it in design.items if it.name in (
        "deck", "hinge_rod", "rest_rod", "hinge_post_%d" % (k - 1), "hinge_post_%d" % k)]
    out = []
    for a in angles:
        tile = tile_at(lay, base, a)
        for it in fixed:
            if (tile & it.shape).volume > TOL:
                out.append((a, it.name))
    return out


def usb_report(design: Design) -> list:
    """Return the parts a seated micro-USB plug's overmould would hit (none = it fits)."""
    plug = usb_plug_solid(design.lay)
    pb = plug.bounding_box()
    return [it.name for it in design.items
            if it.name != "pico" and _bbox_overlap(pb, it.shape.bounding_box())
            and (plug & it.shape).volume > TOL]


PRINT_ORIENT = {}   # part -> how it lies on the bed (see print_shape)


def printed_parts(design: Design) -> dict:
    """{part name: solid as printed (flat face down, at the origin)} for each printed part."""
    seen = {}
    for it in design.items:
        if it.kind == "printed" and it.part not in seen:
            seen[it.part] = print_shape(design.lay, it)
    return seen


def print_shape(lay: Layout, it: Item):
    """The part in its print orientation, resting on z = 0 at the origin."""
    bd = _bd()
    shape = it.shape
    if it.part.startswith("tile_"):
        shape = tile_solid(lay, int(it.part.split("_")[1]))     # shut: number face down
        shape = shape.rotate(bd.Axis((0, 0, 0), (1, 0, 0)), 180)   # top face on the bed
    elif it.part in ("cradle", "dice_plate"):
        shape = shape.rotate(bd.Axis((0, 0, 0), (1, 0, 0)), 180)   # deck side on the bed
    elif it.part == "hinge_post":
        shape = shape.rotate(bd.Axis((0, 0, 0), (0, 1, 0)), 90)    # on its side
    bb = shape.bounding_box()
    return bd.Pos(-bb.min.X, -bb.min.Y, -bb.min.Z) * shape


def bed_report(design: Design) -> list:
    """Return (part, x, y, z) of the printed parts that do not fit the printer's bed."""
    bx, by = design.lay.p.printer_bed
    out = []
    for name, shape in printed_parts(design).items():
        bb = shape.bounding_box()
        dims = sorted((bb.size.X, bb.size.Y))
        if dims[0] > min(bx, by) or dims[1] > max(bx, by):
            out.append((name, bb.size.X, bb.size.Y, bb.size.Z))
    return out


def holding_force(design: Design) -> dict:
    """The pull the magnet pair must give to keep a shut tile on its lever (statics about the
    hinge): switch OF max at the boss, minus the tile's weight (PLA, solid), at the magnet."""
    lay, p = design.lay, design.lay.p
    tile = tile_solid(lay, 1)
    mass = tile.volume * 1.24e-3           # g, PLA 1.24 g/cm^3, printed solid
    cog = lay.y_hinge - tile.center().Y    # mm in front of the hinge
    torque = p.switch.of_max * p.boss_radius - mass * 9.81e-3 * cog
    arm = lay.y_hinge - lay.y_magnet
    return {"tile_mass_g": mass, "lever_torque_nmm": p.switch.of_max * p.boss_radius,
            "magnet_force_n": max(0.0, torque / arm)}


def run_checks(design: Design, sweep=True) -> list:
    """All geometric checks of one design; return the failures as lines (empty = good)."""
    lay, sw = design.lay, design.lay.p.switch
    bad = check_solids(design)
    bad += ["%s and %s intersect (%.3f mm^3)" % c for c in collisions(design.items)]
    for k in (1, lay.tiles):
        r = lever_report(design, k)
        if not sw.op - sw.ot_min <= r["shut_height"] < sw.op:
            bad.append("tile %d shut: lever at %.2f mm, not past OP %.2f within OT %.2f"
                       % (k, r["shut_height"], sw.op, sw.ot_min))
        if not r["open_height"] > sw.rp_max:
            bad.append("tile %d open: lever held at %.2f mm, below the release point %.2f"
                       % (k, r["open_height"], sw.rp_max))
    if sweep:
        bad += ["tile 1 at %g degrees hits %s" % c for c in sweep_collisions(design, 1)]
    bad += ["USB plug hits %s" % n for n in usb_report(design)]
    bad += ["%s (%.1f x %.1f x %.1f mm) does not fit the bed" % b for b in bed_report(design)]
    return bad


# --- outputs ------------------------------------------------------------------------------------

def _step_bytes(shape, label) -> bytes:
    """STEP text of a shape, its header time fixed so that a regeneration is byte-equal."""
    import tempfile

    bd = _bd()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "x.step"
        bd.export_step(shape, str(path))
        text = path.read_text(encoding="latin-1")
    text = re.sub(r"FILE_NAME\('([^']*)','[^']*'", lambda m: "FILE_NAME('%s','%s'"
                  % (label, FIXED_STAMP), text, count=1)
    return text.encode("latin-1")


def _stl_bytes(shape) -> bytes:
    import tempfile

    bd = _bd()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "x.stl"
        bd.export_stl(shape, str(path), tolerance=0.02, angular_tolerance=0.2)
        return path.read_bytes()


def cut_svg(lay: Layout) -> str:
    """The six panels laid out for the laser: red = cut, blue = engrave (mm units)."""
    parts = flats(lay)
    gap, x, y, row_h = 5.0, 5.0, 5.0, 0.0
    width = max(lay.width * 2 + 3 * gap, 2 * lay.width + 3 * gap)
    placed = []
    for i, f in enumerate(parts):
        if i in (2, 4):
            x, y = 5.0, y + row_h + gap
            row_h = 0.0
        placed.append((f, x, y))
        x += f.w + gap
        row_h = max(row_h, f.h)
    height = y + row_h + gap
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%.1fmm" height="%.1fmm" '
           'viewBox="0 0 %.1f %.1f">' % (width, height, width, height),
           "<title>shutbox enclosure: %d-tile box, %g mm panels. Red: cut. Blue: engrave."
           "</title>" % (lay.tiles, lay.t)]
    for f, ox, oy in placed:
        def X(v, ox=ox):
            return "%.2f" % (ox + v)

        def Y(v, oy=oy, f=f):
            return "%.2f" % (oy + f.h - v)   # SVG y grows downwards
        out.append('<g id="%s" fill="none" stroke-width="0.1">' % f.name)
        out.append('<rect x="%s" y="%s" width="%.2f" height="%.2f" stroke="#ff0000"/>'
                   % (X(0), Y(f.h), f.w, f.h))
        for hole in f.holes:
            if hole[0] == "circle":
                out.append('<circle cx="%s" cy="%s" r="%.2f" stroke="#ff0000"/>'
                           % (X(hole[1]), Y(hole[2]), hole[3] / 2))
            else:
                _, cx, cy, w, h = hole
                out.append('<rect x="%s" y="%s" width="%.2f" height="%.2f" stroke="#ff0000"/>'
                           % (X(cx - w / 2), Y(cy + h / 2), w, h))
        for line in f.engrave:
            out.append('<polyline points="%s" stroke="#0000ff"/>'
                       % " ".join("%s,%s" % (X(a), Y(b)) for a, b in line))
        out.append('<text x="%s" y="%s" font-size="4" fill="#0000ff" stroke="none" '
                   'font-family="sans-serif">%s</text>' % (X(2), Y(f.h - 5), f.name))
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def cut_dxf(lay: Layout) -> bytes:
    """The panels as DXF (layers CUT and ENGRAVE), one block per panel, side by side."""
    import logging

    import ezdxf

    logging.getLogger("ezdxf").setLevel(logging.ERROR)   # R12 has no $INSUNITS: say nothing
    ezdxf.options.write_fixed_meta_data_for_testing = True
    doc = ezdxf.new("R12", setup=False, units=0)   # R12: no OBJECTS section, whose order varies
    doc.layers.add("CUT", color=1)
    doc.layers.add("ENGRAVE", color=5)
    msp = doc.modelspace()
    ox = 0.0
    for f in flats(lay):
        cut = {"layer": "CUT"}
        msp.add_polyline2d([(ox, 0), (ox + f.w, 0), (ox + f.w, f.h), (ox, f.h)], close=True,
                           dxfattribs=cut)
        for hole in f.holes:
            if hole[0] == "circle":
                msp.add_circle((ox + hole[1], hole[2]), hole[3] / 2, dxfattribs=cut)
            else:
                _, cx, cy, w, h = hole
                x0, y0 = ox + cx - w / 2, cy - h / 2
                msp.add_polyline2d([(x0, y0), (x0 + w, y0), (x0 + w, y0 + h), (x0, y0 + h)],
                                   close=True, dxfattribs=cut)
        for line in f.engrave:
            msp.add_polyline2d([(ox + a, b) for a, b in line], dxfattribs={"layer": "ENGRAVE"})
        ox += f.w + 10.0
    stream = io.StringIO()
    doc.write(stream)
    return stream.getvalue().replace("\r\n", "\n").encode("utf-8")


def parts_table(design: Design) -> list:
    """Rows (part, kind, count, size x, y, z mm, material) of the parts to make or buy."""
    lay, p = design.lay, design.lay.p
    counts, dims = {}, {}
    printed = printed_parts(design)
    for it in design.items:
        key = "tile" if it.part.startswith("tile_") else it.part
        if key.startswith("standoff"):
            key = it.part
        counts[key] = counts.get(key, 0) + (1 if not it.name.startswith("lever") else 0)
        if key not in dims:
            shape = printed.get(it.part, it.shape)
            bb = shape.bounding_box()
            dims[key] = (it.kind, bb.size.X, bb.size.Y, bb.size.Z)
    rows = []
    for f in flats(lay):
        rows.append((f.name, "cut", 1, f.w, f.h, lay.t, "%g mm plywood or acrylic" % lay.t))
    material = {"printed": "PLA", "bought": "see bom.csv"}
    for key in sorted(counts):
        kind, x, y, z = dims[key]
        if kind == "cut":
            continue
        rows.append((key, kind, counts[key], x, y, z, material[kind]))
    del p
    return rows


def _parts_csv(design: Design) -> str:
    out = io.StringIO()
    import csv

    w = csv.writer(out, lineterminator="\n")
    w.writerow(("part", "kind", "count", "x mm", "y mm", "z mm", "material"))
    for r in parts_table(design):
        w.writerow(r[:3] + tuple("%.1f" % v for v in r[3:6]) + (r[6],))
    return out.getvalue()


def generate(params: Params, tiles: int, renders=True) -> tuple:
    """Return (committed {relpath: bytes}, heavy {relpath: bytes}, design); the heavy outputs
    (STEP files, the other tiles' STLs) are a lazy mapping, made when first read."""
    from shutbox_host.hardware import enclosure_render as render

    design = build(params, tiles)
    lay = design.lay
    committed, heavy = {}, {}
    committed[OUT + "/cut.svg"] = cut_svg(lay).encode()
    committed[OUT + "/cut.dxf"] = cut_dxf(lay)
    committed[OUT + "/parts.csv"] = _parts_csv(design).encode()
    for name, shape in printed_parts(design).items():
        if name.startswith("tile_") and name != "tile_1":
            heavy[BUILD + "/stl/%s.stl" % name] = _stl_bytes(shape)
        else:
            committed[OUT + "/stl/%s.stl" % name] = _stl_bytes(shape)
    committed[OUT + "/drawing.svg"] = render.drawing_svg(design).encode()
    if renders:
        committed[OUT + "/assembled.png"] = render.assembled_png(design)
        committed[OUT + "/exploded.png"] = render.exploded_png(design)
        committed[OUT + "/tile-switch.png"] = render.tile_switch_png(design)
    return committed, _Lazy(lambda: _heavy(design, heavy)), design


class _Lazy(dict):
    """A dict filled by *fill* on first use (`--check` never needs the STEP files)."""

    def __init__(self, fill):
        super().__init__()
        self._fill = fill

    def _load(self):
        if self._fill is not None:
            self.update(self._fill())
            self._fill = None

    def items(self):
        self._load()
        return super().items()

    def __getitem__(self, key):
        self._load()
        return super().__getitem__(key)

    def values(self):
        self._load()
        return super().values()


def _heavy(design: Design, heavy: dict) -> dict:
    """STEP files of every part and of the assembly (plus *heavy*, the other tiles' STLs)."""
    seen = set()
    for it in design.items:
        if it.part in seen or it.name.startswith("lever"):
            continue
        seen.add(it.part)
        shape = it.shape
        if it.part == "switch":
            shape = _bd().Compound(children=[it.shape, design.by_name(
                "lever_" + it.name.split("_")[1]).shape])
        heavy[BUILD + "/step/%s.step" % it.part] = _step_bytes(shape, it.part)
    heavy[BUILD + "/step/assembly.step"] = _step_bytes(assembly_compound(design), "assembly")
    return heavy


def assembly_compound(design: Design):
    """The assembly as one labelled, coloured compound (what the STEP file holds)."""
    bd = _bd()
    children = []
    for it in design.items:
        shape = it.shape
        shape.label = it.name
        shape.color = bd.Color(*it.colour)
        children.append(shape)
    return bd.Compound(children=children, label="shutbox_%d_tiles" % design.lay.tiles)


@functools.lru_cache(maxsize=4)
def _generated(text: str, tiles: int):
    """One generation per parameter text and tile count in this process (tests, --check)."""
    params = parse(json.loads(text), PARAMS)
    return generate(params, tiles)


def generated(root, tiles=None):
    """(committed, heavy, design) for the files under *root*, from the cache when it can."""
    root = Path(root)
    text, data = read_json(root / PARAMS)
    parse(data, str(root / PARAMS))
    if tiles is None:
        tiles = _boardgen().load(root / PINMAP).tiles
    return _generated(text, tiles)


def stale(root, tiles=None) -> list:
    """Committed outputs under *root* that differ from a fresh generation (or are missing, or
    should not be there)."""
    root = Path(root)
    committed, _, _ = generated(root, tiles)
    out = []
    for rel, data in committed.items():
        try:
            if (root / rel).read_bytes() == data:
                continue
        except OSError:
            pass
        out.append(rel)
    folder = root / OUT
    if folder.is_dir():
        for path in sorted(folder.rglob("*")):
            rel = path.relative_to(root).as_posix()
            if path.is_file() and rel not in committed:
                out.append(rel)
    return out


def write(root, tiles=None) -> list:
    """Write every output under *root*; return the paths that changed."""
    root = Path(root)
    committed, heavy, _ = generated(root, tiles)
    return _write_files(root, {**committed, **heavy})


def _write_files(dest: Path, files: dict) -> list:
    """Write each {relative path: bytes} of *files* under *dest* that differs from what is
    there; return the paths written."""
    changed = []
    for rel, data in files.items():
        path = dest / rel
        try:
            if path.read_bytes() == data:
                continue
        except OSError:
            pass
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        changed.append(rel)
    return changed


# --- the command --------------------------------------------------------------------------------

def configure(parser):
    """Add the enclosure flags."""
    parser.add_argument("--check", action="store_true",
                        help="write nothing; fail if a committed output differs from a fresh "
                             "generation or a geometric check fails")
    parser.add_argument("--tiles", type=int, default=None, choices=TILE_COUNTS,
                        help="tile count (default: tiles in hardware/pinmap.json)")
    parser.add_argument("--params", default=None, metavar="PATH",
                        help="parameter file (default: hardware/enclosure.json under --root)")
    parser.add_argument("--out", default=None, metavar="DIR",
                        help="write every output under DIR instead of the repository "
                             "(hardware/enclosure/ and build/enclosure/ inside it)")
    parser.add_argument("--root", default=str(ROOT), metavar="DIR",
                        help="repository folder (default: this one)")
    parser.add_argument("--slice", action="store_true",
                        help="also slice the STLs with prusa-slicer, if installed, and print "
                             "the estimated print time of each part")


def _tiles(args, root):
    if args.tiles is not None:
        return args.tiles
    tiles = _boardgen().load(root / PINMAP).tiles
    if tiles not in TILE_COUNTS:
        raise UserError("%s: tiles = %d; the enclosure is made for %s tiles (use --tiles)"
                        % (PINMAP, tiles, ", ".join(map(str, TILE_COUNTS))))
    return tiles


def run(args) -> int:
    """Generate (or check) the enclosure's outputs."""
    root = Path(args.root)
    if args.params:
        params = load(args.params)
        text = json.dumps(params.values | {"switch": _switch_key(params.switch)}, sort_keys=True)
        tiles = _tiles(args, root)
        committed, heavy, design = _generated_from_params(text, tiles)
    else:
        load(root / PARAMS)           # one-line errors before the slow part
        tiles = _tiles(args, root)
        committed, heavy, design = generated(root, tiles)
    bad = _checks(design)
    for line in bad:
        print("check failed: %s" % line, file=sys.stderr)
    if args.check:
        # the committed files are the reference box's: compare them only when building it
        reference = not args.params and tiles == _boardgen().load(root / PINMAP).tiles
        out = stale(root, tiles) if reference else []
        for rel in out:
            print("out of date: %s (run `shutbox enclosure`)" % rel, file=sys.stderr)
        if not out and not bad:
            print("%d committed enclosure files match %s; geometry checks pass (%d parts)"
                  % (len(committed), PARAMS, len(design.items)))
        return 1 if (out or bad) else 0
    dest = Path(args.out) if args.out else root
    changed = _write_files(dest, {**committed, **heavy})
    for rel in changed:
        print("wrote %s" % rel)
    if not changed:
        print("up to date: %d files" % (len(committed) + len(heavy)))
    lay = design.lay
    print("%d tiles: box %.0f x %.0f x %.0f mm, %d parts; laser cut %.0f mm"
          % (tiles, lay.width, lay.depth, lay.height, len(design.items),
             sum(f.cut_length() for f in flats(lay))))
    if args.slice:
        from shutbox_host.hardware import enclosure_render as render

        for name, minutes in render.slice_times(dest / OUT / "stl", dest / BUILD / "gcode"):
            print("print time %s: %s" % (name, minutes))
    return 1 if bad else 0


_CHECKED = {}


def _checks(design: Design) -> list:
    """run_checks, once per design in this process (the tests call --check several times)."""
    key = id(design)
    if key not in _CHECKED:
        _CHECKED[key] = (design, run_checks(design))
    return _CHECKED[key][1]


def _boardgen():
    """The pin map's module, wherever the regrouping of the host tools has put it."""
    try:
        from shutbox_host.hardware import boardgen
    except ImportError:
        from shutbox_host import boardgen
    return boardgen


def _switch_key(sw: Switch) -> str:
    return next(k for k, v in SWITCHES.items() if v == sw)


@functools.lru_cache(maxsize=2)
def _generated_from_params(text: str, tiles: int):
    return generate(parse(json.loads(text), PARAMS), tiles)
