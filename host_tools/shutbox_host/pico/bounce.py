# Bounced inputs against the real firmware on the emulated RP2040: what the LEDs show, and when.
"""Drive bouncing switches into a booted emulated box and measure how it answers.

``run(emu, seed, edges)`` takes an ``Emulator`` at a turn's start and plays random inputs at
random instants (seeded, so a run replays) until they made *edges* edges, each input made of
the edges the contact model
(shutbox_host.contact) gives, landed on the pins at their exact emulated ns. Between them it
plays the game on as a careful player would (the throw's best move, clean edges), so the box
is always where an input means something: at a turn's start or between two throws.

The inputs:

- ``clean``: a tile flipped (shut, then later opened again) with one edge each way;
- ``bounced``: the same, each flip a burst (profile NEW or WORN: at most 10 ms);
- ``pair``: two tiles flipped together (bursts starting within 1 ms of each other);
- ``back``: a tile flipped and flipped back within 20 ms;
- ``chatter``: a tile held half way, chattering up to 200 ms, then shut (and opened again);
- ``glitch``: a spike shorter than 1 ms on a tile or on Roll;
- ``roll``: a short press of Roll (40-200 ms), its press and its release both bouncing;
- ``hold``: a long press of Roll (0.8-1.3 s: the one-die press), bouncing both ways: a
  release the box misses leaves Roll held for it, and 5 s held starts a new game;
- ``roll_flip``: Roll pressed while a tile, shut, is opened again and still bouncing;
- ``roll_move``: a short press of Roll, bouncing, after a throw and before its move (it only
  buzzes: any throw after it is a phantom).

What is measured comes from the chip alone: the WS2812 frames decoded from its LED pin and
its JSON log, on the emulated clock. A tile shows open when its LED is white (at a turn's
start and between throws an open tile is white, a shut one dark or blinking); the dice start
rolling when die A shows white pips. For every input:

- latency: from its first edge to the start of the first frame that shows the settled level
  (a tile) or rolling dice (Roll);
- lost: not shown within ``LOST_MS`` of its last edge, or not shown any more when the next
  input starts (the box's view left different from the pin);
- a glitch that changes anything (a frame, an error, a throw) is counted as wrong.

And over the run: phantom throws (a ``throw`` record no press explains: none came within
``_ANSWERED_MS`` before it; a press the box missed and takes late, when another input wakes
it, counts: the player sees the dice roll with no press) and unintended new games (a ``game``
record other than the one the player asked for with a long press at the game's end).
"""

from __future__ import annotations

import bisect
import random
import statistics
from dataclasses import dataclass, field

from shutbox import pins
from shutbox_host import contact
from shutbox_host.model.drive import Driver
from shutbox_host.pico import autoplay

_MS = 1_000_000
LOST_MS = 50  # an input not shown this long after its last edge is lost
# the targets on the emulated clock: ms from the first edge
CLEAN_MS = 10
BOUNCED_MS = 15
ROLL_MS = 10
# an input whose answer a flash save overlapped: its target plus this (a save may hold an input
# back no more than that: docs/reliability.md, inputs that come while the box saves)
SAVE_MS = 5
_ROLLING_MS = 600  # game._ROLL_MS: the dice roll this long before the throw is logged
# a press is answered by this long after its last edge: taken as a long press (700 ms, when
# its release was lost), settled (a debounce of up to 30 ms), the dice rolled
_ANSWERED_MS = 700 + LOST_MS + _ROLLING_MS + 100
# the game's own moments (a move taken, a turn started) are followed by this pause: the save
# they make (a 45 ms erase) is over before the next input, which is not one made during a save
_AFTER_MS = 120
_MOVE_PRESS = 0.3  # how often Roll is pressed between a throw and its move
_NOISE = ("error", "refused", "throw", "move", "score", "game", "turn", "turn_end")

# the inputs drawn at a turn's start or between throws (roll_move comes with a throw's move)
KINDS = ("clean", "bounced", "pair", "back", "chatter", "glitch", "roll", "hold", "roll_flip")
# how often each input comes (per mille): flips most, the special cases each now and then
_WEIGHTS = (200, 280, 90, 70, 30, 90, 140, 60, 40)


