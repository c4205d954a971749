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

import contextlib
import functools
import io
import math
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from shutbox_host.errors import UserError, read_json
from shutbox_host.hardware import boardgen
from shutbox_host.hardware import enclosure_parts as P
from shutbox_host.model import pinout

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
PICO = dict(length=51.0, width=21.0, pcb=1.0, pin_end=1.37)   # Pico datasheet: board, pin 1 at
# 1.37 mm from the USB end
PICO_USB = dict(width=8.0, height=2.9, depth=5.5, overhang=1.3)   # micro-B socket, envelope
# Micro-USB spec 1.01: the Micro-B plug is 6.85 x 1.8 mm, its overmould at most 10.6 x 8.5 mm.
USB_PLUG = dict(width=6.85, height=1.8, mould_w=10.6, mould_h=8.5, mould_len=25.0)
LED = dict(chip=5.0, chip_h=1.6, pcb_h=1.6)   # WS2812B: 5.0 x 5.0 x 1.6 mm (Worldsemi datasheet)
PIPE_FLANGE = dict(d=8.0, t=1.2)   # the printed light pipe's flange, between the chip and the deck
# Envelopes (keep-out volumes, not datasheet figures): a 30 mm snap-in arcade button
# (Sanwa OBSF-30 class) and a snap-in mini rocker (KCD1 class) behind its cutout; a 12 mm
# piezo (TDK PS1240P02BT: 12.2 mm, 6.5 mm high, its sound port on top).
ROLL_BUTTON = dict(bezel_d=33.0, bezel_h=3.0, cap_d=24.0, cap_h=6.0, body_d=29.6, body_h=22.0,
                   switch=(20.0, 13.0, 11.0))
POWER_SWITCH_DEPTH = 22.0
# The cells: IEC 60086-2 LR6 (AA) at its maxima, 14.5 mm across and 50.5 mm long. The holder
# (bought, 3 x AA side by side with leads) as modelled: an envelope of the common kind, a
# floor with two countersunk M3 holes under the middle cell, walls to two thirds of a cell,
# a rib between cells and room for the contact springs at the ends.
AA = dict(d=14.5, length=50.5)
HOLDER = dict(wall=1.2, floor=2.0, rib=1.0, play=0.5, contacts=3.0, height=12.0, hole_dx=15.0)
BUZZER = dict(d=12.2, h=6.5, port=2.0, sound_hole=4.0)
STANDOFF = dict(size="M2.5", af=5.0, h=10.0)     # brass hex standoff, female-female
BOARD_PCB = 1.6
FOOT = dict(d=12.7, h=3.5)                       # self-adhesive rubber bumper
SOCKET_H = 8.5                                   # 1x20 female header under the Pico
HEADER_H = 2.5                                   # the plastic of the Pico's own pin headers

# --- parameters ---------------------------------------------------------------------------------

# key -> (minimum, maximum, what it is); all numbers in mm unless said. Cross-checks in _check.
NUMBERS = {
    "printer_min_wall": (0.8, 3.0, "the thinnest wall around any hole or pocket of a printed "
                                   "part (checked on the solids)"),
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
    "magnet_recess": (0.0, 5.0, "how far the tile's magnet sits inside the tile's underside"),
    "fit_clearance": (0.05, 1.0, "gap for a part in a pocket"),
    "led_board_diameter": (6.0, 20.0, "round WS2812B breakout diameter"),
    "led_window": (2.0, 15.0, "hole over a tile LED (its light pipe)"),
    "pip_pitch": (6.0, 30.0, "distance between die pips"),
    "pip_window": (2.0, 20.0, "hole over a pip LED (its light pipe)"),
    "roll_hole": (12.0, 40.0, "Roll button mounting hole"),
    "usb_clearance": (0.1, 3.0, "gap around the USB plug's overmould in the back wall"),
    "number_height": (3.0, 12.0, "height of the tile numbers engraved in the deck"),
}
PAIRS = {"printer_bed": (50.0, 1000.0, "printer bed size X, Y"),
         "power_cutout": (5.0, 40.0, "power switch panel cutout, width and height"),
         "holding_force": (0.05, 5.0, "N: the lowest and highest pull needed at a shut tile's "
                                      "tip to open it")}
KEYS = set(NUMBERS) | set(PAIRS) | {"switch", "magnet_grade", "_comment"}


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
    grade = data.get("magnet_grade")
    if grade not in P.GRADES:
        raise UserError("%s: magnet_grade must be one of %s, not %r"
                        % (source, ", ".join(sorted(P.GRADES)), grade))
    values["magnet_grade"] = grade
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
    _need(p.tile_thickness - p.magnet_thickness - p.magnet_recess >= wall, s,
          "magnet_thickness + magnet_recess = %g leaves less than printer_min_wall over the "
          "magnet in a %g tile" % (p.magnet_thickness + p.magnet_recess, p.tile_thickness))
    _need(p.magnet_thickness <= p.material_thickness, s,
          "magnet_thickness = %g must not exceed material_thickness = %g (the deck magnet sits "
          "in a hole through the deck, on its cradle)" % (p.magnet_thickness,
                                                          p.material_thickness))
    _need(p.overtravel <= sw.ot_min, s, "overtravel = %g is more than the %s's guaranteed "
          "overtravel OT min %g" % (p.overtravel, sw.part, sw.ot_min))
    # The switch body must stay below the deck wherever its slots set it: hole centre = deck
    # top - boss - (OP - overtravel), and the slots raise it by up to OP's tolerance.
    below = p.boss_depth + sw.op - p.overtravel - sw.top
    need = p.material_thickness + sw.op_tol + 0.3
    _need(below >= need - 1e-9, s, "boss_depth = %g puts the switch body into the deck at the "
          "top of its slots: at least %g" % (p.boss_depth, p.boss_depth + need - below))
    _need(p.boss_depth < p.material_thickness + 8, s, "boss_depth = %g is too long" % p.boss_depth)
    pips = p.pip_pitch - p.led_board_diameter - 2 * p.fit_clearance
    _need(pips >= wall, s, "pip_pitch = %g leaves %.2f between LED boards; at least %g "
          "(led_board_diameter + 2 x fit_clearance + printer_min_wall)"
          % (p.pip_pitch, pips, p.led_board_diameter + 2 * p.fit_clearance + wall))
    _need(max(p.led_window, p.pip_window) <= LED["chip"] and
          min(p.led_window, p.pip_window) > 2 * p.fit_clearance + 1.0, s,
          "led_window and pip_window must be over %g and at most the LED's %g mm chip (the "
          "light pipe stands on it)" % (2 * p.fit_clearance + 1.0, LED["chip"]))
    reach = p.boss_radius + 7
    _need(p.tile_length >= reach + p.magnet_diameter + 12, s, "tile_length = %g is too short "
          "for the boss, the number and the magnet: at least %g"
          % (p.tile_length, reach + p.magnet_diameter + 12))
    lo, hi = p.holding_force
    _need(lo < hi, s, "holding_force = [%g, %g]: the first must be below the second" % (lo, hi))


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
        self.end_out = boardgen.END_POST_OUT   # the end posts reach this far outside
        self.width = 2 * self.x0 + self.tiles * p.tile_pitch
        # y, front to back: dice, tile numbers, tile LEDs, shut tiles, hinge axis, rest rod
        self.die = 3 * p.pip_pitch + p.pip_window          # square around a die's pips
        self.plate = 2 * p.pip_pitch + p.led_board_diameter + 8.0   # a die's LED plate
        self.die = max(self.die, self.plate)
        self.y_dice = t + p.front_margin + self.plate / 2
        self.y_num = self.y_dice + self.die / 2 + 2.0 + p.number_height / 2
        self.y_led = self.y_num + p.number_height / 2 + 2.5 + p.led_window / 2
        self.y_tip = self.y_led + 9.0
        self.y_hinge = self.y_tip + p.tile_length
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
        self.y_magnet = self.y_tip + 3.0 + 2.5 + p.magnet_diameter / 2
        # the cradle's two screws, on the tile's centre line: behind the LED, behind the magnet
        self.y_screw_a = self.y_led + 8.0
        self.y_screw_b = self.y_magnet + p.magnet_diameter / 2 + 7.5
        # the front row: dice A and B, then Roll, then the buzzer under its sound hole
        mid = self.width / 2
        self.x_dice = (mid - 55.0, mid - 5.0)
        self.x_roll = mid + 55.0
        self.y_roll = self.y_dice
        self.x_buzzer = self.width - t - 19.0
        self.y_buzzer = self.y_dice
        # the wiring board carries the Pico, USB towards the back wall, 1 mm inside it
        from shutbox_host.hardware import stripboard as S

        self.board_w = S.COLS * S.PITCH + 2 * S.MARGIN - S.PITCH
        self.board_d = S.ROWS * S.PITCH + 2 * S.MARGIN - S.PITCH
        self.usb_face = self.depth - t - 1.0
        pin1_y = self.usb_face - PICO_USB["overhang"] - PICO["pin_end"]
        self.board_y1 = pin1_y + S.MARGIN                 # back edge of the board
        self.board_x0 = self.width - t - 12.0 - self.board_w     # clear of the corner post
        self.board_z = t + STANDOFF["h"]                  # underside of the board
        self.pico_z = self.board_z + BOARD_PCB + SOCKET_H + HEADER_H
        self.usb_z = self.pico_z + PICO["pcb"] + PICO_USB["height"] / 2
        self.y_power = t + 30.0
        self.z_power = t + p.inner_height / 2
        # the battery holder on the base, in front of the wiring board's left end, cells
        # along x: clear of the corner posts, the feet's screws and the Roll button above
        h = HOLDER
        self.holder_len = AA["length"] + 2 * h["contacts"] + 2 * h["wall"]
        self.holder_w = 3 * (AA["d"] + h["play"]) + 2 * h["rib"] + 2 * h["wall"]
        self.holder_x0 = self.board_x0 - 8.0 - self.holder_len
        self.holder_y0 = t + 12.0

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

    def hole_xy(self, col: int, row: int):
        """(x, y) of a stripboard hole: columns run along +x, rows towards the front."""
        from shutbox_host.hardware import stripboard as S

        return (self.board_x0 + S.MARGIN + col * S.PITCH,
                self.board_y1 - S.MARGIN - row * S.PITCH)

    def foot_xy(self):
        """Where the four rubber feet go under the base."""
        W, D, mx, my = self.width, self.depth, 10.0, 24.0
        return [(mx, my), (W - mx, my), (mx, D - my), (W - mx, D - my)]


