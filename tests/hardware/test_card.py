# The printable reference card and the docs' settings table: from one table, and up to date.
"""shutbox card: hardware/card.svg, hardware/card.pdf and docs/playing.md's settings table."""

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
    assert set(cardgen.MEANINGS) == set(setnames.OPTIONS) | {"code"}
    svg = cardgen.SVG.read_text()
    readme = cardgen.DOC.read_text()
    section = readme.split(cardgen.BEGIN)[1].split(cardgen.END)[0]
    texts = {t.text for t in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}text")}
    # every option, and the challenge code's page last (5.3: off, a code)
    assert [r[2] for r in cardgen.rows()] == list(setnames.OPTIONS) + ["code"]
    assert cardgen.rows()[-1][:2] == (5, 3) and "5.3" in texts
    for option, values in zip(setnames.OPTIONS + ("code",), setnames.CHOICES + (setnames.CODE,),
                              strict=True):
        assert option in texts and "`%s`" % option in section
        row = next(line for line in section.splitlines() if "`%s`" % option in line)
        for v in values:
            assert v in texts
            assert re.search(r"\| (\*\*)?%s(\*\*)? \|" % re.escape(v), row), (option, v)
    for _, when, what in cardgen.COMBINATIONS:
        assert when in texts and what in texts and "| %s | %s |" % (when, what) in section


def texts_of(pages):
    return [s[5] for shapes in pages for s in shapes if s[0] == "text"]


def test_the_pdf_is_well_formed_and_holds_the_same_text():
    data = cardgen.PDF.read_bytes()
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
    xref = int(data.rsplit(b"startxref", 1)[1].split()[0])
    assert data[xref:xref + 4] == b"xref"
    count = int(data[xref:].split(b"\n")[1].split()[1]) - 1
    entries = data[xref:].split(b"\n")[3:3 + count]
    for i, entry in enumerate(entries):
        off = int(entry[:10])
        assert data[off:].startswith(b"%d 0 obj" % (i + 1)), i
    shown = []
    for chunk in re.findall(rb"/FlateDecode >>\nstream\n(.*?)\nendstream", data, re.S):
        ops = zlib.decompress(chunk).decode("latin-1")
        shown += re.findall(r"\((.*?)\) Tj", ops)
    pages = cardgen.layout()
    assert len(pages) == 2  # how to play; the settings
    assert [t.replace("\\(", "(").replace("\\)", ")") for t in shown] == texts_of(pages)
    text = data.decode("latin-1")
    assert text.count("/MediaBox [0 0 420 595]") == 2 and "/Count 2" in text  # two A5 pages


def test_the_card_says_how_to_play_and_what_the_leds_mean():
    texts = " ".join(texts_of(cardgen.layout()))
    for colour, _means in cardgen.LEDS:
        assert colour in texts
    for word in ("Roll", "lowest score wins", "hold Roll", "23: die A shows 2"):
        assert word in texts, word
    for option in setnames.OPTIONS + ("code",):  # every meaning is on it, not only the name
        assert cardgen._wrap(cardgen.MEANINGS[option], 6.6, 1e9)[0] in texts or \
            cardgen.MEANINGS[option].split()[0] in texts
    assert "seed 001" not in texts  # the rule pages' file names mean nothing to a player
    for word in ("Challenge codes", "flip tile 2", "shutbox daily"):  # how to enter a code
        assert word in texts, word


def test_the_card_is_reproducible():
    pages = cardgen.layout()
    assert cardgen.pdf(pages) == cardgen.pdf(cardgen.layout())
    assert cardgen.svg(pages) == cardgen.svg(cardgen.layout())


def test_every_cell_fits_even_in_a_wider_font():
    assert cardgen.FALLBACK >= 1.1
    for shapes in cardgen.layout():
        for s in shapes:
            if s[0] == "text":
                _, x, y, size, bold, t = s
                assert x + cardgen.text_width(t, size, bold) <= cardgen.W - cardgen.MARGIN + 1, t
                assert y <= cardgen.H - cardgen.MARGIN


def test_no_two_texts_on_a_line_overlap_in_any_font():
    """Texts on one baseline leave a gap (in Helvetica widths), and the SVG pins every text to
    its Helvetica width, so a viewer's other font cannot run one into the next."""
    for shapes in cardgen.layout():
        lines: dict = {}
        for s in shapes:
            if s[0] == "text":
                _, x, y, size, bold, t = s
                lines.setdefault(round(y, 1), []).append((x, x + cardgen.text_width(t, size,
                                                                                      bold), t))
        for spans in lines.values():
            spans.sort()
            for (_, end, a), (start, _, b) in zip(spans, spans[1:], strict=False):
                assert end + 2 <= start, (a, b)
    svg = ET.fromstring(cardgen.SVG.read_text())
    texts = list(svg.iter("{http://www.w3.org/2000/svg}text"))
    assert texts and all(t.get("textLength") and t.get("lengthAdjust") == "spacingAndGlyphs"
                         for t in texts)
    for t in texts:
        assert abs(float(t.get("textLength")) - cardgen.text_width(
            t.text, float(t.get("font-size")), t.get("font-weight") == "bold")) < 0.1


def test_write_then_check_then_stale(tmp_path, monkeypatch, capsys):
    readme = tmp_path / "README.md"
    readme.write_text("# x\n\n%s\nSTALE TEXT\n%s\n\nafter\n" % (cardgen.BEGIN, cardgen.END))
    monkeypatch.setattr(cardgen, "SVG", tmp_path / "card.svg")
    monkeypatch.setattr(cardgen, "PDF", tmp_path / "card.pdf")
    monkeypatch.setattr(cardgen, "DOC", readme)
    monkeypatch.setattr(cardgen, "ROOT", tmp_path)
    check = argparse.Namespace(check=True)
    with pytest.raises(UserError, match="out of date: card.svg, card.pdf, README.md"):
        cardgen.run(check)
    capsys.readouterr()
    assert cardgen.run(argparse.Namespace(check=False)) == 0
    said = capsys.readouterr().out  # where the card is, to print it
    assert "the reference card: %s" % (tmp_path / "card.pdf") in said, said
    assert cardgen.run(argparse.Namespace(check=False)) == 0
    assert "up to date: the reference card: %s" % (tmp_path / "card.pdf") in \
        capsys.readouterr().out
    assert cardgen.run(check) == 0
    text = readme.read_text()
    assert text.startswith("# x\n") and text.endswith("\nafter\n") and "STALE TEXT" not in text
    (tmp_path / "card.svg").write_text("changed")
    with pytest.raises(UserError, match="card.svg"):
        cardgen.run(check)
    readme.write_text("no markers")
    with pytest.raises(UserError, match="markers"):
        cardgen.run(check)
