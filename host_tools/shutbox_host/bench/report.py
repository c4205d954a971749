# `shutbox bench --only report`: how long `shutbox report` takes on a log of a hundred games.
"""Figures of `shutbox report` (never asserted in tests).

The log: GAMES two-player games of the default nine-tile box played by the firmware's own
game on CPython (shutbox_host.analysis.games: player 1 the box's optimal play, player 2
the rule of thumb), written as the box prints them (settings, game, turn, throw, move,
score, turn_end, winner records).

- report_cli_s_100_games: wall seconds of ``shutbox report LOG`` (the text) as a fresh
  process of this interpreter: start-up, reading, the exact solver, the text. Best of
  CLI_RUNS.
- report_png_cli_s_100_games: the same with ``-o OUT.png`` (matplotlib's import and the
  plots too); report_html_cli_s_100_games: with ``--html -o OUT.html``.
- report_read_ms_100_games: in this process, reading the log and every decision's figures
  (report.read_logs, the solver's Analysis made anew: its rules' tables stay, as in one
  run) and the text. Best of READ_RUNS.
- report_log_records_100_games: the log's records, for scale.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from shutbox_host import mp
from shutbox_host.analysis import games, report

GAMES = 100
CLI_RUNS = 3
READ_RUNS = 3


def _cli_s(argv: list[str], runs: int) -> float:
    """The fastest of *runs* runs of ``shutbox ARGV`` as fresh processes, in seconds."""
    best = float("inf")
    code = "import sys; from shutbox_host.cli import main; sys.exit(main(sys.argv[1:]))"
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", code, *argv], check=True,
                       stdout=subprocess.DEVNULL, **mp.tied())
        best = min(best, time.perf_counter() - t0)
    return best


def figures(soak: bool = False) -> dict:
    """The report's timings on a log of GAMES games."""
    recs = games.play(GAMES, 2, ["best", "greedy"], seed=1)
    with tempfile.TemporaryDirectory(prefix="shutbox-bench-report-") as tmp:
        log = Path(tmp) / "games.jsonl"
        games.write(recs, log)
        best = float("inf")
        for _ in range(READ_RUNS):
            report._ANALYSES.clear()
            t0 = time.perf_counter()
            report.text(report.read_logs([log]))
            best = min(best, time.perf_counter() - t0)
        out = {"report_log_records_100_games": len(recs),
               "report_read_ms_100_games": round(best * 1000, 1),
               "report_cli_s_100_games": round(_cli_s(["report", str(log)], CLI_RUNS), 3),
               "report_png_cli_s_100_games": round(_cli_s(
                   ["report", str(log), "-o", str(Path(tmp) / "r.png")], CLI_RUNS), 3),
               "report_html_cli_s_100_games": round(_cli_s(
                   ["report", str(log), "--html", "-o", str(Path(tmp) / "r.html")],
                   CLI_RUNS), 3)}
    return out
