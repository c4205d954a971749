# The enclosure's checks on its solids: collisions, threads, walls, the sweep, light, magnets, BOM.
"""Geometric and physical checks of a built enclosure (enclosure.Design).

Each check returns a report (figures) and its failures as lines; `run_checks` runs them all, as
`shutbox enclosure --check` does. Ray casting (the LEDs seen from the player's seat, the wall
thickness around every hole and pocket, the sound path) runs on the parts' tessellations with
numpy; everything else on the OpenCascade solids.
"""

from __future__ import annotations

import math

from shutbox_host.hardware import enclosure as E
from shutbox_host.hardware import enclosure_parts as P

TOL = E.TOL


def check_solids(design) -> list:
    """Return 'name: problem' for every part that is not made of valid, closed solids."""
    bad = []
    for it in list(design.items) + list(design.tools):
        solids = it.shape.solids()
        if not solids:
            bad.append("%s: no solid" % it.name)
        for s in solids:
            if not s.is_valid:
                bad.append("%s: invalid solid" % it.name)
            elif s.volume <= 0:
                bad.append("%s: no volume" % it.name)
    return bad


def _bbox_overlap(a, b, eps=1e-6):
    return (a.min.X < b.max.X - eps and b.min.X < a.max.X - eps and a.min.Y < b.max.Y - eps
            and b.min.Y < a.max.Y - eps and a.min.Z < b.max.Z - eps and b.min.Z < a.max.Z - eps)


def _volume(shape) -> float:
    """Volume of a boolean's result (None when it is empty)."""
    return shape.volume if shape is not None else 0.0


def _overlap(a, b) -> float:
    """Volume two shapes share (a panel's patch that its holes leave empty shares none)."""
    if not a.solids() or not b.solids():
        return 0.0
    return _volume(a & b)


def _own(a, b) -> bool:
    """A switch's body and its own lever: one part."""
    return (a.part == b.part == "switch" and a.name.split("_")[-1] == b.name.split("_")[-1])


def collisions(items) -> tuple:
    """(collisions, engagements): (name, name, volume) for every pair of parts whose solids
    overlap by more than TOL mm^3 (touching faces are fine); a screw's thread in the part it
    screws into is not a collision but its engagement: {screw name: volume}. A panel meets a
    small part through its patch there (the same material, few holes: quick booleans)."""
    boxes = [it.shape.bounding_box() for it in items]
    out, engaged = [], {}
    for i in range(len(items)):
        for j in range(i + 1, len(items)):
            if not _bbox_overlap(boxes[i], boxes[j]):
                continue
            a, b = items[i], items[j]
            if _own(a, b):
                continue
            if b.engages == a.name:
                a, b = b, a
            bs = b.local(a.shape.bounding_box()) if b.local else b.shape
            if a.local:
                a_s, bs = a.local(b.shape.bounding_box()), b.shape
            else:
                a_s = a.shape
            if a_s is None or bs is None:
                continue
            if a.engages == b.name and a.thread is not None:
                v = _overlap(a.head, bs)
                engaged[a.name] = _overlap(a.thread, bs)
            else:
                v = _overlap(a_s, bs)
            if v > TOL:
                out.append((a.name, b.name, v))
    return out, engaged


def thread_report(design, engaged: dict) -> list:
    """(screw, engaged part, engaged length mm, threads) of every screw, the length measured
    as the overlap of its thread with the part it screws into over the thread's annulus."""
    out = []
    for it in design.items:
        if it.thread is None:
            continue
        size = it.part.split("_")[1].upper().replace("M25", "M2.5")
        size = "M2.5" if size.startswith("M25") else size.split("X")[0]
        d = float(size[1:])
        other = design.by_name(it.engages)
        hole = P.PILOT[size] if other.kind == "printed" else P.minor(size)
        area = math.pi / 4 * (d * d - hole * hole)
        length = engaged.get(it.name, 0.0) / area
        out.append((it.name, it.engages, length, length / P.PITCH[size]))
    return out


