# The docs: every figure they quote comes from the bench's snapshot, and every link resolves.
"""Figures that cannot drift, and links that cannot break.

A figure in the docs is written with its source right after it, as an HTML comment that a
reader of the rendered page never sees: ``2.4<!--fig solve_ms_9 .1f--> ms``. KEY is a name of
``docs/figures.json`` (``shutbox bench --json --save docs/figures.json``, which ``make bench``
runs; ``a[b]`` reaches into a figure that is an object, ``soak:`` names the long runs'
figures), FMT how it is written (below); the number just before the comment must be exactly
that. So a figure quoted once can only change with its source, and a new bench run that
changes a figure fails here until the docs say the new value (the message gives it).

The figures a test can recompute in seconds (file sizes, counts) are checked against the
snapshot as well, so the snapshot itself cannot go stale for them; the rest are measurements
(times, heaps, emulated cycles) that only a bench run makes.

Formats: ``d`` (the default for ints: 12,345), ``.Nf`` (N decimals, with thousands commas),
``kb`` / ``kb1`` (bytes as KB, 0 or 1 decimal), ``mb1``, ``pct`` / ``pct1`` / ``pct2`` (a
fraction as a percentage), ``ms`` (seconds as whole ms), ``s1`` (ms as seconds, 1 decimal),
``x`` / ``x1`` (a ratio, 0 or 1 decimal).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOT = ROOT / "docs" / "figures.json"
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "hardware" / "README.md"]
MARK = re.compile(r"<!--fig ([\w:\-]+(?:\[[^\]]+\])*)(?: ([\w.]+))?-->")
NUMBER = re.compile(r"(-?[\d,]*\.?\d+)$")


def fmt(value, how: str | None) -> str:
    """Write *value* as the docs write it (the module docstring's formats)."""
    if how is None:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError("a %s needs a format (e.g. .1f)" % type(value).__name__)
        how = "d"
    if how == "d":
        return f"{int(value):,}"
    m = re.fullmatch(r"\.(\d)f", how)
    if m:
        return "{:,.{}f}".format(value, int(m.group(1)))
    scaled = {"kb": (1 / 1024, 0), "kb1": (1 / 1024, 1), "mb1": (1 / 1048576, 1),
              "pct": (100, 0), "pct1": (100, 1), "pct2": (100, 2), "ms": (1000, 0),
              "x": (1, 0), "x1": (1, 1), "s1": (1 / 1000, 1)}
    if how not in scaled:
        raise ValueError("unknown format %r" % how)
    k, places = scaled[how]
    return "{:,.{}f}".format(value * k, places)


def lookup(figures: dict, key: str):
    """The figure *key* of the snapshot (``a[b]``: item b of figure a)."""
    head, *items = re.split(r"\[", key)
    value = figures[head]
    for item in items:
        item = item.rstrip("]")
        value = value[int(item)] if isinstance(value, list) else value[item]
    return value


def quoted(text: str):
    """Yield (line number, key, format, the number written before the comment)."""
    for m in MARK.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        before = NUMBER.search(text[:m.start()])
        yield line, m.group(1), m.group(2), before.group(1) if before else None


@pytest.fixture(scope="module")
def figures():
    return json.loads(SNAPSHOT.read_text())["figures"]


def test_every_quoted_figure_is_its_sources(figures):
    wrong, seen = [], 0
    for path in DOCS:
        for line, key, how, written in quoted(path.read_text()):
            seen += 1
            where = "%s:%d" % (path.relative_to(ROOT), line)
            try:
                want = fmt(lookup(figures, key), how)
            except (KeyError, IndexError):
                wrong.append("%s: %s is no figure of docs/figures.json" % (where, key))
                continue
            if written != want:
                wrong.append("%s: %s is %s, the docs say %s" % (where, key, want, written))
    assert seen >= 40, seen  # the docs do quote their figures this way
    assert not wrong, "\n".join(wrong)


def test_the_format_of_a_figure_is_checked():
    """The check can fail: a changed figure, a wrong format, a missing number."""
    assert fmt(57408, None) == "57,408" and fmt(0.2124, "pct1") == "21.2"
    assert fmt(2.3456, ".2f") == "2.35" and fmt(543210, "kb") == "530"
    text = "a 57,000<!--fig heap--> b <!--fig heap--> c 2.4<!--fig t .1f-->"
    got = list(quoted(text))
    assert [g[3] for g in got] == ["57,000", None, "2.4"]
    assert fmt(57408, got[0][2]) != got[0][3]
    with pytest.raises(ValueError):
        fmt(1.5, None)


def test_the_snapshot_holds_what_a_test_can_recompute(figures):
    """Figures of files in the repository: the snapshot is not older than they are."""
    tables = ROOT / "firmware" / "shutbox" / "tables"
    sizes = {p.name: p.stat().st_size for p in tables.glob("*.bin")}
    if "tables_bytes" in figures:
        assert figures["tables_bytes"] == sum(sizes.values()), "run make bench"


# ----- links -----


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    s = re.sub(r"[`*_]", "", heading.strip().lower())
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def _anchors(path: Path) -> set:
    text = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)
    return {_slug(m.group(1)) for m in re.finditer(r"^#+ (.+)$", text, flags=re.M)}


