# Pictures of the enclosure: shaded PNG renders (matplotlib, headless), the dimensioned drawing.
"""Render the enclosure headlessly and draw its dimensioned plan; slice its STLs if a slicer is
installed.

Renders tessellate every part (OpenCascade's mesher via build123d) and draw all triangles in one
matplotlib Poly3DCollection on the Agg canvas (no display needed), so the depth sort spans the
whole scene. The PNGs carry no timestamp or version, so a regeneration is byte-equal.
"""

from __future__ import annotations

import io
import math
import re
import shutil
import subprocess
from pathlib import Path
from xml.sax.saxutils import escape

from shutbox_host import mp
from shutbox_host.hardware import enclosure as E
from shutbox_host.hardware import enclosure_checks as checks

LIGHT = (0.35, -0.55, 0.76)   # towards the light, world axes


def _triangles(items, offsets=None, tolerance=0.25, longest=9.0):
    """(triangles (n, 3, 3), colours (n, 3)) of the parts, each moved by its offset (by name)."""
    import numpy as np

    tris, cols = [], []
    light = np.array(LIGHT) / np.linalg.norm(LIGHT)
    for it in items:
        verts, faces = checks.tessellate(it.shape, tolerance, 0.4)
        if not faces:
            continue
        v = np.array([(p.X, p.Y, p.Z) for p in verts])
        if offsets and it.name in offsets:
            v = v + np.array(offsets[it.name])
        t = _subdivide(v[np.array(faces)], longest)
        n = np.cross(t[:, 1] - t[:, 0], t[:, 2] - t[:, 0])
        norm = np.linalg.norm(n, axis=1)
        keep = norm > 1e-12
        t, n, norm = t[keep], n[keep], norm[keep]
        shade = 0.35 + 0.65 * np.abs(n @ light) / norm
        tris.append(t)
        cols.append(np.clip(np.outer(shade, it.colour), 0, 1))
    return np.concatenate(tris), np.concatenate(cols)


def _subdivide(t, longest=9.0, rounds=4):
    """Split triangles with an edge over *longest* mm in four, so the painter's depth sort of
    long thin faces (a deck's top) does not put them in front of what stands on them."""
    import numpy as np

    for _ in range(rounds):
        edge = np.max(np.linalg.norm(t - np.roll(t, 1, axis=1), axis=2), axis=1)
        big = edge > longest
        if not big.any():
            break
        a, b, c = t[big, 0], t[big, 1], t[big, 2]
        ab, bc, ca = (a + b) / 2, (b + c) / 2, (c + a) / 2
        parts = [np.stack(q, axis=1) for q in ((a, ab, ca), (ab, b, bc), (ca, bc, c),
                                               (ab, bc, ca))]
        t = np.concatenate([t[~big]] + parts)
    return t


def _draw(ax, items, elev, azim, offsets=None, box=None, coarse=False):
    """Draw the parts on a 3D axes with an orthographic camera."""
    import numpy as np
    from mpl_toolkits.mplot3d.art3d import Poly3DCollection

    tris, cols = (_triangles(items, offsets, 0.5, 20.0) if coarse
                  else _triangles(items, offsets))
    coll = Poly3DCollection(tris, facecolors=cols, edgecolors=cols, linewidths=0.15)
    ax.add_collection3d(coll)
    lo, hi = tris.reshape(-1, 3).min(axis=0), tris.reshape(-1, 3).max(axis=0)
    if box is not None:
        lo, hi = np.array(box[0]), np.array(box[1])
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    ax.set_zlim(lo[2], hi[2])
    ax.set_box_aspect(tuple(hi - lo))
    ax.view_init(elev=elev, azim=azim)
    ax.set_axis_off()


def _figure(w, h):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(w, h), dpi=100)
    fig.subplots_adjust(0, 0, 1, 1, 0.02, 0.02)
    return fig


