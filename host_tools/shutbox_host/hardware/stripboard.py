# The wiring board: a stripboard layout generated from the pin map, its netlist check, both sides.
"""Lay out the wiring board (the Pico's carrier) on 0.1 inch stripboard from hardware/pinmap.json.

Parts are data: a footprint (pin offsets in holes, pin names) placed at a hole; each pin is on a
net, the nets follow from the pin map (pinout.PinMap) and the circuit of hardware/README.md
section 3. From the placement the generator derives the rest: a strip is cut wherever two nets
would share it (in a free hole between them), and the pieces of a net on different strips are
joined by wire links between free holes, nearest first. `check` follows the copper and the links
back to nets (every net one connected piece, no strip piece with two nets, no hole used twice);
`svg` draws the component side and the copper side (mirrored, as seen when the board is turned
over). A part more (issue: a battery, a switch, a MOSFET) is a footprint and a placement more.
"""

from __future__ import annotations

from dataclasses import dataclass, field

PITCH = 2.54            # mm between holes
COLS, ROWS = 39, 31     # strips run along a row (x); the board is cut to this many holes
MARGIN = 1.27           # board edge beyond the outer holes, mm


@dataclass(frozen=True)
class Footprint:
    """Pins as (name, dcol, drow); the body covers cols/rows [c0, c1] x [r0, r1] (relative)."""

    pins: tuple
    body: tuple          # (c0, r0, c1, r1): holes under the part, not free for links
    height: float        # mm above the board (the 3D model's envelope)
    label: str


def _pico_pins():
    pins = [("%d" % k, 0, k - 1) for k in range(1, 21)]
    pins += [("%d" % k, 7, 40 - k) for k in range(21, 41)]
    return tuple(pins)


FOOTPRINTS = {
    # the Pico on two 1x20 female headers: pin 1 top left (USB end), pin 40 top right
    "pico": Footprint(_pico_pins(), (0, 0, 7, 19), 8.5 + 1.0 + 3.2, "Pico"),
    # a DIP-14 socket across the strips: pins 1..7 down one side, 14..8 up the other
    "dip14": Footprint(tuple([("%d" % k, 0, k - 1) for k in range(1, 8)]
                             + [("%d" % k, 3, 14 - k) for k in range(8, 15)]),
                       (0, 0, 3, 6), 7.5, "74AHCT125"),
    "res": Footprint((("a", 0, 0), ("b", 0, 4)), (0, 0, 0, 4), 3.0, "R"),
    # an axial diode (DO-41) lying across four strips, cathode first
    "diode": Footprint((("k", 0, 0), ("a", 0, 4)), (0, 0, 0, 4), 3.0, "D"),
    # a TO-220 MOSFET standing on its leads, the tab away from the board, turned so its pins
    # run source, drain, gate down the column; its body covers the holes around them
    "to220": Footprint((("S", 0, 0), ("D", 0, 1), ("G", 0, 2)), (-1, -1, 1, 3), 20.0, "Q"),
    # the 5 V step-up module (Pololu U1V10F5 class) lying on its 3-pin header: VIN, GND, VOUT
    "boost": Footprint((("VIN", 0, 0), ("GND", 0, 1), ("VOUT", 0, 2)), (0, -1, 3, 3), 6.5,
                       "5 V boost"),
    "cap": Footprint((("a", 0, 0), ("b", 0, 2)), (0, 0, 0, 2), 5.0, "C"),
    "elco": Footprint((("-", 0, 0), ("+", 0, 2)), (-1, 0, 1, 2), 20.0, "C"),
    "to92": Footprint((("E", 0, 0), ("B", 0, 1), ("C", 0, 2)), (0, 0, 0, 2), 5.0, "Q"),
    "pin": Footprint((("1", 0, 0),), (0, 0, 0, 0), 8.5, "J"),
    "mount": Footprint((("1", 0, 0),), (0, 0, 0, 0), 0.0, "M"),
    "rail": Footprint((("1", 0, 0),), (0, 0, 0, 0), 0.0, "rail"),
}