def slot_report(design, k: int = 1) -> list:
    """(offset, part, part) of every collision of tile k's switch, its screws, washers and
    nuts, set anywhere its slots allow (at both ends of them), with the cradle and the deck."""
    bd = E._bd()
    tol = design.lay.p.switch.op_tol
    moving = [it for it in design.items if it.name in (
        "switch_%d" % k, "lever_%d" % k) or it.name.startswith((
            "screw_switch_%d_" % k, "washer_switch_%d_" % k, "nut_switch_%d_" % k))]
    fixed = [design.by_name("cradle_%d" % k), design.by_name("deck")]
    out = []
    for dz in (-tol, tol):
        move = bd.Pos(0, 0, dz)
        moved = [E.Item(it.name, move * it.shape, it.kind, it.part, it.colour, it.group,
                        thread=move * it.thread if it.thread is not None else None,
                        engages=it.engages, head=move * it.head if it.head is not None
                        else None) for it in moving]
        hits, _ = collisions(moved + fixed)
        out += [(dz, a, b) for a, b, _ in hits if not (a in ("cradle_%d" % k, "deck") and
                                                       b in ("cradle_%d" % k, "deck"))]
    return out


def lever_report(design, k: int) -> dict:
    """Lever heights of tile k's switch, shut and open, measured on the solids, against the
    datasheet: shut must be past OP and within OT; open must be past the release point."""
    lay, sw = design.lay, design.lay.p.switch
    base = E.tile_solid(lay, k)
    shut = E.lever_rest_angle(lay, E.tile_pose(lay, base, True), k)
    open_ = E.lever_rest_angle(lay, E.tile_pose(lay, base, False), k)
    return {"shut_height": sw.lever_height(shut), "open_height": sw.lever_height(open_),
            "op": sw.op, "op_min": sw.op - sw.op_tol, "op_max": sw.op + sw.op_tol,
            "ot_min": sw.ot_min, "rp_max": sw.rp_max, "fp_max": sw.fp_max,
            "slot": E.cradle_slot(lay)}


# --- the tiles' swing ----------------------------------------------------------------------------

def swept_tile(lay):
    """The volume tile 1 sweeps from shut to open, exactly: the shut tile (its number and magnet
    pocket filled: a tile holds no more than that) and each of its faces revolved about the
    hinge axis through the opening angle. Faces the rotation maps onto themselves (the bore,
    the barrel) or within their own plane (the ends) sweep no volume and are left out."""
    bd = E._bd()
    p = lay.p
    cx = lay.tile_x(1)
    w, t, L = p.tile_width, p.tile_thickness, p.tile_length
    yh, zh, zt = lay.y_hinge, lay.z_hinge, lay.zt
    body = (E._box(cx - w / 2, cx + w / 2, yh - L, yh, zt, zt + t)
            + E._cyl_x(cx - w / 2, cx + w / 2, yh, zh, t)
            + E._box(cx - 2.0, cx + 2.0, lay.y_boss - 3.0, lay.y_boss + 1.0, zt - p.boss_depth,
                     zt + 0.01))
    body = body - E._cyl_x(cx - w / 2 - 1, cx + w / 2 + 1, yh, zh,
                           p.hinge_rod_diameter + p.rod_clearance)
    axis = bd.Axis((0, yh, zh), (-1, 0, 0))
    angle = 90.0 + p.tile_lean
    pieces = [body]
    for face in body.faces():
        n = face.normal_at()
        if abs(n.X) > 0.999:                # an end face, in a plane across the axis
            continue
        if face.geom_type == bd.GeomType.CYLINDER and abs(face.center().Y - yh) < 1e-3:
            continue                        # coaxial with the hinge
        try:
            solid = bd.Solid.revolve(face, angle, axis)
        except Exception:                   # noqa: BLE001 - a degenerate sweep has no volume
            continue
        if solid.volume > TOL:
            pieces.append(solid)
    return pieces


def sweep_collisions(design, pieces=None, tiles=None) -> list:
    """(tile, part) wherever a tile's swept volume from shut to open overlaps a part (its own
    magnet, the hinge rod in its bore and its switch lever, which the boss moves, aside)."""
    bd = E._bd()
    lay = design.lay
    pieces = pieces if pieces is not None else swept_tile(lay)
    out = []
    for k in tiles or range(1, lay.tiles + 1):
        move = bd.Pos((k - 1) * lay.p.tile_pitch, 0, 0)
        moved = [move * s for s in pieces]
        boxes = [s.bounding_box() for s in moved]
        x0 = lay.tile_x(k) - lay.p.tile_width / 2
        x1 = lay.tile_x(k) + lay.p.tile_width / 2
        for it in design.items:
            if it.name in ("tile_%d" % k, "tile_magnet_%d" % k, "lever_%d" % k, "hinge_rod"):
                continue
            bb = it.shape.bounding_box()
            if bb.max.X <= x0 + 1e-6 or bb.min.X >= x1 - 1e-6:
                continue                    # a rotation about x keeps the tile in [x0, x1]
            for s, sb in zip(moved, boxes, strict=True):
                if _bbox_overlap(sb, bb) and _volume(s & it.shape) > TOL:
                    out.append((k, it.name))
                    break
    return out