# --- 2D panels (laser cut): one description gives the solid, the SVG and the DXF ---------------

@dataclass
class Flat:
    """A flat part: outline w x h and holes, as ('rect', cx, cy, w, h) or ('circle', cx, cy, d),
    engraving polylines, and countersinks (cx, cy, top diameter) on its outer face; local 2D
    coordinates, origin at the lower left corner."""

    name: str
    w: float
    h: float
    holes: list = field(default_factory=list)
    engrave: list = field(default_factory=list)
    csk: list = field(default_factory=list)

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


M3 = P.Screw("M3", 6, "csk")          # cradles, dice plates, buzzer holder: from the deck's top
M3_CORNER = P.Screw("M3", 8, "csk")   # panels into the corner posts
M3_POST = P.Screw("M3", 6, "pan")     # hinge posts from under the deck; rod retainers
M2_SWITCH = P.Screw("M2", 12, "pan")  # switch, web, washer, nut
M25_BOARD = P.Screw("M2.5", 5, "pan")   # the wiring board onto its standoffs
M25_BASE = P.Screw("M2.5", 6, "pan")    # the standoffs from under the base
CSK_D = P.HEADS[("csk", "M3")].dk + 0.3   # countersink's top diameter in a panel


def _post_screws(lay: Layout, i: int):
    """(x, y) of the two screws holding hinge post i, in its foot behind the hinge."""
    y0, y1 = _foot_y(lay)
    return [(lay.post_x(i) + dx, (y0 + y1) / 2) for dx in (-4.5, 4.5)]


def _foot_y(lay: Layout):
    """y range of a hinge post's foot: behind the open tile's back face, to the rest rod's
    column and a little beyond."""
    return lay.y_hinge + 4.5, min(lay.y_rest + lay.r_rod + 2.0 + 6.0, lay.depth - lay.t - 2.0)


def _corner_xy(lay: Layout):
    t, W, D = lay.t, lay.width, lay.depth
    return [(t + 5, t + 5), (W - t - 5, t + 5), (t + 5, D - t - 5), (W - t - 5, D - t - 5)]


def _buzzer_screws(lay: Layout):
    return [(lay.x_buzzer + dx, lay.y_buzzer) for dx in (-11.0, 11.0)]


def flats(lay: Layout) -> list:
    """The six laser-cut panels with every hole, in panel coordinates."""
    p, t, W, D = lay.p, lay.t, lay.width, lay.depth
    deck = Flat("deck", W, D)
    base = Flat("base", W, D)
    for x, y in _corner_xy(lay):
        for f in (deck, base):
            f.holes.append(("circle", x, y, P.CLEARANCE["M3"]))
            f.csk.append((x, y, CSK_D))
    sw, c = p.switch, p.window_clearance
    win_w = max(4.0, sw.lever_w) + 2 * c
    # the free lever crosses the deck's underside this far from its pivot, the switch raised
    # to the top of its slots
    z_pivot = lay.z_hole + sw.op_tol + sw.top + sw.lever_t
    cross = (lay.zb - z_pivot) / math.sin(math.radians(lay.a_free))
    y_w0 = lay.y_pivot + max(0.0, cross) * math.cos(math.radians(lay.a_free)) - c
    y_w1 = lay.y_boss + 1.0 + c
    for k in range(1, lay.tiles + 1):
        cx = lay.tile_x(k)
        deck.holes.append(("rect", cx, (y_w0 + y_w1) / 2, win_w, y_w1 - y_w0))
        deck.holes.append(("circle", cx, lay.y_magnet, p.magnet_diameter + p.fit_clearance))
        deck.holes.append(("circle", cx, lay.y_led, p.led_window))
        for y in (lay.y_screw_a, lay.y_screw_b):
            deck.holes.append(("circle", cx, y, P.CLEARANCE["M3"]))
            deck.csk.append((cx, y, CSK_D))
        deck.engrave += number_strokes(k, cx, lay.y_num, p.number_height)
    for i in range(lay.tiles + 1):
        for x, y in _post_screws(lay, i):
            deck.holes.append(("circle", x, y, P.CLEARANCE["M3"]))
    for d in range(2):
        for x, y in lay.pips(d):
            deck.holes.append(("circle", x, y, p.pip_window))
        cx, cy, half = lay.x_dice[d], lay.y_dice, lay.die / 2
        deck.engrave.append([(cx - half, cy - half), (cx + half, cy - half),
                             (cx + half, cy + half), (cx - half, cy + half),
                             (cx - half, cy - half)])
        for sx, sy in _plate_screws(lay, d):
            deck.holes.append(("circle", sx, sy, P.CLEARANCE["M3"]))
            deck.csk.append((sx, sy, CSK_D))
    deck.holes.append(("circle", lay.x_roll, lay.y_roll, p.roll_hole))
    deck.holes.append(("circle", lay.x_buzzer, lay.y_buzzer, BUZZER["sound_hole"]))
    for x, y in _buzzer_screws(lay):
        deck.holes.append(("circle", x, y, P.CLEARANCE["M3"]))
        deck.csk.append((x, y, CSK_D))
    # base: the wiring board's standoffs (M2.5 from below), the battery holder's screws
    for x, y in _board_holes(lay):
        base.holes.append(("circle", x, y, P.CLEARANCE["M2.5"]))
    for x, y in holder_screws(lay):
        base.holes.append(("circle", x, y, P.CLEARANCE["M3"]))
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


def _plate_screws(lay: Layout, d: int):
    half = lay.plate / 2 - 3.5
    cx, cy = lay.x_dice[d], lay.y_dice
    return [(cx - half, cy + half), (cx + half, cy - half)]


def _usb_x(lay: Layout) -> float:
    return lay.hole_xy(4, 0)[0] + 3.5 * 2.54


def _board_holes(lay: Layout):
    from shutbox_host.hardware import stripboard as S

    return [lay.hole_xy(c, r) for c, r in S.MOUNTS]


# --- solids -------------------------------------------------------------------------------------

@dataclass
class Item:
    """One part of the assembly: its solid, what it is and how it is made. A screw also has its
    thread apart (*thread*) and the part it screws into (*engages*)."""

    name: str
    shape: object
    kind: str            # "cut", "printed" or "bought"
    part: str            # the part it is an instance of (one STL/STEP per part; its BOM key)
    colour: tuple
    group: str           # the build step it belongs to (the exploded pictures)
    thread: object = None
    engages: str = ""
    head: object = None
    local: object = None   # bbox -> the same solid inside that box, simpler (the panels)


COLOURS = {"panel": (0.80, 0.66, 0.46), "tile": (0.96, 0.93, 0.84), "print": (0.30, 0.45, 0.70),
           "post": (0.35, 0.35, 0.40), "steel": (0.72, 0.74, 0.78), "switch": (0.15, 0.15, 0.15),
           "lever": (0.85, 0.85, 0.88), "led": (0.95, 0.95, 0.95), "pcb": (0.10, 0.45, 0.20),
           "pico": (0.12, 0.55, 0.25), "button": (0.85, 0.15, 0.12), "magnet": (0.55, 0.55, 0.6),
           "brass": (0.80, 0.65, 0.25), "usb": (0.2, 0.2, 0.2), "pipe": (0.85, 0.95, 1.0),
           "screw": (0.45, 0.45, 0.5), "rubber": (0.1, 0.1, 0.1), "part": (0.3, 0.3, 0.35),
           "cell": (0.75, 0.55, 0.15)}


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


def _hex_z(x, y, z0, z1, af):
    bd = _bd()
    return bd.Pos(x, y, z0) * bd.extrude(bd.RegularPolygon(af / math.sqrt(3), 6), z1 - z0)


def _cut(solid, cuts):
    bd = _bd()
    return solid - bd.Compound(children=cuts) if len(cuts) > 1 else solid - cuts[0]