@dataclass
class Placed:
    """A part on the board: reference, footprint, hole of its (0, 0), nets of its pins."""

    ref: str
    fp: str
    col: int
    row: int
    nets: dict
    bom: str = ""              # its model part / BOM key ("" = no part: a mounting hole)
    value: str = ""

    def holes(self):
        f = FOOTPRINTS[self.fp]
        return [(name, self.col + dc, self.row + dr) for name, dc, dr in f.pins]


@dataclass
class Layout:
    """A placed board: parts, derived cuts (col, row) and links ((c, r), (c, r), net)."""

    parts: list
    cuts: list = field(default_factory=list)
    links: list = field(default_factory=list)
    errors: list = field(default_factory=list)
    tied: list = field(default_factory=list)     # pins a part joins inside (the Pico's GNDs)
    cells_gnd: str = ""                          # the connector of the cells' - lead

    def part(self, ref):
        return next(p for p in self.parts if p.ref == ref)

    def connectors(self):
        """The header pins wires plug onto: [(ref, net, (col, row))]."""
        return [(p.ref, p.nets["1"], (p.col, p.row)) for p in self.parts if p.fp == "pin"]


def pico_nets(pm) -> dict:
    """{Pico pin: net} for a pin map: GPIOs by role, the power pins, the rest unconnected."""
    from shutbox_host.model.pinout import PHYSICAL, PICO_PINOUT

    nets = {}
    for i, name in enumerate(PICO_PINOUT, 1):
        nets[str(i)] = {"GND": "GND", "AGND": "GND", "VSYS": "VSYS", "3V3_EN": "3V3_EN"}.get(
            name, "nc:pico%d" % i)
    for k, gpio in enumerate(pm.tile_pins[:pm.tiles], 1):
        nets[str(PHYSICAL[gpio])] = "TILE%d" % k
    nets[str(PHYSICAL[pm.roll_pin])] = "ROLL"
    nets[str(PHYSICAL[pm.buzzer_pin])] = "BUZZER"
    nets[str(PHYSICAL[pm.led_pin])] = "LED_3V3"
    nets[str(PHYSICAL[pm.led_power_pin])] = "LED_PWR"
    return nets