def test_every_link_in_the_docs_resolves():
    broken = []
    for path in DOCS:
        text = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)
        for m in re.finditer(r"\]\(([^)\s]+)\)", text):
            target = m.group(1)
            if re.match(r"[a-z]+:", target):
                continue  # a web address: not checked offline
            file, _, anchor = target.partition("#")
            dest = (path.parent / file).resolve() if file else path
            if not dest.exists():
                broken.append("%s: %s (no such file)" % (path.relative_to(ROOT), target))
            elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
                broken.append("%s: %s (no such heading)" % (path.relative_to(ROOT), target))
    assert not broken, "\n".join(broken)


# ----- examples in the docs that print figures -----


def _shutbox(*args: str) -> str:
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "shutbox_host.cli", *args], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, (args, r.stderr)
    return r.stdout


def _blocks(path: Path) -> list[str]:
    return re.findall(r"```[a-z]*\n(.*?)```", path.read_text(), flags=re.S)


def test_the_solvers_examples_print_what_their_comments_say():
    """docs/solver.md: `shutbox solve ...  # 11.1575 ...`: the first figure of each comment is
    in that command's output; the `shutbox advise` example's lines are its output."""
    import shlex

    text = ROOT / "docs" / "solver.md"
    checked = 0
    for block in _blocks(text):
        for line in block.splitlines():
            m = re.match(r"(shutbox solve [^#]+?)\s+#\s*(.*)$", line)
            if m:
                figure = re.search(r"\d+\.\d+", m.group(2)).group(0)
                assert figure in _shutbox(*shlex.split(m.group(1))[1:]), line
                checked += 1
        if block.startswith("$ shutbox advise"):
            first, *shown = block.splitlines()
            out = _shutbox(*shlex.split(first[2:])[1:]).splitlines()
            for line in shown:
                assert line == "..." or line in out, line
            checked += 1
    assert checked >= 6


# The docs that quote measurements. A number with a unit there is a figure of the snapshot
# (marked) or one of these: a constant of the design, checked against the line of code that
# sets it where there is one (path, text it holds), or a fact of the hardware (path None).
MEASURED = ["README.md", "docs/performance.md", "docs/reliability.md", "docs/solver.md",
            "docs/analysis.md", "docs/flashing.md", "docs/playing.md", "docs/design.md"]
UNIT = re.compile(r"(?<![\w.\-/])(\d[\d,]*(?:\.\d+)?)(?!<!--fig)\s?"
                  r"(ms|µs|us|s|KB|MB|GB|bytes|%|x|h|min)(?![\w<])")