def flat_solid(f: Flat, t: float, csk_top: bool, region=None):
    """Extrude a flat part *t* thick (in its own 2D frame, thickness along +z from 0), its
    countersinks on the top face (*csk_top*) or the bottom one; only the part inside *region*
    (x0, x1, y0, y1) when given."""
    bd = _bd()
    x0, x1, y0, y1 = region or (0, f.w, 0, f.h)
    solid = _box(x0, x1, y0, y1, 0, t)
    cuts = []
    for hole in f.holes:
        if hole[0] == "circle":
            cuts.append(_cyl_z(hole[1], hole[2], -1, t + 1, hole[3]))
        else:
            _, cx, cy, w, h = hole
            cuts.append(_box(cx - w / 2, cx + w / 2, cy - h / 2, cy + h / 2, -1, t + 1))
    for x, y, d in f.csk:
        depth = (d - P.CLEARANCE["M3"]) / 2
        cone = bd.Cone(P.CLEARANCE["M3"] / 2, d / 2 + 0.5, depth + 0.5,
                       align=(bd.Align.CENTER, bd.Align.CENTER, bd.Align.MAX))
        cuts.append(bd.Pos(x, y, t + 0.5) * cone if csk_top
                    else bd.Pos(x, y, -0.5) * bd.Rot(180, 0, 0) * cone)
    return _cut(solid, cuts) if cuts else solid


def _panel_patch(f: Flat, t: float, z: float, bb):
    """The horizontal panel *f* (at height *z*) where it meets the box *bb*: a small solid with
    only the holes near it, the same material there as the whole panel (the collision check's
    booleans with it are quick)."""
    if bb.max.Z <= z or bb.min.Z >= z + t:
        return None
    x0, x1 = max(0.0, bb.min.X - 0.5), min(f.w, bb.max.X + 0.5)
    y0, y1 = max(0.0, bb.min.Y - 0.5), min(f.h, bb.max.Y + 0.5)
    if x0 >= x1 or y0 >= y1:
        return None

    def near(cx, cy, rx, ry):
        return cx + rx > x0 and cx - rx < x1 and cy + ry > y0 and cy - ry < y1
    holes = [h for h in f.holes if (near(h[1], h[2], h[3] / 2, h[3] / 2) if h[0] == "circle"
                                    else near(h[1], h[2], h[3] / 2, h[4] / 2))]
    csk = [c for c in f.csk if near(c[0], c[1], c[2] / 2 + 1, c[2] / 2 + 1)]
    part = Flat(f.name, f.w, f.h, holes, [], csk)
    return _bd().Pos(0, 0, z) * flat_solid(part, t, f.name != "base", (x0, x1, y0, y1))


def _place_flat(f: Flat, lay: Layout):
    """The panel's solid moved to its place in the box."""
    bd = _bd()
    s, t, W, D = flat_solid(f, lay.t, f.name != "base"), lay.t, lay.width, lay.depth
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


def tile_solid(lay: Layout, k: int, numbered=True):
    """Tile k, shut (lying on the deck, tip to the front); its number on the underside."""
    bd = _bd()
    p, cx = lay.p, lay.tile_x(k)
    w, t, L = p.tile_width, p.tile_thickness, p.tile_length
    x0, x1 = cx - w / 2, cx + w / 2
    yh, zh, zt = lay.y_hinge, lay.z_hinge, lay.zt
    body = _box(x0, x1, yh - L, yh, zt, zt + t) + _cyl_x(x0, x1, yh, zh, t)
    tip = lay.y_boss
    boss = _box(cx - 2.0, cx + 2.0, tip - 3.0, tip + 1.0, zt - p.boss_depth, zt + 0.01)
    body = body + boss
    cuts = [_cyl_x(x0 - 1, x1 + 1, yh, zh, p.hinge_rod_diameter + p.rod_clearance),
            _magnet_pocket(lay, cx)]
    # a nail notch under the tip, to lift a shut tile
    cuts.append(bd.Pos(cx, yh - L, zt) * bd.Rot(45, 0, 0) * bd.Box(w - 4, 2.0, 2.0))
    if numbered:
        # the number, grooved 0.6 mm into the underside (facing the player when the tile is up)
        for stroke in _tile_number(lay, k):
            (a0, b0), (a1, b1) = stroke
            xa, xb = sorted((a0, a1))
            ya, yb = sorted((b0, b1))
            cuts.append(_box(xa - 0.6, xb + 0.6, ya - 0.6, yb + 0.6, zt - 1, zt + 0.6))
    return _cut(body, cuts)


def _tile_number(lay: Layout, k: int):
    """Strokes (x, y) of tile k's number on its underside, between the boss and the magnet."""
    p = lay.p
    u_lo = p.boss_radius + 3.5
    u_hi = lay.y_hinge - lay.y_magnet - p.magnet_diameter / 2 - 2.5
    hgt = min(14.0, u_hi - u_lo - 1.2)
    u0 = (u_lo + u_hi) / 2
    return [[(lay.tile_x(k) + a, lay.y_hinge - u0 - b) for a, b in s]
            for s in number_strokes(k, 0.0, 0.0, hgt)]


def _magnet_pocket(lay: Layout, cx):
    """The tile's magnet pocket, open to its underside, as deep as magnet and recess."""
    p = lay.p
    return _cyl_z(cx, lay.y_magnet, lay.zt - 1, lay.zt + p.magnet_recess + p.magnet_thickness,
                  p.magnet_diameter + p.fit_clearance)


def tile_pose(lay: Layout, shape, shut: bool):
    """Return the tile moved to its shut or open (leaning back on the rest rod) position."""
    if shut:
        return shape
    return tile_at(lay, shape, 90.0 + lay.p.tile_lean)


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
    body = _cut(body, holes)
    zp = zh + sw.top + sw.lever_t
    yp = y0 + sw.pivot_in
    lever = _box(cx - sw.lever_w / 2, cx + sw.lever_w / 2, yp, yp + sw.lever_len,
                 zp - sw.lever_t, zp)
    lever = lever.rotate(bd.Axis((0, yp, zp), (1, 0, 0)), angle)
    return body, lever


CRADLE_T = 6.0          # the cradle's flange under the LED, the magnet and the screws
CRADLE_T_BACK = 3.0     # and over the switch


def _switch_screw_x(lay: Layout, k: int):
    """x of the switch screw's head face, of the web's two faces, for tile k."""
    sw, cx = lay.p.switch, lay.tile_x(k)
    web0 = cx + sw.thickness / 2
    return cx - sw.thickness / 2, web0, web0 + 3.0


def cradle_solid(lay: Layout, k: int):
    """Tile k's printed cradle: flange under the deck (LED pocket, the deck magnet's seat, two
    screw pilots), switch web with slots, reliefs for the switch screws' heads and nuts."""
    p, sw, cx = lay.p, lay.p.switch, lay.tile_x(k)
    fw = p.tile_pitch - 0.6
    zb = lay.zb
    y0 = lay.y_led - p.led_board_diameter / 2 - p.fit_clearance - 1.5
    y_sw0 = lay.y_switch - sw.length / 2
    y1 = y_sw0 + sw.length + 3.0
    y_step = lay.y_screw_b + P.PILOT["M3"] / 2 + 2.0
    flange = (_box(cx - fw / 2, cx + fw / 2, y0, y_step, zb - CRADLE_T, zb)
              + _box(cx - fw / 2, cx + fw / 2, y_step - 0.01, y1, zb - CRADLE_T_BACK, zb))
    _, web_x0, web_x1 = _switch_screw_x(lay, k)
    z_web0 = lay.z_hole - sw.hole_z - 4.0
    web = _box(web_x0, web_x1, y_sw0 - 2.0, y1, z_web0, zb - CRADLE_T_BACK + 0.01)
    solid = flange + web
    c = p.fit_clearance
    cuts = [
        _cyl_z(cx, lay.y_led, zb - _led_stack(), zb + 1, p.led_board_diameter + 2 * c),
        _cyl_z(cx, lay.y_led, zb - CRADLE_T - 1, zb, 7.0),     # the LED's wires
        # room for the switch body and its lever, through the flange
        _box(cx - sw.thickness / 2 - 0.8, web_x0, y_sw0 - 0.8, y_sw0 + sw.length + 0.8,
             zb - CRADLE_T - 1, zb + 1),
    ]
    for y in (lay.y_screw_a, lay.y_screw_b):
        cuts.append(_cyl_z(cx, y, zb - PILOT_DEPTH, zb + 1, P.PILOT["M3"]))
    # slots for the switch's M2 screws: the switch slides +-OP tolerance to meet its own OP;
    # above them, room for the heads, washers and nuts wherever the switch is set
    slot = 2 * sw.op_tol
    head = P.HEADS[("pan", "M2")]
    _, d2, wh = P.WASHERS["M2"]
    s_nut, m_nut = P.NUTS["M2"]
    r_up = max(head.dk / 2, d2 / 2, s_nut / math.sqrt(3)) + 0.5
    for dy in (-sw.hole_pitch / 2, sw.hole_pitch / 2):
        y = lay.y_switch + dy
        cuts.append(_box(web_x0 - 1, web_x1 + 1, y - 1.1, y + 1.1,
                         lay.z_hole - slot / 2, lay.z_hole + slot / 2))
        for z in (lay.z_hole - slot / 2, lay.z_hole + slot / 2):
            cuts.append(_cyl_x(web_x0 - 1, web_x1 + 1, y, z, 2.2))
    ya, yb = lay.y_switch - sw.hole_pitch / 2 - r_up, lay.y_switch + sw.hole_pitch / 2 + r_up
    top = lay.z_hole + slot / 2 + r_up
    cuts.append(_box(cx - sw.thickness / 2 - head.k - 0.8, cx - sw.thickness / 2, ya, yb,
                     zb - CRADLE_T - 1, top))
    cuts.append(_box(web_x1, cx + fw / 2 + 1, ya, yb, zb - CRADLE_T - 1, top))
    return _cut(solid, cuts)