def _png(fig) -> bytes:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    out = io.BytesIO()
    fig.savefig(out, format="png", metadata={"Software": None}, facecolor="white")
    return out.getvalue()


def assembled_png(design) -> bytes:
    """The assembled box from the front right, the even tiles shut (the parts inside, hidden
    by the walls and the deck, are left out)."""
    fig = _figure(9, 5.6)
    ax = fig.add_subplot(projection="3d", proj_type="ortho")
    outside = ("walls", "posts", "tiles", "deck", "close")
    top = design.lay.zt - 0.2          # and what shows in the deck: light pipes, screw heads
    _draw(ax, [it for it in design.items if it.group in outside or it.name == "base"
               or it.shape.bounding_box().max.Z >= top], 28, -62)
    fig.text(0.02, 0.03, "%d-tile box, %.0f x %.0f x %.0f mm; tiles %s shut"
             % (design.lay.tiles, design.lay.width, design.lay.depth, design.lay.height,
                ", ".join(map(str, design.shut))), fontsize=9)
    return _png(fig)


def _explode(items) -> dict:
    """{name: offset}: screws out along their axis, nuts and washers with them, magnets and
    light pipes lifted out of their holes: what the step puts in place."""
    import numpy as np

    out = {}
    for it in items:
        if it.thread is not None:
            head = (it.shape - it.thread).bounding_box().center()
            tip = it.thread.bounding_box().center()
            d = np.array([head.X - tip.X, head.Y - tip.Y, head.Z - tip.Z])
            out[it.name] = tuple(d / (np.linalg.norm(d) or 1) * 14.0)
        elif it.part.startswith(("nut", "washer")):
            out[it.name] = (9.0 if it.part.startswith("nut") else 6.0, 0, 0)
        elif it.part in ("magnet", "light_pipe", "pip_light_pipe", "led"):
            out[it.name] = (0, 0, {"magnet": 8.0, "led": -8.0}.get(it.part, 8.0))
    return out


def step_pngs(design) -> list:
    """One small picture per build step (enclosure.STEPS): that step's parts, exploded."""
    out = []
    for group, title in E.STEPS:
        items = [it for it in design.items if it.group == group]
        fig = _figure(6, 4)
        ax = fig.add_subplot(projection="3d", proj_type="ortho")
        _draw(ax, items, 30, -60, offsets=_explode(items), coarse=True)
        fig.text(0.02, 0.02, title, fontsize=7)
        out.append(_png(fig))
    return out


def _tile_scene(design, shut: bool):
    """Half-section (x <= tile 1's centre) of tile 1 and what is around it, in one state."""
    lay = design.lay
    cx = lay.tile_x(1)
    x0 = lay.post_x(0) - lay.post_w / 2 - lay.end_out - 1
    y0, y1 = lay.y_led - 12, lay.y_rest + 6
    z0, z1 = lay.z_hole - 8, lay.z_rest + 6
    cut = E._box(x0, cx, y0, y1, z0, z1 + 30)
    tile = E.tile_pose(lay, E.tile_solid(lay, 1), shut)
    angle = E.lever_rest_angle(lay, tile, 1)
    body, lever = E.switch_solids(lay, 1, angle)
    p = lay.p
    mag = E.magnet_solid(cx, lay.y_magnet, lay.zt + p.magnet_recess, p.magnet_diameter,
                         p.magnet_thickness)
    C = E.COLOURS
    parts = [("deck", design.by_name("deck").shape, C["panel"]),
             ("tile", tile, C["tile"]), ("mag", E.tile_pose(lay, mag, shut), C["magnet"]),
             ("dmag", design.by_name("deck_magnet_1").shape, C["magnet"]),
             ("cradle", design.by_name("cradle_1").shape, C["print"]),
             ("body", body, C["switch"]), ("lever", lever, (0.9, 0.1, 0.1)),
             ("led", design.by_name("tile_led_1").shape, C["led"]),
             ("pipe", design.by_name("light_pipe_1").shape, C["pipe"]),
             ("screw_a", design.by_name("screw_cradle_1_a").shape, C["screw"]),
             ("screw_b", design.by_name("screw_cradle_1_b").shape, C["screw"]),
             ("post", design.by_name("end_post_left").shape, C["post"]),
             ("hinge", design.by_name("hinge_rod").shape, C["steel"]),
             ("rest", design.by_name("rest_rod").shape, C["steel"])]
    items = []
    for name, shape, colour in parts:
        piece = shape & cut
        if piece.volume > E.TOL:
            items.append(E.Item(name, piece, "", name, colour, ""))
    return items, lay.p.switch.lever_height(angle), ((x0, y0, z0), (cx, y1, z1))


