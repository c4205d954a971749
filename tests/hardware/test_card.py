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
from shutbox_host.model import words


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
                     powerup._RESET_RECORDS, powerup._FACTORY,
                     powerup._GAUGE]  # private: no names in RAM


def test_every_setting_and_value_is_on_the_card_and_in_the_readme():
    assert set(words.MEANINGS) == set(setnames.OPTIONS) | {"code"}
    svg = cardgen.SVG.read_text()
    readme = cardgen.DOC.read_text()
    section = readme.split(cardgen.BEGIN)[1].split(cardgen.END)[0]
    texts = {t.text for t in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}text")}
    # every option, and the challenge code's page last (6.6: off, a code)
    assert [r[2] for r in cardgen.rows()] == list(setnames.OPTIONS) + ["code"]
    assert cardgen.rows()[-1][:2] == (6, 6) and "6.6" in texts
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
        assert cardgen._wrap(words.MEANINGS[option], 6.6, 1e9)[0] in texts or \
            words.MEANINGS[option].split()[0] in texts
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


# ----- the strategy card (shutbox card --strategy) -----

def test_the_committed_strategy_card_is_up_to_date(capsys):
    assert cardgen.run(argparse.Namespace(check=True, strategy=True)) == 0
    assert "strategy card: up to date" in capsys.readouterr().out


@pytest.fixture(scope="module")
def card():
    from shutbox_host.solve import strategy

    return strategy.Card()


def _policy_distribution(var, key, limit):
    """A rule's final-score distribution pushed forward in Fractions (solver.distribution,
    the tests' reference) with the move and dice choices written out here from the rule:
    the legal sets of a throw by engine_reference's subset search, the best by *key* (the
    first in greedy order on a tie), one die where allowed once the open tiles add up to
    *limit* or less."""
    import engine_reference as ref

    from shutbox_host.solve import solver

    def dice(s, locked):
        ok = ref.one_die_allowed(s, var.one_die)
        return [(1, ok and sum(ref.tiles_of(s)) <= limit, 0)]

    def move(s, nxt, one_die, cands):
        legal = sorted((m for m in cands if m & s == m), reverse=True, key=lambda m: (
            max(ref.tiles_of(m)), -len(ref.tiles_of(m)), sorted(ref.tiles_of(m), reverse=True)))
        return [(1, min(legal, key=lambda m: key(s, m)))] if legal else []

    return solver.distribution(var, dice, move)


def test_the_card_rules_figures_are_the_rules_played_out(card):
    """Two rules re-played from their words through the reference push-forward: the card's
    exact expected score and chance of a shut box; seed 001's rule of thumb is the solver's
    greedy policy; every cost is the rule's score minus optimal play's, best first."""
    from shutbox_host.solve import solver

    rules = {r.name: r for r in card.rules}
    tiles = lambda m: [k + 1 for k in range(9) if m >> k & 1]  # noqa: E731
    keys = {"fewest": lambda s, m: len(tiles(m)),
            "keep-1-2-3": lambda s, m: len([t for t in tiles(m) if t <= 3])}
    for name, key in keys.items():
        dist = _policy_distribution(card.var, key, card.dice_limit)
        e = sum(sc * p for sc, p in dist.items())
        assert (rules[name].expected_score, rules[name].p_shut) == (e, dist.get(0, 0)), name
    greedy = solver.solve(card.var, policy="greedy")  # greedy throws one die at 6 or less
    if card.dice_limit == 6:
        assert rules["highest"].expected_score == greedy.expected_score
    costs = [r.cost for r in card.rules]
    assert costs == sorted(costs) and min(costs) > 0
    for r in card.rules:
        assert r.cost == r.expected_score - card.optimal.expected_score
    assert card.optimal.expected_score == solver.solve(card.var).expected_score


def test_the_opening_moves_are_the_solvers_pages(card):
    """Seed 001's reading of the solution: a throw of 2 to 9 shuts that single tile, 10, 11
    and 12 shut the 9 with the 1, the 2 and the 3."""
    got = {total: mask for total, mask, _e in card.openings}
    for total in range(2, 10):
        assert got[total] == 1 << (total - 1)
    for total, small in ((10, 1), (11, 2), (12, 3)):
        assert got[total] == (1 << 8) | (1 << (small - 1))


def test_the_strategy_page_says_the_figures(card):
    pages = cardgen.strategy_layout(card)
    text = cardgen.strategy_text(pages)
    assert len(pages) == 1 and text.startswith(cardgen.STRATEGY_TITLE)
    for r in card.rules:
        assert "%.2f" % r.expected_score in text and "+%.2f" % r.cost in text
    assert "%.2f" % card.optimal.expected_score in text
    assert "add up to %d or less" % card.dice_limit in text
    assert "seed 001" not in text
    data = cardgen.pdf(pages, cardgen.STRATEGY_TITLE)
    assert data == cardgen.STRATEGY_PDF.read_bytes()
