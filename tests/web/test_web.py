# The box in a web page, in headless Chromium: a whole turn, the settings menu, a reload.
"""The real firmware on the real MicroPython rp2 build, on rp2040js in a Web Worker of the page
(shutbox_host.web), driven by Playwright through the page's own controls.

A whole turn is played by clicking tiles and Roll with the CPython engine's moves; every
throw's LEDs are checked against the game log (the dice show the throw, exactly the tiles of
its legal moves lit white) and the score view against the score; each tile clicked must
change its LED (the click-to-LED times are measured here; `shutbox bench --json` reports
them as web_click_to_led_ms). Beside the box the game is in the terminal box's words
(shutbox_host.model.words, sentence for sentence), and the game log the page saves is one
`shutbox report` reads. The settings menu is entered through the page's power switch with
Roll held, said in words while it shows, a setting changed and found again after a reload
(the flash in IndexedDB), and again when the page is another build's (the box's files
carried over to the new flash). On a phone (390 px wide, a touch screen) nothing scrolls
sideways, a tap presses Roll and flips a tile, and "start a new box" starts one (its tiles
up). Opened as a file, the page says it must be served. No test may leave a console error.
The screenshot of the turn goes to docs/img/web.png when that file is missing or
SHUTBOX_WEB_SHOT=1 (so `make test` does not rewrite a committed file on every run), else
beside build/web.
"""

from __future__ import annotations

import os
import time

import pytest
from browser_skip import require_browser

pytestmark = [pytest.mark.node, pytest.mark.browser]

require_browser()

from shutbox import pins  # noqa: E402
from shutbox_host import mp  # noqa: E402
from shutbox_host.model.leds import face, tiles_lit  # noqa: E402
from shutbox_host.model.script import ROLL_MS  # noqa: E402
from shutbox_host.pico import autoplay  # noqa: E402
from shutbox_host.web import drive  # noqa: E402

SHOT = mp.ROOT / "docs" / "img" / "web.png"
SHOT_MAX = 200 * 1024


@pytest.fixture(scope="module")
def browser():
    with drive.Browser() as b:
        yield b


@pytest.fixture
def box(browser):
    bp = browser.page()
    yield bp
    bp.close()


def _shot_path():
    if not SHOT.is_file() or os.environ.get("SHUTBOX_WEB_SHOT") == "1":
        SHOT.parent.mkdir(parents=True, exist_ok=True)
        return SHOT
    return mp.ROOT / "build" / "web-test.png"


def test_the_scenario_of_every_box_on_the_page(browser):
    """The script every backend plays (tests/backends.py: a throw shows the dice it logs),
    on the page's box through shutbox_host.model.drive (``PageBox``: clicks and the mouse)."""
    import backends

    s = backends.throw_script()
    with drive.PageBox(browser.page()) as b:
        r = b.run(s)
        if not r.events("throw"):  # a press the chip held as long as the wall did (PageBox)
            b.until(ROLL_MS, "throw")
        b.advance(2 * backends.TAKE_MS)  # the throw's frame drawn, whenever it came
        r = b.shown()
        assert not b.page.errors, b.page.errors
    backends.check_throw(r, s)


def test_the_box_s_clock_never_runs_ahead_of_the_wall(box):
    """The chip keeps the wall's time (slower when the machine cannot keep up, never faster:
    a blink, Roll's 5 s hold and the fault pattern's 10 s are the box's own)."""
    box.open()
    box.wait_log("turn", 0, timeout_s=60)
    t0, e0 = time.monotonic(), box.js("() => shutbox.stats.emuMs")
    time.sleep(3)
    e1, t1 = box.js("() => shutbox.stats.emuMs"), time.monotonic()
    # (stats come every 500 ms: the second reading may be up to that old, never newer)
    assert (e1 - e0) / 1000 <= (t1 - t0) + 0.5 + 0.1, (e1 - e0, t1 - t0)
    assert e1 > e0  # it runs