def tile_switch_png(design) -> bytes:
    """Tile 1 open and shut over its switch, cut through its middle, with the lever's heights."""
    sw = design.lay.p.switch
    fig = _figure(10, 5.0)
    for i, shut in enumerate((False, True)):
        items, h, box = _tile_scene(design, shut)
        ax = fig.add_subplot(1, 2, i + 1, projection="3d", proj_type="ortho")
        _draw(ax, items, 8, 4, box=box)
        if shut:
            title = ("shut: lever pressed to %.2f mm\n(operates at %.1f +- %.1f, OT min %.2f)"
                     % (h, sw.op, sw.op_tol, sw.ot_min))
        else:
            title = ("open: lever free at %.2f mm\n(releases by %.1f = OP + MD)" % (h, sw.rp_max))
        fig.text(0.05 + 0.5 * i, 0.9, title, fontsize=10)
    fig.text(0.02, 0.02, "%s under tile 1, cut through the tile's middle; heights above the "
             "switch's mounting holes (datasheet convention)" % sw.part, fontsize=8)
    return _png(fig)


# --- the dimensioned drawing --------------------------------------------------------------------

class _Svg:
    """Minimal SVG writer for the drawing (mm in, px out at a fixed scale)."""

    def __init__(self, scale):
        self.k = scale
        self.items = []

    def line(self, x1, y1, x2, y2, colour="#000", width=1.0, dash=None):
        d = ' stroke-dasharray="%s"' % dash if dash else ""
        self.items.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" '
                          'stroke-width="%s"%s/>' % (x1, y1, x2, y2, colour, width, d))

    def rect(self, x, y, w, h, colour="#000", width=1.0, fill="none"):
        self.items.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" '
                          'stroke="%s" stroke-width="%s"/>' % (x, y, w, h, fill, colour, width))

    def circle(self, x, y, r, colour="#000", width=1.0):
        self.items.append('<circle cx="%.1f" cy="%.1f" r="%.1f" fill="none" stroke="%s" '
                          'stroke-width="%s"/>' % (x, y, r, colour, width))

    def text(self, x, y, s, size=11, anchor="middle", rotate=None, colour="#000"):
        rot = ' transform="rotate(%d %.1f %.1f)"' % (rotate, x, y) if rotate else ""
        self.items.append('<text x="%.1f" y="%.1f" font-size="%d" text-anchor="%s" fill="%s"%s>'
                          '%s</text>' % (x, y, size, anchor, colour, rot, escape(s)))

    def dim_h(self, x1, x2, y, label, ext_from=None):
        """Horizontal dimension between x1 and x2 at height y, with arrows and extension lines."""
        c = "#1f5fa8"
        if ext_from is not None:
            for x in (x1, x2):
                self.line(x, ext_from, x, y + (3 if y > ext_from else -3), c, 0.6)
        self.line(x1, y, x2, y, c, 0.8)
        for x, s in ((x1, 1), (x2, -1)):
            self.items.append('<path d="M %.1f %.1f l %.1f -2.5 l 0 5 z" fill="%s"/>'
                              % (x, y, 7 * s, c))
        self.text((x1 + x2) / 2, y - 4, label, 11, colour=c)

    def dim_v(self, x, y1, y2, label, ext_from=None):
        """Vertical dimension between y1 and y2 at x."""
        c = "#1f5fa8"
        if ext_from is not None:
            for y in (y1, y2):
                self.line(ext_from, y, x + (3 if x > ext_from else -3), y, c, 0.6)
        self.line(x, y1, x, y2, c, 0.8)
        for y, s in ((y1, 1), (y2, -1)):
            self.items.append('<path d="M %.1f %.1f l -2.5 %.1f l 5 0 z" fill="%s"/>'
                              % (x, y, 7 * s, c))
        self.text(x - 5, (y1 + y2) / 2, label, 11, rotate=-90, colour=c)