PILOT_DEPTH = 4.5       # pilot depth of the M3 x 6 screws from the deck into a printed part


def _led_stack():
    """From the deck's underside down to an LED pocket's floor: pipe flange, chip, board."""
    return PIPE_FLANGE["t"] + LED["chip_h"] + LED["pcb_h"] + 0.2


def cradle_slot(lay: Layout) -> tuple:
    """(lowest, highest) hole-centre height the cradle's slots allow, relative to the design."""
    return (-lay.p.switch.op_tol, lay.p.switch.op_tol)


def post_solid(lay: Layout, i: int, end: int = 0):
    """Hinge post i: holds the hinge rod and, higher and behind, the rest rod; a foot behind
    the hinge takes its two screws from under the deck. *end* -1 / +1 makes the left / right
    end post: a cheek outside it takes the screws and washers that keep the rods in."""
    p, x = lay.p, lay.post_x(i)
    w = lay.post_w
    x0, x1 = x - w / 2, x + w / 2
    if end < 0:
        x0 -= lay.end_out
    elif end > 0:
        x1 += lay.end_out
    r = lay.r_rod + 2.0
    yh, zh, yr, zr = lay.y_hinge, lay.z_hinge, lay.y_rest, lay.z_rest
    zt = lay.zt
    low = _box(x0, x1, yh - 5.0, yr + r, zt, zh + r)
    col = _box(x0, x1, yr - r, yr + r, zt, zr)
    solid = low + col + _cyl_x(x0, x1, yr, zr, 2 * r)
    if end:
        solid = solid + _box(x0, x1, yh - 5.0, yr + r, zt, zr)     # the cheek, solid
    fy0, fy1 = _foot_y(lay)
    solid = solid + _box(min(x0, x - 7.5), max(x1, x + 7.5), fy0, fy1, zt, zt + FOOT_H)
    bore = p.hinge_rod_diameter + p.rod_clearance
    cuts = [_cyl_x(x0 - 1, x1 + 1, yh, zh, bore), _cyl_x(x0 - 1, x1 + 1, yr, zr, bore)]
    for sx, sy in _post_screws(lay, i):
        cuts.append(_cyl_z(sx, sy, zt - 1, zt + FOOT_H - 1.5, P.PILOT["M3"]))
    if end:
        face = x0 if end < 0 else x1
        for (y, z) in _retainers(lay):
            a = face - 1 if end < 0 else face - 6.5
            cuts.append(_cyl_x(a, a + 7.5, y, z, P.PILOT["M3"]))
    return _cut(solid, cuts)


FOOT_H = 5.0            # a post's foot above the deck


def _retainers(lay: Layout):
    """(y, z) of the screws whose washers hold the rods in: beside each rod, 4.4 mm off."""
    a = 4.4 / math.sqrt(2)
    return [(lay.y_hinge + a, lay.z_hinge + a), (lay.y_rest - a, lay.z_rest - a)]


def corner_solid(lay: Layout, x: float, y: float):
    """A printed corner post the panels screw into (M3, top and bottom)."""
    t, h = lay.t, lay.p.inner_height
    s = 10.0
    sx = t if x < lay.width / 2 else lay.width - t - s
    sy = t if y < lay.depth / 2 else lay.depth - t - s
    solid = _box(sx, sx + s, sy, sy + s, t, t + h)
    cx, cy = sx + s / 2, sy + s / 2
    return _cut(solid, [_cyl_z(cx, cy, t - 1, t + 7.5, P.PILOT["M3"]),
                        _cyl_z(cx, cy, t + h - 7.5, t + h + 1, P.PILOT["M3"])])


def dice_plate_solid(lay: Layout, d: int):
    """Die d's LED plate under the deck: a pocket per pip."""
    p, cx, cy, s = lay.p, lay.x_dice[d], lay.y_dice, lay.plate / 2
    zb = lay.zb
    solid = _box(cx - s, cx + s, cy - s, cy + s, zb - CRADLE_T, zb)
    c = p.fit_clearance
    cuts = []
    for x, y in lay.pips(d):
        cuts.append(_cyl_z(x, y, zb - _led_stack(), zb + 1, p.led_board_diameter + 2 * c))
        cuts.append(_cyl_z(x, y, zb - CRADLE_T - 1, zb, 7.0))
    for x, y in _plate_screws(lay, d):
        cuts.append(_cyl_z(x, y, zb - PILOT_DEPTH, zb + 1, P.PILOT["M3"]))
    return _cut(solid, cuts)


def buzzer_holder_solid(lay: Layout):
    """A printed cup under the deck holding the piezo against the deck under its sound hole."""
    x, y, zb = lay.x_buzzer, lay.y_buzzer, lay.zb
    h = BUZZER["h"] + 0.2 + 1.8
    solid = _box(x - 14, x + 14, y - 8.5, y + 8.5, zb - h, zb)
    cuts = [_cyl_z(x, y, zb - BUZZER["h"] - 0.2, zb + 1, BUZZER["d"] + 0.3),
            _cyl_z(x, y, zb - h - 1, zb, 8.0)]          # the leads
    for sx, sy in _buzzer_screws(lay):
        cuts.append(_cyl_z(sx, sy, zb - PILOT_DEPTH, zb + 1, P.PILOT["M3"]))
    return _cut(solid, cuts)


def buzzer_solid(lay: Layout):
    x, y, zb = lay.x_buzzer, lay.y_buzzer, lay.zb
    body = _cyl_z(x, y, zb - BUZZER["h"], zb, BUZZER["d"])
    return _cut(body, [_cyl_z(x, y, zb - 1.0, zb + 1, BUZZER["port"])])


def light_pipe_solid(lay: Layout, x: float, y: float, window: float):
    """A printed light pipe (clear or natural PETG): a flange on the LED's chip under the deck,
    a shaft up through the deck's window, its top flush with the deck: the lit face."""
    zb, zt = lay.zb, lay.zt
    return (_cyl_z(x, y, zb - PIPE_FLANGE["t"], zb, PIPE_FLANGE["d"])
            + _cyl_z(x, y, zb - 0.01, zt, window - 2 * lay.p.fit_clearance / 2))


def led_solid(lay: Layout, x: float, y: float):
    """A round WS2812B breakout in its pocket, the chip up against its light pipe."""
    p = lay.p
    z1 = lay.zb - PIPE_FLANGE["t"]          # the chip's top
    z0 = z1 - LED["chip_h"] - LED["pcb_h"]
    pcb = _cyl_z(x, y, z0, z0 + LED["pcb_h"], p.led_board_diameter)
    h = LED["chip"] / 2
    chip = _box(x - h, x + h, y - h, y + h, z0 + LED["pcb_h"], z1)
    return pcb + chip


def magnet_solid(x, y, z0, d, t):
    return _cyl_z(x, y, z0, z0 + t, d)


def rod_solid(lay: Layout, y: float, z: float):
    """A steel rod through every post, its ends 0.1 mm inside the end posts' cheeks."""
    x0, x1 = _rod_ends(lay)
    return _cyl_x(x0, x1, y, z, lay.p.hinge_rod_diameter)


def _rod_ends(lay: Layout):
    return (lay.post_x(0) - lay.post_w / 2 - lay.end_out + 0.1,
            lay.post_x(lay.tiles) + lay.post_w / 2 + lay.end_out - 0.1)


def rod_length(lay: Layout) -> float:
    a, b = _rod_ends(lay)
    return b - a


def pico_solid(lay: Layout):
    """The Pico: its board, its micro-USB socket at the back edge, its pin headers below."""
    x0, _ = lay.hole_xy(4, 0)
    x0 -= (PICO["width"] - 7 * 2.54) / 2
    y1 = lay.usb_face - PICO_USB["overhang"]
    z0 = lay.pico_z
    board = _box(x0, x0 + PICO["width"], y1 - PICO["length"], y1, z0, z0 + PICO["pcb"])
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


def standoff_solid(lay: Layout, x, y):
    """A brass hex standoff, female at both ends (its thread modelled at the minor diameter)."""
    t, h = lay.t, STANDOFF["h"]
    return _cut(_hex_z(x, y, t, t + h, STANDOFF["af"]),
                [_cyl_z(x, y, t - 1, t + h + 1, P.minor(STANDOFF["size"]))])


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


def _cells(lay: Layout):
    """(y, z) of the three cells' axes in the holder, lying on its floor."""
    h, r = HOLDER, AA["d"] / 2
    pitch = AA["d"] + h["play"] + h["rib"]
    y0 = lay.holder_y0 + h["wall"] + (AA["d"] + h["play"]) / 2
    z = lay.t + h["floor"] + r + 0.05
    return [(y0 + i * pitch, z) for i in range(3)]


def holder_screws(lay: Layout):
    """(x, y) of the holder's two screws: under the middle cell, either side of the middle."""
    cx = lay.holder_x0 + lay.holder_len / 2
    y = _cells(lay)[1][0]
    return [(cx - HOLDER["hole_dx"], y), (cx + HOLDER["hole_dx"], y)]