@dataclass
class Sample:
    """One input: its kind, its pin, its edges and what the box showed of it."""

    kind: str
    what: str  # "tile 3" or "roll"
    t0: int  # ns of its first edge
    t1: int  # ns of its last edge
    level: bool  # the settled level: a tile open, Roll released (glitch) or rolling (press)
    edges: int
    profile: str = ""
    until: int = 0  # ns: the next input starts here (the settled view is checked there)
    latency_ms: float | None = None
    lost: bool = False
    wrong: str = ""
    saving: bool = False  # a flash operation overlapped the input or its answer

    def late(self) -> bool:
        """Past its target (clean flip, bounced flip up to 10 ms, a Roll press), SAVE_MS more
        when a flash save overlapped it; a contact bouncing longer (ROUGH) has no latency
        target, only not to be lost."""
        lim = {"clean": CLEAN_MS, "bounced": BOUNCED_MS, "pair": BOUNCED_MS,
               "roll": ROLL_MS}.get(self.kind)
        if self.profile == contact.ROUGH.name or lim is None:
            return False
        lim += SAVE_MS if self.saving else 0
        return self.latency_ms is None or self.latency_ms > lim


@dataclass
class Result:
    """Every input of a run and what went wrong over it."""

    samples: list[Sample] = field(default_factory=list)
    edges: int = 0
    phantoms: list[float] = field(default_factory=list)  # ms of each throw no press explains
    unexpected_games: list[float] = field(default_factory=list)  # ms of each game not asked for
    new_games: int = 0  # asked for (a long press at a game's end)
    throws: int = 0
    emulated_ms: float = 0.0

    @property
    def phantom_throws(self) -> int:
        return len(self.phantoms)

    @property
    def unintended_new_games(self) -> int:
        return len(self.unexpected_games)

    def of(self, *kinds: str) -> list[Sample]:
        return [s for s in self.samples if s.kind in kinds]

    def lost(self) -> list[Sample]:
        return [s for s in self.samples if s.lost]

    def late(self) -> list[Sample]:
        return [s for s in self.samples if s.late()]

    def wrong(self) -> list[Sample]:
        return [s for s in self.samples if s.wrong]

    def figures(self, prefix: str = "rp2_") -> dict:
        """The bench's figures (ms on the emulated clock)."""

        def lat(kinds):
            return [s.latency_ms for s in self.of(*kinds) if s.latency_ms is not None]

        out: dict = {}
        for name, kinds in (("flip_to_led_ms_clean", ("clean",)),
                            ("flip_to_led_ms_bounced", ("bounced", "pair"))):
            v = lat(kinds)
            if v:
                out[prefix + name + "_p50"] = round(statistics.median(v), 2)
                out[prefix + name + "_p99"] = round(pct(v, 0.99), 2)
                out[prefix + name + "_max"] = round(max(v), 2)
        v = lat(("roll",))
        if v:
            out[prefix + "roll_to_throw_ms_p50"] = round(statistics.median(v), 2)
            out[prefix + "roll_to_throw_ms_max"] = round(max(v), 2)
        out[prefix + "lost_inputs"] = len(self.lost())
        out[prefix + "late_inputs"] = len(self.late())
        out[prefix + "wrong_inputs"] = len(self.wrong())
        out[prefix + "phantom_throws"] = self.phantom_throws
        out[prefix + "unintended_new_games"] = self.unintended_new_games
        out[prefix + "bounced_edges"] = self.edges
        out[prefix + "bounced_inputs"] = len(self.samples)
        return out

    def summary(self) -> str:
        """One paragraph: the counts, and the first few inputs that went wrong."""
        f = self.figures("")
        lines = [", ".join("%s %s" % kv for kv in sorted(f.items()))]
        if self.phantoms:
            lines.append("  phantom throws at %s ms"
                         % ", ".join("%.1f" % t for t in self.phantoms))
        if self.unexpected_games:
            lines.append("  unintended new games at %s ms"
                         % ", ".join("%.1f" % t for t in self.unexpected_games))
        for s in (self.lost() + self.late() + self.wrong())[:12]:
            lines.append("  %s %s (%s) at %.3f ms, %d edges over %.3f ms: latency %s%s%s"
                         % (s.kind, s.what, s.profile or "-", s.t0 / 1e6, s.edges,
                            (s.t1 - s.t0) / 1e6,
                            "never" if s.latency_ms is None else "%.2f ms" % s.latency_ms,
                            " LOST" if s.lost else "", " " + s.wrong if s.wrong else ""))
        return "\n".join(lines)


def pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def _tile_gpio(k: int) -> int:
    return pins.TILE_PINS[k - 1]


def _level(is_open: bool) -> int:
    """The pin level of a tile open (or Roll released) / shut (pressed)."""
    return 1 - pins.SWITCH_ACTIVE if is_open else pins.SWITCH_ACTIVE


class Bouncer:
    """Plays bounced inputs into one box (shutbox_host.model.drive's protocol) and follows
    its game; times in ns on the box's script clock."""

    def __init__(self, box: Driver, rng: random.Random,
                 profiles=(contact.NEW, contact.WORN)):
        self.box = box
        self.rng = rng
        self.profiles = profiles
        self.eng = autoplay.engine()
        self.res = Result()
        self.presses: list[tuple[int, int]] = []  # (first edge, last edge) of every Roll press
        self.asked: list[tuple[float, float]] = []  # ms windows of the new games asked for
        self._log_i = len(box.shown().log)
        self.state = "setup"  # setup, ready, move, rolling, turn_end, game_end
        self.open_ = (1 << pins.TILES) - 1  # the game's open tiles
        # the pins as driven (every tile open, Roll up: the box as it starts)
        self.levels = {g: _level(True) for g in (*pins.TILE_PINS[:pins.TILES], pins.ROLL_PIN)}
        self._throw: dict | None = None
        self._score_ms = 0.0
        self.start_ms = box.ms

    # ---- the pins and the clock ----

    @property
    def now_ns(self) -> int:
        return round(self.box.ms * _MS)

    def run(self, ms: float) -> None:
        self.box.advance(ms)

    def set_levels(self, levels: dict[int, int]) -> None:
        self.levels.update(levels)
        self.box.levels(levels)

    def drive(self, edges: list[tuple[int, int, int]]) -> None:
        """Land each (ns, gpio, level) on its pin at its ns (time passes to the last)."""
        now = self.now_ns
        for g in sorted({e[1] for e in edges}):
            mine = sorted((t, v) for t, gg, v in edges if gg == g)
            self.box.edges(g, [((t - now) / 1000, v) for t, v in mine])
            self.levels[g] = mine[-1][1]
        last = max(e[0] for e in edges)
        if last > now:
            self.box.advance((last - now) / _MS)

    def _edges(self, gpio: int, start: int, burst: list[tuple[int, bool]],
               active_high: bool) -> list[tuple[int, int, int]]:
        """A contact burst (levels: True = *active_high*'s side) as pin edges from *start*."""
        return [(start + t, gpio, _level(v) if active_high else _level(not v))
                for t, v in burst]

    def _phase(self) -> int:
        """A start a random time ahead: any phase against the poll loop."""
        return self.now_ns + self.rng.randint(200_000, 5 * _MS)

    def _sample(self, kind, what, edges, level, profile="") -> Sample:
        s = Sample(kind, what, edges[0][0], edges[-1][0], level, len(edges), profile)
        self.res.samples.append(s)
        self.res.edges += len(edges)
        return s

    def _last_lines(self) -> list:
        return self.box.shown().log[-5:]

    # ---- following the game ----

    def _follow(self) -> None:
        """Take the game's new log records: where it is, which tiles are open."""
        log = self.box.shown().log
        for rec in log[self._log_i:]:
            ev = rec.get("ev")
            if ev == "turn":
                self.state = "setup"
                self.open_ = _mask(rec["open"])
            elif ev == "throw":
                self._throw = rec
                self.open_ = _mask(rec["open"])
                self.state = "move" if rec["moves"] else "rolling"
            elif ev == "move":
                self.state = "ready"
                self.open_ = _mask(rec["open"])
            elif ev == "score":
                self.state = "turn_end"
                self._score_ms = rec["_ms"]
            elif ev == "winner":
                self.state = "game_end"
                self._score_ms = rec["_ms"]
        self._log_i = len(log)

    def _set_tiles(self) -> bool:
        """Put every tile's pin where the game has it (open tiles up), cleanly; return True
        if one moved."""
        lv = {}
        for k in range(1, pins.TILES + 1):
            g = _tile_gpio(k)
            v = _level(bool(self.open_ >> (k - 1) & 1))
            if self.levels.get(g) != v:
                lv[g] = v
        if lv:
            self.set_levels(lv)
        return bool(lv)

    def settle(self) -> None:
        """Play the game on, with clean inputs, until it waits at a turn's start or between
        two throws with its tiles where the game has them."""
        box = self.box
        for _ in range(50):
            self._follow()
            if self.state in ("setup", "ready"):
                if not self._set_tiles():
                    return
                self.run(60)
                self._follow()
                if self.state in ("setup", "ready"):
                    return
            if self.state == "move":
                if self.rng.random() < _MOVE_PRESS:
                    self._roll_move()
                rec = self._throw
                assert rec is not None
                a, b = (rec["dice"] + [0])[:2]
                move = self.eng.best_move(self.open_, a, b)
                for k in sorted(_tiles(move), reverse=True):
                    self.set_levels({_tile_gpio(k): _level(False)})
                    self.run(30)
                self.state = "moving"
                box.until(1000, "move", "score")
                self.run(_AFTER_MS)
            elif self.state in ("rolling", "moving"):
                box.until(1000, "throw", "move", "score")
                self.run(_AFTER_MS)
            elif self.state in ("turn_end", "game_end"):
                wait = self._score_ms + 800 - box.ms
                if wait > 0:
                    self.run(wait)
                self.open_ = (1 << pins.TILES) - 1
                self._set_tiles()
                self.run(60)
                if self.state == "turn_end":
                    self._click(100)
                    box.until(1000, "turn", "winner")
                    self.run(_AFTER_MS)
                else:
                    self._new_game()
        raise AssertionError("the game did not come back to a turn's start or a throw: %s; "
                             "last records %s" % (self.state, self._last_lines()))

    def _click(self, ms: float) -> None:
        """A clean press of Roll held *ms* ms (Driver.click), the pins as driven kept."""
        self.box.click(ms)
        self.levels[pins.ROLL_PIN] = _level(True)

    def _new_game(self) -> None:
        """Start a new game, as asked for at a game's end: a long press (one second), or if
        the box wants more, Roll held 6 s (it abandons any game after 5 s)."""
        box = self.box
        for hold in (1000, 6000):
            t = box.ms
            n = len(box.shown().log)
            self._click(hold)
            self.run(300)
            self.asked.append((t, box.ms))
            if any(r.get("ev") == "turn" for r in box.shown().log[n:]):
                self.res.new_games += 1
                return
        raise AssertionError("no new game at the game's end after a long press or Roll held "
                             "6 s; last records %s" % self._last_lines())

    # ---- the inputs ----

    def one(self) -> None:
        """One random input (the game settled first), and a random pause after it."""
        self.settle()
        rng = self.rng
        # every kind once first (a run of any length covers them all), then at random
        n = self._ones = getattr(self, "_ones", 0) + 1
        kind = KINDS[n - 1] if n <= len(KINDS) else rng.choices(KINDS, _WEIGHTS)[0]
        tiles = _tiles(self.open_)
        if kind == "pair" and len(tiles) < 2:
            kind = "bounced"
        before = len(self.res.samples)
        getattr(self, "_" + kind)(tiles)
        # the pause: the answer is looked at up to LOST_MS after the last edge and the old
        # level must be shown again before the next input starts
        self.run(LOST_MS + rng.randint(5, 60))
        for s in self.res.samples[before:]:
            if not s.until:
                s.until = self.now_ns

    def _flip(self, kind, tiles, profile=None, n=1):
        """Shut *n* tiles (bounced by *profile*, None: clean), then open them again."""
        rng = self.rng
        ks = rng.sample(tiles, n)
        for to_open in (False, True):
            start = self._phase()
            edges = []
            per = []
            for k in ks:
                s0 = start + (rng.randint(0, _MS) if n > 1 else 0)
                b = [(0, to_open)] if profile is None else contact.burst(rng, to_open, profile)
                e = self._edges(_tile_gpio(k), s0, b, True)
                per.append((k, e))
                edges += e
            self.drive(edges)
            for k, e in per:
                self._sample(kind, "tile %d" % k, e, to_open, profile.name if profile else "")
            if not to_open:  # the shut shown (or not) before the tiles open again
                self.run(LOST_MS + rng.randint(5, 80))
                for s in self.res.samples[-n:]:
                    s.until = self.now_ns

    def _clean(self, tiles):
        self._flip("clean", tiles)

    def _bounced(self, tiles):
        self._flip("bounced", tiles, self.rng.choice(self.profiles))

    def _pair(self, tiles):
        self._flip("pair", tiles, self.rng.choice(self.profiles), 2)

    def _back(self, tiles):
        """Shut and opened again, the whole within 20 ms."""
        rng = self.rng
        k = rng.choice(tiles)
        start = self._phase()
        down = contact.burst(rng, False, contact.NEW, rng.randint(100_000, 6 * _MS))
        up_at = down[-1][0] + rng.randint(200_000, 4 * _MS)
        up = contact.burst(rng, True, contact.NEW,
                           rng.randint(100_000, max(100_000, 20 * _MS - up_at - 1)))
        burst = down + [(up_at + t, v) for t, v in up]
        e = self._edges(_tile_gpio(k), start, burst, True)
        self.drive(e)
        self._sample("back", "tile %d" % k, e, True)

    def _chatter(self, tiles):
        """Held half way, then shut: chattering up to 200 ms; then opened again, bounced."""
        rng = self.rng
        k = rng.choice(tiles)
        e = self._edges(_tile_gpio(k), self._phase(), contact.chatter(rng, False), True)
        self.drive(e)
        s = self._sample("chatter", "tile %d" % k, e, False)
        self.run(LOST_MS + rng.randint(5, 80))
        s.until = self.now_ns
        e = self._edges(_tile_gpio(k), self._phase(),
                        contact.burst(rng, True, rng.choice(self.profiles)), True)
        self.drive(e)
        self._sample("chatter", "tile %d" % k, e, True)

    def _glitch(self, tiles):
        rng = self.rng
        if rng.random() < 0.4:
            g, what = pins.ROLL_PIN, "roll"
        else:
            k = rng.choice(tiles)
            g, what = _tile_gpio(k), "tile %d" % k
        e = self._edges(g, self._phase(), contact.glitch(rng, True), True)
        self.drive(e)
        self._sample("glitch", what, e, True)

    def _press(self, start: int, rng, held=(40 * _MS, 200 * _MS)):
        prof = rng.choice(self.profiles)
        burst = contact.press(rng, rng.randint(*held), prof)
        # press(): True is the contact closed, Roll pressed: its pin at SWITCH_ACTIVE
        return self._edges(pins.ROLL_PIN, start, burst, False), prof

    def _roll(self, tiles, kind="roll", held=(40 * _MS, 200 * _MS)):
        e, prof = self._press(self._phase(), self.rng, held)
        self.drive(e)
        self.presses.append((e[0][0], e[-1][0]))
        self._sample(kind, "roll", e, True, prof.name)
        self._after_press(e[-1][0])

    def _hold(self, tiles):
        self._roll(tiles, "hold", (800 * _MS, 1300 * _MS))

    def _roll_flip(self, tiles):
        """A tile shut (clean), then opened again bouncing, Roll pressed during its burst."""
        rng = self.rng
        k = rng.choice(tiles)
        self.set_levels({_tile_gpio(k): _level(False)})
        self.run(LOST_MS + rng.randint(5, 40))
        start = self._phase()
        burst = contact.burst(rng, True, rng.choice(self.profiles))
        te = self._edges(_tile_gpio(k), start, burst, True)
        re, prof = self._press(start + rng.randint(0, burst[-1][0]), rng)
        self.drive(te + re)
        self.presses.append((re[0][0], re[-1][0]))
        s = self._sample("roll_flip", "tile %d" % k, te, True)
        # looked at before the throw's move shows (its tiles then show the legal moves)
        s.until = te[-1][0] + (LOST_MS + 1) * _MS
        self._sample("roll_flip", "roll", re, True, prof.name)
        self._after_press(re[-1][0])

    def _roll_move(self) -> None:
        """Roll pressed (bouncing) while the throw waits for its move: no press to throw."""
        e, prof = self._press(self._phase(), self.rng)
        self.drive(e)
        s = self._sample("roll_move", "roll", e, True, prof.name)
        self.run(LOST_MS + self.rng.randint(5, 60))
        s.until = self.now_ns

    def _after_press(self, t1: int) -> None:
        """Run until the press is answered (its throw logged, or refused), at most until the
        dice would have landed."""
        left = (t1 + _ANSWERED_MS * _MS - self.now_ns) / _MS
        if left > 0:
            self.box.until(left, "throw", "refused")


