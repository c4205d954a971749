# The box's web page in headless Chromium, driven by Playwright: for the browser test and bench.
"""Play the web page (shutbox_host.web) as a person would, in a real browser.

``Browser`` builds build/web/, serves it on 127.0.0.1 and starts Debian's Chromium
(``/usr/bin/chromium``, or ``$SHUTBOX_CHROMIUM``) headless through Playwright for Python; it
never downloads a browser. ``Browser.page()`` opens the box in a fresh browser context (an
empty IndexedDB: a new box) as a ``BoxPage``, which clicks the tiles, presses Roll with the
mouse (held as long as asked), works the power switch, reads the game log and the LED frames
the page received (window.shutbox), and collects console errors. ``play_turn`` plays one
whole turn with the CPython engine's best moves, checking each throw's LEDs against the log:
the dice show the throw and exactly the tiles of its legal moves are lit white; and the
score view shows the score.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from shutbox_host.errors import UserError
from shutbox_host.model.drive import Driver, Shown, Unsupported
from shutbox_host.model.script import SETTLE_MS

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
VIEWPORT = {"width": 1000, "height": 560}
PHONE = {"width": 390, "height": 844}  # a phone held upright (CSS pixels)
_HOLD_MS = 900  # a long press of Roll: the debouncer's long press is at 700 ms


def chromium() -> str:
    return os.environ.get("SHUTBOX_CHROMIUM") or CHROMIUM


def missing(browser: bool = True) -> str | None:
    """Why the page cannot be tested here (one line), or None; *browser* False: why it
    cannot be built."""
    from shutbox_host.pico import emulator
    from shutbox_host.web import build

    why = emulator.missing()
    if why:
        return why
    if not browser:
        try:
            build.esbuild_cmd()
        except UserError as exc:
            return str(exc)
        return None
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return ("Playwright for Python is not installed: make venv (requirements-dev.txt "
                "pins it)")
    if not Path(chromium()).is_file():
        return ("no Chromium at %s: apt-get install chromium (Debian's), or set "
                "SHUTBOX_CHROMIUM" % chromium())
    try:
        build.esbuild_cmd()
    except UserError as exc:
        return str(exc)
    return None


class Browser:
    """build/web served and headless Chromium started; ``page()`` opens a new box."""

    def __init__(self, out: Path | None = None):
        self.out = out

    def __enter__(self) -> Browser:
        from playwright.sync_api import sync_playwright

        from shutbox_host.web import build, serve

        out = build.build(self.out or build.OUT)
        self.served = serve.Served(out)
        self._pw = sync_playwright().start()
        try:
            self.browser = self._pw.chromium.launch(executable_path=chromium(), args=ARGS,
                                                    headless=True)
        except Exception:
            self._pw.stop()
            self.served.stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        try:
            self.browser.close()
        finally:
            self._pw.stop()
            self.served.stop()

    def page(self, phone: bool = False) -> BoxPage:
        """A new box in a new context: a desktop window, or (*phone*) a phone held upright,
        390 px wide, with a touch screen (a tap is a touch, not a mouse click)."""
        if phone:
            ctx = self.browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True,
                                           device_scale_factor=2, accept_downloads=True)
        else:
            ctx = self.browser.new_context(viewport=VIEWPORT, accept_downloads=True)
        return BoxPage(ctx.new_page(), self.served.url)


class BoxPage:
    """One box in one browser tab."""

    def __init__(self, page, url: str):
        from shutbox_host.model.leds import decoder

        self.page = page
        self.url = url
        self.errors: list[str] = []
        self._decode = decoder()
        page.on("console", self._console)
        page.on("pageerror", lambda exc: self.errors.append("page error: %s" % exc))

    def _console(self, msg) -> None:
        if msg.type == "error":
            self.errors.append("console error: %s" % msg.text)

    # ---- loading ----

    def open(self, timeout_s: float = 60) -> None:
        """Load the page; wait until the emulated chip runs."""
        self.page.goto(self.url)
        self._ready(timeout_s)

    def reload(self, timeout_s: float = 60) -> None:
        self.page.reload()
        self._ready(timeout_s)

    def _ready(self, timeout_s: float) -> None:
        self.page.wait_for_function("() => window.shutbox && window.shutbox.ready",
                                    timeout=timeout_s * 1000)

    def close(self) -> None:
        self.page.context.close()

    # ---- reading ----

    def js(self, expr: str, arg=None):
        return self.page.evaluate(expr, arg)

    def log_len(self) -> int:
        return self.js("() => shutbox.log.length")

    def wait_log(self, ev: str, since: int, timeout_s: float = 20) -> dict:
        """Return the first game-log record from index *since* whose "ev" matches the regular
        expression *ev* (whole), waiting for it."""
        find = ("([n, ev]) => shutbox.log.slice(n).find(r => new RegExp('^(' + ev + ')$')"
                ".test(r.ev))")
        try:
            self.page.wait_for_function(find, arg=[since, ev], timeout=timeout_s * 1000)
        except Exception as exc:
            last = self.js("() => shutbox.lines.slice(-5)")
            raise AssertionError("no %r record in %.0f s; last lines: %s; errors: %s"
                                 % (ev, timeout_s, last, self.errors)) from exc
        rec = self.js(find, [since, ev])
        rec.pop("_w", None)
        rec.pop("_t", None)
        return rec

    def leds(self):
        """The LEDs as the last frame lit them: (tiles, die A, die B) palette letters."""
        from shutbox import pins

        hexdata = self.js("() => shutbox.frames.length ? shutbox.frames.at(-1).hex : ''")
        letters = self._decode(bytes.fromhex(hexdata)) if hexdata else ""
        n = pins.TILES
        return letters[:n], letters[n:n + 7], letters[n + 7:n + 14]

    def wait_leds(self, ok, what: str, timeout_s: float = 15):
        """Poll the LEDs until ok(tiles, die_a, die_b); AssertionError naming *what*."""
        deadline = time.monotonic() + timeout_s
        while True:
            leds = self.leds()
            if ok(*leds):
                return leds
            if time.monotonic() > deadline:
                raise AssertionError("the LEDs never showed %s: last %s" % (what, leds))
            time.sleep(0.03)

    def latencies(self) -> list[float]:
        """ms from each tile click to that tile's LED changing on the page."""
        return [x["ms"] for x in self.js("() => shutbox.latencies")]

    # ---- the controls ----

    def flip(self, k: int) -> None:
        self.page.click("#tile-%d" % k)

    def open_all(self, gap_s: float = 0.1) -> None:
        """Flip every shut tile up (before a new turn, while the score shows: the box does
        not show them, so they are not timed)."""
        from shutbox import pins

        mask = self.js("() => shutbox.tiles")
        self.js("() => { shutbox.measure = false; }")
        try:
            for k in range(1, pins.TILES + 1):
                if not mask >> (k - 1) & 1:
                    self.flip(k)
                    time.sleep(gap_s)
        finally:
            self.js("() => { shutbox.measure = true; }")

    def press(self) -> None:
        # the mouse moved to Roll's middle and pressed at once: hover's actionability checks
        # and a locator's box take tens of ms, more on a loaded machine (a press late)
        xy = self.js("() => { const r = document.querySelector('#roll').getBoundingClientRect();"
                     " return r.top >= 0 && r.bottom <= innerHeight ?"
                     " [r.x + r.width / 2, r.y + r.height / 2] : null; }")
        if xy is None:  # off the screen: scrolled to first
            self.page.hover("#roll")
        else:
            self.page.mouse.move(*xy)
        self.page.mouse.down()

    def release(self) -> None:
        self.page.mouse.up()

    def click_roll(self, ms: float = 100) -> None:
        """Press Roll with the mouse and let go after *ms* (a long press from 700 ms)."""
        self.press()
        time.sleep(ms / 1000)
        self.release()

    def tap(self, selector: str, ms: float = 100) -> None:
        """A finger's tap on *selector*: the touch screen pressed for *ms* (a person's tap
        lasts about a tenth of a second), through Chromium's touch input (pointer events of
        type touch, as a phone sends them)."""
        where = self.page.locator(selector)
        where.scroll_into_view_if_needed()
        box = where.bounding_box()
        point = [{"x": box["x"] + box["width"] / 2, "y": box["y"] + box["height"] / 2}]
        cdp = self.page.context.new_cdp_session(self.page)
        try:
            cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": point})
            time.sleep(ms / 1000)
            cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
        finally:
            cdp.detach()

    def latch(self) -> None:
        """The page's "hold Roll" control: Roll down until it is clicked again."""
        self.page.click("#hold")

    def power(self) -> None:
        self.page.click("#power")

    def screenshot(self, path: Path) -> None:
        self.page.screenshot(path=str(path))


