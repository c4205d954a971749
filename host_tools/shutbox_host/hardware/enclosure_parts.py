# The bought hardware of the enclosure: screws, nuts, washers, magnets, feet, as data and solids.
"""Catalogue of the box's fasteners and magnets, with the figures of their standards, and their
solids as the assembly holds them.

A screw is three solids: its head, its plain shank (none on these fully threaded sizes) and its
thread, modelled at the thread's major diameter. A part it screws into is modelled with the
hole it really has: a nut or a standoff with its thread's minor diameter, a printed part with
a thread-forming pilot. So the thread overlaps the part it engages, and that overlap's volume
over the thread's annulus is the length of engaged thread, measured on the solids
(enclosure_checks.thread_report); any other overlap is a collision.

The magnet pair's force is computed from the grade's remanence (the maker's figure) and the gap
measured in the model, by the surface-charge model of two coaxial disc magnets.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# ISO 261 coarse pitch; ISO 273 medium clearance holes; the pilot a thread-forming machine screw
# cuts its own thread in printed PLA (a design choice, tried on the tolerance coupon).
PITCH = {"M2": 0.4, "M2.5": 0.45, "M3": 0.5}
CLEARANCE = {"M2": 2.4, "M2.5": 2.9, "M3": 3.4}
PILOT = {"M2": 1.6, "M2.5": 2.1, "M3": 2.5}
MIN_THREADS = 3            # engaged threads every screw needs, at least


def minor(size: str) -> float:
    """Internal thread's minor diameter D1 = d - 1.0825 P (ISO 724): a nut's or a standoff's
    hole as modelled."""
    d = float(size[1:])
    return d - 1.0825 * PITCH[size]


@dataclass(frozen=True)
class Head:
    """A screw head: 'pan' (ISO 7045) or 'csk' (ISO 10642, 90 degrees)."""

    kind: str
    dk: float       # head diameter (max)
    k: float        # head height (max)


# ISO 7045 pan head, ISO 10642 countersunk hexagon socket: dk, k at their maximum.
HEADS = {("pan", "M2"): Head("pan", 4.0, 1.6), ("pan", "M2.5"): Head("pan", 5.0, 2.1),
         ("pan", "M3"): Head("pan", 5.6, 2.4), ("csk", "M3"): Head("csk", 6.72, 1.86)}
STANDARD = {"pan": "ISO 7045", "csk": "ISO 10642"}
# ISO 4032 hexagon nuts (s across flats, m height); ISO 7089 washers (d1, d2, h).
NUTS = {"M2": (4.0, 1.6), "M2.5": (5.0, 2.0), "M3": (5.5, 2.4)}
WASHERS = {"M2": (2.2, 5.0, 0.3), "M2.5": (2.7, 6.0, 0.5), "M3": (3.2, 7.0, 0.5)}


@dataclass(frozen=True)
class Screw:
    """A screw by size, length and head; fully threaded (these short sizes are)."""

    size: str
    length: float        # nominal: under the head for a pan head, overall for a countersunk one
    head: str

    @property
    def key(self) -> str:
        """Its model part and BOM key, e.g. screw_m3x6_csk."""
        return "screw_%sx%g_%s" % (self.size.lower().replace(".", ""), self.length, self.head)

    @property
    def d(self) -> float:
        return float(self.size[1:])

    @property
    def h(self) -> Head:
        return HEADS[(self.head, self.size)]

    @property
    def thread_len(self) -> float:
        """Length of thread below the head's bearing face (the cone of a countersunk head
        counts in its nominal length)."""
        return self.length - (self.h.k if self.head == "csk" else 0.0)

    def describe(self) -> str:
        return "%s x %g %s, %s" % (self.size, self.length, {"pan": "pan head",
                                                             "csk": "countersunk"}[self.head],
                                   STANDARD[self.head])


def screw_solids(bd, screw: Screw, origin, direction):
    """(head, shank, thread) solids of *screw*: *origin* is the centre of the head's bearing
    face (for a countersunk head: of its top, flush with the surface), *direction* the unit
    axis from the head into the work."""
    h = screw.h
    loc = _frame(bd, origin, direction)
    if screw.head == "csk":
        head = bd.Cone(h.dk / 2, screw.d / 2, h.k,
                       align=(bd.Align.CENTER, bd.Align.CENTER, bd.Align.MIN))
        start = h.k
    else:
        head = bd.Pos(0, 0, -h.k) * bd.Cylinder(h.dk / 2, h.k, align=(
            bd.Align.CENTER, bd.Align.CENTER, bd.Align.MIN))
        start = 0.0
    thread = bd.Pos(0, 0, start) * bd.Cylinder(screw.d / 2, screw.thread_len, align=(
        bd.Align.CENTER, bd.Align.CENTER, bd.Align.MIN))
    return loc * head, None, loc * thread


def nut_solid(bd, size: str, origin, direction):
    """A hex nut whose bearing face is centred at *origin*, extending along *direction*; its
    hole at the thread's minor diameter."""
    s, m = NUTS[size]
    body = bd.extrude(bd.RegularPolygon(s / math.sqrt(3), 6), m)
    hole = bd.Cylinder(minor(size) / 2, m + 2, align=(bd.Align.CENTER, bd.Align.CENTER,
                                                        bd.Align.MIN))
    return _frame(bd, origin, direction) * (body - bd.Pos(0, 0, -1) * hole)


