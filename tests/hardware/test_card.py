# The printable reference card and README's table: generated from one table, and up to date.
"""shutbox card: hardware/card.svg, hardware/card.pdf and README.md's settings table."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
import zlib

import pytest

from shutbox import powerup, setnames
from shutbox_host.errors import UserError
from shutbox_host.hardware import cardgen


def test_the_committed_card_and_readme_are_up_to_date():
    r = subprocess.run([sys.executable, "-m", "shutbox_host.cli", "card", "--check"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "up to date" in r.stdout


def test_the_combinations_are_the_firmwares():
    modes = []
    for tiles, _, _ in cardgen.COMBINATIONS:
        levels = 0x1FF & ~sum(1 << (k - 1) for k in tiles)
        modes.append(powerup.combination(levels, True, 9))
    assert modes == [powerup._MENU, powerup._SELFTEST, powerup._RECORDS,
                     powerup._RESET_RECORDS, powerup._FACTORY]  # private: no names in RAM


def test_every_setting_and_value_is_on_the_card_and_in_the_readme():
    assert set(cardgen.MEANINGS) == set(setnames.OPTIONS)
    svg = cardgen.SVG.read_text()
    readme = cardgen.README.read_text()
    section = readme.split(cardgen.BEGIN)[1].split(cardgen.END)[0]
    texts = {t.text for t in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}text")}
    for option, values in zip(setnames.OPTIONS, setnames.CHOICES, strict=True):
        assert option in texts and "`%s`" % option in section
        row = next(line for line in section.splitlines() if "`%s`" % option in line)
        for v in values:
            assert v in texts
            assert re.search(r"\| (\*\*)?%s(\*\*)? \|" % re.escape(v), row), (option, v)
    for _, when, what in cardgen.COMBINATIONS:
        assert when in texts and what in texts and "| %s | %s |" % (when, what) in section


def test_the_pdf_is_well_formed_and_holds_the_same_text():
    data = cardgen.PDF.read_bytes()
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
    xref = int(data.rsplit(b"startxref", 1)[1].split()[0])
    assert data[xref:xref + 4] == b"xref"
    entries = data[xref:].split(b"\n")[3:3 + 7]
    for i, entry in enumerate(entries):
        off = int(entry[:10])
        assert data[off:].startswith(b"%d 0 obj" % (i + 1)), i
    stream = data.split(b"stream\n", 1)[1].split(b"\nendstream", 1)[0]
    ops = zlib.decompress(stream).decode("latin-1")
    shown = re.findall(r"\((.*?)\) Tj", ops)
    texts = [s[5] for s in cardgen.layout() if s[0] == "text"]
    assert [t.replace("\\(", "(").replace("\\)", ")") for t in shown] == texts
    assert "/MediaBox [0 0 420 595]" in data.decode("latin-1")  # A5


def test_the_card_is_reproducible():
    shapes = cardgen.layout()
    assert cardgen.pdf(shapes) == cardgen.pdf(cardgen.layout())
    assert cardgen.svg(shapes) == cardgen.svg(cardgen.layout())


def test_every_cell_fits_even_in_a_wider_font():
    assert cardgen.FALLBACK >= 1.1
    for s in cardgen.layout():
        if s[0] == "text":
            _, x, y, size, bold, t = s
            assert x + cardgen.text_width(t, size, bold) <= cardgen.W - cardgen.MARGIN + 1, t
            assert y <= cardgen.H - cardgen.MARGIN


def test_write_then_check_then_stale(tmp_path, monkeypatch, capsys):
    readme = tmp_path / "README.md"
    readme.write_text("# x\n\n%s\nSTALE TEXT\n%s\n\nafter\n" % (cardgen.BEGIN, cardgen.END))
    monkeypatch.setattr(cardgen, "SVG", tmp_path / "card.svg")
    monkeypatch.setattr(cardgen, "PDF", tmp_path / "card.pdf")
    monkeypatch.setattr(cardgen, "README", readme)
    monkeypatch.setattr(cardgen, "ROOT", tmp_path)
    check = argparse.Namespace(check=True)
    with pytest.raises(UserError, match="out of date: card.svg, card.pdf, README.md"):
        cardgen.run(check)
    assert cardgen.run(argparse.Namespace(check=False)) == 0
    assert cardgen.run(check) == 0
    text = readme.read_text()
    assert text.startswith("# x\n") and text.endswith("\nafter\n") and "STALE TEXT" not in text
    (tmp_path / "card.svg").write_text("changed")
    with pytest.raises(UserError, match="card.svg"):
        cardgen.run(check)
    readme.write_text("no markers")
    with pytest.raises(UserError, match="markers"):
        cardgen.run(check)