class PageBox(Driver):
    """The page's box (a ``BoxPage`` opened) driven by shutbox_host.model.drive's verbs, by
    the controls a person uses: a tile's click when its level is to change, Roll held with
    the mouse, the power switch.

    Its clock is the emulated chip's, from the first turn's record and the power-up's work
    after it (``SETTLE_MS``): the frames, tones and
    records carry the chip's time they came at, and ``advance`` returns once both the wall
    and the chip have gone on that long. A loaded machine runs the chip in slow motion
    (worker.js keeps it at most 100 ms behind the wall, then forgives the debt), so a
    script on the wall's clock would find the box's answers late by whatever the machine
    lost; on the chip's clock an input lands when the chip reaches it. What the wall still
    sets: a Roll press lasts at least as long on the chip as the mouse held it on the wall
    (worker.js). It has no dice (the emulated chip draws its own), no µs edges (the page's
    inputs come as messages), no machine.reset() and no questions."""

    name = "web page"

    def __init__(self, page: BoxPage, timeout_s: float = 60):
        """*page*: a page not opened yet (``Browser.page()``): opened here, its box ready
        at its first turn's record."""
        self.page = page
        page.open(timeout_s)
        page.wait_log("turn", 0, timeout_s)
        # the script starts once the power-up's own work is done: the chip polls the flash
        # then, which the page emulates at a fraction of real time
        self._t0 = page.js("() => shutbox.log.find(r => r.ev === 'turn')._t")
        self._at = 0.0  # the script's time: where the last advance ended
        self.advance(SETTLE_MS)
        self._t0 += self._at
        self._at = 0.0

    @property
    def ms(self) -> float:  # type: ignore[override]
        return self.page.js("() => shutboxChipMs()") - self._t0

    # ---- the verbs ----

    def levels(self, levels: dict[int, int]) -> None:
        from shutbox import pins

        mask = self.page.js("() => shutbox.tiles")
        for g, v in levels.items():
            if g == pins.ROLL_PIN:
                (self.page.press if v == pins.SWITCH_ACTIVE else self.page.release)()
                continue
            k = pins.TILE_PINS.index(g) + 1
            if (mask >> (k - 1) & 1) != (v != pins.SWITCH_ACTIVE):  # its level changes
                self.page.flip(k)

    def edges(self, gpio: int, edges: list[tuple[int, int]]) -> None:
        raise Unsupported("web page: no contact bounce on the wall clock")

    def advance(self, ms: int) -> None:
        self._at = max(self._at, self.ms) + ms  # (never before now: an input took time)
        while (left := self._at - self.ms) > 0:  # the chip's clock, however far behind the wall
            time.sleep(min(left, 20) / 1000)

    def power_cut(self) -> None:
        self.page.power()
        self.page.power()

    def shown(self) -> Shown:
        from shutbox import pins
        from shutbox_host.model.leds import decoder

        decode = decoder()
        n = pins.TILES
        got = self.page.js("() => [shutbox.frames, shutbox.tones, shutbox.log]")
        frames = []
        for f in got[0]:
            leds = decode(bytes.fromhex(f["hex"]))
            frames.append((f["t"] - self._t0, leds[:n], leds[n:n + 7], leds[n + 7:n + 14]))
        tones = [(t["t"] - self._t0, t["hz"]) for t in got[1]]
        log = []
        for rec in got[2]:
            rec.pop("_w")
            rec["_ms"] = rec.pop("_t") - self._t0
            log.append(rec)
        return Shown(frames=frames, tones=tones, log=log)

    def close(self) -> None:
        self.page.close()


