# The simulated boxes driven live: shutbox_host.model.drive's verbs on boxrun, or on CPython.
"""Two backends of shutbox_host.model.drive's protocol, on a virtual clock.

``SimBox``: the real firmware on the unix-port simulated board (sim/boxrun.py), driven verb
by verb.

The verbs become boxrun's primitive lines (``p``, ``E``, ``w``, ``d``, ``r``, ``R`` and the
questions), sent when something is read back (``shown``), each batch followed by an echoed
marker up to which the output is read, so the process lives between two calls and the pipes
never fill both ways. A wait is preceded by a marker naming the ms it ends at: a log record
printed during it is stamped with that end (boxrun's records carry no time; the frames and
tones carry their own ms).

``CpyBox``: the firmware's App on CPython (the CPython box), on a board of its own, under
any settings and rules: the pins are a word of levels, the frames, tones and log kept as App
gives them; a test may look inside its Game (``game``) and draw its picture at a time to
come (``frame``). Its loop is
Guard.forever's at whole ms (a reading every 2 ms, every ms while a level settles, a step
when the reading changed or App.wait says so): a contact's edges land at the first reading
after them, so a burst within one ms is one edge; without a store it has no flash (a power
cut is a new App), with one it boots from it as main.py does (``play``); it answers two of
boxrun's questions: ``s`` (the game's state) and ``e`` (an echo).
"""

from __future__ import annotations

import json
import math
import os
import random
import selectors
import subprocess
import tempfile
import time

from shutbox import pins
from shutbox_host.box import boxsim
from shutbox_host.model.drive import Driver, Shown

_CHUNK = 256  # lines sent before reading the output back: well under a pipe's buffer
_MARK = "@@"