def test_a_whole_turn_by_clicks_with_the_leds_checked_against_the_log(box, record_property,
                                                                     tmp_path):
    box.open()
    turn = box.wait_log("turn", 0, timeout_s=60)
    assert turn["player"] == 1 and turn["open"] == list(range(1, pins.TILES + 1))
    # the first lit frame: player 1's number on die A, in magenta; every open tile white
    box.wait_leds(lambda t, a, b: face(a) == 1 and set(a) <= {"M", "."}
                  and tiles_lit(t, "W") == list(range(1, pins.TILES + 1)),
                  "player 1's setup")
    assert box.js("() => shutbox.firstLitMs") is not None
    shot = _shot_path()
    n_tones = box.js("() => shutbox.tones.length")
    score = drive.play_turn(box, autoplay.engine(), at_throw=lambda: box.screenshot(shot))
    assert score["player"] == 1
    moves = [r for r in box.js("() => shutbox.log") if r.get("ev") == "move"]
    flips = sum(len(r["shut"]) for r in moves)
    lat = box.latencies()
    # every tile clicked changed its LED on the page (none left waiting)
    assert len(lat) == flips, (lat, flips)
    assert box.js("() => shutbox.unanswered + shutbox.superseded") == 0
    # measured, not asserted (a benchmark figure: shutbox bench --json, web_click_to_led_ms)
    print("click to LED, ms: %s" % sorted(round(x) for x in lat))
    record_property("web_click_to_led_ms_max", round(max(lat), 1))
    # the buzzer sounded (the accepted moves' chirps) and the mute control silences the page
    tones = box.js("() => shutbox.tones")[n_tones:]
    assert any(t["hz"] > 0 and t["duty"] > 0 for t in tones), tones
    box.page.click("#mute")
    assert box.js("() => shutbox.muted") is True
    assert box.js("() => document.querySelector('#mute').textContent") == "sound: muted"
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) < SHOT_MAX, len(data)
    said_as_the_terminal_says_it(box)
    the_saved_log_is_one_shutbox_report_reads(box, tmp_path)


def said_as_the_terminal_says_it(box):
    """The page's sentences are the terminal box's for the same records; the legend names
    every colour; the status speaks of the box, not of the emulator."""
    from shutbox_host.model import words

    ctx: dict = {}
    want = []
    for rec in box.js("() => shutbox.log"):
        rec.pop("_w", None)
        rec.pop("_t", None)
        words.track(rec, ctx)
        want.append(words.say(rec, ctx))
    assert box.js("() => shutbox.words") == want and len(want) >= 5
    assert any("threw" in x and "shut tiles that make" in x for x in want), want
    legend = box.js("() => [...document.querySelectorAll('#legend li')].map(x => x.textContent)")
    assert [x.split()[0] for x in legend] == [name for _, name, _ in words.LEGEND]
    status = box.js("() => document.querySelector('#status').textContent")
    assert status.startswith("The box is on") and "load" not in status, status


