# The enclosure's geometry, checked on the real build123d/OpenCascade solids; and its CLI.
"""Tests of the enclosure: one build of the reference box per session (a fixture here, not a
cache in the product), every check on it; then each check shown to fail on a broken model."""

from __future__ import annotations

import csv
import importlib.util
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.enclosure]

# found, not imported: build123d takes seconds to import, and every xdist worker collects this
# module, most of them to run none of its tests (the tests import it on first use: E._bd)
if importlib.util.find_spec("build123d") is None:
    pytest.skip("build123d missing: make venv-enclosure", allow_module_level=True)

from shutbox_host import cli  # noqa: E402
from shutbox_host.hardware import enclosure as E  # noqa: E402
from shutbox_host.hardware import enclosure_checks as C  # noqa: E402
from shutbox_host.hardware import enclosure_parts as P  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def params():
    return E.load(ROOT / E.PARAMS)


@pytest.fixture(scope="session")
def design(params):
    """The reference 9-tile box, built once per session (per xdist worker that needs it)."""
    return E.build(params, 9)


@pytest.fixture(scope="session")
def checked(design):
    """Every check of the reference box, run once: (failures, figures). One test uses it."""
    return C.run_checks(design, _bom_rows())


def _repository_outputs():
    """The committed files as they are (test_committed_files_match_a_fresh_generation checks
    they are what a generation writes): for the CLI's tests, which need no generation."""
    out = {}
    for path in sorted((ROOT / E.OUT).rglob("*")):
        if path.is_file():
            out[path.relative_to(ROOT).as_posix()] = path.read_bytes()
    return out


def _bom_rows(text=None):
    return list(csv.DictReader(io.StringIO(text or (ROOT / "hardware/bom.csv").read_text())))


def test_reference_box_passes_every_check(checked, params):
    bad, f = checked
    assert bad == []
    # the figures hardware/README.md quotes
    assert f["min_wall"][1] >= params.printer_min_wall - 0.01
    assert f["threads"][3] >= P.MIN_THREADS
    assert f["visibility"] == 1.0 and f["sound"] == 1.0
    lo, hi = params.holding_force
    assert lo <= f["magnet"]["open_min_n"] <= f["magnet"]["open_max_n"] <= hi
    assert f["clearance"][0] > 0
    guide = (ROOT / "hardware/README.md").read_text()
    assert E.report_line(f) in guide, E.report_line(f)


def test_committed_files_match_a_fresh_generation(design):
    committed = E.outputs(design)
    assert E.stale(ROOT, committed) == []
    assert sum(len(v) for v in committed.values()) <= 3 * 1024 * 1024
    pngs = [v for k, v in committed.items() if k.endswith(".png")]
    assert len(pngs) == len(E.STEPS) + 2 and max(len(v) for v in pngs) < 200_000