def holder_solid(lay: Layout):
    """The 3 x AA holder: a tray with a cavity per cell, its floor's holes countersunk from
    inside (the heads flush under the middle cell)."""
    bd = _bd()
    h, t = HOLDER, lay.t
    x0, y0 = lay.holder_x0, lay.holder_y0
    solid = _box(x0, x0 + lay.holder_len, y0, y0 + lay.holder_w, t, t + h["height"])
    cw = AA["d"] + h["play"]
    cuts = []
    for y, _ in _cells(lay):
        cuts.append(_box(x0 + h["wall"], x0 + lay.holder_len - h["wall"], y - cw / 2, y + cw / 2,
                         t + h["floor"], t + h["height"] + 1))
    z = t + h["floor"]
    depth = (CSK_D - P.CLEARANCE["M3"]) / 2
    for x, y in holder_screws(lay):
        cuts.append(_cyl_z(x, y, t - 1, z + 1, P.CLEARANCE["M3"]))
        cuts.append(bd.Pos(x, y, z + 0.5) * bd.Cone(
            P.CLEARANCE["M3"] / 2, CSK_D / 2 + 0.5, depth + 0.5,
            align=(bd.Align.CENTER, bd.Align.CENTER, bd.Align.MAX)))
    return _cut(solid, cuts)


def cell_solids(lay: Layout):
    """The three AA cells in the holder, each centred between its contacts."""
    x0 = lay.holder_x0 + (lay.holder_len - AA["length"]) / 2
    return [_cyl_x(x0, x0 + AA["length"], y, z, AA["d"]) for y, z in _cells(lay)]


def coupon_solid(p: Params):
    """The tolerance coupon, printed first: a strip with every fit the box relies on, left to
    right as coupon_holes lists them."""
    holes = coupon_holes(p)
    solid = _box(0, 10 + 12 * len(holes), 0, 16, 0, 9)
    cuts = []
    for i, (_, d, depth) in enumerate(holes):
        cuts.append(_cyl_z(10 + 12 * i, 8, 9 - depth, 10, d))
    return _cut(solid, cuts)


def coupon_holes(p: Params):
    """What the coupon tries: (what, hole diameter, depth)."""
    return [("hinge rod: slides freely", p.hinge_rod_diameter + p.rod_clearance, 7.0),
            ("M3 pilot: an M3 screw cuts its thread", P.PILOT["M3"], PILOT_DEPTH),
            ("M2 pilot", P.PILOT["M2"], 4.0),
            ("magnet pocket: a magnet presses in", p.magnet_diameter + p.fit_clearance,
             p.magnet_thickness + p.magnet_recess),
            ("light pipe shaft in its window (deck)", p.led_window, 3.0),
            ("LED pocket: a breakout drops in", p.led_board_diameter + 2 * p.fit_clearance,
             _led_stack())]


def gauge_solid(lay: Layout):
    """The switch-height gauge: laid on the cradle's top face, its tongue reaches down into the
    switch's opening to where the switch body's top belongs (the design's OP point); the switch,
    pushed up against it, starts at its nominal height."""
    sw = lay.p.switch
    depth = lay.zb - (lay.z_hole + sw.top)          # cradle top down to the body's top
    plate = _box(0, 30, 0, sw.length + 4.0, 0, 2.0)
    tongue = _box(11, 11 + sw.thickness, 2, 2 + sw.length - 1.0, -depth, 0.01)
    return plate + tongue


def gauge_depth(lay: Layout) -> float:
    """How far below the cradle's top face the gauge's tongue sets the switch body's top."""
    return lay.zb - (lay.z_hole + lay.p.switch.top)


# --- the assembly -------------------------------------------------------------------------------

@dataclass
class Design:
    """Every part of one box, placed, with the states of its tiles; *tools* are the printed
    jigs (not in the box); *board* is the wiring board's stripboard layout."""

    lay: Layout
    items: list
    shut: tuple           # tile numbers shown shut in this assembly
    tools: list = field(default_factory=list)
    board: object = None

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


# Build steps: (group, title). Every item belongs to one; the guide's pictures follow them.
STEPS = (
    ("base", "Base, feet, corner posts, the wiring board's standoffs and the battery holder"),
    ("board", "The wiring board with the Pico on the standoffs"),
    ("walls", "Walls and the power rocker"),
    ("under", "Under the deck: cradles, LEDs and their light pipes, deck magnets, dice plates, "
              "buzzer"),
    ("switches", "The tile switches on their cradles"),
    ("deck", "The Roll button"),
    ("posts", "Hinge posts and end posts on the deck"),
    ("tiles", "Tiles with their magnets, the rods and the washers that keep them in"),
    ("close", "Close the box: deck onto the corner posts; the USB cable"),
)