def the_saved_log_is_one_shutbox_report_reads(box, tmp_path):
    """The page's "save the game log": the JSON lines the box printed, a file `shutbox
    report` reports on."""
    import subprocess
    import sys

    with box.page.expect_download() as download:
        box.page.click("#save-log")
    path = tmp_path / download.value.suggested_filename
    download.value.save_as(path)
    assert path.name.startswith("shutbox-log-") and path.suffix == ".jsonl"
    lines = path.read_text().splitlines()
    assert lines == [x for x in box.js("() => shutbox.lines") if x.startswith("{")]
    p = subprocess.run([sys.executable, "-m", "shutbox_host.cli", "report", str(path)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert "player 1" in p.stdout and "Costliest decisions" in p.stdout, p.stdout
    assert box.errors == []


def _wait_saved(box, quiet_s=1.0, timeout_s=20, saves=1):
    """Wait until the page has saved every flash write (at least *saves* times since it
    loaded) and none came for *quiet_s*."""
    deadline = time.monotonic() + timeout_s
    quiet_since = None
    while time.monotonic() < deadline:
        if box.js("(n) => !shutbox.unsaved && shutbox.saves >= n", saves):
            quiet_since = quiet_since or time.monotonic()
            if time.monotonic() - quiet_since >= quiet_s:
                return
        else:
            quiet_since = None
        time.sleep(0.05)
    raise AssertionError("the flash was never saved")


def test_the_settings_menu_by_the_power_switch_and_a_setting_kept_through_a_reload(box):
    box.open()
    box.wait_log("turn", 0, timeout_s=60)
    box.latch()  # Roll held down
    box.power()  # off
    assert box.js("() => shutbox.powered") is False
    time.sleep(0.2)
    box.power()  # on, with Roll held: the settings menu (it logs nothing until it saves)
    box.wait_leds(lambda t, a, b: face(a) == 1 and face(b) == 1 and tiles_lit(t, "G") == [2],
                  "the menu's page 1.1 (players) with 2 players chosen", timeout_s=30)
    box.page.wait_for_function("() => shutbox.screen[0] === 'settings menu 1.1: players = 2'")
    assert box.js("() => document.querySelector('#screen').hidden") is False
    box.latch()  # let Roll go
    time.sleep(0.3)
    box.flip(3)  # tile 3: 3 players
    box.wait_leds(lambda t, a, b: tiles_lit(t, "G") == [3], "3 players chosen")
    box.page.wait_for_function("() => shutbox.screen[0] === 'settings menu 1.1: players = 3'")
    n = box.log_len()
    box.click_roll(1000)  # a long press: save and play
    st = box.wait_log("settings", n)
    assert st["values"][0] == 2  # players: index 2 = 3 players
    box.flip(3)  # tile 3 up again: every tile open
    game = box.wait_log("game", n)
    assert game["players"] == 3
    assert box.js("() => document.querySelector('#screen').hidden") is True  # the game's on
    n = box.log_len()
    box.page.focus("#roll")  # Enter on the focused Roll presses it
    box.page.keyboard.down("Enter")
    time.sleep(0.15)
    box.page.keyboard.up("Enter")
    box.wait_log("throw", n)
    _wait_saved(box)
    box.reload()
    st = box.wait_log("settings", 0, timeout_s=60)
    assert st["values"][0] == 2 and st["status"] == 0  # read back from the flash (1: missing)
    rec = box.wait_log("resume|game", 0)
    assert len(rec.get("scores", [0] * rec.get("players", 0))) == 3, rec
    # a new build of the page (another firmware or uf2): the box's files go with it
    _wait_saved(box, saves=0)
    box.js(RELABEL)
    box.reload()
    assert box.js("() => shutbox.carried") >= 1, box.js("() => shutbox.notice")
    st = box.wait_log("settings", 0, timeout_s=60)
    assert st["values"][0] == 2 and st["status"] == 0
    assert box.errors == []


def test_on_a_phone_a_tap_is_a_press_and_a_new_box_is_new(browser):
    """390 px wide with a touch screen: nothing scrolls sideways; a tap on Roll throws and a
    tap on a tile shuts it; "start a new box" gives a new box with its tiles up (the page
    going away no longer saves the old one's tiles again)."""
    box = browser.page(phone=True)
    try:
        box.open()
        box.wait_log("turn", 0, timeout_s=60)
        assert box.js("() => document.documentElement.scrollWidth") <= 390
        right = box.js("() => Math.max(...[...document.querySelectorAll('button, .led')]"
                       ".map(e => e.getBoundingClientRect().right))")
        assert right <= 390, right  # every control within the screen
        n = box.log_len()
        box.tap("#roll")
        throw = box.wait_log("throw", n)
        total = throw["total"]
        tiles = [total] if total <= pins.TILES else [pins.TILES, total - pins.TILES]
        n = box.log_len()
        for k in tiles:
            box.tap("#tile-%d" % k)
            time.sleep(0.15)
        assert box.wait_log("move", n)["shut"] == sorted(tiles)
        _wait_saved(box)
        box.page.once("dialog", lambda d: d.accept())
        with box.page.expect_navigation(timeout=30000):  # the page reloads as a new box
            box.tap("#newbox")
        box._ready(60)
        st = box.wait_log("settings", 0, timeout_s=60)
        assert st["status"] == 1  # a new box: no settings file yet
        assert box.js("() => shutbox.tiles") == (1 << pins.TILES) - 1  # every tile up
        assert box.wait_log("turn", 0, timeout_s=60)["open"] == list(range(1, pins.TILES + 1))
        assert box.errors == []
    finally:
        box.close()


def _throws(box, press, what: str) -> dict:
    """Press Roll once with *press*; the throw it makes (AssertionError naming *what*)."""
    n = box.log_len()
    press()
    try:
        return box.wait_log("throw", n, timeout_s=10)
    except AssertionError as exc:
        raise AssertionError("%s did not throw: %s" % (what, exc)) from None


def _move(box, total: int) -> None:
    """Shut the tiles of the first throw of a turn (every tile open) that make *total*."""
    n = box.log_len()
    for k in [total] if total <= pins.TILES else [pins.TILES, total - pins.TILES]:
        box.flip(k)
        time.sleep(0.15)
    box.wait_log("move", n)


def test_a_quick_click_and_a_key_let_go_at_once_each_throw(box):
    """A Roll click of 5 ms (shorter than the box's debounce) throws, and so does the space
    key pressed and let go at once: each level of Roll stays on the chip's pin for the
    firmware's shortest press (shutbox.debounce._PRESS_MS, in box.json)."""
    from shutbox_host.model.script import PRESS_MS

    box.open()
    box.wait_log("turn", 0, timeout_s=60)
    assert box.js("() => fetch('box.json').then(r => r.json()).then(c => c.pressMs)") \
        == PRESS_MS
    throw = _throws(box, lambda: box.click_roll(5), "a 5 ms click")
    _move(box, throw["total"])
    _throws(box, lambda: box.page.keyboard.press(" "), "the space key pressed and let go")
    assert box.errors == []


def test_on_a_touch_screen_a_quick_tap_throws(browser):
    """A 5 ms tap of Roll on a touch screen (touch input: pointer events of type touch)
    throws."""
    box = browser.page(phone=True)
    try:
        box.open()
        box.wait_log("turn", 0, timeout_s=60)
        _throws(box, lambda: box.tap("#roll", ms=5), "a 5 ms tap")
        assert box.errors == []
    finally:
        box.close()


def test_opened_as_a_file_it_says_it_must_be_served(browser, tmp_path):
    from shutbox_host.web import build

    box = browser.page()
    try:
        box.page.goto((build.OUT / "index.html").as_uri())
        box.page.wait_for_function("() => document.querySelector('#status').textContent"
                                   ".includes('must be served')")
        text = box.js("() => document.querySelector('#status').textContent")
        assert "shutbox web" in text and " at " not in text, text  # words, no stack trace
        assert box.errors == []
    finally:
        box.close()


# The saved box, relabelled as another build's (its firmware is the same: what is tested is
# that its /data reaches the box laid out anew)
RELABEL = """async () => {
  const db = await new Promise((ok, no) => {
    const r = indexedDB.open('shutbox-box', 1);
    r.onsuccess = () => ok(r.result);
    r.onerror = () => no(r.error);
  });
  const tx = db.transaction('box', 'readwrite');
  const store = tx.objectStore('box');
  const rec = await new Promise((ok) => {
    const r = store.get('flash');
    r.onsuccess = () => ok(r.result);
  });
  rec.build = 'another build';
  store.put(rec, 'flash');
  await new Promise((ok) => { tx.oncomplete = ok; });
  db.close();
}"""