def drawing_svg(design) -> str:
    """Plan of the deck (every hole), a front view and a section through a tile, dimensioned."""
    lay, p = design.lay, design.lay.p
    k = 3.0
    W, D, H = lay.width, lay.depth, lay.height
    ox, oy = 90.0, 60.0                  # plan view origin (top left of the deck) in px
    svg = _Svg(k)

    def px(x):
        return ox + x * k

    def py(y):                           # plan: back of the box at the top
        return oy + (D - y) * k

    deck = E.flats(lay)[0]
    svg.text(ox, oy - 30, "Deck, seen from above (mm); front of the box at the bottom", 13,
             "start")
    svg.rect(px(0), py(D), W * k, D * k, width=1.4)
    for hole in deck.holes:
        if hole[0] == "circle":
            svg.circle(px(hole[1]), py(hole[2]), hole[3] / 2 * k, width=0.8)
        else:
            _, cx, cy, w, h = hole
            svg.rect(px(cx - w / 2), py(cy + h / 2), w * k, h * k, width=0.8)
    # tiles (shut outline) and posts in grey
    for t in range(1, lay.tiles + 1):
        cx = lay.tile_x(t)
        svg.rect(px(cx - p.tile_width / 2), py(lay.y_hinge), p.tile_width * k,
                 p.tile_length * k, "#999", 0.6)
        svg.text(px(cx), py(lay.y_hinge - p.tile_length / 2) + 4, str(t), 11, colour="#999")
    svg.line(px(0), py(lay.y_hinge), px(W), py(lay.y_hinge), "#c33", 0.6, "6 3")
    svg.text(px(W) + 6, py(lay.y_hinge) + 4, "hinge axis", 10, "start", colour="#c33")
    svg.line(px(0), py(lay.y_rest), px(W), py(lay.y_rest), "#c33", 0.6, "2 3")
    svg.text(px(W) + 6, py(lay.y_rest) + 4, "rest rod", 10, "start", colour="#c33")
    # dimensions
    bottom = py(0)
    svg.dim_h(px(0), px(W), bottom + 40, "%.0f" % W, ext_from=bottom)
    svg.dim_h(px(lay.tile_x(1)), px(lay.tile_x(2)), bottom + 18,
              "pitch %g" % p.tile_pitch, ext_from=py(lay.y_led))
    svg.dim_v(px(0) - 45, py(D), py(0), "%.0f" % D, ext_from=px(0))
    for y, label, x_at in ((lay.y_hinge, "hinge %.1f" % lay.y_hinge, -25),
                           (lay.y_led, "LEDs %.1f" % lay.y_led, -12)):
        svg.dim_v(px(0) + x_at, py(y), py(0), label)
    d0 = lay.pips(0)
    svg.dim_h(px(d0[0][0]), px(d0[1][0]), py(d0[0][1]) - 12,
              "pips %g" % (2 * p.pip_pitch))
    svg.text(px(lay.x_roll), py(lay.y_roll) + p.roll_hole / 2 * k + 14,
             "Roll: %g dia." % p.roll_hole, 11)
    svg.text(px(lay.x_dice[0]), py(lay.y_dice) + lay.die / 2 * k + 14, "die A", 11)
    svg.text(px(lay.x_dice[1]), py(lay.y_dice) + lay.die / 2 * k + 14, "die B", 11)
    legend = ["tile windows %.1f x %.1f (boss and lever), magnets %g dia., tile LEDs %g dia., "
              "pips %g dia." % (deck.holes[4][3], deck.holes[4][4], p.magnet_diameter,
                                p.led_window, p.pip_window),
              "screw holes 3.4 dia. (M3 countersunk into the printed parts)"]
    for i, line in enumerate(legend):
        svg.text(ox, bottom + 70 + 15 * i, line, 11, "start")
    # the walls with holes: the back seen from behind, the right side seen from outside
    fy = bottom + 130
    flat = {f.name: f for f in E.flats(lay)}
    wx = ox
    for name, title in (("back", "Back wall, seen from behind: USB opening"),
                        ("right", "Right wall, seen from outside: power rocker")):
        f = flat[name]
        svg.text(wx, fy - 10, title, 13, "start")
        top = fy + f.h * k
        svg.rect(wx, fy, f.w * k, f.h * k, width=1.4)
        for _, cx, cy, w, h in f.holes:
            if name == "right":          # the panel is cut as seen from inside: mirror it
                cx = f.w - cx
            svg.rect(wx + (cx - w / 2) * k, top - (cy + h / 2) * k, w * k, h * k, width=1.0)
            svg.dim_h(wx, wx + cx * k, top + 18, "%.1f" % cx, ext_from=top)
            svg.dim_v(wx + f.w * k + 22, top, top - cy * k, "%.1f" % cy, ext_from=wx + f.w * k)
            svg.text(wx + cx * k, top - (cy + h / 2) * k - 6, "%g x %g" % (w, h), 11)
        svg.dim_v(wx - 20, fy, top, "%.0f" % f.h, ext_from=wx)
        fy = top + 70
    svg.text(ox, fy - 20, "walls %g high between base and deck; outside height %.0f"
             % (p.inner_height, H), 11, "start")
    # section through a tile, both states
    sx = px(W) + 120
    sy = oy + 40
    s = 8.0

    def qx(y):
        return sx + (y - (lay.y_led - 10)) * s

    def qz(z):
        return sy + (lay.z_rest + 8 - z) * s

    svg.text(sx, oy - 30, "Section through a tile (x8 the plan's mm): open (dashed) and shut",
             13, "start")
    y0, y1 = lay.y_led - 10, lay.y_rest + 8
    svg.rect(qx(y0), qz(lay.zt), (y1 - y0) * s, lay.t * s, "#8a6", 1.0)
    t, L = p.tile_thickness, p.tile_length
    svg.rect(qx(lay.y_hinge - L), qz(lay.zt + t), L * s, t * s, "#333", 1.2)
    lean = math.radians(p.tile_lean)
    ux, uz = math.sin(lean), math.cos(lean)
    nx, nz = math.cos(lean), -math.sin(lean)
    pts = []
    for u, v in ((0, -t / 2), (L, -t / 2), (L, t / 2), (0, t / 2)):
        pts.append((qx(lay.y_hinge + u * ux + v * nx), qz(lay.z_hinge + u * uz + v * nz)))
    svg.items.append('<polygon points="%s" fill="none" stroke="#333" stroke-width="1" '
                     'stroke-dasharray="5 3"/>' % " ".join("%.1f,%.1f" % q for q in pts))
    for y, z in ((lay.y_hinge, lay.z_hinge), (lay.y_rest, lay.z_rest)):
        svg.circle(qx(y), qz(z), lay.r_rod * s, "#c33", 1.0)
    sw = p.switch
    yb = lay.y_switch - sw.length / 2
    svg.rect(qx(yb), qz(lay.z_hole + sw.top), sw.length * s, sw.height * s, "#000", 1.0,
             "#ddd")
    svg.circle(qx(lay.y_switch - sw.hole_pitch / 2), qz(lay.z_hole), sw.hole_d / 2 * s)
    svg.circle(qx(lay.y_switch + sw.hole_pitch / 2), qz(lay.z_hole), sw.hole_d / 2 * s)
    zp = lay.z_hole + sw.top + sw.lever_t
    yp = yb + sw.pivot_in
    for a, dash in ((lay.a_free, "4 2"), (lay.a_shut, None)):
        r = math.radians(a)
        svg.line(qx(yp), qz(zp), qx(yp + sw.lever_len * math.cos(r)),
                 qz(zp + sw.lever_len * math.sin(r)), "#c00", 1.6, dash)
    xr = qx(yb) - 20
    for i, (h, label) in enumerate(((sw.fp_max, "free (FP max) %.1f" % sw.fp_max),
                                    (sw.op, "operates (OP) %.1f" % sw.op),
                                    (lay.h_shut, "shut %.1f" % lay.h_shut))):
        ylab = qz(lay.z_hole + sw.fp_max) - 40 + 16 * i
        svg.line(xr - 120 + 0 * i, ylab, xr, qz(lay.z_hole + h), "#c00", 0.4)
        svg.line(xr, qz(lay.z_hole + h), qx(yb + sw.length), qz(lay.z_hole + h), "#c00",
                 0.4, "2 2")
        svg.text(xr - 124, ylab + 4, label, 11, "end", colour="#c00")
    svg.dim_v(qx(y1) + 25, qz(lay.zt), qz(lay.z_hole),
              "%.1f" % (lay.zt - lay.z_hole), ext_from=qx(y1))
    svg.text(sx, qz(lay.z_hole - 12), "%s on slots: +-%.1f mm to meet its own OP; holes at "
             "%.1f below the deck's top" % (sw.part, sw.op_tol, lay.zt - lay.z_hole), 10,
             "start")
    width = int(sx + (y1 - y0) * s + 90)
    height = int(max(fy, qz(lay.z_hole - 16)))
    head = ('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
            'font-family="Helvetica, Arial, sans-serif">\n<title>shutbox enclosure: %d-tile box, '
            'dimensions in mm</title>\n<rect width="%d" height="%d" fill="#fff"/>\n'
            % (width, height, width, height, lay.tiles, width, height))
    return head + "\n".join(svg.items) + "\n</svg>\n"