def build(params: Params, tiles: int, shut=None) -> Design:
    """Build the whole box for *tiles* tiles; *shut* lists the tiles drawn shut (default: the
    even-numbered ones, so the assembly shows both states)."""
    from shutbox_host.hardware import stripboard as S

    bd = _bd()
    lay = Layout(params, tiles)
    shut = tuple(k for k in range(1, tiles + 1) if k % 2 == 0) if shut is None else tuple(shut)
    items = []
    C = COLOURS
    p = params

    def add(name, shape, kind, part, colour, group, **kw):
        items.append(Item(name, shape, kind, part, colour, group, **kw))
        return items[-1]

    def screw(name, s: P.Screw, origin, direction, engages, group):
        head, _, thread = P.screw_solids(bd, s, origin, direction)
        add(name, head + thread, "bought", s.key, C["screw"], group, thread=thread,
            engages=engages, head=head)

    groups = {"deck": "close", "base": "base", "front": "walls", "back": "walls",
              "left": "walls", "right": "walls"}
    for f in flats(lay):
        local = None
        if f.name in ("deck", "base"):
            z = lay.zb if f.name == "deck" else 0.0
            local = functools.partial(_panel_patch, f, lay.t, z)
        add(f.name, _place_flat(f, lay), "cut", f.name, C["panel"], groups[f.name],
            local=local)
    for (x, y), (i, j) in zip(_corner_xy(lay), ((0, 0), (1, 0), (0, 1), (1, 1)), strict=True):
        name = "corner_%d%d" % (i, j)
        add(name, corner_solid(lay, i * lay.width, j * lay.depth), "printed", "corner_post",
            C["print"], "base")
        screw("screw_base_%d%d" % (i, j), M3_CORNER, (x, y, 0), (0, 0, 1), name, "base")
        screw("screw_deck_%d%d" % (i, j), M3_CORNER, (x, y, lay.zt), (0, 0, -1), name, "close")
    for i, (x, y) in enumerate(lay.foot_xy()):
        add("foot_%d" % i, _cyl_z(x, y, -FOOT["h"], 0, FOOT["d"]), "bought", "foot",
            C["rubber"], "base")
    # Posts, cradles and switches are the same solid at every tile: build one, move copies.
    post1 = post_solid(lay, 1)
    for i in range(tiles + 1):
        if i == 0 or i == tiles:
            end = -1 if i == 0 else 1
            part = "end_post_left" if end < 0 else "end_post_right"
            add(part, post_solid(lay, i, end), "printed", part, C["post"], "posts")
            name = part
        else:
            name = "hinge_post_%d" % i
            add(name, bd.Pos((i - 1) * params.tile_pitch, 0, 0) * post1, "printed",
                "hinge_post", C["post"], "posts")
        for j, (x, y) in enumerate(_post_screws(lay, i)):
            screw("screw_post_%d_%d" % (i, j), M3_POST, (x, y, lay.zb), (0, 0, 1), name, "posts")
    add("hinge_rod", rod_solid(lay, lay.y_hinge, lay.z_hinge), "bought", "rod", C["steel"],
        "tiles")
    add("rest_rod", rod_solid(lay, lay.y_rest, lay.z_rest), "bought", "rod", C["steel"],
        "tiles")
    x_ends = (lay.post_x(0) - lay.post_w / 2 - lay.end_out,
              lay.post_x(tiles) + lay.post_w / 2 + lay.end_out)
    for side, (x, sign, post) in enumerate(((x_ends[0], 1, "end_post_left"),
                                            (x_ends[1], -1, "end_post_right"))):
        for j, (y, z) in enumerate(_retainers(lay)):
            wh = P.WASHERS["M3"][2]
            add("washer_rod_%d_%d" % (side, j), P.washer_solid(bd, "M3", (x - sign * wh, y, z),
                                                               (sign, 0, 0)),
                "bought", "washer_m3", C["steel"], "tiles")
            screw("screw_rod_%d_%d" % (side, j), M3_POST, (x - sign * wh, y, z), (sign, 0, 0),
                  post, "tiles")
    cradle1 = cradle_solid(lay, 1)
    tile1 = tile_solid(lay, 1)
    # the lever's rest angle under tile 1, measured on the solids, for each state
    angles = {state: lever_rest_angle(lay, tile_pose(lay, tile1, state), 1)
              for state in (True, False)}
    switch1 = {state: switch_solids(lay, 1, a) for state, a in angles.items()}
    led1 = led_solid(lay, lay.tile_x(1), lay.y_led)
    pipe1 = light_pipe_solid(lay, lay.tile_x(1), lay.y_led, p.led_window)
    z_tile_mag = lay.zt + p.magnet_recess
    sw = p.switch
    for k in range(1, tiles + 1):
        is_shut = k in shut
        dx = (k - 1) * params.tile_pitch
        move = bd.Pos(dx, 0, 0)
        cx = lay.tile_x(k)
        tile = tile_pose(lay, tile1 if k == 1 else tile_solid(lay, k), is_shut)
        add("tile_%d" % k, tile, "printed", "tile_%d" % k, C["tile"], "tiles")
        mag = magnet_solid(cx, lay.y_magnet, z_tile_mag, p.magnet_diameter, p.magnet_thickness)
        add("tile_magnet_%d" % k, tile_pose(lay, mag, is_shut), "bought", "magnet", C["magnet"],
            "tiles")
        add("deck_magnet_%d" % k, magnet_solid(cx, lay.y_magnet, lay.zb, p.magnet_diameter,
                                               p.magnet_thickness),
            "bought", "magnet", C["magnet"], "under")
        add("cradle_%d" % k, move * cradle1, "printed", "cradle", C["print"], "under")
        for y in (lay.y_screw_a, lay.y_screw_b):
            screw("screw_cradle_%d_%s" % (k, "ab"[y == lay.y_screw_b]), M3, (cx, y, lay.zt),
                  (0, 0, -1), "cradle_%d" % k, "under")
        body, lever = switch1[is_shut]
        add("switch_%d" % k, move * body, "bought", "switch", C["switch"], "switches")
        add("lever_%d" % k, move * lever, "bought", "switch", C["lever"], "switches")
        x_head, _, web_x1 = _switch_screw_x(lay, k)
        for j, dy in enumerate((-sw.hole_pitch / 2, sw.hole_pitch / 2)):
            y, z = lay.y_switch + dy, lay.z_hole
            nut = "nut_switch_%d_%d" % (k, j)
            screw("screw_switch_%d_%d" % (k, j), M2_SWITCH, (x_head, y, z), (1, 0, 0), nut,
                  "switches")
            wh = P.WASHERS["M2"][2]
            add("washer_switch_%d_%d" % (k, j), P.washer_solid(bd, "M2", (web_x1, y, z),
                                                               (1, 0, 0)),
                "bought", "washer_m2", C["steel"], "switches")
            add(nut, P.nut_solid(bd, "M2", (web_x1 + wh, y, z), (1, 0, 0)), "bought", "nut_m2",
                C["steel"], "switches")
        add("tile_led_%d" % k, move * led1, "bought", "led", C["led"], "under")
        add("light_pipe_%d" % k, move * pipe1, "printed", "light_pipe", C["pipe"], "under")
    for d in range(2):
        add("dice_plate_%d" % d, dice_plate_solid(lay, d), "printed", "dice_plate", C["print"],
            "under")
        for j, (x, y) in enumerate(_plate_screws(lay, d)):
            screw("screw_plate_%d_%d" % (d, j), M3, (x, y, lay.zt), (0, 0, -1),
                  "dice_plate_%d" % d, "under")
        for j, (x, y) in enumerate(lay.pips(d)):
            add("pip_led_%d_%d" % (d, j + 1), led_solid(lay, x, y), "bought", "led", C["led"],
                "under")
            add("pip_pipe_%d_%d" % (d, j + 1), light_pipe_solid(lay, x, y, p.pip_window),
                "printed", "pip_light_pipe", C["pipe"], "under")
    add("buzzer_holder", buzzer_holder_solid(lay), "printed", "buzzer_holder", C["print"],
        "under")
    add("buzzer", buzzer_solid(lay), "bought", "buzzer", C["switch"], "under")
    for j, (x, y) in enumerate(_buzzer_screws(lay)):
        screw("screw_buzzer_%d" % j, M3, (x, y, lay.zt), (0, 0, -1), "buzzer_holder", "under")
    add("roll_button", roll_solid(lay), "bought", "roll_button", C["button"], "deck")
    add("power_switch", power_switch_solid(lay), "bought", "power_switch", C["switch"], "walls")
    add("battery_holder", holder_solid(lay), "bought", "battery_holder", C["switch"], "base")
    for i, cell in enumerate(cell_solids(lay)):
        add("cell_%d" % (i + 1), cell, "bought", "aa_cell", C["cell"], "base")
    for i, (x, y) in enumerate(holder_screws(lay)):
        nut = "nut_holder_%d" % i
        add(nut, P.nut_solid(bd, "M3", (x, y, 0.0), (0, 0, -1)), "bought", "nut_m3", C["steel"],
            "base")
        screw("screw_holder_%d" % i, M3_CORNER, (x, y, lay.t + HOLDER["floor"]), (0, 0, -1),
              nut, "base")
    # the wiring board: stripboard, the Pico on its sockets, the parts; standoffs and screws
    pm = _pinmap_for(tiles)
    board = S.place(pm)
    z0 = lay.board_z
    pcb = _box(lay.board_x0, lay.board_x0 + lay.board_w, lay.board_y1 - lay.board_d,
               lay.board_y1, z0, z0 + BOARD_PCB)
    pcb = _cut(pcb, [_cyl_z(x, y, z0 - 1, z0 + 3, P.CLEARANCE["M2.5"])
                     for x, y in _board_holes(lay)])
    add("wiring_board", pcb, "bought", "stripboard", C["pcb"], "board")
    for part in board.parts:
        for suffix, bom, solid in _board_part_solids(lay, part):
            add("board_%s%s" % (part.ref, suffix), solid, "bought", bom, _part_colour(bom),
                "board")
    add("pico", pico_solid(lay), "bought", "pico", C["pico"], "board")
    add("usb_plug", usb_plug_solid(lay), "bought", "usb_cable", C["usb"], "close")
    for i, (x, y) in enumerate(_board_holes(lay)):
        name = "standoff_%d" % i
        add(name, standoff_solid(lay, x, y), "bought", "standoff_m25", C["brass"], "base")
        screw("screw_standoff_base_%d" % i, M25_BASE, (x, y, 0), (0, 0, 1), name, "base")
        screw("screw_standoff_board_%d" % i, M25_BOARD, (x, y, z0 + BOARD_PCB), (0, 0, -1),
              name, "board")
    tools = [Item("tolerance_coupon", coupon_solid(p), "printed", "tolerance_coupon",
                  C["print"], "tools"),
             Item("switch_gauge", gauge_solid(lay), "printed", "switch_gauge", C["print"],
                  "tools")]
    return Design(lay, items, shut, tools, board)


def _pinmap_for(tiles: int):
    """The repository's pin map with *tiles* tiles (the board's layout follows it)."""
    _, data = read_json(ROOT / PINMAP)
    return pinout.parse(dict(data, tiles=tiles))


def _part_colour(bom):
    return {"pin_header": (0.1, 0.1, 0.1), "socket_1x20": (0.1, 0.1, 0.1),
            "header_1x20": (0.1, 0.1, 0.1)}.get(bom, COLOURS["part"])


def _board_part_solids(lay: Layout, part):
    """[(suffix, BOM key, solid)] of a part on the wiring board: a block over its holes (its
    height from its footprint); for the Pico its two sockets and its own two pin headers, for
    the 74AHCT125 its socket and the chip."""
    from shutbox_host.hardware import stripboard as S

    f = S.FOOTPRINTS[part.fp]
    z = lay.board_z + BOARD_PCB
    if part.fp == "pico":
        out = []
        for i, dc in enumerate((0, 7)):
            x, y0 = lay.hole_xy(part.col + dc, part.row)
            _, y1 = lay.hole_xy(part.col + dc, part.row + 19)
            out.append(("_socket%d" % i, "socket_1x20",
                        _box(x - 1.27, x + 1.27, y1 - 1.27, y0 + 1.27, z, z + SOCKET_H)))
            out.append(("_header%d" % i, "header_1x20",
                        _box(x - 1.27, x + 1.27, y1 - 1.27, y0 + 1.27, z + SOCKET_H,
                             z + SOCKET_H + HEADER_H)))
        return out
    if f.height <= 0:
        return []
    c0, r0, c1, r1 = f.body
    xa, ya = lay.hole_xy(part.col + c0, part.row + r0)
    xb, yb = lay.hole_xy(part.col + c1, part.row + r1)
    w = 1.0 if part.fp != "elco" else 3.8
    x0, x1, y0, y1 = min(xa, xb) - w, max(xa, xb) + w, min(ya, yb) - 1.0, max(ya, yb) + 1.0
    if part.fp == "dip14":
        return [("_socket", "socket_dip14", _box(x0, x1, y0, y1, z, z + 3.0)),
                ("", part.bom, _box(x0 + 0.3, x1 - 0.3, y0, y1, z + 3.0, z + f.height))]
    return [("", part.bom, _box(x0, x1, y0, y1, z, z + f.height))]


# --- printed parts as printed -------------------------------------------------------------------

def printed_parts(design: Design) -> dict:
    """{part name: solid as printed (flat face down, at the origin)} for each printed part,
    the jigs included."""
    seen = {}
    for it in list(design.items) + list(design.tools):
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
    elif it.part in ("cradle", "dice_plate", "buzzer_holder", "switch_gauge"):
        shape = shape.rotate(bd.Axis((0, 0, 0), (1, 0, 0)), 180)   # flat side on the bed
    elif it.part in ("hinge_post", "end_post_left", "end_post_right"):
        shape = shape.rotate(bd.Axis((0, 0, 0), (0, 1, 0)), 90)    # on its side
    bb = shape.bounding_box()
    return bd.Pos(-bb.min.X, -bb.min.Y, -bb.min.Z) * shape