# --- ray casting on tessellations -------------------------------------------------------------

def tessellate(shape, tol, angular):
    """(vertices, triangles) of a shape meshed afresh at *tol*: OpenCascade keeps a shape's
    finest mesh so far and reuses it, so without this a mesh (and a picture) would depend on
    what meshed the shape before."""
    from OCP.BRepTools import BRepTools

    BRepTools.Clean_s(shape.wrapped)
    return shape.tessellate(tol, angular)


def mesh(shape, tol=0.02):
    """Triangles (n, 3, 3) of a shape."""
    import numpy as np

    verts, faces = tessellate(shape, tol, 0.2)
    if not faces:
        return np.zeros((0, 3, 3))
    v = np.array([(q.X, q.Y, q.Z) for q in verts])
    return v[np.array(faces)]


def ray_hits(tris, origins, dirs, eps=1e-7, skip=1e-6):
    """Distance along each ray to its first triangle (inf where none), hits nearer than *skip*
    (the tessellation's own chords where a ray starts on an edge) aside: Moller-Trumbore."""
    import numpy as np

    n = len(origins)
    best = np.full(n, np.inf)
    if len(tris) == 0 or n == 0:
        return best
    v0, e1, e2 = tris[:, 0], tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0]
    for s in range(0, n, 64):
        o, d = origins[s:s + 64, None, :], dirs[s:s + 64, None, :]
        pv = np.cross(d, e2[None])
        det = np.einsum("ijk,jk->ij", pv, e1)
        ok = np.abs(det) > eps
        inv = np.where(ok, 1.0 / np.where(ok, det, 1.0), 0.0)
        tv = o - v0[None]
        u = np.einsum("ijk,ijk->ij", tv, pv) * inv
        qv = np.cross(tv, e1[None])
        v = np.einsum("ijk,ijk->ij", np.broadcast_to(d, qv.shape), qv) * inv
        t = np.einsum("jk,ijk->ij", e2, qv) * inv
        hit = ok & (u >= 0) & (v >= 0) & (u + v <= 1) & (t > skip)
        t = np.where(hit, t, np.inf)
        best[s:s + 64] = t.min(axis=1)
    return best


def led_visibility(design, elevation=30.0, azimuths=(-60, -30, 0, 30, 60), samples=5) -> dict:
    """{LED name: smallest visible fraction} over the given viewing directions: rays from a
    grid of points on each LED's lit face (its light pipe's top; the chip's top where it has
    none) towards a player *elevation* degrees up, in front of the box, any of *azimuths*
    degrees to the side; a ray that meets any part is hidden."""
    import numpy as np

    lay = design.lay
    above = [it for it in design.items if it.shape.bounding_box().max.Z > lay.zt - 1]
    tris = {it.name: mesh(it.shape, 0.1) for it in above}
    out = {}
    for it in design.items:
        if it.part != "led":
            continue
        bb = it.shape.bounding_box()
        x, y = bb.center().X, bb.center().Y
        pipe = next((q for q in design.items if "pipe" in q.part and
                     abs(q.shape.bounding_box().center().X - x) < 0.01 and
                     abs(q.shape.bounding_box().center().Y - y) < 0.01), None)
        if pipe is not None:
            z, r = pipe.shape.bounding_box().max.Z, _pipe_top_r(pipe)
        else:
            z, r = bb.max.Z, E.LED["chip"] / 2
        g = np.linspace(-r * 0.9, r * 0.9, samples)
        pts = [(x + a, y + b, z + 1e-3) for a in g for b in g if a * a + b * b <= (r * 0.9) ** 2
               or pipe is None]
        origins = np.array(pts)
        worst = 1.0
        obstacles = np.concatenate([m for name, m in tris.items()
                                    if name != (pipe.name if pipe else "") and name != it.name
                                    and len(m)])
        # rays leave upwards and towards the front: only what is above and before them counts
        keep = (obstacles[:, :, 2].max(axis=1) > z) & (obstacles[:, :, 1].min(axis=1) < y + r)
        obstacles = obstacles[keep]
        for az in azimuths:
            e, a = math.radians(elevation), math.radians(az)
            d = np.array([math.sin(a) * math.cos(e), -math.cos(a) * math.cos(e), math.sin(e)])
            hit = ray_hits(obstacles, origins, np.tile(d, (len(origins), 1)))
            worst = min(worst, float(np.mean(np.isinf(hit))))
        out[it.name] = worst
    return out