def place(pm) -> Layout:
    """The reference placement for a pin map; cuts and links derived."""
    from shutbox_host.model.pinout import PHYSICAL

    pico = pico_nets(pm)
    parts = [Placed("U1", "pico", 4, 0, pico, "pico", "Raspberry Pi Pico on 2 x 20 sockets")]
    # the 74AHCT125: 1A from the LED GPIO, 1Y out; unused buffers held still (README sec. 3)
    buf = {"1": "GND", "2": "LED_3V3", "3": "LED_5V", "4": "+5V", "5": "GND", "6": "nc:2y",
           "7": "GND", "8": "nc:3y", "9": "GND", "10": "+5V", "11": "nc:4y", "12": "GND",
           "13": "+5V", "14": "+5V"}
    parts.append(Placed("U2", "dip14", 17, 21, buf, "ic_74ahct125", "74AHCT125 in a socket"))
    parts.append(Placed("R1", "res", 15, 19, {"a": "LED_DIN", "b": "LED_5V"}, "res_330",
                        "330 ohm"))
    parts.append(Placed("C1", "cap", 22, 21, {"a": "+5V", "b": "GND"}, "cap_100n", "100 nF"))
    parts.append(Placed("C2", "elco", 33, 28, {"-": "GND", "+": "+5V"}, "cap_1000u",
                        "1000 uF"))
    # the buzzer driver: GPIO -> 1k -> base; piezo (off board) from +5V to the collector
    bz = PHYSICAL[pm.buzzer_pin]
    brow = _pico_row(bz)
    side = 0 if bz <= 20 else 1
    rx = 1 if side == 0 else 13
    parts.append(Placed("R2", "res", rx, brow, {"a": "BUZZER", "b": "BUZ_BASE"}, "res_1k",
                        "1 kohm"))
    parts.append(Placed("Q1", "to92", 3, 22, {"E": "BUZ_E", "B": "BUZ_BASE2", "C": "BUZ_C"},
                        "npn", "2N3904"))
    parts.append(Placed("R3", "res", 6, 20, {"a": "+5V", "b": "BUZ_C"}, "res_1k", "1 kohm"))
    # the power (README section 3): the cells through the rocker and D1 into VSYS; Q2 (high
    # side) feeds the 5 V boost module U3 from VSYS while Q3, driven by the LED supply's GPIO,
    # pulls Q2's gate down through R5 (C3 with R4 and R5 ramps it: the soft start); R4 holds
    # the gate at VSYS (off) and R7 Q3's base low while the GPIO floats
    parts.append(Placed("D1", "diode", 16, 1, {"k": "VSYS", "a": "BAT_SW"}, "diode",
                        "1N5817"))
    parts.append(Placed("Q2", "to220", 21, 1, {"S": "VSYS", "D": "BOOST_IN", "G": "GATE"},
                        "pmos", "NDP6020P"))
    parts.append(Placed("C3", "cap", 24, 1, {"a": "VSYS", "b": "GATE"}, "cap_2u2", "2.2 uF"))
    parts.append(Placed("R4", "res", 27, 1, {"a": "VSYS", "b": "GATE"}, "res_100k",
                        "100 kohm"))
    parts.append(Placed("R5", "res", 28, 3, {"a": "GATE", "b": "PWR_C"}, "res_10k", "10 kohm"))
    parts.append(Placed("Q3", "to92", 30, 5, {"E": "GND", "B": "PWR_B", "C": "PWR_C"}, "npn",
                        "2N3904"))
    parts.append(Placed("R7", "res", 32, 6, {"a": "PWR_B", "b": "GND"}, "res_100k",
                        "100 kohm"))
    lp = PHYSICAL[pm.led_power_pin]
    parts.append(Placed("R6", "res", 17 if lp > 20 else 2, _pico_row(lp) - 4,
                        {"a": "PWR_B", "b": "LED_PWR"}, "res_10k", "10 kohm"))
    parts.append(Placed("U3", "boost", 33, 2, {"VIN": "BOOST_IN", "GND": "GND", "VOUT": "+5V"},
                        "boost", "5 V step-up"))
    # connector pins for the harness: tiles, Roll, switch ground on the left; the LED chain,
    # the buzzer, the rocker on the right
    pins = []
    for k, gpio in enumerate(pm.tile_pins[:pm.tiles], 1):
        pins.append(("TILE%d" % k, _edge(PHYSICAL[gpio])))
    pins.append(("ROLL", _edge(PHYSICAL[pm.roll_pin])))
    pins.append(("GND", (1, _pico_row(18))))          # switch ground, beside pin 18
    pins += [("LED_DIN", (16, 19)), ("+5V", (36, 30)), ("GND", (36, 28)),
             ("+5V", (8, 20)), ("BUZ_C", (8, 24)),
             ("BAT_SW", (18, 5)), ("3V3_EN", (14, _pico_row(37))),
             ("GND", (14, _pico_row(38))), ("GND", (29, 28))]
    for i, (net, (c, r)) in enumerate(pins, 1):
        parts.append(Placed("J%d" % i, "pin", c, r, {"1": net}, "pin_header", net))
    cells = "J%d" % len(pins)                          # the last: GND beside the rail's end
    # rails: GND on row 28, +5V on row 30 (the 1000 uF across them)
    parts.append(Placed("RAIL1", "rail", 2, 28, {"1": "GND"}, "", "GND rail"))
    parts.append(Placed("RAIL2", "rail", 2, 30, {"1": "+5V"}, "", "+5V rail"))
    for i, (c, r) in enumerate(MOUNTS):
        parts.append(Placed("H%d" % (i + 1), "mount", c, r, {"1": "mount%d" % i}))
    lay = Layout(parts, cells_gnd=cells)
    lay.tied = [[("U1", str(i)) for i, n in pico.items() if n == "GND"]]
    # the transistor's base, emitter and collector join their nets through short links
    _route(lay, {"BUZ_BASE2": "BUZ_BASE", "BUZ_E": "GND"})
    return lay


MOUNTS = ((0, 0), (COLS - 1, 0), (0, ROWS - 1), (COLS - 1, ROWS - 1))