def test_a_picture_is_stale_when_more_than_its_anti_aliasing_moved():
    """stale() lets a few pixels of rasterizing noise pass in a render, never a change."""
    import io

    from PIL import Image

    png = (ROOT / "hardware/enclosure/step-2.png").read_bytes()
    img = Image.open(io.BytesIO(png)).convert("RGB")

    def with_block(n):
        out = img.copy()
        for i in range(n):
            out.putpixel((10 + i % 40, 10 + i // 40), (255, 0, 255))
        buf = io.BytesIO()
        out.save(buf, "PNG")
        return buf.getvalue()

    assert E._same_picture(png, with_block(13))  # noise as measured between two machines
    assert not E._same_picture(png, with_block(400))  # a part moved, a label changed


def test_every_part_is_in_a_build_step_and_the_bom(design):
    steps = {g for g, _ in E.STEPS}
    assert {it.group for it in design.items} == steps
    assert C.bom_report(design, _bom_rows()) == []
    # the check sees a BOM that lacks a part, and one that lists a part the model lacks
    rows = [r for r in _bom_rows() if r["model"] != "washer_m3"]
    assert C.bom_report(design, rows) == ["model part washer_m3 (4) is not in the BOM"]
    extra = _bom_rows() + [dict(_bom_rows()[0], model="inserts", quantity="3")]
    assert C.bom_report(design, extra) == ["BOM row inserts (3) is not in the model"]


def test_harness_lists_every_wire_with_its_length(design):
    rows = list(csv.DictReader(io.StringIO(E._harness_csv(design))))
    nets = {r["net"] for r in rows}
    assert {"TILE%d" % k for k in range(1, 10)} | {"ROLL", "LED_DIN", "+5V", "GND", "BAT+",
                                                   "BAT_SW", "3V3_EN", "BUZ_C"} <= nets
    # one wire per connector pin of the board, and the BOM's crimp housings and receptacles
    board = [r for r in rows if r["from"].startswith("board ")]
    assert len(board) == len(design.board.connectors())
    bom = _bom_rows()
    assert sum(int(r["quantity"]) for r in bom if r["part"] == "Crimp housing") == len(board)
    for size, n in (("2.8 mm", 2), ("4.8 mm", 4)):
        assert sum(r["to connector"].startswith(size) for r in rows) == n
        assert any(r["value"].startswith(size) and int(r["quantity"]) == n for r in bom)
    # the LED chain: 3 wires between each pair of the 23 LEDs, and 3 feeding the first
    assert sum(r["from"].startswith(("tile_led", "pip_led")) for r in rows) == 3 * 22
    for r in rows:
        assert int(r["length mm"]) >= E.SLACK and r["colour"] and r["AWG"] in ("22", "26")
        gauge = [b for b in bom if b["part"] == "Hook-up wire" and b["value"].startswith(
            r["AWG"] + " AWG")]
        assert gauge and r["colour"] in gauge[0]["value"], r
    # the LED supply is the thick wire, and so are the cells' (the holder's leads to the
    # rocker's pole 1, its ON contact to D1 on the board, the - lead to the ground rail)
    assert {r["AWG"] for r in rows if r["net"] == "+5V" and "led" in r["to"]} == {"22"}
    cells = [r for r in rows if "battery holder" in r["from"] + r["to"]]
    assert [(r["net"], r["AWG"]) for r in cells] == [("BAT+", "22"), ("GND", "22")]
    assert [r["to"] for r in rows if r["net"] == "BAT_SW"] == ["rocker pole 1 ON"]


def _no_checks(monkeypatch):
    """The CLI's own logic without the checks (test_reference_box_passes_every_check runs
    them): they pass and report nothing."""
    monkeypatch.setattr(C, "run_checks", lambda design, rows=None: ([], {}))
    monkeypatch.setattr(E, "report_line", lambda figures: "(figures)")


def test_check_command(design, monkeypatch, tmp_path, capsys):
    """`shutbox enclosure --check` with the session's build: passes on the repository; a copy
    with an edited, a missing and a stray file fails, naming each."""
    built = (_repository_outputs(), design)
    monkeypatch.setattr(E, "generate", lambda params, tiles, renders=True: built)
    _no_checks(monkeypatch)
    assert cli.main(["enclosure", "--check"]) == 0
    assert "every check passes" in capsys.readouterr().out
    root = tmp_path
    for rel in (E.PARAMS, E.PINMAP, "hardware/bom.csv"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / rel, root / rel)
    shutil.copytree(ROOT / E.OUT, root / E.OUT)
    args = ["enclosure", "--check", "--root", str(root)]
    assert cli.main(args) == 0
    capsys.readouterr()
    svg = root / E.OUT / "cut.svg"
    svg.write_bytes(svg.read_bytes() + b" ")
    (root / E.OUT / "stl" / "cradle.stl").unlink()
    (root / E.OUT / "stray.txt").write_text("x")
    assert cli.main(args) == 1
    err = capsys.readouterr().err
    for rel in ("cut.svg", "stl/cradle.stl", "stray.txt"):
        assert "out of date: hardware/enclosure/%s" % rel in err


def test_make_enclosure_writes_the_heavy_outputs(design, monkeypatch, tmp_path, capsys):
    """The STEP files and the other tiles' STLs land in build/enclosure/ (they were never
    written: a lazy mapping was merged while still empty). A few parts keep it quick."""
    small = E.Design(design.lay, [design.by_name(n) for n in (
        "tile_1", "tile_2", "switch_1", "lever_1", "screw_cradle_1_a", "cradle_1")],
        design.shut, design.tools, design.board)
    built = (_repository_outputs(), small)
    monkeypatch.setattr(E, "generate", lambda params, tiles, renders=True: built)
    _no_checks(monkeypatch)
    assert cli.main(["enclosure", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    for rel in ("step/assembly.step", "step/switch.step", "step/cradle.step",
                "step/screw_m3x6_csk.step", "stl/tile_2.stl"):
        assert (tmp_path / E.BUILD / rel).is_file(), rel
        assert "wrote %s/%s" % (E.BUILD, rel) in out
    step = (tmp_path / E.BUILD / "step/assembly.step").read_text(encoding="latin-1")
    assert "FILE_NAME('shutbox_9_tiles','%s'" % E.FIXED_STAMP in step
    assert "Statistics on Transfer" not in out
    back = E._bd().import_step(str(tmp_path / E.BUILD / "step/assembly.step"))
    assert back.volume == pytest.approx(sum(it.shape.volume for it in small.items), rel=1e-3)
    assert cli.main(["enclosure", "--out", str(tmp_path)]) == 0
    assert "up to date" in capsys.readouterr().out


STEP_SCRIPT = r"""
import hashlib, sys
from shutbox_host.hardware import enclosure as E
lay = E.Layout(E.load(E.ROOT / E.PARAMS), 9)
bd = E._bd()
tile = E.tile_solid(lay, 1)
screw = E.P.screw_solids(bd, E.M3, (0, 0, 0), (0, 0, -1))
parts = [("tile_%d" % k, bd.Pos(22 * k, 0, 0) * tile) for k in range(4)]
parts += [("screw_%d" % k, bd.Pos(0, 10 * k, 0) * (screw[0] + screw[2])) for k in range(4)]
for _ in range(2):
    print(hashlib.sha256(E._step_bytes(parts, "assembly")).hexdigest())
"""


def test_step_files_are_byte_identical_across_runs():
    """Another process and this one write the same STEP bytes for an assembly of shared, moved
    solids, twice each (the colours OpenCascade wrote in a different order each run are left
    out; the assembly links' ids, counted over the process, are numbered per file)."""
    other = subprocess.run([sys.executable, "-c", STEP_SCRIPT], capture_output=True, text=True,
                           timeout=300, check=True).stdout.split()
    ns: dict = {}
    out = io.StringIO()
    real = sys.stdout
    sys.stdout = out
    try:
        exec(STEP_SCRIPT, ns)
    finally:
        sys.stdout = real
    here = out.getvalue().split()
    assert other == here and len(here) == 2 and here[0] == here[1]


# --- each check fails on a model that is wrong -------------------------------------------------

def test_collision_and_thread_checks_see_a_wrong_model(design):
    bd = E._bd()
    tile = design.by_name("tile_1")
    moved = E.Item("tile_1", bd.Pos(-1.0, 0, 0) * tile.shape, "printed", "tile_1",
                   tile.colour, "tiles")
    hits, _ = C.collisions([moved, design.by_name("end_post_left")])
    assert [h[:2] for h in hits] == [("tile_1", "end_post_left")] and hits[0][2] > 1.0
    # an M2 nut 1.4 mm along off its screw's end: fewer than 3 threads engaged
    screw = design.by_name("screw_switch_1_0")
    nut = design.by_name("nut_switch_1_0")
    off = E.Item(nut.name, bd.Pos(2.2, 0, 0) * nut.shape, "bought", "nut_m2", nut.colour, "x")
    _, engaged = C.collisions([screw, off])
    small = E.Design(design.lay, [screw, off], ())
    (row,) = C.thread_report(small, engaged)
    assert row[3] < P.MIN_THREADS
    # a screw head that does not sit in its countersink collides with the deck
    deck = design.by_name("deck")
    s = design.by_name("screw_cradle_1_a")
    up = E.Item(s.name, bd.Pos(0, 0, -0.5) * s.shape, "bought", s.part, s.colour, "x",
                thread=bd.Pos(0, 0, -0.5) * s.thread, engages="cradle_1")
    hits, _ = C.collisions([deck, up])
    assert [set(h[:2]) for h in hits] == [{"screw_cradle_1_a", "deck"}]


def test_sweep_sees_a_part_in_a_tile_s_way(design):
    """A pin standing on the deck behind tile 1's hinge, where the open tile leans, is hit; the
    old sampled angles (3, 8, 15, 30, 50, 70, 90) would have missed the boss's pass through the
    deck window, which this exact sweep covers."""
    lay = design.lay
    pin = E._cyl_z(lay.tile_x(1), lay.y_hinge + 6, lay.zt, lay.zt + 25, 2.0)
    extra = E.Design(lay, list(design.items) + [E.Item("pin", pin, "bought", "pin", (0, 0, 0),
                                                       "x")], design.shut)
    assert C.sweep_collisions(extra, tiles=[1]) == [(1, "pin")]


def test_walls_are_measured_around_holes(design):
    """A block with a pilot 0.5 mm from its side: the wall check finds 0.5 mm."""
    lay = design.lay
    block = E._box(0, 10, 0, 10, 0, 6) - E._cyl_z(8.25, 5, 1, 7, 2.5)
    fake = E.Design(lay, [E.Item("block", block, "printed", "block", (0, 0, 0), "x")], ())
    ((name, wall, _),) = C.wall_report(fake)
    assert name == "block" and wall == pytest.approx(0.5, abs=0.02)


def test_leds_without_light_pipes_are_hidden_from_30_degrees(design):
    """The old model: LEDs under their holes, seen through the deck (tile 1's LED and a pip)."""
    keep = ("tile_led_1", "pip_led_0_1", "light_pipe_1", "pip_pipe_0_1")
    items = [design.by_name(n) for n in keep]
    deck = design.by_name("deck")       # the deck around them (its patch: quick to mesh)
    box = E._box(0, design.lay.tile_x(1) + 15, 0, design.lay.y_led + 15, 0, 60)
    items.insert(0, E.Item("deck", deck.local(box.bounding_box()), "cut", "deck", (0, 0, 0),
                           "close"))
    assert set(C.led_visibility(E.Design(design.lay, items, ())).values()) == {1.0}
    vis = C.led_visibility(E.Design(design.lay, items[:3], ()))
    assert max(vis.values()) < 0.5


def test_sound_rods_magnets_deck_and_countersinks_fail_when_wrong(design, params):
    lay = design.lay
    # no sound hole: a plain deck over the buzzer
    plain = E.Item("deck", E._box(0, lay.width, 0, lay.depth, lay.zb, lay.zt), "cut", "deck",
                   (0, 0, 0), "close")
    items = [plain if it.name == "deck" else it for it in design.items]
    assert C.sound_path(E.Design(lay, items, design.shut)) == 0.0
    # no washers: the rods slide out
    items = [it for it in design.items if not it.name.startswith(("washer_rod", "screw_rod"))]
    assert len(C.rods_held(E.Design(lay, items, design.shut))) == 4
    # the old magnets: 6 x 3 mm, 0.1 mm apart, pull 9 N; a tile takes some 8 N to open
    old = E.Params(dict(params.values, magnet_diameter=6.0, magnet_thickness=3.0,
                        magnet_recess=0.0), params.switch)
    lay_old = E.Layout(old, 9)
    mags = [E.Item("deck_magnet_2", E.magnet_solid(lay_old.tile_x(2), lay_old.y_magnet,
                                                   lay_old.zt - 3.0, 6, 3), "bought",
                   "magnet", (0, 0, 0), "x"),
            E.Item("tile_magnet_2", E.magnet_solid(lay_old.tile_x(2), lay_old.y_magnet,
                                                   lay_old.zt + 0.1, 6, 3), "bought",
                   "magnet", (0, 0, 0), "x")]
    m = C.magnet_report(E.Design(lay_old, mags, (2,)))
    assert m["open_min_n"] > 5 * params.holding_force[1]
    # numbers where the old layout put them: in the dice squares
    monkey = E.Layout(params, 9)
    monkey.y_num = monkey.y_dice + monkey.die / 2 - 3.0
    d = C.deck_report(E.Design(monkey, [], ()))
    assert d["numbers_in_dice"] == [0, 1]
    # a countersunk screw whose panel hole has no countersink
    flat = E.flats(lay)
    flat[0].csk = flat[0].csk[1:]
    assert C.countersink_report(design, flat) == ["screw_deck_00"]


def test_magnet_force_model():
    """The pull falls with the gap; the discs' integral tends to its closed form (1/2) as they
    touch; the old 6 x 3 mm N35 pair at 0.1 mm pulls the 8.6 N the issue measured."""
    f = [P.pair_force(4, 2, g, 1.22) for g in (0.5, 1.0, 2.0, 4.0)]
    assert f == sorted(f, reverse=True) and f[-1] > 0
    near = [abs(P._disc_integral(2e-3, 2e-3 * k) - 0.5) for k in (1e-2, 1e-3, 1e-4)]
    assert near == sorted(near, reverse=True) and near[-1] < 0.001
    assert P.pair_force(6, 3, 0.1, P.GRADES["N35"]) == pytest.approx(8.6, rel=0.03)


def test_shut_tile_operates_the_switch_and_open_tile_releases_it(design):
    sw = design.lay.p.switch
    for k in (1, design.lay.tiles):
        r = C.lever_report(design, k)
        assert sw.op - sw.ot_min <= r["shut_height"] < sw.op, r
        assert r["open_height"] == pytest.approx(sw.fp_max) and r["open_height"] > sw.rp_max
    lo, hi = E.cradle_slot(design.lay)
    assert lo <= -sw.op_tol and hi >= sw.op_tol


def test_usb_plug_fits_and_printed_parts_fit_the_bed(design, params, monkeypatch):
    assert C.usb_report(design) == [] and C.bed_report(design) == []
    parts = E.printed_parts(design)
    assert {"cradle", "hinge_post", "end_post_left", "corner_post", "dice_plate", "tile_1",
            "light_pipe", "tolerance_coupon", "switch_gauge"} <= set(parts)
    small = E.Params(dict(params.values, printer_bed=(40.0, 40.0)), params.switch)
    names = [b[0] for b in C.bed_report(E.Design(E.Layout(small, 9), design.items, ()))]
    assert "cradle" in names


@pytest.mark.slow
def test_twelve_tiles_build_and_keep_clear(params):
    """The 12-tile box: its parts do not collide, every screw holds, the BOM agrees (a long
    run: make soak; the 12-tile board's routing is in test_stripboard)."""
    other = E.build(params, 12)
    hits, engaged = C.collisions(other.items)
    assert hits == []
    assert min(t[3] for t in C.thread_report(other, engaged)) >= P.MIN_THREADS
    assert C.bom_report(other, list(csv.DictReader(io.StringIO(_bom_text(12))))) == []
    assert other.lay.width == pytest.approx(
        E.Layout(params, 9).width + 3 * params.tile_pitch)


def _bom_text(tiles):
    from shutbox_host.hardware import boardgen
    from shutbox_host.model import pinout

    data = json.loads((ROOT / "hardware/pinmap.json").read_text())
    return boardgen.render_bom(pinout.parse(dict(data, tiles=tiles)))


@pytest.mark.parametrize("change, words", [
    ({"tile_width": 7.0}, ["tile_width = 7", "narrower than its switch", "at least 8.4"]),
    ({"printer_min_wall": 2.0}, ["tile_thickness = 6", "around the hinge bore", "at least 7.3"]),
    ({"material_thickness": 2.0, "printer_min_wall": 2.5},
     ["material_thickness = 2", "thinner than printer_min_wall = 2.5"]),
    ({"tile_widht": 17}, ["unknown key 'tile_widht'"]),
    ({"tile_pitch": None}, ["missing key 'tile_pitch'"]),
    ({"switch": "cherry"}, ["switch must be one of", "'cherry'"]),
    ({"magnet_grade": "N99"}, ["magnet_grade must be one of N35, N38", "'N99'"]),
    ({"inner_height": 500}, ["inner_height = 500", "outside 30..120"]),
    ({"overtravel": 0.6}, ["overtravel = 0.6", "OT min 0.55"]),
    ({"holding_force": [1.0, 0.3]}, ["holding_force = [1, 0.3]", "must be below"]),
])
def test_bad_parameters_give_one_line(tmp_path, capsys, change, words):
    data = json.loads((ROOT / E.PARAMS).read_text())
    for key, value in change.items():
        if value is None:
            del data[key]
        else:
            data[key] = value
    path = tmp_path / "enclosure.json"
    path.write_text(json.dumps(data))
    assert cli.main(["enclosure", "--params", str(path), "--check"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith("shutbox enclosure: error: ")
    for w in words:
        assert w in err, err