# --- outputs ------------------------------------------------------------------------------------

def _step_bytes(parts, label) -> bytes:
    """STEP (AP214) of named parts [(name, shape)], one product each, no colours: OpenCascade
    writes colours in an order that changes from run to run, names and shapes it does not; the
    header's time is fixed. So a regeneration is byte-equal."""
    import tempfile

    from OCP.IFSelect import IFSelect_RetDone
    from OCP.Interface import Interface_Static
    from OCP.STEPCAFControl import STEPCAFControl_Writer
    from OCP.STEPControl import STEPControl_AsIs
    from OCP.TCollection import TCollection_ExtendedString
    from OCP.TDataStd import TDataStd_Name
    from OCP.TDocStd import TDocStd_Document
    from OCP.TopLoc import TopLoc_Location
    from OCP.XCAFDoc import XCAFDoc_DocumentTool

    doc = TDocStd_Document(TCollection_ExtendedString("XmlOcaf"))
    tool = XCAFDoc_DocumentTool.ShapeTool_s(doc.Main())
    top = tool.NewShape()
    TDataStd_Name.Set_s(top, TCollection_ExtendedString(label))
    for name, shape in parts:
        w = shape.wrapped
        lab = tool.AddShape(w.Located(TopLoc_Location()), False)
        TDataStd_Name.Set_s(lab, TCollection_ExtendedString(name))
        comp = tool.AddComponent(top, lab, w.Location())
        TDataStd_Name.Set_s(comp, TCollection_ExtendedString(name))
    tool.UpdateAssemblies()
    Interface_Static.SetCVal_s("write.step.schema", "AP214IS")
    writer = STEPCAFControl_Writer()
    writer.SetColorMode(False)
    writer.SetNameMode(True)
    with tempfile.TemporaryDirectory() as tmp, _quiet():
        writer.Transfer(doc, STEPControl_AsIs)
        path = Path(tmp) / "x.step"
        done = writer.Write(str(path)) == IFSelect_RetDone
        text = path.read_text(encoding="latin-1") if done else ""
    if not done:
        raise UserError("could not write the STEP file of %s" % label)
    text = re.sub(r"FILE_NAME\('([^']*)','[^']*'", lambda m: "FILE_NAME('%s','%s'"
                  % (label, FIXED_STAMP), text, count=1)
    # the assembly links' ids count on over every file written in this process (and the
    # writer wraps lines by their length): one entity a line, the ids from 1
    lines = []
    for line in text.split("\n"):
        if line.startswith("  ") and lines and not lines[-1].endswith(";"):
            lines[-1] += line.strip()
        else:
            lines.append(line)
    text = "\n".join(lines)
    ids = iter(range(1, 1 << 30))
    text = re.sub(r"NEXT_ASSEMBLY_USAGE_OCCURRENCE\('\d+'", lambda m:
                  "NEXT_ASSEMBLY_USAGE_OCCURRENCE('%d'" % next(ids), text)
    return text.encode("latin-1")


@contextlib.contextmanager
def _quiet():
    """Keep OpenCascade's transfer statistics (printed on the C stdout) off the terminal."""
    sys.stdout.flush()
    saved = os.dup(1)
    with open(os.devnull, "wb") as null:
        os.dup2(null.fileno(), 1)
        try:
            yield
        finally:
            os.dup2(saved, 1)
            os.close(saved)


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
           "<title>shutbox enclosure: %d-tile box, %g mm panels. Red: cut. Blue: engrave. "
           "Green: countersink 90 degrees to that diameter on the panel's outer face (deck: "
           "top, base: bottom), after cutting."
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
        for cx, cy, d in f.csk:
            out.append('<circle cx="%s" cy="%s" r="%.2f" stroke="#00a000"/>'
                       % (X(cx), Y(cy), d / 2))
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
    doc.layers.add("COUNTERSINK", color=3)
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
        for cx, cy, d in f.csk:
            msp.add_circle((ox + cx, cy), d / 2, dxfattribs={"layer": "COUNTERSINK"})
        ox += f.w + 10.0
    stream = io.StringIO()
    doc.write(stream)
    return stream.getvalue().replace("\r\n", "\n").encode("utf-8")


def parts_table(design: Design) -> list:
    """Rows (part, kind, count, size x, y, z mm, material) of the parts to make or buy."""
    from shutbox_host.hardware import enclosure_checks as checks

    counts = checks.bom_counts(design)
    printed = printed_parts(design)
    dims = {}
    for it in list(design.items) + list(design.tools):
        key = "tile" if it.part.startswith("tile_") and it.kind == "printed" else it.part
        if key not in dims:
            bb = printed.get(it.part, it.shape).bounding_box()
            dims[key] = (it.kind, bb.size.X, bb.size.Y, bb.size.Z)
    rows = []
    lay = design.lay
    for f in flats(lay):
        rows.append((f.name, "cut", 1, f.w, f.h, lay.t, "%g mm plywood or acrylic" % lay.t))
    material = {"printed": "PLA", "bought": "see bom.csv"}
    for key in sorted(counts):
        kind, x, y, z = dims[key]
        if kind == "cut":
            continue
        mat = "PETG, clear or natural" if "pipe" in key else material[kind]
        rows.append((key, kind, counts[key], x, y, z, mat))
    return rows


def _parts_csv(design: Design) -> str:
    import csv

    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(("part", "kind", "count", "x mm", "y mm", "z mm", "material"))
    for r in parts_table(design):
        w.writerow(r[:3] + tuple("%.1f" % v for v in r[3:6]) + (r[6],))
    return out.getvalue()


# --- the harness: every wire off the wiring board, its length from the model -------------------

WIRE = {"+5V": ("red", 22), "GND": ("black", 22), "LED_DIN": ("yellow", 26),
        "ROLL": ("green", 26), "BAT_SW": ("orange", 22), "BAT+": ("red", 22),
        "3V3_EN": ("white", 26), "BUZ_C": ("purple", 26)}
BOARD_END = "Dupont 2.54 mm female, 1-pin housing"
SLACK = 40.0        # mm added to a wire's route for stripping, bending and a service loop


def harness(design: Design) -> list:
    """Rows (wire, net, colour, AWG, length mm, from, connector, to, connector): every wire of
    the box, the lengths from the model (along x, y and z between its ends, plus SLACK,
    rounded up to 10 mm)."""
    lay = design.lay
    sw = lay.p.switch
    pins = {}
    for ref, net, (c, r) in design.board.connectors():
        x, y = lay.hole_xy(c, r)
        pins.setdefault(net, []).append((ref, (x, y, lay.board_z + BOARD_PCB + 8.5)))
    rows = []

    def wire(net, a, a_conn, b, b_conn, pa, pb, gauge=None, colour=None):
        c, g = WIRE.get(net, ("blue", 26))
        length = sum(abs(u - v) for u, v in zip(pa, pb, strict=True)) + SLACK
        rows.append(("W%d" % (len(rows) + 1), net, colour or c, gauge or g,
                     int(math.ceil(length / 10.0) * 10), a, a_conn, b, b_conn))

    def switch_end(k, pin):
        cx = lay.tile_x(k)
        y = lay.y_switch - sw.length / 2 + (1.5 if pin == "COM" else 6.5)
        return (cx, y, lay.z_hole - sw.hole_z)

    roll = (lay.x_roll, lay.y_roll, lay.zt - ROLL_BUTTON["body_h"] - ROLL_BUTTON["switch"][2])
    for k in range(1, lay.tiles + 1):
        ref, at = pins["TILE%d" % k][0]
        wire("TILE%d" % k, "board %s" % ref, BOARD_END, "switch %d COM" % k, "solder",
             at, switch_end(k, "COM"))
    ref, at = pins["ROLL"][0]
    wire("ROLL", "board %s" % ref, BOARD_END, "Roll button COM", "2.8 mm receptacle", at, roll)
    gnd = [(r, a) for r, a in pins["GND"]]
    ref, at = min(gnd, key=lambda q: q[1][0])          # the switch ground: the left one
    wire("GND", "board %s" % ref, BOARD_END, "switch 1 NO", "solder", at, switch_end(1, "NO"),
         gauge=26)
    for k in range(1, lay.tiles):
        wire("GND", "switch %d NO" % k, "solder", "switch %d NO" % (k + 1), "solder",
             switch_end(k, "NO"), switch_end(k + 1, "NO"), gauge=26)
    wire("GND", "switch %d NO" % lay.tiles, "solder", "Roll button NO", "2.8 mm receptacle",
         switch_end(lay.tiles, "NO"), roll, gauge=26)
    # the LED chain: feed into tile 1's LED, then LED to LED in chain order
    leds = ([it for it in design.items if it.name.startswith("tile_led_")]
            + [it for it in design.items if it.name.startswith("pip_led_")])
    pos = [(b.center().X, b.center().Y, b.min.Z) for b in
           (it.shape.bounding_box() for it in leds)]
    feed = {"LED_DIN": "DIN", "+5V": "+5V", "GND": "GND"}
    for net, pad in feed.items():
        ref, at = max(pins[net], key=lambda q: q[1][0])
        wire(net, "board %s" % ref, BOARD_END, "%s %s" % (leds[0].name, pad), "solder", at,
             pos[0])
    for a, b, pa, pb in zip(leds, leds[1:], pos, pos[1:], strict=False):
        for net, pa_pad, pb_pad in (("LED_DIN", "DOUT", "DIN"), ("+5V", "+5V", "+5V"),
                                    ("GND", "GND", "GND")):
            wire(net, "%s %s" % (a.name, pa_pad), "solder", "%s %s" % (b.name, pb_pad),
                 "solder", pa, pb)
    bz = design.by_name("buzzer").shape.bounding_box()
    for net, lead in (("+5V", "+"), ("BUZ_C", "-")):
        ref, at = min(pins[net], key=lambda q: q[1][0])
        wire(net, "board %s" % ref, BOARD_END, "buzzer %s" % lead, "solder", at,
             (bz.center().X, bz.center().Y, bz.min.Z), gauge=26)
    # the cells: the holder's + lead to the rocker's pole 1, its ON contact to the board (D1),
    # the holder's - lead to the board's ground rail; pole 2 grounds 3V3_EN when off
    rocker = (lay.width - lay.t - POWER_SWITCH_DEPTH, lay.y_power, lay.z_power)
    hb = design.by_name("battery_holder").shape.bounding_box()
    leads = (hb.max.X, hb.center().Y, hb.min.Z + HOLDER["floor"])
    wire("BAT+", "battery holder + lead", "solder", "rocker pole 1 common", "4.8 mm receptacle",
         leads, rocker)
    for net, contact in (("BAT_SW", "pole 1 ON"), ("3V3_EN", "pole 2 common"),
                         ("GND", "pole 2 OFF")):
        cand = pins[net]
        ref, at = min(cand, key=lambda q: -q[1][1]) if net == "GND" else cand[0]
        wire(net, "board %s" % ref, BOARD_END, "rocker %s" % contact, "4.8 mm receptacle", at,
             rocker)
    ref, at = next((r, a) for r, a in pins["GND"] if r == design.board.cells_gnd)
    wire("GND", "board %s" % ref, BOARD_END, "battery holder - lead", "solder", at, leads)
    return rows