def _pipe_top_r(pipe):
    bb = pipe.shape.bounding_box()
    top = [f for f in pipe.shape.faces() if abs(f.center().Z - bb.max.Z) < 1e-6]
    return math.sqrt(top[0].area / math.pi) if top else 0.0


def sound_path(design) -> float:
    """Fraction of rays from the buzzer's port, straight up and up to 20 degrees off, that
    leave the box without meeting a part (the sound hole over the buzzer)."""
    import numpy as np

    bz = design.by_name("buzzer").shape.bounding_box()
    x, y, z = bz.center().X, bz.center().Y, bz.max.Z - 1.0
    near = [it for it in design.items if it.name != "buzzer"
            and _bbox_overlap(it.shape.bounding_box(), _column(x, y, z))]
    tris = np.concatenate([mesh(it.shape, 0.05) for it in near])
    dirs = []
    for tilt in (0, 10, 20):
        for az in range(0, 360, 45):
            t, a = math.radians(tilt), math.radians(az)
            dirs.append((math.sin(t) * math.cos(a), math.sin(t) * math.sin(a), math.cos(t)))
    dirs = np.array(dirs)
    hit = ray_hits(tris, np.tile((x, y, z), (len(dirs), 1)), dirs)
    return float(np.mean(np.isinf(hit)))


def _column(x, y, z):
    """The bounding box of the cone of rays sound_path casts (20 degrees, up to 30 mm)."""
    return E._box(x - 12, x + 12, y - 12, y + 12, z, z + 30).bounding_box()


def wall_report(design) -> list:
    """(part, thinnest wall mm, where) of every printed part: from the middle of every
    triangle of a fine tessellation of each face (so every hole is sampled all round, every
    few degrees), a ray
    into the material along the face's inward normal, to where it leaves the part again:
    around a hole that is the wall to the next surface, under a pocket its floor. Tiles 2..N
    differ from tile 1 only in their numbers: tile 1 and the one with the most strokes."""
    import numpy as np

    parts = E.printed_parts(design)
    tiles = sorted((k for k in parts if k.startswith("tile_")),
                   key=lambda k: -len(E._tile_number(design.lay, int(k.split("_")[1]))))
    skip = set(tiles[1:]) - {"tile_1"}
    out = []
    for name, shape in parts.items():
        if name in skip:
            continue
        tris = mesh(shape, 0.01)
        origins, dirs = [], []
        for face in shape.faces():
            verts, faces = tessellate(face, 0.02, 0.2)
            if not faces:
                continue
            v = np.array([(q.X, q.Y, q.Z) for q in verts])
            t = v[np.array(faces)]
            n = np.cross(t[:, 1] - t[:, 0], t[:, 2] - t[:, 0])
            norm = np.linalg.norm(n, axis=1)
            ok = norm > 1e-12
            n = n[ok] / norm[ok, None]
            origins.append(t[ok].mean(axis=1) - n * 1e-4)
            dirs.append(-n)
        origins, dirs = np.concatenate(origins), np.concatenate(dirs)
        dist = ray_hits(tris, origins, dirs, skip=0.02)
        i = int(np.argmin(dist))
        out.append((name, float(dist[i]), tuple(round(float(c), 2) for c in origins[i])))
    return out


# --- the rest ------------------------------------------------------------------------------------