# --- slicing ------------------------------------------------------------------------------------

SLICER_ARGS = ["--layer-height", "0.2", "--first-layer-height", "0.2", "--perimeters", "3",
               "--top-solid-layers", "5", "--bottom-solid-layers", "4", "--fill-density", "20%",
               "--nozzle-diameter", "0.4", "--filament-diameter", "1.75",
               "--bed-shape", "0x0,220x0,220x220,0x220", "--center", "110,110",
               "--temperature", "210", "--bed-temperature", "60", "--filament-density", "1.24"]


def slice_times(stl_dir, out_dir):
    """Slice each STL with prusa-slicer (if on PATH) at the README's settings; yield
    (part, estimated print time) as the slicer states it."""
    exe = shutil.which("prusa-slicer")
    if exe is None:
        yield ("(all)", "prusa-slicer is not installed (Debian: apt-get install prusa-slicer)")
        return
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    for stl in sorted(Path(stl_dir).glob("*.stl")):
        gcode = out_dir / (stl.stem + ".gcode")
        proc = subprocess.run([exe, "--export-gcode", *SLICER_ARGS, "--output", str(gcode),
                               str(stl)], capture_output=True, text=True, timeout=600,
                              **mp.tied())
        if proc.returncode != 0:
            yield (stl.stem, "slicer failed: %s" % (proc.stderr.strip().splitlines() or ["?"])[-1])
            continue
        text = gcode.read_text(errors="replace")
        m = re.search(r"estimated printing time \(normal mode\) = ([^\n]+)", text)
        f = re.search(r"filament used \[g\] = ([0-9.]+)", text)
        yield (stl.stem, "%s%s" % (m.group(1) if m else "?", ", %s g" % f.group(1) if f else ""))
