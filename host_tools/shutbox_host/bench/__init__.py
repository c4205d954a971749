# `shutbox bench`: gathers the figures every part of the project measures into one JSON object.
"""Benchmarks: each part contributes figures(soak) -> dict from its own module here."""

from __future__ import annotations

import importlib
import json
import os
import sys

# Modules that contribute figures, in print order. A module missing here is reported, not hidden.
PARTS = (
    "shutbox_host.bench.engine",
    "shutbox_host.bench.solve",
    "shutbox_host.bench.strategy",
    "shutbox_host.bench.game",
    "shutbox_host.bench.flash",
    "shutbox_host.bench.reliability",
    "shutbox_host.bench.saves",
    "shutbox_host.bench.settings",
    "shutbox_host.bench.rp2",
    "shutbox_host.bench.idle",
    "shutbox_host.bench.power",
    "shutbox_host.bench.report",
    "shutbox_host.bench.web",
    "shutbox_host.bench.companion",
    "shutbox_host.bench.picow",
)


def _short(name: str) -> str:
    return name.rsplit(".", 1)[1]


def configure(parser):
    """Add the bench flags."""
    names = [_short(n) for n in PARTS]
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--soak", action="store_true", help="include the long runs")
    parser.add_argument("--only", action="append", default=[], choices=names, metavar="PART",
                        help="run only this part (repeatable): %s" % ", ".join(names))
    parser.add_argument("--save", metavar="FILE",
                        help="also merge the figures into FILE (docs/figures.json: the figures "
                        "the docs quote; the parts run replace their own figures there)")


def collect(soak=False, only=(), by_part=None):
    """Return the merged figures of every part (and, into *by_part*, each part's own)."""
    figures: dict = {}
    for name in PARTS:
        short = _short(name)
        if only and short not in only:
            continue
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            figures.setdefault("missing_parts", []).append(short)
            continue
        got = module.figures(soak=soak)
        if by_part is not None:
            by_part[short] = got
        figures.update(got)
    return figures


def save(path, by_part: dict, soak: bool = False) -> dict:
    """Merge each part's figures into the snapshot at *path* (a part run replaces all of its
    own figures, so none is left from an older run; with *soak*, the long runs' figures go
    under names starting "soak:"); return the snapshot."""
    import datetime
    import platform
    from pathlib import Path

    p = Path(path)
    try:
        snap = json.loads(p.read_text())
    except (OSError, ValueError):
        snap = {}
    snap.setdefault("about", "The figures the docs quote: `shutbox bench --json --save "
                    "docs/figures.json` (make bench) writes them; tests/test_docs.py checks "
                    "every quoted figure against this file.")
    parts = snap.setdefault("parts", {})
    figures = snap.setdefault("figures", {})
    for part, got in by_part.items():
        if soak:  # the long runs' figures kept beside the short ones: "soak:" names them
            part, got = part + "+soak", {"soak:" + k: v for k, v in got.items()}
        for key in parts.get(part, {}).get("keys", []):
            figures.pop(key, None)
        figures.update(got)
        parts[part] = {"keys": sorted(got), "measured": datetime.date.today().isoformat(),
                       "machine": "%s, %d cores, Python %s" % (
                           platform.machine(), os.cpu_count() or 0,
                           platform.python_version()),
                       }
    snap["figures"] = dict(sorted(figures.items()))
    snap["parts"] = dict(sorted(parts.items()))
    p.write_text(json.dumps(snap, indent=1, sort_keys=False) + "\n")
    return snap


def run(args):
    """Print the figures as JSON (or one per line)."""
    by_part: dict = {}
    figures = collect(soak=args.soak, only=args.only, by_part=by_part)
    if args.save:
        save(args.save, by_part, soak=args.soak)
    if args.json:
        json.dump(figures, sys.stdout, indent=1, sort_keys=True)
        print()
    else:
        for key in sorted(figures):
            print("%-36s %s" % (key, figures[key]))
    return 0