def _tiles(mask: int) -> list[int]:
    return [k + 1 for k in range(mask.bit_length()) if mask >> k & 1]


def shows_number(tiles: str, die_a: str, die_b: str, n: int, code: str) -> bool:
    """True when the LEDs show *n* (0..129) as shutbox.frame.number draws it in *code*."""
    from shutbox_host.model.leds import face

    if n == 0:
        return set(die_a + die_b) == {code} and set(tiles) == {"."}
    tens, units = divmod(n, 10)
    want_tiles = "".join(code if k < units else "." for k in range(len(tiles)))
    fa, fb = min(tens, 6), tens - min(tens, 6)
    lit = set((die_a if fa else "") + (die_b if fb else "")) - {"."}
    return (tiles == want_tiles and face(die_a) == fa and face(die_b) == fb
            and (not tens or lit == {code}))


def play_turn(bp: BoxPage, eng, gap_s: float = 0.15, at_throw=None) -> dict:
    """Play one whole turn from SETUP (tiles open) to its score, with the engine's best
    moves; check every throw, move and score against the engine and the LEDs against the
    log. *at_throw*: called once the first throw shows (a screenshot)."""
    from shutbox import pins
    from shutbox.engine import MAX_MOVES
    from shutbox_host.model.leds import face, tiles_lit

    open_ = eng.start_open
    locked = False
    buf = [0] * MAX_MOVES
    while True:
        one = eng.one_die_allowed(open_) and eng.choose_one_die(open_, locked)
        n0 = bp.log_len()
        bp.click_roll(_HOLD_MS if one else 100)
        throw = bp.wait_log("throw|refused", n0)
        assert throw["ev"] == "throw", throw
        a, b = (throw["dice"] + [0])[:2]
        assert bool(b == 0) == bool(one), (throw, one)
        locked = locked or (one and eng.rules.one_die_mode == 1)
        n = eng.legal_into(open_, a, b, buf)
        assert throw["moves"] == n, (throw, n)
        assert throw["open"] == _tiles(open_)
        if n == 0:
            break
        union = 0
        for i in range(n):
            union |= buf[i]
        want = _tiles(union)
        def thrown(t, da, db, a=a, b=b, want=want):
            return (face(da) == a and face(db) == b and tiles_lit(t, "W") == want
                    and set(t) <= {"W", "."})

        bp.wait_leds(thrown, "the throw %d+%d and its tiles %s lit white" % (a, b, want))
        if at_throw is not None:
            at_throw()
            at_throw = None
        move = eng.best_move(open_, a, b, locked)
        tiles = _tiles(move)
        n1 = bp.log_len()
        for k in sorted(tiles, reverse=True):
            bp.flip(k)
            time.sleep(gap_s)
        rec = bp.wait_log("move", n1)
        assert rec["shut"] == tiles, (rec, tiles)
        open_ &= ~move
        assert rec["open"] == _tiles(open_)
        if open_ == 0:
            break
        time.sleep(gap_s)
    score = bp.wait_log("score", n0)
    assert score["score"] == eng.score(open_ & ((1 << pins.TILES) - 1)), (score, open_)
    bp.wait_leds(lambda t, da, db: shows_number(t, da, db, score["score"], "B"),
                 "the score %d in blue" % score["score"])
    return score
