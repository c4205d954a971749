# `shutbox bench`: gathers the figures every part of the project measures into one JSON object.
"""Benchmarks: each part contributes figures(soak) -> dict from its own module here."""

from __future__ import annotations

import importlib
import json
import sys

# Modules that contribute figures, in print order. A module missing here is reported, not hidden.
PARTS = (
    "shutbox_host.bench.engine",
    "shutbox_host.bench.solve",
    "shutbox_host.bench.game",
    "shutbox_host.bench.flash",
    "shutbox_host.bench.reliability",
    "shutbox_host.bench.settings",
    "shutbox_host.bench.rp2",
    "shutbox_host.bench.web",
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


def collect(soak=False, only=()):
    """Return the merged figures of every part."""
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
        figures.update(module.figures(soak=soak))
    return figures


def run(args):
    """Print the figures as JSON (or one per line)."""
    figures = collect(soak=args.soak, only=args.only)
    if args.json:
        json.dump(figures, sys.stdout, indent=1, sort_keys=True)
        print()
    else:
        for key in sorted(figures):
            print("%-36s %s" % (key, figures[key]))
    return 0