def rods_held(design) -> list:
    """Rods that could slide out: a rod 1 mm longer at either end must run into something."""
    bad = []
    for rod in ("hinge_rod", "rest_rod"):
        it = design.by_name(rod)
        bb = it.shape.bounding_box()
        r = (bb.max.Z - bb.min.Z) / 2
        y, z = bb.center().Y, bb.center().Z
        for x0, x1, end in ((bb.min.X - 1.0, bb.min.X - 0.01, "left"),
                            (bb.max.X + 0.01, bb.max.X + 1.0, "right")):
            stub = E._cyl_x(x0, x1, y, z, 2 * r)
            sb = stub.bounding_box()
            if not any(_overlap(stub, q.shape) > TOL for q in design.items
                       if q is not it and _bbox_overlap(sb, q.shape.bounding_box())):
                bad.append("%s can slide out to the %s" % (rod, end))
    return bad


def magnet_report(design) -> dict:
    """The magnets' pull at the gap measured in the model and what it takes to open a tile at
    its tip, with the switch pushing its least (RF min) and its most (OF max)."""
    lay, p = design.lay, design.lay.p
    k = design.shut[0] if design.shut else None
    if k is None:
        return {}
    top = design.by_name("deck_magnet_%d" % k).shape.bounding_box().max.Z
    low = design.by_name("tile_magnet_%d" % k).shape.bounding_box().min.Z
    gap = low - top
    br = P.GRADES[p.magnet_grade]
    force = P.pair_force(p.magnet_diameter, p.magnet_thickness, gap, br)
    tile = E.tile_solid(lay, 1)
    mass = tile.volume * 1.24e-3                       # g, PLA 1.24 g/cm^3, printed solid
    w_torque = mass * 9.81e-3 * (lay.y_hinge - tile.center().Y)
    arm, tip = lay.y_hinge - lay.y_magnet, p.tile_length
    sw = p.switch
    open_min = (force * arm + w_torque - sw.of_max * p.boss_radius) / tip
    open_max = (force * arm + w_torque - sw.rf_min * p.boss_radius) / tip
    return {"gap_mm": gap, "pull_n": force, "open_min_n": open_min, "open_max_n": open_max,
            "tile_mass_g": mass, "grade": p.magnet_grade, "br_t": br}


def deck_report(design) -> dict:
    """The deck's engraving against its holes and the dice squares: the smallest distance from a
    tile number to a hole's edge, and any number inside a die square; the thinnest web of
    panel between two holes or a hole and the edge (countersinks at their top diameter)."""
    flat = E.flats(design.lay)
    deck = flat[0]
    lay = design.lay
    numbers = deck.engrave[:-2]
    clear = min(_dist_to_hole(pt, h) for line in numbers for pt in _points(line)
                for h in deck.holes)
    inside = []
    for d in range(2):
        cx, cy, half = lay.x_dice[d], lay.y_dice, lay.die / 2
        for line in numbers:
            if any(abs(x - cx) < half and abs(y - cy) < half for x, y in _points(line)):
                inside.append(d)
    web = min(_web(f) for f in flat)
    return {"number_to_hole_mm": clear, "numbers_in_dice": sorted(set(inside)),
            "panel_web_mm": web}


def _points(line, step=0.25):
    for (x0, y0), (x1, y1) in zip(line, line[1:], strict=False):
        n = max(1, int(math.hypot(x1 - x0, y1 - y0) / step))
        for i in range(n + 1):
            yield (x0 + (x1 - x0) * i / n, y0 + (y1 - y0) * i / n)


def _outline(h):
    """A hole as ('circle', cx, cy, r) or ('rect', x0, y0, x1, y1)."""
    if h[0] == "circle":
        return ("circle", h[1], h[2], h[3] / 2)
    _, cx, cy, w, hh = h
    return ("rect", cx - w / 2, cy - hh / 2, cx + w / 2, cy + hh / 2)


def _dist_to_hole(pt, h) -> float:
    o = _outline(h)
    x, y = pt
    if o[0] == "circle":
        return math.hypot(x - o[1], y - o[2]) - o[3]
    dx = max(o[1] - x, 0, x - o[3])
    dy = max(o[2] - y, 0, y - o[4])
    return math.hypot(dx, dy)


def _web(f) -> float:
    """Thinnest panel between two holes (or countersinks) or a hole and the panel's edge."""
    shapes = [_outline(h) for h in f.holes]
    csk = {(round(x, 3), round(y, 3)): d for x, y, d in f.csk}
    shapes = [("circle", o[1], o[2], csk[(round(o[1], 3), round(o[2], 3))] / 2)
              if o[0] == "circle" and (round(o[1], 3), round(o[2], 3)) in csk else o
              for o in shapes]
    best = math.inf
    for i, a in enumerate(shapes):
        best = min(best, _edge_dist(a, f.w, f.h))
        for b in shapes[i + 1:]:
            best = min(best, _pair_dist(a, b))
    return best