def _harness_csv(design: Design) -> str:
    import csv

    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(("wire", "net", "colour", "AWG", "length mm", "from", "from connector", "to",
                "to connector"))
    w.writerows(harness(design))
    return out.getvalue()


def generate(params: Params, tiles: int, renders=True) -> tuple:
    """Return (committed {relpath: bytes}, design): the files committed under hardware/."""
    design = build(params, tiles)
    return outputs(design, renders), design


def outputs(design: Design, renders=True) -> dict:
    """The committed files of a built design: {relpath: bytes}."""
    from shutbox_host.hardware import enclosure_render as render
    from shutbox_host.hardware import stripboard as S

    lay, tiles = design.lay, design.lay.tiles
    committed = {}
    committed[OUT + "/cut.svg"] = cut_svg(lay).encode()
    committed[OUT + "/cut.dxf"] = cut_dxf(lay)
    committed[OUT + "/parts.csv"] = _parts_csv(design).encode()
    committed[OUT + "/wiring-board.svg"] = S.svg(
        design.board, "shutbox wiring board: %d-tile box, stripboard, both sides"
        % tiles).encode()
    committed[OUT + "/harness.csv"] = _harness_csv(design).encode()
    for name, shape in printed_parts(design).items():
        if not (name.startswith("tile_") and name != "tile_1"):
            committed[OUT + "/stl/%s.stl" % name] = _stl_bytes(shape)
    committed[OUT + "/drawing.svg"] = render.drawing_svg(design).encode()
    if renders:
        committed[OUT + "/assembled.png"] = render.assembled_png(design)
        committed[OUT + "/tile-switch.png"] = render.tile_switch_png(design)
        for i, png in enumerate(render.step_pngs(design), 1):
            committed[OUT + "/step-%d.png" % i] = png
    return committed


def heavy(design: Design) -> dict:
    """The outputs not committed (build/enclosure/): a STEP file of every part and of the
    assembly, the STLs of tiles 2..N."""
    out = {}
    for name, shape in printed_parts(design).items():
        if name.startswith("tile_") and name != "tile_1":
            out[BUILD + "/stl/%s.stl" % name] = _stl_bytes(shape)
    seen = set()
    for it in design.items:
        if it.part in seen or it.name.startswith("lever"):
            continue
        seen.add(it.part)
        parts = [(it.name, it.shape)]
        if it.part == "switch":
            parts.append(("lever", design.by_name("lever_" + it.name.split("_")[1]).shape))
        out[BUILD + "/step/%s.step" % it.part] = _step_bytes(parts, it.part)
    out[BUILD + "/step/assembly.step"] = _step_bytes(
        [(it.name, it.shape) for it in design.items], "shutbox_%d_tiles" % design.lay.tiles)
    return out


def generated(root, tiles=None, renders=True):
    """(committed, design) for the parameter file and pin map under *root*."""
    root = Path(root)
    params = load(root / PARAMS)
    if tiles is None:
        tiles = pinout.load(root / PINMAP).tiles
    return generate(params, tiles, renders)


def _same_picture(a: bytes, b: bytes) -> bool:
    """Whether two PNG renders show the same picture: the same size, at most one pixel in a
    thousand different. Rasterizing the same model on another CPU moves a few pixels of
    anti-aliasing (3-13 of 240,000 measured between two machines); a changed model or view
    moves far more."""
    import io

    from PIL import Image, ImageChops

    x = Image.open(io.BytesIO(a)).convert("RGB")
    y = Image.open(io.BytesIO(b)).convert("RGB")
    if x.size != y.size:
        return False
    mask = ImageChops.difference(x, y).convert("L").point(lambda v: 255 if v else 0)
    return mask.histogram()[255] * 1000 <= x.size[0] * x.size[1]


def stale(root, committed: dict) -> list:
    """Committed outputs under *root* that differ from *committed* (a fresh generation), are
    missing, or should not be there."""
    root = Path(root)
    out = []
    for rel, data in committed.items():
        try:
            old = (root / rel).read_bytes()
            if old == data or rel.endswith(".png") and _same_picture(old, data):
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
    tiles = pinout.load(root / PINMAP).tiles
    if tiles not in TILE_COUNTS:
        raise UserError("%s: tiles = %d; the enclosure is made for %s tiles (use --tiles)"
                        % (PINMAP, tiles, ", ".join(map(str, TILE_COUNTS))))
    return tiles


def run(args) -> int:
    """Generate (or check) the enclosure's outputs."""
    from shutbox_host.hardware import enclosure_checks as checks

    root = Path(args.root)
    params = load(args.params or root / PARAMS)     # one-line errors before the slow part
    tiles = _tiles(args, root)
    # the committed files are the reference box's: compare them only when building it
    reference = not args.params and tiles == pinout.load(root / PINMAP).tiles
    committed, design = generate(params, tiles, renders=not args.check or reference)
    bad, figures = checks.run_checks(design, _bom_rows(root, tiles))
    for line in bad:
        print("check failed: %s" % line, file=sys.stderr)
    print(report_line(figures))
    if args.check:
        out = stale(root, committed) if reference else []
        for rel in out:
            print("out of date: %s (run `shutbox enclosure`)" % rel, file=sys.stderr)
        if not out and not bad:
            print("%d committed enclosure files match %s; every check passes (%d parts)"
                  % (len(committed), PARAMS, len(design.items)))
        return 1 if (out or bad) else 0
    dest = Path(args.out) if args.out else root
    changed = _write_files(dest, {**committed, **heavy(design)})
    for rel in changed:
        print("wrote %s" % rel)
    if not changed:
        print("up to date")
    lay = design.lay
    print("%d tiles: box %.0f x %.0f x %.0f mm, %d parts; laser cut %.0f mm"
          % (tiles, lay.width, lay.depth, lay.height, len(design.items),
             sum(f.cut_length() for f in flats(lay))))
    if args.slice:
        from shutbox_host.hardware import enclosure_render as render

        for name, minutes in render.slice_times(dest / OUT / "stl", dest / BUILD / "gcode"):
            print("print time %s: %s" % (name, minutes))
    return 1 if bad else 0


def report_line(f: dict) -> str:
    """The figures of a check run, on one line."""
    m = f["magnet"]
    return ("thinnest wall %.2f mm (%s); thinnest panel web %.2f mm; closest clearance %.2f "
            "mm (%s, %s); fewest threads %.1f (%s); LEDs at least %.0f %% visible from 30 "
            "degrees up; magnets %.2f N at %.2f mm, a tile opens at %.2f..%.2f N" % (
                f["min_wall"][1], f["min_wall"][0], f["deck"]["panel_web_mm"],
                f["clearance"][0], f["clearance"][1], f["clearance"][2], f["threads"][3],
                f["threads"][0], 100 * f["visibility"], m["pull_n"], m["gap_mm"],
                m["open_min_n"], m["open_max_n"]))


def _bom_rows(root, tiles):
    """The BOM's rows for *tiles* tiles, as `shutbox board` writes them."""
    import csv

    _, data = read_json(Path(root) / PINMAP)
    pm = pinout.parse(dict(data, tiles=tiles))
    return list(csv.DictReader(io.StringIO(boardgen.render_bom(pm))))
