# Skipping the browser tests cleanly where Chromium or Playwright is missing (and never on CI).
"""The web page's tests need the emulator's inputs (Node, rp2040js, the uf2, the bootrom), the
pinned esbuild (make node), Playwright for Python (make venv) and Debian's Chromium.

Without one of them these tests skip with one line saying what is missing; with
SHUTBOX_REQUIRE_EMU=1 (.ci/run) that is a failure instead, so CI never skips them.
"""

from __future__ import annotations

from needs import require

from shutbox_host.web import drive


def require_browser() -> None:
    """Skip the calling test module (or fail on CI) when the page cannot be tested here."""
    _require(drive.missing())


def require_build() -> None:
    """Skip (or fail on CI) when build/web cannot be built here (no browser needed)."""
    _require(drive.missing(browser=False))


def _require(why: str | None) -> None:
    require(why, "web page")
