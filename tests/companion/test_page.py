# The companion's page in Chromium at phone size, served by the box on the simulated board.
"""Playwright drives Debian's Chromium (shutbox_host.web.drive's executable and flags) at a
phone's size against the companion on 127.0.0.1: the page follows the game live, a tile
flipped on the box shows on it within the companion's promise, a setting changed on the
page after pairing with the code the box shows applies, a home network given there is
joined, and the seats named there show in the scores. Its screenshot at phone size goes to
docs/img/companion.png when that file is missing or SHUTBOX_COMPANION_SHOT=1 (as
tests/web/test_web.py's), else to build/."""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

import pytest
from needs import require

from shutbox_host import mp
from shutbox_host.box.webbox import WebBox
from shutbox_host.web import drive

pytestmark = [pytest.mark.browser]
SHOT = mp.ROOT / "docs" / "img" / "companion.png"
SHOT_MAX = 200 * 1024


def _shot_path() -> Path:
    if not SHOT.is_file() or os.environ.get("SHUTBOX_COMPANION_SHOT") == "1":
        return SHOT
    return mp.BUILD / "companion.png"


def _missing() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed: make venv (requirements-dev.txt)"
    if not Path(drive.chromium()).is_file():
        return "no Chromium at %s: apt-get install chromium (Debian's)" % drive.chromium()
    return None


@pytest.fixture(scope="module")
def chromium():
    """Chromium, launched once for the module's tests (each test its own page)."""
    require(_missing(), "the companion's page")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=drive.chromium(), args=drive.ARGS,
                                     headless=True)
        try:
            yield browser
        finally:
            browser.close()


@contextlib.contextmanager
def _phone(chromium, box: WebBox, on_response=None, route=None):
    """A page at a phone's size on *box*'s companion, its state come (*on_response*: called
    with each response from the start; *route*: (url predicate, handler) for page.route);
    the page and then the box closed after."""
    try:
        page = chromium.new_page(viewport=drive.PHONE)
        try:
            if on_response is not None:
                page.on("response", on_response)
            if route is not None:
                page.route(*route)
            page.goto("http://127.0.0.1:%d/" % box.port)
            page.wait_for_function("() => window.shutboxState !== undefined")
            yield page
        finally:
            page.close()
    finally:
        box.close()


def test_the_page_goes_live_when_the_box_turned_its_first_requests_away(tmp_path, chromium):
    """The box answers a connection beyond its four with 503 (companion.web), as it may when
    the page opens and asks for seven things: the page opens its event stream again (the
    browser never reconnects a stream turned away) and asks for the settings again."""
    turned: list[str] = []

    def busy_once(route):
        path = route.request.url.rsplit("/", 1)[-1]
        if path in turned:
            route.continue_()
        else:
            turned.append(path)
            route.fulfill(status=503, headers={"Retry-After": "2"}, body="")

    box = WebBox(tmp_path / "flash")
    with _phone(chromium, box, route=(lambda url: url.endswith(("/api/events", "/api/settings")),
                                      busy_once)) as page:
        page.wait_for_function("() => document.querySelector('#conn').textContent === 'live'")
        page.wait_for_function("() => document.querySelector('#settings').rows.length > 3")
    assert sorted(turned) == ["events", "settings"]