def washer_solid(bd, size: str, origin, direction):
    d1, d2, h = WASHERS[size]
    ring = bd.Cylinder(d2 / 2, h, align=(bd.Align.CENTER, bd.Align.CENTER, bd.Align.MIN))
    hole = bd.Cylinder(d1 / 2, h + 2, align=(bd.Align.CENTER, bd.Align.CENTER, bd.Align.MIN))
    return _frame(bd, origin, direction) * (ring - bd.Pos(0, 0, -1) * hole)


def _frame(bd, origin, direction):
    """The location putting local +z along *direction* at *origin*."""
    dx, dy, dz = direction
    return bd.Location(bd.Plane(origin=tuple(origin), z_dir=(dx, dy, dz)))


# --- magnets ------------------------------------------------------------------------------------

MU0 = 4e-7 * math.pi
# Sintered NdFeB grades: minimum remanence Br (the maker's table; dhit.pl, "Magnetic properties
# of material N38": Br 1220-1260 mT; N35: 1170-1220 mT).
GRADES = {"N35": 1.17, "N38": 1.22}
GRADE_SOURCE = "dhit.pl grade tables (N38: Br 1220-1260 mT; N35: 1170-1220 mT)"


def _disc_integral(r: float, d: float) -> float:
    """I(d) = integral over k of J1(kr)^2 / k * exp(-kd): the interaction of two coaxial
    uniformly charged discs of radius r a distance d apart, over mu0 sigma^2 pi r^2."""
    from scipy import integrate, special

    if d <= 0:
        return 0.5
    # substitute x = k r and integrate piece by piece over the Bessel function's oscillations,
    # up to where the exponential (or, for discs nearly touching, 1/x^2) leaves under 1e-4
    k = d / r
    top = min(28.0 / k, 4000.0)
    total, x = 0.0, 0.0
    while x < top:
        val, _ = integrate.quad(lambda u: special.j1(u) ** 2 / u * math.exp(-u * k), x,
                                min(x + 20.0, top), limit=200)
        total += val
        x += 20.0
    # the tail: J1(u)^2 averages 1 / (pi u) there
    return total + math.exp(-top * k) / (math.pi * top)


def pair_force(diameter: float, thickness: float, gap: float, br: float) -> float:
    """Pull in N between two identical coaxial disc magnets (mm, tesla), attracting, *gap* mm
    apart: the surface-charge model (each face a disc of charge M = Br / mu0; Vokoun et al.,
    J. Magn. Magn. Mater. 321 (2009) 3758, eq. for coaxial cylinders)."""
    r, t, g = diameter / 2e3, thickness / 1e3, gap / 1e3
    m = br / MU0
    c = MU0 * m * m * math.pi * r * r
    return c * (_disc_integral(r, g) - 2 * _disc_integral(r, g + t)
                + _disc_integral(r, g + 2 * t))