class SimBox(Driver):
    """One simulated box (boxrun under micropython), from its power-up on."""

    name = "simulated board"
    Gone: type[Exception] = RuntimeError  # raised when the process ends or stops answering

    def __init__(self, *args: str, heapsize: str = "256k", levels: int = -1, tree=None,
                 timeout: float = 120, keep: bool = True):
        """*args*: boxrun's options (--players N, --flash DIR, ...); *levels*: the tiles
        open at power-up (bit k-1: tile k; -1: all); *tree*: a boxsim.build() folder (None:
        the firmware as it is); *timeout*: s without an answer before it counts as stuck;
        *keep*: keep what it showed (``shown``; a long run that reads ``send``'s lines
        keeps nothing)."""
        if levels != -1:
            args = (*args, "--levels", str(levels))
            self.open_ = levels & ((1 << pins.TILES) - 1)
        argv, env = boxsim.command(*args, heapsize=heapsize)
        if tree is not None:
            env["MICROPYPATH"] = str(tree)
        self.tree = tree
        self.timeout = timeout
        self.keep = keep
        self._err = tempfile.TemporaryFile("w+b")
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self._err, env=env, **boxsim.tied())
        assert self.proc.stdout is not None
        self._sel = selectors.DefaultSelector()
        self._sel.register(self.proc.stdout, selectors.EVENT_READ)
        self._buf = b""
        self._sync = 0
        self.ms: int = 0
        self.returncode: int | None = None
        self._out = Shown()
        self._todo: list[str] = []
        self._stamp = 0  # the ms the records read now are stamped with

    # ---- the verbs ----

    def levels(self, levels: dict[int, int]) -> None:
        self._todo += ["p %d %d" % (g, v) for g, v in levels.items()]

    def edges(self, gpio: int, edges: list[tuple[int, int]]) -> None:
        self._todo.append("E %d %s" % (gpio, " ".join("%d %d" % e for e in edges)))

    def advance(self, ms: float) -> None:
        ms = math.ceil(ms)  # boxrun's clock counts whole ms
        if ms > 0:
            self.ms += ms
            self._todo += ["e %s%d" % (_MARK, self.ms), "w %d" % ms]

    def power_cut(self) -> None:
        self._todo.append("r")

    def reset(self) -> None:
        self._todo.append("R")

    def dice(self, faces: list[int]) -> None:
        self._todo.append("d " + " ".join(str(f) for f in faces))

    def ask(self, line: str) -> None:
        self._todo.append(line)

    def shown(self) -> Shown:
        self.send([])
        return self._out

    def send(self, lines: list[str]) -> list[str]:
        """Send the verbs' lines waiting and boxrun's primitive *lines* now; return every
        line it printed meanwhile (its output as it is, the markers left out)."""
        todo, self._todo = self._todo + list(lines), []
        out: list[str] = []
        while True:
            chunk, todo = todo[:_CHUNK], todo[_CHUNK:]
            out += self._exchange(chunk)
            if not todo:
                return out

    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self) -> None:
        """Send what is left and quit; ``returncode``, ``stderr``: how it ended."""
        if self.returncode is not None:
            return
        try:
            self.shown()
            assert self.proc.stdin is not None
            self.proc.stdin.write(b"q\n")
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        except Exception:  # noqa: BLE001 - dead or stuck: it ends here either way
            self.proc.kill()
        self.returncode = self.proc.wait()
        self._sel.close()

    @property
    def stderr(self) -> str:
        self._err.seek(0)
        return self._err.read().decode(errors="replace")

    # ---- the pipes ----

    def _gone(self, why: str) -> Exception:
        """The process ended or is stuck: stop it, say why with the end of its stderr."""
        self.proc.kill()
        self.proc.wait()
        return self.Gone("%s: %s" % (why, self.stderr[-3000:]))

    def _exchange(self, chunk: list[str]) -> list[str]:
        """Send *chunk* and a marker; return the output up to the marker (taken in)."""
        p = self.proc
        assert p.stdin is not None and p.stdout is not None
        self._sync += 1
        end = "%ssync%d" % (_MARK, self._sync)
        try:
            p.stdin.write(("".join(x + "\n" for x in chunk) + "e %s\n" % end).encode())
            p.stdin.flush()
        except OSError:
            raise self._gone("the simulated board is gone") from None
        lines: list[str] = []
        deadline = time.monotonic() + self.timeout
        while True:
            while b"\n" in self._buf:
                raw, self._buf = self._buf.split(b"\n", 1)
                line = raw.decode(errors="replace")
                if line == end:
                    if self.keep:
                        self._take(lines)
                    return [x for x in lines if not x.startswith(_MARK)]
                lines.append(line)
            left = deadline - time.monotonic()
            if left <= 0:
                raise self._gone("no answer for %d s (stuck)" % self.timeout)
            if self._sel.select(left):
                data = os.read(p.stdout.fileno(), 65536)
                if not data:
                    raise self._gone("the simulated board ended")
                self._buf += data

    def _take(self, lines: list[str]) -> None:
        """Add boxrun's output *lines* to what was shown, the records stamped."""
        block: list[str] = []
        for line in [*lines, None]:
            if line is not None and not line.startswith(_MARK):
                block.append(line)
                continue
            frames, tones, log, other = boxsim.parse("\n".join(block))
            for rec in log:
                rec["_ms"] = self._stamp
            self._out.frames += frames
            self._out.tones += tones
            self._out.log += log
            self._out.lines += other
            block = []
            if line is not None:
                self._stamp = int(line[len(_MARK):])


# ----- the CPython box -----

_POLL_MS = 2  # shutbox.guard's: the longest sleep between two readings


class _Board:
    """shutbox.board.Board's API for App: the pins a word of levels set by the driver, what
    App shows and plays recorded (a note as heard: silence at sound off)."""

    def __init__(self, box: CpyBox, tiles: int):
        self.box = box
        self.tiles = tiles
        self.word = 0
        self.sound = 2  # adjust(): the levels set last (the Board's defaults: loud, medium)
        self.light = 1

    def switches(self, levels: int = -1) -> int:
        w = self.word if levels < 0 else levels
        return sum(1 << k for k in range(self.tiles)
                   if (w >> pins.TILE_PINS[k] & 1) != pins.SWITCH_ACTIVE)

    def roll(self, levels: int = -1) -> bool:
        w = self.word if levels < 0 else levels
        return (w >> pins.ROLL_PIN & 1) == pins.SWITCH_ACTIVE

    def show(self, frame) -> None:
        from shutbox.frame import NAMES

        t = self.tiles
        leds = "".join(chr(NAMES[c]) for c in frame)
        self.box.out.frames.append((self.box.ms, leds[:t], leds[t:t + 7], leds[t + 7:t + 14]))

    def tone(self, hz: int, ms: int = 0) -> None:
        self.box.out.tones.append((self.box.ms, hz if self.sound else 0))

    def adjust(self, sound: int, brightness: int) -> None:
        self.sound = sound
        self.light = brightness


