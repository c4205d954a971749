# The box in a web page, in headless Chromium: a whole turn, the settings menu, a reload.
"""The real firmware on the real MicroPython rp2 build, on rp2040js in a Web Worker of the page
(shutbox_host.web), driven by Playwright through the page's own controls.

A whole turn is played by clicking tiles and Roll with the CPython engine's moves; every
throw's LEDs are checked against the game log (the dice show the throw, exactly the tiles of
its legal moves lit white) and the score view against the score; each tile clicked must
change its LED (the click-to-LED times are measured here; `shutbox bench --json` reports
them as web_click_to_led_ms). The settings menu is entered through the page's power switch
with Roll held, a setting changed and found again after a reload (the flash in IndexedDB),
and again when the page is another build's (the box's files carried over to the new flash).
No test may leave a console error. The screenshot of the turn goes to docs/img/web.png when
that file is missing or SHUTBOX_WEB_SHOT=1 (so `make test` does not rewrite a committed file
on every run), else beside build/web.
"""

from __future__ import annotations

import os
import time

import pytest
from browser_skip import require_browser

require_browser()

from shutbox import pins  # noqa: E402
from shutbox_host import mp  # noqa: E402
from shutbox_host.box.boxsim import face, tiles_lit  # noqa: E402
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


def test_a_whole_turn_by_clicks_with_the_leds_checked_against_the_log(box, record_property):
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
    box.latch()  # let Roll go
    time.sleep(0.3)
    box.flip(3)  # tile 3: 3 players
    box.wait_leds(lambda t, a, b: tiles_lit(t, "G") == [3], "3 players chosen")
    n = box.log_len()
    box.click_roll(1000)  # a long press: save and play
    st = box.wait_log("settings", n)
    assert st["values"][0] == 2  # players: index 2 = 3 players
    box.flip(3)  # tile 3 up again: every tile open
    game = box.wait_log("game", n)
    assert game["players"] == 3
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