def _mask(tiles) -> int:
    m = 0
    for k in tiles:
        m |= 1 << (k - 1)
    return m


def _tiles(mask: int) -> list[int]:
    return [k for k in range(1, pins.TILES + 1) if mask >> (k - 1) & 1]


# ---- judging what the chip showed ----------------------------------------------------


def judge(box: Driver, b: Bouncer) -> Result:
    """Fill every sample's latency and faults from what the box showed: its frames (ms,
    tiles, die A, die B) and its log, on its script clock."""
    res = b.res
    shown = box.shown()
    frames = shown.frames
    log = shown.log
    starts = [f[0] for f in frames]
    ops = [(t0 * _MS, t1 * _MS) for t0, t1 in shown.flash]

    def first(t_ms, until_ms, pred):
        i = bisect.bisect_left(starts, t_ms)
        while i < len(frames) and frames[i][0] <= until_ms:
            if pred(frames[i]):
                return frames[i]
            i += 1
        return None

    def at(t_ms):
        i = bisect.bisect_right(starts, t_ms) - 1
        return frames[i] if i >= 0 else None

    def records(t_ms, until_ms, kinds):
        return [r for r in log if t_ms <= r["_ms"] <= until_ms and r.get("ev") in kinds]

    rolling = lambda f: "W" in f[2]  # noqa: E731 - a predicate over frames (die A lit)
    for s in res.samples:
        t0, t1, until = s.t0 / 1e6, s.t1 / 1e6, s.until / 1e6
        s.saving = any(a < s.t1 + LOST_MS * _MS and z > s.t0 for a, z in ops)
        if s.kind == "roll_move":
            continue  # it must not throw: a throw after it is a phantom (below)
        if s.what == "roll":
            if s.kind == "glitch":
                if first(t0, until, rolling) or records(t0, until, _NOISE):
                    s.wrong = "a glitch on Roll changed something"
                continue
            f = first(t0, until, rolling)
            s.latency_ms = None if f is None else f[0] - t0
            refused = records(t0, t1 + LOST_MS, ("refused",))
            if s.kind == "roll_flip" and refused:
                s.latency_ms = None
                continue  # answered: the tile was still shut when the press came
            s.lost = f is None or f[0] > t1 + LOST_MS
            continue
        k = int(s.what.split()[1]) - 1
        shows = lambda f, k=k, lv=s.level: (f[1][k] == "W") == lv  # noqa: E731
        if s.kind == "glitch":
            bad = first(t0, until, lambda f, sh=shows: not sh(f))
            if bad is not None or records(t0, until, _NOISE):
                s.wrong = "a glitch changed something"
            continue
        f = first(t0, until, shows)
        s.latency_ms = None if f is None else f[0] - t0
        end = at(until)
        settled = at(t1 + LOST_MS)
        if s.kind == "back":
            s.lost = settled is None or not shows(settled) or end is None or not shows(end)
            s.latency_ms = None
            continue
        s.lost = f is None or f[0] > t1 + LOST_MS or end is None or not shows(end)
        if s.kind == "chatter":
            s.latency_ms = None
    # throws: each explained by one press, its dice landing _ROLLING_MS after the press is
    # taken: by its release at the latest, or as a long press (a lost release)
    used = set()
    for r in log:
        if r.get("ev") != "throw" or r["_ms"] < b.start_ms:
            continue
        res.throws += 1
        hit = None
        for i, (p0, p1) in enumerate(b.presses):
            if i not in used and p0 / 1e6 <= r["_ms"] <= p1 / 1e6 + _ANSWERED_MS:
                hit = i
                break
        if hit is None:
            res.phantoms.append(r["_ms"])
        else:
            used.add(hit)
    for r in log:
        if r.get("ev") == "game" and r["_ms"] >= b.start_ms and not any(
                a <= r["_ms"] <= z for a, z in b.asked):
            res.unexpected_games.append(r["_ms"])
    res.emulated_ms = box.ms - b.start_ms
    return res


def run(box, seed: int, edges: int = 2000, profiles=(contact.NEW, contact.WORN)) -> Result:
    """Play random inputs (seeded) into *box* (a Driver; an Emulator is driven as an EmuBox),
    at a turn's start, until they made at least *edges* edges; judge them. Every throw comes
    from one of these inputs' presses (settle() plays the game on without throwing), so each
    is matched to a press."""
    if not isinstance(box, Driver):
        from shutbox_host.pico.drive import EmuBox

        box = EmuBox.attach(box)
    b = Bouncer(box, random.Random(seed), profiles)
    while b.res.edges < edges:
        b.one()
    b.settle()
    return judge(box, b)