class CpyBox(Driver):
    """The firmware's App on CPython, from its power-up on (no flash: a blank box)."""

    name = "CPython box"

    def __init__(self, players: int = 2, levels: int = -1, seed: int = 1, rules=None,
                 scripted: bool = False, tiles: int = pins.TILES, store=None,
                 held: bool = False, play: bool = False, **settings):
        """*players* and *settings*: the Settings' (boxrun's 2 players by default); *rules*:
        the engine's (None: the settings', as the box makes them); *levels*: the tiles open
        at power-up (bit k-1: tile k; -1: all); *seed*: the dice's draws once the faces
        given run out; *scripted*: no such draws, a throw without faces given fails the
        test (one face a draw, in order); *tiles*: the box's (2..12).

        *store* (a shutbox.store.Store: the flash): the box powers up as the Pico's main.py
        does, into the power-up screen of the combination held (*levels*, Roll *held*):
        ``screen`` (None: no combination) is stepped until it ends (``done``), and the box
        stops there, its flash as the screen left it (the game after it: the simulated
        board's --powerup); with *play*, the game follows as main.py starts it (the saved
        settings and records read, app.start: a saved game resumes), stepped first as time
        first passes (``advance``: where a save it makes may raise), and a power cut boots
        it again from the same flash (``store``: a test may give it a new one first)."""
        from shutbox import setfile
        from shutbox.game import Settings
        from shutbox.ticks import ticks_add

        self.ms: int = 0
        self.out = Shown()
        self.tiles = tiles
        self.store = store
        self.play = play
        self.screen = None
        self.done = False
        self.settings = Settings(players=players, **settings)
        self.rules = rules if rules is not None else setfile.rules(self.settings, tiles)
        self.scripted = scripted
        self._rng = random.Random(seed)
        self._faces: list[int] = []
        self._pending: list[tuple[int, int, int]] = []  # (µs, gpio, level) yet to land
        self._t0 = ticks_add(0, -3000)  # as boxrun: every run crosses the 2**30 ms wrap
        self.board = _Board(self, tiles)
        if levels == -1:
            levels = (1 << tiles) - 1
        self.open_ = levels & ((1 << tiles) - 1)
        word = 0
        for k in range(tiles):
            word |= (pins.SWITCH_ACTIVE ^ (levels >> k & 1)) << pins.TILE_PINS[k]
        self.board.word = word | (pins.SWITCH_ACTIVE ^ (not held)) << pins.ROLL_PIN
        self._boot()

    @property
    def game(self):
        """The firmware's Game (the CPython box's own: a test looks inside it)."""
        return self.app.game

    @property
    def faces(self) -> list[int]:
        """The faces given and not thrown yet (more may be added: the next draws)."""
        return self._faces

    @faces.setter
    def faces(self, faces: list[int]) -> None:
        self._faces = faces

    @property
    def now(self) -> int:
        """The firmware's clock now (ticks_ms)."""
        return self._now()

    def wake(self) -> None:
        """A test changed the game below the pins (a resume loaded into it): the box draws
        it now, as on an input (App.draw: a still picture is drawn again only then), and
        steps it at its next reading."""
        self.app.draw(self._now())
        self._due = self.ms

    def frame(self, at: int = 0) -> tuple[str, str, str]:
        """The game's picture *at* ms from now, drawn now (tiles, die A, die B as palette
        letters); time does not pass."""
        from shutbox.frame import NAMES

        f = self.app.game.render(self._now() + at)
        t = self.tiles
        leds = "".join(chr(NAMES[c]) for c in f)
        return leds[:t], leds[t:t + 7], leds[t + 7:t + 14]

    def _now(self) -> int:
        from shutbox.ticks import ticks_add

        return ticks_add(self._t0, self.ms)

    def _urandom(self, n: int) -> bytes:
        if self.scripted:
            if not self._faces:
                raise AssertionError("the box threw dice the test did not give")
            return bytes([self._faces.pop(0) - 1])
        return bytes(self._faces.pop(0) - 1 if self._faces else self._rng.randrange(256)
                     for _ in range(n))

    def _log(self, line: str) -> None:
        self.out.log.append(dict(json.loads(line), _ms=self.ms))

    def _boot(self) -> None:
        from shutbox.app import App

        now = self._now()
        if self.store is not None:
            from shutbox import powerup

            self.screen = powerup.prelude(self.board, self.store, now)
            self.done = self.screen is None
            if not (self.done and self.play):
                self._seen = self.board.word
                self._due = self.ms + 1
                self._next = self.ms + 1
                return
            self._start(now)
            self._seen = self.board.word
            self._due = self._next = self.ms  # its first step (a save) as time first passes
            return
        else:
            self.app = App(self.board, self._urandom, now, self.settings, self.rules,
                           out=self._log)
        self._seen = self.board.word
        self.app.step(now, self._seen)
        self._due = self.ms + self.app.wait(now)
        self._next = self.ms + 1  # the next reading

    def _start(self, now: int) -> None:
        """The game after the power-up screen, as main.py starts it from the flash."""
        from shutbox import app, powerup

        self.screen = None
        self.done = False
        boot = powerup.read(self.board, self.store)
        self.app = app.start(self.board, self._urandom, now, self.store, boot, out=self._log)

    # ---- the verbs ----

    def levels(self, levels: dict[int, int]) -> None:
        self._land(self.ms * 1000)
        for g, v in levels.items():
            self.board.word = self.board.word & ~(1 << g) | (v & 1) << g

    def edges(self, gpio: int, edges: list[tuple[int, int]]) -> None:
        now = self.ms * 1000
        self._pending = sorted(self._pending + [(now + us, gpio, v) for us, v in edges])

    def _land(self, until_us: int) -> None:
        while self._pending and self._pending[0][0] <= until_us:
            _, g, v = self._pending.pop(0)
            self.board.word = self.board.word & ~(1 << g) | (v & 1) << g

    def advance(self, ms: float) -> None:
        end = self.ms + math.ceil(ms)  # the loop's clock counts whole ms
        while self._next <= end:
            self.ms = self._next
            self._land(self.ms * 1000)
            now = self._now()
            word = self.board.word
            moved = word != self._seen
            if (moved or self.ms >= self._due) and not self.done:
                self._seen = word
                self._due = self.ms + self._step(now, word)
            wait = self._due - self.ms
            self._next = self.ms + (1 if wait < 1 or moved and wait <= 1
                                    else min(wait, _POLL_MS))
        self.ms = end

    def _step(self, now: int, word: int) -> int:
        """Step the game (or the power-up screen) on the reading *word*; return the ms to its
        next step if no level changes."""
        sc = self.screen
        if sc is None:
            self.app.step(now, word)
            return self.app.wait(now)
        if sc.step(now, word):
            if self.play:
                self._start(now)
                self.app.step(now, word)
                return self.app.wait(now)
            self.done = True
            return 0
        return sc.wait(now)

    def power_cut(self) -> None:
        self._land(self.ms * 1000)
        self.done = False
        self._boot()

    def dice(self, faces: list[int]) -> None:
        self._faces += faces
        self.app.dice.flush()

    def ask(self, line: str) -> None:
        c = line.split()[0]
        if c == "e":
            self.out.lines.append(line[2:].strip())
        elif c == "s":  # as boxrun answers it
            g = self.app.game
            self.out.lines.append("S %d %d %d %d %d %d %d %d %s" % (
                g.state, g.player + 1, g.open_, g.levels, g.a, g.b, g.err, g.err_mask,
                " ".join(str(x) for x in g.scores[:g.players])))
        else:
            super().ask(line)

    def shown(self) -> Shown:
        return self.out