def _edge_dist(o, w, h):
    if o[0] == "circle":
        return min(o[1] - o[3], w - o[1] - o[3], o[2] - o[3], h - o[2] - o[3])
    return min(o[1], w - o[3], o[2], h - o[4])


def _pair_dist(a, b):
    if a[0] == "circle" and b[0] == "circle":
        return math.hypot(a[1] - b[1], a[2] - b[2]) - a[3] - b[3]
    if a[0] == "rect" and b[0] == "rect":
        dx = max(a[1] - b[3], b[1] - a[3], 0)
        dy = max(a[2] - b[4], b[2] - a[4], 0)
        return math.hypot(dx, dy)
    c, r = (a, b) if a[0] == "circle" else (b, a)
    dx = max(r[1] - c[1], 0, c[1] - r[3])
    dy = max(r[2] - c[2], 0, c[2] - r[4])
    return math.hypot(dx, dy) - c[3]


def countersink_report(design, flats=None) -> list:
    """Countersunk screws whose panel hole has no countersink in the cut files. A head that
    sits in another part (the battery holder's floor, countersunk by its maker) is that
    part's: the collision check sees a countersink missing there."""
    flat = {f.name: f for f in (flats or E.flats(design.lay))}
    lay = design.lay
    bad = []
    for it in design.items:
        if it.thread is None or not it.part.endswith("_csk"):
            continue
        bb = it.shape.bounding_box()
        x, y = bb.center().X, bb.center().Y
        deck = bb.center().Z > lay.zb - 5
        z0, z1 = (lay.zb, lay.zt) if deck else (0.0, lay.t)
        head = it.head.bounding_box()
        if head.max.Z < z0 - 0.01 or head.min.Z > z1 + 0.01:
            continue
        panel = flat["deck" if deck else "base"]
        if not any(abs(cx - x) < 0.01 and abs(cy - y) < 0.01 for cx, cy, _ in panel.csk):
            bad.append(it.name)
    return bad


def bom_counts(design) -> dict:
    """{BOM key: count} of every part in the model (the assembly and the printed jigs)."""
    out = {}
    for it in list(design.items) + list(design.tools):
        if it.name.startswith("lever_"):
            continue                        # a switch's lever is part of the switch
        key = "tile" if it.part.startswith("tile_") and it.kind == "printed" else it.part
        out[key] = out.get(key, 0) + 1
    return out


def bom_report(design, rows) -> list:
    """Differences between the model's parts and the BOM's rows (their "model" column): a part
    missing from the BOM, a row whose part the model lacks, a quantity that differs."""
    model = bom_counts(design)
    bom = {}
    for r in rows:
        key = r.get("model", "")
        if key and not key.startswith("("):
            bom[key] = bom.get(key, 0) + int(r["quantity"])
    bad = []
    for key in sorted(set(model) | set(bom)):
        if key not in bom:
            bad.append("model part %s (%d) is not in the BOM" % (key, model[key]))
        elif key not in model:
            bad.append("BOM row %s (%d) is not in the model" % (key, bom[key]))
        elif model[key] != bom[key]:
            bad.append("%s: model has %d, BOM says %d" % (key, model[key], bom[key]))
    return bad