FW = "firmware/shutbox/"
CONSTANTS = {
    "30 ms": (FW + "sleep.py", "_PRESS_MS = const(30)"),  # Roll held this long wakes the box
    "25 ms": (FW + "debounce.py", "_LOCK_MS = const(25)"),
    "1 ms": ("host_tools/shutbox_host/contact.py", "GLITCH_MAX = 1 * _MS"),
    "10 ms": ("host_tools/shutbox_host/pico/bounce.py", "CLEAN_MS = 10"),  # and ROLL_MS
    "15 ms": ("host_tools/shutbox_host/pico/bounce.py", "BOUNCED_MS = 15"),
    "50 ms": ("host_tools/shutbox_host/pico/bounce.py", "LOST_MS = 50"),
    "6 ms": ("host_tools/shutbox_host/contact.py", 'NEW = Profile("new", 100 * _US, 6 * _MS'),
    "200 ms": ("host_tools/shutbox_host/contact.py", "CHATTER_MAX = 200 * _MS"),
    "22 µs": ("host_tools/shutbox_host/box/sim/simbus.py", "busy_us(22)"),  # measured: its doc
    "13 µs": ("host_tools/shutbox_host/box/sim/simbus.py", "busy_us(13)"),
    "2 s": (FW + "app.py", "_NOTICE_MS = const(2000)"),
    "5 s": (FW + "app.py", "_NEW_GAME_MS = const(5000)"),
    "8 s": (FW + "app.py", "_WATCHDOG_MS = const(8000)"),
    "10 s": (FW + "guard.py", "_FAULT_MS = const(10000)"),  # and turn.py's _WARN_S
    "30 s": (FW + "turn.py", "_LIMIT_MS = const(30000)"),  # the time limit: 30 s or twice
    "60 s": (FW + "setnames.py", 'TIMEOUT = ("off", "30-s", "60-s")'),
    "4 KB": (FW + "guard.py", "_LOG_CAP = const(4096)"),  # and littlefs's 4 KB blocks
    "8 KB": (FW + "guard.py", "_LOG_CAP = const(4096)"),  # error.log and error.old
    "83 bytes": ("tests/reliability/test_resume.py", "resume._SIZE + 83"),
    "7 bytes": (FW + "setfile.py", "``_SIZE`` (7) bytes"),
    "6 bytes": (FW + "setfile.py", "version 2 (before sleep) 6 bytes"),
    "30 min": (FW + "sleep.py", '_MINUTES = const(b"\\x00\\x01\\x05\\x0a\\x1e")'),
    "20 s": (FW + "sleep.py", "_CHECK_MS = const(20000)"),
    "1.5 s": (FW + "sleep.py", "_GAUGE_MS = const(1500)"),
    "60 ms": (FW + "sleep.py", "_RAMP_MS = const(60)"),
    "4 bytes": ("tests/firmware/test_dice.py", "exactly 4 bytes rejected"),
    "0 bytes": ("tests/reliability/soak.py", '"soak_heap_spread_bytes": out["max"] - out["min"]'),
    "64 KB": ("tests/firmware/test_memory.py", "FIRMWARE_CAP = 64 * 1024"),
    "16 KB": ("tests/firmware/test_memory.py", "LESS = 16 * 1024"),
    "73 KB": ("host_tools/shutbox_host/bench/game.py", "FIRMWARE_ROOM = 73 * 1024"),
    "66 KB": ("host_tools/shutbox_host/bench/game.py", "(it was 66 KB: 64 KB and 2 KB for"),
    "2 KB": ("host_tools/shutbox_host/bench/game.py", "(it was 66 KB: 64 KB and 2 KB for"),
    "2 ms": ("tests/pico/test_interrupt.py", "step_ms=2"),  # a Ctrl-C every 2 ms of the boot
    "40 KB": ("tests/mp/store_damaged.py", "# 40 KB, written in pieces"),
    "0.8 s": (FW + "computer.py", "_PACE_MS = const(800)"),
    "300 ms": ("host_tools/shutbox_host/web/static/app.js", "SAVE_SETTLE_MS = 300"),
    "5 ms": ("host_tools/shutbox_host/web/static/worker.js", "SLICE_MS = 5"),
    "100 ms": ("host_tools/shutbox_host/web/static/worker.js", "LAG_NS = 100e6"),
    "700 ms": (FW + "debounce.py", "_LONG_MS = const(700)"),
    "500 ms": (FW + "game.py", "_STATUS_MS = const(500)"),  # a waiting screen's blink
    "7.5 s": (FW + "game.py", "_CODE_CYCLE_MS = const(7500)"),
    "1 KB": (FW + "engine.py", "beat-target buffer (1 KB a layer on nine tiles)"),
    "256 KB": ("host_tools/shutbox_host/box/drive.py", 'heapsize: str = "256k"'),
    "0.73 ms": ("host_tools/shutbox_host/box/sim/simbus.py", "0.73 ms a write measured"),
    # a challenge's stream (design.md: the algorithm) and the daily code
    "32 bytes": (FW + "challenge.py", "32 bytes a block"),
    "16 bytes": (FW + "challenge.py", "16 bytes, integers little-endian"),
    "2 bytes": (FW + "challenge.py", "code (2 bytes)"),
    "8 bytes": ("host_tools/shutbox_host/box/daily.py", 'int.from_bytes(digest[:8], "big")'),
    # the W25Q16JV's sector erase and page program, typical and worst (cited from its
    # datasheet), as the simulated board's flash models them
    "45 ms": ("host_tools/shutbox_host/box/sim/norflash.py", '"typ": (45000, 400)'),
    "0.4 ms": ("host_tools/shutbox_host/box/sim/norflash.py", '"typ": (45000, 400)'),
    "400 ms": ("host_tools/shutbox_host/box/sim/norflash.py", '"max": (400000, 3000)'),
    "3 ms": ("host_tools/shutbox_host/box/sim/norflash.py", '"max": (400000, 3000)'),
    "20 µs": ("host_tools/shutbox_host/box/sim/norflash.py", "SUSPEND_US = 20"),  # tSUS
    "320 KB": (None, "issue 12's target for deployed_bytes"),
    "1.2 x": (None, "issue 12's target for update_peak_bytes"),
    "240 KB": (None, "a Pico's heap under MicroPython v1.28 (gc.mem_free at boot)"),
    "3.5 KB": (None, "MicroPython's qstr pool on the 64-bit port"),
    "7 KB": (None, "MicroPython's qstr pool on the 64-bit port, doubled"),
    "99 %": (None, "a percentile's name (p99)"),
    "21 %": (None, "the idle busy fraction before issue 11's lean loop"),
    "569,641 bytes": (None, "deployed_bytes before issue 12's lean deploys"),
    "2 MB": (None, "a Pico's flash chip (docs/flashing.md's table: boards.py)"),
    "4 MB": (None, "a Pico 2's flash chip (boards.py)"),
    "1408 KB": (None, "boards.py"), "848 KB": (None, "boards.py"),
    "3072 KB": (None, "boards.py"), "2560 KB": (None, "boards.py"),
    "7.4194 %": (None, "Durango Bill's STBstats.txt, cited in docs/solver.md"),
    "9.7614 %": (None, "Durango Bill's STBstats.txt, cited in docs/solver.md"),
    "7.1432 %": (None, "Durango Bill's STBstats.txt, cited in docs/solver.md"),
    "2.5%": (None, "cananian's blog, quoted in docs/solver.md"),
    "1%": (None, "cananian's blog, quoted in docs/solver.md"),
    "0.1%": (None, "cananian's blog, quoted in docs/solver.md"),
    "3.8x": (None, "cananian's blog, quoted in docs/solver.md"),
    "4x": (None, "cananian's blog, quoted in docs/solver.md"),
}
SIZES = re.compile(r"\d+ x$")  # 80 x 24: a terminal's size, not a ratio


