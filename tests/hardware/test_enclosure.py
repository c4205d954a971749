# The enclosure's geometry, checked on the real build123d/OpenCascade solids; and its CLI.
"""Tests of the enclosure: solids, collisions, lever travel, USB plug, print bed, --check."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

E = pytest.importorskip(
    "shutbox_host.hardware.enclosure", reason="enclosure toolchain: make venv-enclosure")
pytest.importorskip("build123d", reason="build123d missing: make venv-enclosure")

from shutbox_host import cli  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def params():
    return E.load(ROOT / E.PARAMS)


@pytest.fixture(scope="session")
def design(params):
    """The reference 9-tile box, built once for the geometry tests."""
    return E.build(params, 9)


def test_every_part_is_a_valid_closed_solid(design):
    assert len(design.items) > 60
    assert E.check_solids(design) == []
    # the check sees a part that is only a face
    face = E._bd().Rectangle(10, 10)
    bad = E.Item("sheet", face, "printed", "sheet", (1, 1, 1), "x")
    assert E.check_solids(E.Design(design.lay, [bad], ())) == ["sheet: no solid"]


def test_no_two_assembled_parts_intersect(design):
    assert E.collisions(design.items) == []
    # the check finds a tile pushed 1 mm sideways into its hinge post
    tile = design.by_name("tile_1")
    moved = E.Item("tile_1", E._bd().Pos(-1.0, 0, 0) * tile.shape, "printed", "tile_1",
                   tile.colour, "tiles")
    hits = E.collisions([moved, design.by_name("hinge_post_0")])
    assert [h[:2] for h in hits] == [("tile_1", "hinge_post_0")] and hits[0][2] > 1.0


def test_shut_tile_operates_the_switch_and_open_tile_releases_it(design):
    sw = design.lay.p.switch
    for k in (1, design.lay.tiles):
        r = E.lever_report(design, k)
        # shut: the lever measured on the solids is past the operating point, within OT min
        assert sw.op - sw.ot_min <= r["shut_height"] < sw.op, r
        # open: the tile does not hold the lever: it springs to its free position, above RP
        assert r["open_height"] == pytest.approx(sw.fp_max) and r["open_height"] > sw.rp_max
    # the slots let each switch be set to its own OP anywhere in the datasheet's tolerance
    lo, hi = E.cradle_slot(design.lay)
    assert lo <= -sw.op_tol and hi >= sw.op_tol


def test_lever_measure_sees_a_shallow_boss(params, design):
    """A tile whose boss is 1 mm shorter leaves the lever above OP: the check would fail."""
    lay = design.lay
    tile = E.tile_solid(lay, 1)
    lifted = E._bd().Pos(0, 0, 1.0) * tile
    h = lay.p.switch.lever_height(E.lever_rest_angle(lay, lifted, 1))
    assert h > lay.p.switch.op


def test_tile_swings_up_without_touching_deck_posts_or_rods(design):
    assert E.sweep_collisions(design, 1) == []


def test_usb_plug_fits_through_the_back_wall(design, monkeypatch):
    assert E.usb_report(design) == []
    # an overmould 3 mm wider than the opening allows hits the back wall
    monkeypatch.setitem(E.USB_PLUG, "mould_w", E.USB_PLUG["mould_w"] + 3.0)
    assert "back" in E.usb_report(design)


def test_printed_parts_fit_the_bed(design, params):
    assert E.bed_report(design) == []
    parts = E.printed_parts(design)
    assert {"cradle", "hinge_post", "corner_post", "dice_plate", "tile_1"} <= set(parts)
    small = E.Params(dict(params.values, printer_bed=(40.0, 40.0)), params.switch)
    names = [b[0] for b in E.bed_report(E.Design(E.Layout(small, 9), design.items, ()))]
    assert "cradle" in names


@pytest.mark.parametrize("tiles", [10, 12])
def test_other_tile_counts_pass_every_check(params, tiles):
    other = E.build(params, tiles)
    assert E.run_checks(other, sweep=False) == []
    assert other.lay.width == pytest.approx(
        E.Layout(params, 9).width + (tiles - 9) * params.tile_pitch)
    assert sum(it.name.startswith("switch_") for it in other.items) == tiles


def _copy_root(tmp_path):
    for rel in (E.PARAMS, E.PINMAP):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / rel, tmp_path / rel)
    shutil.copytree(ROOT / E.OUT, tmp_path / E.OUT)
    return tmp_path


def test_check_compares_the_committed_files_with_a_fresh_generation(tmp_path, capsys):
    """One test (one generation, one xdist worker): the repository's files match; a copy with
    an edited, a missing and a stray file fails --check, naming each."""
    committed, heavy, _ = E.generated(ROOT)
    assert E.stale(ROOT) == []
    assert sum(len(v) for v in committed.values()) <= 2 * 1024 * 1024
    step = heavy[E.BUILD + "/step/assembly.step"].decode("latin-1")
    assert "FILE_NAME('assembly','%s'" % E.FIXED_STAMP in step     # no timestamp
    assert cli.main(["enclosure", "--check"]) == 0
    assert "geometry checks pass" in capsys.readouterr().out
    root = _copy_root(tmp_path)
    args = ["enclosure", "--check", "--root", str(root)]
    assert cli.main(args) == 0
    capsys.readouterr()
    svg = root / E.OUT / "cut.svg"
    svg.write_bytes(svg.read_bytes() + b" ")
    assert cli.main(args) == 1
    assert "out of date: hardware/enclosure/cut.svg" in capsys.readouterr().err
    (root / E.OUT / "stl" / "cradle.stl").unlink()
    (root / E.OUT / "stray.txt").write_text("x")
    assert cli.main(args) == 1
    err = capsys.readouterr().err
    assert "stl/cradle.stl" in err and "stray.txt" in err


@pytest.mark.parametrize("change, words", [
    ({"tile_width": 7.0}, ["tile_width = 7", "narrower than its switch", "at least 7.6"]),
    ({"printer_min_wall": 2.0}, ["tile_thickness = 6", "around the hinge bore", "at least 7.3"]),
    ({"material_thickness": 2.0, "magnet_thickness": 2.0, "printer_min_wall": 2.5},
     ["material_thickness = 2", "thinner than printer_min_wall = 2.5"]),
    ({"tile_widht": 17}, ["unknown key 'tile_widht'"]),
    ({"tile_pitch": None}, ["missing key 'tile_pitch'"]),
    ({"switch": "cherry"}, ["switch must be one of", "'cherry'"]),
    ({"inner_height": 500}, ["inner_height = 500", "outside 30..120"]),
    ({"overtravel": 0.6}, ["overtravel = 0.6", "OT min 0.55"]),
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