def _pico_row(physical: int) -> int:
    return physical - 1 if physical <= 20 else 40 - physical


def _edge(physical: int):
    """The free hole beside a Pico pin, outside the Pico, for a connector pin."""
    return (1, _pico_row(physical)) if physical <= 20 else (14, _pico_row(physical))


def _route(lay: Layout, alias: dict) -> None:
    """Derive cuts and links: nets named in *alias* are the same net (kept apart only so the
    placement reads clearly)."""
    for p in lay.parts:
        p.nets = {k: alias.get(v, v) for k, v in p.nets.items()}
    used = {}
    for p in lay.parts:
        for name, c, r in p.holes():
            if not (0 <= c < COLS and 0 <= r < ROWS):
                lay.errors.append("%s pin %s off the board at (%d, %d)" % (p.ref, name, c, r))
            elif (c, r) in used:
                lay.errors.append("hole (%d, %d) used by %s and %s" % (c, r, used[(c, r)],
                                                                         p.ref))
            used[(c, r)] = p.ref
    blocked = set(used)
    for p in lay.parts:
        c0, r0, c1, r1 = FOOTPRINTS[p.fp].body
        for c in range(p.col + c0, p.col + c1 + 1):
            for r in range(p.row + r0, p.row + r1 + 1):
                blocked.add((c, r))
    for p in lay.parts:
        c0, r0, c1, r1 = FOOTPRINTS[p.fp].body
        for q in lay.parts:
            if q is not p and any(p.col + c0 <= c <= p.col + c1 and p.row + r0 <= r <= p.row + r1
                                  for _, c, r in q.holes()):
                lay.errors.append("%s has a pin under %s" % (q.ref, p.ref))
    net_at = {}
    for p in lay.parts:
        for name, c, r in p.holes():
            net_at[(c, r)] = p.nets[name]
    # cuts: between neighbouring pins of different nets on a strip, in a free hole
    for r in range(ROWS):
        occupied = sorted(c for (c, rr) in net_at if rr == r)
        for a, b in zip(occupied, occupied[1:], strict=False):
            if net_at[(a, r)] == net_at[(b, r)]:
                continue
            free = [c for c in range(a + 1, b) if (c, r) not in used]
            if not free:
                lay.errors.append("row %d: %s at %d and %s at %d with no hole between to cut"
                                  % (r, net_at[(a, r)], a, net_at[(b, r)], b))
                continue
            cut = free[len(free) // 2]
            lay.cuts.append((cut, r))
            used[(cut, r)] = "cut"
    # links: join the pieces of each net, nearest free holes first (Prim's tree); pieces
    # a part joins inside (the Pico's grounds) count as one
    segs = segments(lay)
    seg_of = {h: i for i, seg in enumerate(segs) for h in seg}
    pin_hole = {(p.ref, name): (c, r) for p in lay.parts for name, c, r in p.holes()}
    group = list(range(len(segs)))

    def top(i):
        while group[i] != i:
            i = group[i]
        return i
    for tie in lay.tied:
        for ref in tie[1:]:
            group[top(seg_of[pin_hole[ref]])] = top(seg_of[pin_hole[tie[0]]])
    by_net = {}
    for i, seg in enumerate(segs):
        nets = {net_at[h] for h in seg if h in net_at}
        if len(nets) == 1:
            by_net.setdefault(nets.pop(), {}).setdefault(top(i), []).append(seg)
    for net, pieces in sorted(by_net.items()):
        pieces = list(pieces.values())
        if len(pieces) < 2 or net.startswith(("nc:", "mount")):
            continue
        joined = pieces[0]
        rest = pieces[1:]
        while rest:
            best = None
            for i, piece in enumerate(rest):
                for a in _free(joined, used, blocked):
                    for b in _free(piece, used, blocked):
                        d = abs(a[0] - b[0]) + abs(a[1] - b[1]) + (0 if a[0] == b[0] else 2)
                        if best is None or d < best[0]:
                            best = (d, i, a, b)
            if best is None:
                lay.errors.append("net %s: no free holes to link its pieces" % net)
                break
            _, i, a, b = best
            lay.links.append((a, b, net))
            used[a] = used[b] = "link"
            joined = joined + rest.pop(i)


def _free(pieces, used, blocked):
    for seg in pieces:
        for h in seg:
            if h not in used and h not in blocked:
                yield h


def segments(lay: Layout) -> list:
    """The strip pieces between cuts: lists of holes (col, row)."""
    cuts = set(lay.cuts)
    out = []
    for r in range(ROWS):
        seg = []
        for c in range(COLS):
            if (c, r) in cuts:
                if seg:
                    out.append(seg)
                seg = []
                continue
            seg.append((c, r))
        if seg:
            out.append(seg)
    return out


def check(lay: Layout) -> list:
    """The netlist check: follow the copper and the links; return the problems (none = good).

    Every net's pins must be one connected piece, no strip piece may carry two nets, every
    link must join holes of its own net and no hole is used twice."""
    bad = list(lay.errors)
    parent = {}

    def find(x):
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def join(a, b):
        parent[find(a)] = find(b)

    for seg in segments(lay):
        for h in seg[1:]:
            join(seg[0], h)
    holes = {}
    for p in lay.parts:
        for name, c, r in p.holes():
            holes[(p.ref, name)] = (c, r)
    for a, b, _ in lay.links:
        join(a, b)
    for group in lay.tied:
        for ref in group[1:]:
            join(holes[group[0]], holes[ref])
    pins_of = {}
    for p in lay.parts:
        for name, c, r in p.holes():
            pins_of.setdefault(p.nets[name], []).append((p.ref, name, (c, r)))
    net_of_root = {}
    for net, pins in sorted(pins_of.items()):
        roots = {find(h) for _, _, h in pins}
        if len(roots) > 1 and not net.startswith(("nc:", "mount")):
            bad.append("net %s is in %d pieces" % (net, len(roots)))
        for root in roots:
            if root in net_of_root and net_of_root[root] != net:
                bad.append("nets %s and %s are joined" % (net_of_root[root], net))
            net_of_root[root] = net
    seen = {}
    for a, b, net in lay.links:
        for h in (a, b):
            if h in seen:
                bad.append("hole %s used by two links" % (h,))
            seen[h] = net
    return bad


def nets(lay: Layout) -> dict:
    """{net: [(ref, pin)]} of the placed parts (what the board must connect)."""
    out = {}
    for p in lay.parts:
        for name, _, _ in p.holes():
            out.setdefault(p.nets[name], []).append((p.ref, name))
    return out


# --- the drawing --------------------------------------------------------------------------------

NET_COLOURS = {"+5V": "#d62728", "GND": "#222222", "VBUS": "#ff7f0e", "3V3_EN": "#7f7f7f",
               "LED_3V3": "#e0b000", "LED_5V": "#e0b000", "LED_DIN": "#e0b000",
               "BUZZER": "#8a4fbf", "BUZ_BASE": "#8a4fbf", "BUZ_C": "#8a4fbf",
               "ROLL": "#2a9d3c", "VSYS": "#c0392b", "BAT_SW": "#ff7f0e",
               "BOOST_IN": "#c0392b", "LED_PWR": "#b8860b", "PWR_B": "#b8860b",
               "PWR_C": "#7f7f7f", "GATE": "#7f7f7f"}


HALO = ' stroke="#ffffff" stroke-width="2.5" paint-order="stroke"'   # text over the holes


def _colour(net):
    return NET_COLOURS.get(net, "#1f6fb4" if net.startswith("TILE") else "#9aa5b1")


def svg(lay: Layout, title: str) -> str:
    """Both sides: the component side (parts, links) and the copper side (strips, cuts), the
    copper side mirrored left to right as it lies when the board is turned over."""
    s = 16                                   # px per hole
    w, h = COLS * s + 40, ROWS * s + 40
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
           'font-family="Helvetica, Arial, sans-serif">' % (2 * w + 40, h + 120, 2 * w + 40,
                                                           h + 120),
           "<title>%s</title>" % title,
           '<rect width="%d" height="%d" fill="#ffffff"/>' % (2 * w + 40, h + 120)]
    net_at = {}
    for p in lay.parts:
        for name, c, r in p.holes():
            net_at[(c, r)] = p.nets[name]
    for side, ox in (("component side (parts and wire links)", 20),
                     ("copper side, board turned over left to right (strips and cuts: X)",
                      w + 40)):
        copper = ox > 20

        def X(c, copper=copper, ox=ox):
            return ox + 20 + ((COLS - 1 - c) if copper else c) * s + s / 2

        def Y(r):
            return 60 + 20 + r * s + s / 2
        out.append('<text x="%d" y="40" font-size="15" font-weight="bold">%s</text>'
                   % (ox, side))
        out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="%s" stroke="#555"/>'
                   % (ox + 20, 80, COLS * s, ROWS * s, "#e8c9a0" if copper else "#d9e8d0"))
        if copper:
            for seg in segments(lay):
                r = seg[0][1]
                xs = [X(c) for c, _ in seg]
                nets = {net_at[hh] for hh in seg if hh in net_at}
                col = _colour(nets.pop()) if len(nets) == 1 else "#b87333"
                out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" '
                           'stroke-width="%d" stroke-opacity="0.55"/>'
                           % (min(xs) - s / 2 + 1, Y(r), max(xs) + s / 2 - 1, Y(r), col, s - 4))
            for c, r in lay.cuts:
                out.append('<path d="M %.1f %.1f l 8 8 m -8 0 l 8 -8" stroke="#c00" '
                           'stroke-width="2.5"/>' % (X(c) - 4, Y(r) - 4))
        for c in range(COLS):
            for r in range(ROWS):
                out.append('<circle cx="%.1f" cy="%.1f" r="1.6" fill="#555"/>' % (X(c), Y(r)))
        if copper:
            continue
        for a, b, net in lay.links:
            out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" '
                       'stroke-width="3"/>' % (X(a[0]), Y(a[1]), X(b[0]), Y(b[1]), _colour(net)))
        for p in lay.parts:
            f = FOOTPRINTS[p.fp]
            if p.fp == "mount":
                out.append('<circle cx="%.1f" cy="%.1f" r="6" fill="none" stroke="#000"/>'
                           % (X(p.col), Y(p.row)))
                continue
            c0, r0, c1, r1 = f.body
            x0, y0 = X(p.col + c0) - s / 2 + 2, Y(p.row + r0) - s / 2 + 2
            if p.fp != "rail":
                out.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" '
                           'stroke="#333" stroke-width="1.5" rx="3"/>'
                           % (x0, y0, (c1 - c0 + 1) * s - 4, (r1 - r0 + 1) * s - 4))
            for name, c, r in p.holes():
                out.append('<circle cx="%.1f" cy="%.1f" r="4" fill="%s"/>'
                           % (X(c), Y(r), _colour(p.nets[name])))
            if p.fp in ("pico", "dip14"):       # big parts: their name inside, upright
                cx = x0 + (c1 - c0 + 1) * s / 2 - 2
                cy = y0 + (r1 - r0 + 1) * s / 2
                out.append('<text x="%.1f" y="%.1f" font-size="11" text-anchor="middle" '
                           'transform="rotate(-90 %.1f %.1f)"%s>%s %s</text>'
                           % (cx, cy, cx, cy, HALO, p.ref, FOOTPRINTS[p.fp].label))
                continue
            label = p.value if p.fp in ("pin", "rail") else "%s %s" % (p.ref, p.value)
            out.append('<text x="%.1f" y="%.1f" font-size="8"%s>%s</text>'
                       % (x0 + (c1 - c0 + 1) * s, y0 + 9, HALO, _esc(label)))
    out.append('<text x="20" y="%d" font-size="12">%d x %d holes (%.0f x %.0f mm); %d cuts, '
               '%d wire links. Generated from hardware/pinmap.json by `shutbox enclosure`; '
               'checked by tests/hardware (every net connected, no strip shared).</text>'
               % (h + 100, COLS, ROWS, COLS * PITCH + 2 * MARGIN, ROWS * PITCH + 2 * MARGIN,
                  len(lay.cuts), len(lay.links)))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