def test_the_page_at_phone_size_shows_a_flip_and_changes_a_setting_after_pairing(
        tmp_path, chromium):
    box = WebBox(tmp_path / "flash", wifi=True)
    with _phone(chromium, box) as page:
        assert page.locator("#tiles div").count() == 9
        box.roll((4, 5))
        page.wait_for_function("() => window.shutboxState.state === 'move'")
        assert page.locator("#dice").inner_text() == "⚃ ⚄"
        assert "player 1 to play" in page.locator("#turn").inner_text()
        t = time.monotonic()
        box.tile(9, True)
        page.wait_for_selector("#tile9.down", timeout=2000)
        shown = time.monotonic() - t
        assert shown < 1.0, shown  # the push (300 ms) and the browser's own paint
        assert page.locator("#tile8.down").count() == 0
        # phone-sized: nothing wider than the screen
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= drive.PHONE["width"], width
        assert page.locator("#conn").inner_text() == "live"
        # paired on the page with the code the dice show, a setting changed there
        t = time.monotonic()
        page.click("#pair")
        page.fill("#code", box.pairing_code(t))
        page.click("#send")
        page.wait_for_function("() => document.getElementById('msg').textContent "
                               "=== 'paired'")
        page.select_option("#brightness", "low")
        page.wait_for_function("() => document.getElementById('msg').textContent "
                               "=== 'brightness: low'")
        assert box.request("GET", "/api/settings")[1]["brightness"] == "low"
        # the seats named on the page: in the scores, and a name refused in words
        page.fill("#seat1", "ann")
        page.fill("#seat2", "é" * 9)  # 9 letters, 18 bytes
        page.click("#setnames")
        page.wait_for_function("() => document.getElementById('msg').textContent"
                               ".startsWith('seat 2: a name is at most 16 bytes')")
        page.fill("#seat2", "bob")
        page.click("#setnames")
        page.wait_for_function("() => document.getElementById('msg').textContent "
                               "=== 'names: ann, bob'")
        page.wait_for_function("() => document.getElementById('scores').textContent"
                               ".startsWith('ann')")
        assert "bob" in page.locator("#scores").inner_text()
        assert box.request("GET", "/api/names")[1]["seats"][:2] == ["ann", "bob"]
        # the box's own network, then a home network given on the page
        assert "the box's own network shutbox-" in page.locator("#wifi").inner_text()
        shot = _shot_path()
        shot.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shot), full_page=True)
        data = shot.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) < SHOT_MAX, len(data)
        box.send("w home correct-horse")
        page.fill("#ssid", "home")
        page.fill("#wpw", "correct-horse")
        page.click("#join")
        page.wait_for_function("() => document.getElementById('msg').textContent "
                               "=== 'the box joins home: then open "
                               "http://shutbox.local/'")
        box.wait_log("wifi", after=0)
        end = time.monotonic() + 5
        while box.request("GET", "/api/wifi")[1]["mode"] != "home":
            assert time.monotonic() < end
            time.sleep(0.05)


def _box_with_hints(flash: Path, hints: int) -> WebBox:
    """A box whose saved settings have *hints* (as its menu saves them), its companion on."""
    from shutbox import setfile
    from shutbox.settings import Settings
    from shutbox.store import Store

    (flash / "data").mkdir(parents=True)
    assert setfile.save(Settings(hints=hints), Store(str(flash / "data"))) == 0
    return WebBox(flash)


@pytest.mark.parametrize("hints", [2, 1])
def test_the_page_ranks_the_throws_moves_only_with_best_move_hints(tmp_path, chromium, hints):
    """Hints on best move (2): the page shows the throw's moves as the box ranks them, the
    one the box lights marked; on legal moves (1: the box's default) it shows none."""
    asked = []
    box = _box_with_hints(tmp_path / "flash", hints)
    with _phone(chromium, box, lambda r: asked.append(r.status)
                if r.url.endswith("/api/moves") else None) as page:
        assert page.locator("#rank").is_hidden()
        box.roll((6, 3))
        page.wait_for_function("() => window.shutboxState.state === 'move'")
        if hints != 2:
            end = time.monotonic() + 3
            while not asked:  # the page asks once, the box refuses
                assert time.monotonic() < end, "the page never asked"
                page.wait_for_timeout(50)
            page.wait_for_timeout(300)
            assert asked == [403] and page.locator("#rank").is_hidden()
            assert page.locator("#ranked tbody tr").count() == 0
            return
        page.wait_for_selector("#rank", state="visible", timeout=3000)
        want = box.request("GET", "/api/moves")[1]["moves"]
        rows = page.locator("#ranked tbody tr")
        assert rows.count() == len(want) >= 5
        for i, m in enumerate(want):
            cells = rows.nth(i).locator("td").all_inner_texts()
            assert cells[:4] == [" ".join(map(str, m["shut"])),
                                 " ".join(map(str, m["leaves"])),
                                 "%.2f" % (m["expected"] / 1000),
                                 "%.1f%%" % (m["p_shut"] / 10)], (cells, m)
            assert (cells[4] == "◀ the box") == m["hint"]
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= drive.PHONE["width"], width
        box.tile(9, True)  # the move played: the ranking goes with the throw
        page.wait_for_selector("#rank", state="hidden", timeout=3000)