def test_every_measurement_the_docs_quote_is_marked_or_a_constant():
    loose = []
    for rel in MEASURED:
        text = re.sub(r"```.*?```", lambda m: "\n" * m.group(0).count("\n"),
                      (ROOT / rel).read_text(), flags=re.S)
        for m in UNIT.finditer(text):
            said = m.group(0)
            if said in CONSTANTS or SIZES.fullmatch(said) and text[m.end():m.end() + 3] in (
                    " 14", " 24", " 32"):
                continue
            loose.append("%s:%d: %r" % (rel, text.count("\n", 0, m.start()) + 1, said))
    assert not loose, "figures neither marked nor constants:\n" + "\n".join(loose)
    for said, (path, holds) in CONSTANTS.items():
        if path is not None:
            assert holds in (ROOT / path).read_text(), "%s: %s no longer says %s" % (
                said, path, holds)


def rewrite(text: str, figures: dict) -> str:
    """*text* with every marked figure written afresh from *figures* (after a bench --save)."""
    return re.sub(r"(-?[\d,]*\.?\d+)(<!--fig ([\w:\-]+(?:\[[^\]]+\])*)(?: ([\w.]+))?-->)",
                  lambda m: fmt(lookup(figures, m.group(3)), m.group(4)) + m.group(2), text)


def test_rewrite_writes_what_the_check_wants(figures):
    text = "a 1<!--fig deployed_bytes--> b, 9.9<!--fig solve_ms_9 .3f-->"
    out = rewrite(text, figures)
    assert out == "a %s<!--fig deployed_bytes--> b, %s<!--fig solve_ms_9 .3f-->" % (
        fmt(figures["deployed_bytes"], None), fmt(figures["solve_ms_9"], ".3f"))


if __name__ == "__main__":  # python tests/test_docs.py: the docs' figures from the snapshot
    snap = json.loads(SNAPSHOT.read_text())["figures"]
    for doc in DOCS:
        old = doc.read_text()
        new = rewrite(old, snap)
        if new != old:
            doc.write_text(new)
            print("rewrote", doc.relative_to(ROOT))