def run_checks(design, bom_rows=None, sweep=True) -> tuple:
    """All checks of one design: (failures as lines, figures)."""
    lay, sw = design.lay, design.lay.p.switch
    bad = check_solids(design)
    hits, engaged = collisions(design.items)
    bad += ["%s and %s intersect (%.3f mm^3)" % c for c in hits]
    threads = thread_report(design, engaged)
    bad += ["%s engages %s by %.2f mm: %.1f threads, fewer than %d" % (n, e, ln, th,
                                                                        P.MIN_THREADS)
            for n, e, ln, th in threads if th < P.MIN_THREADS]
    for k in (1, lay.tiles):
        r = lever_report(design, k)
        if not sw.op - sw.ot_min <= r["shut_height"] < sw.op:
            bad.append("tile %d shut: lever at %.2f mm, not past OP %.2f within OT %.2f"
                       % (k, r["shut_height"], sw.op, sw.ot_min))
        if not r["open_height"] > sw.rp_max:
            bad.append("tile %d open: lever held at %.2f mm, below the release point %.2f"
                       % (k, r["open_height"], sw.rp_max))
    if sweep:
        bad += ["tile %d on its way up hits %s" % c for c in sweep_collisions(design)]
    bad += ["switch moved %+.1f mm in its slots: %s hits %s" % c for c in slot_report(design)]
    bad += ["USB plug hits %s" % n for n in usb_report(design)]
    bad += ["%s (%.1f x %.1f x %.1f mm) does not fit the bed" % b for b in bed_report(design)]
    walls = wall_report(design)
    wall = lay.p.printer_min_wall
    bad += ["%s: wall %.2f mm at %s, under printer_min_wall %g" % (n, w, at, wall)
            for n, w, at in walls if w < wall - 0.01]
    vis = led_visibility(design)
    bad += ["%s: %.0f %% visible from 30 degrees up" % (n, 100 * f) for n, f in vis.items()
            if f < 0.99]
    sound = sound_path(design)
    if sound < 0.99:
        bad.append("the buzzer's sound path is %.0f %% open" % (100 * sound))
    bad += rods_held(design)
    mag = magnet_report(design)
    lo, hi = lay.p.holding_force
    if not (lo <= mag["open_min_n"] and mag["open_max_n"] <= hi):
        bad.append("a shut tile opens at %.2f..%.2f N at its tip, outside %g..%g N"
                   % (mag["open_min_n"], mag["open_max_n"], lo, hi))
    deck = deck_report(design)
    if deck["panel_web_mm"] < lay.t / 2:
        bad.append("a panel's web between holes is %.2f mm, under half its thickness"
                   % deck["panel_web_mm"])
    if deck["number_to_hole_mm"] < 1.0 or deck["numbers_in_dice"]:
        bad.append("tile numbers %.2f mm from a hole, inside dice %s"
                   % (deck["number_to_hole_mm"], deck["numbers_in_dice"]))
    bad += ["%s: countersunk, but no countersink in the cut files" % n
            for n in countersink_report(design)]
    if bom_rows is not None:
        bad += bom_report(design, bom_rows)
    from shutbox_host.hardware import stripboard as S

    bad += ["wiring board: %s" % b for b in S.check(design.board)]
    # the smallest of each, rounded as reported first so that ties resolve by name
    figures = {"min_wall": min(walls, key=lambda w: (round(w[1], 2), w[0])),
               "threads": min(threads, key=lambda t: (round(t[3], 1), t[0])),
               "visibility": min(vis.values()), "sound": sound,
               "magnet": mag, "deck": deck, "clearance": closest_clearance(design)}
    return bad, figures


def closest_clearance(design) -> tuple:
    """(distance mm, part, part): the closest approach of two parts that do not touch by
    design, over the moving ones: each tile (open and shut) to the posts beside it."""
    lay = design.lay
    best = (math.inf, "", "")
    for k in (1, lay.tiles):
        tile = design.by_name("tile_%d" % k).shape
        for post in ("end_post_left" if k == 1 else "hinge_post_%d" % (k - 1),
                     "end_post_right" if k == lay.tiles else "hinge_post_%d" % k):
            d = round(tile.distance_to(design.by_name(post).shape), 3)
            best = min(best, (d, "tile_%d" % k, post))
    return best


def usb_report(design) -> list:
    """Return the parts a seated micro-USB plug's overmould would hit (none = it fits)."""
    plug = design.by_name("usb_plug").shape
    pb = plug.bounding_box()
    return [it.name for it in design.items
            if it.name not in ("pico", "usb_plug") and _bbox_overlap(pb, it.shape.bounding_box())
            and _volume(plug & it.shape) > TOL]


def bed_report(design) -> list:
    """Return (part, x, y, z) of the printed parts that do not fit the printer's bed."""
    bx, by = design.lay.p.printer_bed
    out = []
    for name, shape in E.printed_parts(design).items():
        bb = shape.bounding_box()
        dims = sorted((bb.size.X, bb.size.Y))
        if dims[0] > min(bx, by) or dims[1] > max(bx, by):
            out.append((name, bb.size.X, bb.size.Y, bb.size.Z))
    return out
